"""How a hidden test's call is carried out on a student function: move tensors to the device, call,
optionally run a backward pass, bring tensors back to the CPU. Used inside the sandboxed worker and by
`TrustedNamespace` (tests run against the reference in-process), so both behave the same."""
from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator, Sequence

import torch
from torch.overrides import TorchFunctionMode


class ForbiddenAPIError(RuntimeError):
    """Raised inside the student's code when it calls an API the assignment forbids."""


# Every torch op of a graded call passes through the guard: decide once per (rules, function).
_VERDICTS: dict[Any, str | None] = {}

# torch's own kernels behind a public API, under names that do not contain it: forbidding the API forbids them
# too (`torch._scaled_dot_product_flash_attention_for_cpu`, `torch._native_multi_head_attention`: a notebook that
# called the first where F.scaled_dot_product_attention was forbidden had full marks, red-team round 46)
KERNELS_OF: dict[str, tuple[str, ...]] = {
    "scaled_dot_product_attention": ("scaled_dot_product", "flash_attention", "efficient_attention",
                                     "cudnn_attention", "fused_attention", "multi_head_attention",
                                     "scaled_dot_attention",
                                     # torch.nn.attention's other built-in attentions: flex_attention runs eagerly
                                     # under TORCHDYNAMO_DISABLE (the guard sees its higher-order op by that name),
                                     # and a notebook computing q5 with it scored 33/35 where sdpa itself gets 19
                                     # (red-team round 77); varlen_attn is the same on CUDA
                                     "flex_attention", "varlen_attn"),
    # the built-in (log-)softmax behind a loss: F.cross_entropy's gradient is softmax(x) - one_hot(target), so a
    # stable_softmax written as that gradient plus the one-hot passed q3's no-built-in-softmax rule (round 77)
    "softmax": ("cross_entropy", "crossentropy"),
}


def forbidden_names(apis: Sequence[str]) -> tuple[str, ...]:
    """The names a forbidden API stands for, as parts of a function's name: itself and its kernels (KERNELS_OF).
    The worker's guard and the hidden tests' static rule (checks.assert_function_avoids) refuse the same ones."""
    return tuple(dict.fromkeys(n for api in apis for n in (api, *KERNELS_OF.get(api, ()))))


def unknown_forbidden_apis(apis: Sequence[str]) -> list[str]:
    """The entries of `apis` (grading.yml's forbidden_apis) the guard could never match, each with why: the guard
    refuses a torch function whose name contains an entry, so an entry that is part of no name torch, its functional,
    linalg, special and fft modules or a tensor's methods carry (`scaled_dot_product_atention`, `F.softmax`, `""`
    matching everything) forbids nothing, or everything, without a word (red-team round 91)."""
    import difflib
    modules = (torch, torch.nn.functional, torch.Tensor, torch.linalg, torch.special, torch.fft, torch._C._nn,
               torch._C._VariableFunctions)
    known = {n for m in modules for n in dir(m)} | {k for kernels in KERNELS_OF.values() for k in kernels}
    problems = []
    for api in apis:
        if not api.isidentifier():
            problems.append(f"'{api[:80]}' is not a function's name (write it alone: scaled_dot_product_attention, "
                            "not F.scaled_dot_product_attention)")
        elif not any(api in name for name in known):
            close = difflib.get_close_matches(api, sorted(n for n in known if not n.startswith("_")), n=1)
            problems.append(f"'{api}' is part of no torch function's name, so it would forbid nothing"
                            + (f" (did you mean {close[0]}?)" if close else ""))
    return problems


_DEFAULT_HANDLER = getattr(torch.Tensor.__torch_function__, "__func__", None)   # the classmethod's function
_DISABLED_HANDLER = torch._C._disabled_torch_function_impl                       # nn.Parameter's: torch's own


class ForbiddenAPIGuard(TorchFunctionMode):
    """Armed around each graded call: any torch function whose name contains a forbidden name raises.

    It catches `F.scaled_dot_product_attention`, `torch._C._nn...` and `torch.ops.aten...` alike, and the
    API's own kernels under other names (KERNELS_OF), however the student reached them (getattr with a built
    string included). It sees Python calls only: popping the mode and TorchScript compiled from a string get
    past it, and a notebook that names either is refused before it runs (source_checks.reaches_into_grader)."""

    def __init__(self, forbidden: Sequence[str]) -> None:
        super().__init__()
        self.forbidden = forbidden_names(forbidden)

    def _forbidden_name(self, func: Any) -> str | None:
        name = f"{getattr(func, '__name__', '')} {func}"
        return next((bad for bad in self.forbidden if bad in name), None)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        # A mode steps aside while its own handler runs, so a tensor subclass's __torch_function__, which `func`
        # dispatches to, would run unguarded: whatever it calls (the fused kernel, on `detach` while the reply is
        # encoded: red-team round 47). nn.Parameter (torch's disabled handler) and subclasses that keep torch's
        # default handler pass; one with a handler of its own is refused.
        for t in types:
            handler = getattr(t, "__torch_function__", None)
            if handler is not _DISABLED_HANDLER and getattr(handler, "__func__", None) is not _DEFAULT_HANDLER:
                raise ForbiddenAPIError(f"a tensor subclass with a __torch_function__ of its own "
                                        f"({getattr(t, '__name__', '?')[:40]}) is not allowed in this assignment's "
                                        "graded code: the grader cannot see what it calls")
        key = (self.forbidden, func)
        try:
            bad = _VERDICTS[key]
        except (KeyError, TypeError):  # TypeError: an unhashable callable
            bad = self._forbidden_name(func)
            try:
                _VERDICTS[key] = bad
            except TypeError:
                pass
        if bad is not None:
            raise ForbiddenAPIError(f"{bad} is not allowed in this assignment")
        return func(*args, **(kwargs or {}))


def to_device(value: Any, device: str) -> Any:
    if type(value) is torch.Tensor:
        return _moved(value, device)
    if isinstance(value, (list, tuple)):
        return type(value)(to_device(v, device) for v in value)
    if isinstance(value, dict):
        return {k: to_device(v, device) for k, v in value.items()}
    return value


def _moved(t: torch.Tensor, device: str) -> torch.Tensor:
    """`t` on `device` with its layout: `.to` keeps the strides of a transposed view but makes a strided
    slice or an expanded (stride-0) tensor contiguous, and hidden tests pass those on purpose."""
    moved = t.to(device)
    if moved is t or t.is_contiguous() or moved.stride() == t.stride():
        return moved
    try:
        index = tuple(slice(0, 1) if n > 1 and s == 0 else slice(None) for n, s in zip(t.shape, t.stride()))
        base = t[index]
        out = torch.empty_strided(base.shape, base.stride(), dtype=t.dtype, device=moved.device)
        out.copy_(base)
        return out.expand(t.shape)
    except RuntimeError:   # a layout that cannot be rebuilt (overlapping strides): the values will do
        return moved


def devices_of(value: Any) -> list[str]:
    if isinstance(value, torch.Tensor):
        return [value.device.type]
    if isinstance(value, (list, tuple)):
        return [d for v in value for d in devices_of(v)]
    if isinstance(value, dict):
        return [d for v in value.values() for d in devices_of(v)]
    return []


# The in-place check and torch_defaults run in the student's interpreter after their cells: they use torch's functions as this module
# found them when the zygote imported it, before any student code. Looked up when it ran, a cell's
# `torch.Tensor.isnan = lambda self: torch.ones(...)` (or __or__, or a clone returning self) made every written input
# look unchanged: Q /= sqrt(d_k) scored 33/35 instead of 19 (red-team round 55).
_TENSOR = torch.Tensor
# and a cell may enter a TorchFunctionMode of its own and never leave it: every torch call, the check's too, would
# pass through the student's code; the check runs with none (nor the guard, a mode too, which looks methods up)
_NO_TORCH_FUNCTION = torch._C.DisableTorchFunction
_SHAPE: Any = torch.Tensor.shape     # TensorBase's getset descriptors (typed as their values)
_DTYPE: Any = torch.Tensor.dtype
_DETACH, _CLONE = torch.Tensor.detach, torch.Tensor.clone
_EQ, _OR, _AND = torch.Tensor.__eq__, torch.Tensor.__or__, torch.Tensor.__and__
_ISNAN, _ALL, _BOOL = torch.Tensor.isnan, torch.Tensor.all, torch.Tensor.__bool__
_IS_FLOAT, _IS_COMPLEX, _EQUAL = torch.Tensor.is_floating_point, torch.Tensor.is_complex, torch.equal
_GET_DEFAULT_DTYPE, _SET_DEFAULT_DTYPE, _ENABLE_GRAD = torch.get_default_dtype, torch.set_default_dtype, torch.enable_grad
_GET_DEFAULT_DEVICE = torch.get_default_device
_CPU_DEVICE = torch.device("cpu")
# torch's float32 precision of matmuls, convolutions and RNNs (oneDNN on the CPU, cuBLAS/cuDNN on CUDA), as (backend,
# op) pairs, parents first (a parent's setter rewrites its children): process-wide, like the default dtype. A notebook's
# `torch.set_float32_matmul_precision("medium")` (the line Lightning's warning asks for) made each float32 matmul of a
# graded call a bfloat16 one on this CPU (oneDNN: 0.2 off on a 512-term product): a right attention lost 3 points of
# sdpa q5 (red-team round 83). Their values now, in the zygote before any cell ran, are a fresh caller's.
_FP32_KNOBS: tuple[tuple[str, str], ...] = (
    ("generic", "all"), ("mkldnn", "all"), ("mkldnn", "matmul"), ("mkldnn", "conv"), ("mkldnn", "rnn"),
    ("cuda", "all"), ("cuda", "matmul"), ("cuda", "conv"), ("cuda", "rnn"))
# private API (torch 2.9 on): a torch without it has no such knobs for a cell to turn, so none are kept
_GET_FP32: Callable[[str, str], str] = getattr(torch._C, "_get_fp32_precision_getter", lambda backend, op: "")
_SET_FP32: Callable[[str, str, str], None] = getattr(torch._C, "_set_fp32_precision_setter", lambda backend, op, value: None)
if not hasattr(torch._C, "_set_fp32_precision_setter"):
    _FP32_KNOBS = ()
_FRESH_FP32 = tuple(_GET_FP32(backend, op) for backend, op in _FP32_KNOBS)


def invoke(fn: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any], device: str,
           grad_wrt: Sequence[int] | None = None, grad_output: torch.Tensor | None = None,
           forbidden: Sequence[str] = (), changed: list[str] | None = None) -> tuple[Any, list[str]]:
    """`_invoke`, under the forbidden-API guard; `changed`, when given, receives the names of the tensor
    inputs ("argument 0", "mask") whose values the call changed in place. The copies and the comparison are made
    outside the guard, with torch functions as imported here and no __torch_function__ mode (_same_tensor)."""
    with torch_defaults():
        args = [to_device(a, device) for a in args]
        kwargs = {k: to_device(v, device) for k, v in kwargs.items()}
        kept: list[tuple[str, torch.Tensor, torch.Tensor]] = []
        if grad_wrt is None and changed is not None:
            # copies of the tensor inputs, to see whether the call wrote into one (the caller's tensor)
            inputs = [(f"argument {i}", a) for i, a in enumerate(args)] + list(kwargs.items())
            with _NO_TORCH_FUNCTION():
                kept = [(n, t, _CLONE(_DETACH(t))) for n, t in inputs if type(t) is _TENSOR]
        if forbidden:
            with ForbiddenAPIGuard(forbidden):
                result = _invoke(fn, args, kwargs, grad_wrt, grad_output)
        else:
            result = _invoke(fn, args, kwargs, grad_wrt, grad_output)
        if changed is not None and kept:
            with _NO_TORCH_FUNCTION():
                changed.extend(n for n, t, copy in kept if not _same_tensor(copy, _DETACH(t)))
        return result


@contextlib.contextmanager
def torch_defaults() -> Iterator[None]:
    """A graded call runs as a fresh caller's would: float32 the default dtype, gradients recorded. A notebook's
    `torch.set_default_dtype(torch.float64)` or `torch.set_grad_enabled(False)` at its top changed what the hidden
    tests' calls drew or could differentiate: a right entropy_table was told draws_in_float64 (it names no dtype),
    a right attention failed the gradient test (red-team round 57). Also torch's float32 matmul precision as a fresh
    process has it, and the CPU the default device (red-team round 83: `torch.set_default_device(...)` in a cell made
    the graded call's own tensors there). The notebook's own settings come back after."""
    dtype = _GET_DEFAULT_DTYPE()
    precision = tuple(_GET_FP32(backend, op) for backend, op in _FP32_KNOBS)
    _SET_DEFAULT_DTYPE(torch.float32)
    for (backend, op), fresh in zip(_FP32_KNOBS, _FRESH_FP32):
        _SET_FP32(backend, op, fresh)
    # a mode of torch's own, entered only where a cell moved the default device: it costs each torch call a
    # Python hop (the guard's is another)
    device = _CPU_DEVICE if _GET_DEFAULT_DEVICE().type != "cpu" else contextlib.nullcontext()
    try:
        with _ENABLE_GRAD(), device:
            yield
    finally:
        _SET_DEFAULT_DTYPE(dtype)
        for (backend, op), kept in zip(_FP32_KNOBS, precision):
            _SET_FP32(backend, op, kept)



def _same_tensor(before: torch.Tensor, after: torch.Tensor) -> bool:
    if _SHAPE.__get__(before) != _SHAPE.__get__(after) or _DTYPE.__get__(before) != _DTYPE.__get__(after):
        return False
    if _IS_FLOAT(before) or _IS_COMPLEX(before):
        return bool(_BOOL(_ALL(_OR(_EQ(before, after), _AND(_ISNAN(before), _ISNAN(after))))))
    return bool(_EQUAL(before, after))


def vector_jacobian_product(out: torch.Tensor, inputs: Sequence[torch.Tensor], grad_output: torch.Tensor,
                            allow_unused: bool = False) -> tuple[torch.Tensor | None, ...]:
    """What `torch.autograd.grad(out, inputs, grad_output)` returns, bit for bit, without what that call
    imports on its first use: given a grad_output tensor, torch checks its shape through
    torch.fx.experimental.symbolic_shapes, which imports sympy (0.9 s of CPU, measured with -X importtime;
    every grader and every sandbox zygote paid it, or preloaded it, where a hidden test took gradients).
    The backward pass of sum(out * g) hands g, times an exact 1, to out's own backward: the same values.
    A shape that differs fails as torch's own check fails, rather than broadcasting."""
    if grad_output.shape != out.shape:
        raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {grad_output.shape} and "
                           f"output[0] has a shape of {out.shape}.")
    return torch.autograd.grad((out * grad_output).sum(), list(inputs), allow_unused=allow_unused)


def _invoke(fn: Callable[..., Any], args: list[Any], kwargs: dict[str, Any],
            grad_wrt: Sequence[int] | None, grad_output: torch.Tensor | None) -> tuple[Any, list[str]]:
    """Call `fn` on arguments already on their device. With `grad_wrt`, return (output, [d out/d args[i]])
    instead of output.

    The second value is the list of devices of the returned tensors, before they come back."""
    if grad_wrt is None:
        out = fn(*args, **kwargs)
        return out, devices_of(out)
    for i in grad_wrt:
        args[i] = args[i].detach().requires_grad_(True)
    out = fn(*args, **kwargs)
    if not isinstance(out, torch.Tensor):
        raise TypeError(f"expected a tensor to differentiate, got {type(out).__name__}")
    g = grad_output.to(out.device, out.dtype) if grad_output is not None else torch.ones_like(out)
    grads = vector_jacobian_product(out, [args[i] for i in grad_wrt], g, allow_unused=True)
    grads_out = [None if x is None else x.detach() for x in grads]
    return (out.detach(), grads_out), devices_of(out)


# --- timing on fresh inputs -----------------------------------------------------------------------
# A timed call must not be recognisable and must not be cheaper than an honest one: every timed call
# gets inputs drawn inside the timed request from a seed sent with it (nothing to memoise, nothing to
# precompute), and the sum of the outputs comes back, so it is right only if every output was.
InputSpec = tuple[tuple[int, ...], str]  # (shape, dtype name such as "float64")


def fresh_inputs(specs: Sequence[InputSpec], gen: torch.Generator) -> list[torch.Tensor]:
    """One set of standard-normal inputs, drawn in float64 and cast (as `checks.randn` does)."""
    out = []
    for shape, dtype in specs:
        dt = getattr(torch, str(dtype), None)
        if not isinstance(dt, torch.dtype) or not dt.is_floating_point:
            raise ValueError(f"not a floating dtype: {dtype!r}")
        out.append(torch.randn(tuple(int(n) for n in shape), generator=gen, dtype=torch.float64,
                               device="cpu").to(dt))
    return out


def run_fresh_calls(fn: Callable[..., Any], specs: Sequence[InputSpec], kwargs: dict[str, Any],
                    seed: int, repeat: int, device: str = "cpu",
                    forbidden: Sequence[str] = ()) -> torch.Tensor:
    """Call `fn` `repeat` times, each on new inputs from a generator seeded with `seed`; return the
    float64 CPU sum of the outputs."""
    gen = torch.Generator().manual_seed(int(seed))
    total: torch.Tensor | None = None
    for _ in range(max(1, int(repeat))):
        args = fresh_inputs(specs, gen)
        out, _devices = invoke(fn, args, kwargs, device, forbidden=forbidden)
        if type(out) is not torch.Tensor:
            raise TypeError(f"expected a tensor, got {type(out).__name__}")
        out = out.detach().to("cpu", torch.float64)
        if total is not None and out.shape != total.shape:
            raise ValueError("the output's shape changed from one call to the next")
        total = out if total is None else total + out
    assert total is not None
    return total


def fresh_batch(specs: Sequence[InputSpec], seed: int, repeat: int) -> list[torch.Tensor]:
    """The inputs of `run_fresh_calls(fn, specs, kwargs, seed, repeat)`, drawn in the same order from
    the same generator, each position's `repeat` tensors stacked along a new leading axis."""
    gen = torch.Generator().manual_seed(int(seed))
    draws = [fresh_inputs(specs, gen) for _ in range(max(1, int(repeat)))]
    return [torch.stack([d[i] for d in draws]) for i in range(len(specs))]


def run_fresh_batched(fn: Callable[..., Any], specs: Sequence[InputSpec], kwargs: dict[str, Any],
                      seed: int, repeat: int) -> torch.Tensor:
    """`run_fresh_calls`'s sum for a trusted `fn` that treats a leading axis as one more batch axis
    (and broadcasts `kwargs` over it): one call on `fresh_batch`, summed over that axis in float64.
    Only for the reference in the grader's process: the student's calls are never batched."""
    out = fn(*fresh_batch(specs, seed, repeat), **kwargs)
    if type(out) is not torch.Tensor:
        raise TypeError(f"expected a tensor, got {type(out).__name__}")
    return out.detach().to("cpu", torch.float64).sum(dim=0)
