"""Summarise a py-spy profile: the functions that hold the most samples, inclusive and self.

py-spy writes the collapsed stacks of a process with `--format raw` (one stack a line, frames
joined by `;`, the sample count last). This prints the share of samples each function is on the
stack for (inclusive) and at the top of it (self), optionally only for the stacks that pass
through a frame containing `--focus` (then counted from that frame down), e.g. the full path of
charging.py:

    .venv/bin/py-spy record -r 250 -f raw -o charging.txt -- \\
        .venv/bin/python benchmarks/charging.py --concurrency 1 --rounds 2 --charges 200
    .venv/bin/python benchmarks/profile_summary.py charging.txt --focus full_path

The summaries in benchmarks/README.md were made this way.
"""

from __future__ import annotations

import argparse
import collections
import sys
from collections.abc import Iterable
from pathlib import Path


def function_of(frame: str) -> str:
    """`name (file.py)` of a py-spy frame `name (path/to/file.py:LINE)`, without the line."""
    name, paren, where = frame.partition(" (")
    if not paren:
        return frame.strip()
    path = where.rsplit(":", 1)[0].rstrip(")")
    return f"{name} ({path.rsplit('/', 1)[-1]})"


def summarise(
    lines: Iterable[str], focus: str | None = None
) -> tuple[int, collections.Counter[str], collections.Counter[str]]:
    """(samples counted, inclusive samples by function, self samples by function)."""
    inclusive: collections.Counter[str] = collections.Counter()
    own: collections.Counter[str] = collections.Counter()
    total = 0
    for line in lines:
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if not stack or not count.isdigit():
            continue
        frames = stack.split(";")
        if focus is not None:
            at = next((i for i, frame in enumerate(frames) if focus in frame), None)
            if at is None:
                continue
            frames = frames[at:]
        samples = int(count)
        total += samples
        for function in {function_of(frame) for frame in frames}:
            inclusive[function] += samples
        own[function_of(frames[-1])] += samples
    return total, inclusive, own


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profile", type=Path, help="a py-spy --format raw file")
    parser.add_argument("--focus", help="only stacks through a frame containing this text")
    parser.add_argument("--top", type=int, default=30, help="functions listed (default 30)")
    args = parser.parse_args(argv)
    with args.profile.open(encoding="utf-8", errors="replace") as lines:
        total, inclusive, own = summarise(lines, args.focus)
    if not total:
        print("no samples" + (f" through {args.focus!r}" if args.focus else ""))
        return 0
    print(f"{total} samples" + (f" through {args.focus!r}" if args.focus else ""))
    for title, counts in (("inclusive", inclusive), ("self", own)):
        print(f"-- {title}")
        for function, samples in counts.most_common(args.top):
            print(f"{100 * samples / total:5.1f}%  {function}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
