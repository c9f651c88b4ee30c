"""Mutation recall: inject one GradScaler-protocol bug at a time into real training code and
count how many ampcheck reports.

For every pinned public repository (bench/corpus_repos.py) whose snapshot is present, the
script writes the repository's Python files at the pinned commit into a scratch project (a git folder of its
own, so it is its own project root), finds the files that call a GradScaler (a receiver whose
name says "scaler" calling `scale`/`unscale_`/`step`/`update`), and, one mutation at a time:

- `drop_update`        `scaler.update()` removed
- `step_to_opt`        `scaler.step(opt)` -> `opt.step()`
- `drop_unscale`       the `scaler.unscale_(opt)` before a gradient clip removed
- `unscale_after_clip` that `unscale_` moved after the clip
- `drop_scale`         `scaler.scale(loss)` -> `loss`

Each mutant is linted the way a pre-commit hook lints it: only the mutated file is named, by
its path from the repository root, and the rest of the project is read for what it defines.
A mutant counts as reported when an AMP1xx finding the original file does not have lies
within 3 lines of the mutation, or where the mutant leaves its bug (the headline): for a
dropped `update()`, at a `step(...)` of the same scaler in the file, a step it leaves without an
update, or at that scaler's next call in its function (the `unscale_` or `step` that now runs
twice since the last update, where torch raises), or at its `unscale_` earlier in a loop around
the dropped call (what the next pass runs twice after a skip path that `continue`s) or earlier
in the function holding it (what its next call runs twice after a skip path that `return`s); for a dropped `unscale_`, at the clip it
guarded; for a dropped `scale()` stored in a name, at that name's backward. The table also
gives the share with such a finding anywhere in the mutated file (at an in-file clip helper
or the call of a helper further away). Equivalent mutants (inside a GradScaler implementation, in a
file whose only scaler is built with `enabled=False`, or pinned in EQUIVALENT with the reason:
dead code, objects that are not torch GradScalers) are listed and left out, never counted.
The originals are linted too, and every AMP1xx finding on them is listed, to be read and
judged. The ampcheck measured is the one first on the path: `PYTHONPATH=<checkout>` measures
another branch's code with this script.

A repository too large to mutate whole in the time a run has (icefall: ~150 training loops)
is sampled: at most `SAMPLED[repo]` of its files with mutation sites, picked by the SHA-1 of
their paths, so every run and machine mutates the same files.

Snapshots are read from git directories laid out as `MIRROR/<owner>+<name>/repo` (what the
search tool's fetch writes) or `MIRROR/<owner>/<name>/.git` (a plain clone); a repository
without one is listed as missing. Nothing fetched is written outside the scratch folder.

    python bench/mutation_recall.py --mirror /work/.mirror
    python bench/mutation_recall.py --mirror /work/.mirror --repo facebookresearch/mae -v
    python bench/mutation_recall.py --mirror /work/.mirror --out /tmp/recall --json recall.json
"""
from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import sys
import tempfile
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from itertools import repeat
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterator, Optional

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.append(str(BENCH.parent))  # after PYTHONPATH, so `PYTHONPATH=<another checkout>` measures that ampcheck

from corpus_repos import BY_NAME, Repo, git_dir, materialise, selected  # noqa: E402
from ampcheck.config import default_settings  # noqa: E402
from ampcheck.lint.engine import Options, lint_paths  # noqa: E402

KINDS = ("drop_update", "step_to_opt", "drop_unscale", "unscale_after_clip", "drop_scale")
NEAR = 3  # lines


@dataclass(frozen=True)
class Mutant:
    kind: str
    path: str  # relative to the repository
    first: int  # the lines the mutation touches, 1-based, in the mutant
    last: int
    text: str
    # where else a finding names this mutant's bug: for a dropped `update()`, the lines of the
    # same scaler's `step(...)` calls in the file (the steps left without their update) and of
    # its later calls in its function (the `unscale_` or `step` that now raises) and of its
    # `unscale_` earlier in a loop around it or in its function (what the next pass or call
    # repeats after a skip path);
    # for a dropped `unscale_`, the clip statement it guarded (now clipping scaled gradients); for
    # a dropped `scale()` whose result was stored in a name, the backward calls of that name after
    # it in its function (the backward left unscaled)
    anchors: tuple[int, ...] = ()


@dataclass
class Outcome:
    repo: str
    path: str
    kind: str
    line: int
    reported: bool
    findings: list[str] = field(default_factory=list)  # new AMP1xx findings anywhere in the file
    equivalent: Optional[str] = None  # why the mutant changes nothing a GradScaler does; left out of the recall
    excerpt: str = ""  # the mutant's lines around the mutation


# -- mutation sites -------------------------------------------------------------------------------
def _is_scaler(expr: ast.expr, source: str) -> bool:
    text = ast.get_source_segment(source, expr) or ""
    return "scaler" in text.lower()


def _method_call(node: ast.AST, method: str) -> Optional[ast.Call]:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == method:
        return node
    return None


def _is_clip(stmt: ast.stmt) -> bool:
    for sub in ast.walk(stmt):
        if isinstance(sub, ast.Call):
            f = sub.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if "clip_grad" in name:
                return True
    return False


class _Lines:
    """Edits by ast position (columns are UTF-8 byte offsets, as ast reports them)."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines(keepends=True)

    def _offset(self, line: int, col: int) -> int:
        before = sum(len(x) for x in self.lines[: line - 1])
        return before + len(self.lines[line - 1].encode("utf-8")[:col].decode("utf-8", "replace"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (
            self._offset(node.lineno, node.col_offset),  # type: ignore[attr-defined]
            self._offset(node.end_lineno, node.end_col_offset),  # type: ignore[attr-defined]
        )

    def replace(self, node: ast.AST, new: str) -> str:
        text = "".join(self.lines)
        start, end = self.span(node)
        return text[:start] + new + text[end:]


def _statement_pass(node: ast.stmt) -> str:
    """`pass` plus the newlines of the statement it replaces, so no line number moves."""
    return "pass" + "\n" * (node.end_lineno - node.lineno)  # type: ignore[operator]


def _blocks(tree: ast.AST) -> Iterator[list[ast.stmt]]:
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block
        for handler in getattr(node, "handlers", []) or []:
            yield handler.body


def mutants(path: str, source: str) -> Iterator[Mutant]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return
    edit = _Lines(source)
    for block in _blocks(tree):
        for i, stmt in enumerate(block):
            if not isinstance(stmt, ast.Expr):
                continue
            call = stmt.value
            upd = _method_call(call, "update")
            if upd is not None and not upd.args and not upd.keywords and _is_scaler(upd.func.value, source):  # type: ignore[attr-defined]
                yield Mutant("drop_update", path, stmt.lineno, stmt.lineno, edit.replace(stmt, _statement_pass(stmt)),
                             _scaler_calls_around(tree, stmt, upd.func.value, source))  # type: ignore[attr-defined]
            uns = _method_call(call, "unscale_")
            if uns is not None and _is_scaler(uns.func.value, source):  # type: ignore[attr-defined]
                clip = next((j for j in range(i + 1, min(len(block), i + 4)) if _is_clip(block[j])), None)
                if clip is not None:
                    guarded = tuple(range(block[clip].lineno, (block[clip].end_lineno or block[clip].lineno) + 1))
                    yield Mutant("drop_unscale", path, stmt.lineno, stmt.lineno, edit.replace(stmt, _statement_pass(stmt)),
                                 guarded)
                    yield _moved_after(path, source, block, i, clip)
    for node in ast.walk(tree):
        st = _method_call(node, "step")
        if st is not None and len(st.args) == 1 and not st.keywords and _is_scaler(st.func.value, source):  # type: ignore[attr-defined]
            opt = ast.get_source_segment(source, st.args[0])
            if opt is not None and st.lineno == st.end_lineno and isinstance(st.args[0], (ast.Name, ast.Attribute, ast.Subscript)):
                yield Mutant("step_to_opt", path, st.lineno, st.lineno, edit.replace(st, f"{opt}.step()"))
        sc = _method_call(node, "scale")
        if sc is not None and len(sc.args) == 1 and not sc.keywords and _is_scaler(sc.func.value, source):  # type: ignore[attr-defined]
            loss = ast.get_source_segment(source, sc.args[0])
            if loss is not None and sc.lineno == sc.end_lineno:
                simple = isinstance(sc.args[0], (ast.Name, ast.Attribute, ast.Call, ast.Subscript))
                yield Mutant("drop_scale", path, sc.lineno, sc.lineno, edit.replace(sc, loss if simple else f"({loss})"),
                             _backwards_of_stored(tree, sc, source))


def _scaler_calls_around(tree: ast.AST, stmt: ast.stmt, scaler: ast.expr, source: str) -> tuple[int, ...]:
    """The scaler spelled as at `stmt`: the lines of its `step(...)` calls in the file (a step
    left without its update: before `stmt` in its function, which the next pass repeats, or
    in another method of its class, `post_step` calling the dropped `update`), and of its
    method calls after `stmt` in the innermost function holding it but `scale` (the
    `unscale_`, `step` or wrapper method that now runs a second time since the last update,
    where torch raises), and of its `unscale_` calls earlier in a loop around `stmt` in that
    function (a skip path that unscaled, dropped its update and `continue`s: the next pass's
    `unscale_` raises), or earlier in that function at all when it is one (a per-step method
    whose skip path `return`s: its next call's `unscale_` raises)."""
    home = _function_holding(tree, stmt.lineno)
    inside = {id(n) for n in ast.walk(home)}
    looped = {
        id(n) for loop in ast.walk(home) if isinstance(loop, (ast.For, ast.While)) and id(loop) in inside
        and loop.lineno <= stmt.lineno <= (loop.end_lineno or loop.lineno) for n in ast.walk(loop)
    }
    spelled = ast.get_source_segment(source, scaler)
    lines = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if ast.get_source_segment(source, node.func.value) != spelled or node.lineno == stmt.lineno:
            continue
        if node.func.attr == "step" or (id(node) in inside and node.func.attr != "scale" and node.lineno > stmt.end_lineno) \
                or (node.func.attr == "unscale_" and (id(node) in looped or (home is not tree and id(node) in inside and node.lineno < stmt.lineno))):  # type: ignore[operator]
            lines.add(node.lineno)
    return tuple(sorted(lines))


def _function_holding(tree: ast.AST, line: int) -> ast.AST:
    """The innermost function whose lines hold `line` (the module outside any)."""
    home: ast.AST = tree
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno <= line <= (node.end_lineno or 0):
            if home is tree or node.lineno >= home.lineno:  # type: ignore[attr-defined]
                home = node
    return home


def _backwards_of_stored(tree: ast.AST, scale: ast.Call, source: str) -> tuple[int, ...]:
    """Where `scale` is (inside) the value of an assignment to one name or attribute, the
    lines of that target's `.backward(...)` calls after the assignment in its function."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and any(sub is scale for sub in ast.walk(node.value)):
            stored = ast.get_source_segment(source, node.targets[0])
            return tuple(sorted({
                sub.lineno for sub in ast.walk(_function_holding(tree, node.lineno))
                if (call := _method_call(sub, "backward")) is not None and sub.lineno > node.end_lineno  # type: ignore[operator]
                and ast.get_source_segment(source, call.func.value) == stored  # type: ignore[attr-defined]
            }))
    return ()


def _moved_after(path: str, source: str, block: list[ast.stmt], i: int, clip: int) -> Mutant:
    """The unscale_ statement at block[i] moved to just after the clip statement block[clip]."""
    lines = source.splitlines(keepends=True)
    uns, target = block[i], block[clip]
    uns_lines = lines[uns.lineno - 1 : uns.end_lineno]  # type: ignore[misc]
    indent_uns = len(uns_lines[0]) - len(uns_lines[0].lstrip())
    target_line = lines[target.lineno - 1]
    prefix = target_line[: len(target_line) - len(target_line.lstrip())]  # (tabs stay tabs)
    moved = [prefix + line[indent_uns:] if line.strip() else line for line in uns_lines]
    head = lines[: uns.lineno - 1]
    middle = lines[uns.end_lineno : target.end_lineno]  # type: ignore[misc]
    tail = lines[target.end_lineno :]  # type: ignore[misc]
    first = uns.lineno
    last = len(head) + len(middle) + len(moved)
    return Mutant("unscale_after_clip", path, first, last, "".join(head + middle + moved + tail))


# -- equivalent mutants ---------------------------------------------------------------------------
# Mutants that change no behaviour of a torch GradScaler, read by hand: (repo, file, kind, line)
# -> why. They are listed and left out of the recall, never counted as hits or misses.
EQUIVALENT: dict[tuple[str, str, str, int], str] = {
    ("facebookresearch/pycls", "pycls/core/benchmark.py", "drop_scale", 77):
        "a timing loop: the gradients of the backward are never stepped on, clipped or read",
    **{
        (repo, "oc20/trainer/base_trainer_oc20.py", kind, line):
            "dead code: BaseTrainer._backward is overridden by BaseTrainerV2, the project's only subclass of BaseTrainer; nothing runs it"
        for repo, kind, line in (
            ("atomicarchitects/equiformer", "drop_update", 701), ("atomicarchitects/equiformer", "step_to_opt", 700),
            ("atomicarchitects/equiformer_v2", "drop_update", 715), ("atomicarchitects/equiformer_v2", "step_to_opt", 714),
        )
    },
    ("sunshangquan/logit-standardization-KD", "tiny-transformers/pycls/core/benchmark.py", "drop_scale", 82):
        "pycls's timing loop, bundled: the gradients of the backward are never stepped on, clipped or read",
    ("Lornatang/SwinIR-PyTorch", "train_gan.py", "drop_update", 440):
        "one scaler for the generator and the discriminator: without the update after the generator's step, the update "
        "after the discriminator's is the iteration's only one, after both steps, as torch's multi-optimizer recipe writes it",
    ("Kiteretsu77/APISR", "train_code/train_master.py", "drop_update", 263):
        "one scaler for the generator and the discriminator: without the update after the discriminator's step, the "
        "update after the next generator step is the only one, and it still resets both optimizers before either steps again",
    ("Lornatang/SwinIR-PyTorch", "train_gan.py", "drop_update", 470):
        "one scaler for both: the update after the generator's step resets both optimizers before the discriminator steps "
        "again, and reads the discriminator's inf check with the generator's; nothing raises and the scale still adapts",
    ("ProgramerSalar/vae_from_scratch", "video_vae/train/main.py", "drop_update", 136):
        "one scaler for the VAE and the discriminator: the update after the discriminator's step is then the iteration's "
        "only one, after both steps, as torch's multi-optimizer recipe writes it",
    **{
        (repo, path, "drop_update", line): (
            "one scaler for every optimizer of the iteration, each step followed by an update: without this one, the "
            "next optimizer's update (or the next iteration's first, before this optimizer steps again) resets it, "
            "and reads its inf check with its own; nothing raises and the scale still adapts (stop 44, each read)"
        )
        for repo, path, line in (
            ("Lornatang/Real_ESRGAN-PyTorch", "train_realesrgan.py", 487),
            ("Lornatang/Real_ESRGAN-PyTorch", "train_realesrgan.py", 517),
            ("facebookresearch/eb_jepa", "examples/ac_video_jepa/main.py", 343),
            ("facebookresearch/eb_jepa", "examples/ac_video_jepa/main.py", 358),
            ("bubbliiiing/cyclegan-pytorch", "utils/utils_fit.py", 125),
            ("bubbliiiing/cyclegan-pytorch", "utils/utils_fit.py", 144),
            ("bubbliiiing/cyclegan-pytorch", "utils/utils_fit.py", 164),
            ("microsoft/CoCosNet-v2", "trainers/pix2pix_trainer.py", 70),
            ("free001style/HIFIGAN", "src/trainer/trainer.py", 64),
            ("free001style/HIFIGAN", "src/trainer/trainer.py", 85),
            ("PKUDigitalHealth/ECGFlowCMR", "engine_disentangle_vae3d.py", 87),
            ("PKUDigitalHealth/ECGFlowCMR", "engine_disentangle_vae3d.py", 112),
            ("Project-MONAI/model-zoo", "models/pancreas_ct_dints_segmentation/scripts/search.py", 327),
        )
    },
    **{
        (repo, path, "drop_update", line): (
            "dead code: MultiOptimizer._step updates only `if scaler is not None:`, and no code of the project passes it "
            "a scaler (every `optimizer.step(key)` leaves it None); read in stop 44"
        )
        for repo, path, line in (
            ("yl4579/StyleTTS2", "optimizers.py", 37),
            ("open-mmlab/Amphion", "models/codec/facodec/optimizer.py", 54),
        )
    },
    ("mosaicml/composer", "tests/trainer/test_fsdp2_gradscaler.py", "drop_update", 87):
        "the test's last line: its scaler, built in the test, steps once and nothing reads it after the update (stop 44)",
    ("NVIDIA/TransformerEngine", "docs/features/low_precision_training/introduction/bf16_fp16_training_pytorch.py", "drop_scale", 36):
        "a documentation example of one forward and backward: nothing steps on, clips or reads the gradients",
    **{
        ("facebookresearch/fairseq", "fairseq/optim/fp16_optimizer.py", kind, line):
            "fairseq's own DynamicLossScaler (scale(loss) and update() of another API), not a torch GradScaler"
        for kind, line in (("drop_update", 226), ("drop_update", 453), ("drop_scale", 107), ("drop_scale", 400))
    },
    **{
        (repo, path, kind, line):
            "fairseq's own DynamicLossScaler (scale(loss) and update() of another API), not a torch GradScaler"
        for repo, path, lines in (
            ("facebookresearch/metaseq", "metaseq/optim/fp16_optimizer.py", (("drop_update", 220), ("drop_update", 447), ("drop_scale", 89), ("drop_scale", 380))),
            ("microsoft/unilm", "decoding/GAD/fairseq/optim/fp16_optimizer.py", (("drop_update", 214), ("drop_update", 435), ("drop_scale", 100), ("drop_scale", 384))),
            ("microsoft/unilm", "decoding/IAD/fairseq/fairseq/optim/fp16_optimizer.py", (("drop_update", 214), ("drop_update", 435), ("drop_scale", 100), ("drop_scale", 384))),
            ("microsoft/unilm", "edgelm/fairseq/optim/fp16_optimizer.py", (("drop_update", 218), ("drop_update", 443), ("drop_scale", 104), ("drop_scale", 392))),
            ("microsoft/unilm", "kosmos-2/fairseq/fairseq/optim/fp16_optimizer.py", (("drop_update", 220), ("drop_update", 447), ("drop_scale", 104), ("drop_scale", 394))),
            ("NVIDIA/DeepLearningExamples", "PyTorch/SpeechRecognition/wav2vec2/common/fairseq/optim/fp16_optimizer.py", (("drop_update", 446), ("drop_scale", 332))),
        )
        for kind, line in lines
    },
    ("microsoft/unilm", "kosmos-2/fairseq/fairseq/ds_trainer.py", "drop_update", 410):
        "fairseq's own DynamicLossScaler (check_overflow(overflow=...) then update()), not a torch GradScaler",
    **{
        ("pytorch/benchmark", path, "drop_scale", line):
            "the benchmark's DummyGradScaler, whose scale(loss) returns the loss unchanged, not a torch GradScaler"
        for path, line in (
            ("torchbenchmark/util/env_check.py", 489),
            ("userbenchmark/dynamo/dynamobench/huggingface.py", 568),
            ("userbenchmark/dynamo/dynamobench/timm_models.py", 426),
            ("userbenchmark/dynamo/dynamobench/torchbench.py", 488),
        )
    },
    ("pytorch/benchmark", "torchbenchmark/models/pytorch_unet/__init__.py", "drop_update", 77):
        "train() builds a new GradScaler at each call and steps it once: update() on a scaler dropped right after changes nothing that is ever read",
    ("microsoft/DeBERTa", "DeBERTa/optims/fp16_optimizer.py", "drop_scale", 113):
        "DeBERTa's own ExpLossScaler (scale(loss) returns a triple; update(overflow)), not a torch GradScaler",
    **{
        ("facebookresearch/fairscale", "tests/experimental/optim/test_dynamic_loss_scaler.py", kind, line):
            "fairscale.experimental's DynamicLossScaler, a scaler of its own, not a torch GradScaler"
        for kind, line in (("drop_scale", 57), ("step_to_opt", 58), ("drop_update", 59))
    },
    **{
        ("facebookresearch/fairscale", "tests/optim/test_layerwise_gradient_scaler.py", "step_to_opt", line):
            "fairscale's LayerwiseGradientScaler (backward hooks per layer), not a torch GradScaler"
        for line in (129, 208)
    },
    **{
        ("allenai/allennlp", "tests/nn/parallel/fairscale_fsdp_accelerator_test.py", kind, line):
            "dead code: `scaler: Optional[amp.GradScaler] = None` is never rebound (its init is a TODO), so the "
            "`if scaler is not None:` branch never runs"
        for kind, line in (("drop_scale", 177), ("step_to_opt", 178), ("drop_update", 179))
    },
    **{
        ("younggyoseo/FastTD3", path, "drop_update", line):
            "one scaler for the critic and the actor: update_pol runs only right after update_main, whose update() "
            "at the next iteration resets both optimizers and reads the actor's inf check with the critic's; nothing "
            "raises and the scale still adapts (torch's one-update-after-all-steps recipe, shifted by one call)"
        for path, line in (("fast_td3/train.py", 522), ("fast_td3/train_multigpu.py", 560))
    },
    ("FunAudioLLM/CosyVoice", "cosyvoice/utils/train_utils.py", "step_to_opt", 306):
        "the step is already gated on torch.isfinite(grad_norm) after unscale_: it skips where scaler.step would",
    ("pytorch/rl", "sota-implementations/grpo/grpo-async.py", "step_to_opt", 303):
        "the step runs only where the unscaled gradients' norm is finite (_tensor_is_finite(grad_norm)): it skips where scaler.step would, and update() reads the inf check unscale_ recorded",
    **{
        key: "after unscale_ every gradient is made finite (nan_to_num_): optimizer.step() takes unscaled, finite gradients, "
             "and update() reads the inf check unscale_ recorded"
        for key in (("Haian-Jin/LVSM", "train.py", "step_to_opt", 197), ("arthurhero/Long-LRM", "main.py", "step_to_opt", 347))
    },
    **{
        ("lyuwenyu/RT-DETR", "rtdetr_paddle/ppdet/engine/trainer.py", "drop_scale", line):
            "PaddlePaddle code: paddle.amp.GradScaler, not a torch GradScaler"
        for line in (344, 359)
    },
    ("KAIR-BAIR/nerfacc", "examples/train_mlp_dnerf.py", "drop_scale", 180):
        "GradScaler(1), never stepped or updated, in front of a hand Adam step: scale(loss) multiplies by 1",
    ("KAIR-BAIR/nerfacc", "examples/train_mlp_nerf.py", "drop_scale", 206):
        "GradScaler(1), never stepped or updated, in front of a hand Adam step: scale(loss) multiplies by 1",
    **{
        (repo, path, "drop_update", line):
            "another update() in the same iteration follows every step (GradScaler resets every optimizer at each update): "
            "one update per iteration, the documented pattern for several optimizers"
        for repo, path, line in (
            ("Lornatang/SRGAN-PyTorch", "train_gan.py", 439),
            ("Lornatang/SRGAN-PyTorch", "train_gan.py", 469),
            ("Lornatang/ESRGAN-PyTorch", "train_gan.py", 449),
            ("Lornatang/ESRGAN-PyTorch", "train_gan.py", 482),
            ("Project-MONAI/research-contributions", "auto3dseg/algorithm_templates/dints/scripts/search.py", 423),
            ("Project-MONAI/tutorials", "automl/DiNTS/search_dints.py", 576),
        )
    },
    **{
        (repo, path, "drop_update", line):
            "the update after the iteration's first step resets every optimizer, the second optimizer's included, "
            "before its step runs again: dropping the second update (or the one between the two steps) leaves a legal sequence"
        for repo, path, line in (
            ("Syliz517/CLIP-ReID", "processor/processor.py", 84),
            ("Syliz517/CLIP-ReID", "processor/processor_clipreid_stage2.py", 109),
            ("Musketeer4/RGANet-CLIP", "processor/processor.py", 128),
            ("Musketeer4/RGANet-CLIP", "processor/processor_clipreid_stage2.py", 203),
            ("DQiaole/ZITS_inpainting", "src/models/FTR_model.py", 465),
            ("DQiaole/ZITS_inpainting", "src/models/FTR_model.py", 467),
            ("SCLBD/BackdoorBench", "attack/lira.py", 305),
            ("SCLBD/BackdoorBench", "attack/lira.py", 322),
        )
    },
    **{
        ("NVIDIA/modulus-sym", path, kind, line):
            "modulus-sym's DerivScaler: a GradScaler subclass that scales derivatives (step and unscale_ take no optimizer "
            "and raise; update() reads the inf checks its own unscale_deriv recorded), not torch's protocol"
        for path, kind, line in (
            ("test/test_amp.py", "drop_update", 73),
            ("test/test_amp.py", "drop_update", 185),
            ("test/test_amp.py", "drop_scale", 62),
            ("test/test_amp.py", "drop_scale", 146),
            ("modulus/sym/eq/derivatives.py", "drop_scale", 104),
            ("modulus/sym/models/arch.py", "drop_scale", 835),
        )
    },
    **{
        ("explosion/thinc", path, kind, line):
            "thinc's own PyTorchGradScaler (scale/unscale of tensor lists, update() of the found_inf it kept; no step), not a torch GradScaler"
        for path, kind, line in (
            ("thinc/shims/pytorch.py", "drop_update", 180),
            ("thinc/tests/shims/test_pytorch_grad_scaler.py", "drop_update", 77),
            *(("thinc/tests/shims/test_pytorch_grad_scaler.py", "drop_scale", n) for n in (31, 33, 54, 57, 61, 63, 81, 95, 109)),
        )
    },
    **{
        (repo, path, kind, line): why
        for repo, path, kind, line, why in (
            *(("fastnlp/fastNLP", "fastNLP/core/drivers/paddle_driver/paddle_driver.py", kind, line,
               "PaddlePaddle's paddle.amp.GradScaler (a paddle driver), not a torch GradScaler")
              for kind, line in (("drop_update", 105), ("step_to_opt", 104), ("drop_scale", 97))),
            *(("fastnlp/fastNLP", "fastNLP/core/drivers/oneflow_driver/oneflow_driver.py", kind, line,
               "OneFlow's GradScaler (a oneflow driver), not a torch GradScaler")
              for kind, line in (("drop_update", 94), ("step_to_opt", 93))),
            *(("deepinsight/insightface", "recognition/arcface_paddle/dynamic/train.py", kind, line,
               "LSCGradScaler, a PaddlePaddle scaler of the paddle recipe, not a torch GradScaler")
              for kind, line in (("step_to_opt", 213), ("drop_scale", 208))),
            *(("sfezn1220/pytorchDeepLearning", "text_to_speech/hifigan/executor.py", kind, line,
               "the scaler is built with enabled=fp16_run where fp16_run = False two lines up: a disabled GradScaler")
              for kind, line in (("drop_update", 227), ("step_to_opt", 224), ("drop_scale", 223))),
            *(("aask1357/hilcodec", path, "drop_scale", line,
               "scale() of a zero only to initialise the scaler's lazy scale before the balancer reads it; the value is discarded")
              for path, line in (("models/hilcodec/wrapper.py", 182), ("models/avocodo/wrapper.py", 199))),
            *(("jbloomAus/SAELens", path, "drop_scale", line,
               "SAELens's ActivationScaler.scale(acts) normalises activations; it is no GradScaler")
              for path, line in (*(("sae_lens/evals.py", n) for n in (471, 640, 657, 678)),
                                 *(("tests/training/test_activation_scaler.py", n) for n in (16, 24, 54, 120, 130, 142, 154)))),
            ("guochengqian/Magic123", "nerf/utils.py", "drop_scale", 480,
             "a debug backward through a local GradScaler that never steps: its gradients land on a random image nothing reads"),
            ("abyhuerta/mars-segmentation-unet", "train_amp_compile.py", "drop_scale", 90,
             "a warm-up backward to compile the fp16 kernels: optimizer.zero_grad() drops its gradients before any step"),
            ("Jiawei-Yang/Denoising-ViT", "main_img_denoising.py", "drop_scale", 88,
             "GradScaler(\"cuda\", 2**10), never stepped or updated, in front of a hand Adam step: a constant scale Adam does not see"),
        )
    },
    # stop 45, each read
    ("LingFengGold/PPG-Distill", "trainer/ddp_trainer_pytorch.py", "drop_update", 220):
        "dead code: the step after the loop runs only when `(i + 1) % accumulation_steps != 0`, and the local "
        "`accumulation_steps = 1` makes that never true",
    ("wwangg22/torchNeRF", "stage1.py", "drop_update", 1293):
        "dead code: the script's loop calls chunked_train_step; its call of train_step is commented out and nothing "
        "else calls it",
    # stop 46, each read
    **{
        ("LegendOP1098/HelioResolve", "solarres_sr/training.py", "drop_update", line):
            "the discriminator and the generator each run unscale_ then step before the other update(), which resets "
            "both optimizers and reads both inf checks: one update per iteration is the documented pattern for two "
            "optimizers, whichever of the two is dropped"
        for line in (731, 750)
    },
    ("mcantimmy/optimal_MoE", "test_moe.py", "drop_update", 221):
        "a test that runs one scaled step, in no loop: without the update no second step follows to raise, and one "
        "step never adapts the scale anyway",
    **{
        ("iam-saiteja/HGDM-Hierarchical-Gated-Delta-Memory", path, "step_to_opt", line):
            "unscale_(opt) runs first and a non-finite clipped norm skips the iteration: the hand step only ever "
            "takes finite, unscaled gradients, and update() reads the inf check unscale_ recorded, as after scaler.step"
        for path, line in (("v1/train_dpo_v1.py", 171), ("v1/train_omega_v1.py", 154))
    },
    ("Reon-Jin/Fine-Grained-Recognition", "betterPNP.py", "drop_unscale", 403):
        "the except of a failed scaler.step(optimizer): step had already unscaled the optimizer, so the original "
        "unscale_ raises; without it the clip reads the unscaled gradients and the fallback step runs",
    **{
        ("ChiefTriston/TTS-Core-Remastered-1", "vocoder7/trainer.py", "drop_update", line):
            "the discriminator's and the generator's whole cycles run every iteration: the update that is left "
            "resets both optimizers and reads both inf checks, the documented pattern for two optimizers"
        for line in (109, 115)
    },
    ("THUDM/ChatGLM-6B", "ptuning/trainer.py", "drop_update", 1961):
        "the TPU branch's scaler calls: the trainer builds its GradScaler only where is_torch_tpu_available() is "
        "false, so on TPU there is none and the branch never runs with one (dead code)",
    # stop 47, each read
    **{
        ("yliess86/NeRF", path, kind, line):
            "dead code: the clip runs under `if GRAD_NORM_CLIP > 0.:` and the module sets GRAD_NORM_CLIP = 0.; with "
            "no clip, scaler.step unscales the gradients itself wherever unscale_ is dropped or moved"
        for path, line in (("nerf/train.py", 81), ("nerf/reptile.py", 131), ("nerf/distill.py", 133))
        for kind in ("drop_unscale", "unscale_after_clip")
    },
    **{
        ("yuezhixiong/CoNAL", "CoNAL/search.py", "drop_update", line):
            "the architecture step and the weight step each run a whole cycle on one scaler every iteration: the "
            "update that is left resets both optimizers and reads both inf checks, the documented pattern for two "
            "optimizers, whichever of the two is dropped"
        for line in (59, 75)
    },
    # stop 48, each read
    **{
        ("Hariesh28/High-FPS-Video-Frame-Interpolation", "tests/test_scaler_saved.py", "drop_scale", line):
            "a test of state_dict() on a scaler with no optimizer: one backward of a dummy leaf and no step, so the "
            "unscaled backward changes no update (the scaler's state is the same either way)"
        for line in (21, 32)
    },
    ("Assem-ElQersh/General-SISR-Framework", "trainers/gan_trainer.py", "drop_update", 107):
        "the generator's and the discriminator's whole cycles share one scaler every iteration: the update "
        "that is left resets both optimizers and reads both inf checks, the documented pattern for two optimizers",
    ("zxygogo1go/GaussianReg", "train_registration.py", "step_to_opt", 1362):
        "unscale_(optimizer) runs first and a non-finite clipped norm skips the sample (continue): the hand "
        "step only ever takes finite, unscaled gradients, and update() reads the inf check unscale_ recorded",
    ("nuhame/mlpug", "examples/legacy/chatbot/pytorch/train_chatbot_reference.py", "drop_unscale", 98):
        "the legacy example's AMP branch never runs: it hands the trainer two optimizers, and DefaultTrainerMixin "
        "raises ValueError when loss scaling meets more than one",
    # stop 49, each read
    **{
        (repo, path, "drop_update", line):
            "the generator's and the discriminator's (or each model's) whole cycles share one scaler every "
            "iteration: the update that is left resets every optimizer and reads every inf check, the documented "
            "pattern for several optimizers"
        for repo, path, line in (
            ("devasphn/NewProject", "train_codec_dac.py", 129), ("devasphn/NewProject", "train_codec_dac.py", 176),
            ("dhardaiv/ecosystem", "train.py", 682), ("dhardaiv/ecosystem", "train.py", 711),
            ("nooralddenshamroukh/Ai_voice_Converter", "train_svc.py", 96),
            ("nooralddenshamroukh/Ai_voice_Converter", "train_svc.py", 111),
            ("STomoya/MambaPainter", "train_2_stroke_predictor.py", 130),
        )
    },
    **{
        (repo, path, "drop_update", line): "a one-step check with nothing after it: the update it drops would "
        "change the scale for no later step"
        for repo, path, line in (
            ("devasphn/NewProject", "preflight_check.py", 249),
            ("caroline443/sevir-vil-nowcasting-lab", "scripts/smoke_simvp.py", 66),
            ("TSOR666/Hyperspectral-Imaging-Toolkit", "CSWIN v2/gpu_preflight_train.py", 398),
            ("TSOR666/Hyperspectral-Imaging-Toolkit", "mswr_v2/verify_robustness.py", 312),
        )
    },
    **{
        (repo, path, "step_to_opt", line):
            "unscale_(optimizer) runs first and the hand step sits under a finite-norm check: it only ever takes "
            "finite, unscaled gradients, and update() reads the inf check unscale_ recorded"
        for repo, path, line in (
            ("MarvelMathesh/MambaDerm", "train.py", 354), ("MarvelMathesh/MambaDerm", "train_ham10000.py", 349),
            ("devasphn/NewProject", "train_codec_production.py", 475),
            ("TSOR666/Hyperspectral-Imaging-Toolkit", "CSWIN v2/src/hsi_model/train_optimized.py", 549),
            ("TSOR666/Hyperspectral-Imaging-Toolkit", "CSWIN v2/src/hsi_model/train_optimized.py", 597),
            ("TSOR666/Hyperspectral-Imaging-Toolkit", "CSWIN v2/src/hsi_model/training_script_fixed.py", 723),
            ("TSOR666/Hyperspectral-Imaging-Toolkit", "CSWIN v2/src/hsi_model/training_script_fixed.py", 785),
            ("TSOR666/Hyperspectral-Imaging-Toolkit", "CSWIN v2/src/hsi_model/train_generator.py", 965),
            ("TSOR666/Hyperspectral-Imaging-Toolkit", "HSIFUSION&SHARP/sharp_v322_hardened.py", 1749),
            ("TSOR666/Hyperspectral-Imaging-Toolkit", "HSIFUSION&SHARP/unified_training.py", 562),
        )
    },
    **{
        ("Luoxd1996/nnMIL", f"training/trainers/{path}", kind, line):
            "dead code: the trainer sets `fp16_scaler = None` (\"Disable GradScaler\" for its bf16 autocast) just before, so `if fp16_scaler is not None:` never runs"
        for path, kind, line in (
            ("survival_porpoise_trainer.py", "drop_update", 232), ("survival_porpoise_trainer.py", "step_to_opt", 231),
            ("survival_porpoise_trainer.py", "drop_scale", 230),
            ("survival_trainer.py", "drop_unscale", 340), ("survival_trainer.py", "unscale_after_clip", 340),
            ("survival_trainer.py", "drop_update", 343), ("survival_trainer.py", "step_to_opt", 342),
            ("survival_trainer.py", "drop_scale", 339),
        )
    },
    **{
        (repo, path, "drop_scale", line):
            "the dropped scale() is in an `if` test (`if scaler.scale(errD).item() > 0.2:`), not a backward: the backward above it stays scaled"
        for repo, path, line in (
            ("NeilDG/SynthDehazing", "trainers/cyclegan_trainer.py", 189),
            ("NeilDG/SynthShadowRemoval", "trainers/cyclegan_trainer.py", 311),
            ("NeilDG/SynthShadowRemoval", "trainers/domain_adapt_trainer.py", 200),
            ("NeilDG/SynthShadowRemoval", "trainers/domain_adapt_trainer_2.py", 272),
            ("NeilDG/SynthShadowRemoval", "trainers/domain_adapt_trainer_2.py", 335),
            ("NeilDG/SynthShadowRemoval", "trainers/embedding_trainer.py", 141),
            ("NeilDG/SynthShadowRemoval", "trainers/iid_trainer.py", 353),
            ("NeilDG/SynthShadowRemoval", "trainers/iid_trainer.py", 437),
            ("NeilDG/SynthShadowRemoval", "trainers/paired_trainer.py", 192),
            ("NeilDG/SynthShadowRemoval", "trainers/transfer_trainer.py", 149),
        )
    },
    **{
        (repo, path, "drop_update", line):
            "one scaler steps two optimizers per iteration with an update after each: without one of them, step A, step B, update is what torch allows"
        for repo, path, line in (
            ("NeilDG/SynthShadowRemoval", "trainers/iid_trainer.py", 464),
            ("NeilDG/SynthShadowRemoval", "trainers/iid_trainer.py", 495),
            ("xinli2008/VQGAN_from_scratch", "train_vqgan.py", 62),
            ("xinli2008/VQGAN_from_scratch", "train_vqgan.py", 78),
            ("johndpope/MegaPortrait-hack", "train.py", 247), ("johndpope/MegaPortrait-hack", "train.py", 320),
            ("Abhinaykotla/EdgeConnect_Plus_Inpainting_with_Edge_and_Color_Guidance", "train_loops_g1.py", 255),
            ("Abhinaykotla/EdgeConnect_Plus_Inpainting_with_Edge_and_Color_Guidance", "train_loops_g1.py", 284),
            ("Abhinaykotla/EdgeConnect_Plus_Inpainting_with_Edge_and_Color_Guidance", "train_loops_g2.py", 252),
            ("Abhinaykotla/EdgeConnect_Plus_Inpainting_with_Edge_and_Color_Guidance", "train_loops_g2.py", 277),
            ("pumpCurry/font_gan", "train_pix2pix.py", 576), ("pumpCurry/font_gan", "train_pix2pix.py", 591),
            ("pumpCurry/font_gan", "train_pix2pix_pro.py", 937), ("pumpCurry/font_gan", "train_pix2pix_pro.py", 957),
            ("CODEJIN/HiFiSinger", "Train.py", 232), ("CODEJIN/HiFiSinger", "Train.py", 305),
        )
    },
    **{
        key: "unscale_(optimizer) runs first and the hand step sits under a finite-norm check (`if is_finite:`, `if torch.isfinite(grad_norm):`): "
             "it only ever takes finite, unscaled gradients, and update() reads the inf check unscale_ recorded"
        for key in (
            ("gk408829/Geophysical-Full-Waveform-Inversion", "final_swinunet_pipeline.py", "step_to_opt", 1836),
            ("ASLP-lab/OSUM", "OSUM-EChat/tts/cosyvoice/utils/train_utils.py", "step_to_opt", 288),
        )
    },
    **{
        ("Alexander4127/effdl_pipeline_opt", "task1/train.py", kind, line):
            "the scaler is the homework's own loss scaler (task1's Scaler / DynamicScaler, built to implement loss scaling by hand), "
            "not a torch GradScaler: its calls follow its own protocol, which no AMP1 rule judges"
        for kind, line in (("step_to_opt", 84), ("drop_scale", 79))
    },
    ("SpaceNetChallenge/SpaceNet8", "02_number13/code/trainer_ms.py", "drop_scale", 318):
        "a validation step under torch.no_grad(): `scaler.scale(loss)` is a statement whose value nothing reads, and no backward follows",
    ("zdhdream/LLM-Science-Exam", "adv_utils.py", "drop_scale", 155):
        "dead code: no code of the project calls AWP.attack_backward (the trainers use their own AWP classes or FGM)",
    **{
        ("shanguanma/speaker_diarization", f"egs/alimeeting/ts_vad1/{path}", "drop_update", line):
            "dead code: every call of the `dynamic_scaler` helper is commented out"
        for path, line in (
            ("train_multi_gpus.py", 701), ("train_multi_gpus3.py", 736), ("train_multi_gpus4.py", 763),
            ("train_multi_gpus4_1.py", 772), ("train_multi_gpus5.py", 747),
        )
    },
    ("shanguanma/speaker_diarization", "egs/alimeeting/ts_vad1/dynamic_loss_scaler.py", "drop_update", 169):
        "dead code: no module imports dynamic_loss_scaler (the trainers import dynamic_loss_scaler2 and 3)",
    ("Maelic/SGG-Benchmark", "sgg_benchmark/engine/trainer.py", "drop_update", 319):
        "the dropped update() runs only where no parameter has a gradient and nothing was unscaled or stepped, "
        "where torch raises 'No inf checks were recorded prior to update': the mutant removes a call that cannot succeed",
    **{
        ("RolandGao/RegSeg", "benchmark.py", "drop_scale", line):
            "a timing / memory benchmark: the gradients of the backward are never stepped on, clipped or read"
        for line in (82, 124)
    },
    **{
        (repo, path, "drop_update", line):
            "one backward, then the scaler steps the model's optimizer and the center loss's with an update after each "
            "(TransReID's loop, whose center step after the first update is already reported, AMP103): without the later "
            "update the scale is still updated once per iteration, and the next update reads the center step's inf check"
        for repo, path, line in (
            ("Alioth2000/Hoss-ReID", "processor/processor.py", 145),
            ("ChonJohn1711/ICPL-ReID", "processor/processor.py", 326),
            ("BestTao/occ-moe", "processor.py", 466), ("BestTao/occ-moe", "processor.py", 475),
            ("BestTao/occ-moe", "processor/processor.py", 494), ("BestTao/occ-moe", "processor/processor.py", 503),
        )
    },
    ("VITA-Group/layerGraftedPretraining_ICLR23", "main_pretrain.py", "drop_scale", 618):
        "train() back-propagates the scaled loss and never steps: no scaler.step, update or optimizer.step "
        "anywhere in it, so no gradient of the backward is ever consumed",
}

# Repositories too large to mutate every file in the time a run has: at most this many of
# their files with mutation sites are mutated, picked by the SHA-1 of their paths (the same
# files on every run and every machine), every mutant of a picked file counted.
SAMPLED: dict[str, int] = {"k2-fsa/icefall": 40}


def _implements_scaler(cls: ast.ClassDef) -> bool:
    """A class that is a GradScaler itself: it defines `unscale_`, or derives from a class
    named like one. Calls inside it are the scaler's own machinery, not a training loop's use."""
    bases = [ast.unparse(b).rsplit(".", 1)[-1] for b in cls.bases]
    methods = {n.name for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return "unscale_" in methods or any(b.endswith("GradScaler") for b in bases)


def _never_enabled(tree: ast.AST) -> bool:
    """Every GradScaler the file builds is built disabled: `enabled=False`, or a module
    constant that is False (`amp_enable = False`, `enabled=amp_enable`; `USE_BF16 = True`,
    `enabled=not USE_BF16`), a name assigned once in the whole file, at its top level."""
    built = [
        node for node in ast.walk(tree)
        if isinstance(node, ast.Call) and ast.unparse(node.func).rsplit(".", 1)[-1] == "GradScaler"
    ]
    constants = _module_bools(tree)
    return bool(built) and all(
        any(k.arg == "enabled" and _false(k.value, constants) for k in call.keywords) for call in built
    )


def _module_bools(tree: ast.AST) -> dict[str, bool]:
    """The names the module binds once, at its top level, to a literal True or False."""
    counts: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            counts[node.id] = counts.get(node.id, 0) + 1
    return {
        stmt.targets[0].id: stmt.value.value
        for stmt in getattr(tree, "body", [])
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
        and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, bool)
        and counts.get(stmt.targets[0].id) == 1
    }


def _false(expr: ast.expr, constants: dict[str, bool]) -> bool:
    if isinstance(expr, ast.Constant):
        return expr.value is False
    if isinstance(expr, ast.Name):
        return constants.get(expr.id) is False
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not) and isinstance(expr.operand, ast.Name):
        return constants.get(expr.operand.id) is True
    return False


def equivalent(repo: str, m: Mutant, original: str) -> Optional[str]:
    """Why the mutant `m` of `original` changes nothing a GradScaler does, or None."""
    pinned = EQUIVALENT.get((repo, m.path, m.kind, m.first))
    if pinned:
        return pinned
    tree = ast.parse(original)
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.lineno <= m.first <= (node.end_lineno or 0) and _implements_scaler(node):
            return f"inside the GradScaler implementation `{node.name}`"
    if _never_enabled(tree):
        return "every scaler the file builds is disabled (enabled=False, or a module constant that is False)"
    return None


# -- linting --------------------------------------------------------------------------------------
def amp1(root: Path, rel: str) -> list[tuple[str, int, str]]:
    """AMP1xx findings on `rel`, named from the repository root the way a pre-commit hook
    names it, with the rest of the project read for what it defines."""
    result = lint_paths([rel], default_settings(root), Options(jobs=1))
    return [(f.code, f.line, f.message) for f in result.findings if f.code.startswith("AMP1")]


def window(text: str, first: int, last: int, context: int = NEAR) -> str:
    lines = text.splitlines()
    lo, hi = max(1, first - context), min(len(lines), last + context)
    return "\n".join(f"{n:>5}{'>' if first <= n <= last else ' '} {lines[n - 1]}" for n in range(lo, hi + 1))


def files_to_mutate(repo: str, root: Path) -> list[tuple[Path, str, list[Mutant]]]:
    """The files of the repository with mutation sites (their text and mutants), in path
    order; for a repository in SAMPLED, the deterministic sample of them."""
    found = []
    for file in sorted(root.rglob("*.py")):
        if not file.is_file():
            continue  # (a folder named like a module: `old.py/`)
        rel = file.relative_to(root).as_posix()
        original = file.read_text(encoding="utf-8", errors="surrogateescape")
        sites = list(mutants(rel, original))
        if sites:
            found.append((file, original, sites))
    limit = SAMPLED.get(repo)
    if limit is not None and len(found) > limit:
        def digest(f: tuple[Path, str, list[Mutant]]) -> str:
            return hashlib.sha1(f[0].relative_to(root).as_posix().encode()).hexdigest()

        picked = {id(f) for f in sorted(found, key=digest)[:limit]}
        found = [f for f in found if id(f) in picked]
    return found


def lint_mutant(
    root: Path, file: Path, original: str, m: Mutant, known: set[tuple[str, int]],
) -> tuple[bool, list[tuple[str, int, str]]]:
    """Lint `file` (of the project at `root`, the working folder) with mutant `m` written in
    it, then put `original` back: whether a new finding (not in `known`, the original's
    `(code, line)`s) lands near the mutation or on one of its anchors, and the new findings."""
    file.write_text(m.text, encoding="utf-8", errors="surrogateescape")
    try:
        after = amp1(root, file.relative_to(root).as_posix())
    finally:
        file.write_text(original, encoding="utf-8", errors="surrogateescape")
    new = [(c, line, msg) for c, line, msg in after if (c, line) not in known]
    return any(m.first - NEAR <= line <= m.last + NEAR or line in m.anchors for _, line, _ in new), new


def run_repo(repo: str, git: Path, commit: str, verbose: bool) -> tuple[list[Outcome], list[str]]:
    outcomes: list[Outcome] = []
    flagged: list[str] = []
    here = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="ampcheck-mut-") as tmp:
        root = Path(tmp).resolve()
        materialise(git, commit, root)
        os.chdir(root)
        try:
            for file, original, sites in files_to_mutate(repo, root):
                rel = file.relative_to(root).as_posix()
                before = amp1(root, rel)
                for code, line, message in before:
                    flagged.append(f"{repo} {rel}:{line}: {code} {message}")
                known = {(c, line) for c, line, _ in before}
                for m in sites:
                    why = equivalent(repo, m, original)
                    hit, new = lint_mutant(root, file, original, m, known)
                    outcomes.append(Outcome(repo, rel, m.kind, m.first, hit, [f"{c}:{line}" for c, line, _ in new],
                                            why, window(m.text, m.first, m.last)))
                    if verbose:
                        label = "EQUIV" if why else "HIT  " if hit else "MISS "
                        print(f"  {label} {m.kind:<19} {rel}:{m.first} {' '.join(f'{c}:{line}' for c, line, _ in new)}")
        finally:
            os.chdir(here)
    return outcomes, flagged


def _one(repo: Repo, mirror: Path, out: Optional[Path], verbose: bool, kept_only: bool) -> Optional[tuple[list[Outcome], list[str]]]:
    """One repository's outcomes and flagged originals (reused from `out` when an earlier run
    kept them); None when it has no snapshot (or, with `kept_only`, no kept result)."""
    saved = out / (repo.name.replace("/", "+") + ".json") if out else None
    if saved is not None and saved.is_file():
        data = json.loads(saved.read_text())
        return [Outcome(**o) for o in data["outcomes"]], data["flagged"]
    git = git_dir(mirror, repo.name)
    if git is None or kept_only:
        return None
    got, bad = run_repo(repo.name, git, repo.commit, verbose)
    if saved is not None:
        saved.parent.mkdir(parents=True, exist_ok=True)
        saved.write_text(json.dumps({"commit": repo.commit, "outcomes": [asdict(o) for o in got], "flagged": bad}, indent=1))
    print(f"{repo.name}@{repo.commit[:8]}: {len(got)} mutants, {sum(o.reported for o in got if not o.equivalent)} reported, "
          f"{sum(1 for o in got if o.equivalent)} equivalent", flush=True)
    return got, bad


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirror", type=Path, required=True, help="folder holding the repositories' git directories")
    parser.add_argument("--repo", action="append", help="only this owner/name (repeatable)")
    parser.add_argument("--original", action="store_true", help="only the 35 repositories the bench was first built on")
    parser.add_argument("--out", type=Path, help="keep each repository's outcomes here and reuse them on the next run")
    parser.add_argument("--json", type=Path, help="write every outcome and flagged original here")
    parser.add_argument("--kept-only", action="store_true", help="mutate nothing: report the outcomes kept in --out (the rest count as missing)")
    parser.add_argument("-p", "--parallel", type=int, default=1, help="repositories mutated at once (one process each)")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per mutant")
    args = parser.parse_args()
    outcomes: list[Outcome] = []
    flagged: list[str] = []
    missing = []
    repos = [r for r in selected(args.repo) if r.original or not args.original]
    with ProcessPoolExecutor(max_workers=args.parallel) as pool:
        results = list(pool.map(_one, repos, repeat(args.mirror), repeat(args.out), repeat(args.verbose), repeat(args.kept_only)))
    for repo, result in zip(repos, results):
        if result is None:
            missing.append(repo.name)
            continue
        for o in result[0]:  # outcomes kept by an earlier run meet the pinned list as it is now
            o.equivalent = o.equivalent or EQUIVALENT.get((o.repo, o.path, o.kind, o.line))
        outcomes += result[0]
        flagged += result[1]
    counted = [o for o in outcomes if not o.equivalent]
    total, hits = Counter(o.kind for o in counted), Counter(o.kind for o in counted if o.reported)
    in_file = Counter(o.kind for o in counted if o.findings)
    equiv = Counter(o.kind for o in outcomes if o.equivalent)
    print(f"\n{'mutation':<20} {'reported':>9} {'mutants':>8} {'recall':>7} {'in file':>8} {'recall':>7} {'equivalent (left out)':>22}")
    for kind in (*KINDS, "all"):
        h, f, n, e = (
            (sum(hits.values()), sum(in_file.values()), sum(total.values()), sum(equiv.values())) if kind == "all"
            else (hits[kind], in_file[kind], total[kind], equiv[kind])
        )
        print(f"{kind:<20} {h:>9} {n:>8} {h / n if n else 0:>7.2f} {f:>8} {f / n if n else 0:>7.2f} {e:>22}")
    print(f"(reported: a new AMP1xx finding within {NEAR} lines of the mutation or at the step, later scaler call, clip or backward the mutant leaves wrong; in file: one anywhere in the mutated file)")
    for label, group in (("the 35 original repositories", True), ("the repositories added for issue 17", False)):
        part = [o for o in counted if BY_NAME[o.repo].original is group]
        if part:
            print(f"{label}: {sum(o.reported for o in part)}/{len(part)} = {sum(o.reported for o in part) / len(part):.2f}")
    per_repo = defaultdict(lambda: [0, 0])
    for o in counted:
        per_repo[o.repo][0] += o.reported
        per_repo[o.repo][1] += 1
    print(f"\n{len(per_repo)} repositories with mutants, {len({(o.repo, o.path) for o in counted})} files")
    print(f"\nequivalent mutants, left out ({sum(equiv.values())}):")
    for o in outcomes:
        if o.equivalent:
            print(f"  {o.repo} {o.path}:{o.line} {o.kind}: {o.equivalent}")
    misses = [o for o in counted if not o.reported]
    print(f"\nmissed ({len(misses)}):")
    for o in misses:
        print(f"  {o.repo} {o.path}:{o.line} {o.kind} new: {' '.join(o.findings) or '-'}")
        if args.verbose:
            print(o.excerpt)
    print(f"\nAMP1xx findings on the originals ({len(flagged)}):")
    for line in flagged:
        print("  " + line)
    if missing:
        print(f"\nnot mutated (no snapshot{', or no kept result' if args.kept_only else ''}): {', '.join(missing)}")
    if args.json:
        args.json.write_text(json.dumps({"outcomes": [asdict(o) for o in outcomes], "flagged": flagged, "missing": missing}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
