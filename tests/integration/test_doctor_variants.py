"""`doctor` under the sandbox's service variants that concern a check which never charges: how
"not found" looks (a 404, or a 400 naming the charge), whether queries need a Content-Type, and
the variants about charges, which the check must not trip over. One built-in sandbox process,
its variants changed at run time through its admin endpoint, as a merchant's service would
differ."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from checkout_desktop.doctor.checks import diagnose
from checkout_desktop.doctor.report import CheckName, Finding, Outcome, Report
from checkout_desktop.paths import AppPaths
from checkout_desktop.sandbox.link import SandboxLink, start_sandbox
from checkout_desktop.settings import Settings

logger = logging.getLogger(__name__)


@pytest.fixture(scope="module")
def link(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxLink]:
    home = tmp_path_factory.mktemp("variants")
    paths = AppPaths(home / "c", home / "d", home / "l").ensure()
    sandbox = start_sandbox(paths)
    try:
        yield sandbox
    finally:
        sandbox.stop()


def set_variants(link: SandboxLink, **changes: str) -> dict[str, str]:
    response = httpx.patch(
        f"{link.info.base_url}/_sandbox/variants",
        json={name.replace("_", "-"): value for name, value in changes.items()},
        headers={"X-Sandbox-Admin-Token": link.info.admin_token},
        timeout=10,
    )
    assert response.status_code == 200, response.text
    data = response.json()
    assert isinstance(data, dict)
    return data


@pytest.fixture
def defaults(link: SandboxLink) -> Iterator[SandboxLink]:
    """The sandbox's default variants before and after each test."""
    response = httpx.get(
        f"{link.info.base_url}/_sandbox/variants",
        headers={"X-Sandbox-Admin-Token": link.info.admin_token},
        timeout=10,
    )
    assert response.status_code == 200, response.text
    before = response.json()
    yield link
    set_variants(link, **{k.replace("-", "_"): v for k, v in before.items()})


async def _check(link: SandboxLink, tmp_path: Path) -> tuple[Report, list[tuple[str, str]]]:
    paths = AppPaths(tmp_path / "c", tmp_path / "d", tmp_path / "l").ensure()
    settings = Settings()
    settings.listener.port = 0
    learned: list[tuple[str, str]] = []

    def remember(profile: str, shape: str) -> bool:
        learned.append((profile, shape))
        return True

    return await diagnose(settings, paths, sandbox=link, remember=remember), learned


@pytest.mark.asyncio
@pytest.mark.parametrize("shape", ["400", "404"])
async def test_doctor_learns_how_the_service_says_not_found(
    defaults: SandboxLink, tmp_path: Path, shape: str
) -> None:
    assert set_variants(defaults, not_found=shape)["not-found"] == shape
    report, learned = await _check(defaults, tmp_path)
    found = report.result(CheckName.NOT_FOUND)
    assert found is not None
    assert found.outcome == Outcome.OK, found.english()
    assert found.finding == (Finding.NOT_FOUND_404 if shape == "404" else Finding.NOT_FOUND_400)
    assert found.facts["http_status"] == int(shape)
    assert report.not_found_shape == shape
    assert learned == [("builtin-sandbox", shape)]
    assert report.can_charge


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "variant",
    [
        {"query_content_type": "required"},
        {"query_content_type": "optional"},
        {"token_field": "temporatyCardToken"},
        {"token_field": "temporaryCardToken"},
        {"require": "phone,device"},
        {"require": "none"},
        {"customer_document": "no-cnpj"},
        {"timestamps": "naive-brt"},
        {"envelope_id": "charge"},
        {"sdk_credential": "transparent"},
        {"sdk_credential": "merchant"},
        {"partial_refund": "PAID"},
    ],
    ids=lambda v: "=".join(next(iter(v.items()))),
)
async def test_doctor_is_green_under_each_other_variant(
    defaults: SandboxLink, tmp_path: Path, variant: dict[str, str]
) -> None:
    set_variants(defaults, **variant)
    report, _ = await _check(defaults, tmp_path)
    problems = [r.english() for r in report.results if r.outcome != Outcome.OK]
    assert not problems, problems
    assert report.exit_code == 0
