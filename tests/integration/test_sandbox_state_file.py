"""The sandbox's state file: charges outlive a restart, as they do at the real service.

The terminal starts a new sandbox at each launch; with `--state-file` yesterday's training
sale can still be queried and refunded, and a QR that ran out while the sandbox was down is
expired. An unusable file never stops the sandbox, the file is bounded, and it never holds a
card number or CVV.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import stat
import subprocess
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from checkout_desktop.domain.records import PIX, WALLET
from checkout_desktop.paths import app_paths
from checkout_desktop.sandbox.cards import TEST_CARDS, CardBehaviour, cvv_length
from checkout_desktop.sandbox.link import SANDBOX_STATE_FILE, _sandbox_args
from checkout_desktop.sandbox.process import (
    SandboxInfo,
    launch_sandbox_process,
    start_sandbox_process,
)
from checkout_desktop.sandbox.server import SandboxConfig, SandboxServer
from tests.integration.qr_support import pay, qr_request
from tests.integration.test_sandbox_fixtures import (
    Api,
    SdkClient,
    access_token,
    charge_body,
    fast_config,
)
from tests.integration.test_sandbox_process import FAST, authorize, tokenize
from tests.integration.test_sandbox_process import access_token as process_access_token

logger = logging.getLogger(__name__)

APPROVED = "4111111111111111"
SLOW = next(c.number for c in TEST_CARDS if c.behaviour == CardBehaviour.SLOW)
INSTANCE = re.compile(r"[0-9a-f]{12}")
MASKED_CARD = {
    "brand",
    "bin6",
    "last_four",
    "holder_name_masked",
    "holder_document_masked",
    "behaviour",
}
"""All a kept transaction holds of its card."""


# ---------------------------------------------------------------------------------------------
# Helpers


@asynccontextmanager
async def running(
    config: SandboxConfig, *, down_s: float = 0.0
) -> AsyncIterator[tuple[SandboxServer, Api, SdkClient]]:
    """An in-process sandbox and its clients; `down_s`: how long it was down before starting
    (its clock starts that far ahead of the last run's)."""
    server = SandboxServer(config)
    if down_s:
        server.clock.advance(down_s)
    await server.start()
    try:
        async with (
            httpx.AsyncClient(timeout=10, trust_env=False) as http,
            httpx.AsyncClient(
                verify=server.certificate.client_context(), timeout=10, trust_env=False
            ) as sdk_http,
        ):
            token = await access_token(http, server)
            yield server, Api(server, http, token), SdkClient(server, sdk_http)
    finally:
        await server.stop()


def kept(path: Path) -> dict[str, Any]:
    """The state file as the sandbox last wrote it."""
    data = json.loads(path.read_bytes())
    assert isinstance(data, dict)
    return data


def kept_charge(path: Path, merchant_charge_id: str) -> dict[str, Any] | None:
    data = kept(path)
    for charge in [*data["charges"], *data["qr_charges"]]:
        if charge["merchant_charge_id"] == merchant_charge_id:
            assert isinstance(charge, dict)
            return charge
    return None


def kept_ids(path: Path) -> set[str]:
    data = kept(path)
    return {c["merchant_charge_id"] for c in [*data["charges"], *data["qr_charges"]]}


async def wait_until(condition: Callable[[], bool], within_s: float = 3.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within_s
    while not condition():
        assert loop.time() < deadline, "the condition did not come true in time"
        await asyncio.sleep(0.02)


async def create_qr(api: Api, kind: str, *, expiration_s: int = 600) -> str:
    request = qr_request(kind, expiration_s=expiration_s)
    reply = await api.client.post(
        f"{api.server.base_url}/api/v1/{request.path}",
        json=request.to_wire(),
        headers=api.headers,
    )
    assert reply.status_code == 200, reply.text
    return request.merchantChargeId


async def charge(api: Api, sdk: SdkClient, number: str = APPROVED, **options: Any) -> str:
    body = charge_body(await sdk.tokenize(number), **options)
    reply = await api.authorize(body)
    assert reply.status_code == 200, reply.text
    mcid = body["merchantChargeId"]
    assert isinstance(mcid, str)
    return mcid


def bearer(info: SandboxInfo) -> dict[str, str]:
    return {"Authorization": f"Bearer {process_access_token(info)}"}


def query(info: SandboxInfo, merchant_charge_id: str) -> httpx.Response:
    return httpx.get(
        f"{info.base_url}/api/v1/charge/{merchant_charge_id}",
        headers={**bearer(info), "Content-Type": "application/json"},
        timeout=10,
    )


# ---------------------------------------------------------------------------------------------
# Restarts


def test_a_card_charge_is_known_and_refundable_after_the_sandbox_process_restarts(
    tmp_path: Path,
) -> None:
    # The folder does not exist yet: the sandbox makes it.
    state = tmp_path / "data" / SANDBOX_STATE_FILE
    args = [*FAST, "--state-file", str(state)]
    first = start_sandbox_process(args, stderr=subprocess.DEVNULL)
    try:
        info = first.info
        body = charge_body(tokenize(info, APPROVED, "739"), amount=4200)
        mcid = body["merchantChargeId"]
        made = authorize(info, body)
        assert made.status_code == 200, made.text
        assert made.json()["chargeStatus"] == "PAID"
        before = query(info, mcid)
        assert before.status_code == 200
    finally:
        assert first.stop() == 0
    assert INSTANCE.fullmatch(first.info.instance)

    second = start_sandbox_process(args, stderr=subprocess.DEVNULL)
    try:
        assert second.info.instance == first.info.instance
        after = query(second.info, mcid)
        assert after.status_code == 200, after.text
        # The same charge: status, amounts, transactions (card record, NSU, times) alike.
        assert after.json() == before.json()
        refund = httpx.post(
            f"{second.info.base_url}/api/v1/charge/{mcid}/refund",
            json={"amount": 1200},
            headers=bearer(second.info),
            timeout=10,
        )
        assert refund.status_code == 200, refund.text
        assert refund.json()["refundedAmount"] == 1200
        assert refund.json()["chargeStatus"] == "PARTIAL"
    finally:
        assert second.stop() == 0

    # The refund made after the restart was kept too.
    third = start_sandbox_process(args, stderr=subprocess.DEVNULL)
    try:
        assert third.info.instance == first.info.instance
        again = query(third.info, mcid).json()
        assert again["refundedAmount"] == 1200
        assert again["transactions"][0]["transactionStatus"] == "PARTIALLY_REFUNDED"
    finally:
        assert third.stop() == 0


def test_without_a_state_file_every_start_is_a_new_instance() -> None:
    launches = [launch_sandbox_process(FAST, stderr=subprocess.DEVNULL) for _ in range(2)]
    processes = [launch.wait() for launch in launches]
    try:
        instances = [p.info.instance for p in processes]
    finally:
        for process in processes:
            process.stop()
    assert all(INSTANCE.fullmatch(i) for i in instances)
    assert instances[0] != instances[1]
    # A line from a sandbox before instance ids still reads.
    line = dict(processes[0].info.raw)
    del line["instance"]
    assert SandboxInfo.from_json(json.dumps(line)).instance == ""


@pytest.mark.asyncio
async def test_qr_charges_outlive_a_restart_and_one_that_ran_out_meanwhile_expires(
    tmp_path: Path,
) -> None:
    path = tmp_path / SANDBOX_STATE_FILE
    async with running(fast_config(state_file=path)) as (server, api, _):
        instance = server.instance
        paid = await create_qr(api, PIX)
        assert (await pay(server.api_url, server.admin_token, paid)).status_code == 200
        paid_before = (await api.get(paid)).json()
        assert paid_before["chargeStatus"] == "PAID"
        waiting_pix = await create_qr(api, PIX, expiration_s=60)
        waiting_wallet = await create_qr(api, WALLET)  # lives 4 minutes
        old_token = api.token

    # Down for two minutes: the PIX's minute ran out meanwhile, the wallet's four did not.
    async with running(fast_config(state_file=path), down_s=120) as (server, api, _):
        assert server.instance == instance
        # Expired at start by its watch, before anyone asked, and the file says so.
        await wait_until(lambda: not server.state.qr_charges[waiting_pix].awaiting)
        await wait_until(
            lambda: (kept_charge(path, waiting_pix) or {}).get("txn_status") == "EXPIRED"
        )
        expired = (await api.get(waiting_pix)).json()
        assert expired["chargeStatus"] == "CANCELED"
        assert expired["transactions"][0]["transactionStatus"] == "EXPIRED"
        # With the notification an expiry always sends, once.
        notes = [n for n in server.state.notifications if n.merchant_charge_id == waiting_pix]
        assert len(notes) == 1
        assert notes[0].body["data"]["status"] == "CANCELED"
        assert notes[0].body["data"]["transactions"][0]["status"] == "EXPIRED"

        assert (await api.get(paid)).json() == paid_before
        wallet = (await api.get(waiting_wallet)).json()
        assert wallet["transactions"][0]["transactionStatus"] == "PENDING"
        assert (await pay(server.api_url, server.admin_token, waiting_wallet)).status_code == 200
        refund = await api.refund(paid, 590)
        assert refund.status_code == 200, refund.text
        assert refund.json()["refundedAmount"] == 590

        # A restart ends the earlier session: its access token is not kept.
        stale = await api.client.get(
            f"{server.base_url}/api/v1/charge/{paid}",
            headers={"Authorization": f"Bearer {old_token}", "Content-Type": "application/json"},
        )
        assert stale.status_code == 401


@pytest.mark.asyncio
async def test_a_second_sandbox_on_the_same_file_keeps_its_charges_in_memory(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A `doctor` or a self-test run while the terminal runs starts a second sandbox on the
    same folder: it must not overwrite the first one's charges with its own."""
    path = tmp_path / SANDBOX_STATE_FILE
    async with running(fast_config(state_file=path)) as (first, api, sdk):
        mine = await charge(api, sdk)
        with caplog.at_level(logging.WARNING, logger="checkout_desktop.sandbox.statefile"):
            async with running(fast_config(state_file=path)) as (second, other_api, other_sdk):
                assert "kept by another sandbox" in caplog.text
                assert second.instance != first.instance
                assert mine not in second.state.charges
                theirs = await charge(other_api, other_sdk)
        assert kept_ids(path) == {mine}
        later = await charge(api, sdk)
        assert kept_ids(path) == {mine, later}
    assert theirs not in kept_ids(path)
    # Stopped, the first lets the next sandbox take the file.
    async with running(fast_config(state_file=path)) as (third, _, _):
        assert third.instance == first.instance and set(third.state.charges) == {mine, later}


@pytest.mark.asyncio
async def test_every_change_is_on_disk_before_its_reply_is_sent(tmp_path: Path) -> None:
    path = tmp_path / SANDBOX_STATE_FILE
    async with running(fast_config(state_file=path, slow_card_delay_s=2.0)) as (_, api, sdk):
        mcid = await charge(api, sdk, late_capture=True)
        record = kept_charge(path, mcid)
        assert record is not None and record["status"] == "PRE_AUTHORIZED"

        captured = await api.capture(mcid, 1000)
        assert captured.status_code == 200, captured.text
        record = kept_charge(path, mcid)
        assert record is not None and record["status"] == "PAID"
        assert record["transactions"][0]["amount"] == 1000

        refunded = await api.refund(mcid, 400)
        assert refunded.status_code == 200, refunded.text
        record = kept_charge(path, mcid)
        assert record is not None and record["status"] == refunded.json()["chargeStatus"]
        assert record["transactions"][0]["refunded_amount"] == 400

        # A reply held back (the slow test card): the charge is on disk while it waits, so a
        # crash meanwhile leaves a charge the terminal can settle by asking.
        body = charge_body(await sdk.tokenize(SLOW))
        reply = asyncio.create_task(api.authorize(body))
        await wait_until(lambda: kept_charge(path, body["merchantChargeId"]) is not None, 1.5)
        assert not reply.done()
        assert (await reply).status_code == 200


# ---------------------------------------------------------------------------------------------
# Unusable files and folders


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b'{"version": 1, "instance": "0123456789ab", "charges": [{"id"', "not JSON"),
        (
            b'{"version": 2, "instance": "0123456789ab", "charges": [], "qr_charges": []}',
            "version 2",
        ),
        (
            b'{"version": 1, "instance": "0123456789ab", "charges": [{"id": "c1"}], '
            b'"qr_charges": []}',
            "charges[0] has no field",
        ),
        (
            # The instance names the sandbox's charges in the terminal's store.
            b'{"version": 1, "instance": "../x y", "charges": [], "qr_charges": []}',
            "instance id is not one a sandbox makes",
        ),
    ],
    ids=["corrupt-json", "wrong-version", "field-missing", "odd-instance"],
)
async def test_an_unusable_state_file_is_moved_aside_and_the_sandbox_starts_empty(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, content: bytes, why: str
) -> None:
    path = tmp_path / SANDBOX_STATE_FILE
    path.write_bytes(content)
    broken = tmp_path / (SANDBOX_STATE_FILE + ".broken")
    broken.write_bytes(b"an older broken file")
    with caplog.at_level(logging.WARNING, logger="checkout_desktop.sandbox.statefile"):
        async with running(fast_config(state_file=path)) as (server, api, sdk):
            assert not server.state.charges and not server.state.qr_charges
            assert server.instance != "0123456789ab"
            # A new file, with the new instance id, holding what this run does.
            assert kept(path)["instance"] == server.instance
            mcid = await charge(api, sdk)
            assert kept_ids(path) == {mcid}
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert str(path) in warnings[0] and why in warnings[0] and ".broken" in warnings[0]
    assert broken.read_bytes() == content


@pytest.mark.asyncio
async def test_a_state_file_that_cannot_be_written_leaves_the_charges_in_memory(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the state file's folder should be", encoding="utf-8")
    path = blocker / SANDBOX_STATE_FILE
    with caplog.at_level(logging.WARNING, logger="checkout_desktop.sandbox.statefile"):
        async with running(fast_config(state_file=path)) as (server, api, sdk):
            first = await charge(api, sdk)
            second = await charge(api, sdk)
            assert (await api.get(first)).status_code == 200
            assert set(server.state.charges) == {first, second}
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "cannot write" in warnings[0] and str(path) in warnings[0]


# ---------------------------------------------------------------------------------------------
# Bound and content


@pytest.mark.asyncio
async def test_beyond_the_bound_the_oldest_charges_are_dropped(tmp_path: Path) -> None:
    path = tmp_path / SANDBOX_STATE_FILE
    async with running(fast_config(state_file=path, state_max_charges=3)) as (server, api, sdk):
        made = []
        for kind in ("card", "card", PIX, "card", "card"):
            made.append(await create_qr(api, PIX) if kind == PIX else await charge(api, sdk))
            server.clock.advance(1)
        oldest, second, pix, fourth, newest = made
        assert set(server.state.charges) == {fourth, newest}
        assert set(server.state.qr_charges) == {pix}
        assert kept_ids(path) == {pix, fourth, newest}
        for dropped in (oldest, second):
            gone = await api.get(dropped)
            assert gone.status_code == 400
            assert gone.json()["businessCode"] == "CHARGE_NOT_FOUND"

    # A lower bound at the next start drops the oldest again, from the file too.
    async with running(fast_config(state_file=path, state_max_charges=2)) as (server, _, _):
        assert set(server.state.charges) == {fourth, newest}
        assert not server.state.qr_charges
    assert kept_ids(path) == {fourth, newest}


def _walk(value: Any) -> list[tuple[str, Any]]:
    """Every (key, value) pair and every list item (key "") anywhere in a JSON value."""
    pairs: list[tuple[str, Any]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            pairs.append((key, item))
            pairs.extend(_walk(item))
    elif isinstance(value, list):
        for item in value:
            pairs.append(("", item))
            pairs.extend(_walk(item))
    return pairs


@pytest.mark.asyncio
async def test_the_state_file_never_holds_a_card_number_cvv_or_card_token(tmp_path: Path) -> None:
    path = tmp_path / SANDBOX_STATE_FILE
    cards = [c for c in TEST_CARDS if c.behaviour in (CardBehaviour.APPROVED, CardBehaviour.DENIED)]
    cvvs = {}
    tokens: list[str] = []
    async with running(fast_config(state_file=path)) as (_, api, sdk):
        for index, card in enumerate(cards):
            cvv = f"{7391 + index * 11}"[: cvv_length(card.brand)]
            cvvs[card.number] = cvv
            token = await sdk.tokenize(card.number, cvv=cvv)
            tokens.append(token)
            body = charge_body(token)
            assert (await api.authorize(body)).status_code == 200
    text = path.read_text(encoding="utf-8")
    # Nor the single-use card tokens the charges spent.
    assert tokens and not [token for token in tokens if token in text]
    for card in cards:
        assert card.number not in text
        # The masked record is what is kept.
        assert f'"bin6":"{card.number[:6]}"' in text
        assert f'"last_four":"{card.number[-4:]}"' in text
    data = json.loads(text)
    records = [t["card"] for c in data["charges"] for t in c["transactions"]]
    assert len(records) == len(cards)
    assert all(set(record) == MASKED_CARD for record in records)
    pairs = _walk(data)
    keys = {key.lower() for key, _ in pairs}
    assert not keys & {"cardnumber", "cvv", "securitycode", "expirationmonth", "expirationyear"}
    values = {value for _, value in pairs if isinstance(value, str)}
    assert not values & set(cvvs.values())
    assert not values & {"2031"}
    if os.name == "posix":
        # The charges name customers: the file is the owner's only.
        assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_the_terminal_starts_its_sandbox_with_a_state_file_in_its_data_folder(
    tmp_path: Path,
) -> None:
    paths = app_paths(tmp_path / "home")
    args = _sandbox_args(paths, tmp_path / "ca.pem")
    at = args.index("--state-file")
    assert args[at + 1] == str(paths.data_dir / "sandbox-state.json")
