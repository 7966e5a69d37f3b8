"""The connection test of the setup wizard and of Settings: the first-contact check
(`checkout_desktop.doctor`) for the settings being chosen, each check's result in the UI's
language."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from checkout_desktop.doctor.checks import port_is_free

if TYPE_CHECKING:
    from checkout_desktop.doctor.report import Report
    from checkout_desktop.paths import AppPaths
    from checkout_desktop.sandbox.link import SandboxLink
    from checkout_desktop.secrets import SecretStore
    from checkout_desktop.settings import Settings
    from checkout_desktop.terminal import Terminal
    from checkout_desktop.ui.check_list import CheckResult
logger = logging.getLogger(__name__)


class ConnectionTest:
    """Runs the first-contact check for the settings being chosen; never sends a charge.

    For the built-in sandbox it starts the sandbox once and hands it on to the terminal, so
    the first start does not pay for it twice. With `running` (the window's own terminal), a
    check of the environment it runs goes through its sandbox and its inbox instead of
    starting new ones; another environment is checked on its own.
    """

    def __init__(
        self,
        paths: AppPaths,
        *,
        secrets: SecretStore | None = None,
        running: Terminal | None = None,
    ) -> None:
        self.paths = paths
        self.secrets = secrets
        self.running = running
        self.sandbox: SandboxLink | None = None
        self.report: Report | None = None
        """The last run's report (the verdict and the JSON facts)."""

    async def run(self, settings: Settings) -> Report:
        """The full report for `settings`; a learned "not found" shape goes into `settings`
        (and into the settings file once the first run is done)."""
        from checkout_desktop.doctor.checks import diagnose
        from checkout_desktop.sandbox.link import SandboxLinkError, start_sandbox

        def remember(profile: str, shape: str) -> bool:
            return _remember(self.paths, settings, profile, shape)

        running = self.running
        if running is not None and running.settings.active_profile == settings.active_profile:
            report = await diagnose(
                settings,
                self.paths,
                secrets=running.secrets or self.secrets,
                sandbox=running.sandbox,
                inbox=running.inbox,
                remember=remember,
            )
        else:
            if settings.profile.is_builtin_sandbox and self.sandbox is None:
                try:
                    self.sandbox = start_sandbox(self.paths)
                except SandboxLinkError as exc:
                    logger.error("%s", exc)
            report = await diagnose(
                settings,
                self.paths,
                secrets=self.secrets,
                sandbox=self.sandbox if settings.profile.is_builtin_sandbox else None,
                remember=remember,
            )
        self.report = report
        return report

    async def __call__(self, settings: Settings) -> list[CheckResult]:
        return results_of(await self.run(settings))

    def release(self) -> None:
        """Stop a sandbox the terminal did not take over."""
        if self.sandbox is not None:
            self.sandbox.stop()
            self.sandbox = None


def results_of(report: Report) -> list[CheckResult]:
    """Each check as a line of the wizard's and the settings' result lists."""
    from checkout_desktop.doctor.report import Outcome
    from checkout_desktop.ui.check_list import CheckResult
    from checkout_desktop.ui.doctor_text import check_titles, finding_text

    titles = check_titles()
    return [
        CheckResult(
            titles[result.check],
            result.outcome in (Outcome.OK, Outcome.WARNING),
            finding_text(result),
            warning=result.outcome == Outcome.WARNING,
        )
        for result in report.ordered()
    ]


def _remember(paths: AppPaths, settings: Settings, profile: str, shape: str) -> bool:
    from checkout_desktop.doctor.checks import remember_in_settings

    chosen = settings.profiles.get(profile)
    changed = False
    if chosen is not None and chosen.not_found_shape != shape:
        chosen.not_found_shape = shape  # type: ignore[assignment]
        changed = True
    # Before the first run is done the wizard writes the settings file itself, with this.
    if settings.first_run_done and paths.settings_file.exists():
        changed = remember_in_settings(paths)(profile, shape) or changed
    return changed


__all__ = ["ConnectionTest", "port_is_free", "results_of"]
