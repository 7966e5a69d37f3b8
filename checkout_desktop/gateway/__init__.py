"""The service client: profiles, token manager, charge operations, errors."""

import logging

logger = logging.getLogger(__name__)
