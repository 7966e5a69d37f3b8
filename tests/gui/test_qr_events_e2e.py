"""End to end on the built-in sandbox: the Events tab names a QR's expiry as the QR panel and the
History do, under every way the service may report one (`qr-expired`), in the row's status, its
sentence and the status filter; and a payment landing after the expiry reads as such."""

from __future__ import annotations

import logging

import pytest

from checkout_desktop.domain.deliveries import EventFilter, EventSummary
from checkout_desktop.domain.event_status import EVENT_STATUS_CHOICES
from checkout_desktop.domain.records import PIX, WALLET
from checkout_desktop.ui.event_model import EventListModel
from tests.gui.test_app_e2e import Shop, admin, run, spin_until
from tests.gui.test_qr_e2e import qr_sale, shop

logger = logging.getLogger(__name__)

pytest_plugins = ["tests.gui.card_fixtures"]

pytestmark = [pytest.mark.webengine, pytest.mark.slow]

__all__ = ["shop"]


def _rows(shop: Shop, where: EventFilter) -> list[EventSummary]:
    page = run(shop.terminal.events.page(where, limit=100), "the event list")
    return list(page.rows)


def _newest(shop: Shop, mcid: str, count: int) -> EventSummary:
    """The newest of a charge's notifications, once `count` of them are stored."""
    spin_until(
        lambda: len(_rows(shop, EventFilter(charge=mcid))) >= count,
        f"notification {count} of {mcid}",
    )
    return _rows(shop, EventFilter(charge=mcid))[0]


def _texts(row: EventSummary) -> tuple[str, str]:
    return EventListModel._display(row, "status"), EventListModel._display(row, "reason")


def _found_under(shop: Shop, mcid: str, choice: str) -> list[int]:
    return [r.id for r in _rows(shop, EventFilter(charge=mcid, shown=EVENT_STATUS_CHOICES[choice]))]


@pytest.mark.parametrize("variant", ["expired-canceled", "expired-stays", "canceled"])
@pytest.mark.parametrize("kind", [PIX, WALLET])
def test_an_expiry_and_a_late_payment_read_the_same_in_the_event_list(
    shop: Shop, variant: str, kind: str
) -> None:
    admin(shop, "PATCH", "/_sandbox/variants", {"qr-expired": variant})
    try:
        outcome = qr_sale(shop, kind, 3030)
        mcid = outcome.merchant_charge_id
        panel = shop.window.charge_screen.qr_panel
        admin(shop, "POST", f"/_sandbox/expire/{mcid}")
        spin_until(
            lambda: panel.status.text() in ("Expired", "Cancelled"), "the panel to say it ended"
        )
        history = shop.window.history_panel
        shop.window.show_charge(mcid)
        row = history.model.row_of(mcid)
        assert row is not None
        said = history.model.data(history.model.index(row, 3))
        if variant != "canceled":
            # The transaction says EXPIRED; a service that calls an expiry CANCELED is read as
            # one only once the QR's time has run out (the sandbox ends this one early).
            assert said == "Expired", variant
        word, choice, not_word = (
            ("Expired", "EXPIRED", "Canceled") if said == "Expired" else (said, "CANCELED", "Exp")
        )

        expiry = _newest(shop, mcid, 2)
        status, sentence = _texts(expiry)
        assert status == word, (variant, status, sentence)
        # The sentence names what this notification said in the same word (what the charge
        # stood at before, awaiting payment, may be named too).
        assert word in sentence and not_word not in sentence, (variant, sentence)
        assert "Ended" not in sentence, (variant, sentence)
        assert expiry.id in _found_under(shop, mcid, choice), variant
        for elsewhere in {"EXPIRED", "CANCELED", "AWAITING_PAYMENT"} - {choice}:
            assert expiry.id not in _found_under(shop, mcid, elsewhere), (variant, elsewhere)

        # The customer's app had sent the payment just before: it lands after the expiry.
        admin(shop, "POST", f"/_sandbox/pay/{mcid}?late=1")
        late = _newest(shop, mcid, 3)
        status, sentence = _texts(late)
        assert status == "Paid", (variant, status, sentence)
        if word == "Expired":
            # Not "after Canceled" nor "after Awaiting payment": the QR had expired.
            assert "Canceled" not in sentence and "Awaiting payment" not in sentence, sentence
        assert late.id in _found_under(shop, mcid, "PAID")
        # The expiry's row still says what that notification said.
        assert _texts(_rows(shop, EventFilter(charge=mcid))[1])[0] == word
    finally:
        admin(shop, "PATCH", "/_sandbox/variants", {"qr-expired": "expired-canceled"})
