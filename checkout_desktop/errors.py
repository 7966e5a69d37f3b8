"""The one base of errors that end a command with a plain message and a documented exit code."""

from __future__ import annotations

from checkout_desktop.texts import WordedError


class PlainError(WordedError, RuntimeError):
    """A problem the user can fix: its message says what and how; no traceback is shown.

    `exit_code` is what the command exits with (the README lists them): 2 for settings,
    options and the instance folder, 3 for the store, 1 for anything else.

    Its message may be `Words` (see `checkout_desktop.texts`): the command prints `shown()`,
    in the owner's language; `str()` and the logs stay English.
    """

    exit_code = 1


__all__ = ["PlainError"]
