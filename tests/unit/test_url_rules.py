"""The service's notification URL rules: HTTPS, no query parameters, no IPv4 address."""

from __future__ import annotations

import logging

import pytest

from checkout_desktop.inbox.url_rules import (
    NotificationUrlError,
    UrlRule,
    check_notification_url,
    is_ipv4_literal,
    notification_url,
    validate_notification_url,
)

logger = logging.getLogger(__name__)


@pytest.mark.parametrize(
    "url",
    [
        "https://shop.example.com/webhooks/checkout",
        "https://abc-def-ghi.trycloudflare.com/webhooks/checkout",
        "https://shop.example.com:8443/hook",
        "https://shop.example.com",
        "https://[2001:db8::1]/hook",
        "HTTPS://Shop.Example.com/x",
    ],
)
def test_accepted_urls(url: str) -> None:
    assert check_notification_url(url) == []
    assert validate_notification_url(url) == url


@pytest.mark.parametrize(
    ("url", "rules"),
    [
        ("http://shop.example.com/hook", [UrlRule.HTTPS]),
        ("ftp://shop.example.com/hook", [UrlRule.HTTPS]),
        ("https://shop.example.com/hook?token=1", [UrlRule.NO_QUERY]),
        ("https://shop.example.com/hook?", [UrlRule.NO_QUERY]),
        ("https://203.0.113.7/hook", [UrlRule.NO_IPV4]),
        ("https://127.1/hook", [UrlRule.NO_IPV4]),
        ("https://2130706433/hook", [UrlRule.NO_IPV4]),
        ("https://0x7f.0.0.1/hook", [UrlRule.NO_IPV4]),
        ("https://[::ffff:203.0.113.7]/hook", [UrlRule.NO_IPV4]),
        ("http://203.0.113.7/hook?a=b", [UrlRule.HTTPS, UrlRule.NO_QUERY, UrlRule.NO_IPV4]),
        ("", [UrlRule.WELL_FORMED]),
        ("https://shop example.com/", [UrlRule.WELL_FORMED]),
        ("shop.example.com/hook", [UrlRule.WELL_FORMED, UrlRule.HTTPS]),
        ("https:///hook", [UrlRule.WELL_FORMED]),
        ("https://user:pw@shop.example.com/hook", [UrlRule.WELL_FORMED]),
        ("https://shop.example.com:99999/hook", [UrlRule.WELL_FORMED]),
        ("https://sh*p.example.com/hook", [UrlRule.WELL_FORMED]),
    ],
)
def test_each_failed_rule_is_named(url: str, rules: list[UrlRule]) -> None:
    violations = check_notification_url(url)
    assert [v.rule for v in violations] == rules
    with pytest.raises(NotificationUrlError) as caught:
        validate_notification_url(url)
    assert caught.value.rules == rules
    message = str(caught.value)
    for rule in rules:
        assert f"rule '{rule.value}'" in message


def test_messages_say_what_to_change() -> None:
    (https,) = check_notification_url("http://shop.example.com/x")
    assert "https" in https.message and "not http" in https.message
    (query,) = check_notification_url("https://shop.example.com/x?a=1")
    assert "'?'" in query.message
    (ipv4,) = check_notification_url("https://198.51.100.2/x")
    assert "198.51.100.2" in ipv4.message and "host name" in ipv4.message


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("1.2.3.4", True),
        ("1.2.3.4.", True),
        ("10.1", True),
        ("4294967295", True),
        ("0X0A.0.0.1", True),
        ("999.1.1.1", True),
        ("example.com", False),
        ("1password.com", False),
        ("a1.b2", False),
        ("::1", False),
        ("[::ffff:10.0.0.1]", True),
        ("2001:db8::1", False),
    ],
)
def test_ipv4_literal_forms(host: str, expected: bool) -> None:
    assert is_ipv4_literal(host) is expected


def test_notification_url_joins_base_and_path() -> None:
    base = "https://a-b.trycloudflare.com/"
    assert notification_url(base, "/webhooks/checkout") == (
        "https://a-b.trycloudflare.com/webhooks/checkout"
    )
    assert notification_url("https://a-b.trycloudflare.com", "hook") == (
        "https://a-b.trycloudflare.com/hook"
    )
