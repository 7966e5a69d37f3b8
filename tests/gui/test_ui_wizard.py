"""First-run wizard: sandbox preselected, secrets to the keychain only, URL rules, the test step."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import pytest
import qasync
from PySide6.QtWidgets import QWizard
from pytestqt.qtbot import QtBot

from checkout_desktop.secrets import SecretStore
from checkout_desktop.settings import Settings
from checkout_desktop.ui.wizard import CheckResult, FirstRunWizard
from tests.conftest import MemoryKeyring

logger = logging.getLogger(__name__)

VALID_CNPJ = "11.222.333/0001-81"


class ScriptedTester:
    """Records which settings the test step was asked to check, and answers as told."""

    def __init__(self, results: list[CheckResult]) -> None:
        self.results = results
        self.seen: list[Settings] = []

    async def __call__(self, settings: Settings) -> list[CheckResult]:
        self.seen.append(settings.model_copy(deep=True))
        return self.results


def make(
    settings: Settings, results: list[CheckResult]
) -> tuple[FirstRunWizard, MemoryKeyring, ScriptedTester]:
    backend = MemoryKeyring()
    tester = ScriptedTester(results)
    wizard = FirstRunWizard(settings, secrets=SecretStore(backend), tester=tester)
    return wizard, backend, tester


def test_builtin_sandbox_is_preselected_and_skips_credentials(
    qtbot: QtBot, qloop: qasync.QEventLoop
) -> None:
    wizard, backend, tester = make(Settings(), [CheckResult("Token", True, "fetched")])
    qtbot.addWidget(wizard)
    wizard.show()
    assert wizard.environment_page.chosen_profile() == "builtin-sandbox"
    wizard.next()
    assert wizard.currentId() == wizard.webhook_id
    assert not wizard.webhook_page.token.isVisible()
    wizard.next()
    assert wizard.currentId() == wizard.test_id
    qtbot.waitUntil(wizard.test_page.isComplete, timeout=5000)
    assert "Everything works" in wizard.test_page.summary.text()
    assert tester.seen[0].active_profile == "builtin-sandbox"
    wizard.button(QWizard.WizardButton.FinishButton).click()
    assert wizard.result() == QWizard.DialogCode.Accepted
    assert wizard.settings.first_run_done
    assert wizard.settings.tunnel.mode == "none"
    assert backend.entries == {}


def test_real_profile_secrets_go_to_the_keychain_not_settings(
    qtbot: QtBot, qloop: qasync.QEventLoop
) -> None:
    wizard, backend, _tester = make(Settings(), [CheckResult("Token", False, "401 invalid_client")])
    qtbot.addWidget(wizard)
    wizard.show()
    wizard.environment_page.buttons["service-sandbox"].setChecked(True)
    wizard.next()
    assert wizard.currentId() == wizard.credentials_id
    page = wizard.credentials_page
    assert not page.isComplete()
    page.client_id.setText("my-client")
    page.client_secret.setText("s3cretvalue")
    page.merchant_document.setText("11.222.333/0001-80")
    page.sdk_token.setText("tk_sdk_value")
    wizard.next()
    assert wizard.currentId() == wizard.credentials_id
    assert "CNPJ" in page.error.text()
    page.merchant_document.setText(VALID_CNPJ)
    wizard.next()
    assert wizard.currentId() == wizard.webhook_id
    assert backend.entries[("checkout-desktop", "service-sandbox/client_secret")] == "s3cretvalue"
    assert (
        backend.entries[("checkout-desktop", "service-sandbox/sdk_merchant_token")]
        == "tk_sdk_value"
    )

    hook = wizard.webhook_page
    hook.tunnel.setCurrentIndex(hook.tunnel.findData("manual"))
    hook.public_url.setText("http://203.0.113.9/hook?x=1")
    assert (
        "https" in hook.error.text()
        and "query" in hook.error.text()
        and "IPv4" in hook.error.text()
    )
    assert not hook.isComplete()
    hook.public_url.setText("https://shop.example.com/webhooks/checkout")
    assert hook.error.text() == ""
    assert not hook.isComplete()  # the token is still missing
    hook.token.setText("whk_token_value")
    assert hook.isComplete()
    wizard.next()
    assert wizard.currentId() == wizard.test_id, hook.error.text()
    qtbot.waitUntil(wizard.test_page.isComplete, timeout=5000)
    assert "Something failed" in wizard.test_page.summary.text()
    assert "401 invalid_client" in wizard.test_page.list.item(0).text()
    wizard.button(QWizard.WizardButton.FinishButton).click()

    result = wizard.settings
    assert result.active_profile == "service-sandbox"
    assert result.profile.client_id == "my-client"
    assert result.profile.merchant_document == "11222333000181"
    assert result.tunnel.mode == "manual"
    assert result.tunnel.public_url == "https://shop.example.com/webhooks/checkout"
    dumped = result.model_dump_json()
    for secret in ("s3cretvalue", "tk_sdk_value", "whk_token_value"):
        assert secret not in dumped
    assert (
        backend.entries[("checkout-desktop", "service-sandbox/webhook_token")] == "whk_token_value"
    )


@pytest.mark.expected_errors("the connection test failed: the sandbox did not start")
def test_a_failing_tester_is_shown_not_raised(qtbot: QtBot, qloop: qasync.QEventLoop) -> None:
    class Broken:
        async def __call__(self, settings: Settings) -> list[CheckResult]:
            raise RuntimeError("the sandbox did not start")

    wizard = FirstRunWizard(Settings(), secrets=SecretStore(MemoryKeyring()), tester=Broken())
    qtbot.addWidget(wizard)
    wizard.show()
    wizard.next()
    wizard.next()
    qtbot.waitUntil(wizard.test_page.isComplete, timeout=5000)
    assert "the sandbox did not start" in wizard.test_page.list.item(0).text()


def test_run_wizard_returns_the_chosen_settings_or_none(
    qtbot: QtBot, qloop: qasync.QEventLoop, arun: Callable[..., Any], memory_keyring: Any
) -> None:

    from PySide6.QtWidgets import QApplication

    from checkout_desktop.ui.qt_app import run_wizard

    def open_wizard() -> FirstRunWizard:
        found = [w for w in QApplication.topLevelWidgets() if isinstance(w, FirstRunWizard)]
        visible = [w for w in found if w.isVisible()]
        assert visible
        return visible[-1]

    tester = ScriptedTester([CheckResult("Token", True, "fetched")])
    task = asyncio.ensure_future(run_wizard(Settings(), tester))
    qtbot.waitUntil(
        lambda: any(
            isinstance(w, FirstRunWizard) and w.isVisible() for w in QApplication.topLevelWidgets()
        )
    )
    wizard = open_wizard()
    wizard.next()
    wizard.next()
    qtbot.waitUntil(wizard.test_page.isComplete, timeout=5000)
    wizard.button(QWizard.WizardButton.FinishButton).click()
    chosen = arun(task)
    assert chosen is not None
    assert chosen.first_run_done

    task = asyncio.ensure_future(run_wizard(Settings(), tester))
    qtbot.waitUntil(
        lambda: any(
            isinstance(w, FirstRunWizard) and w.isVisible() for w in QApplication.topLevelWidgets()
        )
    )
    open_wizard().reject()
    assert arun(task) is None
