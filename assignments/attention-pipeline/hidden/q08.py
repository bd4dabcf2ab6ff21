"""nadaraya_watson: one output row as a kernel smoother.

test_nw_views draws inputs that are not contiguous (a strided q, a transposed K, a strided V) with
duplicated keys: `.view` breaks on them; a failure there also shows the smallest input of its kind
that still fails (autograder.grading.shrink)."""
import math

import torch
from otter.test_files import test_case

from autograder.errors import StudentCodeError
from autograder.grading.checks import Misconception, call, describe, randn, register_misconceptions, tuple_as_tensor
from autograder.grading.shrink import TensorArgs, check_value
from reference import attention_pipeline as ref

OK_FORMAT = False
name = "q08"
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


def _variants(q, K, V, got):
    return {**ref.nw_variants(q, K, V, got), **D.nw_variants(q, K, V), **D.chunked_nw_variants(q, K, V),
            **D.nw_logsumexp_variants(q, K, V), **D.nw_feature_map_variants(q, K, V),
            **D.nw_online_variants(q, K, V)}


def _sizes(q, K, V):
    """The sizes a constant factor of the row is said in (a generic message's words, never a name)."""
    return {"T": K.shape[-2], "d_k": q.shape[-1], "d_v": V.shape[-1]}


def _call(fn, q, K, V):
    """The student's row; a broadcast crash between the T kernel weights and V's d_v columns is named
    when a second call with as many value columns as keys (d_v = T, where it runs) equals the weights
    lined up with V's columns, (kappa * V).sum(0) / kappa.sum(), and that is not the right row."""
    try:
        got = call(fn, q, K, V, what="nadaraya_watson")
    except StudentCodeError as e:
        # x - x.max(dim=...): the crash's own words name the (values, indices) pair; no second call needed
        named = tuple_as_tensor(e, f"your code raised {e.exc_type}: {(e.message or '').splitlines()[0][:200]}")
        if named is not None:
            raise named from None
        if e.exc_type == "RuntimeError" and ("cannot be multiplied" in e.message or "size mismatch" in e.message):
            D.raise_if_operands_swapped(fn, e, q)
        T, d_v = K.shape[0], V.shape[-1]
        said = f"The size of tensor a ({T}) must match the size of tensor b ({d_v})"
        if e.exc_type == "RuntimeError" and "must match the size" in e.message and T != q.shape[-1]:
            D.raise_if_operands_swapped(fn, e, q)   # (K * q).sum(dim=0): d_k scores against V's T rows
        D.raise_if_nw_buffer_shaped_like_query(fn, e, q, K, V)   # numerator = torch.zeros_like(q) (naming round 69)
        if e.exc_type != "RuntimeError" or T == d_v or said not in e.message:
            raise
        V2 = torch.randn((T, T), generator=torch.Generator().manual_seed(0), dtype=V.dtype)
        try:
            again = fn(q, K, V2)
        except StudentCodeError:
            raise e from None
        kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))
        wrong = (kappa * V2).sum(0) / kappa.sum()
        if (type(again) is torch.Tensor and D.is_right(again, wrong, V.dtype)
                and not D.is_right(again, ref.nadaraya_watson(q, K, V2), V.dtype)):
            raise Misconception("nw_weights_on_columns", f"your code raised {e.exc_type}: {said}; with d_v = T = {T} "
                                "it runs, and its row is the weights lined up with V's columns: "
                                + describe("nw_weights_on_columns")) from None
        raise
    D.raise_if_nw_log_of_values(fn, got, q, K, V)   # logsumexp(s + log V): NaN where V < 0 (blind62)
    D.raise_if_generator_reread(got, q, K, V)   # kernel weights in a generator, summed twice: x / 0 (blind72)
    D.raise_if_nw_scale_fixed(fn, got, q, K, V)   # one bandwidth for every d_k: typed in or a frozen default (round 82)
    return got


@test_case(points=1, hidden=True)
def test_nw_random(nadaraya_watson, rng):
    # float32 ("return tensors in the dtype of the inputs"): a float64 row is dtype_changed (naming20)
    T, d_k, d_v = 7, 12, 5
    q = randn((d_k,), rng, torch.float32)
    K, V = randn((T, d_k), rng, torch.float32), randn((T, d_v), rng, torch.float32)
    got = _call(nadaraya_watson, q, K, V)
    D.assert_matches(got, ref.nadaraya_watson(q, K, V), what="the smoothed row", variants=lambda: _variants(q, K, V, got),
                     reduced=True, sizes=_sizes(q, K, V), func="nadaraya_watson")
    _float16_head(nadaraya_watson, rng)   # every dtype the notebook promises (one point with float32's)


def _float16_head(fn, rng):
    """float16 at the lesson's head size d_k = 64 with unit-variance q and k (raw dot products of spread 8, scaled
    ones of spread 1) and one key whose raw q.k is 20 (2.5 once scaled): the kernel exp(q.k / 8) stays small, so
    the notebook's own solution is exact here, while exp(q.k) itself passes float16's 65504 (q.k above ~11). The
    values are judged; the dtype is judged on the float32 and float64 cases."""
    T, d_k, d_v = 8, 64, 5
    q, K, V = randn((d_k,), rng, torch.float64), randn((T, d_k), rng, torch.float64), randn((T, d_v), rng, torch.float64)
    j = int(torch.randint(T, (1,), generator=rng))
    K[j] += (20.0 - float(K[j] @ q)) / float(q @ q) * q
    q, K, V = q.half(), K.half(), V.half()
    want = ref.nadaraya_watson(q.double(), K.double(), V.double())
    got = _call(fn, q, K, V)
    D.raise_if_nw_scale_after_exp(fn, got, q, K, V, want)
    if type(got) is torch.Tensor and got.is_floating_point():
        got = got.to(torch.float16)
    D.assert_matches(got, want, what="the smoothed row for float16 inputs", dtype=torch.float16, reduced=True,
                     variants=lambda: _variants(q.double(), K.double(), V.double(), got), sizes=_sizes(q, K, V),
                     func="nadaraya_watson")


@test_case(points=1, hidden=True)
def test_nw_is_attention_row(nadaraya_watson, rng):
    # row t of causal self-attention == Nadaraya-Watson over keys/values 0..t
    T, d_model, d_k, d_v = 10, 7, 12, 4
    s = 1.0 / math.sqrt(d_model)
    X = randn((T, d_model), rng, torch.float64)
    W_Q, W_K, W_V = (randn((d_model, d), rng, torch.float64, s) for d in (d_k, d_k, d_v))
    Q, K, V = ref.project_qkv(X, W_Q, W_K, W_V)
    O, _ = ref.self_attention(X, W_Q, W_K, W_V)
    t = int(torch.randint(3, T, (1,), generator=rng))
    got = _call(nadaraya_watson, Q[t], K[: t + 1], V[: t + 1])
    D.assert_matches(got, O[t], what="the smoothed row", variants=lambda: _variants(Q[t], K[: t + 1], V[: t + 1], got),
                     reduced=True, sizes=_sizes(Q[t], K[: t + 1], V[: t + 1]), func="nadaraya_watson")
    # row 0 sees one key only: its row is V[0] (a kernel row squeezed to a 0-d tensor fails only here, blind85)
    got = _call(nadaraya_watson, Q[0], K[:1], V[:1])
    D.assert_matches(got, O[0], what="the smoothed row of the first query (one key)",
                     variants=lambda: _variants(Q[0], K[:1], V[:1], got), reduced=True, sizes=_sizes(Q[0], K[:1], V[:1]),
                     func="nadaraya_watson")


@test_case(points=1, hidden=True)
def test_nw_views(nadaraya_watson, rng):
    # q every other entry of a longer vector, K a transposed (d_k, T) matrix, V every other column;
    # two equal keys (tied kernel weights). T = 6, d_k = 12, d_v = 4
    T, d_k, d_v = 6, 12, 4
    q = randn((2 * d_k,), rng, torch.float64)[::2]
    K = randn((d_k, T), rng, torch.float64).T
    V = randn((T, 2 * d_v), rng, torch.float64)[:, ::2]
    i, j = (int(x) for x in torch.randperm(T, generator=rng)[:2])
    K[j] = K[i]
    args = TensorArgs({"q": q, "K": K, "V": V}, {"T": {"K": -2, "V": -2}, "d_k": {"q": -1, "K": -1},
                                                  "d_v": {"V": -1}}, core_of={"q": 1})
    want = ref.nadaraya_watson(q, K, V)

    def judge(got):
        D.assert_matches(got, want, what="the smoothed row for strided and transposed inputs",
                       variants=lambda: _variants(q, K, V, got), reduced=True, sizes=_sizes(q, K, V),
                       func="nadaraya_watson")

    try:
        _call(nadaraya_watson, q, K, V)     # a broadcast crash named from its second call
    except StudentCodeError:
        pass                                # any other crash: check_value shows its smallest input
    check_value(nadaraya_watson, args, want, reference=ref.nadaraya_watson,
                what="the smoothed row for strided and transposed inputs", name="nadaraya_watson", judge=judge)
