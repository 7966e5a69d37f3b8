"""Pure domain logic: wire models, money, documents, charge state. No Qt, no I/O."""
