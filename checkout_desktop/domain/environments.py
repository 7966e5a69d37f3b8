"""The environment a charge is stored under: the service that alone knows it.

A real environment (the service's sandbox, production) is one service for every counter of a
shop, so its charges are stored under the profile's name. The built-in sandbox is a process on
each computer, with charges of its own: two counters sharing a store run two sandboxes, and a
sandbox started without the file it keeps its charges in knows none of the earlier ones. Its
charges are stored under the profile's name and the sandbox's instance id, so a terminal acts
on, asks about and reconciles only the charges its own sandbox holds (the store's profile
filter keeps the others apart, as it keeps production's apart from a sandbox's).
"""

from __future__ import annotations

SEPARATOR = "@"


def sandbox_environment(profile_name: str, instance: str) -> str:
    """The stored environment of a built-in sandbox's charges (its profile's name without an
    instance id: a sandbox that announced none)."""
    return f"{profile_name}{SEPARATOR}{instance}" if instance else profile_name


def profile_of(environment: str) -> str:
    """The settings profile an environment belongs to (a sandbox's instance id left out)."""
    return environment.split(SEPARATOR, 1)[0]


__all__ = ["SEPARATOR", "profile_of", "sandbox_environment"]
