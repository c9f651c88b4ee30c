"""Hypothesis runs derandomized by default, so a test run (CI's included) always tries the same
examples and a red run can be rerun; `HYPOTHESIS_PROFILE=explore` draws new examples each run,
as bench/fuzz_lint.py does at scale."""
import os

from hypothesis import settings

settings.register_profile("default", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
