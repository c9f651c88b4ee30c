"""Where a lint run spends its time, per phase, and what it did with its files
(`ampcheck lint --timings`), so the next slowdown is found by measuring, not by guessing.

Phases are timed in CPU seconds of the process (a busy machine's waits for a core would
otherwise swell whichever phase they fall in). Each process records into its own `Timings`;
the engine hands each file's share back with the file's result, so a parallel run's figures
are the sum over its worker processes. Phases nest (a check asks for the steps, which read a project
module's summary), and time is charged to the innermost phase only, so the phases add up
to the time spent in all of them.
"""
from __future__ import annotations

import enum
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import wraps
from time import process_time
from typing import Callable, Iterator, TypeVar

F = TypeVar("F", bound=Callable)


class Phase(enum.Enum):
    IMPORTS = "imports (libcst, checks)"
    READ = "read (decode, notebooks)"
    CACHE = "findings cache (look-up, write)"
    SYNTAX = "syntax check (CPython)"
    PREFILTER = "pre-filter (text)"
    PARSE = "parse (libcst, indexed)"
    POSITIONS = "source positions (for findings)"
    MODEL = "program model (facets, summary)"
    SUMMARIES = "project summaries (other modules)"
    CALLERS = "caller search (text)"
    STEPS = "steps (replayed across modules)"
    CHECKS = "checks"
    SUPPRESS = "suppressions"


class Count(enum.Enum):
    FOUND = "files found"
    CACHE_HITS = "cache hits (findings replayed)"
    PREFILTERED = "pre-filtered out"
    PARSED = "parsed for findings"
    SUMMARY_PARSED = "parsed only for summaries"
    SUMMARY_CACHED = "summaries from the cache"


@dataclass
class Timings:
    seconds: dict[Phase, float] = field(default_factory=lambda: dict.fromkeys(Phase, 0.0))
    counts: dict[Count, int] = field(default_factory=lambda: dict.fromkeys(Count, 0))
    _stack: list[Phase] = field(default_factory=list, repr=False, compare=False)
    _since: float = field(default=0.0, repr=False, compare=False)

    @contextmanager
    def phase(self, phase: Phase) -> Iterator[None]:
        """Charge the time inside the block to `phase` (and none of it to the phase around it)."""
        now = process_time()
        if self._stack:
            self.seconds[self._stack[-1]] += now - self._since
        self._stack.append(phase)
        self._since = now
        try:
            yield
        finally:
            now = process_time()
            self.seconds[self._stack.pop()] += now - self._since
            self._since = now

    def count(self, what: Count, n: int = 1) -> None:
        self.counts[what] += n

    def take(self) -> "Timings":
        """What was recorded since the last take (a file's share), leaving an open phase open."""
        now = process_time()
        if self._stack:
            self.seconds[self._stack[-1]] += now - self._since
            self._since = now
        taken = Timings(dict(self.seconds), dict(self.counts))
        self.seconds = dict.fromkeys(Phase, 0.0)
        self.counts = dict.fromkeys(Count, 0)
        return taken

    def add(self, other: "Timings") -> None:
        for phase, s in other.seconds.items():
            self.seconds[phase] += s
        for what, n in other.counts.items():
            self.counts[what] += n

    @property
    def total(self) -> float:
        return sum(self.seconds.values())

    def render(self, wall: float, processes: int) -> str:
        """The table `--timings` prints on stderr."""
        where = "1 process" if processes == 1 else f"summed over {processes} worker processes"
        lines = [f"ampcheck timings: {wall:.3f} s wall; phases in CPU seconds, {where}"]
        width = max(len(k.value) for k in (*Phase, *Count))
        total = self.total or 1.0
        for phase in Phase:
            s = self.seconds[phase]
            lines.append(f"  {phase.value:<{width}}  {s:9.3f}  {100 * s / total:5.1f}%")
        lines.append(f"  {'all phases':<{width}}  {self.total:9.3f}")
        for what in Count:
            lines.append(f"  {what.value:<{width}}  {self.counts[what]:9d}")
        return "\n".join(lines) + "\n"


RECORDER = Timings()  # this process's


def timed(phase: Phase) -> Callable[[F], F]:
    """A function whose calls are charged to `phase`."""

    def decorate(fn: F) -> F:
        @wraps(fn)
        def inner(*args, **kwargs):  # type: ignore[no-untyped-def]
            with RECORDER.phase(phase):
                return fn(*args, **kwargs)

        return inner  # type: ignore[return-value]

    return decorate
