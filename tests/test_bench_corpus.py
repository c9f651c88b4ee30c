"""The pinned corpus the recall and precision benches share, and the equivalent mutants the
recall bench leaves out (bench scripts are run as files; these pin their behaviour)."""
from __future__ import annotations

import re
import sys

from tests.paths import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import corpus_repos  # noqa: E402
import mutation_recall  # noqa: E402


def test_the_corpus_pins_over_100_distinct_repositories_by_full_commit():
    names = [r.name for r in corpus_repos.REPOS]
    assert len(set(names)) == len(names) >= 100
    assert all(re.fullmatch(r"[0-9a-f]{40}", r.commit) for r in corpus_repos.REPOS)
    assert sum(r.original for r in corpus_repos.REPOS) == 35


def test_a_mutant_inside_a_gradscaler_implementation_is_equivalent():
    source = (
        "class MyScaler(torch.amp.GradScaler):\n"
        "    def step(self, optimizer):\n"
        "        self.unscale_(optimizer)\n"
        "        return super().step(optimizer)\n"
    )
    mutant = mutation_recall.Mutant("drop_unscale", "s.py", 3, 3, source.replace("self.unscale_(optimizer)", "pass"))
    assert "GradScaler implementation" in (mutation_recall.equivalent("o/r", mutant, source) or "")


def test_a_mutant_of_a_file_whose_only_scaler_is_disabled_is_equivalent():
    source = "scaler = GradScaler(enabled=False)\nscaler.scale(loss).backward()\nscaler.step(opt)\nscaler.update()\n"
    mutant = mutation_recall.Mutant("drop_update", "t.py", 4, 4, source.replace("scaler.update()", "pass"))
    assert mutation_recall.equivalent("o/r", mutant, source) is not None


def test_a_mutant_of_a_file_whose_scaler_is_disabled_by_a_module_constant_is_equivalent():
    for flag, enabled in (("AMP = False", "AMP"), ("USE_BF16 = True", "not USE_BF16")):
        source = (
            f"{flag}\nscaler = GradScaler(enabled={enabled})\n"
            "scaler.scale(loss).backward()\nscaler.step(opt)\nscaler.update()\n"
        )
        mutant = mutation_recall.Mutant("drop_update", "t.py", 5, 5, source.replace("scaler.update()", "pass"))
        assert mutation_recall.equivalent("o/r", mutant, source) is not None, enabled


def test_a_mutant_of_a_scaler_whose_module_flag_is_reassigned_counts():
    source = (
        "AMP = False\nAMP = parse_args().amp\nscaler = GradScaler(enabled=AMP)\n"
        "scaler.scale(loss).backward()\nscaler.step(opt)\nscaler.update()\n"
    )
    mutant = mutation_recall.Mutant("drop_update", "t.py", 6, 6, source.replace("scaler.update()", "pass"))
    assert mutation_recall.equivalent("o/r", mutant, source) is None


def test_a_mutant_of_an_enabled_scaler_counts():
    source = "scaler = GradScaler(enabled=use_amp)\nscaler.scale(loss).backward()\nscaler.step(opt)\nscaler.update()\n"
    mutant = mutation_recall.Mutant("drop_update", "t.py", 4, 4, source.replace("scaler.update()", "pass"))
    assert mutation_recall.equivalent("o/r", mutant, source) is None


def test_a_dropped_update_is_also_reported_at_the_step_it_leaves_without_one():
    source = "def train():\n    scaler.scale(loss).backward()\n    scaler.step(opt)\n    log()\n    scaler.update()\n"
    (dropped,) = [m for m in mutation_recall.mutants("t.py", source) if m.kind == "drop_update"]
    assert dropped.anchors == (3,)


def test_a_dropped_update_is_also_reported_at_the_later_scaler_call_that_now_raises():
    source = (
        "def train():\n    scaler.pre_step(loss, opt)\n    scaler.update()\n    sam.first_step()\n"
        "    scaler.scale(loss2).backward()\n    scaler.unscale_(opt)\n    scaler.step(opt)\n    scaler.update()\n"
    )
    first = next(m for m in mutation_recall.mutants("t.py", source) if m.kind == "drop_update" and m.first == 3)
    assert first.anchors == (6, 7, 8)


def test_a_dropped_update_on_a_skip_path_is_also_reported_at_the_unscale_the_next_pass_repeats():
    source = (
        "def train(loader):\n    for x in loader:\n        scaler.scale(loss).backward()\n        scaler.unscale_(opt)\n"
        "        if bad():\n            scaler.update()\n            continue\n        scaler.step(opt)\n        scaler.update()\n"
    )
    skip = next(m for m in mutation_recall.mutants("t.py", source) if m.kind == "drop_update" and m.first == 6)
    assert skip.anchors == (4, 8, 9)


def test_a_dropped_unscale_is_also_reported_at_the_clip_it_guarded():
    source = (
        "def train():\n    scaler.scale(loss).backward()\n    scaler.unscale_(opt)\n    # clip\n"
        "    norm = clip_grad_norm_(\n        params, 1.0,\n    )\n    scaler.step(opt)\n    scaler.update()\n"
    )
    (dropped,) = [m for m in mutation_recall.mutants("t.py", source) if m.kind == "drop_unscale"]
    assert dropped.anchors == (5, 6, 7)


def test_a_dropped_scale_stored_in_a_name_is_also_reported_at_that_names_backward():
    source = (
        "def train():\n    scaled = cast(Tensor, scaler.scale(loss))\n    scaled.mul_(0.5)\n"
        "    other.backward()\n    scaled.backward()\n    scaler.step(opt)\n    scaler.update()\n"
    )
    (dropped,) = [m for m in mutation_recall.mutants("t.py", source) if m.kind == "drop_scale"]
    assert dropped.anchors == (5,)


def test_loose_files_are_linted_and_mutated_as_a_project_of_their_own(tmp_path):
    import loose_files

    folder = tmp_path / "group" / "owner+name"
    folder.mkdir(parents=True)
    (folder / "train.py").write_text((ROOT / "fixtures" / "amp1xx" / "amp109_helper.py").read_text())
    assert [line.split(": ")[1].split()[0] for line in loose_files.findings(folder)] == ["AMP109"]
    total, hits, missed = loose_files.mutate(folder)
    assert sum(total.values()) == 3 and not missed
