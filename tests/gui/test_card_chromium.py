"""Chromium flags per profile: the sandbox mapping only for the built-in sandbox, nothing unsafe."""

from __future__ import annotations

import base64
import hashlib
import logging
import shlex

import pytest

from checkout_desktop.settings import default_profiles
from checkout_desktop.ui.chromium import (
    DISABLE_SANDBOX_ENV,
    FLAGS_ENV,
    REMOTE_DEBUGGING_ENV,
    ChromiumFlagsError,
    HostMapping,
    apply_flags,
    decide_flags,
)

logger = logging.getLogger(__name__)

SPKI = base64.b64encode(hashlib.sha256(b"a public key").digest()).decode()
PROFILES = default_profiles()
BUILTIN = PROFILES["builtin-sandbox"]
PRODUCTION = PROFILES["production"]
SERVICE_SANDBOX = PROFILES["service-sandbox"]
MAPPING = HostMapping("checkout-qa.picpay.com", 44321, SPKI)


def test_root_gets_no_sandbox_and_others_keep_chromiums_sandbox() -> None:
    assert decide_flags(PRODUCTION, as_root=True) == ["--no-sandbox"]
    assert decide_flags(PRODUCTION, as_root=False) == []
    # An inherited --no-sandbox is not honoured for a normal user outside developer mode.
    assert decide_flags(PRODUCTION, as_root=False, inherited="--no-sandbox") == []
    assert decide_flags(PRODUCTION, as_root=False, inherited="--no-sandbox", developer=True) == [
        "--no-sandbox"
    ]


def test_builtin_sandbox_maps_only_the_sdk_host_and_trusts_only_its_key() -> None:
    flags = decide_flags(BUILTIN, mapping=MAPPING, as_root=False)
    assert flags == [
        "--host-resolver-rules=MAP checkout-qa.picpay.com 127.0.0.1:44321, MAP * ~NOTFOUND, "
        "EXCLUDE localhost, EXCLUDE 127.0.0.1",
        f"--ignore-certificate-errors-spki-list={SPKI}",
    ]
    # The blanket certificate bypass is never among them.
    assert not any(f.split("=")[0] == "--ignore-certificate-errors" for f in flags)


def test_builtin_sandbox_needs_the_mapping_and_real_profiles_refuse_it() -> None:
    with pytest.raises(ChromiumFlagsError, match="built-in sandbox"):
        decide_flags(BUILTIN, as_root=False)
    for profile in (PRODUCTION, SERVICE_SANDBOX):
        with pytest.raises(ChromiumFlagsError, match="only for the built-in sandbox"):
            decide_flags(profile, mapping=MAPPING, as_root=False)
    other = HostMapping("checkout.picpay.com", 44321, SPKI)
    with pytest.raises(ChromiumFlagsError, match=r"expects 'checkout-qa\.picpay\.com'"):
        decide_flags(BUILTIN, mapping=other, as_root=False)


@pytest.mark.parametrize(
    ("host", "port", "spki", "message"),
    [
        ("bad host", 443, SPKI, "not a host name"),
        ("checkout-qa.picpay.com", 0, SPKI, "outside"),
        ("checkout-qa.picpay.com", 443, "not base64!", "not base64"),
        ("checkout-qa.picpay.com", 443, base64.b64encode(b"short").decode(), "32 bytes"),
    ],
)
def test_a_bad_mapping_is_refused_with_a_reason(
    host: str, port: int, spki: str, message: str
) -> None:
    with pytest.raises(ChromiumFlagsError, match=message):
        HostMapping(host, port, spki)


def test_unsafe_inherited_flags_are_dropped_and_others_kept(
    caplog: pytest.LogCaptureFixture,
) -> None:
    inherited = (
        "--ignore-certificate-errors --disable-web-security --lang=pt-BR "
        '--host-resolver-rules="MAP * 10.0.0.1" --remote-debugging-port=9222 '
        "--proxy-server=http://127.0.0.1:3128"
    )
    caplog.set_level(logging.WARNING)
    flags = decide_flags(PRODUCTION, inherited=inherited, as_root=False)
    assert flags == ["--lang=pt-BR", "--proxy-server=http://127.0.0.1:3128"]
    assert "--remote-debugging-port" in caplog.text
    with_dev = decide_flags(PRODUCTION, inherited=inherited, as_root=False, developer=True)
    assert "--remote-debugging-port=9222" in with_dev
    assert "--ignore-certificate-errors" not in with_dev


def test_apply_writes_flags_qt_can_split_back() -> None:
    env = {
        FLAGS_ENV: "--no-sandbox --lang=en",
        REMOTE_DEBUGGING_ENV: "9222",
        DISABLE_SANDBOX_ENV: "1",
    }
    flags = apply_flags(BUILTIN, mapping=MAPPING, environ=env, as_root=True)
    assert shlex.split(env[FLAGS_ENV]) == flags
    assert flags[0] == "--no-sandbox" and "--lang=en" in flags
    assert REMOTE_DEBUGGING_ENV not in env
    assert env[DISABLE_SANDBOX_ENV] == "1"  # root may run without Chromium's sandbox

    env = {FLAGS_ENV: "", DISABLE_SANDBOX_ENV: "1"}
    apply_flags(PRODUCTION, environ=env, as_root=False)
    assert env == {FLAGS_ENV: ""}


def test_an_unparseable_inherited_value_is_a_clear_error() -> None:
    with pytest.raises(ChromiumFlagsError, match=FLAGS_ENV):
        decide_flags(PRODUCTION, inherited='--lang="pt', as_root=False)
