"""Type two cards, charge them through the sandbox, then look everywhere for the card data."""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from checkout_desktop.charges.service import ChargeService
from checkout_desktop.domain.events import EventBus
from checkout_desktop.domain.records import CardSummary
from checkout_desktop.domain.wire import ChargeAuthorizationRequest
from checkout_desktop.gateway.client import ChargeClient
from checkout_desktop.gateway.profiles import Endpoints, sandbox_credentials
from checkout_desktop.gateway.tokens import TokenManager
from checkout_desktop.logsetup import setup_logging
from checkout_desktop.paths import app_paths
from checkout_desktop.settings import default_profiles
from checkout_desktop.store.sqlite.db import connect
from checkout_desktop.store.sqlite.store import SqliteStore
from checkout_desktop.ui.card_page import SdkCredentialSource
from checkout_desktop.ui.webview import CardPageConfig

if TYPE_CHECKING:
    from tests.gui.card_fixtures import CardUi, SandboxRun

pytest_plugins = ["tests.gui.card_fixtures"]
pytestmark = pytest.mark.webengine

logger = logging.getLogger(__name__)

# Two of the sandbox's approved test cards, each with its own CVV.
CARDS = (
    {"number": "4111111111111111", "cvv": "739", "brand": "VISA", "last_four": "1111"},
    {"number": "5555555555554444", "cvv": "482", "brand": "MASTERCARD", "last_four": "4444"},
)
HOLDER_DOCUMENT = "65844359038"


def _number_forms(number: str) -> list[str]:
    grouped = [number[i : i + 4] for i in range(0, len(number), 4)]
    return [number, " ".join(grouped), "-".join(grouped)]


def _cvv_patterns(cvv: str) -> list[re.Pattern[str]]:
    # A bare three-digit string occurs by chance (log milliseconds, ids), so a CVV is looked
    # for where it would sit if it had leaked: after a CVV-like name, or as a quoted value.
    return [
        re.compile(rf"(?i)(cvv|cvc|security.?code)\W{{0,8}}{cvv}(?!\d)"),
        re.compile(rf"[\"']{cvv}[\"']"),
    ]


@pytest.fixture
def file_logging(checkout_home: Path) -> Iterator[Path]:
    """The terminal's own log file under the test's home, as the app sets it up."""
    paths = app_paths(checkout_home).ensure()
    root = logging.getLogger()
    level = root.level
    setup_logging(paths.log_dir, level=logging.DEBUG, console=False)
    try:
        yield paths.log_dir
    finally:
        setup_logging(None, level=level, console=False)


def _charge_request(tokens: list[Any], merchant_charge_id: str) -> ChargeAuthorizationRequest:
    return ChargeAuthorizationRequest.model_validate(
        {
            "paymentSource": "GATEWAY",
            "merchantChargeId": merchant_charge_id,
            "lateCapture": False,
            "customer": {
                "name": "Joao da Silva",
                "email": "joao@example.com",
                "documentType": "CPF",
                "document": HOLDER_DOCUMENT,
            },
            "transactions": [
                {
                    "paymentType": "CREDIT",
                    "amount": amount,
                    "softDescriptor": "LOJA TESTE",
                    "credit": {
                        "temporaryCardToken": token.token,
                        "installmentNumber": 1,
                        "installmentType": "NONE",
                    },
                }
                for token, amount in zip(tokens, (1200, 800), strict=True)
            ],
        }
    )


async def _charge(card_sandbox: SandboxRun, db_path: Path, tokens: list[Any]) -> Any:
    info = card_sandbox.info
    endpoints = Endpoints(base_url=info.base_url, auth_url=info.auth_url)
    conn = connect(db_path)
    try:
        async with httpx.AsyncClient(trust_env=False) as http:
            token_manager = TokenManager(
                http=http,
                token_url=endpoints.token_url,
                client_id=info.credentials.client_id,
                credentials=sandbox_credentials(info.credentials),
                events=EventBus(),
                timeout_s=10.0,
            )
            client = ChargeClient(
                http=http, endpoints=endpoints, tokens=token_manager, timeout_s=10.0
            )
            service = ChargeService(
                store=SqliteStore(conn), client=client, profile="builtin-sandbox", events=EventBus()
            )
            try:
                return await service.charge(
                    sale_id=f"sale-{uuid.uuid4().hex[:12]}",
                    request=_charge_request(tokens, f"t-{uuid.uuid4().hex[:30]}"),
                    tenders=[CardSummary(str(t.brand), t.last_four) for t in tokens],
                )
            finally:
                await service.stop()
    finally:
        conn.close()


def _files_under(*roots: Path) -> list[Path]:
    return sorted({p for root in roots for p in root.rglob("*") if p.is_file()})


def test_card_data_appears_nowhere_after_tokens_and_a_charge(
    card_ui: CardUi,
    card_sandbox: SandboxRun,
    file_logging: Path,
    checkout_home: Path,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
    arun: Callable[..., Any],
) -> None:
    caplog.set_level(logging.DEBUG)
    info = card_sandbox.info
    source = SdkCredentialSource(
        merchant_document=info.credentials.merchant_document,
        credentials=sandbox_credentials(info.credentials),
    )
    config = CardPageConfig.from_profile(default_profiles()["builtin-sandbox"], language="en")
    card_page, driver, recorder = card_ui.open_page(config, credentials=source)
    try:
        for card in CARDS:
            count = len(recorder.tokens)
            driver.fill(number=card["number"], cvv=card["cvv"], month="11", year="2031")
            driver.press_submit()
            driver.wait_until(lambda n=count: len(recorder.tokens) > n, "a card token")
            driver.wait_until(lambda: driver.all_field_values() == [""] * 6, "an empty form")
    finally:
        card_ui.close_page(card_page)
    tokens = list(recorder.tokens)
    assert [(str(t.brand), t.last_four) for t in tokens] == [
        (c["brand"], c["last_four"]) for c in CARDS
    ]

    db_path = app_paths(checkout_home).database_file
    outcome = arun(_charge(card_sandbox, db_path, tokens), timeout=20_000)
    assert outcome.approved, outcome.message
    logging.getLogger(__name__).info("charge %s ended %s", outcome.merchant_charge_id, outcome)
    for handler in logging.getLogger().handlers:
        handler.flush()

    # Everything the run produced: log records, log files, bridge messages, the database and
    # every other file under the test's folders, the sandbox's own log, and the test's output.
    output = capfd.readouterr()
    places: dict[str, str] = {
        "caplog": "\n".join(f"{r.getMessage()} {r.exc_text or ''}" for r in caplog.records),
        "bridge": "\n".join(f"{slot} {raw}" for slot, raw in recorder.raw_messages),
        "stdout/stderr": output.out + output.err,
        "sandbox log": card_sandbox.stderr_log.read_text(encoding="utf-8", errors="replace"),
    }
    files = _files_under(tmp_path, card_sandbox.stderr_log.parent)
    for path in files:
        places[str(path)] = path.read_bytes().decode("latin-1")

    # The search is not vacuous: the places hold this run's traces.
    assert db_path in files and db_path.stat().st_size > 0
    assert any(p.parent == file_logging for p in files)
    assert "temporary card token received (MASTERCARD •••• 4444)" in places["caplog"]
    assert sum(slot == "tokenCreated" for slot, _ in recorder.raw_messages) == 2
    assert "1111" in places[str(db_path)] and "4444" in places[str(db_path)]
    assert "temporary card token issued for a MASTERCARD card" in places["sandbox log"]

    leaks = []
    for card in CARDS:
        for where, text in places.items():
            for form in _number_forms(card["number"]):
                if form in text:
                    leaks.append(f"card number {card['last_four']} in {where}")
            for pattern in _cvv_patterns(card["cvv"]):
                if pattern.search(text):
                    leaks.append(f"CVV of card {card['last_four']} in {where}")
            if where == "bridge" and card["cvv"] in text:
                leaks.append(f"CVV digits of card {card['last_four']} on the bridge")
    assert leaks == []
