"""Where the shared store is: a PostgreSQL URL without its password, checked and made printable.

The address is what `--store URL` and the settings hold. It never holds a password: the
password lives in the OS keychain under the address's `keychain_key` (user, host, port and
database), and reaches libpq only as a connection argument, at the moment of connecting.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from urllib.parse import quote

from checkout_desktop.domain.store_host import HostProblem, host_problem, is_ipv6
from checkout_desktop.errors import PlainError
from checkout_desktop.texts import QT_TRANSLATE_NOOP, Words

logger = logging.getLogger(__name__)

SCHEMES = ("postgresql://", "postgres://")
SSL_MODES = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")
DEFAULT_PORT = 5432

# Connection parameters an address may carry; anything else (notably `password`, and
# `passfile`, a password in a plain file) is refused, so a secret never sits in settings.
_ALLOWED = frozenset(
    {
        "host",
        "hostaddr",
        "port",
        "dbname",
        "user",
        "sslmode",
        "sslrootcert",
        "sslcert",
        "sslkey",
        "sslcrl",
        "connect_timeout",
        "application_name",
        "target_session_attrs",
    }
)
_SECRET_PARAMETERS = frozenset({"password", "passfile", "sslpassword"})


_FORM = "postgresql://USER@HOST[:PORT]/DATABASE[?sslmode=verify-full]"


class StoreAddressError(PlainError):
    """A `--store` address that cannot be used; the message says what to change."""

    exit_code = 2


class StoreHostError(StoreAddressError, ValueError):
    """The server's name is not a host name, an IP address or a socket folder; `problem` says
    what is wrong with it. The message never repeats the text, which may hold a password.

    A ValueError too: the store choice's form takes an address it cannot build as one."""

    def __init__(self, problem: HostProblem) -> None:
        super().__init__(Words(_HOST_WORDS[problem]))
        self.problem = problem


_HOST_WORDS = {
    HostProblem.CREDENTIALS: QT_TRANSLATE_NOOP(
        "StoreAddress",
        "the shared store's server name holds a '@': give the server's name alone, the user "
        "in its own field and the password in the OS keychain",
    ),
    HostProblem.SPACE: QT_TRANSLATE_NOOP(
        "StoreAddress", "the shared store's server name holds a space"
    ),
    HostProblem.SLASH: QT_TRANSLATE_NOOP(
        "StoreAddress",
        "the shared store's server name holds a '/' (a socket folder starts with '/')",
    ),
    HostProblem.COLON: QT_TRANSLATE_NOOP(
        "StoreAddress",
        "the shared store's server name holds a ':' but is not an IPv6 address: give the "
        "port in its own field",
    ),
}


def is_store_url(text: str) -> bool:
    """Whether `text` names a PostgreSQL store (rather than the embedded SQLite one)."""
    return text.strip().lower().startswith(SCHEMES)


@dataclass(frozen=True)
class StoreAddress:
    """A checked PostgreSQL address; `params` are libpq connection parameters, no password."""

    params: tuple[tuple[str, str], ...]

    @classmethod
    def parse(cls, text: str) -> StoreAddress:
        """Check a `postgresql://user@host:port/db?sslmode=…` URL; refuse one with a password."""
        from psycopg.conninfo import conninfo_to_dict

        raw = text.strip()
        if not is_store_url(raw):
            raise StoreAddressError(
                Words(
                    QT_TRANSLATE_NOOP(
                        "StoreAddress",
                        "a shared store is given as {form} (the embedded store needs no --store)",
                    ),
                    form=_FORM,
                )
            )
        try:
            parsed = conninfo_to_dict(raw)
        except Exception:  # psycopg's message may quote the URL, password and all
            raise StoreAddressError(
                Words(
                    QT_TRANSLATE_NOOP(
                        "StoreAddress",
                        "the --store address is not a valid postgresql:// URL; write it as {form}",
                    ),
                    form=_FORM,
                )
            ) from None
        secret = sorted(_SECRET_PARAMETERS & parsed.keys())
        if secret:
            raise StoreAddressError(
                Words(
                    QT_TRANSLATE_NOOP(
                        "StoreAddress",
                        "the --store address carries a secret ({names}); give the address "
                        "without it and store the password in the OS keychain with {command}",
                    ),
                    names=", ".join(secret),
                    command="`checkout-desktop --store URL store password`",
                )
            )
        unknown = sorted(parsed.keys() - _ALLOWED)
        if unknown:
            raise StoreAddressError(
                Words(
                    QT_TRANSLATE_NOOP(
                        "StoreAddress",
                        "the --store address has parameters checkout-desktop does not use: "
                        "{unknown}; allowed: {allowed}",
                    ),
                    unknown=", ".join(unknown),
                    allowed=", ".join(sorted(_ALLOWED)),
                )
            )
        values = {key: str(value) for key, value in parsed.items() if value is not None}
        for host in values.get("host", "").split(","):
            problem = host_problem(host)
            if problem is not None:
                raise StoreHostError(problem)
        if not values.get("dbname"):
            raise StoreAddressError(
                Words(
                    QT_TRANSLATE_NOOP(
                        "StoreAddress", "the --store address names no database: write {form}"
                    ),
                    form="postgresql://USER@HOST/DATABASE",
                )
            )
        if not values.get("user"):
            raise StoreAddressError(
                Words(
                    QT_TRANSLATE_NOOP(
                        "StoreAddress", "the --store address names no user: write {form}"
                    ),
                    form="postgresql://USER@HOST/DATABASE",
                )
            )
        mode = values.get("sslmode")
        if mode is not None and mode not in SSL_MODES:
            raise StoreAddressError(
                Words(
                    QT_TRANSLATE_NOOP(
                        "StoreAddress",
                        "sslmode={mode} is not one of {modes} (verify-full checks the server's "
                        "certificate and name; use it across a network)",
                    ),
                    mode=repr(mode),
                    modes=", ".join(SSL_MODES),
                )
            )
        port = values.get("port")
        if port is not None and not (port.isdigit() and 0 < int(port) < 65536):
            raise StoreAddressError(
                Words(
                    QT_TRANSLATE_NOOP(
                        "StoreAddress", "the --store address's port {port} is not a port number"
                    ),
                    port=repr(port),
                )
            )
        return cls(params=tuple(sorted(values.items())))

    def get(self, key: str) -> str | None:
        return dict(self.params).get(key)

    @property
    def user(self) -> str:
        return self.get("user") or ""

    @property
    def dbname(self) -> str:
        return self.get("dbname") or ""

    @property
    def host(self) -> str:
        return self.get("host") or self.get("hostaddr") or "localhost"

    @property
    def port(self) -> int:
        port = self.get("port")
        return int(port) if port else DEFAULT_PORT

    @property
    def keychain_key(self) -> str:
        """The keychain account the password is kept under: who, where, which database."""
        return f"store:{self.user}@{self.host}:{self.port}/{self.dbname}"

    def url(self) -> str:
        """The address as a URL (what settings keep and messages show; it holds no secret)."""
        rest = {k: v for k, v in self.params if k not in ("user", "host", "port", "dbname")}
        host = self.get("host") or ""
        # A Unix socket folder cannot sit in the URL's host part; libpq takes it as a parameter.
        in_netloc = host and not host.startswith("/")
        if host and not in_netloc:
            rest = {"host": host, **rest}
        netloc = quote(self.user, safe="") + "@"
        if in_netloc:
            netloc += f"[{host}]" if ":" in host else host
        if self.get("port"):
            netloc += f":{self.port}"
        query = "&".join(f"{k}={quote(v, safe='')}" for k, v in sorted(rest.items()))
        return f"postgresql://{netloc}/{quote(self.dbname, safe='')}" + (
            f"?{query}" if query else ""
        )

    def describe(self) -> str:
        """Short words for messages: database, user and server."""
        return self.described().english()

    def described(self) -> Words:
        """`describe()`'s words, for a message the owner reads in their language."""
        return Words(
            QT_TRANSLATE_NOOP("SharedStore", "database {database} as {user} on {server}"),
            database=repr(self.dbname),
            user=repr(self.user),
            server=f"{self.host}:{self.port}",
        )

    def __str__(self) -> str:
        return self.url()


__all__ = [
    "SSL_MODES",
    "HostProblem",
    "StoreAddress",
    "StoreAddressError",
    "StoreHostError",
    "host_problem",
    "is_ipv6",
    "is_store_url",
]
