"""The pre-filter's optimizer needles stay in step with what kinds.py calls an
optimizer: fp16 parameters matter (AMP204/AMP205) only to a file that builds one."""
from __future__ import annotations

import pytest

from ampcheck.lint import kinds, prefilter

HALF_MODEL = "import torch\nmodel = Net().half()\n"


@pytest.mark.parametrize("name", sorted(kinds.OPTIMIZER_NAMES))
def test_every_optimizer_name_bindings_knows_lets_an_fp16_file_through(name: str) -> None:
    assert prefilter.may_have_findings(f"{HALF_MODEL}opt = {name}(model.parameters())\n")


def test_a_torch_optim_constructor_lets_an_fp16_file_through() -> None:
    assert prefilter.may_have_findings(f"{HALF_MODEL}opt = torch.optim.Foo(model.parameters())\n")


def test_float16_without_any_optimizer_is_skipped() -> None:
    assert not prefilter.may_have_findings('import torch\nx = torch.ones(2, dtype=torch.float16)\n"""fp16 docs"""\n')
