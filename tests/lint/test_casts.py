"""The casts facet: each fixture line marked `# cast: DTYPE TARGET [no_grad] [undone]` (several
separated by commas) holds exactly those casts; TARGET is the model's name or `tensor`."""
from __future__ import annotations

from ampcheck.lint.model import FileModel
from tests.paths import FIXTURES

FIXTURE = FIXTURES / "amp2xx" / "casts_spellings.py"


def _describe(model: FileModel) -> list[tuple[int, str]]:
    out = []
    for c in model.casts.all:
        words = [c.dtype, c.model_key or "tensor"] + ["no_grad"] * c.no_grad + ["undone"] * c.undone
        out.append((model.range(c.call).start.line, " ".join(words)))
    return sorted(out)


def _declared() -> list[tuple[int, str]]:
    out = []
    for line_no, line in enumerate(FIXTURE.read_text().splitlines(), start=1):
        _, marker, rest = line.partition("# cast:")
        if marker:
            out += [(line_no, d.strip()) for d in rest.split(",")]
    return sorted(out)


def test_every_cast_spelling_on_models_and_tensors_is_recognised_with_its_context() -> None:
    model = FileModel(str(FIXTURE), FIXTURE.read_text())
    assert _describe(model) == _declared()


def test_casts_in_a_custom_fwd_forward_are_known_as_such() -> None:
    path = FIXTURES / "amp3xx" / "clean_mamba_custom_fwd.py"
    model = FileModel(str(path), path.read_text())
    lowered = [c for c in model.casts.all if c.dtype == "float16"]
    assert lowered and all(model.casts.in_custom_fwd(c.call) for c in lowered)
