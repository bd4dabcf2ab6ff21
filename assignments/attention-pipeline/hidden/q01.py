"""project_qkv: three right-multiplications of the same X.

test_project_views draws inputs that are not contiguous, as real code hands them over: X a transposed
view, W_Q and W_K the transposes of nn.Linear-layout (d_out, d_model) weights, X shared by every batch
entry (expanded, stride 0). Flattening X with `.view(-1, d_model)` breaks on them; a failure there
also shows the smallest input of its kind that still fails (autograder.grading.shrink)."""
import torch
from otter.test_files import test_case

from autograder.grading.checks import (
    Misconception,
    beside_next_request,
    call,
    describe,
    name_from_rerun,
    expect_tuple,
    matching_variants,
    raise_if_other_container,
    randn,
    register_misconceptions,
)
from autograder.errors import StudentCodeError
from autograder.grading.shrink import TensorArgs, check_value
from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q01"
register_misconceptions(__file__)


def _load_diagnose():
    """hidden/_diagnose.py, the assignment's diagnoses beside this file (the folder is no package)."""
    import importlib.util
    from pathlib import Path
    spec = importlib.util.spec_from_file_location(f"_{name}_diagnose", Path(__file__).with_name("_diagnose.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


D = _load_diagnose()


def _project_beside(fn, X, W_Q, W_K, W_V):
    """_project, with _expected computed while the worker runs the student's call: (got, expected)."""
    with beside_next_request(lambda: D.qkv_expected(X, W_Q, W_K, W_V)) as made:
        got = _project(fn, X, W_Q, W_K, W_V)
    return got, made.value


def _check(got, X, W_Q, W_K, W_V, dtype, fn=None, submission=None, expected=None):
    D.raise_if_projection_return_in_loop(got, X, (W_Q, W_K, W_V), dtype, submission)   # (Q,) from the first pass
    D.raise_if_sequence_first(got, X, (W_Q, W_K, W_V), dtype, submission)   # X.transpose(0, 1) first (blind58)
    D.raise_if_results_stale(fn, got, X, (W_Q, W_K, W_V), dtype)   # a helper's results=[] default (round 69)
    Q, K, V = expect_tuple(got, "project_qkv", ("Q", "K", "V"))
    want, wrong = expected if expected is not None else D.qkv_expected(X, W_Q, W_K, W_V)
    _raise_if_whole_variant((Q, K, V), wrong, dtype)
    if fn is not None:   # wrong parts that do not change with their weights: more calls with the same X show it
        D.raise_if_weights_unused(fn, X, (W_Q, W_K, W_V), (Q, K, V), dtype)
    if any(type(g) is torch.Tensor and g.shape != w.shape for g, w in zip((Q, K, V), want)):
        D.raise_if_rows_flattened((Q, K, V), want, X, dtype, (W_Q, W_K, W_V))   # or W_V cut to d_k columns
        fused = D.fused_split_crash(fn, dtype) if fn is not None else None
        if fused is not None:   # a wrong width here, where the wrong cuts coincide: the probe's widths tell them apart
            raise Misconception(fused, "(Q, K, V) have the wrong widths; with d_model = 8, d_k = 6, d_v = 7 "
                                "they match " + describe(fused))
    for i, (what, g) in enumerate(zip(("Q", "K", "V"), (Q, K, V))):
        D.assert_projection_matches(g, want[i], X, what=what, dtype=dtype,
                         variants=lambda i=i: _one_part(wrong, i), func="project_qkv")


def _one_part(wrong, i):
    """Part i of each whole variant, for naming one result alone. A reordering, or X scaled, is judged on all three
    only (_raise_if_whole_variant): Q alone scaled is no proof that X was (blind70's query_prescaled)."""
    return {k: v[i] for k, v in wrong.items() if not k.startswith(("results_reordered", "inputs_scaled_before_projection"))}


def _project(fn, X, W_Q, W_K, W_V):
    """The student's (Q, K, V). A crash is named from a second call that shows its cause: on the first
    2-D slice of a batched X (it runs and is right: the code handles 2-D inputs only), or with square
    weights (d_model = d_k = d_v: X @ W.T runs, and its result is not simply right)."""
    try:
        return call(fn, X, W_Q, W_K, W_V, what="project_qkv")
    except StudentCodeError as e:
        said = f"your code raised {e.exc_type}: {e.message}"
        X2 = X[(0,) * (X.dim() - 2)] if X.dim() > 2 else X
        # an out= buffer made in the default float32 (blind54): the crash's words, its out= line, and the same call
        # in float32 runs and is right
        W32 = tuple(w.float() for w in (W_Q, W_K, W_V))
        named = D.out_buffer_default_dtype_crash(e, lambda: fn(X.float(), *W32),
                                                 lambda out: _all_right(_tuple(out), X.float(), W32), X.dtype)
        if named is not None:
            raise named from None
        # one slice with fewer batch dims, or (nothing smaller runs) X with a batch axis added, right
        named = D.batched_crash(e, {"X": X}, lambda t: fn(t["X"], W_Q, W_K, W_V),
                                lambda t, out: _all_right(_tuple(out), t["X"], (W_Q, W_K, W_V)), up=True)
        # split(d_k): a re-run with d_v < d_k is right; Q, K, V stacked: a re-run with d_v = d_k returns them as one
        named = named or D.split_by_key_width_crash(e, fn, X, (W_Q, W_K, W_V)) or D.stacked_crash(e, fn, X, (W_Q, W_K, W_V))
        if named is None:   # split([d_k, 2 * d_k]): cut points where split takes sizes (blind61)
            named = D.split_cut_points_crash(e, fn, X2, (W_Q, W_K, W_V))
        if named is None:   # split([d_k, d_k, d_v]) on dim 0: T = 2 d_k + d_v tokens lets it run
            named = D.fused_split_axis_crash(e, fn, X.dtype)
        if named is not None:
            raise named from None
        fused = D.fused_split_crash(fn, X.dtype)   # split(d_model): "too many values to unpack (expected 3)"
        if fused is not None:
            raise Misconception(fused, f"{said}; with d_model = 8, d_k = 6, d_v = 7 it runs and matches "
                                + describe(fused)) from None
        n = X2.shape[-1]
        square = tuple(randn((n, n), torch.Generator().manual_seed(i), X.dtype) for i in range(3))
        # square weights, then X made square as well (T = d_model: X * W, elementwise, runs only there)
        Xsq = torch.cat([X2, randn((max(n - X2.shape[-2], 0), n), torch.Generator().manual_seed(3), X.dtype)])[:n]
        for Xr, how in ((X2, "square weights (d_model = d_k = d_v)"), (Xsq, "square X and weights (T = d_model = d_k = d_v)")):
            got = _rerun(fn, Xr, *square)
            if got is None:
                continue
            X64, W64 = Xr.double(), [w.double() for w in square]
            want, wrong = ref.project_qkv(X64, *W64), {**ref.qkv_variants(X64, *W64), **D.qkv_variants(X64, *W64)}
            keys = {name_from_rerun(g, want[i], _one_part(wrong, i), X.dtype)
                    for i, g in enumerate(got)}
            if len(keys) == 1 and None not in keys:
                key = keys.pop()
                raise Misconception(key, f"{said}; with {how} it runs and matches " + describe(key)) from None
        raise


def _raise_if_whole_variant(got, wrong, dtype):
    """A mistake is judged on all three results: K from W_Q is same_projection when Q is right, and
    qk_swapped only when Q comes from W_K as well."""
    whole = {key.split("/")[0] for key, parts in wrong.items()
             if all(type(g) is torch.Tensor and matching_variants(g, {key: w}, dtype) for g, w in zip(got, parts))}
    if len(whole) == 1:
        key = whole.pop()
        raise Misconception(key, f"(Q, K, V) are wrong: together they match {describe(key)}")


def _rerun(fn, X, *W):
    try:
        out = fn(X, *W)
    except StudentCodeError:
        return None
    if isinstance(out, (tuple, list)) and len(out) == 3 and all(type(t) is torch.Tensor for t in out):
        return tuple(out)
    return None


def _tuple(out):
    ok = isinstance(out, (tuple, list)) and len(out) == 3 and all(type(t) is torch.Tensor for t in out)
    return tuple(out) if ok else None


def _all_right(got, X, W) -> bool:
    if got is None:
        return False
    want = ref.project_qkv(X.double(), *(w.double() for w in W))
    return all(matching_variants(g, {"right": w}, X.dtype) for g, w in zip(got, want))


@test_case(points=1, hidden=True)
def test_project_float64(project_qkv, rng, submission=None):
    # d_model != d_k != d_v, so a transposed weight cannot slip through
    T, d_model, d_k, d_v = 7, 9, 12, 5
    X = randn((T, d_model), rng, torch.float64)
    W_Q, W_K = randn((d_model, d_k), rng, torch.float64), randn((d_model, d_k), rng, torch.float64)
    W_V = randn((d_model, d_v), rng, torch.float64)
    got, expected = _project_beside(project_qkv, X, W_Q, W_K, W_V)
    _check(got, X, W_Q, W_K, W_V, torch.float64, project_qkv, submission, expected)


@test_case(points=1, hidden=True)
def test_project_batched_float32(project_qkv, device, rng, submission=None):
    # d_v > d_k (the other tests: d_v < d_k): a fused projection cut into d_k-wide pieces fails only here (blind85)
    B1, B2, T, d_model, d_k, d_v = 2, 3, 6, 10, 4, 12
    X = randn((B1, B2, T, d_model), rng)
    W_Q, W_K, W_V = randn((d_model, d_k), rng), randn((d_model, d_k), rng), randn((d_model, d_v), rng)
    got, expected = _project_beside(project_qkv, X, W_Q, W_K, W_V)
    _check(got, X, W_Q, W_K, W_V, torch.float32, project_qkv, submission, expected)
    # one sequence per entry of the first batch axis, (B1, 1, T, d_model): every axis of X is kept, a size-1 one
    # too (.squeeze() drops it, blind42). Not (1, T, d_model): there the squeezed Q is X's rows flattened as well
    X1 = X[:, :1].contiguous()   # contiguous: a layout slip (.view) is test_project_views' to charge
    got, expected = _project_beside(project_qkv, X1, W_Q, W_K, W_V)
    _raise_if_axis_squeezed(got, X1, (W_Q, W_K, W_V), torch.float32)
    _check(got, X1, W_Q, W_K, W_V, torch.float32, project_qkv, expected=expected)
    D.raise_if_batch_of_one_squeezed(project_qkv, X[0, :1], (W_Q, W_K, W_V), submission)   # (1, T, d_model), blind66


def _raise_if_axis_squeezed(got, X, W, dtype):
    """Q, K, V all the right values with X's size-1 axes dropped (.squeeze(), torch.squeeze(t, 1)): named
    size_one_axis_dropped only where all three are exactly that, and said with the axis."""
    if not (isinstance(got, (tuple, list)) and len(got) == 3):
        return
    want = ref.project_qkv(X.double(), *(w.double() for w in W))
    ones = [i for i, n in enumerate(X.shape[:-1]) if n == 1]
    if not ones or not all(type(g) is torch.Tensor and tuple(g.shape) != tuple(w.shape)
                           and matching_variants(g, {"squeezed": w.squeeze()}, dtype) for g, w in zip(got, want)):
        return
    axes = ", ".join(str(i) for i in ones)
    raise Misconception("size_one_axis_dropped", f"Q, K, V have shape {tuple(got[0].shape)}, {tuple(got[1].shape)}, "
                        f"{tuple(got[2].shape)} for X {tuple(X.shape)}: the right values with X's size-1 axis "
                        f"{axes} dropped, where {tuple(want[0].shape)}, {tuple(want[1].shape)}, {tuple(want[2].shape)} "
                        "is expected; a batch of one sequence keeps its axis, so leave out the .squeeze(): "
                        + describe("size_one_axis_dropped"))


def _picked(fn, index):
    """The student's project_qkv, answering only its Q (0), K (1) or V (2)."""
    def picked(*args, **kwargs):
        return expect_tuple(fn(*args, **kwargs), "project_qkv", ("Q", "K", "V"))[index]
    return picked


@test_case(points=1, hidden=True)
def test_project_views(project_qkv, rng, submission=None):
    # X: (1, d_model, T) memory seen as (T, d_model), expanded over B = 3 batch entries (stride 0);
    # W_Q, W_K: (d_k, d_model) memory seen as (d_model, d_k), as nn.Linear's weight.T hands them out;
    # W_V contiguous. T = 5, d_model = 7, d_k = 12, d_v = 4; two equal tokens (tied rows of Q, K, V)
    B, T, d_model, d_k, d_v = 3, 5, 7, 12, 4
    X = randn((1, d_model, T), rng, torch.float64).transpose(-2, -1)
    i, j = (int(x) for x in torch.randperm(T, generator=rng)[:2])
    X[:, j] = X[:, i]
    X = X.expand(B, T, d_model)
    W_Q, W_K = randn((d_k, d_model), rng, torch.float64).T, randn((d_k, d_model), rng, torch.float64).T
    W_V = randn((d_model, d_v), rng, torch.float64)
    args = TensorArgs({"X": X, "W_Q": W_Q, "W_K": W_K, "W_V": W_V},
                      {"T": {"X": -2}, "d_model": {"X": -1, "W_Q": -2, "W_K": -2, "W_V": -2},
                       "d_k": {"W_Q": -1, "W_K": -1}, "d_v": {"W_V": -1}})
    want = ref.project_qkv(X, W_Q, W_K, W_V)
    wrong = {**ref.qkv_variants(X, W_Q, W_K, W_V), **D.qkv_variants(X, W_Q, W_K, W_V)}
    try:   # a crash whatever the layout is named as in the other tests (X @ W.T, 2-D-only code)
        got = _project(project_qkv, *(t.contiguous() for t in (X, W_Q, W_K, W_V)))
    except StudentCodeError:
        got = None
    D.raise_if_projection_return_in_loop(got, X.contiguous(), (W_Q, W_K, W_V), torch.float64, submission)
    D.raise_if_sequence_first(got, X.contiguous(), (W_Q, W_K, W_V), torch.float64, submission)
    if isinstance(got, (tuple, list)) and len(got) == 3:
        _raise_if_whole_variant(tuple(got), wrong, torch.float64)
        D.raise_if_results_stale(project_qkv, got, X.contiguous(), (W_Q, W_K, W_V), torch.float64)
        D.raise_if_rows_flattened(tuple(got), want, X, torch.float64)
        D.raise_if_weights_unused(project_qkv, X.contiguous(), tuple(t.contiguous() for t in (W_Q, W_K, W_V)),
                                  tuple(got), torch.float64)
        for g, w, what in zip(got, want, ("Q", "K", "V")):   # .float() on everything: the right values in float32
            D.raise_if_other_dtype(g, w, torch.float64, what + " for a transposed, expanded X and transposed weights",
                                   func="project_qkv")
            # a size-1 axis more (Flax's head axis, blind62) is one added: project_qkv reduces no axis
            raise_if_other_container(g, w, what + " for a transposed, expanded X and transposed weights", reduced=False)
            D.raise_if_projection_bias(g, w, what + " for a transposed, expanded X and transposed weights")
    for i, what in enumerate(("Q", "K", "V")):
        check_value(_picked(project_qkv, i), args, want[i],
                    reference=lambda X, W_Q, W_K, W_V, i=i: ref.project_qkv(X, W_Q, W_K, W_V)[i],
                    what=f"{what} for a transposed, expanded X and transposed weights", name="project_qkv",
                    dtype=torch.float64, variants=lambda i=i: _one_part(wrong, i))
