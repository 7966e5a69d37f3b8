"""The domain event bus delivers by class, to base-class subscribers too, and survives a bad handler."""

from __future__ import annotations

import logging
from dataclasses import dataclass

import pytest

from checkout_desktop.domain.events import DomainEvent, EventBus


@dataclass(frozen=True, kw_only=True)
class Thing(DomainEvent):
    name: str


@dataclass(frozen=True, kw_only=True)
class SpecialThing(Thing):
    extra: int = 0


@pytest.mark.expected_errors("a handler of SpecialThing failed")
@pytest.mark.usefixtures("tolerant_event_bus")
def test_publish_reaches_exact_and_base_subscribers(caplog: pytest.LogCaptureFixture) -> None:
    bus = EventBus()
    seen: list[str] = []
    bus.subscribe(Thing, lambda e: seen.append(f"thing:{e.name}"))
    bus.subscribe(DomainEvent, lambda e: seen.append("any"))

    def broken(event: SpecialThing) -> None:
        raise RuntimeError("view bug")

    bus.subscribe(SpecialThing, broken)
    with caplog.at_level(logging.ERROR):
        bus.publish(SpecialThing(name="a"))
    assert seen == ["thing:a", "any"]
    assert "a handler of SpecialThing failed" in caplog.text


def test_unsubscribe() -> None:
    bus = EventBus()
    seen: list[Thing] = []
    stop = bus.subscribe(Thing, seen.append)
    bus.publish(Thing(name="x"))
    stop()
    stop()
    bus.publish(Thing(name="y"))
    assert [e.name for e in seen] == ["x"]


@pytest.mark.expected_errors("a handler of Thing failed")
def test_under_test_a_failing_handler_fails_the_publisher() -> None:
    bus = EventBus()

    def broken(event: Thing) -> None:
        raise RuntimeError("view bug")

    bus.subscribe(Thing, broken)
    with pytest.raises(RuntimeError, match="view bug"):
        bus.publish(Thing(name="a"))
