"""pytest plugin (entry point `pytest11`): the `amp_trace` fixture for users' own suites.

Loaded by every pytest run in an environment where ampcheck is installed, so it must stay
import-light: torch is imported only when a test asks for the fixture.

    def test_step_runs_in_low_precision(amp_trace):
        train_step()
        amp_trace.report.assert_coverage(min_lowp_flop_share=0.9)
        assert not amp_trace.report.findings(select=["AMP502"])

The trace starts when the fixture is set up (fixtures requested before it are not traced) and
stops at the first read of `amp_trace.report`, or when the test ends. Options for
`ampcheck.trace()` come from `@pytest.mark.amp_trace(numerics=True, steps=2, ...)`.
"""
from __future__ import annotations

from typing import Any, Iterator, Optional

import pytest

MARKER = "amp_trace"


def pytest_configure(config: Any) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(**options): options for the amp_trace fixture's ampcheck.trace() "
        "(phases, modules, steps, numerics, numerics_every, compare_fp32, compare_threshold)",
    )


class AmpTrace:
    """What the `amp_trace` fixture gives a test: the running trace and, once read, its report."""

    def __init__(self, trace: Any) -> None:
        self._trace = trace
        self._open = False

    def start(self) -> None:
        self._trace.__enter__()
        self._open = True

    def stop(self) -> None:
        """End recording (the code after this runs untraced) and build the report."""
        if self._open:
            self._open = False
            self._trace.__exit__(None, None, None)

    @property
    def recording(self) -> bool:
        return self._open and self._trace.recording

    @property
    def report(self) -> Any:
        """The TraceReport of everything the test ran so far; reading it stops the trace."""
        self.stop()
        return self._trace.report


@pytest.fixture
def amp_trace(request: Any) -> Iterator[AmpTrace]:
    """Trace the test's code with `ampcheck.trace()`; see the module docstring."""
    from ampcheck.trace.tracer import trace

    marker: Optional[Any] = request.node.get_closest_marker(MARKER)
    options = dict(marker.kwargs) if marker else {}
    handle = AmpTrace(trace(**options))
    handle.start()
    try:
        yield handle
    finally:
        handle.stop()
