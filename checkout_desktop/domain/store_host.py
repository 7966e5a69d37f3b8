"""A shared store's server name as the owner types it: what keeps it from being one.

Pure logic, no I/O: the setup's and the settings' forms say the problem in the owner's words
(never repeating the text, which may hold a password), and the store's address refuses it.
"""

from __future__ import annotations

import ipaddress
from enum import StrEnum


class HostProblem(StrEnum):
    """Why a server name is not one (values are stable; the window words each its own way)."""

    CREDENTIALS = "credentials"
    """It holds a '@': a user (and perhaps a password) written before the server's name."""
    SPACE = "space"
    SLASH = "slash"
    """A '/' in a name that is not a socket folder (those start with '/')."""
    COLON = "colon"
    """A ':' in what is not an IPv6 address: a port, or a password, in the name."""


def host_problem(host: str) -> HostProblem | None:
    """What keeps `host` from being a server's name, an IP address or a socket folder."""
    if "@" in host:
        return HostProblem.CREDENTIALS
    if any(char.isspace() for char in host):
        return HostProblem.SPACE
    if host.startswith("/"):
        return None
    if "/" in host:
        return HostProblem.SLASH
    if ":" in host and not is_ipv6(host):
        return HostProblem.COLON
    return None


def is_ipv6(host: str) -> bool:
    """Whether `host` is an IPv6 address (with or without its brackets)."""
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    try:
        ipaddress.IPv6Address(host)
    except ValueError:
        return False
    return True


__all__ = ["HostProblem", "host_problem", "is_ipv6"]
