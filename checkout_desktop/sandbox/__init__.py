"""The built-in sandbox: a simulator of the service (token, charges, SDK backend, webhooks)."""
