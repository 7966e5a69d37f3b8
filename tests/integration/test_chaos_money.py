"""A small chaos run of scripts/chaos_money.py: faults, SIGKILLs mid-refund, clean at the end.

The full run (520 sales) is the script's; this one keeps the same faults and kills at a size a
test can afford, and checks the same figures: no over-refund, no mismatch, nothing unresolved.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import sys
from pathlib import Path
from types import ModuleType

logger = logging.getLogger(__name__)

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "chaos_money.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("chaos_money", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


chaos = _load()


def test_a_small_chaos_run_ends_clean(tmp_path: Path) -> None:
    config = chaos.ChaosConfig(
        sales=30, seed=7, kills_mid_refund=3, kills_at_random=2, max_seconds=240
    )
    report = asyncio.run(chaos.run_chaos(config, tmp_path))
    assert report.details == []
    assert (report.over_refunds, report.mismatches, report.unresolved) == (0, 0, 0)
    assert report.double_charges == 0
    assert not report.stopped_early
    # The run really did its damage: kills mid-refund, refused retries, lost notifications.
    assert report.kills_mid_refund >= 2
    assert report.busy_refusals >= 1
    assert report.notifications_refused >= 1
    assert report.refund_intents >= 5
    # Every recorded operation was sent once, and every refund the clerk wanted was made.
    assert report.money_requests == report.operations_recorded
    assert report.under_refunds == 0
