"""What an object is to the scaler protocol: a GradScaler, an optimizer, a model, a framework
receiver. The one place every facet and rule asks; it reads no tree, only qualified names
and the shapes of calls, so every layer may import it.

A **GradScaler** is an object the analysis can trace to one of SCALER_CLASSES:

- its construction calls one of them (`torch.amp.GradScaler("cuda")`, `torch.cuda.amp`'s,
  `torch.cpu.amp`'s, FSDP1's `ShardedGradScaler`, fairscale's, torch_xla's), or a project class whose
  bases reach one through the project's class hierarchy (`base_kind`);
- an annotation names one (`scaler: GradScaler | None`): maybe on, since it may be None;
- a caller in the project passes one (the step sequences replay a function with its
  callers' arguments; a parameter every caller passes as a literal `None` is none);
- its use is one only a GradScaler has (`scaler_use`): `x.unscale_(optimizer)` (a method of
  that name taking an optimizer is GradScaler's own), `x.scale(v)` whose value is
  back-propagated (`x.scale(loss).backward()`, or stored and later back-propagated), or
  both `x.step(optimizer)` (an optimizer its only argument) and `x.update()` (no argument)
  on one receiver in one scope: the protocol itself (a scheduler's `step()` takes no
  optimizer; a project loss scaler whose class the project holds is what its class says).
  Known only from use it is "maybe" on: messages say "when the scaler is enabled". A
  receiver with any attribute a GradScaler lacks (`accel.backward(loss)`, `accel.scaler`:
  GRAD_SCALER_ATTRIBUTES) is no GradScaler, whatever else its use looks like.
- what a function returns that the project cannot follow to a class (Hydra's
  `instantiate(cfg.amp.scaler)`, a registry's build): one when its use is a call only a
  GradScaler makes (`unscale_(optimizer)`, a scaled backward), maybe on; made outside the
  project it is a new object its holder keeps, like one constructed there. `step(optimizer)`
  with `update()` alone is no evidence here (a registry-built loss-scaler wrapper's protocol).

No evidence: a name containing "scaler" (a time-series `MeanScaler`, a feature scaler), a
method `scale(...)` alone (attention scales, image rescaling), `step(...)`/`update(...)`
alone (schedulers, a project's own loss-scaler class with `update(found_inf)` or a `step()`
that takes no optimizer, which is no GradScaler and whose protocol is its own).

An **optimizer** is a `torch.optim` class, a project subclass of `torch.optim.Optimizer`, a
well-known third-party optimizer or factory by its name (OPTIMIZER_NAMES), or an unknown
value named like one (`optimizer`, `opt_g`): the name decides for optimizers only, whose
methods (`step()`, `zero_grad()`) a GradScaler protocol check needs to see anyway.

A **framework receiver** (`accelerator`, a DeepSpeed engine, a Lightning trainer, an
optimizer wrapper) runs the backward, the scaling and the clipping itself: its
`backward(loss)` scales, its `clip_grad_norm_` unscales first.
"""
from __future__ import annotations

import re
from typing import Optional

SCALER_CLASSES = frozenset(
    {
        "torch.GradScaler",  # torch's top-level alias of torch.amp.GradScaler
        "torch.amp.GradScaler",
        "torch.amp.grad_scaler.GradScaler",
        "torch.cuda.amp.GradScaler",
        "torch.cuda.amp.grad_scaler.GradScaler",
        "torch.cpu.amp.GradScaler",
        "torch.cpu.amp.grad_scaler.GradScaler",
        "torch.distributed.fsdp.ShardedGradScaler",
        "torch.distributed.fsdp.sharded_grad_scaler.ShardedGradScaler",
        "fairscale.optim.grad_scaler.ShardedGradScaler",
        "fairscale.optim.GradScaler",
        "fairscale.optim.grad_scaler.GradScaler",
        # torch_xla's subclass of torch.cuda.amp.GradScaler: the same state machine, only the
        # skipped step done another way (torch_xla/amp/grad_scaler.py)
        "torch_xla.amp.GradScaler",
        "torch_xla.amp.grad_scaler.GradScaler",
    }
)
# The class names a star import (`from torch.cuda.amp import *`) leaves unresolved.
SCALER_CLASS_NAMES = frozenset(q.rsplit(".", 1)[1] for q in SCALER_CLASSES)
SCALER_ANNOTATION = re.compile(r"\b(Sharded)?GradScaler\b")

_BASES = {
    "torch.nn.Module": "model",
    "torch.nn.modules.module.Module": "model",
    "torch.optim.Optimizer": "optimizer",
    "torch.optim.optimizer.Optimizer": "optimizer",
    **{q: "scaler" for q in SCALER_CLASSES},
}

OPTIMIZER_NAMES = frozenset(
    {
        "SGD", "Adam", "AdamW", "Adamax", "Adagrad", "Adadelta", "ASGD", "LBFGS", "NAdam", "RAdam",
        "RMSprop", "Rprop", "SparseAdam", "Adafactor", "FusedAdam", "FusedLAMB", "FusedSGD",
        "Lamb", "LAMB", "Lion", "AdamW8bit", "Adam8bit", "PagedAdamW", "PagedAdamW8bit",
        "Muon", "SophiaG", "Shampoo", "AdaBelief", "Ranger", "create_optimizer",
        "create_optimizer_v2", "build_optimizer", "configure_optimizers",
    }
)
# Optimizers whose update divides the gradient by a running measure of its own size (Adam's
# second moment, Adagrad's and RMSprop's sums of squares) or takes only its sign (Rprop, Lion):
# a constant factor on every gradient leaves the step as it was (up to `eps`).
SCALE_INVARIANT_OPTIMIZERS = frozenset(
    {
        "Adam", "AdamW", "Adamax", "NAdam", "RAdam", "SparseAdam", "Adagrad", "RMSprop", "Rprop", "Lion",
        "FusedAdam", "AdamW8bit", "Adam8bit", "PagedAdamW", "PagedAdamW8bit",
    }
)


def scale_invariant_optimizer(qualname: Optional[str]) -> bool:
    """Whether an optimizer class (by its qualified name) steps alike on gradients multiplied
    by one constant."""
    return qualname is not None and qualname.rpartition(".")[2] in SCALE_INVARIANT_OPTIMIZERS


# ("opts" is options, not optimizers)
OPTIMIZER_NAME = re.compile(r"(^|_)(opt|optims?|optimi[sz]ers?)(_|$|\d)|optimi[sz]er", re.I)

_FRAMEWORK_CLIPPER = re.compile(r"accelerator|fabric|engine|trainer|runner|wrapper|optim|strategy", re.I)
_FRAMEWORK_BACKWARD = ("accelerator", "engine", "fabric", "model", "trainer", "wrapper", "runner")


def is_scaler_class(qualname: Optional[str]) -> bool:
    """A GradScaler class by its qualified name."""
    return qualname in SCALER_CLASSES


def plain_cuda_scaler(qualname: Optional[str]) -> bool:
    """A GradScaler for CUDA that is not sharded: what FSDP1's sharded gradients need
    `ShardedGradScaler` instead of (AMP206)."""
    return is_scaler_class(qualname) and "Sharded" not in (qualname or "") \
        and not (qualname or "").startswith(("torch.cpu.", "torch_xla."))


def sharded_scaler(qualname: Optional[str]) -> bool:
    """A sharded GradScaler (FSDP1's or fairscale's), which FSDP1's sharded gradients need."""
    return is_scaler_class(qualname) and "Sharded" in (qualname or "")


def base_kind(qualname: str) -> Optional[str]:
    """"model", "optimizer" or "scaler" for a base class a project class may derive from."""
    kind = _BASES.get(qualname)
    if kind is None and qualname.endswith(("nn.Module", ".Module")) and "torch" in qualname:
        return "model"
    last = qualname.rpartition(".")[2]
    if kind is None and last[:1].isupper() and is_optimizer_class(qualname, last):
        return "optimizer"  # a subclass of torch's SGD (`from torch.optim.sgd import SGD`), of apex's FusedAdam
    return kind


# What `torch.optim` holds beside optimizers: LR schedulers, and SWA's averaged model and its
# scheduler (`torch.optim.swa_utils.SWALR`).
_TORCH_OPTIM_NON_OPTIMIZERS = ("torch.optim.lr_scheduler", "torch.optim.swa_utils")


def is_optimizer_class(qualname: Optional[str], last: Optional[str]) -> bool:
    """A constructor or factory of an optimizer: `torch.optim.<Capitalized>` (not an LR
    scheduler, not SWA's helpers), or a well-known optimizer or factory by its name."""
    if qualname is not None and qualname.startswith("torch.optim."):
        return not qualname.startswith(_TORCH_OPTIM_NON_OPTIMIZERS) and (last or "")[:1].isupper()
    return last in OPTIMIZER_NAMES


def is_lr_scheduler_class(qualname: Optional[str]) -> bool:
    """A torch LR scheduler class: its `step()` steps the learning rate, not the parameters."""
    return qualname is not None and (qualname.startswith("torch.optim.lr_scheduler.") or qualname == "torch.optim.swa_utils.SWALR")


def named_like_optimizer(name: str) -> bool:
    """`optimizer`, `opt_g`, `optimizers`; not an LR scheduler named after one."""
    return bool(OPTIMIZER_NAME.search(name)) and "sched" not in name.lower()


def scaler_use(method: str, args: int) -> bool:
    """Whether calling `method` with `args` positional arguments on an unknown receiver is
    evidence that it is a GradScaler: `unscale_(optimizer)` is. (`scale(x)` is only when its
    value is back-propagated, which the caller checks.)"""
    return method == "unscale_" and args >= 1


# What a GradScaler has (torch/amp/grad_scaler.py): an object with any other attribute
# (`accel.backward(loss)`, `accel.autocast()`, `accel.scaler`) is no GradScaler, whatever
# else its use looks like.
GRAD_SCALER_ATTRIBUTES = frozenset(
    {
        "scale", "unscale_", "step", "update", "get_scale", "get_growth_factor", "set_growth_factor",
        "get_backoff_factor", "set_backoff_factor", "get_growth_interval", "set_growth_interval",
        "is_enabled", "state_dict", "load_state_dict", "__getstate__", "__setstate__",
    }
)


def scaler_attribute(name: str) -> bool:
    """Whether a GradScaler (or a subclass, whose own helpers are private) has `name`."""
    return name in GRAD_SCALER_ATTRIBUTES or name.startswith("_")


def scaler_shaped(method: str, args: int) -> bool:
    """A call that may be a GradScaler's, whatever the receiver turns out to be (what a
    caller hands in decides): `unscale_(opt)`, `step(opt)`, `update()`, `update(new_scale)`,
    `scale(loss)`. Used to find the code whose meaning depends on its callers."""
    return (method in ("unscale_", "step", "scale") and args >= 1) or (method == "update" and args <= 1)


def framework_clipper(receiver: str) -> bool:
    """A receiver whose `clip_grad_norm_` unscales first (accelerate, Fabric, DeepSpeed
    engines, fairseq's and mmengine's optimizer wrappers)."""
    return bool(_FRAMEWORK_CLIPPER.search(receiver))


# The nn.Module methods that return the module itself, so a chain of them names the one module
# (`Net().to(device).train()`): moves and mode switches keep its parameters' dtype, the casts
# change it in place (the same parameters, now fp16).
MODULE_MOVES = frozenset({"to", "cuda", "cpu", "train", "eval", "requires_grad_"})
MODULE_CASTS = frozenset({"half", "float", "bfloat16", "double"})
MODULE_CHAIN = MODULE_MOVES | MODULE_CASTS


_CUDA_GRAPH_CLASSES = frozenset({"torch.cuda.CUDAGraph", "torch.cuda.graphs.CUDAGraph"})


def replays_captured_work(qualname: Optional[str]) -> bool:
    """A CUDA graph: its `replay()` runs again the kernels captured under `torch.cuda.graph(g)`,
    a forward and a (scaled) backward included, without any Python code of them running."""
    return qualname in _CUDA_GRAPH_CLASSES


def framework_backward(receiver: Optional[str]) -> bool:
    """A receiver whose `backward(loss)` runs the scaling itself (`accelerator.backward(loss)`,
    a DeepSpeed `engine.backward(loss)`), told from a tensor (`loss`, `out.sum()`)."""
    last = (receiver or "").rsplit(".", 1)[-1].lower()
    return last == "self" or any(w in last for w in _FRAMEWORK_BACKWARD)
