"""This counter's id: kept in the data folder, registered in the store so no counter shares it."""

from __future__ import annotations

import logging
import socket
from pathlib import Path

from checkout_desktop.domain.counters import is_counter_id, new_counter_id
from checkout_desktop.store.errors import RepositoryError, StoreError
from checkout_desktop.store.ports import Store

logger = logging.getLogger(__name__)

COUNTER_ID_FILE = "counter-id"
_TRIES = 8


def _read_local(file: Path) -> str | None:
    try:
        text = file.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if is_counter_id(text) else None


def _keep_local(file: Path, counter: str) -> None:
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(counter + "\n", encoding="ascii")
    except OSError as exc:
        logger.warning("cannot keep the counter id in %s: %s", file, exc.strerror)


async def counter_id(store: Store, data_dir: Path, terminal_id: str) -> str:
    """The id this terminal's sales carry: the one the store holds for it, else the one kept
    in the data folder, else a new one, registered so that no other counter of the shop takes
    it (a clash, e.g. a data folder copied to a second PC, picks a fresh one)."""
    file = data_dir / COUNTER_ID_FILE
    registered = await store.shop.counter_of(terminal_id)
    if registered is not None:
        if _read_local(file) != registered:
            _keep_local(file, registered)
        return registered
    candidate = _read_local(file) or new_counter_id()
    host = socket.gethostname()
    for _ in range(_TRIES):
        try:
            async with store.unit_of_work() as uow:
                counter = await uow.shop.register_counter(candidate, terminal_id, host)
        except RepositoryError:
            logger.warning("the counter id %s is another counter's; choosing another", candidate)
            candidate = new_counter_id()
            continue
        _keep_local(file, counter)
        return counter
    raise StoreError("no free counter id could be registered in the store")


__all__ = ["COUNTER_ID_FILE", "counter_id"]
