"""Settings: one versioned model, atomic owner-only file, clear errors, never a secret."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from pydantic import ValidationError

from checkout_desktop.paths import app_paths
from checkout_desktop.settings import (
    BUILTIN_SANDBOX,
    SETTINGS_VERSION,
    Profile,
    ProfileKind,
    Settings,
    SettingsError,
    load_settings,
    save_settings,
)


def test_defaults_start_on_the_builtin_sandbox(checkout_home: Path) -> None:
    settings = load_settings(app_paths())
    assert settings.active_profile == BUILTIN_SANDBOX
    assert settings.profile.is_builtin_sandbox
    assert settings.listener.host == "127.0.0.1"
    assert {p.kind for p in settings.profiles.values()} >= {
        ProfileKind.BUILTIN_SANDBOX,
        ProfileKind.SERVICE_SANDBOX,
        ProfileKind.PRODUCTION,
    }
    assert settings.profiles["production"].sdk_build == "prod"


def test_save_and_load_round_trip_with_owner_only_permissions(checkout_home: Path) -> None:
    paths = app_paths()
    settings = Settings()
    settings.profiles["production"].client_id = "client-1"
    settings.profiles["production"].merchant_document = "30.155.515/0001-21"
    settings.active_profile = "production"
    target = save_settings(settings, paths)
    assert target == checkout_home / "config" / "settings.json"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    loaded = load_settings(paths)
    assert loaded == settings
    assert loaded.profile.merchant_document == "30155515000121"
    assert not list(target.parent.glob(".settings-*"))


def test_newer_version_is_refused_and_the_file_kept(checkout_home: Path) -> None:
    paths = app_paths().ensure()
    text = json.dumps({"version": SETTINGS_VERSION + 1})
    paths.settings_file.write_text(text)
    with pytest.raises(SettingsError, match="newer checkout-desktop"):
        load_settings(paths)
    assert paths.settings_file.read_text() == text


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{broken", "cannot read settings file"),
        ("[1]", "does not hold a JSON object"),
        ('{"listener": {"port": 70000}}', "listener.port"),
        ('{"unknown_key": 1}', "unknown_key"),
        (
            '{"profiles": {"x": {"name": "x", "label": "X", "kind": "custom", "base_url": "http://example.com"}}}',
            "https",
        ),
    ],
)
def test_broken_files_give_clear_errors(checkout_home: Path, content: str, message: str) -> None:
    paths = app_paths().ensure()
    paths.settings_file.write_text(content)
    with pytest.raises(SettingsError, match=message):
        load_settings(paths)


def test_unknown_active_profile_is_a_clear_error() -> None:
    with pytest.raises(SettingsError, match="'nope' is not defined") as caught:
        _ = Settings(active_profile="nope").profile
    # It names the profiles to choose from, and where to choose.
    for name in Settings().profiles:
        assert name in str(caught.value)
    assert "--profile" in str(caught.value)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("base_url", "https://host/?q=1"),
        ("base_url", "ftp://host"),
        ("merchant_document", "11111111111111"),
        ("name", "Has Spaces"),
    ],
)
def test_profile_rules(field: str, value: str) -> None:
    data = {"name": "custom", "label": "Custom", "kind": "custom", field: value}
    with pytest.raises(ValidationError) as info:
        Profile.model_validate(data)
    assert field in str(info.value)


def test_loopback_http_is_allowed_for_custom_profiles() -> None:
    profile = Profile(
        name="local", label="Local", kind=ProfileKind.CUSTOM, base_url="http://127.0.0.1:9000/"
    )
    assert profile.base_url == "http://127.0.0.1:9000"


def test_settings_have_no_place_for_secrets() -> None:
    names: set[str] = set()

    def walk(model: type) -> None:
        for name, field in model.model_fields.items():  # type: ignore[attr-defined]
            names.add(name)
            annotation = field.annotation
            for candidate in getattr(annotation, "__args__", (annotation,)):
                if isinstance(candidate, type) and hasattr(candidate, "model_fields"):
                    walk(candidate)

    walk(Settings)
    walk(Profile)
    forbidden = {n for n in names if any(w in n for w in ("secret", "password", "token"))}
    # token_field names the JSON spelling of a field, not a secret
    assert forbidden == {"token_field"}
