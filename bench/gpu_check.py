"""Check the tracer on a CUDA machine: the transformer fixture under fp16 and bf16 autocast.

    python bench/gpu_check.py [--require-cuda]

Checks, for each dtype: matmuls (addmm/mm) and attention run in the autocast dtype; layer_norm
and an explicit softmax run in float32 (CUDA autocast's fp32 policy, unlike CPU's) and are
recorded as running as the policy says; forward matmul coverage is 100%; backward ops are
attributed to modules; the policy table matches `AutocastCUDA`'s registrations and the report
says AutocastCUDA judged the run; traced training is bitwise identical to untraced.
Tensor Cores: a vocabulary projection of 50257 is recorded as misaligned (AMP509) and one of
50304 as aligned, and the misaligned one is timed against the aligned one (printed, not
checked). fp32 comparison: the clean transformer stays under 2% with no AMP510; the
cancelling normaliser (fixtures/models/naive_variance.py) is named by AMP510; a dropout's
rerun draws the autocast call's mask; training with dropout, batch norm and a GradScaler
under `compare_fp32=True` is bitwise identical to untraced, RNG included. Compiled code
(`check_compiled`, device-generic): the torch.compile'd MLP (inductor) traced compiled compiles
as many graphs as untraced and trains bitwise identically; its matmul kernels are recorded
compiled in the autocast dtype; the forward and backward graphs as compiled are captured, and
their matmul FLOPs run in the autocast dtype. Float8 (torchao's `convert_to_float8_training`,
compute capability 8.9 or newer, skipped with a line saying why otherwise): the float8 linears
are recorded as `_scaled_mm` on float8_e4m3fn (e5m2 gradients) with a bf16 output and never as
the wrapper's bf16 `mm`; the fp8 share of matmul FLOPs is the one the same model has on CPU;
the linear left out (64 -> 10) is named; rowwise scaling is read as rowwise; traced float8
training is bitwise identical to untraced. Prints one line per check.

Exit status: 0 all checks passed; 1 a check failed (each failure printed with what was seen);
without a CUDA device it prints "no CUDA device: nothing checked" and exits 0, or 2 with
`--require-cuda` (use that where a GPU is expected, so a missing one cannot pass silently).
"""
from __future__ import annotations

import argparse
import contextlib
import importlib.util
import sys
from pathlib import Path

import torch

import ampcheck
from ampcheck.trace.policy import REGISTERED

ROOT = Path(__file__).resolve().parent.parent
DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16}


def _fixture(name: str):
    path = ROOT / "fixtures" / "models" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"fixture_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Checks:
    def __init__(self) -> None:
        self.failed = 0

    def check(self, label: str, ok: bool, seen: object = "") -> None:
        print(f"{'ok  ' if ok else 'FAIL'} {label}" + ("" if ok else f": saw {seen}"))
        self.failed += not ok


def check_dtype(checks: Checks, name: str, dtype: torch.dtype) -> None:
    build = _fixture("transformer").build
    step = build(dtype=dtype, device="cuda", seed=0)
    probe = torch.nn.Linear(32, 32).cuda()
    x = torch.randn(4, 32, device="cuda")
    with ampcheck.trace() as t:
        step()
        with torch.autocast("cuda", dtype=dtype):
            torch.softmax(probe(x), dim=-1)
    report = t.report
    fwd = [r for r in report.ops if r.phase == "forward" and r.autocast]

    def seen(op: str) -> list:
        return sorted({(r.out_dtype, r.autocast, r.ran_as_policy) for r in fwd if r.name == op})

    mm = [r for r in fwd if r.name in ("addmm", "mm", "bmm")]
    checks.check(f"{name}: matmuls run in {name}", bool(mm) and all(r.out_dtype == name for r in mm), seen("addmm"))
    attn = [r for r in fwd if "attention" in r.name]
    checks.check(f"{name}: attention runs in {name}", bool(attn) and all(r.out_dtype == name for r in attn),
                 sorted({(r.name, r.out_dtype) for r in attn}))
    for op in ("native_layer_norm", "_softmax"):
        rows = [r for r in fwd if r.name == op]
        ok = bool(rows) and all(r.out_dtype == "float32" and r.policy == "fp32" and r.ran_as_policy for r in rows)
        checks.check(f"{name}: {op} runs in float32 (CUDA fp32 policy)", ok, seen(op))
    coverage = report.coverage()
    checks.check(f"{name}: forward matmul coverage 100%", coverage["forward"]["share"] == 1.0, coverage["forward"])
    backward = {r.module for r in report.ops if r.phase == "backward" and r.flops}
    checks.check(f"{name}: backward matmuls attributed to modules", None not in backward and bool(backward), backward)
    checks.check(f"{name}: no findings on the clean fixture", report.findings() == [],
                 [f.code for f in report.findings()])

    plain = build(dtype=dtype, device="cuda", seed=1)
    traced = build(dtype=dtype, device="cuda", seed=1)
    a = [plain() for _ in range(2)]
    with ampcheck.trace():
        b = [traced() for _ in range(2)]
    same = all(torch.equal(x, y) for x, y in zip(a, b)) and all(
        torch.equal(p, q) for p, q in zip(plain.model.parameters(), traced.model.parameters()))
    checks.check(f"{name}: traced training bitwise identical to untraced", same)
    checks.check(f"{name}: the report says AutocastCUDA judged the run",
                 report.meta["policy"]["devices"].get("cuda") == "AutocastCUDA", report.meta["policy"])


def _ms(fn, repeat: int = 20) -> float:
    fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(repeat):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / repeat


def check_tensor_cores(checks: Checks, name: str, dtype: torch.dtype) -> None:
    tokens = torch.randn(4096, 768, device="cuda")
    heads = {vocab: torch.nn.Linear(768, vocab).cuda() for vocab in (50257, 50304)}
    for vocab, head in heads.items():
        with ampcheck.trace() as t, torch.autocast("cuda", dtype=dtype):
            head(tokens)
        (addmm,) = [r for r in t.report.ops if r.name == "addmm"]
        found = [f.code for f in t.report.findings()]
        aligned = vocab % 64 == 0
        checks.check(f"{name}: vocabulary {vocab} recorded as {'aligned' if aligned else 'misaligned (AMP509)'}",
                     addmm.tensor_core_aligned is aligned and (found == [] if aligned else found == ["AMP509"]),
                     (addmm.misaligned_shapes, found))
    with torch.no_grad(), torch.autocast("cuda", dtype=dtype):
        times = {vocab: _ms(lambda h=head: h(tokens)) for vocab, head in heads.items()}
    print(f"info {name}: 4096x768 @ 768xV: V=50257 {times[50257]:.3f} ms, V=50304 {times[50304]:.3f} ms "
          f"(per column {times[50257] / 50257 / (times[50304] / 50304):.2f}x the padded one)")


def check_compare_fp32(checks: Checks, name: str, dtype: torch.dtype) -> None:
    step = _fixture("transformer").build(dtype=dtype, device="cuda", seed=0)
    with ampcheck.trace(compare_fp32=True) as t:
        step()
        step()
    modules = t.report.sections["compare_fp32"]["modules"]
    worst = max((m["max_rel_error"] for m in modules), default=None)
    checks.check(f"{name}: compare-fp32 on the transformer: every module compared, under 2%, no AMP510",
                 bool(modules) and all(m["calls"] == 2 for m in modules) and worst < 0.02
                 and not t.report.findings(select=["AMP510"]), worst)

    step = _fixture("naive_variance").build(dtype=dtype, device="cuda", seed=0)
    with ampcheck.trace(compare_fp32=True) as t:
        step()
    blamed = [f.extra["module"] for f in t.report.findings(select=["AMP510"])]
    checks.check(f"{name}: compare-fp32 names the cancelling normaliser (AMP510 on `norm`)", blamed == ["norm"], blamed)

    build = _fixture("dropout_bn").build

    def train(context) -> tuple:
        step = build(dtype=dtype, device="cuda", seed=3)
        with context:
            losses = [step() for _ in range(3)]
        return losses, [v.clone() for v in step.model.state_dict().values()], torch.cuda.get_rng_state(), step

    plain = train(contextlib.nullcontext())
    traced = train(ampcheck.trace(compare_fp32=True))
    same = (all(torch.equal(a, b) for a, b in zip(plain[0], traced[0]))
            and all(torch.equal(a, b) for a, b in zip(plain[1], traced[1])) and torch.equal(plain[2], traced[2]))
    checks.check(f"{name}: compare-fp32 training (dropout, batch norm, scaler) bitwise identical to untraced", same)
    with ampcheck.trace(compare_fp32=True) as t:
        traced[3]()
    drop = next(m for m in t.report.sections["compare_fp32"]["modules"] if m["module"] == "drop")
    checks.check(f"{name}: the dropout's fp32 rerun draws the autocast call's mask (error under 1%)",
                 drop["max_rel_error"] < 0.01, drop["max_rel_error"])


FLOAT8_CAPABILITY = (8, 9)  # Ada / Hopper: the first GPUs with float8 matmuls


def float8_skip_reason(device: str) -> "str | None":
    """Why the float8 checks cannot run here, or None when they can."""
    if importlib.util.find_spec("torchao") is None:
        return "torchao is not installed (pip install -c constraints.txt -e '.[float8]')"
    if device == "cuda" and torch.cuda.get_device_capability() < FLOAT8_CAPABILITY:
        major, minor = torch.cuda.get_device_capability()
        return f"float8 matmuls need compute capability 8.9 or newer; this GPU has {major}.{minor}"
    return None


def check_float8(checks: Checks, device: str) -> None:
    reason = float8_skip_reason(device)
    if reason is not None:
        print(f"skip float8: {reason}")
        return
    build = _fixture("float8_mlp").build
    step = build(device=device, seed=0)
    with ampcheck.trace() as t:
        step()
    report = t.report
    scaled = [r for r in report.ops if r.name == "_scaled_mm"]
    forward = {(r.in_dtypes[:2], r.out_dtype) for r in scaled if r.phase == "forward"}
    backward = {r.in_dtypes[0] for r in scaled if r.phase == "backward"}
    checks.check("float8: forward _scaled_mm on float8_e4m3fn with a bfloat16 output",
                 forward == {(("float8_e4m3fn", "float8_e4m3fn"), "bfloat16")}, forward)
    checks.check("float8: backward _scaled_mm on float8_e5m2 gradients", "float8_e5m2" in backward, backward)
    wrapped = sorted({(r.name, r.module) for r in report.ops
                      if r.module in ("fc1", "fc2") and r.name in ("mm", "addmm")})
    checks.check("float8: no bf16 mm recorded for the float8 linears", wrapped == [], wrapped)
    cpu = build(device="cpu", seed=0)
    with ampcheck.trace() as on_cpu:
        cpu()
    shares = {phase: round(cov["float8_share"], 6) for phase, cov in report.coverage().items()}
    expected = {phase: round(cov["float8_share"], 6) for phase, cov in on_cpu.report.coverage().items()}
    checks.check("float8: fp8 share of matmul FLOPs as on CPU", shares == expected and all(shares.values()), shares)
    left = [row["module"] for row in report.sections["float8"]["linears"] if not row["float8"]]
    checks.check("float8: the linear left out of float8 is named", left == ["head"], left)
    with ampcheck.trace() as t:
        build(device=device, seed=0, recipe="rowwise")()
    recipes = {c["recipe"] for c in t.report.sections["float8"]["scaled_mm"] if c["phase"] == "forward"}
    checks.check("float8: rowwise scaling recorded as rowwise", recipes == {"rowwise"}, recipes)
    plain, traced = build(device=device, seed=1), build(device=device, seed=1)
    a = [plain() for _ in range(2)]
    with ampcheck.trace():
        b = [traced() for _ in range(2)]
    same = all(torch.equal(x, y) for x, y in zip(a, b)) and all(
        torch.equal(p, q) for p, q in zip(plain.model.parameters(), traced.model.parameters()))
    checks.check("float8: traced training bitwise identical to untraced", same)


def check_compiled(checks: Checks, name: str, dtype: torch.dtype, device: str) -> None:
    """The compiled path on `device` (any device inductor compiles for)."""
    import torch._dynamo.testing

    build = _fixture("mlp").build
    results = {}
    for traced in (False, True):
        torch._dynamo.reset()
        counter = torch._dynamo.testing.CompileCounterWithBackend("inductor")
        step = build(dtype=dtype, device=device, seed=0, compile=counter)
        with ampcheck.trace() if traced else contextlib.nullcontext() as t:
            losses = [step() for _ in range(3)]
        results[traced] = (counter.frame_count, losses, [p.detach().clone() for p in step.model.parameters()], t)
    (frames, losses, params, _), (tframes, tlosses, tparams, t) = results[False], results[True]
    checks.check(f"{name} {device}: compiled under the trace: as many graphs as untraced", frames == tframes,
                 (frames, tframes))
    same = all(torch.equal(a, b) for a, b in zip(losses + params, tlosses + tparams))
    checks.check(f"{name} {device}: traced compiled training bitwise identical to untraced", same)
    report = t.report
    graphs = report.sections.get("compiled", {}).get("graphs", [])
    checks.check(f"{name} {device}: forward and backward graphs captured as compiled",
                 {g["phase"] for g in graphs} == {"forward", "backward"}, [g["phase"] for g in graphs])
    matmuls = {op["out_dtype"] for g in graphs for op in g["ops"] if op["flops"]}
    checks.check(f"{name} {device}: matmuls as compiled run in {name}", matmuls == {name}, matmuls)
    kernels = {(r.phase, r.out_dtype) for r in report.ops if r.compiled and r.flops}
    checks.check(f"{name} {device}: matmul kernels the compiled code ran recorded compiled in {name}",
                 kernels == {("forward", name), ("backward", name)}, kernels)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--require-cuda", action="store_true", help="exit 2 when there is no CUDA device")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("no CUDA device: nothing checked")
        return 2 if args.require_cuda else 0
    print(f"# {torch.cuda.get_device_name()} torch {torch.__version__}")
    checks = Checks()
    registered = {op.removeprefix("aten::")
                  for op in torch._C._dispatch_get_registrations_for_dispatch_key("AutocastCUDA")}
    checks.check("policy table matches AutocastCUDA registrations", registered == set(REGISTERED["cuda"]),
                 sorted(registered ^ set(REGISTERED["cuda"])))
    for name, dtype in DTYPES.items():
        if dtype is torch.bfloat16 and not torch.cuda.is_bf16_supported():
            print(f"skip {name}: not supported on this GPU")
            continue
        check_dtype(checks, name, dtype)
        check_tensor_cores(checks, name, dtype)
        check_compare_fp32(checks, name, dtype)
        check_compiled(checks, name, dtype, "cuda")
    check_float8(checks, "cuda")
    print(f"{'all checks passed' if not checks.failed else f'{checks.failed} check(s) failed'}")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
