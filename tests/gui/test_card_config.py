"""What the card page is told by the profile: SDK source, backend host, CSP, language."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from checkout_desktop.settings import Profile, ProfileKind, default_profiles
from checkout_desktop.ui.webview import CardPageConfig, WebViewError, normalize_language

logger = logging.getLogger(__name__)

PROFILES = default_profiles()


def test_sandbox_and_production_use_their_own_installed_sdk_build(tmp_path: Path) -> None:
    sandbox = CardPageConfig.from_profile(PROFILES["builtin-sandbox"], resources=tmp_path)
    production = CardPageConfig.from_profile(PROFILES["production"], resources=tmp_path)
    node_modules = tmp_path / "sdk" / "node_modules"
    assert sandbox.sdk_file == node_modules / "checkout-transparent-dev/dist/pp-transparent.js"
    assert production.sdk_file == node_modules / "checkout-transparent/dist/pp-transparent.js"
    assert sandbox.backend_host == "checkout-qa.picpay.com"
    assert production.backend_host == "checkout.picpay.com"
    assert sandbox.sdk_url == "checkout-desktop://card/sdk/pp-transparent.js"


def test_the_csp_allows_our_scheme_and_only_the_sdk_backend() -> None:
    config = CardPageConfig.from_profile(PROFILES["production"])
    directives = dict(
        part.strip().split(" ", 1) for part in config.content_security_policy().split(";")
    )
    assert directives["default-src"] == "'none'"
    assert directives["script-src"] == "'self'"
    assert directives["connect-src"] == "https://checkout.picpay.com"
    assert directives["form-action"] == "'none'"
    assert directives["frame-ancestors"] == "'none'"
    assert config.allowed_https_hosts == frozenset({"checkout.picpay.com"})


def test_a_cdn_profile_loads_the_script_from_its_address_only() -> None:
    profile = Profile(
        name="cdn-shop",
        label="CDN",
        kind=ProfileKind.CUSTOM,
        sdk_build="prod",
        sdk_script_url="https://checkout.picpay.com/cdn/pp-transparent-v1.0.0.js",
    )
    config = CardPageConfig.from_profile(profile)
    assert config.sdk_file is None
    assert config.sdk_url == "https://checkout.picpay.com/cdn/pp-transparent-v1.0.0.js"
    assert "script-src 'self' https://checkout.picpay.com;" in config.content_security_policy()
    script = config.config_script().decode()
    assert script.startswith("window.CHECKOUT_CARD_CONFIG = Object.freeze(")
    data = json.loads(script[script.index("(") + 1 : script.rindex(")")])
    assert data["sdkUrl"] == config.sdk_url and data["language"] == "pt-BR"


def test_bad_configurations_are_refused_with_a_reason(tmp_path: Path) -> None:
    with pytest.raises(WebViewError, match="exactly one SDK source"):
        CardPageConfig(resources=tmp_path, backend_host="checkout.picpay.com")
    with pytest.raises(WebViewError, match="must be https://"):
        CardPageConfig(
            resources=tmp_path,
            backend_host="checkout.picpay.com",
            sdk_script_url="http://checkout.picpay.com/cdn/x.js",
        )
    with pytest.raises(WebViewError, match="speaks pt-BR, en"):
        CardPageConfig(
            resources=tmp_path,
            backend_host="checkout.picpay.com",
            sdk_file=tmp_path / "x.js",
            language="fr",  # type: ignore[arg-type]
        )


@pytest.mark.parametrize(
    ("tag", "language"),
    [(None, "pt-BR"), ("", "pt-BR"), ("pt", "pt-BR"), ("pt_PT", "pt-BR"), ("en_GB", "en")],
)
def test_language_tags_map_to_the_page_languages(tag: str | None, language: str) -> None:
    assert normalize_language(tag) == language
