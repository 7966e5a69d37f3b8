"""The built-in sandbox: a simulator of the service (token, charges, SDK backend, webhooks)."""

SDK_HOST = "checkout-qa.picpay.com"
"""The backend host the published SDK's development build calls (its certificate names it).

Kept here, free of imports, so that the terminal can decide its Chromium flags for the sandbox
without loading the sandbox's server stack."""
