"""The service client: profiles, token manager, charge operations, errors."""
