"""The charge use case: ledger, service, reconciler, the sale being charged, read views."""
