"""The diagnoses q1's tests share (scaled-attention): the student's (output, weights) pair read and matched
against the catalogued mistakes together, a crash named from a re-run, the layout cases' smallest failing
input. Not a test file (its name starts with "_"): q1.py loads it by path, beside itself."""
import contextlib
import functools
import itertools
import math
import re
import statistics

import torch

from autograder.grading.checks import (
    at_most_one_letter,
    is_stub,
    Misconception,
    assert_matches,
    call,
    describe,
    name_from_rerun,
    raise_if_nondeterministic,
    expect_tuple,
    matching_variants,
    raise_if_wrong_default,
    randn,
    student_line,
    tuple_as_tensor,
)
from autograder.grading.crash_words import crash_replayed, crash_source_line
from autograder.grading.pyparse import parse, unparse
from autograder.grading.source_checks import CITES_LESSON, read_twice_on_one_path
from autograder.errors import StudentCodeError
from autograder.grading.shrink import Derived, TensorArgs, check_value
from reference import scaled_attention as ref


def _crash_named(e: StudentCodeError, Q, K) -> Misconception | None:
    """A crash whose message says which mistake made it: a (values, indices) pair used as a tensor
    (reduction_tuple_as_tensor); torch.sqrt of the int d_k; Q @ K (or K @ Q)
    without the transpose, the two shapes in the error being exactly Q's and K's."""
    named = tuple_as_tensor(e, f"your code raised {e.exc_type}: {e.message.splitlines()[0] if e.message else ''}")
    if named is not None:
        return named
    if e.exc_type == "TypeError" and e.message.startswith("sqrt(): argument") and "must be Tensor, not int" in e.message:
        return Misconception("torch_sqrt_of_int", f"your code raised {e.exc_type}: {e.message.splitlines()[0]}: "
                             + describe("torch_sqrt_of_int"))
    found = re.search(r"mat1 and mat2 shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\)", e.message)
    if e.exc_type == "RuntimeError" and found and Q.shape[-2] != Q.shape[-1]:
        a, b = tuple(int(x) for x in found.groups()[:2]), tuple(int(x) for x in found.groups()[2:])
        if {a, b} == {tuple(Q.shape), tuple(K.shape)} or a == b == tuple(Q.shape) == tuple(K.shape):
            return Misconception("keys_not_transposed", f"your code raised {e.exc_type}: {found.group(0)}, the shapes "
                                 "of Q and K: " + describe("keys_not_transposed"))
    return None


def _scores_replays(Q, K, V):
    """Scores written with a transpose on the wrong side, each followed by its softmax and the product with V,
    on this call's own tensors (crash_words.crash_replayed: the first step that fails gives the words): Q^T K (the
    vector formula q^T k copied onto row-vector matrices), and beside it the other products one writes wrongly."""
    q, k, v = Q.detach(), K.detach(), V.detach()
    return {"keys_not_transposed/qTk": lambda: (q.mT @ k).softmax(-1) @ v,
            "other/qk": lambda: (q @ k).softmax(-1) @ v, "other/kTq": lambda: (k.mT @ q).softmax(-1) @ v,
            "other/qTq": lambda: (q.mT @ q).softmax(-1) @ v, "other/kTk": lambda: (k.mT @ k).softmax(-1) @ v,
            "other/kq": lambda: (k @ q).softmax(-1) @ v}


_QT_PROBE_G = torch.Generator().manual_seed(32)
QT_PROBE = tuple(torch.randn(*shape, generator=_QT_PROBE_G, dtype=torch.float64)
                 for shape in ((5, 12), (7, 12), (7, 10)))   # T_q, T_k, d_k, d_v all differ


_MM_SHAPES = re.compile(r"mat1 and mat2 shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\)")


def fixed_values_crash(fn, e: StudentCodeError, Q, K, V, d_k) -> Misconception | None:
    """reads_global_not_parameter (round 37): a matmul crash whose right operand (c x d) is none of the inputs
    and does not fit the weights, where a second call with c keys, values (c, d) and right-sized queries runs,
    its weights are right, and its output is those weights times ONE fixed (c, d) matrix whatever values are
    passed (four calls: two sets of queries and keys, two value matrices each): the body mixes a matrix it
    was not given (the notebook's global V where the parameter is v) instead of its own parameter."""
    m = _MM_SHAPES.search(e.message or "")
    if m is None or Q.dim() != 2 or V.dim() != 2:
        return None
    _a, b, c, d = (int(x) for x in m.groups())
    if b == c or c < 2 or (c, d) in {tuple(t.shape) for t in (Q, K, V)}:
        return None
    for dt in dict.fromkeys((Q.dtype, torch.float32)):     # a float32 global V crashes float64 calls on dtype
        named = _fixed_values_replayed(fn, e, Q, K, d_k, c, d, dt)
        if named is not None:
            return named
    return None


def fixed_keys_crash(fn, e: StudentCodeError, Q, K, V) -> Misconception | None:
    """reads_global_not_parameter for the keys (naming57, blind57 q1_scores_helper_reads_notebook_global_keys: a
    helper computes q @ K.T with the notebook's global K where its parameter is k): a matmul crash (a x b and c x d)
    with b != c whose right operand is none of the inputs nor a transpose of one, where two second calls with
    queries of c features, d keys and values, and two different key matrices both run, give the same weights
    (c of them per row: the keys passed are never used) and not the right ones for either: the scores use a
    fixed (d, c) key matrix the function was not given."""
    m = _MM_SHAPES.search(e.message or "")
    if m is None or Q.dim() != 2 or K.dim() != 2 or V.dim() != 2:
        return None
    _a, b, c, d = (int(x) for x in m.groups())
    shapes = {tuple(t.shape) for t in (Q, K, V)} | {tuple(t.shape)[::-1] for t in (Q, K, V)}
    if b == c or c < 1 or d < 2 or c * d > 4096 or (c, d) in shapes:
        return None
    for dt in dict.fromkeys((Q.dtype, torch.float32)):     # a float32 global K crashes float64 calls on dtype
        if _fixed_keys_replayed(fn, c, d, dt):
            break
    else:
        return None
    return Misconception("reads_global_not_parameter", f"your code raised {e.exc_type}: {e.message.splitlines()[0]}; "
                         f"the ({c}, {d}) matrix there is none of the inputs. Called again with {c} features and two "
                         f"different ({d}, {c}) key matrices, it runs and gives the same weights both times (wrong for "
                         f"either): the scores use a fixed ({d}, {c}) key matrix, not the keys passed in (the "
                         "notebook's K where the parameter is k, say): " + describe("reads_global_not_parameter"))


def _fixed_keys_replayed(fn, c: int, d: int, dt) -> bool:
    """fixed_keys_crash's two calls in dtype `dt`: the same weights, wrong for both key matrices."""
    g = torch.Generator().manual_seed(57)
    q, v = randn((3, c), g, dt), randn((d, 5), g, dt)
    got = []
    for _ in range(2):
        k = randn((d, c), g, dt)
        try:
            out = fn(q, k, v, c)
        except StudentCodeError:
            return False
        if not (isinstance(out, (tuple, list)) and len(out) == 2 and all(type(p) is torch.Tensor for p in out)) \
                or tuple(out[1].shape) != (3, d):
            return False
        if matching_variants(out[1], {"right": ref.attention(q.double(), k.double(), v.double(), c)[1]}, dt):
            return False
        got.append(out[1])
    return bool(torch.equal(got[0], got[1]))


def _fixed_values_replayed(fn, e: StudentCodeError, Q, K, d_k, c: int, d: int, dt) -> Misconception | None:
    """fixed_values_crash's four calls in dtype `dt`."""
    g, calls = torch.Generator().manual_seed(37), []
    for T_q in (c, c + 2):
        q, k = randn((T_q, Q.shape[-1]), g, dt), randn((c, K.shape[-1]), g, dt)
        for _ in range(2):
            v = randn((c, d), g, dt)
            try:
                out = fn(q, k, v, d_k)
            except StudentCodeError:
                return None
            if not (isinstance(out, (tuple, list)) and len(out) == 2
                    and all(type(p) is torch.Tensor for p in out)) or tuple(out[0].shape) != (T_q, d):
                return None
            right = ref.attention(q.double(), k.double(), v.double(), d_k)
            if not matching_variants(out[1], {"right": right[1]}, dt) \
                    or matching_variants(out[0], {"right": right[0]}, dt):
                return None
            calls.append((right[1], out[0].double()))
    try:
        fixed = torch.linalg.solve(calls[0][0], calls[0][1])
    except RuntimeError:
        return None
    if not all(matching_variants(o, {"fixed": w @ fixed}, dt) for w, o in calls):
        return None
    line = crash_source_line(e)
    at = f", at `{ascii(line[:100])[1:-1]}`" if line else ""
    return Misconception("reads_global_not_parameter", f"your code raised {e.exc_type}: "
                         f"{e.message.splitlines()[0]}{at}; the ({c}, {d}) matrix there is none of the inputs. Called "
                         f"again ({str(dt).replace('torch.', '')}) with {c} keys and values of shape ({c}, {d}), it "
                         "runs and its weights are right, but "
                         f"its output is those weights times one fixed ({c}, {d}) matrix whatever values are passed: "
                         + describe("reads_global_not_parameter"))


def q_transposed_crash(fn, e: StudentCodeError, Q, K, V) -> Misconception | None:
    """Q^T @ K for Q @ K^T (naming32, blind29 q1_scores_as_q_transpose_times_k): the crash that slip raises on this
    call's own tensors (the words and sizes, _scores_replays) and no other product there. Where T_q = T_k, the
    (d_k, d_k) matrix only fails at the product with V, as K^T Q or Q^T Q would: then ONE second call on QT_PROBE,
    whose sizes all differ, must crash as Q^T @ K alone does there. None otherwise."""
    if Q.dim() != 2 or K.dim() != 2 or V.dim() != 2 or e.exc_type != "RuntimeError":
        return None
    crash = f"{e.exc_type}: {((e.message or '').splitlines() or [''])[0]}"
    said = f"your code raised {crash}"
    key = crash_replayed(crash, _scores_replays(Q, K, V))
    if key is None and crash_replayed(crash, {"qTk": _scores_replays(Q, K, V)["keys_not_transposed/qTk"]}):
        Qp, Kp, Vp = (t.to(Q.dtype) for t in QT_PROBE)
        try:   # ambiguous on this call's sizes: one call on sizes that tell the products apart
            fn(Qp.clone(), Kp.clone(), Vp.clone(), Qp.shape[-1])
        except StudentCodeError as again:
            if crash_replayed(f"{again.exc_type}: {((again.message or '').splitlines() or [''])[0]}",
                              _scores_replays(Qp, Kp, Vp)) == "keys_not_transposed":
                return Misconception("keys_not_transposed", f"{said}: with Q (5, 12), K (7, 12) and V (7, 10) your "
                                     f"function raises {again.exc_type}: {again.message.splitlines()[0]}, the crash of "
                                     "Q^T @ K (Q transposed instead of K: a (d_k, d_k) matrix of sums over the tokens, "
                                     "not the (T_q, T_k) dot products): " + describe("keys_not_transposed"))
        return None
    if key != "keys_not_transposed":
        return None
    return Misconception("keys_not_transposed", f"{said}, the crash of Q^T @ K on these Q {tuple(Q.shape)} and K "
                         f"{tuple(K.shape)} (Q transposed instead of K: a (d_k, d_k) matrix of sums over the tokens, "
                         "not the (T_q, T_k) dot products): " + describe("keys_not_transposed"))


_DIM_RANGE = re.compile(r"Dimension out of range \(expected to be in range of \[(-?\d+), (-?\d+)\], but got (-?\d+)\)")


def size_as_dim(e: StudentCodeError, sizes: dict) -> Misconception | None:
    """size_as_dim: torch's 'Dimension out of range ... but got N' where N is one of the call's sizes (T_q, T_k,
    d_k, d_v, n_heads: `sizes`, by name) and no other of them: a size passed where an axis index goes
    (softmax(scores, d_k)). None where N equals no size, or two sizes of different names (which one is
    unknown)."""
    found = _DIM_RANGE.search(e.message or "")
    if e.exc_type != "IndexError" or not found:
        return None
    got = int(found.group(3))
    names = [n for n, size in sizes.items() if size == got]
    if len(names) != 1:
        return None
    return Misconception("size_as_dim", f"your code raised {e.exc_type}: {found.group(0)}: {got} is {names[0]}, a "
                         "size of the inputs, passed as a dimension: " + describe("size_as_dim"))


DTYPE_CRASH = re.compile(r"same dtype|scalar type|dtype.* != |expected .*(Double|Float|Half).* but (got|found)"
                         r"|\b(Double|Float|Half|BFloat16) did not match (Double|Float|Half|BFloat16)\b")
# torch.allclose / torch.isclose on two tensors of different dtypes: they do not promote (round 56)
_COMPARED_DTYPES = re.compile(r"\b(Double|Float|Half|BFloat16) did not match (Double|Float|Half|BFloat16)\b")


def dtype_mix_crash(fn, e: StudentCodeError, Q, K, V, d_k) -> Misconception | None:
    """A crash of torch's dtype-mismatch kind ('expected m1 and m2 to have the same dtype', 'expected scalar
    type ...'), named dtype_changed when the same call on the same values in the other dtype the code works in
    (float64 for float32 or float16 input, float32 for float64 input) runs and both results are right in it:
    something inside was cast (.double(), .float()) and mixed with the input's dtype."""
    if e.exc_type != "RuntimeError" or not DTYPE_CRASH.search(e.message or "") or not Q.is_floating_point():
        return None
    other = torch.float32 if Q.dtype == torch.float64 else torch.float64
    Qo, Ko, Vo = Q.to(other), K.to(other), V.to(other)
    try:
        out = fn(Qo, Ko, Vo, d_k)
    except StudentCodeError:
        return None
    right = ref.attention(Qo.double(), Ko.double(), Vo.double(), d_k)
    if not (isinstance(out, (tuple, list)) and len(out) == 2 and all(type(p) is torch.Tensor for p in out)
            and all(p.dtype == other and matching_variants(p, {"right": r}, other) for p, r in zip(out, right))):
        return None
    named = str(other).replace("torch.", "")
    compared = _COMPARED_DTYPES.search(e.message.splitlines()[0])
    if compared is not None:
        # allclose's words: a check that compares an input-dtype tensor with one made without dtype= (round 56)
        line = crash_source_line(e)
        quoted = f" (at `{line[:120]}`)" if line else student_line(e)
        return Misconception("dtype_mix", f"your code raised {e.exc_type}: {compared.group(0)}{quoted} on "
                             f"{str(Q.dtype).replace('torch.', '')} inputs: torch.allclose and torch.isclose compare "
                             f"two tensors of one dtype only, and on the same values in {named} it runs and both "
                             f"results are right, so a tensor made inside in {named}"
                             + (" (torch.ones, torch.zeros or torch.tensor without dtype=, float32 by default)"
                                if other == torch.float32 else "") + " meets the input's dtype: " + describe("dtype_mix"))
    return Misconception("dtype_changed", f"your code raised {e.exc_type}: {e.message.splitlines()[0]} on "
                         f"{str(Q.dtype).replace('torch.', '')} inputs; on the same values in {named} it runs and both "
                         f"results are right, so a {named} tensor made inside meets an input of another dtype: "
                         + describe("dtype_changed"))


_EINSUM_SIZES = re.compile(r"einsum\(\): subscript \w+ has size (\d+) for operand \d+ which does not broadcast "
                           r"with previously seen size (\d+)|contracted dimensions need to match, but first has size "
                           r"(\d+) in dim -?\d+ and second has size (\d+) in dim -?\d+")


def _untransposed_rerun(fn, e: StudentCodeError, Q, K, V, d_k) -> Misconception | None:
    """keys_not_transposed behind an einsum crash that binds one subscript to both T_k and d_k (K labelled in
    K^T's order, "qd,dk->qk"), or a tensordot contracting Q's features with K's rows: a second call with as many
    keys as features (K (d_k, d_k), where Q @ K runs)
    whose weights and output are both softmax(Q K / sqrt(d_k)) and its product with V, and not the right ones
    (a random square K is not symmetric)."""
    found = _EINSUM_SIZES.search(e.message or "")
    T_k, n = K.shape[-2], Q.shape[-1]
    if e.exc_type != "RuntimeError" or not found or Q.dim() != 2 or T_k == n \
            or {int(x) for x in found.groups() if x is not None} != {T_k, n}:
        return None
    g = torch.Generator().manual_seed(27)
    K2 = torch.randn(n, n, generator=g).to(Q.dtype)
    V2 = torch.randn(n, V.shape[-1], generator=g).to(Q.dtype)
    try:
        out = fn(Q.clone(), K2.clone(), V2.clone(), d_k)
    except StudentCodeError:
        return None
    Q64, K64, V64 = Q.double(), K2.double(), V2.double()
    w = torch.softmax(Q64 @ K64 / math.sqrt(d_k), dim=-1)
    wrong, right = (w @ V64, w), ref.attention(Q64, K64, V64, d_k)
    if not (isinstance(out, (tuple, list)) and len(out) == 2 and all(type(p) is torch.Tensor for p in out)) \
            or matching_variants(wrong[1], {"right": right[1]}, Q.dtype) \
            or not all(matching_variants(p, {"v": r}, Q.dtype) for p, r in zip(out, wrong)):
        return None
    return Misconception("keys_not_transposed", f"your code raised {e.exc_type}: {found.group(0)} (T_k = {T_k} keys, "
                         f"d_k = {n} features); with as many keys as features (K of shape ({n}, {n})) it runs, and "
                         "its weights are softmax(Q @ K / sqrt(d_k)), K never transposed: "
                         + describe("keys_not_transposed"))


def _buffer_replays(Q, K, V):
    """An output buffer shaped like the queries (torch.zeros_like(Q), or like K), filled with weights @ V in the
    ways one writes it (row by row, a slice assignment, +=, copy_, one key at a time), on this call's own tensors."""
    q, k, v = Q.detach(), K.detach(), V.detach()
    w = torch.softmax(q @ k.mT / math.sqrt(q.shape[-1]), dim=-1)

    def rows(buf):
        for i in range(w.shape[-2]):
            buf[i] = w[i] @ v

    def keys(buf):
        for j in range(w.shape[-1]):
            buf += w[:, j:j + 1] * v[j]

    def each_entry(buf):
        for i in range(w.shape[-2]):
            for j in range(w.shape[-1]):
                buf[i] += w[i, j] * v[j]

    out = {}
    for like, t in (("q", q), ("k", k)):
        out[f"buffer/{like}/rows"] = lambda t=t: rows(torch.zeros_like(t))
        out[f"buffer/{like}/slice"] = lambda t=t: torch.zeros_like(t).__setitem__(slice(None), w @ v)
        out[f"buffer/{like}/iadd"] = lambda t=t: torch.zeros_like(t).add_(w @ v)
        out[f"buffer/{like}/copy"] = lambda t=t: torch.zeros_like(t).copy_(w @ v)
        out[f"buffer/{like}/keys"] = lambda t=t: keys(torch.zeros_like(t))
        out[f"buffer/{like}/entries"] = lambda t=t: each_entry(torch.zeros_like(t))
    return out


def output_buffer_crash(fn, e: StudentCodeError, Q, K, V, d_k) -> Misconception | None:
    """output_buffer_width_of_queries (naming46, blind45 q1_output_buffer_zeros_like_queries): a crash whose words
    and sizes are those of filling a buffer shaped like Q (or K) with weights @ V on this call's own tensors
    (_buffer_replays), where d_v != d_k, and a second call on the same Q and K with values as wide as the queries
    (d_v = d_k) runs and both its results are right: the output is built d_k wide where it must be d_v wide."""
    if e.exc_type != "RuntimeError" or Q.dim() != 2 or K.dim() != 2 or V.dim() != 2 or V.shape[-1] == Q.shape[-1]:
        return None
    crash = f"{e.exc_type}: {((e.message or '').splitlines() or [''])[0]}"
    if crash_replayed(crash, _buffer_replays(Q, K, V)) != "buffer":
        return None
    g = torch.Generator().manual_seed(46)
    V2 = torch.randn(V.shape[-2], Q.shape[-1], generator=g, dtype=torch.float64).to(Q.dtype)
    try:
        out = fn(Q.clone(), K.clone(), V2.clone(), d_k)
    except StudentCodeError:
        return None
    right = ref.attention(Q.double(), K.double(), V2.double(), d_k)
    if not (isinstance(out, (tuple, list)) and len(out) == 2 and all(type(p) is torch.Tensor for p in out)
            and all(matching_variants(p, {"right": r}, Q.dtype) for p, r in zip(out, right))):
        return None
    line = crash_source_line(e)
    at = f" at `{ascii(line[:100])[1:-1]}`" if line else ""
    return Misconception("output_buffer_width_of_queries", "the output buffer has d_k columns where the output needs "
                         f"d_v: your code raised {crash}{at} with d_k = {Q.shape[-1]} and d_v = {V.shape[-1]}; with "
                         f"values as wide as the queries (d_v = {Q.shape[-1]}) it runs and is right: "
                         + describe("output_buffer_width_of_queries"))


def _batched_rerun(fn, Q, K, V, d_k) -> bool:
    """Whether the same call on a batch of one (Q[None], K[None], V[None]) runs and is simply right: code
    that works only on 3-D inputs."""
    try:
        out = fn(Q[None], K[None], V[None], d_k)
    except StudentCodeError:
        return False
    if not isinstance(out, (tuple, list)) or len(out) != 2 or not all(type(p) is torch.Tensor for p in out):
        return False
    right = ref.attention(Q.double(), K.double(), V.double(), d_k)
    return all(p.dim() == 3 and p.shape[0] == 1 and matching_variants(p[0], {"right": r}, Q.dtype)
               for p, r in zip(out, right))


def _keys_are_queries_replayed(fn, Q, K, V, d_k, index) -> bool:
    """keys_are_queries proven by a replay on the same shapes at a tenth of the scale, where softmax(Q Q^T)
    is far from the identity (so Q Q^T's output is not V itself): that result `index` of the student's
    matches Q Q^T's there and not V."""
    Qs, Ks = Q.double() / 10, K.double() / 10
    want = ref.attention_keys_are_queries(Qs, Ks, V.double(), d_k)[index]
    if matching_variants(want, {"v": V.double()}, Q.dtype):
        return False
    try:
        got = fn(Qs.to(Q.dtype), Ks.to(Q.dtype), V.clone(), d_k)
    except Exception:  # noqa: BLE001 - a replay is only evidence
        return False
    return (isinstance(got, (tuple, list)) and len(got) == 2 and type(got[index]) is torch.Tensor
            and bool(matching_variants(got[index], {"v": want}, Q.dtype)))


def _pair_right(fn, Q, K, V, d_k) -> bool:
    """One bounded replay (the inputs are the test's or smaller): fn's (output, weights) both right."""
    try:
        got = fn(Q, K, V, d_k)
    except Exception:  # noqa: BLE001 - a replay is only evidence
        return False
    right = ref.attention(Q.double(), K.double(), V.double(), d_k)
    return (isinstance(got, (tuple, list)) and len(got) == 2 and all(type(g) is torch.Tensor for g in got)
            and all(matching_variants(g, {"v": r}, Q.dtype) for g, r in zip(got, right)))


def trace_sizes_crash(fn, e: StudentCodeError, Q, K, V, d_k) -> Misconception | None:
    """naming64: a crash of torch's (not the student's own raise) that goes away, both results right, when one size
    is made equal to another as in the lesson's trace (Q, K and V all (3, 4)): as many keys as queries (the same
    values cut to min(T_q, T_k) rows: scores sized (T_q, T_q)), or d_v == d_k with the crash's shape Q's and its
    size T_q * d_v (the output reshaped to Q.shape: V redrawn d_k wide). None otherwise."""
    if e.exc_type not in ("RuntimeError", "IndexError") or Q.dim() != 2 or K.dim() != 2 or V.dim() != 2:
        return None
    (T_q, dk), (T_k, d_v) = tuple(Q.shape), (K.shape[0], V.shape[1])
    first = (e.message or "").splitlines()[0] if e.message else ""
    # round126: sized from the queries, the crash is K[j] out of range with more queries than keys, or weights @ V that
    # does not fit with fewer; an IndexError with fewer queries is Q[i] run to the keys' count (sized from K), another slip
    if (T_q > T_k and e.exc_type == "IndexError") or (T_q < T_k and "cannot be multiplied" in first):
        T = min(T_q, T_k)
        if _pair_right(fn, Q[:T], K[:T], V[:T], d_k):
            return Misconception("scores_square_from_query_count", f"your code raised {e.exc_type}: {first}, with "
                                 f"T_q = {T_q} queries and T_k = {T_k} keys; called again on the same values cut to "
                                 f"{T} of each it runs and both results are right: "
                                 + describe("scores_square_from_query_count"))
    if d_v != dk and f"shape '[{T_q}, {dk}]' is invalid for input of size {T_q * d_v}" in first:
        g = torch.Generator().manual_seed(64)
        V2 = torch.randn(T_k, dk, generator=g, dtype=torch.float64).to(V.dtype)
        if _pair_right(fn, Q, K, V2, d_k):
            return Misconception("output_reshaped_to_query_shape", f"your code raised {e.exc_type}: {first}: "
                                 f"({T_q}, {dk}) is Q's shape and {T_q * d_v} = T_q * d_v = {T_q} * {d_v}, the size of "
                                 f"the output; called again with values as wide as the queries (d_v = d_k = {dk}) it "
                                 "runs and both results are right: " + describe("output_reshaped_to_query_shape"))
    return None


def call_pair(fn, Q, K, V, d_k):
    """The student's (output, weights). Both parts right in the other order names results_reordered; one
    tensor, the right output or weights, names what is missing. A crash is named from its message (see
    _crash_named), from a batch of one that runs and is right (fixed_axes), or, with T_q != T_k, from the
    same call cut to as many queries as keys, when that run is not simply right and one of its parts
    matches a known mistake."""
    try:
        value = call(fn, Q, K, V, d_k, what="attention")
    except StudentCodeError as e:
        own_assert(fn, e, Q, K, V, d_k)
        named = _crash_named(e, Q, K) or out_buffer_crash(fn, e, Q, K, V, d_k) \
            or paired_rows_crash(fn, e, Q, K, V, d_k) or dtype_mix_crash(fn, e, Q, K, V, d_k) or size_as_dim(
            e, {"T_q": Q.shape[-2], "T_k": K.shape[-2], "d_k": Q.shape[-1], "d_v": V.shape[-1]}) \
            or _untransposed_rerun(fn, e, Q, K, V, d_k) or q_transposed_crash(fn, e, Q, K, V) \
            or fixed_values_crash(fn, e, Q, K, V, d_k) or output_buffer_crash(fn, e, Q, K, V, d_k) \
            or fixed_keys_crash(fn, e, Q, K, V)
        if named is not None:
            raise named from None
        named = overwritten_inputs_crash(fn, e, Q, K, V, d_k) or trace_sizes_crash(fn, e, Q, K, V, d_k) \
            or batch_axis_at_dim_one(fn, None, Q, K, V, d_k, crash=e)   # naming62: sequence-first axis at dim 1
        if named is not None:
            raise named from None
        if _batched_rerun(fn, Q, K, V, d_k):
            if _negative_axes_only(_function_read(None, "attention")):   # naming62: not the cause said there
                raise AssertionError(f"your code raised {e.exc_type}: {e.message.splitlines()[0] if e.message else ''}"
                                     " on 2-D inputs, and on the same values as a batch of one (3-D) it runs and is "
                                     "right") from None
            raise Misconception("fixed_axes", f"your code raised {e.exc_type}: {e.message.splitlines()[0] if e.message else ''}"
                                " on 2-D inputs, and on the same values as a batch of one (3-D) it runs and is right: "
                                + describe("fixed_axes")) from None
        T = min(Q.shape[-2], K.shape[-2])
        if Q.shape[-2] != K.shape[-2]:
            try:
                out = fn(Q[:T], K[:T], V[:T], d_k)
            except StudentCodeError:
                raise e from None
            if isinstance(out, (tuple, list)) and len(out) == 2:
                Q64, K64, V64 = Q[:T].double(), K[:T].double(), V[:T].double()
                right = ref.attention(Q64, K64, V64, d_k)
                for index, part in ((1, "weights"), (0, "output")):
                    key = name_from_rerun(out[index], right[index], ref.wrong_variants(Q64, K64, V64, d_k, part),
                                          Q.dtype)
                    if key == "keys_are_queries" and not _keys_are_queries_replayed(fn, Q[:T], K[:T], V[:T], d_k,
                                                                                    index):
                        key = None   # softmax(Q Q^T) near the identity: output V matched it (not proven)
                    if key is not None:
                        raise Misconception(key, f"your code raised {e.exc_type}: {e.message}, with T_q = "
                                            f"{Q.shape[-2]} queries and T_k = {K.shape[-2]} keys; with as many "
                                            f"queries as keys it runs and its {part} match {describe(key)}") from None
                if type(out[0]) is torch.Tensor and tuple(out[0].shape) == tuple(V64.shape) \
                        and not matching_variants(V64, {"right": right[0]}, Q.dtype) \
                        and matching_variants(out[0], {"v": V64}, Q.dtype):
                    raise AssertionError(f"your code raised {e.exc_type}: {e.message.splitlines()[0]}, with T_q = "
                                         f"{Q.shape[-2]} queries and T_k = {K.shape[-2]} keys; with as many queries as "
                                         "keys it runs and its output is V itself, the values unweighted: each output "
                                         "row q should be the sum over the keys k of weights[q, k] * V[k] (V's rows "
                                         "indexed by the key, not the query)") from None
        raise
    right = ref.attention(Q.double(), K.double(), V.double(), d_k)
    if type(value) is torch.Tensor:
        for key, part, index in (("returns_output_only", "output", 0), ("weights_as_output", "weights", 1)):
            if matching_variants(value, {"right": right[index]}, Q.dtype):
                raise Misconception(key, f"attention returns one tensor, the {part}: it should return the pair "
                                    "(output, weights)")
    pair = expect_tuple(value, "attention", ("output", "weights"))
    if all(type(p) is torch.Tensor for p in pair) and not matching_variants(pair[0], {"right": right[0]}, Q.dtype) \
            and matching_variants(pair[1], {"right": right[0]}, Q.dtype) \
            and matching_variants(pair[0], {"right": right[1]}, Q.dtype):
        raise Misconception("results_reordered", "attention returns (weights, output): both are right, in the "
                            "other order; return (output, weights)")
    carried_convention(fn, pair, Q, K, V, d_k)   # naming62
    fixed_size_said(fn, pair, Q, K, V, d_k)     # naming64
    return pair


def _fixed_count(fn, pair, Q, K, V, d_k, axis):
    """The count n >= 2 the student's weights keep on `axis` (0 the queries, 1 the keys) where the input has another,
    when a second call with 3 more rows on that axis keeps n again and both calls' results are the reference's on the
    first n queries (or keys); None otherwise."""
    w = pair[1]
    size = (Q.shape[0], K.shape[0])[axis]
    n = w.shape[axis] if type(w) is torch.Tensor and w.dim() == 2 else size
    if n == size or not 2 <= n <= size + 8 or n == (K.shape[0], Q.shape[0])[axis]:
        return None         # round126: the other axis's count (queries looped to T_k) is read, not typed: no fixed n
    g = torch.Generator().manual_seed(64)
    more = torch.randn(3, Q.shape[1] if axis == 0 else K.shape[1] + V.shape[1], generator=g, dtype=torch.float64)
    more = more.to(Q.dtype)
    if axis == 0:
        calls = [(Q, K, V, pair), (torch.cat([Q, more]), K, V, None)]
    else:
        K2, V2 = torch.cat([K, more[:, :K.shape[1]]]), torch.cat([V, more[:, K.shape[1]:]])
        calls = [(Q, K, V, pair), (Q, K2, V2, None)]
    for Qc, Kc, Vc, got in calls:
        if got is None:
            try:
                got = fn(Qc, Kc, Vc, d_k)
            except Exception:  # noqa: BLE001 - a replay is only evidence
                return None
        if not (isinstance(got, (tuple, list)) and len(got) == 2 and all(type(t) is torch.Tensor for t in got)):
            return None
        cut = (Qc[:n], Kc, Vc) if axis == 0 else (Qc, Kc[:n], Vc[:n])
        right = ref.attention(*(t.double() for t in cut), d_k)
        if not all(tuple(t.shape) == tuple(r.shape) and matching_variants(t, {"v": r}, Q.dtype)
                   for t, r in zip(got, right)):
            return None
    return n


def fixed_size_said(fn, pair, Q, K, V, d_k) -> None:
    """naming64: a number of queries (or keys) typed as a constant, range(3) for the lesson trace's three tokens: the
    results are those of the first n queries (keys) only, n the same on a second call with 3 more (_fixed_count)."""
    if not (all(type(t) is torch.Tensor for t in (Q, K, V)) and Q.dim() == K.dim() == V.dim() == 2
            and type(pair[1]) is torch.Tensor):
        return
    for axis, what, size, fix in ((0, "queries", "T_q", "Q.shape[0]"), (1, "keys", "T_k", "K.shape[0]")):
        n = _fixed_count(fn, pair, Q, K, V, d_k, axis)
        if n is not None:
            trace = ", the lesson trace's token count" if n == 3 else ""
            raise Misconception("size_fixed_from_example", f"attention's results are those of the first {n} {what} "
                                f"only ({size} = {(Q.shape[0], K.shape[0])[axis]}), and called again with 3 more {what} "
                                f"they are again those of the first {n}: a fixed {n}{trace}, where the count must come "
                                f"from the input: use {fix}. " + describe("size_fixed_from_example"))


def first_row_skipped_variants(Q, K, V, d_k) -> dict:
    """query_loop_from_one (naming76, blind77 q1_query_loop_from_one_as_in_the_sum_index): the right weights and
    output with query row 0 left at zero (a loop over the queries from 1, as the formula's i = 1..T_q), the other rows
    right. Only with 2 or more queries (one query would leave everything 0)."""
    if Q.dim() < 2 or Q.shape[-2] < 2:
        return {}
    out, w = ref.attention(Q, K, V, d_k)
    out, w = out.clone(), w.clone()
    out[..., 0, :] = 0
    w[..., 0, :] = 0
    return {"query_loop_from_one": (out, w)}


def pair_evidence(pair, Q, K, V, d_k, fn=None):
    """(key, (output, weights), message) of the one mistake both results of the same call match: a known
    mistake (reference.pair_variants), else a scale constant fitted to the weights (softmax(Q K^T / c)
    for a c that is not sqrt(d_k), the output following from those weights). None when there is none,
    or more than one. `fn`, the student's attention: a c of d_k / 2 is said to be d_k ** 1/2 only when a
    second call at another d_k divides by that d_k / 2 too (scale_half_d_k_said)."""
    if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(type(p) is torch.Tensor for p in pair)):
        return None
    Q64, K64, V64 = Q.double(), K.double(), V.double()
    right = ref.attention(Q64, K64, V64, d_k)

    def same(a, b):
        return bool(matching_variants(a, {"v": b}, Q.dtype))

    if all(same(p, r) for p, r in zip(pair, right)):
        return None
    hits = {}
    for key, wrong in {**ref.pair_variants(Q64, K64, V64, d_k), **softmax_axis_variants(Q64, K64, V64, d_k, right),
                       **reshaped_keys_variants(Q64, K64, V64, d_k, right),
                       **padding_mask_variants(Q64, K64, V64, d_k), **tiled_totals_variants(Q64, K64, V64, d_k),
                       **clipped_rows_variants(Q64, K64, V64, d_k), **rewrite_pair_variants(Q64, K64, V64, d_k),
                       **rounded_division_variants(Q64, K64, V64, d_k),
                       **first_row_skipped_variants(Q64, K64, V64, d_k),
                       **cummax_shift_pair_variants(Q64, K64, V64, d_k),
                       **sort_gather_pair_variants(Q64, K64, V64, d_k, pair[1])}.items():   # naming88
        if all(same(p, w) for p, w in zip(pair, wrong)):
            hits.setdefault(key.split("/")[0], (key, wrong))
    if "causal_mask_added" in hits and Q.shape[-2] == 1:
        # one query: a causal mask and a padding mask past the queries both leave key 0 alone (naming58)
        _, wrong = hits.pop("causal_mask_added")
        told = one_query_mask_told(fn, Q.dtype)
        if told is not None and not hits:
            return told, wrong, describe(told) + ONE_QUERY_SAID[told]
    if len(hits) == 1:
        base, (_, wrong) = hits.popitem()
        return base, wrong, describe(base)
    if hits:
        return None
    found = online_softmax_evidence(pair, Q64, K64, V64, d_k, same) \
        or row_sums_evidence(pair, Q, K, V, d_k) or rounded_evidence(pair, right, V64, Q.dtype) \
        or top_k_evidence(pair, Q64, K64, V64, d_k, same, (fn, Q.dtype)) or half_softmax_evidence(pair, Q, K, V, d_k, right) \
        or running_normaliser_evidence(pair, Q64, K64, V64, d_k, same) \
        or paired_rows_evidence(pair, Q64, K64, V64, d_k, same)
    if found is not None:
        return found
    # a softmax of scores divided by some constant c fitted to the weights: the dot products (a scale other
    # than sqrt(d_k)), the negative squared distances (a Gaussian kernel), the cosine similarities
    for key, S in ref.kernel_scores(Q64, K64).items():
        c = ref.fitted_scale(S, pair[1])
        if c is None or (key == "wrong_scale_constant" and abs(c / math.sqrt(d_k) - 1) < 1e-6):
            continue
        if c < 0:
            # a negative c is a sign, not a scale: named only as the scores negated with the right constant
            w = torch.softmax(-S / math.sqrt(d_k), dim=-1)
            if key == "wrong_scale_constant" and abs(c / -math.sqrt(d_k) - 1) < 1e-6 \
                    and all(same(p, x) for p, x in zip(pair, (w @ V64, w))):
                return "scores_negated", (w @ V64, w), describe("scores_negated")
            continue
        w = torch.softmax(S / c, dim=-1)
        wrong = (w @ V64, w)
        if not all(same(p, x) for p, x in zip(pair, wrong)) or same(w, right[1]):
            continue
        if key != "wrong_scale_constant":
            return key, wrong, f"{describe(key)} (here c = {c:.4g})"
        for base, said in ((2, "2"), (10, "10"), (2.7, "2.7"), (2.72, "2.72"), (2.718, "2.718"), (3, "3")):
            # base ** x is e ** (x ln base): a softmax in another base is the right one with the scores times
            # ln base, which reads as a scale constant sqrt(d_k) / ln base (blind31's torch.exp2)
            if abs(c * math.log(base) / math.sqrt(d_k) - 1) < 1e-6:
                return "exp_other_base", wrong, (f"{describe('exp_other_base')} (here base {said}: the weights are "
                                                 f"those of the scores times ln {said} = {math.log(base):.4g})")
        rounded = low_precision_scale_said(c, d_k)   # naming76: the scale kept in bfloat16 / float16
        if rounded:
            return "scale_rounded_low_precision", wrong, rounded
        # a scale = d_k ** 1/2 is d_k / 2 (not catalogued: with d_k = 16 it is 8, a d_k of 64 written out): said
        # only where a second call at another d_k divides by its d_k / 2 too (naming40, blind39's d_k = 64)
        hint = ""
        if abs(c / (d_k / 2) - 1) < 1e-6:
            hint = (" (d_k / 2: Python reads d_k ** 1/2 as (d_k ** 1) / 2)" if fn is None
                    else scale_half_d_k_said(fn, c, Q.dtype))
        return key, wrong, (f"{describe(key)}: here c = {c:.4g}{hint}, where the scale is 1/sqrt(d_k) = "
                            f"1/{math.sqrt(d_k):.4g}")
    return saturated_scale_evidence(pair, Q64, K64, V64, d_k, same, (fn, Q.dtype)) \
        or additive_scores_evidence(pair, Q64, K64, V64, same) or factorised_softmax_evidence(pair, Q64, K64, V64,
                                                                                              d_k, same) \
        or kernel_replaced_evidence(pair, Q64, K64, V64, d_k, same, right)


# --- naming58: blind58's q1_keys_beyond_query_length_masked_as_padding (a padding mask past the last query) -------

def _padding_masked(Q64, K64, V64, d_k):
    """(output, weights) with every key j >= T_q blocked for every query (scores[..., T_q:] = -inf): keys past the
    last query read as padding."""
    T_q = Q64.shape[-2]
    s = Q64 @ K64.transpose(-2, -1) / math.sqrt(d_k)
    s[..., T_q:] = float("-inf")
    w = torch.softmax(s, dim=-1)
    return w @ V64, w


def padding_mask_variants(Q64, K64, V64, d_k) -> dict:
    """padding_mask_past_queries (naming58): the replay of _padding_masked where it can be told from the right
    pair and from a causal mask: more keys than queries (else nothing is blocked) and more than one query (with
    one, both masks leave key 0 alone: one_query_mask_told asks a second call)."""
    if Q64.dim() != 2 or K64.dim() != 2 or not 1 < Q64.shape[-2] < K64.shape[-2]:
        return {}
    return {"padding_mask_past_queries": _padding_masked(Q64, K64, V64, d_k)}


ONE_QUERY_SAID = {
    "causal_mask_added": " (with one query it leaves key 0 alone; a second call with 3 queries and 6 keys shows "
                         "query i seeing keys 0 to i)",
    "padding_mask_past_queries": " (with one query only key 0 is left; a second call with 3 queries and 6 keys "
                                 "shows keys 3 to 5 blocked for every query)",
}


def one_query_mask_told(fn, dtype) -> str | None:
    """Which mask a call with one query that sees key 0 alone comes from (naming58): on a second call (T_q 3,
    T_k 6, d_k 5, d_v 4, seeded 58) both results a causal mask's (query i sees keys 0 to i) or the padding mask's
    (keys 3 to 5 blocked for every query): that key; None without `fn`, on a crash, or when neither fits."""
    if fn is None:
        return None
    g = torch.Generator().manual_seed(58)
    Q2, K2, V2 = (torch.randn(n, d, generator=g, dtype=torch.float64) for n, d in ((3, 5), (6, 5), (6, 4)))
    try:
        again = fn(Q2.to(dtype), K2.to(dtype), V2.to(dtype), 5)
    except Exception:  # noqa: BLE001 - a second call is only evidence
        return None
    if not (isinstance(again, (tuple, list)) and len(again) == 2 and all(type(p) is torch.Tensor for p in again)):
        return None
    for key, wrong in (("causal_mask_added", ref.attention_causal(Q2, K2, V2, 5)),
                       ("padding_mask_past_queries", _padding_masked(Q2, K2, V2, 5))):
        if all(tuple(p.shape) == tuple(w.shape) and matching_variants(p, {"v": w}, dtype)
               for p, w in zip(again, wrong)):
            return key
    return None


def scale_half_d_k_said(fn, c, dtype) -> str:
    """What a second call says of a fitted scale constant c that equals d_k / 2 on the first input (naming40,
    blind39 q1_d_k_overwritten_with_papers_64: d_k = 64 written over the argument divides by 8, which is 16 / 2
    at d_k = 16): on a probe at d_k = 10 (T_q 3, T_k 5, d_v 4) both results softmax(Q K^T / 5) is d_k ** 1/2
    read as (d_k ** 1) / 2; the same c there is a constant that does not follow d_k; else nothing is added."""
    g = torch.Generator().manual_seed(40)
    d2 = 10 if abs(c - 5) > 1e-6 else 6
    Q2, K2, V2 = (torch.randn(n, d, generator=g, dtype=torch.float64) for n, d in ((3, d2), (5, d2), (5, 4)))
    try:
        again = fn(Q2.to(dtype), K2.to(dtype), V2.to(dtype), d2)
    except Exception:  # noqa: BLE001 - a second call is only evidence
        return ""
    if not (isinstance(again, (tuple, list)) and len(again) == 2 and all(type(p) is torch.Tensor for p in again)):
        return ""
    S2 = Q2 @ K2.T
    for c2, said in ((d2 / 2, f" (d_k / 2, here and with d_k = {d2} on a second call: Python reads d_k ** 1/2 as "
                               "(d_k ** 1) / 2)"),
                     (c, f" (a constant: a second call with d_k = {d2} divides by {c:.4g} too, so the scale does "
                         "not follow the d_k passed in)")):
        w = torch.softmax(S2 / c2, dim=-1)
        if all(matching_variants(p, {"v": x}, dtype) for p, x in zip(again, (w @ V2, w))):
            return said
    return ""


def reshaped_keys_variants(Q64, K64, V64, d_k, right) -> dict:
    """view_as_transpose (naming38, blind37 q1_keys_reshaped_not_transposed): K (T_k, d_k) re-read as a (d_k, T_k)
    matrix with .reshape or .view where K.T was meant (the same numbers in row order, so every score mixes
    coordinates of different keys), then the softmax and the product with V. Left out where it cannot be told
    apart: a square K (the reshape is K itself, Q @ K: keys_not_transposed), one key (the reshape is K^T), or
    weights that equal the right ones on this input."""
    if K64.dim() != 2 or Q64.dim() != 2 or K64.shape[-2] in (1, K64.shape[-1]) or Q64.shape[-1] != K64.shape[-1]:
        return {}
    w = torch.softmax(Q64 @ K64.reshape(K64.shape[-1], K64.shape[-2]) / math.sqrt(d_k), dim=-1)
    if torch.allclose(w, right[1], rtol=1e-9, atol=1e-12):
        return {}
    return {"view_as_transpose": (w @ V64, w)}


def factorised_softmax_evidence(pair, Q64, K64, V64, d_k, same):
    """linear_attention (naming35, blind34 q1_efficient_attention_factorised_softmaxes): the weights are
    softmax(Q / s_q) over the features times softmax(K / s_k) over the positions, transposed ("efficient"
    attention, whose rows sum to 1), s_q and s_k each 1, d_k ** 0.25 or sqrt(d_k), and the output those weights
    times V, both results of the same call matching. Random inputs: no dot-product mistake gives these."""
    if Q64.shape[-1] != K64.shape[-1] or K64.shape[-2] != V64.shape[-2]:
        return None
    scales = (1.0, d_k ** 0.25, d_k ** 0.5)
    for s_q in scales:
        for s_k in scales:
            w = torch.softmax(Q64 / s_q, dim=-1) @ torch.softmax(K64 / s_k, dim=-2).transpose(-2, -1)
            wrong = (w @ V64, w)
            if all(same(p, x) for p, x in zip(pair, wrong)):
                return "linear_attention", wrong, (f"{describe('linear_attention')} (here softmax(Q / {s_q:.4g}) "
                                                   f"times softmax(K / {s_k:.4g}) transposed)")
    return None


_CLAMPS = (1.0, 2.0, 3.0, 5.0)


def kernel_replays(Q64, K64, V64, d_k, right) -> dict:
    """{what is said: (output, weights)} of a softmax whose exp is another function f of the scores s (naming47,
    blind46 q1_elu_plus_one_kernel_instead_of_exp): the weights f(s) / sum of f(s) over the keys, the output those
    weights times V, for f = elu(s) + 1 (the linear-attention feature map), relu(s), softplus(s), 1 + s and
    1 + s + s ** 2 / 2 (exp's Taylor terms), s ** 2, and exp of s clamped at +-c, at +c or at -c (c in _CLAMPS); s the
    scaled scores Q K^T / sqrt(d_k) or the unscaled Q K^T (relu and s ** 2 only once: a constant factor cancels in
    their ratio). A row of relu(s) that is all 0 is NaN in the replay as in the student's (0 / 0). Left out: a
    replay with an infinite entry or no finite one, whose weights equal the right ones on this input (a clamp
    the scores never reach, every score <= 0 for elu + 1), that equals an earlier replay, or whose pair is within
    float32's tolerance of the right pair or of a catalogued mistake's (reference.pair_variants)."""
    if Q64.dim() != 2 or K64.dim() != 2 or Q64.shape[-1] != K64.shape[-1] or K64.shape[-2] != V64.shape[-2]:
        return {}
    S = Q64 @ K64.T
    catalogued = [right, *ref.pair_variants(Q64, K64, V64, d_k).values()]
    out = {}
    for scaled, s, on in ((True, S / math.sqrt(d_k), "the scaled scores Q K^T / sqrt(d_k)"),
                          (False, S, "the unscaled scores Q K^T (never divided by sqrt(d_k))")):
        kernels = {"elu(s) + 1": torch.nn.functional.elu(s) + 1, "softplus(s)": torch.nn.functional.softplus(s),
                   "1 + s": 1 + s, "1 + s + s ** 2 / 2": 1 + s + s * s / 2}
        if scaled:
            kernels.update({"relu(s)": s.clamp(min=0), "s ** 2": s * s})
        for c in _CLAMPS:
            kernels[f"exp(s.clamp(max={c:g}))"] = s.clamp(max=c).exp()
            kernels[f"exp(s.clamp(min={-c:g}))"] = s.clamp(min=-c).exp()
            kernels[f"exp(s.clamp({-c:g}, {c:g}))"] = s.clamp(-c, c).exp()
        for said, f in kernels.items():
            w = f / f.sum(dim=-1, keepdim=True)
            if bool(torch.isinf(w).any()) or not bool(torch.isfinite(w).any()) \
                    or torch.allclose(w, right[1], rtol=1e-9, atol=1e-12) \
                    or any(torch.allclose(w, w2, rtol=1e-9, atol=1e-12, equal_nan=True) for _o, w2 in out.values()):
                continue   # a clamp at -c and c whose -c no score reaches is told as the clamp at c alone
            if any(all(matching_variants(x, {"v": y}, torch.float32) for x, y in zip((w @ V64, w), other))
                   for other in catalogued):
                continue   # within float32's tolerance of a catalogued mistake (a clamp at 5 of the unscaled scores)
            out[f"{said}, on {on}"] = (w @ V64, w)
    return out


def kernel_replaced_evidence(pair, Q64, K64, V64, d_k, same, right):
    """softmax_kernel_replaced (naming47): both results of the same call match exactly one kernel_replays replay
    (two that match, or one that matches a replay of another kernel, leave it unnamed). None otherwise."""
    hits = [(said, wrong) for said, wrong in kernel_replays(Q64, K64, V64, d_k, right).items()
            if all(same(p, x) for p, x in zip(pair, wrong))]
    if len(hits) != 1:
        return None
    said, wrong = hits[0]
    f, on = said.split(", on ")
    return "softmax_kernel_replaced", wrong, (f"{describe('softmax_kernel_replaced')} (here the weights are {f} "
                                              f"over its row sum, where exp(s) belongs; s is {on})")


def additive_scores_evidence(pair, Q64, K64, V64, same):
    """additive_scores (naming31, blind28 q1_additive_tanh_scores): softmax(S / c) with S[i, j] = sum over the
    features of tanh(q_i + k_j), Bahdanau's score without its weights, for the one c > 0 fitted to the weights
    (sqrt(d_k), or 1 unscaled), both results of the same call matching it. Random inputs: no dot-product mistake
    gives these weights. None otherwise."""
    if Q64.dim() != 2 or K64.dim() != 2 or Q64.shape[-1] != K64.shape[-1]:
        return None
    S = torch.tanh(Q64.unsqueeze(-2) + K64.unsqueeze(-3)).sum(-1)
    c = ref.fitted_scale(S, pair[1])
    if c is None or c <= 0:
        return None
    w = torch.softmax(S / c, dim=-1)
    wrong = (w @ V64, w)
    if not all(same(p, x) for p, x in zip(pair, wrong)):
        return None
    return "additive_scores", wrong, f"{describe('additive_scores')} (here divided by c = {c:.4g})"


def draw_inputs(rng, T_q, T_k, d_k, d_v, dtype, scale=1.0):
    Q = randn((T_q, d_k), rng, dtype, scale)
    K = randn((T_k, d_k), rng, dtype, scale)
    V = randn((T_k, d_v), rng, dtype)
    return Q, K, V


def _made_in_float32(t: object) -> bool:
    """Every entry of a float64 tensor is a float32 number: it went through float32 and was cast back."""
    return (type(t) is torch.Tensor and t.dtype == torch.float64 and bool(torch.isfinite(t).all())
            and torch.equal(t, t.float().double()))


class FirstQueryOnly(AssertionError):
    """Both results of one call are the right results' first query row alone (scale_as_written reads why)."""


def raise_if_first_query_only(pair, Q, K, V, d_k, what) -> None:
    """FirstQueryOnly where T_q > 1 and the call's output and weights are (1, d_v) and (1, T_k), each the right
    result's first row (naming57, blind57 q1_return_indented_into_query_loop: a return inside the loop over the
    queries): a replay of that mistake on the call's own inputs."""
    if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(type(p) is torch.Tensor for p in pair)) \
            or Q.dim() != 2 or Q.shape[0] < 2:
        return
    right = ref.attention(Q.double(), K.double(), V.double(), d_k)
    if all(tuple(p.shape) == (1, r.shape[-1]) and matching_variants(p, {"v": r[:1]}, Q.dtype)
           for p, r in zip(pair, right)):
        raise FirstQueryOnly(f"{what} has shape {tuple(pair[1].shape)}, expected {tuple(right[1].shape)}, and the "
                             f"output {tuple(pair[0].shape)}, expected {tuple(right[0].shape)}: both hold only the "
                             "first query's row (which is right)")


def zip_of_queries_and_keys(func) -> bool:
    """Whether attention's source zips its queries with its keys: a call zip(...) (or torch's) whose arguments
    include attention's first two parameters, read as names (bounded: one function of a cell under _READ_LIMIT)."""
    import ast
    names = _params(func)[:2]
    if len(names) < 2:
        return False
    # the zip is what a loop (or a comprehension that is not a check) walks: its rows are the queries' (red-team round
    # 134: `assert all(q.shape == k.shape for q, k in zip(Q, K))` beside a row loop over range(len(K)), the key count,
    # was told zip_stops_at_shorter where the one-edit fix, Q for K, was the answer)
    checks = {id(n) for c in ast.walk(func) if isinstance(c, ast.Assert) or (
        isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id in ("all", "any"))
        for n in ast.walk(c)}
    for loop in ast.walk(func):
        if not isinstance(loop, (ast.For, ast.comprehension)) or id(loop) in checks:
            continue
        node = loop.iter
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "enumerate" and node.args:
            node = node.args[0]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "zip":
            used = {a.id for a in node.args if isinstance(a, ast.Name)}
            if set(names) <= used:
                return True
    return False


def raise_if_queries_cut_by_zip(pair, right, Q, K) -> None:
    """zip_stops_at_shorter (naming72, blind72 q1_score_rows_from_zip_of_queries_and_keys): with more queries than
    keys, the output and weights are the right ones' first T_k rows (one row per key: the loop over the queries
    stopped after T_k of them), and attention's source zips Q with K (zip stops at the shorter)."""
    T_q, T_k = Q.shape[-2], K.shape[-2]
    if Q.dim() != 2 or T_q <= T_k or not (isinstance(pair, (tuple, list)) and len(pair) == 2
                                          and all(type(p) is torch.Tensor for p in pair)):
        return
    if not all(tuple(p.shape) == (T_k, r.shape[-1]) and matching_variants(p, {"v": r[:T_k]}, Q.dtype)
               for p, r in zip(pair, right)):
        return
    if not zip_of_queries_and_keys(_function_read(None, "attention")):
        return
    raise Misconception("zip_stops_at_shorter", f"with T_q = {T_q} queries and T_k = {T_k} keys the output has shape "
                        f"{tuple(pair[0].shape)}, not {tuple(right[0].shape)}, and the weights {tuple(pair[1].shape)}: "
                        f"both are the right results' first {T_k} rows, and your attention zips Q with K: "
                        + describe("zip_stops_at_shorter"))


def check_pair(pair, Q, K, V, d_k, part, fn=None):
    """One part of the student's (output, weights) from one call; the other part is evidence for what
    this one was made of (pair_evidence, and a softmax done in float32)."""
    # oracle and wrong variants in float64, compared with the tolerance of the input dtype
    Q64, K64, V64 = Q.double(), K.double(), V.double()
    index = {"output": 0, "weights": 1}[part]
    got, weights = pair[index], pair[1]
    right = ref.attention(Q64, K64, V64, d_k)
    expected = right[index]
    named = "weight matrix" if part == "weights" else "output"
    variants = ref.wrong_variants(Q64, K64, V64, d_k, part)
    if Q.shape[-2] == 1:   # one query: a causal mask is not told from a padding mask by one part (naming58)
        variants.pop("causal_mask_added", None)
    if Q.dtype == torch.float64 and type(got) is torch.Tensor and got.dtype == torch.float32 \
            and matching_variants(got, {"right": expected}, torch.float32):
        buffer = default_buffer_said(_function_read(None, "attention"))   # naming74: the cause, a float32 buffer
        if buffer is not None:
            raise Misconception("float32_default_buffer", f"the {named} comes back as float32 for float64 inputs "
                                f"(right to float32's precision), and your code stores it in `{buffer}`: "
                                + describe("float32_default_buffer"))
        raise Misconception("float32_precision", f"the {named} comes back as float32 for float64 inputs (right "
                            "to float32's precision): " + describe("float32_precision"))
    if type(got) is torch.Tensor and got.dtype == Q.dtype and matching_variants(got, {"right": expected}, Q.dtype):
        return
    raise_if_dtype_changed(got, expected, Q.dtype, f"the {named}", "attention")
    raise_if_first_query_only(pair, Q, K, V, d_k, "the weight matrix")
    raise_if_queries_cut_by_zip(pair, right, Q, K)   # naming72
    if part == "weights":
        raise_if_weights_transposed(pair, right, Q.dtype, f"the {named}")
    if part == "output":
        raise_if_output_transposed(got, expected, Q.dtype, "the output", right[1], V64)
        raise_if_output_over_grand_total(pair, Q, K, V, d_k, "the output")
    found = pair_evidence(pair, Q, K, V, d_k, fn)
    if found is not None and type(got) is torch.Tensor and matching_variants(got, {"v": found[1][index]}, Q.dtype):
        said = f"the {named} is wrong: with the other result of the same call it matches " + found[2]
        if fn is not None:
            confirm_size_scale(fn, found[0], f"the {named} is wrong")
        raise Misconception(found[0], said)
    if Q.dtype == torch.float64:
        # a softmax done in float32: weights that are float32 numbers, right to float32's rounding
        if _made_in_float32(weights) and not _made_in_float32(right[1]) \
                and matching_variants(weights, {"right": right[1]}, torch.float32):
            variants["float32_precision"] = weights if part == "weights" else weights @ V64
    try:
        assert_matches(got, expected, what=f"the {named}", dtype=Q.dtype, variants=variants)
    except Misconception as named_as:
        if named_as.key == "no_softmax" and part == "output":   # naming74: the weights of the same call right
            raise_if_output_from_scores(pair, right, Q.dtype, f"the {named}")
        if fn is not None:
            confirm_size_scale(fn, named_as.key, f"the {named} is wrong")
        raise
    except AssertionError as failure:
        if part == "output":
            raise_if_summed_over_queries(got, weights, right, V, Q.dtype)
            raise_if_output_averaged(got, weights, right, K.shape[-2], Q.dtype)
        if fn is not None:   # nothing named: a second call that differs shows randomness (dropout left on)
            raise_if_sqrt_of_scores(fn, pair, Q, K, V, d_k, named)
            _raise_if_random(fn, Q, K, V, d_k, pair)
        said = rows_summary(weights, "the weight matrix") if part == "weights" else ""
        if not said:
            raise
        raise AssertionError(f"{failure}{said}") from None


# A scale by one of the input's sizes (a sequence length, d_v) is told from a constant that equals it on one
# input (0.5 is 1/sqrt(4): T = 4 or d_v = 4 there, blind27) by a second call where every size differs
SIZE_SCALES = ("scale_by_T", "scale_by_T_queries", "scale_by_d_v")
_SIZE_PROBE_SHAPES = {"T_q": 3, "T_k": 7, "d_k": 5, "d_v": 6}


def low_precision_scale_said(c: float, d_k) -> str:
    """scale_rounded_low_precision (naming76, blind76 q1_scale_buffer_registered_in_bfloat16): the fitted divisor c
    is, to 1e-6 relative, sqrt(d_k) or 1 / (d_k ** -0.5) rounded to bfloat16 or float16, and not sqrt(d_k) itself
    (sqrt(d_k) a power of 2 rounds exactly). The message, or "" where c is not such a rounding."""
    try:
        exact = math.sqrt(d_k)
    except (TypeError, ValueError):
        return ""
    if abs(c / exact - 1) < 1e-6:
        return ""
    for dtype, name in ((torch.bfloat16, "bfloat16"), (torch.float16, "float16")):
        for form, kept in (("1/sqrt(d_k)", 1 / torch.tensor(d_k ** -0.5, dtype=dtype).item()),
                           ("sqrt(d_k)", torch.tensor(exact, dtype=dtype).item())):
            if abs(c / kept - 1) < 1e-6:
                return (f"dividing the scores by c = {c:.6g} where sqrt(d_k) = {exact:.6g}: that c is {form} rounded "
                        f"to {name} ({(1 / kept if form[0] == '1' else kept):.6g}); "
                        + describe("scale_rounded_low_precision"))
    return ""


def _confirm_sqrt_multiplied(fn, said) -> None:
    """naming84 (blind84 q1_einsum_keys_given_their_own_feature_letter, mis-named): multiply_by_sqrt_dk kept only
    where the weights on the size probe (plain random Q, K, V, every size different) are that mistake's there too.
    On expanded queries (each row one number repeated d_k times) the einsum '...qd,...ke->...qk' (sum of q times
    sum of k) is sqrt(d_k) times the dot product over sqrt(d_k): a coincidence of the input, which the probe
    shows. A probe that raises, or returns no weight matrix, leaves the name as it was."""
    g = torch.Generator().manual_seed(84)
    sizes = _SIZE_PROBE_SHAPES
    Q = torch.randn(sizes["T_q"], sizes["d_k"], generator=g, dtype=torch.float64)
    K = torch.randn(sizes["T_k"], sizes["d_k"], generator=g, dtype=torch.float64)
    V = torch.randn(sizes["T_k"], sizes["d_v"], generator=g, dtype=torch.float64)
    try:
        pair = fn(Q, K, V, sizes["d_k"])
    except StudentCodeError:
        return
    weights = pair[1] if isinstance(pair, (tuple, list)) and len(pair) == 2 else None
    if type(weights) is not torch.Tensor or weights.shape != (sizes["T_q"], sizes["T_k"]) \
            or weights.dtype != torch.float64:
        return
    times = ref.ATTENTION_VARIANTS["multiply_by_sqrt_dk"](Q, K, V, sizes["d_k"])[1]
    if not matching_variants(weights, {"multiply_by_sqrt_dk": times}, torch.float64):
        raise AssertionError(f"{said} (it matches multiplying the scores by sqrt(d_k) on this input only)")


def confirm_size_scale(fn, key, said):
    """Keep a SIZE_SCALES name only where the student's weights on a probe whose sizes all differ (T_q 3, T_k 7,
    d_k 5, d_v 6) are that mistake's there too; where they are a softmax of the scores over one constant instead,
    name wrong_scale_constant with it; else (nothing fits) the failure names nothing."""
    if key == "multiply_by_sqrt_dk":   # naming74: the cause, where the source divides by 1/sqrt(d_k)
        raise_if_reciprocal_divided(said)
        _confirm_sqrt_multiplied(fn, said)
    if key not in SIZE_SCALES:
        return
    g = torch.Generator().manual_seed(27)
    sizes = _SIZE_PROBE_SHAPES
    Q = torch.randn(sizes["T_q"], sizes["d_k"], generator=g, dtype=torch.float64)
    K = torch.randn(sizes["T_k"], sizes["d_k"], generator=g, dtype=torch.float64)
    V = torch.randn(sizes["T_k"], sizes["d_v"], generator=g, dtype=torch.float64)
    try:
        pair = fn(Q, K, V, sizes["d_k"])
    except StudentCodeError:
        raise AssertionError(f"{said} (it matches a scale by one of the input's sizes on this input only)") from None
    weights = pair[1] if isinstance(pair, (tuple, list)) and len(pair) == 2 else None
    if type(weights) is torch.Tensor and weights.shape == (sizes["T_q"], sizes["T_k"]):
        wrong = ref.wrong_variants(Q, K, V, sizes["d_k"], "weights")
        if matching_variants(weights, {k: v for k, v in wrong.items() if k.split("/")[0] in SIZE_SCALES},
                             torch.float64):
            return      # a size there too (which one is the first input's to say: both lengths read as T)
        c = ref.fitted_scale(Q @ K.T, weights)
        if c is not None and matching_variants(weights, {"c": torch.softmax(Q @ K.T / c, dim=-1)}, torch.float64):
            raise Misconception("wrong_scale_constant", f"{said}: it divides the scores by {c:.4g} whatever the "
                                "sizes (a second call with T_q 3, T_k 7, d_k 5, d_v 6 divides by it too): "
                                + describe("wrong_scale_constant"))
    raise AssertionError(f"{said} (it matches a scale by one of the input's sizes on this input only)")


def _default_bias_linear(submission) -> bool:
    """True where multi_head_attention (or anything it calls) builds nn.Linear layers, touches no `.bias` and uses
    no dropout, and every Linear(...) call in the notebook's cells leaves `bias` at its default
    (source_checks.linear_bias_kept). Bounded: cells under 20,000 characters, at most 20,000 nodes each."""
    import ast
    import itertools
    from autograder.grading.source_checks import SourceUnreadable, cells_of, function_uses_attribute, linear_bias_kept
    try:
        cells = cells_of(submission)
        if not function_uses_attribute(cells, "multi_head_attention", "Linear") or function_uses_attribute(
                cells, "multi_head_attention", ("bias", "dropout", "Dropout", "dropout_", "bernoulli", "rand")):
            return False
    except SourceUnreadable:
        return False
    built = 0
    for cell in cells[:200]:
        tree = _parsed(cell) if len(cell) <= 20_000 and "Linear" in cell else None
        for n in itertools.islice(ast.walk(tree), 20_000) if tree is not None else ():
            kept = linear_bias_kept(n)
            if kept is False:
                return False
            built += kept is True
    return built > 0


def nondeterministic_said(submission, fn, args, got, what: str) -> None:
    """raise_if_nondeterministic, told as mha_linear_default_bias (naming76, blind76
    q8_linear_layers_loaded_but_default_bias_kept) where the source builds nn.Linear layers with their default
    bias=True and nothing else random (_default_bias_linear): the layers' random biases are what differs per call."""
    try:
        raise_if_nondeterministic(fn, args, {}, got, what)
    except Misconception as m:
        if m.key != "nondeterministic" or submission is None or not _default_bias_linear(submission):
            raise
        raise Misconception("mha_linear_default_bias", f"{what} gives different outputs for the same input, and "
                            "multi_head_attention builds nn.Linear layers without bias=False: "
                            + describe("mha_linear_default_bias")) from None


def new_layers_from_source(submission, said):
    """mha_new_layers where multi_head_attention (or anything it calls) builds nn.Linear layers and never sets
    their weights (no `.weight`, `copy_` or `load_state_dict` in reach): random projections in place of the given
    W_Q, W_K, W_V (blind27; float64 inputs then crash on float32 layers, which alone says only a dtype mix). Read
    from the source only, once the answer failed; None otherwise."""
    from autograder.grading.source_checks import SourceUnreadable, cells_of, function_uses_attribute
    if submission is None:
        return None
    try:
        cells = cells_of(submission)
        if not function_uses_attribute(cells, "multi_head_attention", "Linear") or function_uses_attribute(
                cells, "multi_head_attention", ("weight", "copy_", "load_state_dict")):
            return None
    except SourceUnreadable:
        return None
    return Misconception("mha_new_layers", f"{said}, and multi_head_attention builds new nn.Linear layers whose "
                         "weights it never sets: " + describe("mha_new_layers"))


# --- the square root taken of the scores (issue 21, naming20) ---------------------------------------------

# The root put around the scores instead of d_k alone: each form's softmax, NaN in every row with a negative score
SQRT_FORMS = {
    "sqrt(Q K^T / d_k)": lambda S, d: torch.sqrt(S / d),
    "sqrt(Q K^T) / d_k": lambda S, d: torch.sqrt(S) / d,
    "sqrt(Q K^T)": lambda S, d: torch.sqrt(S),
    "sqrt(Q K^T / sqrt(d_k))": lambda S, d: torch.sqrt(S / math.sqrt(d)),
}
# A second input, d_k = 4 (the four forms' finite rows differ): rows 0 and 2 score only positive (finite under
# every form), row 1 scores -0.86 against key 0 (NaN under every form)
SQRT_PROBE = (torch.tensor([[1.0, 0.5, 2.0, 0.3], [-1.0, 0.2, 0.4, -0.8], [0.7, 1.5, 0.1, 0.9]]),
              torch.tensor([[0.5, 1.0, 0.2, 0.8], [1.2, 0.3, 0.9, 0.1], [0.1, 0.6, 1.4, 0.5], [0.9, 0.9, 0.3, 1.1]]),
              torch.tensor([[1.0, -0.5], [0.2, 0.8], [-1.1, 0.4], [0.6, 0.3]]))


def _sqrt_pair(Q, K, V, d_k, form):
    w = torch.softmax(SQRT_FORMS[form](Q.double() @ K.double().transpose(-2, -1), d_k), dim=-1)
    return w @ V.double(), w


def _same_with_nan(got, want, dtype) -> bool:
    """got has want's shape, NaN exactly where want is, and its other entries close to want's."""
    if type(got) is not torch.Tensor or tuple(got.shape) != tuple(want.shape) or not got.is_floating_point():
        return False
    g = got.detach().double()
    nan = torch.isnan(want)
    if not torch.equal(torch.isnan(g), nan):
        return False
    return bool(nan.all()) or bool(matching_variants(g[~nan], {"v": want[~nan]}, dtype))


def raise_if_sqrt_of_scores(fn, pair, Q, K, V, d_k, named) -> None:
    """sqrt_of_scores: both results of the call NaN exactly in the rows whose scores Q K^T hold a negative entry,
    their other rows softmax(sqrt(...)) of one form (SQRT_FORMS), and a second call on SQRT_PROBE (rows of
    positive scores and one row with a negative score) giving that same form's NaN rows and finite rows. A
    form whose replay is the right attention on that input is not named."""
    if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(type(p) is torch.Tensor for p in pair)) \
            or Q.dim() != 2 or not bool(torch.isnan(pair[1]).any()):
        return
    forms = [f for f in SQRT_FORMS if all(_same_with_nan(p, w, Q.dtype)
                                          for p, w in zip(pair, _sqrt_pair(Q, K, V, d_k, f)))]
    if not forms:
        return
    Qp, Kp, Vp = (t.to(Q.dtype) for t in SQRT_PROBE)
    try:
        again = fn(Qp.clone(), Kp.clone(), Vp.clone(), 4)
    except Exception:  # noqa: BLE001 - a second call is only evidence
        return
    if not (isinstance(again, (tuple, list)) and len(again) == 2):
        return
    right = ref.attention(Qp.double(), Kp.double(), Vp.double(), 4)
    hits = [f for f in forms if all(_same_with_nan(p, w, Q.dtype) for p, w in zip(again, _sqrt_pair(Qp, Kp, Vp, 4, f)))
            and not matching_variants(again[1], {"right": right[1]}, Q.dtype)]
    if len(hits) != 1:
        return
    S = Q.double() @ K.double().transpose(-2, -1)
    rows = int((S < 0).any(dim=-1).sum())
    raise Misconception("sqrt_of_scores", f"the {named} is NaN in exactly the {rows} of {S.shape[0]} rows whose scores "
                        f"Q K^T hold a negative entry, and on a second input (d_k = 4) its rows of positive scores are "
                        f"softmax({hits[0]}) while the row with a negative score is NaN again: "
                        + describe("sqrt_of_scores"))


def _raise_if_random(fn, Q, K, V, d_k, pair):
    """nondeterministic when a second call differs, and only for a pair of two tensors: the engine's comparison
    knows tensors and numbers, so two NumPy arrays (or lists) of the same values would read as different."""
    if isinstance(pair, (tuple, list)) and len(pair) == 2 and all(type(p) is torch.Tensor for p in pair):
        raise_if_nondeterministic(fn, (Q, K, V, d_k), {}, pair, what="attention")


def answer_part(fn, index):
    """The student's attention, answering only its output (0) or its weights (1)."""
    def picked(*args, **kwargs):
        return expect_tuple(fn(*args, **kwargs), "attention", ("output", "weights"))[index]
    return picked


def check_layout(fn, Q, K, V, what):
    d_k = Q.shape[-1]
    found = pair = None
    try:
        # names results returned in the wrong order (or one of them alone); a crash is check_value's
        pair = call_pair(fn, Q, K, V, d_k)
        raise_if_first_query_only(pair, Q, K, V, d_k, f"the weight matrix {what}")
        found = pair_evidence(pair, Q, K, V, d_k, fn)
        right = ref.attention(Q.double(), K.double(), V.double(), d_k)
        if isinstance(pair, (tuple, list)) and len(pair) == 2:
            raise_if_output_transposed(pair[0], right[0], Q.dtype, f"the output {what}", right[1], V)
            raise_if_weights_transposed(pair, right, Q.dtype, f"the weight matrix {what}")
            raise_if_output_over_grand_total(pair, Q, K, V, d_k, f"the output {what}")
        if found is None and not all(type(p) is torch.Tensor and matching_variants(p, {"right": r}, Q.dtype)
                                     for p, r in zip(pair, right)):
            try:   # named here only (the factor said on its own is left to check_value's shrunk example)
                raise_if_output_averaged(pair[0], pair[1], right, K.shape[-2], Q.dtype)
                raise_if_summed_over_queries(pair[0], pair[1], right, V, Q.dtype)
            except Misconception:
                raise
            except AssertionError:
                pass
            raise_if_sqrt_of_scores(fn, pair, Q, K, V, d_k, f"weight matrix {what}")
            _raise_if_random(fn, Q, K, V, d_k, pair)
    except StudentCodeError:
        pass
    args = TensorArgs({"Q": Q, "K": K, "V": V, "d_k": Derived(lambda t: t["Q"].shape[-1])},
                      {"T_q": {"Q": -2}, "T_k": {"K": -2, "V": -2}, "d_k": {"Q": -1, "K": -1}, "d_v": {"V": -1}},
                      together_dims=(("T_q", "T_k"),), compare=(("T_q", "T_k"),))
    Q64, K64, V64 = Q.double(), K.double(), V.double()
    expected = ref.attention(Q64, K64, V64, d_k)
    for index, part in ((1, "weights"), (0, "output")):
        try:
            check_value(answer_part(fn, index), args, expected[index],
                        reference=lambda Q, K, V, d_k, i=index: ref.attention(Q, K, V, d_k)[i],
                        what=f"the {'weight matrix' if part == 'weights' else 'output'} {what}", name="attention",
                        judge=dtype_judge(expected[index], f"the {'weight matrix' if part == 'weights' else 'output'} "
                                          f"{what}", Q.dtype, ({found[0]: found[1][index]} if found is not None
                                                               else ref.wrong_variants(Q64, K64, V64, d_k, part)),
                                          "attention"))
        except Misconception as named_as:
            if named_as.key == "state_kept_between_calls" and part == "output":   # naming71: which state, by its effect
                raise_if_result_accumulated(fn, Q, K, V, d_k, what)
            if named_as.key == "dtype_changed" and part == "weights":   # naming71: the precision it went through
                raise half_weights_said(named_as, pair, Q.dtype, expected[1]) from None
            if named_as.key == "no_softmax" and part == "output":   # naming74: the weights of the same call right
                raise_if_output_from_scores(pair, expected, Q.dtype, f"the output {what}")
            confirm_size_scale(fn, named_as.key, f"the {'weight matrix' if part == 'weights' else 'output'} {what} "
                               "is wrong")
            raise
        except AssertionError:
            if part == "output":   # naming71: out.addmm_ onto a buffer kept per shape (two more calls)
                raise_if_result_accumulated(fn, Q, K, V, d_k, what)
            raise


# --- kinds named from a property of the answer (issue 21, fifth round) ---------------------------------

def raise_if_output_over_grand_total(pair, Q, K, V, d_k, what) -> None:
    """softmax_whole_matrix said of the output alone (naming42, blind41 q1_kernel_regression_output_over_grand_total:
    `kernel @ V / kernel.sum()` beside right weights): the weights returned by the same call are right (each row sums
    to 1) while the output is exp(scores) @ V over ONE sum of the whole matrix, the whole-matrix softmax's output; the
    key's text speaks of the weights, so this says the output. Each output row is then the right row times its
    row's share of the grand total, which random inputs make differ from row to row (no constant factor, no other
    catalogued output). Nothing is said otherwise."""
    if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(type(p) is torch.Tensor for p in pair)):
        return
    Q64, K64, V64 = Q.double(), K.double(), V.double()
    right = ref.attention(Q64, K64, V64, d_k)
    out, w = pair
    if w.dtype != Q.dtype or out.dtype != Q.dtype or not matching_variants(w, {"right": right[1]}, Q.dtype) \
            or matching_variants(out, {"right": right[0]}, Q.dtype):
        return
    whole = ref.ATTENTION_VARIANTS["softmax_whole_matrix"](Q64, K64, V64, d_k)[0]
    if not matching_variants(out, {"softmax_whole_matrix": whole}, Q.dtype):
        return
    e = torch.exp(Q64 @ K64.transpose(-2, -1) / math.sqrt(d_k))
    share = e.sum(dim=-1) / e.sum()
    raise Misconception("softmax_whole_matrix", f"{what} is wrong, though the weights returned with it are right: it "
                        "is exp(scores) @ V divided by ONE sum over the whole matrix (every entry, e.g. kernel.sum()) "
                        "instead of each query's own row sum: return weights @ V, or divide by "
                        "exp(scores).sum(dim=-1, keepdim=True) (each output row is now the right one times its row's "
                        f"share of the total, here {float(share.min()):.3g} ... {float(share.max()):.3g})")


def row_sums_evidence(pair, Q, K, V, d_k):
    """(key, (output, weights), message) when the weights are non-negative and, each row divided by its own
    sum, exactly the right weights, while the rows do not sum to 1: a softmax numerator never divided by
    its row sum, whatever was subtracted first (weights_not_normalised), or divided by one sum over the
    whole matrix (softmax_whole_matrix). The output must then be those weights times V. Rows that all sum
    to one constant are a constant factor, named nothing here (the generic message says the factor)."""
    if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(type(p) is torch.Tensor for p in pair)):
        return None
    right = ref.attention(Q.double(), K.double(), V.double(), d_k)[1]
    w = pair[1]
    if tuple(w.shape) != tuple(right.shape) or w.dim() != 2 or not w.is_floating_point():
        return None
    w = w.detach().double()
    sums = w.sum(dim=-1, keepdim=True)
    if not (bool(torch.isfinite(w).all()) and bool((w >= 0).all()) and bool((sums > 0).all())):
        return None
    if not matching_variants(w / sums, {"right": right}, Q.dtype) or matching_variants(sums, {"one": torch.ones_like(sums)}, Q.dtype):
        return None
    lo, hi = float(sums.min()), float(sums.max())
    if hi - lo <= 1e-6 * hi:
        return None
    wrong = (w @ V.double(), w)
    out = pair[0]
    if not (tuple(out.shape) == tuple(wrong[0].shape) and out.is_floating_point()
            and matching_variants(out, {"w @ V": wrong[0], "right": ref.attention(Q.double(), K.double(), V.double(),
                                                                                    d_k)[0]}, Q.dtype)):
        # naming63: the output neither those weights times V nor the right one (an online softmax whose running sum
        # was rescaled wrong divides by a sum of the exps, a wrong one): not a numerator left undivided
        return None
    said = f"each row divided by its own sum gives the right weights, but the rows sum to {lo:.3g} ... {hi:.3g}"
    if abs(float(w.sum()) - 1.0) <= 1e-5:
        return "softmax_whole_matrix", wrong, f"{describe('softmax_whole_matrix')} ({said}, the whole matrix to 1)"
    # naming55 (blind55's q1_log_domain_softmax_logsumexp_added_not_subtracted): rows summing to the square of their
    # sum of exponentials are exp(s + logsumexp(s)): the log-sum-exp added where log softmax subtracts it
    S = Q.double() @ K.double().mT / math.sqrt(d_k)
    if matching_variants(sums, {"squared": torch.exp(S).sum(dim=-1, keepdim=True) ** 2}, Q.dtype):
        said += (" (each row sums to the square of its sum of exponentials: exp(s + logsumexp(s)), the row's "
                 "log-sum-exp ADDED to the scores where the log-softmax subtracts it, s - logsumexp(s))")
    return "weights_not_normalised", wrong, f"{describe('weights_not_normalised')} ({said})"


def raise_if_output_transposed(got, expected, dtype, what, weights=None, V=None) -> None:
    """output_transposed (naming34; output_uses_weights_transposed before, whose text blames A^T V): an output
    that is the right one transposed, (A V)^T of shape (d_v, T_q) (V^T A^T, an einsum written "qk,kv->vq", a
    .T left on the result). Named only when it equals that replay on this input, the replay is not itself the
    right output (a symmetric square one), and, where the right weights A and the values V are given and A^T V
    has the same shape (T_q = T_k = d_v), it does not equal A^T V too: there the two causes cannot be told apart,
    so neither is named."""
    if type(got) is not torch.Tensor or got.dim() != 2 or expected.dim() != 2 or not got.is_floating_point():
        return
    if not matching_variants(got, {"t": expected.transpose(-2, -1)}, dtype, expected=expected):
        return
    T_q, d_v = expected.shape
    if weights is not None and V is not None and weights.dim() == 2 and weights.shape[0] == V.shape[-2]:
        mixed = weights.double().transpose(-2, -1) @ V.double()
        if tuple(mixed.shape) == tuple(got.shape) and matching_variants(got, {"m": mixed}, dtype):
            raise AssertionError(f"{what} has shape {tuple(got.shape)} and equals both the right output transposed, "
                                 "(A V)^T, and the values mixed with the transposed weights, A^T V, on this input: "
                                 f"it must be A V, each row its own query's weighted average of the values")
    raise Misconception("output_transposed", f"{what} has shape {tuple(got.shape)} and equals (A V)^T = V^T A^T, the "
                        f"right output transposed (it must be A V, shape (T_q, d_v) = ({T_q}, {d_v})): "
                        + describe("output_transposed"))


def raise_if_weights_transposed(pair, right, dtype, what) -> None:
    """weights_returned_transposed (naming35, blind34 q1_key_major_weights_returned_untransposed): the returned
    weights are the right ones transposed, (T_k, T_q), while the output of the same call is right, so the values
    were mixed with the right weights and only the returned layout is wrong (softmax(K Q^T, dim=0) kept
    key-major, a .T left on the weights). Not where the right weights equal their own transpose."""
    if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(type(p) is torch.Tensor for p in pair)):
        return
    w, want = pair[1], right[1]
    if w.dim() != 2 or want.dim() != 2 or not w.is_floating_point() or tuple(w.shape) != tuple(want.shape)[::-1]:
        return
    if not matching_variants(pair[0], {"right": right[0]}, dtype) \
            or not matching_variants(w, {"t": want.transpose(-2, -1)}, dtype, expected=want):
        return
    raise Misconception("weights_returned_transposed", f"{what} has shape {tuple(w.shape)} and equals the right "
                        f"weights transposed, while the output of the same call is right (it must be (T_q, T_k) = "
                        f"{tuple(want.shape)}, one row per query): " + describe("weights_returned_transposed"))


def raise_if_dtype_changed(got, expected, dtype, what, function=None):
    """A floating result of another dtype than the input's whose values are right (at the coarser of the two
    dtypes' tolerances): only the dtype is wrong (an upcast to float64, .float(), a float64 constant)."""
    if type(got) is not torch.Tensor or not got.is_floating_point() or got.dtype == dtype \
            or tuple(got.shape) != tuple(expected.shape):
        return
    from autograder.grading.checks import tolerances
    coarser = got.dtype if tolerances(got.dtype)[0] > tolerances(dtype)[0] else dtype
    if matching_variants(got, {"right": expected}, coarser):
        upcast = upcast_said(_function_read(None, function)) if function and got.dtype == torch.float64 else None
        if upcast is not None:   # naming74: the cause, where the source converts to float64 (blind74)
            raise Misconception("upcast_never_cast_back", f"{what} has dtype {got.dtype} for {dtype} input; its "
                                f"values are right, and your code converts to float64 (`{upcast}`): "
                                + describe("upcast_never_cast_back"))
        raise Misconception("dtype_changed", f"{what} has dtype {got.dtype} for {dtype} input; its values are right: "
                            + describe("dtype_changed"))


def dtype_judge(expected, what, dtype, variants, function=None):
    """check_value's judge: a right value in another dtype is dtype_changed, else assert_matches."""
    def judge(got):
        raise_if_dtype_changed(got, expected, dtype, what, function)
        assert_matches(got, expected, what=what, dtype=dtype, variants=variants)
    return judge


# --- naming74: the cause of a replayed kind, read from the source (blind74's NumPy habits, blind75's slips) -------

_NODES_READ = 4000      # nodes of one parsed def looked at, at most


def _nodes(func) -> list:
    import ast
    import itertools
    return list(itertools.islice(ast.walk(func), _NODES_READ)) if func is not None else []


def _constant(node, depth=0):
    """The number a small constant expression is (0.5, -0.5, -1/2, 1.0); None otherwise, or nested more than 16
    deep (red-team round 136: `junk = (0 + 0 + ... + 0) / 1`, 1,500 terms, in attention recursed past the stack, and
    every multiply_by_sqrt_dk test said RecursionError)."""
    import ast
    if depth > 16:
        return None
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        # a literal past a float's range is no scale: float() of a 400-digit int raised OverflowError (red-team round
        # 138: `d_k ** 1000...0` in dead code of attention, and q1's multiply_by_sqrt_dk tests said "a whole number
        # too large" in the answer instead of reciprocal_scale_divided), as sdpa's _number learnt in round 130
        return float(node.value) if abs(node.value) < 1e300 else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _constant(node.operand, depth + 1)
        return None if v is None else (-v if isinstance(node.op, ast.USub) else v)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.Mult, ast.Sub, ast.Add)):
        a, b = _constant(node.left, depth + 1), _constant(node.right, depth + 1)
        if a is None or b is None or (isinstance(node.op, ast.Div) and b == 0):
            return None
        return {ast.Div: a / b if b else 0.0, ast.Mult: a * b, ast.Sub: a - b, ast.Add: a + b}[type(node.op)]
    return None


def _is_root(node) -> bool:
    """sqrt(x) (math, torch, numpy, a tensor's) or x ** 0.5."""
    import ast
    return _called(node) == "sqrt" or (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow)
                                       and _constant(node.right) == 0.5)


def _is_reciprocal_root(node, bound) -> bool:
    """x ** -0.5, 1 / sqrt(x), 1 / x ** 0.5, rsqrt(x), or a name bound to one of these."""
    import ast
    if isinstance(node, ast.Name):
        return node.id in bound
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        return _constant(node.right) == -0.5
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return _constant(node.left) == 1.0 and _is_root(node.right)
    return _called(node) == "rsqrt"


def reciprocal_divided_said(func) -> str | None:
    """The text of a division in `func` by 1/sqrt(something) (a BinOp or /=, its divisor written out or a name
    assigned it once in the def); None where there is none (bounded: _NODES_READ nodes of one def)."""
    import ast
    nodes = _nodes(func)
    bound = {n.targets[0].id for n in nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
             and isinstance(n.targets[0], ast.Name) and _is_reciprocal_root(n.value, set())}
    for n in nodes:
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div) and _is_reciprocal_root(n.right, bound):
            return unparse(n)[:80]
        if isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Div) and _is_reciprocal_root(n.value, bound):
            return unparse(n)[:80]
    return None


def raise_if_reciprocal_divided(said) -> None:
    """reciprocal_scale_divided (naming74, blind75 q1_reciprocal_root_scale_then_divided_by): the replay is
    multiply_by_sqrt_dk (already matched), and attention's source divides by a 1/sqrt(...) (`scale = d_k ** -0.5`
    then `/ scale`): the cause, a doubled inversion. Nothing is said otherwise."""
    expr = reciprocal_divided_said(_function_read(None, "attention"))
    if expr is not None:
        raise Misconception("reciprocal_scale_divided", f"{said}: it matches multiplying the scores by sqrt(d_k), "
                            f"and your code divides by a reciprocal root (`{expr}`): "
                            + describe("reciprocal_scale_divided"))


def raise_if_output_from_scores(pair, right, dtype, what) -> None:
    """output_from_scores (naming74, blind75 q1_output_mixed_from_scores_not_weights): the output matches the
    scaled scores used as weights (no_softmax's output) while the weights returned by the same call are right: the
    softmax was computed and returned, and V mixed with the other variable. Nothing is said otherwise."""
    if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(type(p) is torch.Tensor for p in pair)):
        return
    if matching_variants(pair[1], {"right": right[1]}, dtype):
        raise Misconception("output_from_scores", f"{what} is wrong while the weights returned by the same call are "
                            "right: it matches the scaled scores used as the weights of V (scores @ V): "
                            + describe("output_from_scores"))


_BUFFER_MAKERS = ("zeros", "empty", "ones", "full")


def default_buffer_said(func) -> str | None:
    """`name = torch.zeros(...)` (empty, ones, full) without dtype= in `func`, the name then stored into by
    subscript (name[i] = ..., name[i] += ...) or returned: the text of that assignment; None otherwise."""
    import ast
    nodes = _nodes(func)
    made = {}
    for n in nodes:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Attribute) \
                and isinstance(n.value.func.value, ast.Name) and n.value.func.value.id == "torch" \
                and n.value.func.attr in _BUFFER_MAKERS and not any(k.arg in ("dtype", None)
                                                                   for k in n.value.keywords):
            made.setdefault(n.targets[0].id, unparse(n)[:80])
    if not made:
        return None
    for n in nodes:
        targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, ast.AugAssign) else []
        for t in targets:
            if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in made:
                return made[t.value.id]
        if isinstance(n, ast.Return) and n.value is not None:
            for x in ast.walk(n.value):
                if isinstance(x, ast.Name) and x.id in made:
                    return made[x.id]
    return None


def upcast_said(func) -> str | None:
    """The text of a conversion to float64 (.double(), .to(torch.float64), .type(torch.double), astype(np.float64),
    a dtype=float64 argument) where `func` converts EVERY one of its first three parameters, the inputs Q, K, V (each
    directly, or as a loop name over a tuple of them: `for t in (Q, K, V)`); None otherwise: an upcast of a computed
    value (the scores) or of one input alone is left to dtype_changed (bounded: _NODES_READ nodes of one def)."""
    import ast

    def is_f64(x):
        return (isinstance(x, ast.Attribute) and x.attr in ("float64", "double")
                and isinstance(x.value, ast.Name) and x.value.id in ("torch", "np", "numpy")) or (
            isinstance(x, ast.Constant) and x.value in ("float64", "double", "torch.float64"))

    def root(x):
        for _ in range(8):
            if isinstance(x, ast.Call):
                x = x.func
            elif isinstance(x, (ast.Attribute, ast.Subscript)):
                x = x.value
            else:
                break
        return x.id if isinstance(x, ast.Name) else None
    nodes = _nodes(func)
    inputs = _params(func)[:3]
    if len(inputs) < 3:
        return None
    stands_for: dict[str, set[str]] = {name: {name} for name in inputs}
    for n in nodes:
        loop = (n.target, n.iter) if isinstance(n, (ast.For, ast.comprehension)) else None
        if loop and isinstance(loop[0], ast.Name) and isinstance(loop[1], (ast.Tuple, ast.List)):
            stands_for[loop[0].id] = {e.id for e in loop[1].elts if isinstance(e, ast.Name) and e.id in inputs}
    converted: set[str] = set()
    first = None
    for n in nodes:
        if not isinstance(n, ast.Call):
            continue
        receiver = n.func.value if isinstance(n.func, ast.Attribute) else None
        if not ((isinstance(n.func, ast.Attribute) and n.func.attr == "double" and not n.args)
                or any(is_f64(a) for a in n.args) or any(k.arg == "dtype" and is_f64(k.value) for k in n.keywords)):
            continue
        for x in ([receiver] if receiver is not None else []) + list(n.args):
            got = stands_for.get(root(x) or "", set())
            if got:
                converted |= got
                first = first or unparse(n)[:80]
    return first if converted >= set(inputs) else None


def rows_summary(got, what):
    """The weights' row sums, when they are not all 1 (for the generic message): which rows are off."""
    if type(got) is not torch.Tensor or got.dim() != 2 or not got.is_floating_point():
        return ""
    sums = got.detach().double().sum(dim=-1)
    off = ~torch.isclose(sums, torch.ones_like(sums), rtol=0, atol=1e-5)
    if not bool(torch.isfinite(sums).all()) or not bool(off.any()):
        return ""
    rows = [int(i) for i in off.nonzero().flatten()]
    shown = ", ".join(map(str, rows[:6])) + (", ..." if len(rows) > 6 else "")
    return (f"; the rows of {what} should each sum to 1: row(s) {shown} of {sums.numel()} sum to "
            f"{float(sums[off].min()):.3g} ... {float(sums[off].max()):.3g}")


# --- the entropy table ----------------------------------------------------------------------------------

def table_one_score(dims, seed):
    """The lesson's table with raw = (k @ q.T)[0]: K Q^T is (5, 1), so its row 0 is one key's score alone
    (std NaN, entropy 0), as (float32) rows of raw_std, scaled_std, H_raw, H_scaled."""
    rows = []
    for d in dims:
        g = torch.Generator().manual_seed(seed)     # torch.manual_seed(seed)'s stream, not the grader's shared one
        q, k = torch.randn(1, d, generator=g), torch.randn(5, d, generator=g)
        raw = (k @ q.T)[0]
        scaled = raw / d ** 0.5
        one = raw.numel() == 1      # the unbiased std of one number is 0 / 0 (torch warns): NaN
        rows.append([math.nan if one else float(raw.std()), math.nan if one else float(scaled.std()),
                     float(ref.softmax_entropy(raw.double())), float(ref.softmax_entropy(scaled.double()))])
    return torch.tensor(rows, dtype=torch.float32)


def _draw_ndim(call) -> int | None:
    """How many axes a torch.randn(...) call of the student's source draws (read, never run), or None."""
    import ast
    if not (isinstance(call, ast.Call) and getattr(call.func, "attr", getattr(call.func, "id", None)) == "randn"):
        return None
    size = next((k.value for k in call.keywords if k.arg == "size"), None)
    args = [size] if size is not None else [a for a in call.args]
    if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
        return len(args[0].elts)
    return len(args) if args and not any(isinstance(a, ast.Starred) for a in args) else None


def _left_factor_in(v, names) -> bool:
    """Whether `v` (an ast node) is a matrix product whose left factor is one of `names`: q @ k.T,
    q.matmul(k.T), torch.matmul(q, k.T)."""
    import ast
    if isinstance(v, ast.BinOp) and isinstance(v.op, ast.MatMult):
        return isinstance(v.left, ast.Name) and v.left.id in names
    if isinstance(v, ast.Call) and getattr(v.func, "attr", getattr(v.func, "id", None)) == "matmul":
        owner = getattr(v.func, "value", None)
        module = owner is None or (isinstance(owner, ast.Name) and owner.id == "torch")
        first = (v.args[0] if v.args else None) if module else owner
        return isinstance(first, ast.Name) and first.id in names
    return False


def vector_query_indexed(submission) -> str | None:
    """The line of entropy_table's source (read, never run) that indexes [0] a product whose left factor is a
    query drawn 1-D (q = torch.randn(d): q @ k.T is then the 5 scores, and [0] one of them), or None."""
    import ast
    from autograder.grading.source_checks import cells_of
    for cell in cells_of(submission) if submission is not None else []:
        try:
            tree = parse(cell)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for fdef in ast.walk(tree):
            if not (isinstance(fdef, ast.FunctionDef) and fdef.name == "entropy_table"):
                continue
            vectors: set[str] = set()
            products: set[str] = set()
            for n in ast.walk(fdef):
                if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                    if _draw_ndim(n.value) == 1:
                        vectors.add(n.targets[0].id)
                    elif _left_factor_in(n.value, vectors):
                        products.add(n.targets[0].id)
            for n in ast.walk(fdef):
                if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant) and n.slice.value == 0 and (
                        _left_factor_in(n.value, vectors) or (isinstance(n.value, ast.Name) and n.value.id in products)):
                    return ast.get_source_segment(cell, n) or "[0]"
    return None


def raise_if_one_score_table(table, dims, seed, submission=None) -> None:
    """A table that is what one score per d gives (std NaN, entropy 0 in every row): (q @ k.T)[:, 0] and
    (k @ q.T)[0] both keep the same one score (k_0 . q), and one key drawn gives such a table too, so no key is
    named by the numbers alone (not scores_transposed: its K Q^T is not proven by one number); the student's
    source tells one of them: a query drawn 1-D (torch.randn(d)) with [0] on its product with the keys
    (table_vector_query_indexed). Otherwise the message says what differs."""
    if type(table) is not torch.Tensor or table.dim() != 2 or table.shape[1] != 4 or table.shape[0] != len(dims):
        return
    raise_if_scores_all_equal(table, dims)
    if not matching_variants(table.float(), {"v": table_one_score(dims, seed)}, torch.float32):
        return
    line = vector_query_indexed(submission)
    row = transposed_scores_indexed(submission) if line is None else None
    if row is not None:
        raise Misconception("table_scores_row_of_transpose", "the entropy table's raw_std and scaled_std are NaN and "
                            "H_raw and H_scaled are 0 in every row, what ONE score per d gives, and your code takes "
                            f"`{ascii(row[:80])[1:-1]}`: "
                            + describe("table_scores_row_of_transpose"))
    if line is not None:
        raise Misconception("table_vector_query_indexed", "the entropy table's raw_std and scaled_std are NaN and "
                            "H_raw and H_scaled are 0 in every row, what ONE score per d gives, and your code draws "
                            f"the query 1-D and takes `{ascii(line[:80])[1:-1]}`: "
                            + describe("table_vector_query_indexed"))
    raise AssertionError(f"the entropy table's raw_std and scaled_std are NaN and H_raw and H_scaled are 0 in every "
                         f"row (d = {', '.join(str(d) for d in dims)}): what ONE score per d gives (the std of one "
                         "number is NaN, the softmax of one score is 1), not the query's 5 scores against the 5 keys. "
                         "raw should have shape (5,): q @ k.T is (1, 5), so take its row, (q @ k.T)[0], not a column "
                         "([:, 0]) or a row of k @ q.T")


def raise_if_index_as_d(rows, dims):
    """A d column that holds the positions 0, 1, ... or 1, 2, ... of the dims instead of the dims."""
    try:
        got = [row["d"] for row in rows]
    except (TypeError, KeyError):
        return
    if any(isinstance(x, bool) or not isinstance(x, (int, float)) for x in got):
        return
    for start in (0, 1):
        positions = list(range(start, start + len(dims)))
        if [float(x) for x in got] == [float(p) for p in positions] and list(dims) != positions:
            raise Misconception("loop_index_as_d", f"the d column is {positions}, the positions of dims = "
                                f"{tuple(dims)} in the list, not the dims: " + describe("loop_index_as_d"))


# --- multi-head attention -------------------------------------------------------------------------------

def _mha_heads(X, W_Q, W_K, W_V, n_heads, source=None):
    """The float64 output of each head; `source` maps (role, h) to the head whose columns role uses."""
    d_k = X.shape[-1] // n_heads
    proj = {r: X.double() @ W.double() for r, W in zip("qkv", (W_Q, W_K, W_V))}

    def cols(r, h):
        f = source(r, h) if source is not None else h
        return proj[r][:, f * d_k:(f + 1) * d_k]
    return [ref.attention(cols("q", h), cols("k", h), cols("v", h), d_k)[0] for h in range(n_heads)]


def bare_squeeze_variants(X, W_Q, W_K, W_V, W_O, n_heads):
    """naming64: the heads computed batched as (1, n_heads, T, d_k), the batch axis dropped by a bare .squeeze() (which
    drops the head axis too when n_heads == 1, the token axis when T == 1), then .transpose(0, 1).reshape(T, d_model)
    @ W_O: the replay, only where a size-1 axis is there to drop (else it is the right answer)."""
    T, d_model = X.shape
    if n_heads < 1 or d_model % n_heads or not (n_heads == 1 or T == 1):
        return {}
    heads = torch.stack(_mha_heads(X, W_Q, W_K, W_V, n_heads, lambda r, h: h)).unsqueeze(0)   # (1, heads, T, d_k)
    squeezed = heads.squeeze()
    if squeezed.dim() < 2:
        return {}
    return {"mha_bare_squeeze_drops_heads": squeezed.transpose(0, 1).reshape(T, d_model) @ W_O.double()}


def mha_slice_variants(X, W_Q, W_K, W_V, W_O, n_heads):
    """{mha_head_slice_fixed/<roles>_<f>: output} for every non-empty set of Q, K, V whose slice is head f's
    in every head (the slice not moved with h), every f."""
    out = bare_squeeze_variants(X, W_Q, W_K, W_V, W_O, n_heads)
    if n_heads < 2:
        return out
    W = W_O.double()
    for roles in ("q", "k", "v", "qk", "qv", "kv", "qkv"):
        for f in range(n_heads):
            heads = _mha_heads(X, W_Q, W_K, W_V, n_heads, lambda r, h, roles=roles, f=f: f if r in roles else h)
            out[f"mha_head_slice_fixed/{roles}_{f}"] = torch.cat(heads, dim=-1) @ W
    out.update(averaged_map_variants(X, W_Q, W_K, W_V, W_O, n_heads))
    out.update(split_by_count_variants(X, W_Q, W_K, W_V, W_O, n_heads))
    out.update(role_swap_variants(X, W_Q, W_K, W_V, W_O, n_heads))
    out.update(scale_passed_variants(X, W_Q, W_K, W_V, W_O, n_heads))
    out.update(output_block_variants(X, W_Q, W_K, W_V, W_O, n_heads))
    out.update(projection_reuse_variants(X, W_Q, W_K, W_V, W_O, n_heads))
    out.update(unprojected_variants(X, W_Q, W_K, W_V, W_O, n_heads))
    out.update(head_stride_variants(X, W_Q, W_K, W_V, W_O, n_heads))
    out.update(features_as_tokens_variants(X, W_Q, W_K, W_V, W_O.double(), n_heads))
    out.update(batched_split_variants(X, W_Q, W_K, W_V, W_O.double(), n_heads))
    out.update(split_view_variants(X, W_Q, W_K, W_V, W_O, n_heads))
    out.update(fused_split_variants(X, W_Q, W_K, W_V, W_O, n_heads))
    out.update(output_projection_in_values_variants(X, W_Q, W_K, W_V, W_O, n_heads))
    out.update(heads_as_sequence_variants(X, W_Q, W_K, W_V, W_O, n_heads))
    out.update(heads_within_token_variants(X, W_Q, W_K, W_V, W_O, n_heads))
    out.update(weight_blocks_viewed_variants(X, W_Q, W_K, W_V, W_O, n_heads))
    out.update(mha_one_based_variants(X, W_Q, W_K, W_V, W_O, n_heads))
    out.update(round86_mha_variants(X, W_Q, W_K, W_V, W_O, n_heads))   # naming86
    out.update(round88_mha_variants(X, W_Q, W_K, W_V, W_O, n_heads))   # naming88
    if X.dim() == 2 and X.shape[-2] > 1:
        # naming58 (blind58 q8_tokens_read_as_batch_each_attends_only_itself): each token attends only to its own
        # key (attention on Q[t:t + 1], K[t:t + 1], V[t:t + 1]): every softmax over one key is 1
        out["mha_tokens_attend_only_themselves"] = X.double() @ W_V.double() @ W_O.double()
    return out


def heads_within_token_variants(X, W_Q, W_K, W_V, W_O, n_heads):
    """mha_heads_attend_within_token (naming42, blind41 q8_unbind_over_tokens_attends_across_heads): the
    (T, n_heads, d_k) view split along its TOKEN axis (unbind(0), Q_view[t], or the view passed to a batched
    attention without .transpose(0, 1)): each attention call gets one token's n_heads slices, an (n_heads, n_heads)
    softmax scaled by sqrt(d_k), so the heads of one token attend to each other. Merged back right ((T, n_heads, d_k)
    reshaped to (T, d_model)) or through a transpose(0, 1) first (a merge copied for (n_heads, T, d_k) heads, or
    torch.stack(heads, dim=1)). With one head it is each token's own value row, so only with several; random
    weights make it equal to no other variant (naming42 checked the test shapes)."""
    T, d_model = X.shape[-2], X.shape[-1]
    if X.dim() != 2 or n_heads < 2 or d_model % n_heads:
        return {}
    d_k = d_model // n_heads
    q, k, v = ((X.double() @ W.double()).reshape(T, n_heads, d_k) for W in (W_Q, W_K, W_V))
    o = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d_k), dim=-1) @ v          # (T, n_heads, d_k)
    W = W_O.double()
    return {"mha_heads_attend_within_token": o.reshape(T, d_model) @ W,
            "mha_heads_attend_within_token/transposed_merge": o.transpose(0, 1).reshape(T, d_model) @ W}


def heads_as_sequence_variants(X, W_Q, W_K, W_V, W_O, n_heads):
    """mha_heads_as_sequence (naming35, blind34 q8_heads_flattened_into_one_long_sequence): the heads folded into
    the sequence axis and ONE attention run over all T * n_heads rows, token-major ((T, d_model) reshaped to
    (T * n_heads, d_k), merged by the reverse reshape) or head-major (the head slices stacked as rows, the
    output cut back into T-row blocks side by side). With one head it is the right answer, so only with several."""
    T, d_model = X.shape[-2], X.shape[-1]
    if X.dim() != 2 or n_heads < 2 or d_model % n_heads:
        return {}
    d_k = d_model // n_heads
    P = [X.double() @ W.double() for W in (W_Q, W_K, W_V)]
    W = W_O.double()
    q, k, v = (p.reshape(T * n_heads, d_k) for p in P)
    out = {"mha_heads_as_sequence": ref.attention(q, k, v, d_k)[0].reshape(T, d_model) @ W}
    q, k, v = (torch.cat(p.split(d_k, dim=-1), dim=0) for p in P)
    out["mha_heads_as_sequence/head_major"] = torch.cat(ref.attention(q, k, v, d_k)[0].split(T, dim=0), dim=-1) @ W
    return out


def output_projection_in_values_variants(X, W_Q, W_K, W_V, W_O, n_heads):
    """mha_output_projection_in_values (naming32, blind29 q8_output_projection_folded_into_values): W_O multiplied
    into the values before the heads are cut (V = X @ W_V @ W_O) and the concatenated heads returned as they are.
    With one head it is the right answer (attention is linear in V), so only with several; random weights make it
    equal to no other variant."""
    d_model = X.shape[-1]
    if n_heads < 2 or d_model % n_heads:
        return {}
    W = [w.double() for w in (W_Q, W_K, W_V, W_O)]
    eye = torch.eye(d_model, dtype=torch.float64)
    return {"mha_output_projection_in_values": ref.multi_head_attention(X.double(), W[0], W[1], W[2] @ W[3], eye,
                                                                        n_heads)}


def fused_split_variants(X, W_Q, W_K, W_V, W_O, n_heads):
    """mha_fused_qkv_split_order (naming31, blind28 q8_fused_qkv_heads_axis_before_three): the fused projection
    X @ [W_Q | W_K | W_V], (T, 3 * d_model), read as (T, n_heads, 3, d_k), the head axis before the three (the
    right order is (T, 3, n_heads, d_k)): head h's query, key and value are the column blocks 3h, 3h + 1, 3h + 2
    of the fused projection. Random weights: equal to no other cut (with one head it is the right one)."""
    d_model = X.shape[-1]
    d_k = d_model // n_heads
    if n_heads < 2 or d_k * n_heads != d_model:
        return {}
    T = X.shape[-2]
    fused = X.double() @ torch.cat([W.double() for W in (W_Q, W_K, W_V)], dim=-1)
    qkv = fused.reshape(T, n_heads, 3, d_k)
    heads = [ref.attention(qkv[:, h, 0], qkv[:, h, 1], qkv[:, h, 2], d_k)[0] for h in range(n_heads)]
    # naming84 (blind84 q8_fused_qkv_viewed_with_the_three_axis_last): viewed (T, d_model, 3), the last axis
    # unbound: Q, K, V are the columns 0, 3, 6, ... / 1, 4, ... / 2, 5, ... of the fused projection
    third = fused.reshape(T, d_model, 3)
    cut = [ref.attention(third[:, h * d_k:(h + 1) * d_k, 0], third[:, h * d_k:(h + 1) * d_k, 1],
                         third[:, h * d_k:(h + 1) * d_k, 2], d_k)[0] for h in range(n_heads)]
    return {"mha_fused_qkv_split_order": torch.cat(heads, dim=-1) @ W_O.double(),
            "mha_fused_qkv_three_axis_last": torch.cat(cut, dim=-1) @ W_O.double()}


def projection_reuse_variants(X, W_Q, W_K, W_V, W_O, n_heads):
    """One projection matrix reused for another role (copy-paste: Q = K = V = X @ W_Q ...):
    Q, K, V each from one of W_Q, W_K, W_V with at least one matrix used twice (the permutations are other
    mistakes: qk_swapped, mha_keys_values_swapped). The pairs reference.mha_variants already tries are left to it.
    Random, distinct weights: none of these equals the right output nor another of them."""
    import itertools
    if n_heads < 1:
        return {}
    mats = {"w_q": W_Q, "w_k": W_K, "w_v": W_V}
    right = ("w_q", "w_k", "w_v")
    tried = {("w_q", "w_q", "w_v"), ("w_q", "w_k", "w_q"), ("w_q", "w_k", "w_k"), ("w_k", "w_k", "w_v")}
    out = {}
    W = W_O.double()
    for names in itertools.product(right, repeat=3):
        if len(set(names)) == 3 or names in tried:
            continue
        heads = _mha_heads(X, *(mats[n] for n in names), n_heads)
        out["same_projection/" + "_".join(f"{r}_from_{n}" for r, n in zip("qkv", names) if r != n[-1])] = \
            torch.cat(heads, dim=-1) @ W
    return out


def unprojected_variants(X, W_Q, W_K, W_V, W_O, n_heads):
    """One role left unprojected: X itself as the values, the keys or the queries (blind27: V = X), the other two
    projected; only where the projections are square (X's width is each role's)."""
    eye = torch.eye(X.shape[-1], dtype=X.dtype)
    if n_heads < 1 or not all(w.shape == eye.shape for w in (W_Q, W_K, W_V)):
        return {}
    W = W_O.double()
    return {f"mha_no_input_projections/{role}": torch.cat(_mha_heads(X, *mats, n_heads), dim=-1) @ W
            for role, mats in (("values", (W_Q, W_K, eye)), ("keys", (W_Q, eye, W_V)), ("queries", (eye, W_K, W_V)))}


def output_block_variants(X, W_Q, W_K, W_V, W_O, n_heads):
    """Each head projected through only its diagonal block of W_O (head h @ W_O[c, c], c its columns) and the
    products concatenated: mha_output_projection_per_head (the mirror of mha_input_split_before_projection).
    With n_heads >= 2 and a W_O whose off-diagonal blocks are not zero it differs from the right output."""
    d_k = X.shape[-1] // n_heads
    W = W_O.double()
    heads = _mha_heads(X, W_Q, W_K, W_V, n_heads)
    blocks = [o @ W[h * d_k:(h + 1) * d_k, h * d_k:(h + 1) * d_k] for h, o in enumerate(heads)]
    return {"mha_output_projection_per_head": torch.cat(blocks, dim=-1)}


def role_swap_variants(X, W_Q, W_K, W_V, W_O, n_heads):
    """Each head's attention called with its keys and values swapped (attention(q_h, v_h, k_h)):
    mha_keys_values_swapped."""
    d_k = X.shape[-1] // n_heads
    Q, K, V = (X.double() @ W.double() for W in (W_Q, W_K, W_V))
    heads = [ref.attention(Q[:, h * d_k:(h + 1) * d_k], V[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k],
                           d_k)[0] for h in range(n_heads)]
    return {"mha_keys_values_swapped": torch.cat(heads, dim=-1) @ W_O.double()}


def head_maps(X, W_Q, W_K, W_V, n_heads):
    """Each head's (T, T) attention weights, float64."""
    d_k = X.shape[-1] // n_heads
    Q, K = X.double() @ W_Q.double(), X.double() @ W_K.double()
    return [ref.attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k], K[:, :1], d_k)[1]
            for h in range(n_heads)]


def averaged_map_variants(X, W_Q, W_K, W_V, W_O, n_heads):
    """The heads' attention maps merged into one map (their mean, as nn.MultiheadAttention's
    average_attn_weights returns for display, or their sum) and that map applied to the full V, or per head to
    each head's V: mha_attention_maps_averaged."""
    maps = torch.stack(head_maps(X, W_Q, W_K, W_V, n_heads))
    V = X.double() @ W_V.double()
    W = W_O.double()
    return {f"mha_attention_maps_averaged/{how}": (m @ V) @ W
            for how, m in (("mean", maps.mean(dim=0)), ("sum", maps.sum(dim=0)))}


AFTER_LOOP_NODES = 3000     # nodes of the function statement_after_loop walks, at most
_COLLECTING = ("append", "extend", "insert", "add")


def statement_after_loop(submission, name) -> tuple[str, str] | None:
    """append_after_loop (naming57, blind57 q8_heads_append_dedented_after_loop): in the notebook's last `def name`,
    a for or while loop followed at once by a statement that collects a value (x.append(v), extend, insert, add, or
    x += ..., x[...] = ...) reading a name the loop binds (its target or an assignment in its body): the statement
    was meant for the loop's body and runs once, after the last pass. (the loop's header, the statement), each
    cut to 60 characters; None where none. Parsed (pyparse), never run; at most AFTER_LOOP_NODES nodes walked."""
    import ast
    from autograder.grading.source_checks import cells_of, last_function_def
    if submission is None:
        return None
    func = last_function_def(cells_of(submission), name)
    if func is None:
        return None

    def cut(text):
        text = " ".join(text.split())
        return text if len(text) <= 60 else text[:57] + "..."

    for k, node in enumerate(ast.walk(func)):
        if k > AFTER_LOOP_NODES:
            return None
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for loop, nxt in zip(body, body[1:]):
            if not isinstance(loop, (ast.For, ast.While)) or loop.orelse:
                continue
            value = None
            if isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Call) \
                    and isinstance(nxt.value.func, ast.Attribute) and nxt.value.func.attr in _COLLECTING:
                value = nxt.value
            elif isinstance(nxt, ast.AugAssign) or (isinstance(nxt, ast.Assign) and len(nxt.targets) == 1
                                                      and isinstance(nxt.targets[0], ast.Subscript)):
                value = nxt.value
            if value is None:
                continue
            bound = {n.id for part in ([loop.target] if isinstance(loop, ast.For) else []) + loop.body
                     for n in ast.walk(part) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            read = {n.id for n in ast.walk(value) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
            if isinstance(nxt.value if isinstance(nxt, ast.Expr) else None, ast.Call):
                read -= {n.id for n in ast.walk(nxt.value.func) if isinstance(n, ast.Name)}
            if bound & read:
                header = unparse(loop).splitlines()[0] if isinstance(loop, ast.For) else "while ..."
                return cut(header), cut(unparse(nxt))
    return None


_UNBOUND = re.compile(r"cannot access local variable '(\w+)'|local variable '(\w+)' referenced before assignment")


def local_shadows_call(submission, e, name) -> Misconception | None:
    """name_shadows_function (naming57, blind57 q8_weights_unpacked_into_name_attention): an UnboundLocalError for
    a name that the notebook's last `def name` both calls (name(...)) and assigns (out, attention = attention(...)),
    and that a cell defines at module level: the assignment makes it local for the whole function, so the call
    reads the local before it exists. Python's words and the source (parsed, never run); None otherwise."""
    import ast
    from autograder.grading.source_checks import SourceUnreadable, cells_assigning_globally, cells_of, \
        last_function_def
    found = _UNBOUND.search(e.message or "") if e.exc_type == "UnboundLocalError" else None
    if found is None or submission is None:
        return None
    local = found.group(1) or found.group(2)
    try:
        cells = cells_of(submission)
        func = last_function_def(cells, name, max_chars=20000)
        if func is None or not cells_assigning_globally(cells, local):
            return None
        nodes = list(itertools.islice(ast.walk(func), 3000))
    except (SourceUnreadable, RecursionError, MemoryError):
        return None
    called = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == local for n in nodes)
    def stores(n):
        targets = n.targets if isinstance(n, ast.Assign) else [n.target]
        return any(isinstance(t, ast.Name) and t.id == local and isinstance(t.ctx, ast.Store)
                   for target in targets for t in ast.walk(target))

    stored = [n for n in nodes if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For)) and stores(n)]
    if not called or not stored:
        return None
    from autograder.grading.pyparse import unparse
    line = " ".join(unparse(stored[0]).split())
    line = line if len(line) <= 80 else line[:77] + "..."
    return Misconception("name_shadows_function", f"your code raised {e.exc_type}: {e.message.splitlines()[0]}: "
                         f"{name} calls `{local}(...)` and also assigns to `{local}` (`{line}`), so `{local}` is a "
                         f"local name in the whole function and the call finds no value yet: "
                         + describe("name_shadows_function"))


def heads_missing(fn, e, X, Ws, n_heads, submission=None):
    """Torch's (T x m d_k) @ (d_model x d_model) message, m < n_heads: fewer heads concatenated. Confirmed by
    a second call with W_O cut to its first m d_k rows, whose output must equal m of the heads, in order,
    times those rows; the heads left out are said. mha_heads_missing not where the last head is kept alone with
    n_heads > 2 (no loop over fewer heads gives that: naming57); that head alone with an append right after the
    loop in the source (statement_after_loop) is append_after_loop."""
    import itertools
    if n_heads == 1:
        return empty_heads_again(fn, e, X, Ws, n_heads, submission)
    found = re.search(r"mat1 and mat2 shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\)", e.message)
    T, d_model = X.shape
    d_k = d_model // n_heads
    if e.exc_type != "RuntimeError" or not found or n_heads < 2:
        return None
    rows, width, a, b = (int(x) for x in found.groups())
    if (rows, a, b) != (T, d_model, d_model) or width % d_k or not 0 < width // d_k < n_heads:
        return None
    m = width // d_k
    W_O = Ws[3][:width].contiguous()
    try:
        again = fn(X, Ws[0], Ws[1], Ws[2], W_O, n_heads)
    except StudentCodeError:
        return None
    if type(again) is not torch.Tensor or tuple(again.shape) != (T, d_model):
        return None
    heads = _mha_heads(X, *Ws[:3], n_heads)
    hits = [kept for kept in itertools.combinations(range(n_heads), m)
            if matching_variants(again, {"v": torch.cat([heads[h] for h in kept], dim=-1) @ W_O.double()}, X.dtype)]
    if len(hits) != 1:
        return None
    if hits[0] == (n_heads - 1,):   # the last head alone: an append after the loop, where the source shows it
        after = statement_after_loop(submission, "multi_head_attention")
        if after is not None:
            return Misconception("append_after_loop", f"your code raised {e.exc_type}: {found.group(0)}: one head of "
                                 f"d_k = {d_k} concatenated where there are {n_heads}; given only W_O's first {width} "
                                 f"rows it runs, and its output is the last head's alone (head {n_heads - 1}), and "
                                 f"`{after[1]}` comes right after the loop `{after[0]}`, not in its body: "
                                 + describe("append_after_loop"))
    stride = head_stride_n_heads(fn, X, Ws, n_heads, width)
    if stride is not None:
        return stride
    twice = head_start_scaled_twice(fn, X, Ws, n_heads, hits[0])
    if twice is not None:
        return twice
    if hits[0] == (n_heads - 1,) and n_heads > 2:
        return None   # the last head alone: no loop over fewer heads gives it (an append after the loop does)
    left = [h for h in range(n_heads) if h not in hits[0]]
    return Misconception("mha_heads_missing", f"your code raised {e.exc_type}: {found.group(0)}: {m} heads of "
                         f"d_k = {d_k} concatenated where there are {n_heads}; given only W_O's first {width} rows it "
                         f"runs, and its output is heads {list(hits[0])} (head(s) {left} left out): "
                         + describe("mha_heads_missing"))


def _stride_heads(X, W_Q, W_K, W_V, n_heads):
    """Each head's float64 output with its slice starting at h * n_heads (width d_k, cut at d_model; empty
    slices dropped), the mha_head_stride_n_heads slip."""
    d_model = X.shape[-1]
    d_k = d_model // n_heads
    Q, K, V = (X.double() @ W.double() for W in (W_Q, W_K, W_V))
    return [ref.attention(*(M[:, s:s + d_k] for M in (Q, K, V)), d_k)[0]
            for s in range(0, n_heads * n_heads, n_heads) if s < d_model]


def head_stride_variants(X, W_Q, W_K, W_V, W_O, n_heads):
    """mha_head_stride_n_heads where every slice fits (n_heads (n_heads - 1) + d_k <= d_model) and the stride
    differs from d_k; None otherwise (the widths then crash, see head_stride_n_heads)."""
    d_model = X.shape[-1]
    d_k = d_model // n_heads
    if n_heads < 2 or d_k * n_heads != d_model or d_k == n_heads or n_heads * (n_heads - 1) + d_k > d_model:
        return {}
    return {"mha_head_stride_n_heads": torch.cat(_stride_heads(X, W_Q, W_K, W_V, n_heads), dim=-1)
            @ W_O.double()}


def _second_call_gives(fn, args, want, dtype):
    """Whether a second call fn(*args) runs and gives the tensor `want` (a crash or anything else: False)."""
    try:
        again = fn(*args)
    except StudentCodeError:
        return False
    return type(again) is torch.Tensor and bool(matching_variants(again, {"v": want}, dtype))


def head_start_scaled_twice(fn, X, Ws, n_heads, kept):
    """mha_head_start_scaled_twice (blind31): a loop over the starts, range(0, d_model, d_k), whose slices multiply
    the start by d_k again (h * d_k : (h + 1) * d_k) keeps exactly the heads 0, d_k, 2 d_k, ... below n_heads, the
    rest empty. A loop that stops early (range(1), a return inside it) can keep head 0 alone too: a second call
    with d_k = 1 (X and the weights cut to n_heads columns), where the starts are the heads, must be right; else
    None."""
    d_model = X.shape[-1]
    d_k = d_model // n_heads
    if d_k < 2 or tuple(kept) != tuple(range(0, n_heads, d_k)):
        return None
    X1, W1 = X[:, :n_heads].contiguous(), [W[:n_heads, :n_heads].contiguous() for W in Ws]
    right = torch.cat(_mha_heads(X1, *W1[:3], n_heads), dim=-1) @ W1[3].double()
    if not _second_call_gives(fn, (X1, *W1, n_heads), right, X.dtype):
        return None
    return Misconception("mha_head_start_scaled_twice", f"only heads {list(kept)} reach the output (the starts 0, "
                         f"{d_k}, {2 * d_k}, ... times d_k = {d_k} again: the other slices are empty), and with "
                         f"d_k = 1 (d_model = n_heads = {n_heads}), where a start is its head, your output is right: "
                         + describe("mha_head_start_scaled_twice"))


def head_stride_n_heads(fn, X, Ws, n_heads, width):
    """The narrow concat of heads_missing can be slices at h * n_heads that ran past d_model (with n_heads a
    multiple of d_k they are heads 0, n_heads / d_k, ... exactly). A third call with another head count n2 whose
    slices all fit, overlap and differ from the right ones must give the stride output at n2; else None."""
    T, d_model = X.shape
    if sum(h.shape[-1] for h in _stride_heads(X, *Ws[:3], n_heads)) != width:
        return None
    for n2 in range(2, d_model):
        d2 = d_model // n2
        if d_model % n2 or n2 == d2 or n2 == n_heads or n2 * (n2 - 1) + d2 > d_model:
            continue
        want = head_stride_variants(X, *Ws, n2)["mha_head_stride_n_heads"]
        right = torch.cat(_mha_heads(X, *Ws[:3], n2), dim=-1) @ Ws[3].double()
        if matching_variants(right, {"v": want}, X.dtype):
            continue
        if not _second_call_gives(fn, (X, Ws[0], Ws[1], Ws[2], Ws[3], n2), want, X.dtype):
            return None
        return Misconception("mha_head_stride_n_heads", f"with n_heads = {n_heads} the concatenated heads are "
                             f"{width} wide where d_model = {d_model}, and given n_heads = {n2} your output equals "
                             f"head slices starting at h * {n2} (not h * {d2}): " + describe("mha_head_stride_n_heads"))
    return None


def heads_through_w_o(got, X, Ws, n_heads):
    """What the concatenated heads were, read back through W_O (got = concat @ W_O, W_O square and
    invertible): (key, text). Every block another head's right output, in another order, is
    mha_heads_reordered; else the text says which head blocks are right and which are not (None, text),
    or (None, "") when no block is right (a mistake after W_O, or in every head)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    if type(got) is not torch.Tensor or tuple(got.shape) != (T, d_model) or not got.is_floating_point() \
            or not bool(torch.isfinite(got).all()) or n_heads < 2:
        return None, ""
    try:
        concat = torch.linalg.solve(Ws[3].double(), got.double(), left=False)        # (T, d_model)
    except RuntimeError:
        return None, ""
    heads = _mha_heads(X, *Ws[:3], n_heads)
    tol = 1e-7 if X.dtype == torch.float64 else 1e-3

    def same(a, b):
        return bool(torch.allclose(a, b, rtol=tol, atol=tol))
    holds = []
    for h in range(n_heads):
        block = concat[:, h * d_k:(h + 1) * d_k]
        holds.append([j for j in range(n_heads) if same(block, heads[j])])
    if all(len(x) == 1 for x in holds) and sorted(x[0] for x in holds) == list(range(n_heads)) \
            and any(x[0] != h for h, x in enumerate(holds)):
        order = [x[0] for x in holds]
        if order == [(h + 1) % n_heads for h in range(n_heads)] and _running_sum_written("multi_head_attention"):
            return "mha_head_offsets_inclusive_cumsum", (   # naming86: head h reads head h + 1's columns
                f"read back through W_O, its column blocks hold the right heads in the order {order}, each head "
                "the next one's, and your multi_head_attention takes its head offsets from a running sum "
                "(cumsum / accumulate): " + describe("mha_head_offsets_inclusive_cumsum"))
        return "mha_heads_reordered", (f"read back through W_O, its column blocks hold the right heads in the order "
                                       f"{order}: " + describe("mha_heads_reordered"))
    stacked = torch.stack(heads)
    for how, merged in (("summed", stacked.sum(dim=0)), ("averaged", stacked.mean(dim=0))):
        blocks = [h for h in range(n_heads) if same(concat[:, h * d_k:(h + 1) * d_k], merged)]
        rest = [h for h in range(n_heads) if h not in blocks]
        if blocks and all(same(concat[:, h * d_k:(h + 1) * d_k], torch.zeros_like(merged)) for h in rest):
            where = "every block" if not rest else f"block(s) {blocks} (the others zero)"
            if len(blocks) == 1 and how == "summed":   # sum(o_h @ W_O[rows of block b]) is this same product, to rounding
                where += (f", the same product as every head multiplied by the same rows {blocks[0] * d_k} to "
                          f"{(blocks[0] + 1) * d_k - 1} of W_O")
            return "mha_heads_summed", (f"read back through W_O, {where} of the merged heads is the {how} output "
                                        f"of the {n_heads} heads (columns h * d_k to (h + 1) * d_k, d_k = {d_k}): "
                                        + describe("mha_heads_summed"))
    said = columns_permuted(concat, torch.cat(heads, dim=-1), n_heads, same)
    if said:
        return "mha_heads_interleaved", f"read back through W_O, {said}: " + describe("mha_heads_interleaved")
    key, said = merged_axis_order(concat, stacked, same)
    if key is not None:
        return key, said
    right = [h for h, x in enumerate(holds) if h in x]
    if not right or len(right) == n_heads:
        return None, ""
    wrong = [h for h in range(n_heads) if h not in right]
    return None, (f"; read back through W_O, head(s) {right} of the concatenated heads are right and head(s) "
                  f"{wrong} (columns h * d_k to (h + 1) * d_k, d_k = {d_k}) are wrong")


# --- the entropy of the raw scores (issue 21, sixth round) ----------------------------------------------

# One row of non-negative scores (some below 1, none summing to 1) and one with a negative score: the
# entropy taken of the scores themselves is -sum s log s on the first (whatever tiny epsilon is added)
# and log of a negative number, NaN, on the second.
RAW_SCORES_PROBE = torch.tensor([[0.2, 0.5, 1.5, 0.05, 0.9],
                                 [0.3, -1.2, 2.5, 0.0, 0.7]], dtype=torch.float32)


def raw_scores_entropy(fn, nan_seen: bool) -> Misconception | None:
    """_raw_scores_entropy, and, for an answer that held NaN (a saturated row: 0 * log(0) under a clamp(max=eps)
    guard), entropy_clamp_max from a call on two rows of moderate logits."""
    named = _raw_scores_entropy(fn, nan_seen)
    if named is not None or not nan_seen:
        return named
    probe = torch.tensor([[0.3, -1.2, 2.5, 0.0, 0.7], [1.0, 0.5, -0.5, 2.0, -1.5]])
    try:
        got = fn(probe.clone())
    except StudentCodeError:
        return None
    named = entropy_clamp_max(got, probe, probe.dtype, ref.softmax_entropy(probe.double()))
    if named is None:
        return _unnormalised_nan(got, probe)
    return Misconception("entropy_clamp_max", "softmax_entropy returned NaN for a saturated row (log(0) where a "
                         "probability underflowed to 0), and on two rows of moderate logits "
                         + str(named).split("on the same logits, ", 1)[-1])


def _unnormalised_nan(got, probe) -> Misconception | None:
    """entropy_probs_unnormalised for an answer that held NaN on a saturated row (exp of a large logit is inf in
    float32, and inf times its log-probability 0 is NaN): on two rows of moderate logits it equals one replay."""
    if type(got) is not torch.Tensor or tuple(got.shape) != (probe.shape[0],) or not got.is_floating_point():
        return None
    hits = matching_variants(got, unnormalised_entropy_replays(probe.double()), probe.dtype,
                             expected=ref.softmax_entropy(probe.double()))
    if not hits:
        return None
    return Misconception("entropy_probs_unnormalised", "softmax_entropy returned NaN for a saturated row (exp of a "
                         "large logit overflows to inf), and on two rows of moderate logits it gives "
                         f"{[round(float(x), 4) for x in got]}, -sum exp(z) log p with exp(z) never divided by its "
                         "sum: " + describe("entropy_probs_unnormalised"))


def unnormalised_overflow(fn, got) -> Misconception | None:
    """entropy_probs_unnormalised for an answer with an infinite entry and no NaN (exp(z) * log(exp(z)) is inf
    times inf for a large logit in float32): a second call on two rows of moderate logits equals one replay."""
    if type(got) is not torch.Tensor or not got.is_floating_point() or bool(torch.isnan(got).any()) \
            or bool(torch.isfinite(got).all()):
        return None
    probe = torch.tensor([[0.3, -1.2, 2.5, 0.0, 0.7], [1.0, 0.5, -0.5, 2.0, -1.5]])
    try:
        again = fn(probe.clone())
    except StudentCodeError:
        return None
    named = _unnormalised_nan(again, probe)
    if named is None:
        return None
    return Misconception("entropy_probs_unnormalised", "softmax_entropy is infinite for a row with a large logit "
                         "(exp of it overflows to inf)" + str(named).split("overflows to inf)", 1)[-1])


def _raw_scores_entropy(fn, nan_seen: bool) -> Misconception | None:
    """entropy_of_raw_scores when a call on RAW_SCORES_PROBE shows it: the non-negative row gives
    -sum s log s (to 1e-4, any epsilon up to 1e-6 added inside the log) and not the softmax entropy, and,
    when the failing answer held NaN (`nan_seen`), the row with a negative score is NaN too."""
    probe = RAW_SCORES_PROBE.clone()
    try:
        got = fn(probe)
    except StudentCodeError:
        return None
    if type(got) is not torch.Tensor or tuple(got.shape) != (2,) or not got.is_floating_point():
        return None
    s = RAW_SCORES_PROBE[0].double()
    raw = float(-(s * s.log()).sum())
    right = float(ref.softmax_entropy(s))
    first = float(got[0])
    if not math.isfinite(first) or abs(first - raw) > 1e-4 * max(1.0, abs(raw)) or abs(first - right) < 1e-3:
        return None
    if nan_seen and not bool(torch.isnan(got[1])):
        return None
    said = (f"on the scores {[round(float(x), 2) for x in s]} it gives {first:.5g} = -sum s log s, the entropy of "
            f"the scores themselves, where softmax(scores) has entropy {right:.5g}")
    if nan_seen:
        said += "; a row with a negative score gives NaN (log of a negative number)"
    return Misconception("entropy_of_raw_scores", f"{said}: " + describe("entropy_of_raw_scores"))


def entropy_judge(fn, expected, what, dtype, variants):
    """dtype_judge for softmax_entropy, with a failure that nothing names checked for the entropy of the
    raw scores by a call of its own (raw_scores_entropy)."""
    plain = dtype_judge(expected, what, dtype, variants)

    def judge(got):
        try:
            plain(got)
        except Misconception as m:
            raise cross_entropy_classes_said(implicit_dim_confirmed(fn, m, what), got, variants, dtype) from None
        except AssertionError:
            nan_seen = type(got) is torch.Tensor and got.is_floating_point() and bool(torch.isnan(got).any())
            named = raw_scores_entropy(fn, nan_seen)
            logits = getattr(variants, "logits", None)
            if named is None and logits is not None:
                named = (whole_tensor_confirmed(fn, got, logits, what)
                         or entropy_batch_fast_path(fn, got, logits, dtype, expected)
                         or entropy_temperature(fn, got, logits, dtype) or entropy_alias(got, logits, dtype, expected)
                         or entropy_softmax_twice(got, logits, dtype, expected)
                         or entropy_keepdim_missing(got, logits, dtype, expected)
                         or entropy_sum_binds_log(got, logits, dtype)
                         or entropy_nan_guard_after_sum(got, logits, dtype, expected)
                         or entropy_clamp_max(got, logits, dtype, expected)
                         or entropy_across_rows(got, logits, dtype, expected)
                         or entropy_collision(got, logits, dtype, expected)
                         or entropy_min(got, logits, dtype, expected)
                         or entropy_clamp_log(got, logits, expected)
                         or unnormalised_overflow(fn, got) or entropy_fixed_rows(fn, got, logits)
                         or entropy_first_row_only(got, logits, dtype, expected))
            if named is not None:
                raise named from None
            said = entropy_guard_too_large(got, logits, expected, dtype) if logits is not None else None
            if said is not None:       # the replay matches: named (blind49's 1e-4 guard, said exactly but keyless)
                raise Misconception("entropy_guard_too_large", f"{what}: {said}") from None
            raise
    return judge


def entropy_first_row_only(got, logits, dtype, expected) -> Misconception | None:
    """naming64: the entropy of the first row (block) only, H[0] after the row sum (with keepdim=True or without):
    `got` is the replay expected.unsqueeze(-1)[0] or expected[0], and logits have more than one row."""
    if type(got) is torch.Tensor and type(expected) is torch.Tensor and expected.dim() >= 1 and expected.shape[0] > 1:
        for replay, how in ((expected.unsqueeze(-1)[0], "summed with keepdim=True, then [0]"),
                            (expected[0], "summed, then [0]")):
            if tuple(got.shape) == tuple(replay.shape) and matching_variants(got, {"v": replay}, dtype):
                return Misconception("entropy_first_row_only", f"softmax_entropy of logits of shape "
                                     f"{tuple(logits.shape)} has shape {tuple(got.shape)}, and it is the entropy of the "
                                     f"first row only, logits[0] ({how}: the right answer's first entry): "
                                     + describe("entropy_first_row_only"))
    return None


def cross_entropy_classes_said(m, got, variants, dtype):
    """entropy_wrong_dim told as F.cross_entropy's class axis where `got` is exactly the replay
    -(p * log_softmax(logits, dim=1)).sum(dim=1), p the softmax over the last dim: H(p) written as
    F.cross_entropy(logits, p, reduction="none"), whose classes are dim 1 ((N, C, ...), PyTorch's layout, not
    TensorFlow's last axis); only logits of 3 or more axes show it (blind56). `m` unchanged otherwise."""
    replay = variants.get("entropy_wrong_dim/cross_entropy_dim1") if hasattr(variants, "get") else None
    if getattr(m, "key", None) != "entropy_wrong_dim" or replay is None or type(got) is not torch.Tensor \
            or not matching_variants(got, {"v": replay}, dtype):
        return m
    return Misconception("entropy_wrong_dim", f"{m}: it is -(p * log_softmax(logits, dim=1)).sum(dim=1), what "
                         "F.cross_entropy(logits, p) gives, since F.cross_entropy takes its classes on dim 1 (an "
                         "(N, C, ...) input), not on the last dim; write the entropy out, "
                         "-(p * F.log_softmax(logits, dim=-1)).sum(dim=-1)")


# the epsilons a guard is written with: powers of ten and the float dtypes' machine epsilons
_LOG_GUARDS = sorted({10.0 ** -k for k in range(3, 21)} | {torch.finfo(t).eps for t in (torch.float32, torch.float64)})


def entropy_clamp_log(got, logits, expected):
    """entropy_clamp_log (blind44 q4_entropy_nan_guard_clamps_the_log): the guard against log(0) put on the log
    instead of on p, torch.log(p).clamp(min=eps) (or log_softmax(...).clamp(min=eps)): every log-probability is
    at most 0, so each becomes +eps and every row gives -eps * sum p = -eps. Replayed on the same logits for the
    epsilons a guard is written with (_LOG_GUARDS) and matched to the replay's own size, entry by entry within
    0.1% (a dtype's absolute tolerance would let any answer near 0 match, as the whole-tensor softmax did on
    saturated rows): an answer of -eps in every row, to float32's rounding, for one of them. Only after the
    answer failed."""
    if (type(got) is not torch.Tensor or not got.is_floating_point() or got.numel() == 0
            or tuple(got.shape) != tuple(expected.shape)):
        return None
    g = got.detach().double()
    if not bool(torch.isfinite(g).all()) or not bool((g < 0).all()):
        return None
    p = torch.softmax(logits.double(), dim=-1)
    log_p = torch.log_softmax(logits.double(), dim=-1)
    for eps in sorted(_LOG_GUARDS, key=lambda e: abs(math.log(e / float(-g.flatten()[0]))))[:2]:
        replay = -(p * log_p.clamp(min=eps)).sum(dim=-1)
        if tuple(replay.shape) == tuple(g.shape) and torch.allclose(g, replay, rtol=1e-3, atol=0):
            return Misconception("entropy_clamp_log", f"softmax_entropy(logits) is about {-eps:.3g} in every row: on "
                                 f"the same logits it equals -sum p * log(p).clamp(min={eps:.3g}): "
                                 + describe("entropy_clamp_log"))
    return None


def entropy_collision(got, logits, dtype, expected):
    """entropy_collision (naming31, blind28 q4_entropy_collision_renyi2): -ln(sum p^2) over the last dim, replayed
    on the same logits after the answer failed. Equal to the entropy only where every row is one-hot or uniform
    (then matching_variants drops it against `expected`)."""
    if type(got) is not torch.Tensor or not got.is_floating_point():
        return None
    p = torch.softmax(logits.double(), dim=-1)
    replay = -torch.log((p * p).sum(dim=-1))
    if not matching_variants(got, {"v": replay}, dtype, expected=expected):
        return None
    return Misconception("entropy_collision", "softmax_entropy(logits) is wrong: on the same logits it equals "
                         "-ln(sum p^2) of each row: " + describe("entropy_collision"))


def entropy_min(got, logits, dtype, expected):
    """min_entropy (blind30 q4_entropy_as_minus_log_max_prob): -ln(max p) of each row, from the largest weight alone,
    replayed on the same logits (or in bits) after the answer failed; equal to the entropy only on uniform rows."""
    if type(got) is not torch.Tensor or not got.is_floating_point():
        return None
    top = torch.softmax(logits.double(), dim=-1).amax(dim=-1)
    if not matching_variants(got, {"nats": -torch.log(top), "bits": -torch.log2(top)}, dtype, expected=expected):
        return None
    return Misconception("min_entropy", "softmax_entropy(logits) is wrong: on the same logits it equals -log(max p) "
                         "of each row (in nats or in bits): " + describe("min_entropy"))


def entropy_clamp_max(got, logits, dtype, expected):
    """entropy_clamp_max: the guard before the log written clamp(max=eps), every probability cut down to eps:
    the written epsilons nearest exp(-H) of the first finite entry, then the whole answer replayed with each on
    the same logits; only after the answer failed. Not told apart: an answer that is the constant -log(eps) of
    such an eps in every row for another reason."""
    if type(got) is not torch.Tensor or not got.is_floating_point() or got.numel() == 0:
        return None
    finite = got.detach().double().flatten()
    finite = finite[torch.isfinite(finite)]
    if finite.numel() == 0 or not 5.0 < float(finite[0]) < 100.0:
        return None
    p = torch.softmax(logits.double(), dim=-1)
    eps = math.exp(-float(finite[0]))
    # only the epsilons a guard is written with (a power of ten, a dtype's eps or tiny): on rows with no
    # probability below eps the replay is the constant -log(eps), so an eps read off the answer proves nothing
    guards = {10.0 ** -k for k in range(4, 21)} | {torch.finfo(t).eps for t in (torch.float32, torch.float64)} \
        | {torch.finfo(torch.float32).tiny}
    for guess in sorted(guards, key=lambda x: abs(math.log(x / eps)))[:2]:
        replay = -(p * torch.log(p.clamp(max=guess))).sum(dim=-1)
        if matching_variants(got, {"v": replay}, dtype, expected=expected):
            return Misconception("entropy_clamp_max", f"softmax_entropy(logits) equals, on the same logits, "
                                 f"-sum p log(p.clamp(max={guess:.3g})) (about -log({guess:.3g}) = "
                                 f"{-math.log(guess):.4g} for every row): " + describe("entropy_clamp_max"))
    return None


def _keepdim_missing_replays(logits) -> dict:
    """softmax_entropy with a row reduction that drops keepdim (shape (..., T) broadcast along the last axis:
    entry (i, j) meets row j's value), on logits whose shape lets it broadcast (square rows): the log-normaliser
    logsumexp, the max shift, or the exp's sum. {} where it cannot broadcast."""
    L = logits.double()
    try:
        log_p = L - torch.logsumexp(L, dim=-1)
        e = torch.exp(L - L.amax(dim=-1, keepdim=True))
        p = e / e.sum(dim=-1)
        return {"the log-normaliser logsumexp(logits, dim=-1)": -(log_p.exp() * log_p).sum(dim=-1),
                "the max logits.max(-1).values subtracted": ref.softmax_entropy(L - L.amax(dim=-1)),
                "the sum of the exponentials e.sum(-1)": -(p * torch.log(p)).sum(dim=-1)}
    except RuntimeError:
        return {}


def entropy_keepdim_missing(got, logits, dtype, expected):
    """keepdim_missing in softmax_entropy, replayed on the same (square) logits; only after the answer failed."""
    if type(got) is not torch.Tensor or not got.is_floating_point() or logits.dim() != 2:
        return None
    for how, replay in _keepdim_missing_replays(logits).items():
        if matching_variants(got, {"v": replay}, dtype, expected=expected):
            return Misconception("keepdim_missing", f"softmax_entropy(logits) equals, on the same logits, the entropy "
                                 f"with {how} without keepdim=True: " + describe("keepdim_missing"))
    return None


def entropy_nan_guard_after_sum(got, logits, dtype, expected):
    """entropy_nan_guard_after_sum: -(p * log p).sum(-1) in the test's dtype with its NaN replaced by 0 AFTER the
    row sum (torch.nan_to_num(H), H[H != H] = 0, torch.where(isnan(H), 0, H)). A row where some probabilities
    underflow to 0 is NaN before the guard, so its whole entropy becomes 0: right only where one probability
    takes all the mass, wrong on a row with two tied maxima (ln 2). Replayed on the same logits; named only
    where a guarded row is nonzero in the reference."""
    if type(got) is not torch.Tensor or not got.is_floating_point() or tuple(got.shape) != tuple(logits.shape[:-1]):
        return None
    p = torch.softmax(logits.to(dtype), dim=-1)
    raw = -(p * torch.log(p)).sum(dim=-1)
    guarded = torch.isnan(raw)
    if not bool(guarded.any()) or not bool((expected[guarded].abs() > 1e-3).any()):
        return None
    replay = torch.nan_to_num(raw, nan=0.0)
    if not matching_variants(got, {"v": replay}, dtype, expected=expected):
        return None
    rows = [i for i, (g, e) in enumerate(zip(guarded.flatten().tolist(), expected.flatten().tolist()))
            if g and abs(e) > 1e-3]
    return Misconception("entropy_nan_guard_after_sum", f"softmax_entropy(logits) is 0 on the row(s) {rows}, where some "
                         "probabilities underflow to 0 and the others share the mass (entropy "
                         f"{float(expected.flatten()[rows[0]]):.4g} there); it equals, on every row, -(p * log p).sum(-1) with its "
                         "NaN replaced by 0 after the sum: " + describe("entropy_nan_guard_after_sum"))


def check_entropy_size_one_axes(fn, logits):
    """The entropy keeps every leading axis, size one included: logits of shape (B, 1, T) give (B, 1). A result of
    the right values with the size-one axes dropped (H.squeeze(), torch.squeeze) is entropy_size_one_axes_dropped;
    any other shape is said in words. Called after the value cases passed."""
    got = call_entropy(fn, logits)
    want = tuple(logits.shape[:-1])
    what = f"softmax_entropy of logits of shape {tuple(logits.shape)}"
    if type(got) is not torch.Tensor or tuple(got.shape) == want:
        return
    expected = ref.softmax_entropy(logits.double())
    squeezed = tuple(n for n in want if n != 1)
    if tuple(got.shape) == squeezed and got.is_floating_point() \
            and matching_variants(got.reshape(want), {"right": expected}, logits.dtype):
        raise Misconception("entropy_size_one_axes_dropped", f"{what} has shape {tuple(got.shape)}, not {want} "
                            "(logits.shape[:-1]); its values are right: " + describe("entropy_size_one_axes_dropped"))
    raise AssertionError(f"{what} should have shape {want} (logits.shape[:-1]), got {tuple(got.shape)}")


def _scores_as_probs_crash(fn, e, shape):
    """A crash on logits with negative entries, named entropy_of_raw_scores when the same function on two rows of
    positive scores runs and returns the entropy of the scores themselves, divided by their row sum (as
    Categorical(scores) does: its first parameter is probs, which must be non-negative) or not, and not the
    softmax entropy."""
    probe = torch.tensor([[0.2, 0.5, 1.5, 0.05, 0.9], [1.0, 2.0, 0.5, 0.25, 3.0]])
    try:
        got = fn(probe.clone())
    except StudentCodeError:
        return None
    right = ref.softmax_entropy(probe.double())
    if type(got) is not torch.Tensor or tuple(got.shape) != (2,) or not got.is_floating_point():
        return None
    s = probe.double()
    p = s / s.sum(dim=-1, keepdim=True)
    for how, replay in (("divided by their sum (Categorical(scores) takes them as probs, its first parameter)",
                         -(p * p.log()).sum(dim=-1)), ("as they are", -(s * s.log()).sum(dim=-1))):
        if matching_variants(got, {"v": replay}, probe.dtype, expected=right):
            return Misconception("entropy_of_raw_scores", f"softmax_entropy raised {e.exc_type} on a {shape} input; "
                                 f"on two rows of positive scores it runs and returns the entropy of the scores "
                                 f"{how}, not of softmax(scores): " + describe("entropy_of_raw_scores"))
    return None


def _keepdim_missing_crash(fn, e, shape):
    """A size-mismatch crash on (..., T, n) logits with T != n, named keepdim_missing when the same function on
    square (5, 5) logits returns, not the right entropies, but those of a row reduction without keepdim."""
    if (e.exc_type != "RuntimeError" or "must match the size of tensor b" not in (e.message or "") or len(shape) < 2
            or shape[-1] == shape[-2]):
        return None
    probe = torch.randn(5, 5, generator=torch.Generator().manual_seed(11)) * 2
    try:
        got = fn(probe.clone())
    except StudentCodeError:
        return None
    expected = ref.softmax_entropy(probe.double())
    if type(got) is not torch.Tensor or tuple(got.shape) != (5,) or matching_variants(got, {"v": expected}, probe.dtype):
        return None
    for how, replay in _keepdim_missing_replays(probe).items():
        if matching_variants(got, {"v": replay}, probe.dtype, expected=expected):
            return Misconception("keepdim_missing", f"softmax_entropy raised {e.exc_type}: "
                                 f"{e.message.splitlines()[0][:120]} on a {shape} input; on square (5, 5) logits it "
                                 f"runs and returns the entropy with {how} without keepdim=True: "
                                 + describe("keepdim_missing"))
    return None


def _sum_binds_log_replays(logits) -> dict:
    """(naming78) -p * log(p).sum(-1): the parentheses close before the sum, so the logs are summed over each row first
    and every probability is multiplied by a row total (shape (T,), broadcast along the last axis); with log(p + eps)
    or log_softmax. Only on 2-D square logits, where that broadcast runs."""
    if logits.dim() != 2 or logits.shape[0] != logits.shape[1] or logits.shape[0] < 2:
        return {}
    z = logits.double()
    p = torch.softmax(z, dim=-1)
    return {"eps": -p * torch.log(p + 1e-9).sum(-1), "log_softmax": -p * torch.log_softmax(z, dim=-1).sum(-1)}


def entropy_sum_binds_log(got, logits, dtype) -> Misconception | None:
    """entropy_sum_outside_product: on square logits the result has the logits' own shape and equals, entry by entry,
    -p * log(p).sum(-1) on the same logits (and is not the entropy)."""
    if type(got) is not torch.Tensor or not got.is_floating_point() or tuple(got.shape) != tuple(logits.shape):
        return None
    for replay in _sum_binds_log_replays(logits).values():
        if matching_variants(got, {"v": replay}, dtype):
            return Misconception("entropy_sum_outside_product", f"softmax_entropy(logits) has shape "
                                 f"{tuple(got.shape)}, the logits' own shape, and equals -p * log(p).sum(-1) on the "
                                 "same logits, entry by entry: " + describe("entropy_sum_outside_product"))
    return None


def _sum_binds_log_crash(fn, e, shape) -> Misconception | None:
    """A size mismatch between the last axis (a) and the rows (b) on non-square logits, and a second call on square
    (6, 6) logits that runs and equals -p * log(p).sum(-1) there: entropy_sum_outside_product."""
    found = _SIZE_MISMATCH.search(e.message or "") if e.exc_type == "RuntimeError" else None
    if found is None or len(shape) < 2 or (int(found.group(1)), int(found.group(2))) != (shape[-1], shape[-2]):
        return None
    probe = torch.randn(6, 6, generator=torch.Generator().manual_seed(78)) * 2
    try:
        got = fn(probe.clone())
    except StudentCodeError:
        return None
    if entropy_sum_binds_log(got, probe, probe.dtype) is None:
        return None
    return Misconception("entropy_sum_outside_product", f"softmax_entropy raised {e.exc_type}: "
                         f"{e.message.splitlines()[0][:120]} on a {shape} input; on square (6, 6) logits it runs, "
                         "returns a (6, 6) tensor, and that equals -p * log(p).sum(-1), entry by entry: "
                         + describe("entropy_sum_outside_product"))


def entropy_softmax_twice(got, logits, dtype, expected):
    """softmax_applied_twice in softmax_entropy: the probabilities p = softmax(logits) passed on where logits are
    due, replayed on the same logits: -sum p * log_softmax(p) (log p taken as a log-softmax of p) or the entropy
    of softmax(p) itself; only after the answer failed."""
    if type(got) is not torch.Tensor or not got.is_floating_point():
        return None
    p = torch.softmax(logits.double(), dim=-1)
    log_q = torch.log_softmax(p, dim=-1)
    replays = {"log_softmax_of_p": -(p * log_q).sum(dim=-1), "entropy_of_softmax_p": -(log_q.exp() * log_q).sum(dim=-1)}
    for how, replay in replays.items():
        if matching_variants(got, {"v": replay}, dtype, expected=expected):
            said = ("-sum p * log_softmax(p): log p taken as a log-softmax of the probabilities" if how == "log_softmax_of_p"
                    else "the entropy of softmax(p), the probabilities put through a second softmax")
            return Misconception("softmax_applied_twice", f"softmax_entropy(logits) equals, on the same logits, {said} "
                                 f"(p = softmax(logits)): " + describe("softmax_applied_twice"))
    return None


def _matrix_product_entropy(logits):
    """-(p @ log(p).T) for 2-D logits: every row's p against every row's log p, (rows, rows), the entropies
    only on its diagonal (entropy_matrix_product)."""
    p = torch.softmax(logits.double(), dim=-1)
    return -(p @ torch.log_softmax(logits.double(), dim=-1).T)


def _matrix_product_replays(logits, dtype):
    """_matrix_product_entropy, then with log(p + eps) in the test's dtype for each of ALIAS_EPSILONS: where a
    probability underflows to 0 the epsilon decides log p, and every row's log p meets every other row's p."""
    yield _matrix_product_entropy(logits)
    p = torch.softmax(logits.to(dtype), dim=-1)
    for eps in ALIAS_EPSILONS[1:]:
        yield -(p @ torch.log(p + eps).T)


def entropy_across_rows(got, logits, dtype, expected):
    """A reduction across the rows, replayed on the same logits after the answer failed: the rows'
    probabilities averaged over the first axis (or over the rows, dim=-2) into one distribution before one
    entropy (entropy_one_number), or -sum p log p written as the matrix product p @ log(p).T, a (rows, rows)
    matrix (entropy_matrix_product). Each is dropped where it equals the right entropies (one row)."""
    if type(got) is not torch.Tensor or not got.is_floating_point() or logits.dim() < 2 or logits.shape[-2] < 2:
        return None
    p = torch.softmax(logits.double(), dim=-1)
    for dim in dict.fromkeys((0, logits.dim() - 2)):
        mean_p = p.mean(dim=dim)
        replay = -(mean_p * torch.log(mean_p)).sum(dim=-1)
        if matching_variants(got, {"v": replay}, dtype, expected=expected):
            return Misconception("entropy_one_number", f"softmax_entropy(logits) of shape {tuple(logits.shape)} "
                                 f"returns shape {tuple(got.shape)}: on the same logits it equals the entropy of the "
                                 f"rows' probabilities averaged over dim {dim} (softmax(...).mean(dim={dim})) into one "
                                 f"distribution, not one entropy per row: " + describe("entropy_one_number"))
    if logits.dim() == 2 and any(matching_variants(got, {"v": replay}, dtype, expected=expected)
                                 for replay in _matrix_product_replays(logits, dtype)):
        return Misconception("entropy_matrix_product", f"softmax_entropy(logits) of shape {tuple(logits.shape)} "
                             f"returns shape {tuple(got.shape)}: on the same logits it equals -(p @ log(p).T), the "
                             "right entropies only on its diagonal: " + describe("entropy_matrix_product"))
    return None


def global_max_nan(got, logits):
    """entropy_exp_overflow's other side: the logits shifted by the whole tensor's maximum (logits.max() with no
    dim) before exp. Replayed on the same float logits: a row far below that maximum has every exp underflow to
    0, its sum is 0 and p = 0/0 is NaN. Named when exactly those rows are NaN and every other row is right."""
    if type(got) is not torch.Tensor or tuple(got.shape) != tuple(logits.shape[:-1]) or not got.is_floating_point():
        return None
    empty = (logits - logits.max()).exp().sum(dim=-1) == 0
    nan = torch.isnan(got)
    if not bool(empty.any()) or bool(empty.all()) or not torch.equal(nan, empty):
        return None
    if not matching_variants(got[~nan], {"v": ref.softmax_entropy(logits.double())[~nan]}, logits.dtype):
        return None
    rows = [i for i, e in enumerate(empty.flatten().tolist()) if e]
    return Misconception("entropy_exp_overflow", f"softmax_entropy returned NaN for rows {rows} exactly: the rows "
                         f"whose exp underflows to 0 in every entry once the whole tensor's maximum "
                         f"({float(logits.max()):.4g}, logits.max() with no dim) is subtracted, so p = 0/0 there; the "
                         f"other rows are right: " + describe("entropy_exp_overflow"))


# --- an in-place op on p that is still needed (issue 21, naming20) ----------------------------------------

ALIAS_EPSILONS = (0.0, 1e-12, 1e-10, 1e-9, 1e-8, 1e-7, 1e-6)


def _alias_replays(logits, dtype):
    """The entropy replayed with p and log p one tensor, in float64 and in the test's dtype (where float32 p
    underflows to 0, the epsilon decides the value): p.add_(eps).log_() or p.clamp_(min=eps).log_() leaves ln p
    in both (-sum (ln p)^2), log_p.exp_() leaves p in both (-sum p^2)."""
    for dt in dict.fromkeys((torch.float64, dtype)):
        p = torch.softmax(logits.to(dt), dim=-1)
        yield "log_", "-sum (ln p)^2", -(torch.log(p) ** 2).sum(dim=-1)
        for eps in ALIAS_EPSILONS[1:]:
            yield "log_", "-sum (ln p)^2", -(torch.log(p + eps) ** 2).sum(dim=-1)
            yield "log_", "-sum (ln p)^2", -(torch.log(p.clamp(min=eps)) ** 2).sum(dim=-1)
        yield "exp_", "-sum p^2", -(p * p).sum(dim=-1)


def entropy_alias(got, logits, dtype, expected) -> Misconception | None:
    """inplace_alias_overwritten: the entropy equals its replay with p and log p aliased by an in-place op
    (log_/add_ on p, or exp_ on log p), -sum (ln p)^2 or -sum p^2, on the same logits; a replay equal to the
    right entropy there is dropped (a row whose p is one-hot gives 0 either way)."""
    if type(got) is not torch.Tensor or not got.is_floating_point():
        return None
    for op, form, replay in _alias_replays(logits, dtype):
        if matching_variants(got, {"v": replay}, dtype, expected=expected):
            what = ("log p was taken in place (p.log_(), after add_ or clamp_), so p holds ln p too"
                    if op == "log_" else "p was taken as log_p.exp_(), so log_p holds p too")
            return Misconception("inplace_alias_overwritten", f"softmax_entropy's values are {form} on the same logits: "
                                 f"{what}: " + describe("inplace_alias_overwritten"))
    return None


# --- the entropy table's columns and seeds (issue 21, sixth round) ---------------------------------------

TABLE_COLUMNS = ("raw_std", "scaled_std", "H_raw", "H_scaled")


def raise_if_column_squared(table, expected):
    """Every wrong column of the (rows, 4) table holds the square of the right one (a variance where a std
    is asked) or its square root (the converse), and every other column is right: named, with the column."""
    if type(table) is not torch.Tensor or tuple(table.shape) != tuple(expected.shape):
        return
    raise_if_column_copied(table, expected)
    said = []
    for c, column in enumerate(TABLE_COLUMNS):
        got, want = table[:, c].double(), expected[:, c].double()
        if matching_variants(got, {"right": want}, torch.float32):
            continue
        if column.endswith("_std") and matching_variants(got, {"v": want ** 2}, torch.float32):
            said.append(f"{column} holds the square of the std (the variance, .var())")
        elif column.endswith("_std") and bool((want >= 0).all()) \
                and matching_variants(got, {"v": want.sqrt()}, torch.float32):
            said.append(f"{column} holds the square root of the std (a std taken where it already is one)")
        else:
            return
    if said:
        raise Misconception("table_variance_as_std", f"the entropy table's {'; '.join(said)}, every other column "
                            "is right: " + describe("table_variance_as_std"))


def _spelling(key) -> str:
    """A key without case, spaces, underscores or other punctuation: 'h_raw', 'H-raw', 'Hraw' are 'hraw'."""
    return re.sub(r"[^0-9a-z]", "", str(key).lower())


def raise_if_key_misspelled(row, missing, i):
    """Each missing key of row i present under a key that differs from it only in case or punctuation
    ('h_raw', 'H raw', 'Hraw' for 'H_raw'): table_key_misspelled, with the keys to rename."""
    found = {}
    for want in missing:
        same = [k for k in row if isinstance(k, str) and k != want and _spelling(k) == _spelling(want)]
        if len(same) != 1:
            return
        found[want] = same[0]
    said = ", ".join(f"{got!r} for {want!r}" for want, got in found.items())
    raise Misconception("table_key_misspelled", f"row {i} of entropy_table spells its key(s) {said}: "
                        + describe("table_key_misspelled"))


def _raw_scores_at(d, seed):
    """The lesson's five raw scores (q @ k.T)[0] for one d at one seed, float32 (torch.manual_seed's stream)."""
    g = torch.Generator().manual_seed(seed)
    q, k = torch.randn(1, d, generator=g), torch.randn(5, d, generator=g)
    return (q @ k.T)[0]


def _raise_if_entropy_scaled_after(got, want, dims):
    """Only H_scaled wrong (the other three columns right): scale_after_softmax when it is H_raw / sqrt(d) in
    every row, the raw entropy divided instead of the entropy of the scaled scores; else the message says
    which rows of that column differ."""
    if not all(matching_variants(got[:, c], {"right": want[:, c]}, torch.float32) for c in (0, 1, 2)):
        return
    bad = [d for i, d in enumerate(dims) if not matching_variants(got[i, 3:], {"right": want[i, 3:]}, torch.float32)]
    if not bad:
        return
    after = want[:, 2] / torch.tensor([math.sqrt(d) for d in dims], dtype=torch.float64)
    if matching_variants(got[:, 3], {"v": after}, torch.float32, expected=want[:, 3]):
        raise Misconception("scale_after_softmax", "the entropy table's H_scaled is H_raw / sqrt(d) in every row (the "
                            "other columns are right): the raw scores' entropy divided by sqrt(d), where H_scaled is "
                            "the entropy of the scaled scores, softmax_entropy(raw / sqrt(d)): "
                            + describe("scale_after_softmax"))
    raise AssertionError(f"the entropy table's raw_std, scaled_std and H_raw are right; H_scaled is wrong for d = "
                         f"{bad}: it must be the entropy of the scaled scores, softmax_entropy(raw / sqrt(d))")


def raise_if_table_scale(table, expected, dims, seed):
    """The raw columns right and the scaled ones those of raw / c for another c than sqrt(d), c fitted per row
    from the two stds (the entropy then checked with that c): one c for every d is a constant where sqrt(d)
    belongs, sqrt(5) the number of keys (scale_by_T), another constant wrong_scale_constant; a c that changes
    with d is said in the message (which rows, which c) and named nothing."""
    if type(table) is not torch.Tensor or tuple(table.shape) != tuple(expected.shape) or table.shape[1] != 4:
        return
    got, want = table.double(), expected.double()
    _raise_if_entropy_scaled_after(got, want, dims)
    if not all(matching_variants(got[:, c], {"right": want[:, c]}, torch.float32) for c in (0, 2)) \
            or matching_variants(got[:, 1], {"right": want[:, 1]}, torch.float32):
        return
    cs = []
    for i, d in enumerate(dims):
        if not float(got[i, 1]) > 0:
            return
        c = float(got[i, 0] / got[i, 1])
        scaled = _raw_scores_at(d, seed).double() / c
        if not matching_variants(torch.tensor([float(scaled.std()), float(ref.softmax_entropy(scaled))]),
                                 {"v": got[i, [1, 3]]}, torch.float32):
            return
        cs.append(c)
    if max(cs) - min(cs) <= 1e-3 * max(cs) and len(dims) > 1:
        c = sum(cs) / len(cs)
        if abs(c / math.sqrt(5) - 1) < 1e-3:
            raise Misconception("scale_by_T", f"the table's scaled columns are those of raw / {c:.4g} for every d: "
                                "sqrt(5), the number of keys: " + describe("scale_by_T") + "; divide by sqrt(d)")
        what = " (5, the number of keys)" if abs(c / 5 - 1) < 1e-3 else ""
        raise Misconception("wrong_scale_constant", f"the table's scaled columns are those of raw / {c:.4g}{what} "
                            f"for every d, where each row divides by sqrt(d): " + describe("wrong_scale_constant"))
    said = ", ".join(f"d = {d}: c = {c:.4g} (sqrt(d) = {math.sqrt(d):.4g})" for d, c in zip(dims, cs))
    if any(math.isqrt(d) ** 2 != d for d in dims) \
            and all(abs(c / math.isqrt(d) - 1) < 1e-3 for d, c in zip(dims, cs)):   # naming64: math.isqrt(d)
        raise Misconception("integer_sqrt_scale", f"the entropy table's raw columns are right; its scaled columns are "
                            f"those of raw / c with {said}: in every row c is the integer square root of d "
                            "(math.isqrt(d), int(d ** 0.5)), which is sqrt(d) only for perfect squares like the "
                            "default 4, 16, 64, 256: " + describe("integer_sqrt_scale") + "; divide by math.sqrt(d)")
    stds = [float(got[i, 0]) for i in range(len(dims))]
    if all(abs(c / s - 1) < 1e-3 for c, s in zip(cs, stds)):     # c = each row's own raw_std (blind36)
        raise Misconception("table_scaled_by_observed_std", f"the entropy table's raw columns are right; its scaled "
                            f"columns are those of raw / c with {said}: in every row c is that row's own raw_std, "
                            "so scaled_std is 1: " + describe("table_scaled_by_observed_std"))
    raise AssertionError(f"the entropy table's raw columns are right; its scaled columns are those of raw / c with "
                         f"{said}: each row divides by sqrt(d)")


def _row_at(d, seed):
    """The lesson's row (raw_std, scaled_std, H_raw, H_scaled) for one d at one seed, float32."""
    return torch.tensor([[float(r[k]) for k in TABLE_COLUMNS] for r in ref.entropy_table((d,), seed)])


def _raw_std_at(d, seed):
    g = torch.Generator().manual_seed(seed)      # the stream torch.manual_seed(seed) gives on the CPU
    q, k = torch.randn(1, d, generator=g), torch.randn(5, d, generator=g)
    return float((q @ k.T)[0].std())


def _seed_rules(value_row, d, i, seed, reach):
    """The rules that give the seed at which the row is the lesson's row for d: ('offset', o) for seed + o
    (|o| <= reach searched), ('times', m) for seed * m (m = d or i + 1) and ('fixed', c) for a seed written in
    (the lesson's torch.manual_seed(0), or 1, 42) whatever seed is passed; [] when no such seed gives it."""
    got = float(value_row[0])
    seeds = [seed + o for o in sorted(range(-reach, reach + 1), key=abs)] + [seed * d, seed * (i + 1)] \
        + list(_FIXED_SEEDS)
    for s in seeds:
        if s < 0 or abs(_raw_std_at(d, s) - got) > 1e-5 * max(1.0, abs(got)):
            continue
        if matching_variants(value_row[None], {"v": _row_at(d, s)}, torch.float32):
            return [("offset", s - seed)] + [("times", m) for m in (d, i + 1) if seed * m == s] \
                + [("fixed", c) for c in _FIXED_SEEDS if c == s]
    return []


_FIXED_SEEDS = (0, 1, 42)   # seeds written into the cell instead of `seed` (the lesson's is 0)


def _seed_of(rule, seed):
    if rule[0] == "fixed":
        return rule[1]
    return seed + rule[1] if rule[0] == "offset" else seed * rule[1]


def _table_again(again, seed):
    """The student's table at `seed` (`again(seed)`, a call of its own); None when the call fails or gives no
    (rows, 4) table."""
    try:
        table = again(seed)
    except Exception:  # noqa: BLE001 - no second table: nothing to name
        return None
    return table if type(table) is torch.Tensor and table.dim() == 2 and table.shape[1] == 4 else None


def _seeds_another_device(submission) -> bool:
    """entropy_table's source (read, never run) calls torch.cuda.manual_seed / manual_seed_all (or mps's): the CPU
    draws stay unseeded, and the one-edit fix (torch.manual_seed for it) tells that exactly."""
    import ast
    from autograder.grading.source_checks import cells_of
    for cell in cells_of(submission) if submission is not None else []:
        try:
            tree = parse(cell)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for fdef in ast.walk(tree):
            if isinstance(fdef, ast.FunctionDef) and fdef.name == "entropy_table" and any(
                    isinstance(n, ast.Attribute) and n.attr in ("manual_seed", "manual_seed_all")
                    and isinstance(n.value, ast.Attribute) and n.value.attr in ("cuda", "mps")
                    for n in ast.walk(fdef)):
                return True
    return False


def raise_if_seed_zero_ignored(table, dims, seed, again, submission=None) -> None:
    """seed_zero_ignored: entropy_table skips the seeding for seed 0 (`if seed:`, `seed or None`, `if seed > 0`).
    Named from second calls only (the student's code runs in the worker, whose global generator moves on between
    calls): called twice at seed 0 it gives two tables and twice at seed 1 one same table, or the table at seed 0
    is the lesson's at the default seed of a new torch.Generator (seeded only `if seed`) and at seed 1 the
    lesson's at seed 1. Two tables at the test's seed and two at another (0, or 1 for seed 0): never seeded where
    it draws (a generator seeded but not passed), ignores_generator, except where torch.cuda.manual_seed is called
    (the one-edit fix says that one)."""
    if type(table) is not torch.Tensor or tuple(table.shape) != (len(dims), 4) or len(dims) > 8:
        return
    other = 1 if seed == 0 else 0
    here = [_table_again(again, seed) for _ in range(2)]
    there = [_table_again(again, other) for _ in range(2)]
    if any(t is None or tuple(t.shape) != tuple(table.shape) for t in here + there):
        return
    same = functools.partial(torch.allclose, rtol=1e-6, atol=1e-6, equal_nan=True)
    varies_here, varies_there = not same(here[0].double(), here[1].double()), not same(there[0].double(),
                                                                                       there[1].double())
    if varies_here and varies_there and not _seeds_another_device(submission):
        outside = _outside_generator_passed(submission, "entropy_table")   # naming67: the cause, where the source has it
        raise Misconception("ignores_generator", "entropy_table is never seeded where it draws: called twice with the "
                            f"same seed it gives two different tables (at seed {seed} and at seed {other}): "
                            + (outside or describe("ignores_generator") + " (torch.manual_seed(seed) before each d's "
                               "draws)"))
    if seed != 0 or varies_there:
        return
    if varies_here:
        raise Misconception("seed_zero_ignored", "entropy_table(seed=0) is never seeded: called twice it gives two "
                            "different tables (the draws go on from wherever the generator was), while seed=1 gives "
                            "the same table both times: " + describe("seed_zero_ignored"))
    default = torch.Generator().initial_seed()
    at_default = ref.table_as_tensor(ref.entropy_table(dims, default)).double()
    if (matching_variants(here[0].double(), {"v": at_default}, torch.float32,
                          expected=ref.table_as_tensor(ref.entropy_table(dims, 0)).double())
            and matching_variants(there[0].double(), {"v": ref.table_as_tensor(ref.entropy_table(dims, 1)).double()},
                                  torch.float32)):
        raise Misconception("seed_zero_ignored", f"entropy_table(seed=0) is the lesson's table at seed {default}, "
                            "the seed a new torch.Generator() starts with (its manual_seed never ran for 0), while "
                            "seed=1 gives the lesson's table at seed 1: " + describe("seed_zero_ignored"))


def closure_reads_loop_name(func) -> str | None:
    """A name that a lambda or inner function of `func` reads (not its own parameter or default) and that a `for`
    loop of `func` binds (its target, or a name assigned in its body), or None: the closure sees the name's value
    when it is called, not when it is made (bounded: one function of a cell under _READ_LIMIT characters)."""
    import ast
    if func is None:
        return None
    bound: set[str] = set()
    for loop in ast.walk(func):
        if isinstance(loop, (ast.For, ast.comprehension)):
            bound.update(n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name))
        if isinstance(loop, ast.For):
            for node in loop.body:
                for sub in ast.walk(node):
                    if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                        bound.add(sub.id)
    parents = {id(k): n for n in ast.walk(func) for k in ast.iter_child_nodes(n)}
    memo: dict = {}   # one answer per (name, home loop), one set of loops per call (rt135)
    loads: dict[str, list] = {}
    for n in ast.walk(func):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            loads.setdefault(n.id, []).append(n)
    for node in ast.walk(func):
        if node is func or not isinstance(node, (ast.Lambda, ast.FunctionDef)):
            continue
        a = node.args
        own = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs} | {x.arg for x in (a.vararg, a.kwarg) if x}
        outer = bound - own
        body = node.body if isinstance(node.body, list) else [node.body]
        read = next((sub.id for part in body for sub in ast.walk(part)
                     if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load) and sub.id in outer), None)
        if read is not None and not _closure_run_at_once(node, func, parents, loads, memo):
            return read
    return None


_EAGER_CALLS = frozenset({"map", "filter", "sorted", "min", "max", "sum", "any", "all", "list", "tuple", "set",
                           "dict", "reduce", "apply_", "next"})


def _closure_run_at_once(node, func, parents, loads, memo=None) -> bool:
    """Whether the lambda or inner def `node` of `func` runs where it is made, never kept for later (red-team round
    134: `q, k, v = map(lambda M: M[:, lo:hi], (Q, K, V))` or `(lambda t: t / d ** 0.5)(s)` inside the loop, beside
    a head list or a row built after the loop from the last pass's values, was told closure_bound_late): a lambda
    called at once, or given to map / filter / sorted / min / max / sum / reduce / list ...; a lambda bound to a
    name, or a def, whose name is only ever called, each call inside the loop that makes it (or, made outside any
    loop, inside a loop). A closure stored (appended, put in a dict, a comprehension's item, returned) is kept."""
    import ast
    parent = parents.get(id(node))
    name = node.name if isinstance(node, ast.FunctionDef) else None
    if isinstance(node, ast.Lambda):
        if isinstance(parent, ast.keyword):
            parent = parents.get(id(parent))
            if isinstance(parent, ast.Call) and _call_name(parent) in _EAGER_CALLS:
                return True
        if isinstance(parent, ast.Call) and (parent.func is node or (node in parent.args
                                                                     and _call_name(parent) in _EAGER_CALLS)):
            return True
        if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name)):
            return False
        name = parent.targets[0].id

    def loop_of(n):
        n = parents.get(id(n))
        while n is not None and n is not func and not isinstance(n, (ast.For, ast.While)):
            n = parents.get(id(n))
        return n if isinstance(n, (ast.For, ast.While)) else None
    home = loop_of(node if isinstance(node, ast.FunctionDef) else parents.get(id(node)))
    # each call's enclosing loops found once, each (name, home) answered once: a walk up every call's loops for
    # every lambda of the name (red-team round 135: 500 `f = lambda: h` in the head loop, 1,500 `f()` calls 90 loops
    # deep, a 20 KB def, spent 14 s of the trusted process's CPU in q8's read)
    memo = {} if memo is None else memo
    key = (name, id(home))
    if key in memo:
        return memo[key]
    memo[key] = _calls_inside(loads.get(name, []), home, loop_of, parents, memo)
    return memo[key]


def _calls_inside(reads, home, loop_of, parents, memo) -> bool:
    """Whether every read in `reads` is a call of the name, made inside the loop `home` (or, `home` None, inside any
    loop): _closure_run_at_once's test, with each call's loops kept in `memo` under the call's id."""
    import ast
    for n in reads:
        call = parents.get(id(n))
        if not (isinstance(call, ast.Call) and call.func is n):
            return False
        loops = memo.get(id(call))
        if loops is None:
            loops, at = set(), loop_of(call)
            while at is not None:
                loops.add(id(at))
                at = loop_of(at)
            memo[id(call)] = loops
        if (not loops) if home is None else (id(home) not in loops):
            return False
    return True


def _call_name(call) -> str | None:
    """The last name of a call's function (functools.reduce -> 'reduce'), else None."""
    import ast
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def raise_if_table_bound_late(table, dims, seed, submission=None) -> None:
    """closure_bound_late (naming72, blind72 q4_table_stats_lambdas_bound_late): every row holds the right d's but
    the LAST d's four numbers (the lesson's row for dims[-1], in every row), and the source has a lambda or inner
    function reading a name the loop binds."""
    if type(table) is not torch.Tensor or tuple(table.shape) != (len(dims), 4) or len(dims) < 2:
        return
    want = ref.table_as_tensor(ref.entropy_table(dims, seed))
    last = want[-1:].expand_as(want).clone()
    if torch.allclose(want, last) or not matching_variants(table, {"late": last}, torch.float32):
        return
    name = closure_reads_loop_name(_function_read(submission, "entropy_table"))
    if name is None:
        return
    raise Misconception("closure_bound_late", f"every row of the entropy table holds the numbers of the last d = "
                        f"{dims[-1]} (raw_std, scaled_std, H_raw and H_scaled of that d in each row), and a lambda or "
                        f"inner function of your entropy_table reads `{ascii(name)[1:-1]}`, which the loop sets: "
                        + describe("closure_bound_late"))


def raise_if_reseeded(table, dims, seed, again, submission=None):
    """Each row is the lesson's row at another seed than `seed` (seed + d, seed + i, seed * d ...): named only
    when the student's table at a second seed (`again(seed2)`, a call of its own) follows one same rule
    in every row; the rule found for each row is said. First: seed 0 never seeded (raise_if_seed_zero_ignored)."""
    raise_if_seed_zero_ignored(table, dims, seed, again, submission)
    raise_if_table_bound_late(table, dims, seed, submission)   # naming72
    if type(table) is not torch.Tensor or tuple(table.shape) != (len(dims), 4) or len(dims) > 8:
        return
    reach = max(int(d) for d in dims) + len(dims) + 1
    found = [_seed_rules(table[i], int(d), i, seed, reach) for i, d in enumerate(dims)]
    if any(not r for r in found) or all(r[0] == ("offset", 0) for r in found):
        return
    seed2 = seed + 7
    try:
        table2 = again(seed2)
    except Exception:  # noqa: BLE001 - no second table: nothing to name
        return
    if type(table2) is not torch.Tensor or tuple(table2.shape) != (len(dims), 4):
        return
    rules = []
    for i, (d, candidates) in enumerate(zip(dims, found)):
        held = [r for r in candidates if _seed_of(r, seed2) >= 0 and matching_variants(
            table2[i][None], {"v": _row_at(int(d), _seed_of(r, seed2))}, torch.float32)]
        if not held:
            return
        rules.append(held[0])
    shown = ", ".join(f"d = {d}: seed {x} whatever seed is passed" if kind == "fixed" else
                      f"d = {d}: seed {'+' if kind == 'offset' and x >= 0 else ''}"
                      f"{'' if kind == 'offset' else '* '}{x}" for d, (kind, x) in zip(dims, rules))
    if len(set(rules)) == 1 and rules[0][0] == "fixed":
        shown = f"seed {rules[0][1]} in every row, whatever seed is passed"
    raise Misconception("table_reseeded_per_row", f"each row of the entropy table is the lesson's row at another seed "
                        f"({shown}), at seed = {seed} and again at seed = {seed2}: " + describe("table_reseeded_per_row"))


# the (n_heads, T, d_k) stack's axis orders other than the right (1, 0, 2) and stack(dim=-1)'s (1, 2, 0),
# which columns_permuted says; (0, 1, 2) is no transpose at all
_MERGE_ORDERS = {(0, 1, 2): "no transpose", (0, 2, 1): "transpose(1, 2)", (2, 0, 1): "permute(2, 0, 1)",
                 (2, 1, 0): "transpose(0, 2)"}


def merged_axis_order(concat, stacked, same):
    """The merged heads (read back through W_O) replayed as the right heads' (n_heads, T, d_k) stack put in
    another axis order and reshaped to (T, d_model): no transpose is mha_merge_without_transpose, any other order
    (transpose(1, 2) from 4-D batched code) mha_heads_interleaved's "another axis order". A replay equal to the
    right concatenation (T = 1 without a transpose) is dropped. (None, '') when none fits."""
    T, d_model = concat.shape
    right = stacked.transpose(0, 1).reshape(T, d_model)
    for perm, how in _MERGE_ORDERS.items():
        replay = stacked.permute(perm).reshape(T, d_model)
        if same(replay, right) or not same(concat, replay):
            continue
        layout = ", ".join(("n_heads", "T", "d_k")[a] for a in perm)
        key = "mha_merge_without_transpose" if perm == (0, 1, 2) else "mha_heads_interleaved"
        return key, (f"read back through W_O, the merged heads are the right heads stacked as (n_heads, T, d_k), "
                     f"laid out as ({layout}) ({how}) and reshaped to (T, d_model), so tokens and features are mixed; "
                     f"transpose(0, 1) to (T, n_heads, d_k) first: " + describe(key))
    return None, ""


def columns_permuted(concat, right, n_heads, same):
    """What the merged heads are when their columns are the right concatenation's in another order that
    is no reordering of whole head blocks (that is mha_heads_reordered): '' when they are not. Each column
    must match exactly one right column; the stack(dim=-1) interleaving (column j * n_heads + h holding
    head h's column j) is said as such."""
    T, d_model = right.shape
    d_k = d_model // n_heads
    if tuple(concat.shape) != (T, d_model) or d_k < 2:
        return ""
    perm = []
    for c in range(d_model):
        hits = [j for j in range(d_model) if same(concat[:, c], right[:, j])]
        if len(hits) != 1:
            return ""
        perm.append(hits[0])
    if sorted(perm) != list(range(d_model)) or perm == list(range(d_model)):
        return ""
    blocks = [perm[h * d_k:(h + 1) * d_k] for h in range(n_heads)]
    if all(b == list(range(b[0], b[0] + d_k)) and b[0] % d_k == 0 for b in blocks):
        return ""
    interleaved = [(c % n_heads) * d_k + c // n_heads for c in range(d_model)]
    if perm == interleaved:
        return ("its columns are the right heads' columns interleaved head by head (column j * n_heads + h holds "
                "head h's column j, what torch.stack(heads, dim=-1).reshape(T, d_model) gives)")
    return "its columns are the right heads' columns in another order, not head 0's block first, then head 1's, ..."


# --- a multiple-choice answer written as its option's text (issue 21, seventh round) ------------------------

# each question's options as the notebook words them, and the short ways of writing the formula ones
OPTIONS: dict[str, dict[str, tuple[str, ...]]] = {
    "q5_answer": {"A": ("1", "1, whatever d_k is", "one"), "B": ("sqrt(d_k)", "d_k ** 0.5", "d_k^(1/2)", "sqrt d_k"),
                  "C": ("d_k", "dk"), "D": ("d_k^2", "d_k ** 2", "d_k * d_k", "d_k squared")},
    "q6_answer": {"A": ("A weighted average of all the rows of X, with weights softmax_j(X_i . X_j / sqrt(d_k))",),
                  "B": ("X_i itself, since each token attends only to itself",),
                  "C": ("The single row X_j whose dot product with X_i is largest",),
                  "D": ("The plain (unweighted) mean of the rows of X",)},
    "q7_answer": {"A": ("It returns the value of the key that equals the query exactly, like the table does",),
                  "B": ("It only works when the keys are sorted",),
                  "C": ("It returns the value of the best-scoring key only, so it is an argmax and has no useful "
                        "gradient",),
                  "D": ("It scores the query against every key and returns a softmax-weighted mix of all the values: "
                        "a soft, differentiable version of the lookup (kernel regression with an exponential kernel)",)},
}


def _plain(text: str) -> str:
    """Lower case, letters and digits only, after spelling out the symbols a formula may be typed with."""
    text = text.lower().replace("\u221a", "sqrt").replace("\u00b2", "2").replace("\\sqrt", "sqrt")
    for word in ("\\mathrm", "\\big", "\\cdot", "\\top"):
        text = text.replace(word, " ")
    return re.sub(r"[^0-9a-z]", "", text)


def option_of_text(question: str, value) -> str | None:
    """The letter whose option `value` writes out: the same letters and digits as one of its texts, or for a
    long option (a sentence) at least 15 of them that only that option's text contains. None otherwise."""
    if not isinstance(value, str) or at_most_one_letter(value):
        return None     # a letter however it is dressed ("(D)", "d."): expect_choice reads it
    if value.strip().strip("()").strip().isdigit():
        return None     # an option's number (or q5's option A, "1"): expect_choice says both readings
    said = _plain(value)
    if not said:
        return None
    hits = {letter for letter, texts in OPTIONS[question].items() if any(_plain(t) == said for t in texts)}
    if not hits and len(said) >= 15:
        hits = {letter for letter, texts in OPTIONS[question].items() if any(said in _plain(t) for t in texts)}
    return hits.pop() if len(hits) == 1 else None


# each option's text as the notebook prints it (markdown source and rendered), for its first character
_PRINTED = {"q6_answer": {"B": ("$X_i$ itself, since each token attends only to itself",)}}


def raise_if_option_first_char(question: str, value, choices: str = "ABCD") -> None:
    """answer_first_char_of_option: a one-character answer that is no option's letter but the first character of
    an option's text (the options copied without their labels, then text[0]): which options begin with it is said."""
    if not isinstance(value, str) or len(value.strip()) != 1 or value.strip().upper() in choices:
        return
    char = value.strip()
    if char.isdigit():
        return      # an option's number: expect_choice says both readings
    texts = {letter: texts + _PRINTED.get(question, {}).get(letter, ()) for letter, texts in OPTIONS[question].items()}
    hits = sorted(letter for letter, ts in texts.items() if any(t[:1] == char for t in ts))
    if not hits:
        return
    begins = next(t for t in texts[hits[0]] if t[:1] == char).split()[0]
    which = (f"every option here begins '{begins} ...'" if len(hits) == len(texts) else
             f"option{'s' if len(hits) > 1 else ''} {' and '.join(hits)} begin{'' if len(hits) > 1 else 's'} "
             f"'{begins} ...'")
    raise Misconception("answer_first_char_of_option", f"{question} is {value!r}, not a letter ({which}): "
                        + describe("answer_first_char_of_option"))


def raise_if_option_text(question: str, value, answer: str, wrong) -> None:
    """A multiple-choice answer that writes out an option's text instead of its letter: answer_option_text
    when it is the right option (only the letter is missing); a wrong option's misconception, when it has
    one, with the letter said."""
    letter = option_of_text(question, value)
    if letter is None:
        return
    shown = value.strip() if len(value.strip()) <= 60 else value.strip()[:57] + "..."
    if letter == answer:
        raise Misconception("answer_option_text", f"{question} is {shown!r}, the text of option {letter}, the right "
                            f"one: " + describe("answer_option_text") + f' (here "{letter}")')
    key = wrong.get(letter)
    if key:
        raise Misconception(key, f"{question} is {shown!r}, the text of option {letter}, which is not the best "
                            f"answer: that choice reflects {describe(key)}; answer with one letter")


# --- Var(q.k) over every (q_i, k_j) pair of one product (issue 21, seventh round) -------------------------

def _all_pairs_values(d_k, n, seed, pairs=True):
    """(right, all_pairs): dot_product_variance(d_k, n, generator seeded `seed`) drawn right (float32 and float64
    draws), and taken over all n^2 entries of q @ k.T of the same draws (only with `pairs`: at n = 10000 the
    n^2 products cost 2.5 s, and the right values alone need n)."""
    right = [_draw_replays(d_k, n, seed, False, dtype)[0] for dtype in (torch.float32, torch.float64)]
    return right, (_pairs_variances(d_k, n, seed) if pairs else [])


def _pairs_variances(d_k, n, seed):
    over_pairs = []
    for dtype in (torch.float32, torch.float64):
        g = torch.Generator().manual_seed(seed)
        q = torch.randn(n, d_k, generator=g, dtype=dtype)
        k = torch.randn(n, d_k, generator=g, dtype=dtype)
        over_pairs.append(float((q @ k.T).var()))
    return over_pairs


@functools.lru_cache(maxsize=16)
def _draw_replays(d_k, n, seed, scaled, dtype) -> tuple[float, float, float]:
    """(right, first dropped, last dropped): the variance of the dots drawn from a generator seeded `seed` in `dtype`,
    each divided by sqrt(d_k) when scaled, and of the same dots with the first or the last coordinate left out
    (raise_if_coordinate_dropped). One draw per (seed, dtype): q2's rules for in-band estimates read them in turn."""
    s = math.sqrt(d_k) if scaled else 1.0
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(n, d_k, generator=g, dtype=dtype)
    k = torch.randn(n, d_k, generator=g, dtype=dtype)
    p = q * k
    return (float((p.sum(dim=1) / s).var()), float((p[:, 1:].sum(dim=1) / s).var()),
            float((p[:, :-1].sum(dim=1) / s).var()))


def replay_right_draws(d_k, n, seed, scaled) -> None:
    """The right variance of a generator's float32 draws (the default dtype, which nearly every answer draws), made
    while the student's call draws the same numbers (q2's `_estimate`, beside_next_request): a right estimate is
    then confirmed from the cache."""
    _draw_replays(d_k, n, seed, scaled, torch.float32)


def right_draws_replayed(v, d_k, n, seed, scaled) -> bool:
    """`v` is, to float32 rounding, the right variance of the draws of a generator seeded `seed` (float32 draws
    first; float64 only where those do not give it)."""
    if not isinstance(v, (int, float)):
        return False
    for dtype in (torch.float32, torch.float64):
        right = _draw_replays(d_k, n, seed, scaled, dtype)[0]
        if abs(v - right) <= 2e-5 * max(abs(right), 1e-12):
            return True
    return False


def _replays(value, values) -> bool:
    return isinstance(value, (int, float)) and any(abs(value - v) <= 2e-5 * max(abs(v), 1e-12) for v in values)


def raise_if_all_pairs(fn, value, d_k, n, seed) -> None:
    """variance_over_all_pairs: the estimate is, to rounding, the variance over all n^2 entries of q @ k.T on
    the same generator's draws, and not the right n paired dot products; confirmed on a second seed, so that
    a right estimator drawing its numbers another way cannot match both by chance (about 1e-3 each). The
    expected value is the same d_k, so the 10% band of the other tests cannot see it."""
    if right_draws_replayed(value, d_k, n, seed, False) or not _replays(value, _pairs_variances(d_k, n, seed)):
        return      # a right estimate stops before the n^2 products
    seed2 = (seed * 7919 + 1) % (2**31 - 1)
    try:
        again = fn(d_k, n, torch.Generator().manual_seed(seed2))
    except StudentCodeError:
        return
    again = again.item() if type(again) is torch.Tensor and again.numel() == 1 else again
    right2, pairs2 = _all_pairs_values(d_k, n, seed2)
    if _replays(again, right2) or not _replays(again, pairs2):
        return
    raise Misconception("variance_over_all_pairs", f"for d_k = {d_k}, n_samples = {n} the result is, on two "
                        f"generators, the variance of all {n}x{n} entries of q @ k.T drawn from them: "
                        + describe("variance_over_all_pairs"))


# --- issue 21, fourth round of naming: kinds from blind7's misses ----------------------------------------

_SCALAR_CRASH = ("cannot be converted to Scalar", "only one element tensors can be converted to Python scalars")


def call_entropy(fn, logits):
    """call(softmax_entropy, logits), a crash named by entropy_crash where it can be."""
    try:
        return call(fn, logits, what="softmax_entropy")
    except StudentCodeError as e:
        named = entropy_crash(fn, e, tuple(logits.shape))
        if named is not None:
            raise named from None
        raise


def check_entropy_one_row(fn, logits, submission=None):
    """The notebook's "a tensor of shape (..., T) gives a tensor of shape (...)" for ONE row of logits, shape (T,):
    a 0-d tensor. A result of the right value with an axis of size 1 kept ((1,), (1, 1)) is
    entropy_single_row_axis_kept (naming46, blind45 q4_entropy_atleast_2d_axis_never_dropped: the row promoted to a
    batch of one, torch.atleast_2d or unsqueeze(0), never squeezed back); any other shape or value is said in
    words. Called after the 2-D and 3-D cases passed, so the entropy itself is right there."""
    got = call_entropy(fn, logits)
    expected = ref.softmax_entropy(logits.double())
    what = f"softmax_entropy of one row of {logits.shape[-1]} logits (a 1-D tensor)"
    if type(got) is not torch.Tensor:
        raise_if_one_row_item(got, expected, what, submission)   # naming66
        raise AssertionError(f"{what} returned {type(got).__name__}: it should return a 0-d tensor (shape ())")
    if tuple(got.shape) == ():
        if got.is_floating_point() and matching_variants(got, {"right": expected}, logits.dtype):
            return
        raise AssertionError(f"{what} is wrong: got {float(got):.6g}, expected {float(expected):.6g}")
    if got.numel() == 1 and got.is_floating_point() and matching_variants(got.reshape(()), {"right": expected},
                                                                          logits.dtype):
        raise Misconception("entropy_single_row_axis_kept", f"{what} has shape {tuple(got.shape)}, not () (a 0-d "
                            "tensor, the shape logits.shape[:-1]); its value is right: "
                            + describe("entropy_single_row_axis_kept"))
    raise AssertionError(f"{what} should be a 0-d tensor (shape logits.shape[:-1] = ()), got shape {tuple(got.shape)}")


def check_entropy_dtype(fn, logits):
    """The notebook asks for an entropy "of the same dtype as logits": on float64 logits a float32 result (a
    softmax(..., dtype=torch.float32) or .float() never cast back) is dtype_changed when its values are the
    entropy to float32's tolerance, else said in words. Only the dtype is judged here: the values are the
    float32 cases' to judge (a float64 result with a 1e-9 inside the log is right, though not to 1e-10)."""
    got = call_entropy(fn, logits)
    if type(got) is not torch.Tensor or not got.is_floating_point() or got.dtype == logits.dtype:
        return
    what = "softmax_entropy(logits)"
    raise_if_dtype_changed(got, ref.softmax_entropy(logits.double()), logits.dtype, what)
    raise AssertionError(f"{what} has dtype {got.dtype}: the entropy should have the same dtype as logits")


def _dim_past_last(fn, e, shape) -> Misconception | None:
    """entropy_wrong_dim from torch's 'Dimension out of range ... but got N' where N is the rank of logits (one
    past the last axis: sum(dim=logits.dim())). Where a size of logits equals the rank too (a size passed as
    the dim) or a constant dim is the rank by chance (dim=2 on 2-D logits), a second call on (2, 4, 5) logits
    (no size 3) must crash with 'got 3' as well."""
    found = _DIM_RANGE.search(e.message or "")
    if e.exc_type != "IndexError" or not found or int(found.group(3)) != len(shape) \
            or int(found.group(2)) != len(shape) - 1:
        return None
    try:
        fn(torch.randn(2, 4, 5, generator=torch.Generator().manual_seed(0)))
        return None
    except StudentCodeError as again:
        seen = _DIM_RANGE.search(again.message or "")
        if again.exc_type != "IndexError" or not seen or seen.group(3) != "3" or seen.group(2) != "2":
            return None
    return Misconception("entropy_wrong_dim", f"softmax_entropy raised {e.exc_type}: {found.group(0)} on logits of "
                         f"shape {tuple(shape)}: {len(shape)} is logits.dim(), one past the last axis (the last is "
                         f"dim={len(shape) - 1}, or dim=-1): " + describe("entropy_wrong_dim"))


_SIZE_MISMATCH = re.compile(r"The size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at "
                            r"non-singleton dimension \d+")


def _rows_call(fn, shape) -> tuple[torch.Tensor, object] | None:
    """The same logits' rows as one 2-D (N, n) tensor (seeded), and what the student's function returns on them;
    None where it raises there too. The crash diagnoses below ask whether the code works on 2-D logits only."""
    rows = torch.randn((max(1, math.prod(shape[:-1])), shape[-1]), generator=torch.Generator().manual_seed(5)) * 2
    try:
        return rows, fn(rows.clone())
    except StudentCodeError:
        return None


def _right_on_rows(fn, shape) -> torch.Tensor | None:
    """_rows_call's rows where the function's answer on them is the right entropies, else None."""
    called = _rows_call(fn, shape)
    if called is None:
        return None
    rows, got = called
    want = ref.softmax_entropy(rows.double())
    return rows if type(got) is torch.Tensor and matching_variants(got, {"right": want}, torch.float32) else None


def _entropy_assert_dims(fn, e, shape) -> Misconception | None:
    """naming72 (blind73 q4_entropy_assert_rejects_more_than_two_dims): the student's own assert failed on logits of
    3 or more dims, and the same rows as one 2-D (N, n) tensor run and give the right entropies."""
    if e.exc_type != "AssertionError" or len(shape) < 3 or not _raised_in_notebook(e):
        return None
    rows = _right_on_rows(fn, shape)
    if rows is None:
        return None
    return Misconception("entropy_assert_dims", f"your own assert failed{_assert_line(e)} on logits of shape "
                         f"{tuple(shape)}; as many rows as one 2-D ({rows.shape[0]}, {rows.shape[1]}) tensor it runs and "
                         "gives the right entropies: " + describe("entropy_assert_dims"))


def _entropy_2d_only(fn, e, shape) -> Misconception | None:
    """fixed_axes for softmax_entropy: a size-mismatch crash on logits of 3 or more dims whose two sizes are
    both sizes of logits ((e.T / e.sum(-1)).T: .T reverses every axis), where the same rows as one 2-D
    (N, n) tensor give the right entropies."""
    found = _SIZE_MISMATCH.search(e.message or "")
    if e.exc_type != "RuntimeError" or not found or len(shape) < 3:
        return None
    sizes = [int(x) for x in found.groups()]
    # naming69 (blind69 q4_entropy_denominator_reshaped_to_a_column_handles_only_2d): one of the sizes is the count
    # of rows, every leading axis flattened into one (a row total made a column with .reshape(-1, 1))
    column = math.prod(shape[:-1])
    flattened = column not in shape and column in sizes and all(x in shape or x == column for x in sizes)
    if not flattened and not all(x in shape for x in sizes):
        return None
    rows = _right_on_rows(fn, shape)
    if rows is None:
        return None
    if flattened:
        return Misconception("fixed_axes", f"softmax_entropy raised {e.exc_type}: {found.group(0)} on logits of "
                             f"shape {tuple(shape)}; the same rows as one 2-D ({rows.shape[0]}, {rows.shape[1]}) "
                             f"tensor give the right entropies: {column} is the number of rows with every leading "
                             "axis flattened into one, so a per-row value (the row totals or maxima) is made a "
                             "(rows, 1) column (.reshape(-1, 1), .view(-1, 1)), which lines up with 2-D logits only; "
                             "keep its axes with keepdim=True (e.sum(dim=-1, keepdim=True)) or .unsqueeze(-1): "
                             + describe("fixed_axes"))
    return Misconception("fixed_axes", f"softmax_entropy raised {e.exc_type}: {found.group(0)} on logits of shape "
                         f"{tuple(shape)}; the same rows as one 2-D ({rows.shape[0]}, {rows.shape[1]}) tensor give "
                         "the right entropies: the code works for 1-D and 2-D logits only (.T, or a reduction "
                         "that loses its dim, lines the row sums up with the wrong axis when there are batch dims): "
                         + describe("fixed_axes"))


def _bmm_2d_only(fn, e, shape) -> Misconception | None:
    """fixed_axes for softmax_entropy: torch.bmm's "batch1 must be a 3D tensor" (or batch2) on logits of other
    than 2 dims (a per-row dot p.unsqueeze(1) @ log_p.unsqueeze(2) with bmm fits (N, n) logits only), where the
    same rows as one 2-D (N, n) tensor run and give the right entropies."""
    first = ((e.message or "").splitlines() or [""])[0]
    if e.exc_type != "RuntimeError" or first not in ("batch1 must be a 3D tensor", "batch2 must be a 3D tensor") \
            or len(shape) == 2:
        return None
    rows = _right_on_rows(fn, shape)
    if rows is None:
        return None
    return Misconception("fixed_axes", f"softmax_entropy raised {e.exc_type}: {first} on logits of shape "
                         f"{tuple(shape)}; the same rows as one 2-D ({rows.shape[0]}, {rows.shape[1]}) tensor give the "
                         "right entropies: torch.bmm takes 3-D tensors only, so a row dot product built from "
                         "unsqueezed 2-D rows works for 2-D logits alone. Sum over the last axis instead, "
                         "-(p * log_p).sum(dim=-1), which fits any (..., n): " + describe("fixed_axes"))


def _matrix_product_2d(fn, e, shape) -> Misconception | None:
    """entropy_matrix_product behind a crash on logits of 3 or more dims: the same rows as one 2-D (N, n)
    tensor give -(p @ log(p).T), the (N, N) matrix of every row's p against every row's log p."""
    if e.exc_type != "RuntimeError" or len(shape) < 3:
        return None
    called = _rows_call(fn, shape)
    if called is None:
        return None
    rows, got = called
    if type(got) is not torch.Tensor or not got.is_floating_point() or not any(
            matching_variants(got, {"v": v}, torch.float32, expected=ref.softmax_entropy(rows.double()))
            for v in _matrix_product_replays(rows.double(), torch.float32)):
        return None
    return Misconception("entropy_matrix_product", f"softmax_entropy raised {e.exc_type}: "
                         f"{e.message.splitlines()[0][:120]} on logits of shape {tuple(shape)}; on the same rows as one "
                         f"2-D ({rows.shape[0]}, {rows.shape[1]}) tensor it returns -(p @ log(p).T), a ({rows.shape[0]}, "
                         f"{rows.shape[0]}) matrix with the right entropies only on its diagonal: "
                         + describe("entropy_matrix_product"))


_FIXED_VIEW = re.compile(r"shape '\[-1, (\d+)\]' is invalid for input of size (\d+)")


def fixed_row_length(fn) -> int | None:
    """The c for which the student's softmax_entropy returns the sums of the entropy terms -p log p in consecutive
    chunks of c (terms.view(-1, c).sum(-1)) whatever the row length: a probe of shape (4, 10) gives 40 / c sums,
    a second of shape (3, 3c) gives 9, each those chunks' sums (naming57). None where the probes show no such c."""
    g = torch.Generator().manual_seed(57)
    c = None
    for shape in ((4, 10), None):
        shape = shape or (3, 3 * c)
        logits = torch.randn(shape, generator=g)
        try:
            got = call(fn, logits.clone(), what="softmax_entropy")
        except StudentCodeError:
            return None
        if type(got) is not torch.Tensor or got.dim() != 1 or got.numel() < 1 or not got.is_floating_point():
            return None
        if c is None:
            if logits.numel() % got.numel() or logits.numel() // got.numel() in (1, shape[-1]):
                return None
            c = logits.numel() // got.numel()
        elif got.numel() * c != logits.numel():
            return None
        p = torch.softmax(logits.double(), dim=-1)
        terms = -(p * torch.log(p))
        if not matching_variants(got, {"chunks": terms.reshape(-1, c).sum(dim=-1)}, torch.float32):
            return None
    return c


def entropy_fixed_rows(fn, got, logits) -> Misconception | None:
    """entropy_rows_hard_coded where a wrong 1-D entropy has logits.numel() / c entries for the c of
    fixed_row_length (which is not the row length T); None otherwise."""
    if type(got) is not torch.Tensor or got.dim() != 1 or got.numel() < 1 or logits.numel() % got.numel():
        return None
    c = logits.numel() // got.numel()
    if c == logits.shape[-1] or fixed_row_length(fn) != c:
        return None
    return Misconception("entropy_rows_hard_coded", f"softmax_entropy of logits of shape {tuple(logits.shape)} has "
                         f"shape {tuple(got.shape)}: the sums of the entropy terms in chunks of {c}, not of each row's "
                         f"{logits.shape[-1]}, and probes with 10 and {3 * c} logits a row are cut in chunks of {c} "
                         "too: " + describe("entropy_rows_hard_coded"))


def entropy_crash(fn, e, shape) -> Misconception | None:
    """A crash of .item() (or float()) on many rows, named entropy_item when the same function on one row of 5
    logits returns that row's right entropy as a Python float: the reduction to one number is all that is wrong.
    A dim one past the last axis is entropy_wrong_dim (_dim_past_last). A view(-1, c) that does not divide the
    logits is entropy_rows_hard_coded where fixed_row_length finds that c."""
    fixed = _FIXED_VIEW.search(e.message or "") if e.exc_type == "RuntimeError" else None
    if fixed is not None and int(fixed.group(1)) != shape[-1] and fixed_row_length(fn) == int(fixed.group(1)):
        return Misconception("entropy_rows_hard_coded", f"your code raised {e.exc_type}: {e.message.splitlines()[0]} "
                             f"(logits of shape {shape}): the terms are cut into rows of {fixed.group(1)}, not of "
                             f"each row's {shape[-1]}, and probes with 10 and {3 * int(fixed.group(1))} logits a row "
                             f"are summed in chunks of {fixed.group(1)} too: " + describe("entropy_rows_hard_coded"))
    named = (_dim_past_last(fn, e, shape) or _entropy_2d_only(fn, e, shape) or _bmm_2d_only(fn, e, shape)
             or _matrix_product_2d(fn, e, shape) or _entropy_assert_dims(fn, e, shape)
             or _keepdim_missing_crash(fn, e, shape) or _scores_as_probs_crash(fn, e, shape)
             or _sum_binds_log_crash(fn, e, shape))
    if named is not None:
        return named
    if e.exc_type not in ("RuntimeError", "ValueError") or not any(m in (e.message or "") for m in _SCALAR_CRASH):
        return None
    row = torch.tensor([0.3, -1.2, 2.5, 0.0, 0.7])
    try:
        one = fn(row.clone())
    except StudentCodeError:
        return None
    want = float(ref.softmax_entropy(row.double()))
    if not (isinstance(one, float) and abs(one - want) <= 1e-5):
        return None
    return Misconception("entropy_item", f"softmax_entropy raised {e.exc_type}: {e.message.splitlines()[0][:120]} on a "
                         f"{shape} input; on one row of 5 logits it returns the right entropy as a Python float: "
                         + describe("entropy_item"))


def table_softmax_twice(dims, seed):
    """The lesson's table with each entropy taken of softmax(softmax(scores)): probabilities passed to a
    softmax_entropy that applies the softmax again (softmax_applied_twice)."""
    def H(s):
        return float(ref.softmax_entropy(torch.softmax(s.double(), dim=-1)))
    rows = []
    for d in dims:
        raw = _raw_scores_at(d, seed)
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": float(raw.std()), "scaled_std": float(scaled.std()),
                     "H_raw": H(raw), "H_scaled": H(scaled)})
    return ref.table_as_tensor(rows)


def table_std_rms(dims, seed, divisor=0):
    """The lesson's table with each std the root of the scores' mean square, sqrt(sum(x^2) / (n - divisor)):
    the sample mean never subtracted (table_std_root_mean_square); the entropies right."""
    rows = []
    for d in dims:
        raw = _raw_scores_at(d, seed).double()
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": float((raw.pow(2).sum() / (5 - divisor)).sqrt()),
                     "scaled_std": float((scaled.pow(2).sum() / (5 - divisor)).sqrt()),
                     "H_raw": float(ref.softmax_entropy(raw)), "H_scaled": float(ref.softmax_entropy(scaled))})
    return ref.table_as_tensor(rows)


def table_extra_variants(dims, seed) -> dict:
    """Wrong tables beside ref.entropy_table_variants, for _check_table (called only for a wrong table)."""
    return {"softmax_applied_twice/table": table_softmax_twice(dims, seed),
            "scores_made_absolute": table_abs_scores(dims, seed),   # naming80
            "table_scaled_log_probs_divided": table_log_probs_scaled(dims, seed),   # naming86
            "table_std_root_mean_square": table_std_rms(dims, seed),
            "table_std_root_mean_square/n_minus_1": table_std_rms(dims, seed, 1),
            "table_stds_of_keys": table_input_stds(dims, seed, "k"),
            "table_stds_of_keys/biased": table_input_stds(dims, seed, "k", unbiased=False),
            "table_stds_of_keys/query": table_input_stds(dims, seed, "q"),
            **{f"table_std_holds_mean{tag}": table_std_means(dims, seed, cols)
               for tag, cols in (("", ("raw", "scaled")), ("/raw", ("raw",)), ("/scaled", ("scaled",)))},
            **{f"table_scaled_std_from_raw_std/{tag}": table_scaled_std_formula(dims, seed, f)
               for tag, (_said, f) in SCALED_STD_FORMULAS.items()}}


# table_scaled_std_from_raw_std (round 52, blind52 q4_table_scaled_std_as_raw_std_divided_by_d): scaled_std worked
# out from raw_std by a wrong factor instead of measured on the scaled scores; tag -> (as written, raw_std -> value)
SCALED_STD_FORMULAS = {
    "d": ("raw_std / d", lambda s, d: s / d),
    "d_squared": ("raw_std / d ** 2", lambda s, d: s / d ** 2),
    "times_sqrt_d": ("raw_std * sqrt(d)", lambda s, d: s * d ** 0.5),
}


def table_scaled_std_formula(dims, seed, formula):
    """The lesson's table with scaled_std = formula(raw_std, d) (raw_std / d, say) instead of the std of the scaled
    scores (raw_std / sqrt(d)); raw_std and both entropies right."""
    rows = []
    for d in dims:
        raw = _raw_scores_at(d, seed).double()
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": float(raw.std()), "scaled_std": float(formula(float(raw.std()), d)),
                     "H_raw": float(ref.softmax_entropy(raw)), "H_scaled": float(ref.softmax_entropy(scaled))})
    return ref.table_as_tensor(rows)


def table_scaled_std_said(m: Misconception, table, dims, seed) -> Misconception:
    """table_scaled_std_from_raw_std told with the formula whose column the table holds (found again among the
    formulas, exactly one matching); `m` unchanged for any other key."""
    if m.key != "table_scaled_std_from_raw_std" or type(table) is not torch.Tensor:
        return m
    tables = {tag: table_scaled_std_formula(dims, seed, f) for tag, (_said, f) in SCALED_STD_FORMULAS.items()}
    found = matching_variants(table, tables, torch.float32, expected=ref.table_as_tensor(ref.entropy_table(dims, seed)))
    if len(found) != 1:
        return m
    written = SCALED_STD_FORMULAS[found[0]][0]
    return Misconception("table_scaled_std_from_raw_std", f"the entropy table's scaled_std is {written} in every row "
                         "(the other columns are right), not the std of the scaled scores, which is raw_std / sqrt(d): "
                         + describe("table_scaled_std_from_raw_std"))


def table_std_means(dims, seed, columns):
    """table_std_holds_mean (round 39, blind38 q4_table_std_mean_unpacked_mean_first): the lesson's table with the
    std columns named in `columns` holding the MEAN of the five scores (torch.std_mean returns (std, mean),
    unpacked as mean, std; or .mean() written for .std()), the other columns right."""
    rows = []
    for d in dims:
        raw = _raw_scores_at(d, seed).double()
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": float(raw.mean() if "raw" in columns else raw.std()),
                     "scaled_std": float(scaled.mean() if "scaled" in columns else scaled.std()),
                     "H_raw": float(ref.softmax_entropy(raw)), "H_scaled": float(ref.softmax_entropy(scaled))})
    return ref.table_as_tensor(rows)


def _std(x, unbiased):
    """x's std; NaN (a row no table matches) where the unbiased one is undefined (one entry: d = 1's query), without
    torch's degrees-of-freedom warning on the grader's terminal."""
    return float("nan") if unbiased and x.numel() < 2 else float(x.std(unbiased=unbiased))


def table_input_stds(dims, seed, which, unbiased=True):
    """table_stds_of_keys (naming35, blind34 q4_table_std_of_keys_not_scores): the lesson's table with raw_std
    the std of the drawn key (or query) entries and scaled_std that of the same entries over sqrt(d), the
    entropies right."""
    rows = []
    for d in dims:
        g = torch.Generator().manual_seed(seed)
        q, k = torch.randn(1, d, generator=g), torch.randn(5, d, generator=g)
        x = k if which == "k" else q
        raw = (q @ k.T)[0].double()
        rows.append({"d": d, "raw_std": _std(x, unbiased), "scaled_std": _std(x / d ** 0.5, unbiased),
                     "H_raw": float(ref.softmax_entropy(raw)), "H_scaled": float(ref.softmax_entropy(raw / d ** 0.5))})
    return ref.table_as_tensor(rows)


def raise_if_residual(got, X, Ws, expected) -> None:
    """mha_residual_added: the output minus X (or minus X @ W_O, the input added before the projection) is the
    right multi-head attention, to the test's tolerance."""
    if type(got) is not torch.Tensor or tuple(got.shape) != tuple(X.shape) or not got.is_floating_point():
        return
    for where, extra in (("after", X.double()), ("before", X.double() @ Ws[3].double())):
        if matching_variants(got.double() - extra, {"right": expected.double()}, X.dtype):
            raise Misconception("mha_residual_added", f"multi_head_attention(...) is the right output plus the input "
                                f"X (added {where} the output projection W_O): " + describe("mha_residual_added"))



def raise_if_layer_norm(got, X, expected) -> None:
    """mha_layer_norm_added: the output is F.layer_norm (no affine weights) of the right output, or of X plus
    it, to the test's tolerance (a transformer block's residual and norm taken into the attention)."""
    if type(got) is not torch.Tensor or tuple(got.shape) != tuple(X.shape) or not got.is_floating_point():
        return
    right = expected.double()
    shape = (X.shape[-1],)
    for said, normed in (("the right output", right), ("X plus the right output", X.double() + right)):
        if matching_variants(got.double(), {"ln": torch.nn.functional.layer_norm(normed, shape)}, X.dtype):
            raise Misconception("mha_layer_norm_added", f"multi_head_attention(...) is the layer norm of {said}: "
                                + describe("mha_layer_norm_added"))


def output_factor(got, X, expected, n_heads) -> str:
    """The whole output a constant c (not 1) times the right one: mha_output_divided_by_heads when c is
    1/n_heads (d_k / d_model), else the text ' ; the whole output is c times the right one' for the generic
    message ('' when it is not a constant multiple)."""
    if type(got) is not torch.Tensor or tuple(got.shape) != tuple(expected.shape) or not got.is_floating_point():
        return ""
    g, e = got.double(), expected.double()
    norm = float((e * e).sum())
    if norm == 0 or not bool(torch.isfinite(g).all()):
        return ""
    c = float((g * e).sum()) / norm
    if abs(c - 1) < 1e-3 or not matching_variants(g, {"scaled": c * e}, X.dtype):
        return ""
    if abs(c * n_heads - 1) < (1e-9 if X.dtype == torch.float64 else 1e-4):
        raise Misconception("mha_output_divided_by_heads", f"multi_head_attention(...) is the right output divided "
                            f"by n_heads = {n_heads}: " + describe("mha_output_divided_by_heads"))
    return f"; the whole output is {c:.6g} times the right one (a constant factor)"


_MATMUL = re.compile(r"mat1 and mat2 shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\)")


_CAT_SIZES = re.compile(r"Expected size (\d+) but got size (\d+) for tensor number (\d+) in the list")


def _raise_if_list_from_earlier_call(fn, e, X, Ws, n_heads) -> None:
    """torch.cat's size mismatch where one of the two sizes is no size of this call (T, d_model, d_k, n_heads)
    and a second call on other inputs (T + 2 tokens) fails the same way on a size that is not its own: the
    list holds tensors made by earlier calls (a list default argument, heads=[], or a list outside the function,
    that grows with every call). Said, not named: no key of the catalogue says it."""
    found = _CAT_SIZES.search(e.message or "")
    if e.exc_type != "RuntimeError" or not found:
        return
    T, d_model = X.shape
    own = {T, d_model, d_model // max(n_heads, 1), n_heads}
    sizes = [int(found.group(1)), int(found.group(2))]
    if all(x in own for x in sizes):
        return
    X2 = torch.cat([X, X[:2]], dim=0)
    try:
        fn(X2.clone(), *(w.clone() for w in Ws), n_heads)
    except StudentCodeError as again:
        second = _CAT_SIZES.search(again.message or "")
        if second is None or all(int(x) in own - {T} | {T + 2} for x in second.groups()[:2]):
            return
    else:
        return
    raise AssertionError(f"the torch.cat of the head outputs failed ({e.exc_type}: {e.message.splitlines()[0][:160]}) "
                         f"on a tensor of size {[x for x in sizes if x not in own][0]}, which no input of this call has "
                         f"(T = {T}, d_model = {d_model}, {n_heads} heads), and a second call with {T + 2} tokens "
                         "fails the same way on tensors that call did not make: the list of head outputs is kept "
                         "between calls (a default argument such as heads=[] is created once, or a list outside the "
                         "function) and grows with every call; make a new list inside the function")


def mha_crash(fn, e, X, Ws, n_heads, submission=None):
    """Crashes of the head loop whose cause a second call shows: fewer heads (heads_missing); each head's
    (T, T) weights concatenated for its output (torch multiplies (T, n_heads T) by W_O; with W_O of n_heads T
    rows the output is the heads' maps concatenated times it); Q or K overwritten by its head slice (head 1
    multiplies an empty (T, 0) slice, and the same function with n_heads = 1 is right)."""
    named = token_axis_squeezed(fn, e, X, Ws, n_heads, submission) or token_count_assert(fn, e, X, Ws, n_heads) \
        or head_width_parity_assert(fn, e, X, n_heads) or library_misread_crash(e, submission) or fused_rows_crash(e, X, Ws, submission) \
        or heads_missing(fn, e, X, Ws, n_heads, submission) or width_from_tokens(fn, e, X, Ws, n_heads) \
        or constant_width(fn, e, X, Ws, n_heads) or buffer_like_weights(fn, e, X, Ws, n_heads) \
        or overlapping_heads_crash(fn, e, X, Ws, n_heads) or head_slice_end_one_back(fn, e, X, Ws, n_heads)
    if named is None:
        _raise_if_list_from_earlier_call(fn, e, X, Ws, n_heads)
    found = _MATMUL.search(e.message or "")
    if named is not None or e.exc_type != "RuntimeError" or not found or n_heads < 2:
        return named
    T, d_model = X.shape
    d_k = d_model // n_heads
    shapes = tuple(int(x) for x in found.groups())
    if shapes == (T, n_heads * T, d_model, d_model) and n_heads * T != d_model:
        W_O = torch.randn((n_heads * T, d_model), generator=torch.Generator().manual_seed(1), dtype=X.dtype)
        try:
            again = fn(X, Ws[0], Ws[1], Ws[2], W_O, n_heads)
        except StudentCodeError:
            return None
        maps = torch.cat(head_maps(X, *Ws[:3], n_heads), dim=-1) @ W_O.double()
        if type(again) is torch.Tensor and matching_variants(again, {"maps": maps}, X.dtype):
            return Misconception("mha_heads_weights_concatenated", f"your code raised {e.exc_type}: {found.group(0)}: "
                                 f"{n_heads} heads of ({T}, {T}) concatenated; given a W_O of {n_heads * T} rows it "
                                 "runs, and its output is the heads' attention weights concatenated times it: "
                                 + describe("mha_heads_weights_concatenated"))
        return None
    if shapes == (T, n_heads * d_model, d_model, d_model) and T != d_model:
        return values_not_split(fn, e, found.group(0), X, Ws, n_heads)
    if shapes[0] == T and shapes[2:] == (d_model, d_model) and shapes[1] % n_heads == 0 \
            and 0 < shapes[1] // n_heads < d_k:
        return head_slice_short(fn, e, found.group(0), X, Ws, n_heads, shapes[1] // n_heads)
    if shapes in ((T, 0, d_k, T), (T, d_k, 0, T)):
        try:
            one = fn(X, *Ws, 1)
        except StudentCodeError:
            return None
        right = ref.multi_head_attention(X.double(), *(w.double() for w in Ws), 1)
        if type(one) is torch.Tensor and matching_variants(one, {"right": right}, X.dtype):
            which = "Q" if shapes[1] == 0 else "K"
            return Misconception("mha_head_slice_overwrites", f"your code raised {e.exc_type}: {found.group(0)}: "
                                 f"from head 1 on, {which}'s head slice is empty ({T}x0) while the other is ({T}, "
                                 f"{d_k}); with n_heads = 1 the same function is right: "
                                 + describe("mha_head_slice_overwrites"))
    return None


def mha_dtype_crash(fn, e, X, Ws, n_heads) -> Misconception | None:
    """dtype_changed for multi_head_attention: a dtype-mismatch crash ('expected m1 and m2 to have the same
    dtype') on float64 (or float16) input where the same call with every input in the other dtype (float32, or
    float64 for float32 input) runs and is right: a tensor made inside in a fixed dtype (torch.ones((T, 1))
    is float32) meets the input's dtype."""
    if e.exc_type != "RuntimeError" or not DTYPE_CRASH.search(e.message or "") or not X.is_floating_point():
        return None
    other = torch.float32 if X.dtype != torch.float32 else torch.float64
    try:
        again = fn(X.to(other), *(w.to(other) for w in Ws), n_heads)
    except StudentCodeError:
        return None
    W_Q, W_K, W_V, W_O = (w.double() for w in Ws)
    right = ref.multi_head_attention(X.double(), W_Q, W_K, W_V, W_O, n_heads)
    if type(again) is not torch.Tensor or again.dtype != other or not matching_variants(again, {"right": right}, other):
        return None
    named = str(other).replace("torch.", "")
    compared = _COMPARED_DTYPES.search(e.message.splitlines()[0])
    if compared is not None:
        # allclose's words: a check that compares an input-dtype tensor with one made without dtype= (round 56)
        line = crash_source_line(e)
        quoted = f" (at `{line[:120]}`)" if line else student_line(e)
        return Misconception("dtype_mix", f"your code raised {e.exc_type}: {compared.group(0)}{quoted} on "
                             f"{str(X.dtype).replace('torch.', '')} inputs: torch.allclose and torch.isclose compare "
                             f"two tensors of one dtype only, and on the same values in {named} it runs and "
                             f"is right, so a tensor made inside in {named}"
                             + (" (torch.ones, torch.zeros or torch.tensor without dtype=, float32 by default)"
                                if other == torch.float32 else "") + " meets the input's dtype: " + describe("dtype_mix"))
    return Misconception("dtype_changed", f"your code raised {e.exc_type}: {e.message.splitlines()[0]} on "
                         f"{str(X.dtype).replace('torch.', '')} inputs; on the same values in {named} it runs and is "
                         f"right, so a {named} tensor made inside meets an input of another dtype: "
                         + describe("dtype_changed"))


def _is_number(node, value) -> bool:
    """A literal `value` (an int or float), a leading minus read as part of it (a loop, at most 4 minus signs:
    red-team round 137's `1 / ----...2`, 990 signs, in dot_product_variance recursed past the stack, and q2 said
    RecursionError instead of scale_precedence)."""
    import ast
    for _ in range(4):
        if not (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)):
            break
        node, value = node.operand, -value
    return isinstance(node, ast.Constant) and type(node.value) in (int, float) and node.value == value


def _power_minus_one_half(submission, name="dot_product_variance") -> str | None:
    """The text of `x ** -1 / 2` (Python's (x ** -1) / 2; in `a * x ** -1 / 2` too, which is (a * x ** -1) / 2) in
    the notebook's last function `name`, where it has one and no `x ** 1 / 2` (the slip without the minus); read
    off the source, parsed, never run."""
    import ast
    from autograder.grading.source_checks import cells_of, last_function_def
    if submission is None:
        return None
    func = last_function_def(cells_of(submission), name)
    if func is None:
        return None
    found, plus = None, False
    for node in ast.walk(func):
        if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and _is_number(node.right, 2)):
            continue
        term = node.left        # the factor just before the `/ 2`: the last one of a product
        if isinstance(term, ast.BinOp) and isinstance(term.op, (ast.Mult, ast.Div)):
            term = term.right
        if isinstance(term, ast.BinOp) and isinstance(term.op, ast.Pow):
            if _is_number(term.right, -1):
                found = found or term
            elif _is_number(term.right, 1):
                plus = True
    if found is None or plus:
        return None
    return f"{unparse(found.left)[:60]} ** {unparse(found.right)[:20]} / 2"   # bounded quotes (rt137)


def minus_half_said(written: str) -> str:
    """scale_precedence told for a scale written `d_k ** -1 / 2` (`written`, as parsed): the key's own text is the
    slip without the minus, whose fix d_k ** 0.5 would multiply where this code divides."""
    return (f"writing the scale as d_k ** -1/2 (your `{written}`), which Python reads as (d_k ** -1) / 2 = 1/(2 d_k), "
            "not d_k ** (-1/2) = 1/sqrt(d_k): the precedence slip of d_k ** 1/2 with a minus, so multiplying by it "
            "divides by 2 d_k; write d_k ** -0.5 or 1 / math.sqrt(d_k)")


@contextlib.contextmanager
def scale_as_written(submission, name):
    """A scale_precedence named inside (the scores divided by 2 d_k, as S / d_k ** 1/2 does) is told as written
    where the student's function `name` has the scale `d_k ** -1 / 2` (the same division by 2 d_k, multiplied
    in): its message quotes the minus and gives the fix d_k ** -0.5, the key unchanged. A FirstQueryOnly failure
    (both results only the first query's right row) is attention_return_in_loop where the source shows the return
    indented into the function's last loop (source_checks.return_inside_loop, naming57), else said as it is."""
    try:
        yield
    except FirstQueryOnly as f:
        from autograder.grading import source_checks
        from autograder.grading.source_checks import SourceUnreadable, cells_of
        finder = getattr(source_checks, "return_inside_loop", None)
        try:
            where = finder(cells_of(submission), name) if finder is not None and submission is not None else None
        except SourceUnreadable:
            where = None
        if where is None:
            raise AssertionError(str(f)) from None
        raise Misconception("attention_return_in_loop", f"{f}, and `{where[1]}` is the last line of the loop's body in "
                            f"{where[0]}: " + describe("attention_return_in_loop")) from None
    except Misconception as m:
        if m.key == "keepdim_left_on":
            raise added_axis_from_source(submission, m, (name,)) from None
        if m.key == "scores_division_rounded":   # naming61: the replay stands with the rounding in the source
            raise division_rounded_from_source(submission, m, name) from None
        if m.key == "weights_not_normalised":   # naming67: F.normalize(exps, -1) puts -1 in p, said where written
            raise normalize_p_said(submission, m, name) from None
        if m.key == "wrong_scale_constant":   # naming71: the scale kept in a mutable default argument
            raise scale_kept_in_default(submission, m, name) from None
        if m.key == "divide_by_dk":   # naming82: an option defaulting to sqrt(d_k) divides on top of the scale
            raise scale_option_default_said(submission, m, name) from None
        said = describe("scale_precedence")
        written = _power_minus_one_half(submission, name) if m.key == "scale_precedence" else None
        if written is None or said not in str(m):
            raise
        raise Misconception("scale_precedence", str(m).replace(said, minus_half_said(written))) from None
    except AssertionError as a:   # naming67: a function with no `return` that ends by storing its result
        if str(a).startswith(f"{name} is None: not answered yet"):
            raise_if_result_not_returned(submission, name, None, name)
        raise


_REDUCTIONS = frozenset({"sum", "mean", "max", "min", "amax", "amin", "logsumexp", "norm", "vector_norm", "prod",
                         "std", "var", "median", "nansum", "nanmean", "argmax", "argmin", "all", "any", "count_nonzero"})
_ADDING = frozenset({"unsqueeze", "unsqueeze_", "atleast_3d", "atleast_2d"})


def _called(node) -> str | None:
    """The name a call calls (`x.sum(...)`, `torch.sum(...)`: "sum"), or None."""
    import ast
    if not isinstance(node, ast.Call):
        return None
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None


def _reduction(node) -> bool:
    """A reduction's result: `x.sum(-1)`, `torch.max(x, -1).values`, `x.max(-1)[0]`."""
    import ast
    for _ in range(4):      # a few steps: a chain x[0][0]... thousands long is walked once per node otherwise
        if not isinstance(node, (ast.Attribute, ast.Subscript)) \
                or isinstance(node, ast.Attribute) and node.attr not in ("values", "indices"):
            break
        node = node.value
    return _called(node) in _REDUCTIONS


def _axis_evidence(funcs) -> tuple[str | None, str | None]:
    """(a reduction whose size-1 axis stays in what it feeds, an axis added where nothing is reduced), each the
    first such expression of `funcs` (parsed defs, read, never run), quoted bounded, or None. A reduction with
    keepdim=True (or a [..., None] / unsqueeze of one) that is the right side of a `/` or `-` is the softmax's
    normaliser or shift, broadcast back, so no axis of the result: not counted."""
    import ast
    from autograder.grading.pyparse import unparse
    kept = added = None
    for func in funcs:
        parents = {}
        for node in ast.walk(func):
            for child in ast.iter_child_nodes(node):
                parents[child] = node
        for node in sorted(ast.walk(func), key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0))):
            keeps = isinstance(node, ast.Call) and _reduction(node) and any(
                k.arg in ("keepdim", "keepdims") and isinstance(k.value, ast.Constant) and k.value.value is True
                for k in node.keywords)
            on = None
            if isinstance(node, ast.Subscript) and any(
                    isinstance(e, ast.Constant) and e.value is None
                    for e in (node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice])):
                on = node.value
            elif _called(node) in _ADDING:
                method = isinstance(node.func, ast.Attribute) and node.func.attr.startswith("unsq") \
                    and not (isinstance(node.func.value, ast.Name) and node.func.value.id == "torch")
                on = node.func.value if method else (node.args[0] if node.args else node)
            elif _called(node) in ("view", "reshape") and isinstance(node.func, ast.Attribute) and node.args \
                    and isinstance(node.args[0], ast.Constant) and node.args[0].value == 1 and len(node.args) > 1:
                on = node.func.value
            if on is not None and _reduction(on):
                keeps, on = True, None
            if not keeps and on is None:
                continue
            top, parent, steps = node, parents.get(node), 0
            while steps < 4 and (isinstance(parent, ast.Attribute) and parent.attr in ("values", "indices")
                                 or isinstance(parent, ast.Subscript) and parent.value is top):   # m.values, m[0]
                top, parent, steps = parent, parents.get(parent), steps + 1
            broadcast = isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.Div, ast.Sub)) \
                and parent.right is top
            if keeps and not broadcast:
                return unparse(node)[:100], added
            elif on is not None and added is None:
                added = f"`{unparse(node)[:100]}` in {func.name}"
    return kept, added


def added_axis_from_source(submission, m, names):
    """keepdim_left_on (right values with one more size-1 axis, from checks.raise_if_other_container) told as
    size_one_axes_added where the source of the notebook's last `def` of each of `names` keeps no reduced axis:
    no reduction with keepdim=True (or [..., None] of one) outside a softmax's normaliser, so the extra axis was
    added (an unsqueeze(0) for torch.bmm, a [None], a .view(1, ...)), which the message quotes when it shows.
    `m` unchanged where the source is not read or does show a kept reduction (round 56)."""
    from autograder.grading.source_checks import cells_of, last_function_def
    if submission is None or m.key != "keepdim_left_on":
        return m
    try:
        cells = cells_of(submission)
        funcs = [f for f in (last_function_def(cells, n, max_chars=20000) for n in names) if f is not None]
        kept, added = _axis_evidence(funcs) if funcs else ("", None)
    except (RecursionError, MemoryError):
        return m
    said = describe("keepdim_left_on")
    if kept is not None or said not in str(m):
        return m
    head = str(m).split(said)[0].rstrip(": ")
    where = f" (the axis comes from {added}, and no reduction keeps it)" if added else ""
    return Misconception("size_one_axes_added", f"{head}{where}: " + describe("size_one_axes_added"))


_NOT_GLOBALS = frozenset({"torch", "math", "F", "np", "nn", "numpy", "random", "statistics"})


def global_names_read(submission, name) -> list[str]:
    """The plain names the notebook's last `def name` reads that are none of its parameters, never bound in its
    body (nor in a nested scope), no builtin or module, and stored at module level by some cell of the notebook (a
    display loop's `d`, the trace's K): a global read where a parameter was meant (naming57). Parsed, never run;
    [] where the source is not read."""
    import ast
    import builtins
    from autograder.grading.source_checks import SourceUnreadable, cells_assigning_globally, cells_of, \
        last_function_def
    if submission is None:
        return []
    try:
        cells = cells_of(submission)
        func = last_function_def(cells, name, max_chars=20000)
        if func is None:
            return []
        args = func.args
        params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
        params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
        nodes = list(itertools.islice(ast.walk(func), 3000))
        bound = {n.id for n in nodes if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        bound |= {n.name for n in nodes if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.alias))
                  and hasattr(n, "name")}
        called = {id(n.func) for n in nodes if isinstance(n, ast.Call)}   # helpers and imported functions
        read = [n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and id(n) not in called]
        free = [x for x in dict.fromkeys(read) if x not in params | bound | _NOT_GLOBALS and not hasattr(builtins, x)]
        return [x for x in free if cells_assigning_globally(cells, x)
                and x not in {a.asname or a.name for n in nodes if isinstance(n, ast.Import) for a in n.names}][:3]
    except (SourceUnreadable, RecursionError, MemoryError):
        return []


def raise_if_scaled_by_other(fn, v, seed, d_k, n, submission=None) -> None:
    """The scaled variance against the unscaled one of the same generator's draws (a second call, scaled=False,
    seeded alike): a constant ratio c that is not d_k means the dot products were divided by sqrt(c). c equal
    to n_samples is named (variance_scaled_by_sample_count); any other c is said as the factor it is."""
    try:
        plain = fn(d_k, n, torch.Generator().manual_seed(seed))
    except StudentCodeError:
        return
    plain = plain.item() if type(plain) is torch.Tensor and plain.numel() == 1 else plain
    raise_if_floor_divided(v, plain, d_k, submission)   # naming66
    if not isinstance(plain, float) or not isinstance(v, (int, float)) or v <= 0 or not abs(plain / d_k - 1) < 0.1:
        return
    c = plain / v
    if abs(c / n - 1) <= 1e-4:
        raise Misconception("variance_scaled_by_sample_count", f"for d_k = {d_k} with scaled=True the result is the "
                            f"unscaled variance of the same draws divided by n_samples = {n}: "
                            + describe("variance_scaled_by_sample_count"))
    root = math.isqrt(d_k)
    if root * root != d_k and abs(c / (root * root) - 1) <= 1e-4 and _isqrt_again(fn, n, seed):
        raise Misconception("integer_sqrt_scale", f"for d_k = {d_k} with scaled=True the result is the unscaled variance "
                            f"of the same draws divided by {root * root} = isqrt({d_k})^2 (its dot products divided by "
                            f"{root}), and for d_k = 24 by 16 = isqrt(24)^2: " + describe("integer_sqrt_scale"))
    for factor, how in ((4 * d_k * d_k, "2 d_k, as d_k ** 1/2 = (d_k ** 1) / 2 after a division"),
                        (d_k * d_k / 4, "d_k / 2, as a scale d_k ** 1/2 = (d_k ** 1) / 2")):
        if abs(c / factor - 1) <= 1e-4 and _ratio_again(fn, n, seed, 20, factor * 400 / (d_k * d_k)):
            written = _power_minus_one_half(submission) if factor == 4 * d_k * d_k else None
            if written is not None:     # the same slip with the minus: (d_k ** -1) / 2 = 1 / (2 d_k), said as written
                raise Misconception("scale_precedence", f"for d_k = {d_k} with scaled=True the result is the unscaled "
                                    f"variance of the same draws divided by {factor:g} (its dot products times "
                                    f"1/(2 d_k)), and for d_k = 20 likewise: " + minus_half_said(written))
            raise Misconception("scale_precedence", f"for d_k = {d_k} with scaled=True the result is the unscaled "
                                f"variance of the same draws divided by {factor:g} (its dot products divided by "
                                f"{how}), and for d_k = 20 likewise: " + describe("scale_precedence"))
    # the divisor d_k ** 0.5 ** 2, read right to left as d_k ** 0.25 (blind44): on q2's d_k (12, 64) and the second
    # call's 20 no other ratio above (n, isqrt(d_k)^2, 4 d_k^2, d_k^2 / 4, d_k) is near d_k ** 0.25
    quarter = d_k ** 0.25
    if abs(c / quarter - 1) <= 1e-4 and _ratio_again(fn, n, seed, 20, 20 ** 0.25):
        raise Misconception("variance_power_right_associative", f"for d_k = {d_k} with scaled=True the result is the "
                            f"unscaled variance of the same draws divided by {quarter:.4g} = d_k ** 0.25, not by "
                            f"d_k = {d_k}, and for d_k = 20 likewise: " + describe("variance_power_right_associative"))
    if abs(c / d_k - 1) > 0.01 and abs(c - round(c)) <= 1e-4 * c:
        free = global_names_read(submission, "dot_product_variance")
        if free and _ratio_again(fn, n, seed, 20, round(c)):
            raise Misconception("reads_global_not_parameter", f"for d_k = {d_k} with scaled=True the result is the "
                                f"unscaled variance of the same draws divided by {round(c)} (its dot products divided "
                                f"by sqrt({round(c)})), and for d_k = 20 by {round(c)} too, whatever d_k is passed; "
                                f"dot_product_variance reads {', '.join(f'`{x}`' for x in free)}, a global of the "
                                "notebook, where its parameter is d_k: " + describe("reads_global_not_parameter"))
        root2 = 2 ** (int(math.log2(d_k)) // 2)   # naming84: sqrt(d_k) as a power of two, exact for 4, 16, 64
        if root2 * root2 != d_k and round(c) == root2 * root2 and _ratio_again(fn, n, seed, 32, 16):
            raise Misconception("sqrt_as_power_of_two", f"for d_k = {d_k} with scaled=True the result is the unscaled "
                                f"variance of the same draws divided by {root2 * root2} (its dot products divided by "
                                f"{root2}, not sqrt({d_k}) = {math.sqrt(d_k):.4g}), and for d_k = 32 by 16 (divided "
                                "by 4, not 5.657): " + describe("sqrt_as_power_of_two"))
        if round(c) != 20 and _ratio_again(fn, n, seed, 20, c):   # naming64: one constant whatever d_k (0.5 = 1/sqrt(4))
            raise Misconception("wrong_scale_constant", f"for d_k = {d_k} with scaled=True the result is the unscaled "
                                f"variance of the same draws divided by {round(c)}, and for d_k = 20 by {round(c)} too: "
                                f"the dot products are scaled by the constant 1/sqrt({round(c)}) = {1 / math.sqrt(c):.4g}"
                                f"{' (the lesson' + chr(39) + 's scale for its d_k = 4)' if round(c) == 4 else ''} "
                                "whatever d_k is: " + describe("wrong_scale_constant") + "; divide the dot products by "
                                "math.sqrt(d_k) of the call")
        raise AssertionError(f"for d_k = {d_k} with scaled=True the result is the unscaled variance of the same draws "
                             f"divided by {round(c)} (its dot products divided by sqrt({round(c)})), where dividing each "
                             f"dot product by sqrt(d_k) divides the variance by d_k = {d_k}")


def _ratio_again(fn, n, seed, d_k, ratio) -> bool:
    """A second d_k: the unscaled variance over the scaled one of the same draws is `ratio` again."""
    try:
        plain = fn(d_k, n, torch.Generator().manual_seed(seed))
        scaled = fn(d_k, n, torch.Generator().manual_seed(seed), scaled=True)
    except StudentCodeError:
        return False
    plain, scaled = (x.item() if type(x) is torch.Tensor and x.numel() == 1 else x for x in (plain, scaled))
    return (isinstance(plain, float) and isinstance(scaled, float) and scaled > 0
            and abs(plain / scaled / ratio - 1) <= 1e-4)


def _isqrt_again(fn, n, seed) -> bool:
    """A second d_k, 24 (isqrt 4, where round(sqrt(24)) = 5 and 24 // 4 = 6):
    the scaled variance is the unscaled one of the same draws divided by 16."""
    try:
        plain = fn(24, n, torch.Generator().manual_seed(seed))
        scaled = fn(24, n, torch.Generator().manual_seed(seed), scaled=True)
    except StudentCodeError:
        return False
    plain, scaled = (x.item() if type(x) is torch.Tensor and x.numel() == 1 else x for x in (plain, scaled))
    return isinstance(plain, float) and isinstance(scaled, float) and scaled > 0 and abs(plain / scaled / 16 - 1) <= 1e-4


def float_has_no_item(e, softmax_entropy) -> bool:
    """A table that crashes calling .item() on what softmax_entropy returned, a Python float for one row
    (entropy_item): wrong only through softmax_entropy, whose own tests name it."""
    if e.exc_type != "AttributeError" or "'float' object has no attribute 'item'" not in (e.message or ""):
        return False
    try:
        return isinstance(softmax_entropy(torch.tensor([0.3, -1.2, 2.5, 0.0, 0.7])), float)
    except StudentCodeError:
        return False


# --- issue 21, fifth round of naming: kinds from blind8's misses ----------------------------------------

def _decimals(t: torch.Tensor) -> int | None:
    """The fewest decimals k (1..6) that every entry of t is a multiple of 10^-k, to t's own rounding."""
    eps = torch.finfo(t.dtype).eps
    for k in range(1, 7):
        scaled = t.double() * 10 ** k
        if bool(((scaled - scaled.round()).abs() <= torch.clamp(scaled.abs() * 4 * eps, min=1e-6)).all()):
            return k
    return None


def _is_rounded_replay(w64: torch.Tensor, right: torch.Tensor, k: int, dtype: torch.dtype) -> bool:
    """Every entry of w64 is round(right, k) to dtype's rounding, or the other neighbour where right is within
    dtype's rounding of a tie (x.5 in the k-th decimal)."""
    tol = 4 * torch.finfo(dtype).eps
    diff = (w64 - torch.round(right, decimals=k)).abs()
    frac = (right * 10 ** k) % 1
    near_tie = (frac - 0.5).abs() * 10 ** -k <= 64 * torch.finfo(dtype).eps
    return bool(((diff <= tol) | (near_tie & (diff <= 10 ** -k + tol))).all())


def half_softmax_evidence(pair, Q, K, V, d_k, right):
    """(dtype_changed, (output, weights), message) when the weights went through float16 (or bfloat16) and came
    back: every entry is a number of that dtype, the weights are not right to the input's tolerance, and they
    are within one unit in the last place (of that dtype) of a replay, softmax((Q K^T / sqrt(d_k)).half()) cast
    back, entry by entry (a score's rounding may fall the other way); the output is those weights times V. A
    right answer is never such numbers (float32 or float64 weights are not float16 ones)."""
    w, o = pair[1], pair[0]
    if not (w.is_floating_point() and o.is_floating_point() and w.dtype == Q.dtype and w.dtype != torch.float16
            and tuple(w.shape) == tuple(right[1].shape) and tuple(o.shape) == tuple(right[0].shape)
            and bool(torch.isfinite(w).all())) or matching_variants(w, {"right": right[1]}, Q.dtype):
        return None
    S = Q.detach() @ K.detach().transpose(-2, -1) / math.sqrt(d_k)
    for low, ulp in ((torch.float16, 2.0 ** -10), (torch.bfloat16, 2.0 ** -7)):
        if not torch.equal(w, w.to(low).to(w.dtype)):
            continue
        replay = torch.softmax(S.to(low), dim=-1).double()
        w64 = w.detach().double()
        if not bool(((w64 - replay).abs() <= ulp * replay.abs() + 1e-7).all()) \
                or not matching_variants(o, {"wV": w64 @ V.double()}, Q.dtype):
            continue    # (bfloat16 numbers of this size are float16 numbers too: the next replay decides)
        name, cast = ("float16", "half") if low == torch.float16 else ("bfloat16", "bfloat16")
        return "dtype_changed", (o.detach().double(), w64), (
            f"the softmax computed in {name} and cast back (every weight is a {name} number, within {name}'s "
            f"rounding of softmax(scores.{cast}()) on the same Q, K), which keeps only {name}'s precision: "
            + describe("dtype_changed"))
    return None


def rounded_evidence(pair, right, V64, dtype):
    """(weights_rounded, (output, weights), message) when the weights are the right ones rounded to k decimals:
    every entry a multiple of 10^-k (the fewest k), within half of 10^-k of the right weight and not simply
    right; the output is those weights times V, that rounded to k decimals too, or the right output (only the
    returned weights rounded, the output made from the exact ones: a replay, round(right weights, k), decides)."""
    w = pair[1]
    if tuple(w.shape) != tuple(right[1].shape) or not w.is_floating_point() or not bool(torch.isfinite(w).all()):
        return None
    o = pair[0]
    if matching_variants(w, {"right": right[1]}, dtype) and tuple(o.shape) == tuple(right[0].shape) \
            and o.is_floating_point() and bool(torch.isfinite(o).all()):
        # the right weights, the output rounded: every entry a multiple of 10^-k, within half of it
        k = _decimals(o)
        if k is not None and not matching_variants(o, {"right": right[0]}, dtype) \
                and float((o.detach().double() - right[0]).abs().max()) <= 0.5 * 10 ** -k + 1e-6:
            return "weights_rounded", (o.detach().double(), right[1]), (
                f"{describe('weights_rounded')} (every output entry is a multiple of 1e-{k}, within 0.5e-{k} of "
                "the right one)")
        return None
    k = _decimals(w)
    if k is None or bool(((w == 0) | (w == 1)).all()) or matching_variants(w, {"right": right[1]}, dtype):
        return None
    w64 = w.detach().double()
    if float((w64 - right[1]).abs().max()) > 0.5 * 10 ** -k + 1e-6:
        return None
    out = w64 @ V64
    for o in (out, torch.round(out, decimals=k)):
        if matching_variants(pair[0], {"v": o}, dtype):
            return "weights_rounded", (o, w64), (f"{describe('weights_rounded')} (every weight is a multiple of "
                                                  f"1e-{k}, within 0.5e-{k} of the right one)")
    # the output from the exact weights, only the returned weights rounded: the weights must be the replay
    # round(right, k) entry by entry (to the weights' own float rounding), not just near it; an entry within
    # the input dtype's rounding of a tie (x.5 in the k-th decimal) may round either way
    if matching_variants(pair[0], {"v": right[0]}, dtype) and _is_rounded_replay(w64, right[1], k, w.dtype):
        return "weights_rounded", (right[0], w64), (
            f"{describe('weights_rounded')} (the output is right, but every returned weight is the right one "
            f"rounded to {k} decimals: the output was made from the exact weights)")
    return None


def _assert_line(e: StudentCodeError) -> str:
    """The `assert ...` line of the student's traceback, shortened and escaped (hostile text), or ""."""
    lines = [ln.strip() for ln in (e.traceback or "").splitlines() if ln.strip().startswith("assert")]
    if not lines:   # the cell's source is not in the traceback: its line and function
        where = re.findall(r'line (\d+), in ([A-Za-z_]\w{0,40})', e.traceback or "")
        return f" (line {where[-1][0]} of `{where[-1][1]}`)" if where else ""
    line = lines[-1][:100] + ("..." if len(lines[-1]) > 100 else "")
    return f" (`{ascii(line)[1:-1]}`)"


def _raised_in_notebook(e: StudentCodeError) -> bool:
    """Whether the innermost frame of the traceback is the notebook's (a cell, not a module's .py file; or none is
    shown): torch raises AssertionError itself, "Torch not compiled with CUDA enabled" from torch.cuda's _lazy_init on
    a machine without a GPU, and that assert is not the student's (red-team round 88)."""
    files = re.findall(r'File "([^"\n]{1,500})", line \d{1,7}, in ', (e.traceback or "")[-4000:])
    return not files or not files[-1].endswith(".py")


def _exact_row_sum_assert(fn, line, n, Q, K, V, d_k) -> None:
    """own_assert_exact_equality, once all-zero queries against n (a power of two) keys ran and were right
    (every weight 1/n, each row summing to exactly 1 in any float): the same queries shrunk so that the largest
    score is 1, 2 or 3 (every weight well inside (0, 1): no overflow, no weight near 0 or 1; rows 1 within
    rounding but not all exactly 1 in the input's dtype) raise AssertionError again, where a check with a
    tolerance passes."""
    S = Q.double() @ K.double().transpose(-1, -2) / d_k ** 0.5
    top = float(S.abs().max())
    if not top > 0:
        return
    for target in (2.0, 1.0, 3.0):
        q = (Q.double() * (target / top)).to(Q.dtype)
        w = torch.softmax(q @ K.transpose(-1, -2) / d_k ** 0.5, dim=-1)
        if bool((w.sum(-1) == 1).all()) or not bool(((w > 1e-3) & (w < 0.95)).all()):
            continue
        try:
            fn(q, K.clone(), V.clone(), d_k)
        except StudentCodeError as again:
            if again.exc_type != "AssertionError":
                return
        else:
            continue
        raise Misconception("own_assert_exact_equality", f"your own assert failed{line}; on all-zero queries "
                            f"(every weight exactly 1/{n}, each row summing to exactly 1) the same call runs and is "
                            f"right, and on the same queries scaled so that the largest score is {target:g} (rows "
                            "that sum to 1 only within rounding) it fails again: "
                            + describe("own_assert_exact_equality")) from None


def own_assert(fn, e: StudentCodeError, Q, K, V, d_k) -> None:
    """The student's own assert failed. With one query the same call runs and is right: the assert holds only for
    T_q = 1, a total over the whole matrix (T_q) checked against 1 (own_assert_total_weight). On float32 input
    whose float64 copy runs and is right: a tolerance tighter than float32's rounding. Else it says only that it
    is their own assert, and which line."""
    if e.exc_type != "AssertionError" or not _raised_in_notebook(e):
        return
    line = _assert_line(e)

    def right_on(q, k, v):
        try:
            out = fn(q, k, v, d_k)
        except StudentCodeError:
            return False
        want = ref.attention(q.double(), k.double(), v.double(), d_k)
        return isinstance(out, (tuple, list)) and len(out) == 2 and all(
            type(p) is torch.Tensor and matching_variants(p, {"right": r}, q.dtype) for p, r in zip(out, want))

    if Q.dtype != torch.float64 and right_on(Q.double(), K.double(), V.double()):
        raise AssertionError(f"your own assert failed{line} on {str(Q.dtype).replace('torch.', '')} inputs; on the "
                             "same values in float64 it runs and is right: its tolerance is tighter than the "
                             "rounding of the input's dtype (a row sum in float32 is off by about 1e-7 per entry)"
                             ) from None
    # naming72: before the all-zero queries below, whose call cut to n keys can make T_q = T_k by chance
    raise_if_dtype_or_shape_assert(fn, line, right_on, Q, K, V)
    n = 1 << (K.shape[-2].bit_length() - 1)   # all-zero queries on n keys: each weight 1/n, each row sums to exactly 1
    exact_rows = Q.shape[-2] > 1 and right_on(torch.zeros_like(Q), K[..., :n, :].clone(), V[..., :n, :].clone())
    if (Q.shape[-2] > 2 and not exact_rows and right_on(Q[..., :1, :], K, V)
            and not right_on(Q[..., :2, :], K, V)):
        raise Misconception("own_assert_total_weight", f"your own assert failed{line} with T_q = {Q.shape[-2]} "
                            "queries; with one query the same call runs and is right, with two it fails again, and "
                            f"it fails on all-zero queries too, whose rows each sum to exactly 1 (weights 1/{n}), so "
                            "the assert holds only when T_q = 1: " + describe("own_assert_total_weight")) from None
    if exact_rows:
        _exact_row_sum_assert(fn, line, n, Q, K, V, d_k)
    zero = (Q == 0).all(dim=-1) if Q.dim() == 2 else None
    if zero is not None and bool(zero.any()) and not bool(zero.all()):
        # a zero query (its scores all 0: a row sum of 0 divides to NaN): the same call without it, whose two
        # results together match one known mistake, names it
        q = Q[~zero]
        try:
            found = pair_evidence(fn(q, K, V, d_k), q, K, V, d_k, fn)
        except StudentCodeError:
            found = None
        if found is not None:
            rows = [i for i, z in enumerate(zero.tolist()) if z]
            raise Misconception(found[0], f"your own assert failed{line} on these inputs, whose query row(s) {rows} "
                                "are all zeros (every score 0); without those queries the same call runs, and its "
                                f"output and weights match {found[2]}") from None
    raise_if_value_width_assert(fn, line, right_on, Q, K, V, d_k)   # naming66
    raise AssertionError(f"your own assert failed{line}: the assert in your code, not the grader's, stopped the "
                         "call on these inputs") from None


_DTYPE_WORDS = re.compile(r"dtype|float|double|half")
_SHAPE_WORDS = re.compile(r"shape|size\(|len\(")


def raise_if_dtype_or_shape_assert(fn, line: str, right_on, Q, K, V) -> None:
    """naming72 (blind73): the student's assert, whose line reads a dtype, failed on float64 inputs whose float32
    copy runs and is right (own_assert_rejects_float64); or, whose line reads a shape, failed with T_q != T_k where
    the same values cut to as many queries as keys run and are right (own_assert_same_shape)."""
    if Q.dtype == torch.float64 and _DTYPE_WORDS.search(line) and right_on(Q.float(), K.float(), V.float()):
        raise Misconception("own_assert_rejects_float64", f"your own assert failed{line} on float64 inputs; on the "
                            "same values in float32 it runs and is right: "
                            + describe("own_assert_rejects_float64")) from None
    T_q, T_k = Q.shape[-2], K.shape[-2]
    T = min(T_q, T_k)
    if T_q != T_k and T > 0 and _SHAPE_WORDS.search(line) and right_on(Q[..., :T, :], K[..., :T, :], V[..., :T, :]):
        raise Misconception("own_assert_same_shape", f"your own assert failed{line} with T_q = {T_q} queries and T_k "
                            f"= {T_k} keys; on the same values cut to {T} of each it runs and is right: "
                            + describe("own_assert_same_shape")) from None


_DRAWS = frozenset({"randn", "normal", "randn_like", "normal_"})


def _scaled_draw(submission) -> str | None:
    """The line (quoted, cut) where dot_product_variance scales its normal draws by a factor: `q = torch.randn(...)
    * s` or `/ s`, `q = q * s` / `q *= s` for a name bound to a draw, or torch.normal with a std that is not the
    literal 1; neither a factor of the literal 1 nor a scaling under an `if` that tests the `scaled` parameter.
    None otherwise (bounded: one parsed def, at most 3000 nodes)."""
    import ast
    import itertools
    try:
        func = _function_of(submission, "dot_product_variance")
    except Exception:  # noqa: BLE001 - an unread source is no evidence
        return None
    if func is None:
        return None
    nodes = list(itertools.islice(ast.walk(func), 3000))

    def is_draw(x) -> bool:
        return isinstance(x, ast.Call) and (isinstance(x.func, ast.Attribute) and x.func.attr in _DRAWS
                                            or isinstance(x.func, ast.Name) and x.func.id in _DRAWS)
    drawn = {t.id for n in nodes if isinstance(n, ast.Assign) and is_draw(n.value) for t in n.targets
             if isinstance(t, ast.Name)}

    def draw_or_drawn(x) -> bool:
        return is_draw(x) or isinstance(x, ast.Name) and x.id in drawn

    def holds_draw(x) -> bool:
        return any(draw_or_drawn(y) for y in itertools.islice(ast.walk(x), 400))

    def line(n) -> str:
        return " ".join(unparse(n).split())[:80]

    def one(x) -> bool:      # a factor of 1 scales nothing
        return isinstance(x, ast.Constant) and type(x.value) in (int, float) and x.value == 1
    # red-team round 139: a scaling under `if scaled:` is the question's own 1/sqrt(d_k) put on the draws (right for
    # scaled=True), not an init's std: `if scaled: q = q / d_k ** 0.25` beside a mean over the coordinates was told
    # draws_scaled_like_init on both tests (the unscaled one draws with std 1); so was `randn(...) * 1.0`
    flag = [a.arg for a in func.args.args + func.args.kwonlyargs if a.arg == "scaled"]
    gated = {id(x) for n in nodes if isinstance(n, ast.If) and any(
        isinstance(t, ast.Name) and t.id in flag for t in itertools.islice(ast.walk(n.test), 100))
        for stmt in n.body + n.orelse for x in itertools.islice(ast.walk(stmt), 3000)}
    for n in nodes:
        if id(n) in gated:
            continue
        if isinstance(n, ast.Call) and is_draw(n) and getattr(n.func, "attr", getattr(n.func, "id", "")) == "normal":
            std = n.args[1] if len(n.args) > 1 else next((k.value for k in n.keywords if k.arg == "std"), None)
            if std is not None and not (isinstance(std, ast.Constant) and std.value in (1, 1.0)):
                return line(n)
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.BinOp) and isinstance(n.value.op, (ast.Mult, ast.Div)):
            a, b = n.value.left, n.value.right
            if draw_or_drawn(a) and not holds_draw(b) and not one(b) or isinstance(n.value.op, ast.Mult) \
                    and draw_or_drawn(b) and not holds_draw(a) and not one(a):
                if is_draw(a) or is_draw(b) or any(isinstance(t, ast.Name) and t.id in drawn for t in n.targets):
                    return line(n)
        if isinstance(n, ast.AugAssign) and isinstance(n.op, (ast.Mult, ast.Div)) and isinstance(n.target, ast.Name) \
                and n.target.id in drawn and not holds_draw(n.value) and not one(n.value):
            return line(n)
    return None


def raise_if_averaged(v, seed, d_k, n, scaled, submission=None) -> None:
    """dot_averaged_not_summed: the result is, to rounding, the right variance of the same generator's draws
    divided by d_k^2 (each dot product a mean over the d_k features, a factor 1/d_k), and not the right one.
    variance_moments_swapped: minus the same draws' variance over n (E[X]^2 - E[X^2]).
    draws_scaled_like_init (naming76, blind76 q2_draws_initialised_like_nn_linear_std_inverse_root): the same numbers
    where the source scales the draws (std 1/sqrt(d_k) each: the products 1/d_k, as a mean gives), said from it."""
    if scaled:   # naming86: the scale applied to streamed running sums after every chunk
        raise_if_rescaled_every_chunk(v, d_k, n, seed, submission)
    right, _ = _all_pairs_values(d_k, n, seed, pairs=False)
    if scaled:
        right = [r / d_k for r in right]
    if isinstance(v, (int, float)) and v < 0 and _replays(v, [-r * (n - 1) / n for r in right]):
        raise Misconception("variance_moments_swapped", f"for d_k = {d_k}{' with scaled=True' if scaled else ''} the "
                            f"result {v:.4g} is minus the variance of the same generator's dot products "
                            "(E[X]^2 - E[X^2], over n samples): " + describe("variance_moments_swapped"))
    if _replays(v, right) or not _replays(v, [r / d_k ** 2 for r in right]):
        return
    drawn = _scaled_draw(submission) if submission is not None else None
    if drawn is not None:
        raise Misconception("draws_scaled_like_init", f"for d_k = {d_k}{' with scaled=True' if scaled else ''} the "
                            f"result is the variance of standard-normal draws' dot products divided by d_k^2 = "
                            f"{d_k ** 2}, and your dot_product_variance scales its draws (`{ascii(drawn)[1:-1]}`): "
                            "std 1/sqrt(d_k) on q and on k gives exactly that: " + describe("draws_scaled_like_init"))
    raise Misconception("dot_averaged_not_summed", f"for d_k = {d_k}{' with scaled=True' if scaled else ''} the result "
                        f"is the variance of the same generator's dot products divided by d_k^2 = {d_k ** 2}: "
                        + describe("dot_averaged_not_summed"))


# the names a misnamed answer is plausibly stored under ({q} is the question's own name, q5 say)
_ANSWER_NAMES = ("{q}_ans", "{q}", "{q}_answers", "{q}answer", "{q}_anwser", "{q}_answ", "{q}_choice", "{q}_letter",
                 "{q}_response", "answer_{q}", "ans_{q}", "{Q}_answer", "{q}_Answer", "{q}_answer_")


def on_missing_answer(missing: str, resolve) -> None:
    """on_missing hook of a multiple-choice test: the asked name is undefined; a similarly named variable the
    notebook does define (one of _ANSWER_NAMES) is said, with its value shortened and escaped."""
    q = missing[: -len("_answer")] if missing.endswith("_answer") else missing
    for pattern in _ANSWER_NAMES:
        other = pattern.format(q=q, Q=q.upper())
        if other == missing:
            continue
        try:
            value = resolve(other)
        except Exception:  # noqa: BLE001 - a name that cannot be read is not the one sought
            continue
        if value is None or callable(value):
            continue
        shown = ascii(value) if isinstance(value, (str, int, float, list, tuple)) else type(value).__name__
        shown = shown if len(shown) <= 40 else shown[:37] + "..."
        raise Misconception("answer_variable_misnamed", f"`{missing}` is not defined, but your notebook defines "
                            f"`{other}` (= {shown}): " + describe("answer_variable_misnamed")
                            + f"; name it `{missing}`")


def width_from_tokens(fn, e, X, Ws, n_heads):
    """mha_head_width_from_tokens: a crash with T != d_model tokens, while the same function on T = d_model tokens
    (X drawn anew, the same weights) runs and is right: a size taken from X.shape[0] where X.shape[1] belongs."""
    T, d_model = X.shape
    if T == d_model:
        return None
    X2 = torch.randn((d_model, d_model), generator=torch.Generator().manual_seed(2), dtype=X.dtype)
    try:
        again = fn(X2, *Ws, n_heads)
    except StudentCodeError:
        return None
    right = ref.multi_head_attention(X2.double(), *(w.double() for w in Ws), n_heads)
    if type(again) is not torch.Tensor or not matching_variants(again, {"right": right}, X.dtype):
        return None
    # the proof on T != d_model: with T = d_model + 1 tokens, X.shape[0] // n_heads is still d_model // n_heads,
    # so a width taken from the tokens runs and is right there too (a buffer of d_model rows, zeros_like(W_O),
    # and any other size that needs T = d_model exactly, crashes)
    T3 = d_model + 1
    if n_heads < 2 or T3 // n_heads != d_model // n_heads:
        return None
    X3 = torch.randn((T3, d_model), generator=torch.Generator().manual_seed(3), dtype=X.dtype)
    try:
        third = fn(X3, *Ws, n_heads)
    except StudentCodeError:
        return None
    right3 = ref.multi_head_attention(X3.double(), *(w.double() for w in Ws), n_heads)
    if type(third) is not torch.Tensor or not matching_variants(third, {"right": right3}, X.dtype):
        return None
    first = (e.message or "").splitlines()[0][:200] if e.message else ""
    return Misconception("mha_head_width_from_tokens", f"your code raised {e.exc_type}: {first} with T = {T} tokens "
                         f"and d_model = {d_model}; with T = d_model = {d_model} tokens it runs and is right, and with "
                         f"T = {T3} (T // n_heads = d_model // n_heads = {d_model // n_heads}) too: "
                         + describe("mha_head_width_from_tokens"))


def buffer_like_weights(fn, e, X, Ws, n_heads):
    """mha_buffer_like_w_o: a crash with T != d_model tokens where the same function on one token (T = 1) returns
    (d_model, d_model), every row the right (1, d_model) output: a buffer of d_model rows (zeros_like(W_O)) that
    the one head row was broadcast into. None when the T = 1 call crashes or gives anything else."""
    T, d_model = X.shape
    if T == d_model or d_model < 2:
        return None
    X1 = torch.randn((1, d_model), generator=torch.Generator().manual_seed(4), dtype=X.dtype)
    try:
        again = fn(X1, *Ws, n_heads)
    except StudentCodeError:
        return None
    right = ref.multi_head_attention(X1.double(), *(w.double() for w in Ws), n_heads)
    if type(again) is not torch.Tensor or tuple(again.shape) != (d_model, d_model) \
            or not matching_variants(again, {"rows": right.expand(d_model, d_model)}, X.dtype):
        return None
    first = (e.message or "").splitlines()[0][:200] if e.message else ""
    return Misconception("mha_buffer_like_w_o", f"your code raised {e.exc_type}: {first} with T = {T} tokens; with "
                         f"T = 1 token it returns shape ({d_model}, {d_model}), {d_model} copies of the right output "
                         "row: the buffer for the heads has d_model rows where T are needed: "
                         + describe("mha_buffer_like_w_o"))


# --- naming10 (issue 21, sixth round): blind9's misses as kinds ------------------------------------------

# replays (reference.variance_variants) whose mistake is not the one of the key before the "/": the draw
# (d_k, n_samples) summed over n_samples is the sizes swapped in torch.randn, not a sum over dim 0
_REPLAY_NAMES = {"dots_summed_over_samples/shape_swapped": "randn_shape_swapped"}


def replay_key(kind: str) -> str:
    """The misconception key of one replayed draw of reference.variance_variants (its /float64 tag dropped)."""
    kind = kind.removesuffix("/float64")
    return _REPLAY_NAMES.get(kind, kind.split("/")[0])


def top_k_evidence(pair, Q64, K64, V64, d_k, same, again=None):
    """attention_top_k: both results are those of the softmax over only the k best-scoring keys of each query
    (the others masked to -inf), for a k < T_k (k = 1: a hard argmax, one-hot weights), the keys kept read from
    the weights' nonzero entries. None when they are not each row's best scores or the results differ.
    `again` = (the student's attention, the input dtype): a softmax saturated by a huge scale (blind57's
    math.pow(0.5, d_k) as divisor: the scores times 2 ** d_k) gives the same zeros, so the name needs a second
    call with the queries scaled down until the scores are tiny to be top-k's there too (a top-k still keeps
    only its k keys; a saturated softmax then spreads over every key); no second call possible, no name."""
    S = Q64 @ K64.transpose(-2, -1) / math.sqrt(d_k)
    T_k = S.shape[-1]
    weights = pair[1]
    if T_k < 2 or tuple(weights.shape) != tuple(S.shape):
        return None
    # the keys kept are read from the weights (ties, a zero query or equal keys, may keep more in a row, and
    # float32 may break a tie the other way): they must be each row's best scores, and some row must drop one
    kept = weights != 0
    counts = kept.sum(dim=-1)
    if bool((counts == 0).any()) or bool((counts == T_k).all()):
        return None
    lowest_kept = S.masked_fill(~kept, math.inf).amin(dim=-1)
    highest_dropped = S.masked_fill(kept, -math.inf).amax(dim=-1)
    if bool((lowest_kept < highest_dropped - 1e-6 * (1 + S.abs().amax())).any()):
        return None
    w = torch.softmax(S.masked_fill(~kept, float("-inf")), dim=-1)
    wrong = (w @ V64, w)
    if not all(same(p, x) for p, x in zip(pair, wrong)) or same(w, torch.softmax(S, dim=-1)):
        return None
    if again is not None and not top_k_again(again[0], Q64, K64, V64, d_k, again[1], same):
        return None
    k = int(counts.min())
    return "attention_top_k", wrong, (f"{describe('attention_top_k')} (here k = {k} of the {T_k} keys: every other "
                                      "weight is exactly 0)")


def saturated_scale_evidence(pair, Q64, K64, V64, d_k, same, again):
    """wrong_scale_constant for a softmax saturated by a tiny c (naming57, blind57 q1_scale_math_pow_arguments_swapped:
    Q K^T / math.pow(0.5, d_k) is the scores times 2 ** d_k, every weight but each row's best exactly 0, so no c
    fits them): a second call with the queries scaled so that the largest score is 1e-6 gives a rough c, a third
    scaled so that the largest score over that c is 4 gives it exactly, and softmax(Q K^T / c) must then be both
    results of the first call and of the third. `again` = (the student's attention, the input dtype)."""
    fn, dtype = again
    S = Q64 @ K64.transpose(-2, -1)
    if fn is None or tuple(pair[1].shape) != tuple(S.shape) or not bool((pair[1] == 0).any()):
        return None
    top = float(S.abs().amax())
    if not math.isfinite(top) or top == 0:
        return None
    c = None
    for _ in range(2):
        Q2 = (Q64 * ((1e-6 if c is None else 4 * c) / top)).to(dtype)
        try:
            got = fn(Q2, K64.to(dtype), V64.to(dtype), d_k)
        except Exception:  # noqa: BLE001 - a second call is only evidence
            return None
        if not (isinstance(got, (tuple, list)) and len(got) == 2 and all(type(p) is torch.Tensor for p in got)):
            return None
        S2 = Q2.double() @ K64.transpose(-2, -1)
        c = ref.fitted_scale(S2, got[1])
        if c is None or not math.isfinite(c) or c <= 0:
            return None
    w2 = torch.softmax(S2 / c, dim=-1)
    w = torch.softmax(S / c, dim=-1)
    wrong = (w @ V64, w)
    if not all(same(p, x) for p, x in zip(got, (w2 @ V64, w2))) or not all(same(p, x) for p, x in zip(pair, wrong)) \
            or same(w, torch.softmax(S / math.sqrt(d_k), dim=-1)):
        return None
    return "wrong_scale_constant", wrong, (
        f"{describe('wrong_scale_constant')}: here c = {c:.4g}, the scores times {1 / c:.4g}, so the softmax "
        f"saturates (each row's best key takes almost all the weight; a second call with the queries scaled down "
        f"shows every key is in it), where the scale is 1/sqrt(d_k) = 1/{math.sqrt(d_k):.4g}")


def top_k_again(fn, Q64, K64, V64, d_k, dtype, same) -> bool:
    """Whether the student's attention, called again with the queries scaled so that the largest score is 1e-6
    (no softmax of any sane scale saturates there), still gives top-k's results on that input (naming57)."""
    if fn is None:
        return False
    top = float((Q64 @ K64.transpose(-2, -1)).abs().amax())
    if not math.isfinite(top) or top == 0:
        return False
    Q2 = (Q64 * (1e-6 / top)).to(dtype)
    try:
        again = fn(Q2, K64.to(dtype), V64.to(dtype), d_k)
    except Exception:  # noqa: BLE001 - a second call is only evidence
        return False
    if not (isinstance(again, (tuple, list)) and len(again) == 2 and all(type(p) is torch.Tensor for p in again)):
        return False
    return top_k_evidence(again, Q2.double(), K64, V64, d_k, same) is not None


def raise_if_inf_saturated(fn, got, entropy_wrong) -> None:
    """entropy_epsilon_outside_log: an infinite (not NaN) entropy for saturated rows, from a function right on
    ordinary logits, whose second call on reference.ENTROPY_PROBE is right on the row of large logits (no
    probability underflows) and +inf on the row whose probabilities underflow to 0: a nonzero factor times
    log(0), what (p + eps) * log(p) gives there (0 * log(0) would be NaN)."""
    if type(got) is not torch.Tensor or not got.is_floating_point() or bool(torch.isnan(got).any()) \
            or bool(torch.isfinite(got).all()) or entropy_wrong(fn):
        return
    try:
        probe = fn(ref.ENTROPY_PROBE.clone())
    except StudentCodeError:
        return
    if type(probe) is not torch.Tensor or tuple(probe.shape) != (2,) or not probe.is_floating_point():
        return
    want = float(ref.softmax_entropy(ref.ENTROPY_PROBE[0].double()))
    if abs(float(probe[0]) - want) > 1e-4 or float(probe[1]) != math.inf:
        return
    rows = [i for i, v in enumerate(got.flatten().tolist()) if not math.isfinite(v)]
    raise Misconception("entropy_epsilon_outside_log", f"softmax_entropy(logits) is infinite (not NaN) for the "
                        f"saturated row(s) {rows}, and right on ordinary logits: on a row whose probabilities "
                        "underflow to 0 it gives +inf, a nonzero factor times log(0): "
                        + describe("entropy_epsilon_outside_log"))


def raise_if_unweighted_saturated(got, logits) -> None:
    """entropy_unweighted on saturated rows: +inf exactly on the rows where a probability of softmax(logits) in
    the input's dtype underflows to 0 (-log 0), and on every other row the mean (or the sum) of -log p, the same
    reduction on each; at least one finite row."""
    if type(got) is not torch.Tensor or not got.is_floating_point() or tuple(got.shape) != tuple(logits.shape[:-1]) \
            or bool(torch.isnan(got).any()) or logits.shape[-1] < 2:
        return
    under = (torch.softmax(logits, dim=-1) == 0).any(dim=-1)
    inf = torch.isinf(got) & (got > 0)
    if not bool(under.any()) or bool(under.all()) or not torch.equal(inf, under):
        return
    log_p = torch.log_softmax(logits.double(), dim=-1)[~under]
    hits = [key for key, v in (("mean", -log_p.mean(dim=-1)), ("sum", -log_p.sum(dim=-1)))
            if matching_variants(got[~under], {"v": v}, logits.dtype)]
    if len(hits) != 1 or matching_variants(got[~under], {"right": ref.softmax_entropy(logits[~under].double())},
                                           logits.dtype):
        return
    rows = [i for i, v in enumerate(under.flatten().tolist()) if v]
    raise Misconception("entropy_unweighted", f"softmax_entropy(logits) is +inf for the saturated row(s) {rows} (a "
                        f"probability there is 0 and -log 0 is infinite) and on the other rows it is the {hits[0]} of "
                        "-log p: " + describe("entropy_unweighted"))


def raise_if_column_copied(table, expected) -> None:
    """table_field_copied: every wrong column of the (rows, 4) table holds, in every row, the right values of
    another column (scaled_std = raw.std(), H_scaled = entropy(raw): one line copied and not edited), and
    every other column is right. Two columns holding each other's values are table_fields_swapped, named
    by the variants before this runs."""
    def same(a, b):
        return bool(matching_variants(a.double(), {"v": b.double()}, torch.float32))

    copied = {}
    for c in range(len(TABLE_COLUMNS)):
        if same(table[:, c], expected[:, c]):
            continue
        sources = [o for o in range(len(TABLE_COLUMNS)) if o != c and same(table[:, c], expected[:, o])]
        if len(sources) != 1:
            return
        copied[c] = sources[0]
    if not copied or any(copied.get(o) == c for c, o in copied.items()):
        return
    said = "; ".join(f"{TABLE_COLUMNS[c]} holds the values of {TABLE_COLUMNS[o]}" for c, o in copied.items())
    raise Misconception("table_field_copied", f"the entropy table's {said} in every row, every other column is "
                        "right: " + describe("table_field_copied"))


def split_by_count_variants(X, W_Q, W_K, W_V, W_O, n_heads):
    """Q, K, V cut into d_k = d_model // n_heads heads of width n_heads (torch.split(n_heads) takes the chunk
    size, not the count; chunk(d_k) and tensor_split(d_k) take the count; a reshape(T, d_k, n_heads) with the sizes swapped), each scaled by
    1/sqrt(d_k) or by 1/sqrt(its width): mha_split_by_head_count. None where the two widths are equal."""
    d_model = X.shape[-1]
    d_k = d_model // n_heads
    if n_heads < 2 or d_k * n_heads != d_model or d_k == n_heads:
        return {}
    Q, K, V = (X.double() @ W.double() for W in (W_Q, W_K, W_V))
    out = {}
    for tag, scale in (("scale_d_k", d_k), ("scale_width", n_heads)):
        heads = [ref.attention(*(M[:, i * n_heads:(i + 1) * n_heads] for M in (Q, K, V)), scale)[0]
                 for i in range(d_k)]
        out[f"mha_split_by_head_count/{tag}"] = torch.cat(heads, dim=-1) @ W_O.double()
    return out


def head_slice_end_one_back(fn, e, X, Ws, n_heads) -> Misconception | None:
    """(naming78) mha_head_slice_end_one_back: torch's (T x (d_model - d_k)) @ (d_model x d_model) message, and a
    second call with a W_O of d_model - d_k rows (seeded) that runs and equals ONE head of attention on the first
    d_model - d_k columns of Q, K, V (scaled by 1/sqrt(d_k)) times it: each head sliced h * d_k : (h - 1) * d_k, head
    0 ending at -d_k (a negative end counts from the right) and every later head empty."""
    found = _MATMUL.search(e.message or "")
    T, d_model = X.shape
    d_k = d_model // n_heads
    if e.exc_type != "RuntimeError" or not found or n_heads < 2 or d_model > 512 \
            or tuple(int(x) for x in found.groups()) != (T, d_model - d_k, d_model, d_model):
        return None
    w = d_model - d_k
    W_O = torch.randn((w, d_model), generator=torch.Generator().manual_seed(78), dtype=X.dtype) * w ** -0.5
    try:
        again = fn(X, Ws[0], Ws[1], Ws[2], W_O, n_heads)
    except StudentCodeError:
        return None
    Q, K, V = (X.double() @ W.double() for W in Ws[:3])
    one = ref.attention(Q[:, :w], K[:, :w], V[:, :w], d_k)[0] @ W_O.double()
    if type(again) is not torch.Tensor or not matching_variants(again, {"one": one}, X.dtype):
        return None
    return Misconception("mha_head_slice_end_one_back", f"your code raised {e.exc_type}: {found.group(0)}: the heads "
                         f"concatenate to {w} = d_model - d_k columns ({n_heads} heads of d_k = {d_k}); given a W_O "
                         f"of {w} rows it runs, and its output is one head of attention on the first {w} columns of "
                         "Q, K, V times it (head 0's slice ends at -d_k, every later head is empty): "
                         + describe("mha_head_slice_end_one_back"))


def constant_width(fn, e, X, Ws, n_heads):
    """mha_head_width_constant: torch's (T x n_heads c) @ (d_model x d_model) message, c != d_model // n_heads:
    heads of a fixed width c (a global d_k of the notebook, a number). Confirmed by a second call on inputs of
    d_model = n_heads * c and another token count (drawn anew), which must run and be right."""
    found = _MATMUL.search(e.message or "")
    T, d_model = X.shape
    if e.exc_type != "RuntimeError" or not found or n_heads < 2:
        return None
    t, m, a, b = (int(x) for x in found.groups())
    c, d_k = m // n_heads, d_model // n_heads
    if (t, a, b) != (T, d_model, d_model) or m % n_heads or c in (0, d_k) or n_heads * c > 256:
        return None
    named = _width_from_head_count(fn, e, found.group(0), X, Ws, n_heads, c)
    if named is not None:
        return named
    g = torch.Generator().manual_seed(3)
    d2 = n_heads * c
    X2 = torch.randn((T + 1, d2), generator=g, dtype=X.dtype)
    W2 = [torch.randn((d2, d2), generator=g, dtype=X.dtype) * d2 ** -0.5 for _ in range(4)]
    try:
        again = fn(X2, *W2, n_heads)
    except StudentCodeError:
        return None
    right = ref.multi_head_attention(X2.double(), *(w.double() for w in W2), n_heads)
    if type(again) is not torch.Tensor or not matching_variants(again, {"right": right}, X.dtype):
        return None
    if not _width_kept_with_more_heads(fn, X, n_heads, c):
        return None
    return Misconception("mha_head_width_constant", f"your code raised {e.exc_type}: {found.group(0)}: {n_heads} heads "
                         f"of width {c} where d_model // n_heads = {d_k}; on inputs of d_model = {d2} (so that "
                         f"d_model // n_heads = {c}) it runs and is right: " + describe("mha_head_width_constant"))


def _width_kept_with_more_heads(fn, X, n_heads, c) -> bool:
    """naming84 (blind85 q8_head_slice_end_offset_by_n_heads_not_d_k, mis-named): a fixed width c is right on
    inputs of d_model = k * c for another head count k = n_heads + 1 too; a width that IS the head count
    (`end = start + n_heads`, right where d_k == n_heads) is not. False where that call raises or is wrong."""
    k = n_heads + 1
    d3 = k * c
    if d3 > 256:
        return True
    g = torch.Generator().manual_seed(84)
    X3 = torch.randn((X.shape[0] + 2, d3), generator=g, dtype=X.dtype)
    W3 = [torch.randn((d3, d3), generator=g, dtype=X.dtype) * d3 ** -0.5 for _ in range(4)]
    try:
        again = fn(X3, *W3, k)
    except StudentCodeError:
        return False
    right = ref.multi_head_attention(X3.double(), *(w.double() for w in W3), k)
    return type(again) is torch.Tensor and matching_variants(again, {"right": right}, X.dtype)


def _width_from_head_count(fn, e, said, X, Ws, n_heads, c):
    """mha_head_width_constant where the width is d_model // k for a head count k of its own (d_model // 8, the
    paper's 8 heads): on inputs of the same d_model and one token more (a width from the token count then
    moves) with n_heads = k = d_model // c (so d_model // n_heads is its width c) the function is right."""
    d_model = X.shape[-1]
    k = d_model // c
    if d_model % c or k in (1, n_heads):
        return None
    X2 = torch.randn((X.shape[0] + 1, d_model), generator=torch.Generator().manual_seed(4), dtype=X.dtype)
    try:
        again = fn(X2, *Ws, k)
    except StudentCodeError:
        return None
    right = ref.multi_head_attention(X2.double(), *(w.double() for w in Ws), k)
    if type(again) is not torch.Tensor or not matching_variants(again, {"right": right}, X.dtype):
        return None
    return Misconception("mha_head_width_constant", f"your code raised {e.exc_type}: {said}: {n_heads} heads of "
                         f"width {c} where d_model // n_heads = {d_model // n_heads}; inputs of the same d_model with "
                         f"n_heads = {k} (so that d_model // n_heads = {c}) run and are right: the head width "
                         "does not come from n_heads: " + describe("mha_head_width_constant"))


def batched_heads_crash(attention, e, X, Ws, n_heads) -> Misconception | None:
    """fixed_axes for multi_head_attention: a crash whose first line is word for word what the student's own
    attention raises on the heads stacked as one (n_heads, T, d_k) batch, where the same attention on each
    head as a 2-D (T, d_k) slice composes to the right answer: the heads went as a batch into an attention
    written for 2-D inputs (K.T, np.dot)."""
    T, d_model = X.shape
    if n_heads < 2 or d_model % n_heads or is_stub(e):
        return None
    d_k = d_model // n_heads
    first = (e.message or "").splitlines()[0] if e.message else ""
    q, k, v = ((X @ W).reshape(T, n_heads, d_k).transpose(0, 1) for W in Ws[:3])
    try:
        attention(q, k, v, d_k)
        return None
    except StudentCodeError as again:
        if again.exc_type != e.exc_type or (again.message or "").splitlines()[:1] != [first]:
            return None
    except Exception:  # noqa: BLE001 - a replay is only evidence
        return None
    try:
        own = ref.multi_head_attention(X, Ws[0], Ws[1], Ws[2], Ws[3], n_heads, per_head=attention)
    except Exception:  # noqa: BLE001 - a replay is only evidence
        return None
    W64 = [w.double() for w in Ws]
    right = ref.multi_head_attention(X.double(), W64[0], W64[1], W64[2], W64[3], n_heads)
    if type(own) is not torch.Tensor or not matching_variants(own, {"right": right}, X.dtype):
        return None
    transposed = _reversing_T_said(_function_read(None, "multi_head_attention"))
    if transposed is not None:   # naming74 (blind74): the heads' scores computed in the mha itself, with .T
        return Misconception("fixed_axes", f"your code raised {e.exc_type}: {first[:200]}; your multi_head_attention "
                             f"does not call attention and transposes with `{transposed}`: on the {n_heads} heads "
                             f"stacked as one ({n_heads}, {T}, {d_k}) batch .T reverses all three axes (NumPy's "
                             "habit), where each head's keys need only their last two swapped: use .mT or "
                             ".transpose(-2, -1): " + describe("fixed_axes"))
    return Misconception("fixed_axes", f"your code raised {e.exc_type}: {first[:200]}; your attention raises the "
                         f"same on the {n_heads} heads stacked as one ({n_heads}, {T}, {d_k}) batch, and given each "
                         f"head as a 2-D ({T}, {d_k}) slice it is right: the heads go as a batch into an attention "
                         "written for 2-D inputs (call it once per head, or make it batch-safe): "
                         + describe("fixed_axes"))


def _reversing_T_said(func) -> str | None:
    """The text of the first `x.T` in `func` where `func` never calls attention by name (the scores computed in
    it); None otherwise (bounded: _NODES_READ nodes of one def)."""
    import ast
    nodes = _nodes(func)
    if any(_called(n) == "attention" for n in nodes):
        return None
    for n in nodes:
        if isinstance(n, ast.Attribute) and n.attr == "T" and isinstance(n.ctx, ast.Load):
            return unparse(n)[:60]
    return None


# --- blind10's kinds (issue 21, seventh round) -------------------------------------------------------------

# torch's argument parser on a Generator where a factory takes sizes or numbers: "randn(): argument 'size'
# failed to unpack the object at pos 3 with error \"... but got torch._C.Generator\"" (randn(n, d, g), rand),
# or "randn() received an invalid combination of arguments - got (tuple, torch._C.Generator), ..." (randn((n, d),
# g), randint, normal, randperm): the generator is keyword-only in every one of them.
_GENERATOR_POSITIONAL = re.compile(r"^(\w+)\(\)(: argument '\w+' failed to unpack .*but got torch\._C\.Generator"
                                   r"| received an invalid combination of arguments - got \([^)]*torch\._C\.Generator)")


def generator_positional(e: StudentCodeError) -> Misconception | None:
    """generator_positional when the crash is torch's own parser refusing a Generator among a factory's
    positional arguments (the message names the function and the Generator it got)."""
    first = (e.message or "").splitlines()[0] if e.message else ""
    found = _GENERATOR_POSITIONAL.search(first)
    if e.exc_type != "TypeError" or not found or re.search(r"\w=torch\._C\.Generator", first):
        return None         # `gen=g`: the generator given by a keyword of another name (blind31), not positionally
    fn = found.group(1)
    return Misconception("generator_positional", f"your code raised {e.exc_type}: torch.{fn}() got the generator "
                         f"among its positional arguments (it read it as a size): {describe('generator_positional')}")


class _EntropyVariants(dict):
    """entropy_variants' {key: value}, carrying the logits they were computed from."""
    logits: torch.Tensor | None = None


def entropy_variants(logits: torch.Tensor) -> dict:
    """ref.entropy_variants and two kinds of blind10: log1p(p) = ln(1 + p) taken as a safe log(p)
    (entropy_log1p; never equal to the entropy, every p in (0, 1)), and one softmax over the flattened tensor,
    its entropy taken as one number (entropy_flattened) or per row (entropy_softmax_whole_tensor); only where
    there is more than one row, else it is the right value."""
    out = _EntropyVariants(ref.entropy_variants(logits))
    out.logits = logits     # for entropy_judge's probes after a failure (entropy_temperature)
    p = torch.softmax(logits, dim=-1)
    out["entropy_log1p"] = -(p * torch.log1p(p)).sum(dim=-1)
    out["entropy_gini"] = 1 - (p * p).sum(dim=-1)        # Gini impurity, a decision tree's measure (blind31)
    # the row max where logsumexp belongs: max - sum p z (H = lse - sum p z), or log p = z - max (blind32)
    out["entropy_max_for_logsumexp"] = logits.amax(dim=-1) - (p * logits).sum(dim=-1)
    out.update(unnormalised_entropy_replays(logits))
    out.update(clamped_entropy_replays(logits))
    out.update(entropy_rewrite_variants(logits))
    out.update(zero_logits_masked_replays(logits))   # naming86
    out.update(online_entropy_replays(logits))   # naming86
    if logits.shape[-1] > 1:
        # -log p not weighted by p, averaged or summed over the row (equal to the entropy only on a uniform row)
        log_p = torch.log_softmax(logits, dim=-1)
        out["entropy_unweighted"] = -log_p.mean(dim=-1)
        out["entropy_unweighted/sum"] = -log_p.sum(dim=-1)
        # ln T - F.kl_div(log p, uniform): KL(uniform || p), the arguments the wrong way round
        out["entropy_kl_div_arguments_swapped"] = 2 * math.log(logits.shape[-1]) + log_p.mean(dim=-1)
        # ln T - H: KL(p || uniform), the row's divergence from the uniform one, returned as the entropy (naming58)
        out["entropy_as_kl_from_uniform"] = math.log(logits.shape[-1]) + (log_p.exp() * log_p).sum(dim=-1)
    if logits.dim() >= 2 and logits[..., 0].numel() > 1:
        # one softmax over the whole tensor, its entropy as one number or per row (e / e.sum() without dim); both
        # left out where the replay is about 0 in every entry (one logit far above all others, as
        # test_entropy_saturated_rows' +300, makes it one-hot): any answer near 0 matches it there (log(p).clamp(min=
        # 1e-9) gives -1e-9 in every row, blind44), so it tells nothing; whole_tensor_confirmed asks a second call
        out.update({k: H for k, H in _whole_tensor_replays(logits).items() if not _about_zero(H)})
    if logits.dim() >= 3:
        # H(p) as F.cross_entropy(logits, p, reduction="none"): its classes are dim 1, not the last (the same
        # for 1-D and 2-D logits), so -sum over dim 1 of p (over the last) times log_softmax over dim 1
        out["entropy_wrong_dim/cross_entropy_dim1"] = -(p * torch.log_softmax(logits, dim=1)).sum(dim=1)
        # the right row entropies of logits.reshape(-1, T), never reshaped back to logits.shape[:-1] (blind36):
        # only from 3-D on (a 1-D row's (1,) is also keepdim's shape; a 2-D one's is the right shape)
        out["entropy_shape_not_restored"] = -(p * torch.log_softmax(logits, dim=-1)).sum(dim=-1).reshape(-1)
    out.update(entropy_first_axis_variants(logits))
    out.update(entropy_cut_and_reshape_replays(logits))
    implicit = out.get("softmax_implicit_dim")
    for key, H in entropy_sum_axis_variants(logits).items():
        # equal to F.softmax without dim on this input (equal batch entries): left to implicit_dim_confirmed
        if not (isinstance(implicit, torch.Tensor) and torch.allclose(H, implicit, rtol=1e-9, atol=1e-12)):
            out[key] = H
    return out


def _whole_tensor_replays(logits: torch.Tensor) -> dict:
    """{key: replay} of one softmax over the whole tensor: its entropy as one number (entropy_flattened) and per
    row (entropy_softmax_whole_tensor)."""
    flat = torch.log_softmax(logits.double().flatten(), dim=0)
    return {"entropy_flattened": -(flat.exp() * flat).sum(),
            "entropy_softmax_whole_tensor": -(flat.exp() * flat).reshape(logits.shape).sum(dim=-1)}


def whole_tensor_confirmed(fn, got, logits, what) -> Misconception | None:
    """A whole-tensor softmax where its replay on these logits is about 0 in every entry (entropy_variants leaves it
    out there: one logit far above all others makes it one-hot, and any answer near 0 matches): named only when the
    answer matches that replay and a second call, on ENTROPY_2D_PROBE (ordinary logits, where the replay is far
    from 0 and from the right entropy), matches the same mistake's replay there. Else None."""
    if type(got) is not torch.Tensor or not got.is_floating_point() or logits.dim() < 2 or logits[..., 0].numel() < 2:
        return None
    hits = [k for k, H in _whole_tensor_replays(logits).items()
            if _about_zero(H) and matching_variants(got, {k: H}, torch.float32)]
    if len(hits) != 1:
        return None
    try:
        again = fn(ENTROPY_2D_PROBE.clone())
    except Exception:  # noqa: BLE001 - a second call is only evidence
        return None
    probe = ENTROPY_2D_PROBE.double()
    key = hits[0]
    if type(again) is not torch.Tensor or not matching_variants(again, {key: _whole_tensor_replays(probe)[key]},
                                                                 torch.float32, expected=ref.softmax_entropy(probe)):
        return None
    return Misconception(key, f"{what} is wrong: it is about 0 here, as a softmax over the whole tensor is (one logit "
                         "far above all others makes it one-hot), and on the 3 x 4 logits of a second call it matches "
                         + describe(key))


def _about_zero(H: torch.Tensor) -> bool:
    """Every entry of a replayed entropy within 1e-3 of 0 (a hundred times float32's tolerance): a replay that a
    tiny constant answer matches too, whatever its mistake."""
    return bool((H.detach().double().abs() <= 1e-3).all())


_SMALL_TERM_CUTS = tuple(m * 10.0 ** -k for k in range(1, 5) for m in (1, 5) if m * 10.0 ** -k < 0.5)


def entropy_cut_and_reshape_replays(logits: torch.Tensor) -> dict:
    """naming84 (blind85 q4_entropy_terms_below_one_percent_dropped_as_zero, blind84
    q4_class_axis_moved_first_by_reshape_not_movedim): entropy_small_terms_dropped, -sum of p log p over the terms
    with p above a cut (0.1, 0.05, ..., 5e-5: a smaller cut changes the entropy by less than
    the tests' tolerance), kept where some term of the input falls below the cut (else it is
    the right entropy), a replay equal to a smaller cut's kept once; and
    entropy_axis_moved_by_reshape, the row entropies of logits.reshape(T, -1) down dim 0 reshaped back to
    logits.shape[:-1], kept where that is not the column entropy of a square matrix (entropy_wrong_dim there)."""
    out: dict = {}
    if logits.numel() == 0 or logits.shape[-1] < 2:
        return out
    x = logits.double()
    p = torch.softmax(x, dim=-1)
    terms = p * torch.log_softmax(x, dim=-1)
    right = -terms.sum(dim=-1)
    seen: list[torch.Tensor] = []
    for cut in _SMALL_TERM_CUTS:
        if not bool((p <= cut).any()) or bool((p <= cut).all()):
            continue
        H = -torch.where(p > cut, terms, torch.zeros_like(terms)).sum(dim=-1)
        if torch.allclose(H, right, rtol=1e-6, atol=1e-9) or any(torch.equal(H, h) for h in seen):
            continue
        seen.append(H)
        out[f"entropy_small_terms_dropped/{cut:g}"] = H
    T = x.shape[-1]
    if x.dim() >= 2 and x[..., 0].numel() > 1:
        flat = x.reshape(T, -1)
        H = -(torch.softmax(flat, dim=0) * torch.log_softmax(flat, dim=0)).sum(dim=0).reshape(x.shape[:-1])
        columns = -(torch.softmax(x, dim=-2) * torch.log_softmax(x, dim=-2)).sum(dim=-2)
        if H.shape != columns.shape or not torch.allclose(H, columns, rtol=1e-6, atol=1e-9):
            out["entropy_axis_moved_by_reshape"] = H
    return out


def entropy_first_axis_variants(logits: torch.Tensor) -> dict:
    """Two slips that read the FIRST axis as the row (naming40, blind39): entropy_mean_times_first_axis, the sum over
    the keys written as a mean times len(logits) (logits.shape[0]), i.e. the entropy times shape[0] / T, left out
    where that factor is 1 or 1/T (entropy_mean_not_sum) or near 1 / ln T, 1 / ln 2, 1 / ln 10 (another key's
    factor); entropy_slices_summed, a loop over the first axis whose helper sums all it gets: for 3-D and up each
    (B, ..., T) slice's row entropies added into one, shape (A,), left out where a slice holds one row."""
    out = {}
    if logits.dim() < 2:
        return out
    H = ref.softmax_entropy(logits)
    first, T = logits.shape[0], logits.shape[-1]
    factor = first / T
    others = [1.0, 1.0 / T] + ([1 / math.log(T)] if T > 1 else []) + [1 / math.log(2), 1 / math.log(10)]
    if all(abs(factor / o - 1) > 1e-3 for o in others):
        out["entropy_mean_times_first_axis"] = H * factor
    if logits.dim() >= 3 and H[0].numel() > 1:
        out["entropy_slices_summed"] = H.reshape(first, -1).sum(dim=-1)
    return out


def mha_overwrite_variants(X, W_Q, W_K, W_V, W_O, n_heads) -> dict:
    """mha_heads_overwritten (naming40, blind39 q8_blockwise_output_projection_assigned_not_accumulated): the output
    as a sum over the heads of head_h @ (rows h * d_k .. (h + 1) * d_k - 1 of W_O) with each term assigned, not
    added, so only the LAST head's term is returned (the same as a concat buffer made anew inside the loop). Only
    for two heads or more (one head is the right answer)."""
    if n_heads < 2 or X.shape[-1] % n_heads:
        return {}
    d_k = X.shape[-1] // n_heads
    heads = _mha_heads(X, W_Q, W_K, W_V, n_heads)
    last = heads[-1]
    right = torch.cat(heads, dim=-1) @ W_O.double()
    # naming69 (blind69 q8_blockwise_output_sum_started_from_head_zero_then_adds_it_again): the sum started from one
    # head's term (heads[0] @ W_O[:d_k], or the last head's) and the loop over every head adding it again
    twice = {f"mha_head_counted_twice/h{h}": right + heads[h] @ W_O.double()[h * d_k:(h + 1) * d_k, :]
             for h in sorted({0, n_heads - 1})}
    return {"mha_heads_overwritten": last @ W_O.double()[(n_heads - 1) * d_k:, :], **twice}


def unnormalised_entropy_replays(logits: torch.Tensor) -> dict:
    """entropy_probs_unnormalised (naming35, blind34 q4_probabilities_left_unnormalised): -log p weighted by exp of
    the logits never divided by its sum, log p from log_softmax, the logits themselves (log of the same exp), or
    exp of the logits less the row max (the stable shift without its division)."""
    log_p = torch.log_softmax(logits, dim=-1)
    e = torch.exp(logits)
    shifted = torch.exp(logits - logits.amax(dim=-1, keepdim=True))
    return {"entropy_probs_unnormalised": -(e * log_p).sum(dim=-1),
            "entropy_probs_unnormalised/log_of_exp": -(e * logits).sum(dim=-1),
            "entropy_probs_unnormalised/shifted": -(shifted * log_p).sum(dim=-1)}


def entropy_sum_axis_variants(logits: torch.Tensor) -> dict:
    """softmax_sum_wrong_axis in a hand-written softmax: e = exp(logits - the row's max) divided by its sum over
    another axis than the last (e / e.sum(0), numpy's axis=0), the entropy summed over the row. Not a softmax
    over that axis (the row max does not cancel there: that one is entropy_wrong_dim). Dropped where equal to
    the right entropy (1-D logits)."""
    out = {}
    e = torch.exp(logits - logits.amax(dim=-1, keepdim=True))
    right = ref.softmax_entropy(logits)
    for d in range(logits.dim() - 1):
        p = e / e.sum(dim=d, keepdim=True)
        H = -(p * torch.log(p)).sum(dim=-1)
        if not torch.allclose(H, right, rtol=1e-9, atol=1e-12):
            out[f"softmax_sum_wrong_axis/dim{d}"] = H
    return out


ENTROPY_2D_PROBE = torch.tensor([[0.3, -1.2, 2.1, 0.7], [1.6, 0.4, -0.9, 2.5], [-0.5, 1.9, 0.2, -1.4]])


def implicit_dim_confirmed(fn, m: Misconception, what: str) -> AssertionError:
    """softmax_implicit_dim is named by numbers on 3-D logits, where dim 0 is the implicit dim; on expanded
    logits (equal batch entries) any normalisation over dim 0 gives 1 / B, a hand-written e / e.sum(0) too. A
    second call on 2-D logits (reference-free of the batch) tells them apart: F.softmax without dim is right
    there (dim 1 is the last), e / e.sum(0) is softmax_sum_wrong_axis's replay. Anything else: what differs."""
    if m.key != "softmax_implicit_dim":
        return m
    try:
        got = fn(ENTROPY_2D_PROBE.clone())
    except Exception:  # noqa: BLE001 - a second call is only evidence
        got = None
    if type(got) is not torch.Tensor:
        return m
    probe = ENTROPY_2D_PROBE.double()
    if matching_variants(got, {"right": ref.softmax_entropy(probe)}, torch.float32):
        return m
    if matching_variants(got, entropy_sum_axis_variants(probe), torch.float32):
        return Misconception("softmax_sum_wrong_axis", f"{what} is wrong: on these logits (equal batch entries) it "
                             "matches normalising over dim 0, and on 2-D logits it matches the exponentials divided "
                             "by their sum down the columns (dim 0) after the row max is subtracted: "
                             + describe("softmax_sum_wrong_axis"))
    return AssertionError(f"{what} is wrong: on these logits (equal batch entries) it matches normalising over dim 0 "
                          "(the batch) instead of the last dim, and it is wrong on 2-D logits too: each row's "
                          "probabilities must be normalised along dim=-1")


KEY_COUNTS = tuple(n for n in range(2, 17) if n != 5)


def _table_with_keys(dims, seed, n):
    """The lesson's table with n keys drawn (k = torch.randn(n, d)) instead of five, float32 (rows, 4)."""
    rows = []
    for d in dims:
        g = torch.Generator().manual_seed(seed)
        q, k = torch.randn(1, d, generator=g), torch.randn(n, d, generator=g)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        rows.append([raw.std().item(), scaled.std().item(), float(ref.softmax_entropy(raw.double())),
                     float(ref.softmax_entropy(scaled.double()))])
    return torch.tensor(rows, dtype=torch.float64)


def raise_if_key_count(table, expected, dims, seed) -> None:
    """table_key_count when the whole table is the lesson's with another number of keys drawn (2 to 16 but
    5), the same seed: exactly one count matches in every entry (each count draws other numbers after the
    query, so no two counts give the same table)."""
    raise_if_reseeded_between_draws(table, expected, dims, seed)    # another draw of the same seed
    raise_if_one_draw(table, expected, dims, seed)
    if type(table) is not torch.Tensor or tuple(table.shape) != tuple(expected.shape) or table.shape[1] != 4:
        return
    hits = [n for n in KEY_COUNTS if matching_variants(table.double(), {"v": _table_with_keys(dims, seed, n)},
                                                      torch.float32)]
    if len(hits) == 1:
        raise Misconception("table_key_count", f"the entropy table is the lesson's with {hits[0]} keys drawn (k = "
                            f"torch.randn({hits[0]}, d)) instead of 5: " + describe("table_key_count"))


def scale_passed_variants(X, W_Q, W_K, W_V, W_O, n_heads):
    """Each head's attention given sqrt(d_k) for its d_k argument (attention takes the square root itself, so
    the scores are divided by d_k ** 0.25): mha_d_k_passed_as_sqrt. Dropped where d_k ** 0.25 = 1."""
    d_k = X.shape[-1] // n_heads
    if d_k <= 1:
        return {}
    Q, K, V = (X.double() @ W.double() for W in (W_Q, W_K, W_V))
    heads = [ref.attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k], V[:, h * d_k:(h + 1) * d_k],
                           math.sqrt(d_k))[0] for h in range(n_heads)]
    return {"mha_d_k_passed_as_sqrt": torch.cat(heads, dim=-1) @ W_O.double()}


def values_not_split(fn, e, said, X, Ws, n_heads):
    """Torch's (T x n_heads d_model) @ (d_model x d_model): every head's output is d_model wide. A second call
    with a W_O of n_heads d_model rows must give the heads of split Q and K and the full-width V, concatenated,
    times it, and not the heads of an unsplit Q, K, V (each head a full-width attention, the other cause of
    the same shape): mha_values_not_split."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    W_O = torch.randn((n_heads * d_model, d_model), generator=torch.Generator().manual_seed(1), dtype=X.dtype)
    try:
        again = fn(X, Ws[0], Ws[1], Ws[2], W_O, n_heads)
    except StudentCodeError:
        return None
    Q, K, V = (X.double() @ W.double() for W in Ws[:3])
    split = torch.cat([ref.attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k], V, d_k)[0]
                       for h in range(n_heads)], dim=-1) @ W_O.double()
    full = torch.cat([ref.attention(Q, K, V, d_k)[0]] * n_heads, dim=-1) @ W_O.double()
    if type(again) is not torch.Tensor or not matching_variants(again, {"v": split}, X.dtype) \
            or matching_variants(again, {"v": full}, X.dtype):
        return None
    return Misconception("mha_values_not_split", f"your code raised {e.exc_type}: {said}: {n_heads} heads of width "
                         f"{d_model} concatenated; given a W_O of {n_heads * d_model} rows it runs, and each head is "
                         f"attention(Q_h, K_h, V) with the full-width V: " + describe("mha_values_not_split"))


def head_slice_short(fn, e, said, X, Ws, n_heads, w):
    """Torch's (T x n_heads w) @ (d_model x d_model), w < d_k: every head w columns wide. A second call with a
    W_O of n_heads w rows must give the heads of the columns h d_k + o to h d_k + o + w (o = 0: the end one
    short, slice(h * d_k, (h + 1) * d_k - 1); o = d_k - w: the start moved), exactly one o, attention scaled by
    d_k or by w, concatenated times it: mha_head_slice_short."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    W_O = torch.randn((n_heads * w, d_model), generator=torch.Generator().manual_seed(1), dtype=X.dtype)
    try:
        again = fn(X, Ws[0], Ws[1], Ws[2], W_O, n_heads)
    except StudentCodeError:
        return None
    if type(again) is not torch.Tensor:
        return None
    Q, K, V = (X.double() @ W.double() for W in Ws[:3])
    hits = set()
    for o in {0, d_k - w}:
        for scale in {d_k, w}:
            cs = [slice(h * d_k + o, h * d_k + o + w) for h in range(n_heads)]
            heads = torch.cat([ref.attention(Q[:, c], K[:, c], V[:, c], scale)[0] for c in cs], dim=-1)
            if matching_variants(again, {"v": heads @ W_O.double()}, X.dtype):
                hits.add(o)
    if len(hits) != 1:
        return None
    o = hits.pop()
    if o == 0 and w == n_heads and w != d_k - 1:   # naming84: a width that is the head count (end = start +
        return None                                 # n_heads), not an end one short: left to the one-edit search
    where = f"slice(h * d_k, h * d_k + {w})" if o == 0 else f"slice(h * d_k + {o}, (h + 1) * d_k)"
    return Misconception("mha_head_slice_short", f"your code raised {e.exc_type}: {said}: {n_heads} heads of width "
                         f"{w} where d_k = {d_k}; given a W_O of {n_heads * w} rows it runs, and head h is the columns "
                         f"{where}: " + describe("mha_head_slice_short"))


# --- the generator not used (issue 21, eighth round) ----------------------------------------------------

def _closed_forms(d_k):
    """Numbers a function that draws nothing returns (the formula itself): not an estimate from any draws."""
    r = math.sqrt(d_k)
    return (0.0, 1.0, float(d_k), r, 1.0 / d_k, 1.0 / r, 2.0 * d_k, float(d_k) ** 2)


def raise_if_nan_variance(value, what) -> None:
    """A NaN estimate, said in words (named nothing): the draws are standard normals, so a NaN variance is one
    of fewer than two numbers (torch's var divides by n - 1): the dots reduced to one number, as torch.dot of
    the flattened draws or (q * k).sum() without a dim does (summed over the samples as well), but also one
    pair drawn alone (n_samples unused), which gives the same NaN on every input: no second call tells them
    apart, so dots_summed_over_samples is not named here."""
    if type(value) is torch.Tensor and value.numel() == 1 and value.is_floating_point():
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        named = einsum_implicit_nan(what)   # naming61: an einsum with no '->' in the source
        if named is not None:
            raise named
        raise AssertionError(f"{what} is NaN, not a finite number. A variance is NaN when it is taken of a single "
                             "number (torch's var divides by n - 1): check that the dot products are n_samples "
                             "numbers, each pair's products summed over its d_k coordinates only ((q * k).sum(dim=-1)), "
                             "not one number (torch.dot of flattened draws, or a sum without dim), and that "
                             "the variance is taken across the n_samples dots (dots.var(), or dim=0 of an "
                             "(n_samples, 1) column), not along an axis of one number each (var(dim=1) of "
                             "(n_samples, 1) dots kept with keepdim=True)")


def raise_if_generator_unused(fn, d_k, n, seeds, value, scaled) -> None:
    """Two different generators gave the same value (the caller saw a == b): two more calls, on generators
    seeded seeds[0] and seeds[1] again, give that same value once more, so the result does not depend on the
    generator's seed: ignores_generator (the samples drawn from the global RNG seeded inside, a new
    torch.Generator, numpy, or the generator re-seeded inside; the sandbox hands the function a copy of the
    generator, so its state after the call cannot tell these apart, and the key's text names them all).
    A value that is a closed form of d_k (no draws at all) is left to the caller, but for 0.0 without the flag
    (raise_if_zero_unscaled)."""
    if value == 0.0:
        raise_if_generator_read_twice(d_k, seeds, scaled)   # naming72
    if value == 0.0 and not scaled:
        raise_if_zero_unscaled(fn, d_k, n, seeds)
    if any(abs(value - c) <= 1e-12 * max(1.0, abs(c)) for c in _closed_forms(d_k)):
        return
    try:
        vals = [float(fn(d_k, n, torch.Generator().manual_seed(s), scaled=scaled)) for s in seeds]
    except Exception:   # noqa: BLE001 - a second call is only evidence
        return
    if vals[0] != value or vals[1] != value:
        return
    flag = " with scaled=True" if scaled else ""
    raise Misconception("ignores_generator", f"dot_product_variance(d_k={d_k}, ...){flag} gives {value:.6g} for "
                        f"generators seeded {seeds[0]} and {seeds[1]}, and the same again on a second call: the result "
                        "does not depend on the generator's seed: " + describe("ignores_generator"))


_ITERATOR_CALLS = frozenset({"map", "filter", "zip", "iter", "reversed", "enumerate"})


def generator_read_twice(func) -> str | None:
    """The name of dot_product_variance's local that is assigned a generator expression (or map/filter/zip/iter/
    reversed/enumerate: a one-pass iterator) once and read in two or more places, or None (bounded: one function
    of a cell under _READ_LIMIT characters)."""
    import ast
    if func is None:
        return None
    made: dict[str, int] = {}
    loads: dict[str, int] = {}
    for node in ast.walk(func):
        if isinstance(node, ast.Assign):
            one_pass = isinstance(node.value, ast.GeneratorExp) or (
                isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
                and node.value.func.id in _ITERATOR_CALLS)
            for t in node.targets:
                if isinstance(t, ast.Name):
                    made[t.id] = made.get(t.id, 0) + (1 if one_pass else 2)   # assigned anything else: not counted
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            loads[node.id] = loads.get(node.id, 0) + 1
    found = [name for name, count in made.items() if count == 1 and loads.get(name, 0) >= 2]
    twice = read_twice_on_one_path(func, found) if found else set()     # not once in each arm of an if (rt134)
    found = [name for name in found if name in twice]
    return found[0] if found else None


def raise_if_generator_read_twice(d_k, seeds, scaled) -> None:
    """generator_read_twice (naming72, blind72 q2_dots_generator_read_again_for_deviations): exactly 0.0 from two
    generators, and the source keeps the samples in a one-pass iterator it reads twice (the mean's sum uses it up:
    the deviations' sum over nothing is 0)."""
    name = generator_read_twice(_function_read(None, "dot_product_variance"))
    if name is None:
        return
    flag = " with scaled=True" if scaled else ""
    raise Misconception("generator_read_twice", f"dot_product_variance(d_k={d_k}, ...){flag} returns exactly 0.0 for "
                        f"generators seeded {seeds[0]} and {seeds[1]}, and your code reads `{ascii(name)[1:-1]}`, a "
                        "generator (one pass only), in two places: " + describe("generator_read_twice"))


def raise_if_zero_unscaled(fn, d_k, n, seeds) -> None:
    """Exactly 0.0 from two generators with scaled=False: no estimate from draws is 0, the dot products were all
    made 0 (or one number). scaled_flag_as_factor (naming31, blind28 q2_flag_multiplies_scale_factor) only when the
    flag is proven a multiplier (naming32): with scaled=True the same generator gives the right scaled estimate,
    and with scaled=2 (replayed) four times it (the flag times the 1/sqrt(d_k) factor; a branch on the flag,
    blind26's `dots /= math.sqrt(d_k) if scaled else dots`, gives the right one there, its False branch dots / dots,
    all ones). With only the scaled=True replay right: unscaled_variance_zero (naming34, blind33's
    `dot / math.sqrt(d_k) if scaled else 1`). Else said in words, not as a generator unused."""
    said = (f"dot_product_variance(d_k={d_k}, ...) returns exactly 0.0 for generators seeded {seeds[0]} and "
            f"{seeds[1]}: a variance of 0 means the numbers it is taken of are all equal")

    def replay(flag):
        try:
            return float(fn(d_k, n, torch.Generator().manual_seed(seeds[0]), scaled=flag))
        except Exception:   # noqa: BLE001 - a second call is only evidence
            return None

    def near(v, r):
        return v is not None and abs(v - r) <= 2e-5 * max(abs(r), 1e-12)

    right, _ = variance_variants(d_k, n, seeds[0], True)
    other = replay(True)
    scaled_right = any(near(other, r) for r in right)
    if scaled_right and any(near(replay(2), 4.0 * r) for r in right):
        raise Misconception("scaled_flag_as_factor", f"{said} (multiplied by 0), while with scaled=True the same "
                            f"generator gives the right scaled variance {other:.4g} (and scaled=2 four times it: the "
                            "flag multiplies the dots): " + describe("scaled_flag_as_factor"))
    if scaled_right:   # unscaled_variance_zero (naming34): a second call proves only the unscaled path wrong
        raise Misconception("unscaled_variance_zero", f"{said}: with scaled=True the same generator gives the right "
                            f"scaled variance {other:.4g}, so only the unscaled path makes every dot product the same "
                            "number (1 from `dot / math.sqrt(d_k) if scaled else 1`, or each divided by itself); with "
                            "scaled=False they must stay the n_samples plain sums of q_i k_i, whose variance is about "
                            "d_k: " + describe("unscaled_variance_zero"))
    raise AssertionError(f"{said} (the dot products multiplied by 0 or made a constant, or a variance over an axis "
                         "of one number each): with scaled=False they are the n_samples plain sums of q_i k_i, whose "
                         "variance is about d_k")


# --- blind13's kinds (issue 21, naming14) -------------------------------------------------------------------

def softmax_axis_variants(Q, K, V, d_k, right):
    """{key: (output, weights)} of a softmax with one of its two steps along the wrong axis: the stability shift
    by each column's max (over the queries) with the row sums, or the row's max with the column sums. Dropped
    when equal to the right pair on these inputs."""
    S = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    out = {}
    for key, shift, total in (("softmax_shift_wrong_axis", -2, -1), ("softmax_sum_wrong_axis", -1, -2)):
        e = torch.exp(S - S.amax(dim=shift, keepdim=True))
        w = e / e.sum(dim=total, keepdim=True)
        if tuple(w.shape) == tuple(right[1].shape) and torch.allclose(w, right[1], rtol=1e-9, atol=1e-12):
            continue
        out[key] = (w @ V, w)
    return out


@functools.lru_cache(maxsize=8)
def variance_variants(d_k, n, seed, scaled):
    """reference.variance_variants, kept for the few calls of one failure (q2's replay and the precedence probe)."""
    return ref.variance_variants(d_k, n, seed, scaled)


def precedence_variance(v, d_k, n, seed, scaled) -> float | None:
    """The right estimate on the same generator that `v` is minus 1 (sum / n - 1, with n or n - 1), or None."""
    right, _ = variance_variants(d_k, n, seed, scaled)
    for r in right:
        for slip in (r - 1.0, r * (n - 1) / n - 1.0):
            if abs(v - slip) <= 2e-5 * max(abs(r), 1e-12):
                return r
    return None


def raise_if_precedence(v, d_k, n, seed, scaled) -> None:
    r = precedence_variance(v, d_k, n, seed, scaled)
    if r is not None:
        raise Misconception("variance_precedence", f"for d_k = {d_k}{' with scaled=True' if scaled else ''} the result "
                            f"{v:.6g} is the variance of the same draws ({r:.6g}) minus 1: "
                            + describe("variance_precedence"))


_KEYS_NOT_STRINGS = "only dicts with string keys"
_KEYS_SHOWN = re.compile(r"only dicts with string keys can be returned \(keys: ([^)]*)\)")


def raise_if_table_container(e, dims=None) -> None:
    """The table came back as a dict whose keys are not strings (the grader cannot read it back). The
    sandbox's refusal lists number keys: exactly the d's passed, in the order of dims, names
    table_keyed_by_d (the container is the evidence: the rows never come back, and no other mistake
    gives those keys); other keys are only said, with what to return instead."""
    text = f"{e.message or ''} {e}"
    if _KEYS_NOT_STRINGS not in text:
        return
    shown = _KEYS_SHOWN.search(text)
    keys = shown.group(1) if shown else ""
    if dims is not None and keys == ", ".join(repr(int(d)) for d in dims):
        raise Misconception("table_keyed_by_d", f"entropy_table returned a dict keyed by d (its keys are the dims "
                            f"passed, {keys}), which the grader cannot read: " + describe("table_keyed_by_d")) from None
    said = f"the keys {keys}" if keys else "keys that are not strings (a dict keyed by d, such as {4: {...}, 16: {...}}?)"
    raise AssertionError(f"entropy_table returned a dict with {said}, which the grader cannot read: return a list of row dicts, one "
                         "per d in dims and in the order of dims, e.g. [{'d': 4, 'raw_std': ..., 'scaled_std': ..., "
                         "'H_raw': ..., 'H_scaled': ...}, ...]") from None


def features_as_tokens_variants(X, W_Q, W_K, W_V, W_O, n_heads):
    """{mha_heads_features_as_tokens/<scale>: output}: the heads split as (n_heads, d_k, T) (permute(1, 2, 0)),
    each head's attention over its d_k features, scaled by sqrt(d_k) or sqrt(T), put back with permute(2, 0, 1)."""
    T, d_model = X.shape[-2], X.shape[-1]
    if X.dim() != 2 or n_heads < 1 or d_model % n_heads:
        return {}
    d_k = d_model // n_heads

    def split(W):
        return (X @ W).reshape(T, n_heads, d_k).permute(1, 2, 0)

    Qh, Kh, Vh = split(W_Q), split(W_K), split(W_V)
    out = {}
    for tag, c in (("d_k", d_k), ("T", T)) if T != d_k else (("d_k", d_k),):
        w = torch.softmax(Qh @ Kh.transpose(-2, -1) / math.sqrt(c), dim=-1)
        out[f"mha_heads_features_as_tokens/{tag}"] = (w @ Vh).permute(2, 0, 1).reshape(T, d_model) @ W_O
    return out


def batched_split_variants(X, W_Q, W_K, W_V, W_O, n_heads):
    """{mha_heads_features_as_tokens/per_token_<scale>: output}: the batched split view(B, T, h, d_k).transpose(1, 2)
    copied onto a 2-D X, view(T, n_heads, d_k).transpose(1, 2), (T, d_k, n_heads): each token attends over its own
    d_k features (the heads as their coordinates), scaled by sqrt(d_k) or by sqrt(k.size(-1)) = sqrt(n_heads),
    merged back by .transpose(1, 2).reshape(T, d_model) (blind22)."""
    T, d_model = X.shape[-2], X.shape[-1]
    if X.dim() != 2 or n_heads < 2 or d_model % n_heads:
        return {}
    d_k = d_model // n_heads

    def split(W):
        return (X @ W).reshape(T, n_heads, d_k).transpose(1, 2)

    Qh, Kh, Vh = split(W_Q), split(W_K), split(W_V)
    out = {}
    for tag, c in (("d_k", d_k), ("n_heads", n_heads)) if n_heads != d_k else (("d_k", d_k),):
        w = torch.softmax(Qh @ Kh.transpose(-2, -1) / math.sqrt(c), dim=-1)
        out[f"mha_heads_features_as_tokens/per_token_{tag}"] = (w @ Vh).transpose(1, 2).reshape(T, d_model) @ W_O
    return out


def split_view_variants(X, W_Q, W_K, W_V, W_O, n_heads):
    """{mha_split_without_transpose/<roles>[_keys_as_kt]: output}: some of Q, K, V split by a view straight to
    (n_heads, T, d_k), no transpose (the others split right), or the keys viewed straight to (n_heads, d_k, T) and
    used as each head's K^T (blind24); the heads merged back the right way. With n_heads >= 2 and random weights
    each scrambles the tokens across heads, so none equals the right output (nor another of them)."""
    import itertools
    T, d_model = X.shape[-2], X.shape[-1]
    if X.dim() != 2 or n_heads < 2 or d_model % n_heads:
        return {}
    d_k = d_model // n_heads
    proj = {r: X.double() @ W.double() for r, W in zip("qkv", (W_Q, W_K, W_V))}
    out = {}
    for n in (1, 2, 3):
        for roles in itertools.combinations("qkv", n):
            h = {r: proj[r].reshape(n_heads, T, d_k) if r in roles else proj[r].reshape(T, n_heads, d_k).transpose(0, 1)
                 for r in "qkv"}
            kts = {"": h["k"].transpose(-2, -1)}
            if "k" in roles:
                kts["_keys_as_kt"] = proj["k"].reshape(n_heads, d_k, T)
            for tag, kt in kts.items():
                w = torch.softmax(h["q"] @ kt / math.sqrt(d_k), dim=-1)
                name = "".join(roles) if tag == "" else "".join(r for r in roles if r != "k") or "k"
                out[f"mha_split_without_transpose/{name}{tag}"] = \
                    (w @ h["v"]).transpose(0, 1).reshape(T, d_model) @ W_O.double()
    return out


def numpy_scalar(value) -> float | None:
    """The number a NumPy scalar holds (numpy.float32 from .numpy().var(), numpy.float64 from np.mean, ...), read
    like a one-element tensor's .item(); None for anything else."""
    if type(value).__module__ != "numpy" or isinstance(value, (int, float)) \
            or not callable(getattr(value, "item", None)) or getattr(value, "shape", None) != ():
        return None   # numpy.float64 is a Python float (a subclass): nothing to charge
    number = value.item()
    return float(number) if isinstance(number, (int, float)) and not isinstance(number, bool) else None


def raise_if_numpy_scalar(value, what: str) -> None:
    """A NumPy scalar where a Python float is asked: its type is the evidence (the value is judged apart)."""
    if numpy_scalar(value) is not None:
        kind = "a 0-d NumPy array (.numpy() of a one-element tensor)" if type(value).__name__ == "ndarray" \
            else "a NumPy scalar"
        raise Misconception("returns_tensor_not_number", f"{what} returns numpy.{type(value).__name__}, {kind}, not a "
                            "Python float: " + describe("returns_tensor_not_number"))


# --- blind14's kinds (issue 21, naming15) -------------------------------------------------------------------

def raise_if_output_averaged(got, weights, right, T_k, dtype) -> None:
    """values_averaged_over_keys: the weights right and the output exactly the right one divided by T_k (the
    weighted value rows averaged, .mean over the keys, where weights @ V sums them). Not named when T_k is 1
    (the same output) nor when T_k equals sqrt(d_k)-like factors the caller already tried (its variants come
    first); any other constant factor is said, not named."""
    if type(got) is not torch.Tensor or type(weights) is not torch.Tensor or T_k < 2 \
            or tuple(got.shape) != tuple(right[0].shape) or not got.is_floating_point():
        return
    if not matching_variants(weights, {"right": right[1]}, dtype):
        return
    if matching_variants(got, {"v": right[0] / T_k}, dtype):
        raise Misconception("values_averaged_over_keys", f"the weights are right and the output is the right one "
                            f"divided by T_k = {T_k}, the number of keys: " + describe("values_averaged_over_keys"))
    den = float((got.double() * right[0]).sum())
    if den != 0.0:
        c = float((right[0] * right[0]).sum()) / den
        if abs(c - 1) > 1e-3 and matching_variants(got, {"v": right[0] / c}, dtype):
            raise AssertionError(f"the weights are right and the output is the right one divided by a constant "
                                 f"{c:.4g} (T_k = {T_k}): the output is weights @ V, with nothing divided after it")


def raise_if_summed_over_queries(got, weights, right, V, dtype) -> None:
    """output_keeps_key_axis (sdpa's text): the weights right and the output exactly the broadcast mix
    (weights[..., None] * V[None]) summed over the queries (dim 0) instead of the keys, replayed on this input:
    (T_k, d_v), row j is V[j] times key j's total weight over every query. Not when that replay equals the right
    output or the transposed mix A^T V (output_uses_weights_transposed) on this input."""
    if type(got) is not torch.Tensor or type(weights) is not torch.Tensor or not got.is_floating_point() \
            or weights.dim() != 2 or not matching_variants(weights, {"right": right[1]}, dtype):
        return
    V64 = V.double()
    replay = right[1].sum(dim=0)[:, None] * V64
    others = [right[0]] + ([right[1].T @ V64] if right[1].shape[0] == V64.shape[0] else [])
    if tuple(got.shape) != tuple(replay.shape) or any(
            tuple(other.shape) == tuple(replay.shape) and matching_variants(replay, {"o": other}, dtype)
            for other in others):
        return
    if matching_variants(got, {"v": replay}, dtype):
        T_q, T_k = right[1].shape
        raise Misconception("output_keeps_key_axis", f"the weights are right, and the output, {tuple(got.shape)}, is "
                            f"the broadcast mix weights[:, :, None] * V[None] summed over the {T_q} queries (dim 0) "
                            f"instead of the {T_k} keys (dim 1): row j is value row j times key j's total weight: "
                            + describe("output_keeps_key_axis"))


def transformed_dots_variants(d_k, n, seed, scaled) -> dict[str, float]:
    """{key: value} of a statistic of a transformed dot product, replayed on a generator seeded as the student's
    (the same q and k): the cosine similarity (q.k / |q||k|, variance about 1/d_k) and |q.k| (variance
    (1 - 2/pi) d_k) and (sum q)(sum k) (variance about d_k^2), and q.k with its first or last coordinate left out
    (variance about d_k - 1), and the cosine similarity times norms taken without dim (the whole (n, d_k)
    matrices', about sqrt(n d_k) each: both, or one beside the other's row norms), each then divided by sqrt(d_k)
    when scaled, float32 and float64 draws."""
    out = {}
    for dtype in (torch.float32, torch.float64):
        g = torch.Generator().manual_seed(seed)
        q = torch.randn(n, d_k, generator=g, dtype=dtype)
        k = torch.randn(n, d_k, generator=g, dtype=dtype)
        s = math.sqrt(d_k) if scaled else 1.0
        tag = "" if dtype == torch.float32 else "/float64"
        out["dots_cosine_similarity" + tag] = float((torch.nn.functional.cosine_similarity(q, k, dim=-1) / s).var())
        out["dots_absolute_value" + tag] = float((torch.abs((q * k).sum(dim=1)) / s).var())
        out["dots_product_of_sums" + tag] = float((q.sum(dim=1) * k.sum(dim=1) / s).var())   # blind34
        # blind42: the cosine times q.norm() and k.norm() without dim (the whole matrices' norms), or one of them
        cos = torch.nn.functional.cosine_similarity(q, k, dim=-1)
        rows_q, rows_k, all_q, all_k = q.norm(dim=-1), k.norm(dim=-1), q.norm(), k.norm()
        for how, factor in (("both", all_q * all_k), ("q", all_q * rows_k), ("k", rows_q * all_k)):
            out[f"dots_cosine_times_matrix_norms/{how}" + tag] = float((cos * factor / s).var())
        if d_k > 1:   # blind37: the first (range(1, d_k)) or the last (range(d_k - 1)) coordinate left out
            out["dot_product_coordinate_dropped/first" + tag] = float(((q * k)[:, 1:].sum(dim=1) / s).var())
            out["dot_product_coordinate_dropped/last" + tag] = float(((q * k)[:, :-1].sum(dim=1) / s).var())
            for form, (qz, kz) in _standardised_per_vector(q, k).items():   # naming46, blind45
                out[f"draws_standardised_per_vector/{form}" + tag] = float(((qz * kz).sum(dim=1) / s).var())
    return out


def _standardised_per_vector(q, k) -> dict:
    """{form: (q, k)} with each vector (row) made mean 0 and std 1 along its OWN coordinates (dim=1): the unbiased
    std, the biased one (unbiased=False, correction=0), F.layer_norm without weights (biased, eps 1e-5), and the
    mean alone subtracted. Each takes a degree of freedom out of every vector, so Var(q.k) is about d_k - 1."""
    def z(x, unbiased):
        return (x - x.mean(dim=1, keepdim=True)) / x.std(dim=1, keepdim=True, unbiased=unbiased)
    d_k = q.shape[-1]
    return {"unbiased": (z(q, True), z(k, True)), "biased": (z(q, False), z(k, False)),
            "layer_norm": (torch.nn.functional.layer_norm(q, (d_k,)), torch.nn.functional.layer_norm(k, (d_k,))),
            "centred": (q - q.mean(dim=1, keepdim=True), k - k.mean(dim=1, keepdim=True))}


@functools.lru_cache(maxsize=8)
def _standardised_replays(d_k, n, seed, scaled) -> tuple[float, ...]:
    """The variances transformed_dots_variants gives as draws_standardised_per_vector (each form, float32 and float64
    draws), alone: what an estimate must equal before the whole catalogue is replayed to see no other mistake does."""
    s = math.sqrt(d_k) if scaled else 1.0
    out = []
    for dtype in (torch.float32, torch.float64):
        g = torch.Generator().manual_seed(seed)
        q = torch.randn(n, d_k, generator=g, dtype=dtype)
        k = torch.randn(n, d_k, generator=g, dtype=dtype)
        out += [float(((qz * kz).sum(dim=1) / s).var()) for qz, kz in _standardised_per_vector(q, k).values()]
    return tuple(out)


def raise_if_standardised_per_vector(estimates, d_k, n, scaled) -> None:
    """draws_standardised_per_vector (naming46, blind45 q2_draws_standardised_per_vector): estimates inside the 10%
    band (each vector z-scored along its own coordinates gives about d_k - 1, 8% low at d_k = 12, so a sample may
    land on either side of the band) that are both, to float32 rounding, the variance of the same generators' draws
    with every vector standardised per row (_standardised_per_vector), and neither the right draws' variance nor
    any other replayed mistake's. Both estimates, from two generators, must match (a right answer on other draws
    matches a replay to 2e-5 only by chance); outside the band q2's replay names it."""
    if d_k < 2:
        return

    def same(a, b):
        return abs(a - b) <= 2e-5 * max(abs(b), 1e-12)

    for v, seed in estimates:
        if right_draws_replayed(v, d_k, n, seed, scaled):    # a right estimate stops here, and any other that is
            return                                           # not a standardised replay, before the 50 replays
        if not any(same(v, x) for x in _standardised_replays(d_k, n, seed, scaled)):
            return
        _, wrong = variance_variants_all(d_k, n, seed, scaled)
        if {replay_key(key) for key, x in wrong.items() if same(v, x)} != {"draws_standardised_per_vector"}:
            return
    flag = " with scaled=True" if scaled else ""
    values = " and ".join(f"{v:.5g}" for v, _ in estimates)
    raise Misconception("draws_standardised_per_vector", f"dot_product_variance(d_k={d_k}, ...){flag} gives {values} "
                        "for two generators, exactly the variance their draws give when each vector is standardised "
                        f"along its own {d_k} coordinates (near {d_k - 1}{f' / {d_k}' if scaled else ''}, not "
                        f"{1 if scaled else d_k}): " + describe("draws_standardised_per_vector"))


def raise_if_mean_returned(estimates, d_k, n, scaled) -> None:
    """variance_mean_swapped: both estimates ((value, seed) pairs, two generators) are the mean of the dot
    products replayed on a generator seeded as the student's (float32 or float64 draws), to 1e-6 sqrt(d_k) (the
    mean is near 0, so the bound is absolute: a float32 sum of n dots in another order stays below it). The right
    variance is about d_k or 1, never that near a mean of size sqrt(d_k / n); a value that is a statistic of
    the mean (variance_of_the_mean, positive, about d_k / n) matches one seed's mean only by chance, not two."""
    if any(abs(v) > 0.5 for v, _ in estimates):     # a mean is about 0 (std sqrt(d_k / n) < 0.1): no replay
        return
    s = math.sqrt(d_k) if scaled else 1.0
    for v, seed in estimates:
        means = []
        for dtype in (torch.float32, torch.float64):
            g = torch.Generator().manual_seed(seed)
            q = torch.randn(n, d_k, generator=g, dtype=dtype)
            k = torch.randn(n, d_k, generator=g, dtype=dtype)
            means.append(float(((q * k).sum(-1) / s).mean()))
        if not any(abs(v - m) <= 1e-6 * math.sqrt(d_k) for m in means):
            return
    flag = " with scaled=True" if scaled else ""
    raise Misconception("variance_mean_swapped", f"dot_product_variance(d_k={d_k}, ...){flag} gives "
                        f"{estimates[0][0]:.3g} and {estimates[1][0]:.3g} for two generators: each the mean of the dot "
                        "products those generators' draws give, not their variance: " + describe("variance_mean_swapped"))


def _dropped_coordinate_replays(d_k, n, seed, scaled) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """(right, dropped): the variance of the dots drawn right from a generator seeded `seed`, and of the same dots
    with the first or the last coordinate left out (float32 and float64 draws), each divided by sqrt(d_k) when
    scaled."""
    replays = [_draw_replays(d_k, n, seed, scaled, dtype) for dtype in (torch.float32, torch.float64)]
    return tuple(r[0] for r in replays), tuple(x for r in replays for x in r[1:])


def raise_if_coordinate_dropped(estimates, d_k, n, scaled) -> None:
    """dot_product_coordinate_dropped (naming38, blind37 q2_coordinate_sum_from_one): estimates inside the 10% band
    (d_k - 1 terms give (d_k - 1) / d_k of the target, 8% low at d_k = 12) that are both, to float32 rounding, the
    variance of the same generators' draws with one coordinate (the first or the last) left out of every dot
    product, and not the right draws' variance nor any other replayed mistake's. A right answer on other draws
    matches one such replay to 2e-5 only by chance (about 1e-3 at d_k = 64, 1e-7 at 12), so both estimates, from
    two generators, must; a right answer on the same draws matches the right replay and is left alone."""
    if d_k < 2:
        return

    def same(a, b):
        return abs(a - b) <= 2e-5 * max(abs(b), 1e-12)

    for v, seed in estimates:
        if right_draws_replayed(v, d_k, n, seed, scaled):
            return
        _, dropped = _dropped_coordinate_replays(d_k, n, seed, scaled)
        if not any(same(v, x) for x in dropped):
            return
        _, wrong = variance_variants_all(d_k, n, seed, scaled)
        if {replay_key(key) for key, x in wrong.items() if same(v, x)} != {"dot_product_coordinate_dropped"}:
            return
    flag = " with scaled=True" if scaled else ""
    values = " and ".join(f"{v:.5g}" for v, _ in estimates)
    raise Misconception("dot_product_coordinate_dropped", f"each dot product leaves out one coordinate: "
                        f"dot_product_variance(d_k={d_k}, ...){flag} gives {values} for two generators, exactly the "
                        f"variance of their draws with {d_k - 1} of the {d_k} products q_i k_i summed (near the "
                        f"expected {1 if scaled else d_k}, but not it): " + describe("dot_product_coordinate_dropped"))


def raise_if_in_band_replayed(estimates, d_k, n, scaled, fn=None) -> None:
    """q2's checks of estimates inside the 10% band, in turn: a coordinate dropped, the draws standardised per
    vector, and (scaled, with `fn`) the scale checked against the unscaled result of the same draws."""
    raise_if_coordinate_dropped(estimates, d_k, n, scaled)
    raise_if_standardised_per_vector(estimates, d_k, n, scaled)
    if scaled and fn is not None:
        raise_if_scale_not_d_k(fn, estimates, d_k, n)


def _plain_number(value) -> float | None:
    """A Python number, a NumPy scalar or a one-element tensor read as a float; None for anything else."""
    if type(value) is torch.Tensor and value.numel() == 1 and value.is_floating_point():
        return float(value.item())
    number = numpy_scalar(value)
    if number is not None:
        return number
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def raise_if_scale_not_d_k(fn, estimates, d_k, n) -> None:
    """naming58 (blind58 q2_scale_with_bessel_d_k_minus_one): scaled estimates inside the 10% band checked exactly.
    For each (value, seed) the unscaled call on a generator seeded alike (the same draws), itself inside its band,
    must be d_k times the scaled value: a right estimator divides the same dots by sqrt(d_k), so the ratio is d_k to float rounding.
    Both ratios d_k - 1 (to 2e-5) name scale_d_k_minus_one (the n - 1 of the unbiased estimator carried over to
    the scale: d_k / (d_k - 1) is 1.09 at d_k = 12, inside the band); both the same other constant c (to 1e-6 of
    each other, more than 1e-3 from d_k) fail as a scale that is not sqrt(d_k). Anything else (a crash, draws that
    differ with the flag, so the ratios are random) says nothing. The unscaled calls are made even where both scaled
    estimates are right replays (round 129): a right scale with an unscaled result off by an in-band constant (v * 1.05)
    is seen only here, where that result meets the same draws' right scaled one."""
    ratios = []
    for v, seed in estimates:
        if not v or not math.isfinite(v):
            return
        try:
            plain = _plain_number(fn(d_k, n, torch.Generator().manual_seed(seed)))
        except Exception:  # noqa: BLE001 - a second call is only evidence
            return
        if plain is None or not abs(plain / d_k - 1) < 0.10:
            return   # the unscaled result wrong too (or not a number): its own test charges it
        ratios.append(plain / v)
    if len(ratios) < 2 or any(abs(r / d_k - 1) <= 1e-3 for r in ratios):
        return
    if all(right_draws_replayed(v, d_k, n, seed, True) for v, seed in estimates) and abs(ratios[0] / ratios[1] - 1) <= 1e-6:
        # the scale is right (each scaled value is its draws' right one): the unscaled result is what is off
        raise AssertionError(f"dot_product_variance(d_k={d_k}, ...) without the flag gives {ratios[0] / d_k:.6g} times "
                             "the variance of the dot products of the same generator's draws (the scaled result of the "
                             "same generator times d_k): the unscaled result is not that variance")
    values = " and ".join(f"{v:.5g}" for v, _ in estimates)
    if d_k > 2 and all(abs(r / (d_k - 1) - 1) <= 2e-5 for r in ratios):
        raise Misconception("scale_d_k_minus_one", f"with scaled=True, dot_product_variance(d_k={d_k}, ...) gives "
                            f"{values} for two generators, each exactly the unscaled result of the same generator "
                            f"divided by d_k - 1 = {d_k - 1}, not by d_k = {d_k} (near 1, {d_k / (d_k - 1):.3f}, "
                            "but not it): " + describe("scale_d_k_minus_one"))
    if abs(ratios[0] / ratios[1] - 1) <= 1e-6:
        raise AssertionError(f"with scaled=True, dot_product_variance(d_k={d_k}, ...) gives {values} for two "
                             "generators, each exactly the unscaled result of the same generator divided by "
                             f"{ratios[0]:.6g}, not by d_k = {d_k}: the dot products are divided by "
                             f"{math.sqrt(ratios[0]):.6g} where the scale is sqrt(d_k) = {math.sqrt(d_k):.6g}")


@functools.lru_cache(maxsize=8)
def variance_variants_all(d_k, n, seed, scaled):
    """variance_variants with the transformed dot products (transformed_dots_variants) among the mistakes."""
    right, wrong = variance_variants(d_k, n, seed, scaled)
    return right, {**wrong, **transformed_dots_variants(d_k, n, seed, scaled)}


@functools.lru_cache(maxsize=8)
def variance_variants_replayed(d_k, n, seed, scaled):
    """variance_variants_all with the draws of another distribution (other_distribution_variants) among the
    mistakes: q2's replay of a failed estimate only (trunc_normal_'s rejection sampling is too slow for the checks
    every right estimate goes through)."""
    right, wrong = variance_variants_all(d_k, n, seed, scaled)
    return right, {**wrong, **other_distribution_variants(d_k, n, seed, scaled),
                   **integer_dots_variants(d_k, n, seed, scaled), **pair_score_variants(d_k, n, seed, scaled),
                   **one_term_variants(d_k, n, seed, scaled)}


# --- naming48b: blind48's q2_draws_with_init_trunc_normal (draws that are not standard normals) ------------------

# (tag, draw(shape, generator, dtype)): q and k entries from another distribution than N(0, 1), each replayed from
# the generator exactly as the library draws it. trunc_normal_'s bounds a=-2, b=2 are absolute: with std=1 it is
# cut at two standard deviations (variance 0.774 per entry), with std=0.02 (timm's ViT init) it is a narrow normal
_OTHER_DISTRIBUTIONS = (
    ("draws_truncated_normal/std1", lambda shape, g, dt: torch.nn.init.trunc_normal_(
        torch.empty(shape, dtype=dt), std=1.0, generator=g)),
    ("draws_truncated_normal/std0.02", lambda shape, g, dt: torch.nn.init.trunc_normal_(
        torch.empty(shape, dtype=dt), std=0.02, generator=g)),
    ("uniform_samples/minus_one_to_one", lambda shape, g, dt: torch.empty(shape, dtype=dt).uniform_(
        -1.0, 1.0, generator=g)),
    ("uniform_samples/centred_half", lambda shape, g, dt: torch.rand(shape, generator=g, dtype=dt) - 0.5),
    # round 52 (blind52 q2_randn_rescaled_with_uniform_two_x_minus_one_idiom): rand's rescaling to [-1, 1) (or its
    # centring, - 0.5) applied to normal draws: mean -1, variance 4 (24 d_k); mean -0.5 (1.5 d_k)
    ("normals_rescaled_as_uniform/two_x_minus_one", lambda shape, g, dt: torch.randn(shape, generator=g, dtype=dt)
     * 2 - 1),
    ("normals_rescaled_as_uniform/centred_half", lambda shape, g, dt: torch.randn(shape, generator=g, dtype=dt)
     - 0.5),
)


def other_distribution_variants(d_k, n, seed, scaled) -> dict[str, float]:
    """{key/tag/layout: value}: the variance of the dot products of q and k drawn from another distribution than the
    standard normal (_OTHER_DISTRIBUTIONS: torch.nn.init.trunc_normal_ with its default absolute bounds, centred
    uniforms), replayed on a generator seeded as the student's: q then k as two (n, d_k) draws, one (2, n, d_k)
    draw split in two, or one (n, 2 d_k) draw split along the features; float32 and float64; the unbiased and the
    biased sample variance. A uniform of variance 1/3 or 1/12 is uniform_samples (its text: uniform numbers
    instead of standard normals); trunc_normal_'s rejection sampling draws per layout, so each layout is replayed."""
    out = {}
    s = math.sqrt(d_k) if scaled else 1.0
    for dtype in (torch.float32, torch.float64):
        tag = "" if dtype == torch.float32 else "/float64"
        for name, draw in _OTHER_DISTRIBUTIONS:
            g = torch.Generator().manual_seed(seed)
            q, k = draw((n, d_k), g, dtype), draw((n, d_k), g, dtype)
            g = torch.Generator().manual_seed(seed)
            stacked = draw((2, n, d_k), g, dtype)
            g = torch.Generator().manual_seed(seed)
            wide = draw((n, 2 * d_k), g, dtype)
            for layout, (a, b) in (("two_draws", (q, k)), ("one_draw", stacked),
                                   ("features_split", (wide[:, :d_k], wide[:, d_k:]))):
                dots = (a * b).sum(-1) / s
                out[f"{name}/{layout}{tag}"] = float(dots.var())
                out[f"{name}/{layout}/biased{tag}"] = float(dots.var(unbiased=False))   # a 1e-4 step: own replay
    return out


# --- naming29: the scale reaching the unscaled result (blind23's q2_in_place_scale_aliases_unscaled) -------

_INPLACE_SCALES = ("div_", "divide_", "true_divide_", "mul_", "multiply_")


def raise_if_scale_reaches_unscaled(fn, submission, d_k, n, seed, v) -> None:
    """With scaled=False the result `v` is the right scaled variance of the same draws (the replay of
    scaled_flag_inverted), and scaled=True on a generator seeded alike gives that same number, so the flag is
    not read the other way round: the division reaches both results. inplace_alias_overwritten when the
    function's source divides (or multiplies) in place (div_, mul_...); else a message that says what differs.
    A function that divides whatever the flag, out of place, gives the same numbers: only the source tells the
    two apart, so without an in-place scale in it nothing is named. First (naming69): a list of dots kept between
    calls (raise_if_dots_kept), before any value is read as another mistake's."""
    raise_if_dots_kept(fn, d_k, seed, False, submission)
    right, _ = variance_variants_all(d_k, n, seed, True)
    if not any(abs(v - r) <= 2e-5 * abs(r) for r in right):
        return
    try:
        again = fn(d_k, n, torch.Generator().manual_seed(seed), scaled=True)
    except Exception:  # noqa: BLE001 - a second call is only evidence
        return
    if isinstance(again, bool) or not isinstance(again, (int, float)) or abs(float(again) - v) > 2e-5 * abs(v):
        return
    said = (f"for d_k = {d_k} the result with scaled=False ({v:.4g}) is the variance of q.k / sqrt(d_k) of the same "
            "draws, the same number scaled=True gives (so the flag is read, not inverted): the division by "
            "sqrt(d_k) reaches the unscaled result too")
    from autograder.grading.source_checks import SourceUnreadable, cells_of, find_use
    try:
        use = find_use(cells_of(submission), "dot_product_variance", _INPLACE_SCALES) if submission else None
    except SourceUnreadable:
        use = None
    if use is not None:
        raise Misconception("inplace_alias_overwritten", f"{said}, and {use.describe()}: "
                            + describe("inplace_alias_overwritten"))
    filled = _option_filled_before_test(submission)   # naming82: `scale is not None` tested after it is filled
    if filled is not None:
        raise Misconception("option_filled_before_its_test", f"{said}: `{filled[0]}` fills {filled[2]} in before "
                            f"`{filled[1]}` tests it, so that test is always true: "
                            + describe("option_filled_before_its_test"))
    line = _scaled_never_read(submission)   # naming80: the flag never read, the division always runs
    if line is not None:
        raise Misconception("scale_applied_unconditionally", f"for d_k = {d_k} the result with scaled=False "
                            f"({v:.4g}) is the variance of q.k / sqrt(d_k) of the same draws, the same number "
                            "scaled=True gives, and your dot_product_variance never reads `scaled` while it divides "
                            f"(`{line}`): " + describe("scale_applied_unconditionally"))
    raise AssertionError(f"{said}: divide only the copy you return for scaled=True (dots / sqrt(d_k), not an "
                         "in-place div_ or /= on the tensor the unscaled branch returns)")


def entropy_temperature(fn, got, logits, dtype) -> Misconception | None:
    """entropy_with_temperature: the entropy of softmax(logits / sqrt(T)) (T the last dim) where that of
    softmax(logits) is asked, checked again on a second input of another T (10 logits in 2 rows: no test's T is
    10, so sqrt(10) differs from the first input's sqrt(T)), so a constant that happens to equal sqrt(T) on the first is not named."""
    T = logits.shape[-1]
    if type(got) is not torch.Tensor or T < 2:
        return None
    if not matching_variants(got, {"v": ref.softmax_entropy(logits.double() / math.sqrt(T))}, dtype):
        return None
    probe = torch.tensor([[0.4, -1.3, 2.2, 0.0, 1.1, -0.6, 3.0, 0.9, -2.1, 1.6],
                          [1.5, 0.2, -2.0, 0.8, -0.4, 2.6, 0.1, -1.1, 0.7, -0.3]])
    try:
        again = fn(probe.clone())
    except Exception:  # noqa: BLE001 - a second call is only evidence
        return None
    if type(again) is not torch.Tensor or not matching_variants(
            again, {"v": ref.softmax_entropy(probe.double() / math.sqrt(10))}, torch.float32):
        return None
    return Misconception("entropy_with_temperature", f"softmax_entropy's values are the entropies of softmax(logits "
                         f"/ sqrt({T})), T = {T} the number of logits per row, and again of logits / sqrt(10) for 10 "
                         "logits: " + describe("entropy_with_temperature"))


def _table_rows_at(dims, seed, reseed_between=False):
    """The lesson's table (rows, 4) at `dims`, float64; with reseed_between the seed is set again between the
    q and the k draws (k's first row then repeats q)."""
    rows = []
    for d in dims:
        g = torch.Generator().manual_seed(seed)
        q = torch.randn(1, d, generator=g)
        if reseed_between:
            g = torch.Generator().manual_seed(seed)
        k = torch.randn(5, d, generator=g)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        rows.append([raw.std().item(), scaled.std().item(), float(ref.softmax_entropy(raw.double())),
                     float(ref.softmax_entropy(scaled.double()))])
    return torch.tensor(rows, dtype=torch.float64)


def raise_if_reseeded_between_draws(table, expected, dims, seed) -> None:
    """table_seed_between_draws: the whole table equals the lesson's replayed with the seed set again between
    the q and the k draws (k's first row is q)."""
    if type(table) is not torch.Tensor or tuple(table.shape) != tuple(expected.shape):
        return
    if matching_variants(table.double(), {"v": _table_rows_at(dims, seed, reseed_between=True)}, torch.float32):
        raise Misconception("table_seed_between_draws", f"the entropy table is the lesson's with the seed ({seed}) set "
                            "again between the q and the k draws: " + describe("table_seed_between_draws"))


def _table_one_draw(dims, seed, q_last=False):
    """The lesson's table (rows, 4) at `dims`, float64, with q and k sliced from one torch.randn(6, d) call
    (q its first row, or with q_last its last)."""
    rows = []
    for d in dims:
        qk = torch.randn(6, d, generator=torch.Generator().manual_seed(seed))
        q, k = (qk[5:], qk[:5]) if q_last else (qk[:1], qk[1:])
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        rows.append([raw.std().item(), scaled.std().item(), float(ref.softmax_entropy(raw.double())),
                     float(ref.softmax_entropy(scaled.double()))])
    return torch.tensor(rows, dtype=torch.float64)


def _table_sliced_from_largest(dims, seed):
    """The lesson's table (rows, 4) at `dims`, float64, with q (1, max(dims)) and k (5, max(dims)) drawn once at
    the seed and their first d columns taken for each d."""
    g = torch.Generator().manual_seed(seed)
    q_all, k_all = torch.randn(1, max(dims), generator=g), torch.randn(5, max(dims), generator=g)
    rows = []
    for d in dims:
        raw = (q_all[:, :d] @ k_all[:, :d].T)[0]
        scaled = raw / d ** 0.5
        rows.append([raw.std().item(), scaled.std().item(), float(ref.softmax_entropy(raw.double())),
                     float(ref.softmax_entropy(scaled.double()))])
    return torch.tensor(rows, dtype=torch.float64)


def raise_if_rounded_or_sliced(table, expected, dims, seed) -> None:
    """Two replays of a wrong table, only after it failed: the right table rounded to k = 1..4 decimals
    (weights_rounded: returned rounded for a readable printout), or the lesson's table with q and k drawn once at
    max(dims) and sliced to d columns for each d (seed_outside_loop: one seed and one draw before the loop)."""
    if type(table) is not torch.Tensor or tuple(table.shape) != tuple(expected.shape) or table.shape[1] != 4:
        return
    got, right = table.double(), expected.double()
    for k in (1, 2, 3, 4):
        if matching_variants(got, {"v": right.round(decimals=k)}, torch.float32, expected=right):
            raise Misconception("weights_rounded", f"the entropy table is the right one rounded to {k} decimals: "
                                + describe("weights_rounded"))
    replay = _table_sliced_from_largest(dims, seed)
    if matching_variants(got, {"v": replay}, torch.float32, expected=right):
        raise Misconception("seed_outside_loop", f"the entropy table is the lesson's with q and k drawn once at d = "
                            f"{max(dims)} (seed {seed}) and their first d columns taken for each smaller d: "
                            + describe("seed_outside_loop") + " (seed and draw q (1, d), k (5, d) inside the loop)")
    raise_if_low_precision_table(table, expected, dims, seed)   # naming55: the draws in bfloat16 / float16


def raise_if_one_draw(table, expected, dims, seed) -> None:
    """table_one_draw: the whole table equals the lesson's replayed with q and k sliced from one randn(6, d) call
    of the same seed (q the first row or the last), where that replay is not the right table (for d a multiple
    of 16 torch's sampler gives the same numbers either way). Only one of the two readings may match."""
    if type(table) is not torch.Tensor or tuple(table.shape) != tuple(expected.shape) or table.shape[1] != 4:
        return
    right = _table_rows_at(dims, seed)
    hits = []
    for where, q_last in (("first", False), ("last", True)):
        replay = _table_one_draw(dims, seed, q_last)
        if not matching_variants(replay, {"right": right}, torch.float32) \
                and matching_variants(table.double(), {"v": replay}, torch.float32):
            hits.append((where, replay))
    if len(hits) != 1:
        return
    where, replay = hits[0]
    differ = [d for d, a, b in zip(dims, replay, right) if not torch.allclose(a, b, rtol=1e-5, atol=1e-6)]
    raise Misconception("table_one_draw", f"the entropy table is the lesson's with q and k sliced from one "
                        f"torch.randn(6, d) call of seed {seed} (q its {where} row): the rows for d = "
                        f"{', '.join(str(d) for d in differ)} differ from two separate draws: "
                        + describe("table_one_draw"))


def fails(thunk) -> bool:
    """Whether thunk() raises (q4's composition of the reference with the student's softmax_entropy)."""
    try:
        thunk()
    except Exception:  # noqa: BLE001 - any failure of the composition is the evidence sought
        return True
    return False


def _single_row_d(rows):
    """The d of a table of exactly one dict row, else None."""
    if not isinstance(rows, (list, tuple)) or len(rows) != 1 or not isinstance(rows[0], dict):
        return None
    try:
        return int(rows[0]["d"])
    except (KeyError, TypeError, ValueError):
        return None


def _row_values_right(rows, d, seed, entropy=None) -> bool:
    """The one row's values are the lesson's row at d and seed (with the student's softmax_entropy `entropy` as
    well as the reference's: a wrong entropy is charged by its own tests)."""
    try:
        got = torch.tensor([[float(rows[0][k]) for k in TABLE_COLUMNS]], dtype=torch.float64)
    except (KeyError, TypeError, ValueError):
        return False
    want = {"right": _table_rows_at([d], seed)}
    if entropy is not None:
        try:
            own = ref.table_as_tensor(ref.entropy_table((d,), seed, entropy=entropy))
        except Exception:  # noqa: BLE001 - the composition is only evidence
            own = None
        if type(own) is torch.Tensor and tuple(own.shape) == (1, 4):
            want["own"] = own.double()
    return bool(matching_variants(got, want, torch.float32))


def raise_if_first_row_only(rows, dims, seed, fn, entropy=None) -> None:
    """table_return_in_loop: the table holds the FIRST d's row alone, with its values right, and a second call
    with other dims (the last d first, then the first) again holds only ITS first d's row: the loop ends after one
    pass (a return indented into it, a break). A table with the last row alone, or any other part, is not named.
    `fn`: the student's entropy_table, called again at dims2 and the same seed."""
    dims = [int(d) for d in dims]
    if len(dims) < 2 or len(set(dims)) != len(dims) or _single_row_d(rows) != dims[0]:
        return
    if not _row_values_right(rows, dims[0], seed, entropy):
        return
    dims2 = [dims[-1], dims[0]]
    try:
        rows2 = call(fn, dims=tuple(dims2), seed=seed, what="entropy_table")
    except StudentCodeError:
        return
    if _single_row_d(rows2) != dims2[0] or not _row_values_right(rows2, dims2[0], seed, entropy):
        return
    raise Misconception("table_return_in_loop", f"the table has only the first d's row (d = {dims[0]}) of the dims "
                        f"asked for, {dims} (its values are right), and called with dims = {dims2} it has only the "
                        f"row for d = {dims2[0]}: " + describe("table_return_in_loop"))


def _rows_reordered_again(fn, got_dims, want, seed) -> Misconception | None:
    """table_rows_reordered (blind42's q4_table_dims_deduplicated_through_set): the table's rows, each the right
    row for its d, came in another order than `want` (not its reverse), and a second call with the dims reversed
    (same seed) again gives the right rows for those d's in an order that is not the one asked: the rows do not
    follow the dims' order (set(dims), a sort by another key). None when the second call does not show it."""
    dims2 = want[::-1]
    try:
        rows2 = call(fn, dims=tuple(dims2), seed=seed, what="entropy_table")
    except StudentCodeError:
        return None
    if not isinstance(rows2, (list, tuple)) or not all(isinstance(r, dict) for r in rows2):
        return None
    try:
        got2 = [int(r["d"]) for r in rows2]
        values2 = torch.tensor([[float(r[k]) for k in TABLE_COLUMNS] for r in rows2], dtype=torch.float64)
    except (KeyError, TypeError, ValueError):
        return None
    if sorted(got2) != sorted(dims2) or got2 == dims2 \
            or not matching_variants(values2, {"v": _table_rows_at(got2, seed)}, torch.float32):
        return None
    return Misconception("table_rows_reordered", f"the table's rows are for d = {got_dims}: the right rows for the "
                         f"dims asked for, {want}, in another order, and asked for dims = {dims2} they come as d = "
                         f"{got2}: " + describe("table_rows_reordered"))


def _table_len(fn, dims, seed) -> int | None:
    """How many rows the student's entropy_table returns at dims and seed, read at once (a list kept across calls
    grows later), None when it raises or returns no list."""
    try:
        rows = call(fn, dims=tuple(dims), seed=seed, what="entropy_table")
    except StudentCodeError:
        return None
    return len(rows) if isinstance(rows, (list, tuple)) else None


def _table_dims_fixed(fn, got_dims, want, seed) -> bool:
    """Whether a second call with other dims (none of them in the first table) returns rows for the same d's
    again, a hard-coded list (table_ignores_dims needs it since naming57: a list shared across calls also gives
    rows for other d's than asked, but they follow the dims)."""
    dims2 = [d for d in (3, 7, 10) if d not in got_dims and d not in want][:2]
    try:
        rows2 = call(fn, dims=tuple(dims2), seed=seed, what="entropy_table")
        return [int(r["d"]) for r in rows2] == got_dims
    except (StudentCodeError, KeyError, TypeError, ValueError):
        return False


def raise_if_rows_shared_across_calls(fn, got_dims, dims, seed, said) -> None:
    """state_shared_across_calls (naming57, blind57 q4_table_rows_list_created_once_at_cell_level): the table's
    rows end with the rows for the dims asked, after rows of earlier calls, and two more calls with the same
    dims and seed return len(dims) more rows each time: the list is made once outside the function (at cell
    level, a default argument rows=[]) and every call appends to it. A table that does not grow is not named."""
    want = [int(d) for d in dims]
    if not want or len(got_dims) <= len(want) or got_dims[-len(want):] != want:
        return
    first = _table_len(fn, want, seed)
    second = _table_len(fn, want, seed)
    if first is None or second is None or first < len(got_dims) or second - first != len(want):
        return
    raise Misconception("state_shared_across_calls", f"{said}: the rows of earlier calls come first, and two more "
                        f"calls with the same dims return {first} and then {second} rows, {len(want)} more each "
                        "time: " + describe("state_shared_across_calls"))


def raise_if_other_dims(rows, dims, seed, fn=None, entropy=None) -> None:
    """A table whose rows are for other d's than `dims` (a hard-coded list in the loop): the d's it holds are
    said, and table_ignores_dims named when its rows equal the lesson's table at those d's and the same seed.
    With `fn` (the student's entropy_table) and `entropy` (their softmax_entropy), a first row alone is first
    tried as a loop that stops after its first d (raise_if_first_row_only: a second call)."""
    if fn is not None:
        raise_if_first_row_only(rows, dims, seed, fn, entropy)
    if not isinstance(rows, (list, tuple)) or not rows or not all(isinstance(r, dict) for r in rows):
        return
    try:
        got_dims = [int(r["d"]) for r in rows]
    except (KeyError, TypeError, ValueError):
        return
    if got_dims == [int(d) for d in dims] or any(d < 1 or d > 4096 for d in got_dims):
        return
    raise_if_index_as_d(rows, dims)     # the positions 0, 1, ... of the dims: loop_index_as_d
    try:
        got = torch.tensor([[float(r[k]) for k in TABLE_COLUMNS] for r in rows], dtype=torch.float64)
    except (KeyError, TypeError, ValueError):
        return                          # a missing or misspelled key: the caller's checks say it
    raise_if_dims_one_based(got_dims, dims, got, seed)
    said = f"the table's rows are for d = {got_dims}, not for the dims asked for, {list(dims)}"
    if fn is not None:
        raise_if_rows_shared_across_calls(fn, got_dims, dims, seed, said)
    if set(got_dims) < {int(d) for d in dims}:   # a part of the dims' rows: not a list of other d's
        right = matching_variants(got, {"v": _table_rows_at(got_dims, seed)}, torch.float32)
        last = got_dims == [int(dims[-1])]
        only = "only the last d's row" if last else f"only the rows for d = {got_dims}"
        if len(got_dims) == len(dims) > 1 and len(set(got_dims)) == 1:   # naming65: every row there, one label
            raise AssertionError(f"the table has {len(dims)} rows, as many as the dims asked for, {list(dims)}, but "
                                 f"every row is labelled d = {got_dims[0]}: the rows are built, but their \"d\" (and "
                                 "whatever else reads that name) is not the loop's d of that row; check that the body "
                                 "reads the loop variable of this iteration")
        # the aside guesses the cause of a last row kept alone, and only there (a first row alone is a loop ended
        # early: raise_if_first_row_only names it when a second call shows it)
        raise AssertionError(f"the table has {only} of the dims asked for, {list(dims)}"
                             f"{' (its values are right)' if right else ''}: the rows for d = "
                             f"{[int(d) for d in dims if int(d) not in got_dims]} are missing. Build and append one "
                             "row per d inside the loop" + (" (an append after the loop keeps only the last row)"
                                                             if last else ", and return the table after the loop"))
    want = [int(d) for d in dims]
    if sorted(got_dims) == sorted(want):    # the dims asked for, in another order: they were not ignored
        if not matching_variants(got, {"v": _table_rows_at(got_dims, seed)}, torch.float32):
            return                          # other values too: the table checks that follow say what
        if got_dims == want[::-1]:
            raise Misconception("table_rows_reversed", f"the table's rows are for d = {got_dims}: the right rows "
                                f"for the dims asked for, {want}, in reverse order: " + describe("table_rows_reversed"))
        named = _rows_reordered_again(fn, got_dims, want, seed) if fn is not None else None
        if named is not None:
            raise named
        raise AssertionError(f"{said}: the right rows for those dims, in another order; build one row per d in "
                             "the order of the dims argument")
    if matching_variants(got, {"v": _table_rows_at(got_dims, seed)}, torch.float32) \
            and (fn is None or _table_dims_fixed(fn, got_dims, want, seed)):
        raise Misconception("table_ignores_dims", f"{said}, and they are the lesson's rows at those d's (seed "
                            f"{seed}): " + describe("table_ignores_dims"))
    if len(rows) != len(dims):
        raise AssertionError(said + ": loop over the dims argument")


# --- q4: the table's values that are tensors --------------------------------------------------------------
def tensor_values(rows) -> list[str]:
    """The keys of the table whose values are tensors (the notebook asks for Python numbers)."""
    if not isinstance(rows, (list, tuple)):
        return []
    return sorted({k for row in rows if isinstance(row, dict) for k, v in row.items() if type(v) is torch.Tensor})


def values_row_chunked(fn, e, X, Ws, n_heads):
    """Q and K cut into column blocks, V into n_heads blocks of rows (tokens) of the full width (V.chunk(n_heads)
    with chunk's default dim=0): head 0's (T, T) weights times V's first ceil(T / n_heads) rows raise torch's
    "(T x T and c x d_model)", replayed on the same input; a second call on X with T2 tokens (c2 = ceil(T2 /
    n_heads) not c, d_k nor T2) must raise it again, so that a fixed slice (V[:c], or d_k rows) is not named:
    mha_head_rows_sliced (the rows of V instead of its columns)."""
    T, d_model = X.shape
    d_k = d_model // n_heads
    if e.exc_type != "RuntimeError" or n_heads < 2 or T < 2:
        return None

    def said(t):
        c = -(-t // n_heads)
        try:
            torch.ones(t, t, dtype=torch.float64) @ torch.ones(t, d_model, dtype=torch.float64).chunk(n_heads)[0]
        except RuntimeError as err:
            return c, str(err).splitlines()[0]
        return c, None

    c, first = said(T)
    if first is None or first not in (e.message or ""):
        return None
    T2 = next((t for t in range(n_heads + 1, 4 * n_heads + 2) if -(-t // n_heads) not in (c, d_k, t)), None)
    if T2 is None:
        return None
    c2, second = said(T2)
    X2 = torch.randn((T2, d_model), generator=torch.Generator().manual_seed(0), dtype=X.dtype)
    try:
        fn(X2, *Ws, n_heads)
    except StudentCodeError as again:
        if second is None or again.exc_type != "RuntimeError" or second not in (again.message or ""):
            return None
        return Misconception("mha_head_rows_sliced", f"your code raised {e.exc_type}: {first}: head 0's ({T}, {T}) "
                             f"weights times {c} row{'s' * (c != 1)} of V of the full width {d_model}, and with T = {T2} tokens "
                             f"{second} ({c2} = ceil({T2} / {n_heads}) rows): Q and K are cut into column blocks, "
                             f"but V into {n_heads} blocks of rows (tokens), as V.chunk(n_heads) does with chunk's "
                             f"default dim=0 (V.chunk(n_heads, dim=-1) cuts the columns): " + describe("mha_head_rows_sliced"))
    return None


def entropy_guard_too_large(got, logits, expected, dtype) -> str | None:
    """The message of entropy_guard_too_large when softmax_entropy is -sum p log(p + eps) for a written guard eps (1e-3
    to 1e-8) large enough to show: the replay on the same logits matches and differs from the right entropy."""
    if type(got) is not torch.Tensor or not got.is_floating_point() or tuple(got.shape) != tuple(expected.shape):
        return None
    p = torch.softmax(logits.double(), dim=-1)
    for k in range(3, 9):
        eps = 10.0 ** -k
        replay = -(p * torch.log(p + eps)).sum(dim=-1)
        if matching_variants(replay, {"v": expected}, dtype) or not matching_variants(got, {"v": replay}, dtype):
            continue
        low = float((expected - got.detach().double()).abs().max())
        return (f"every entropy is a little lower than the right one (by up to {low:.2g} nats): it equals, on the "
                f"same logits, -sum p log(p + {eps:.0e}): a guard of {eps:.0e} inside the log shifts every "
                f"log p and biases the entropy low (about n * {eps:.0e} nats for n keys); keep the guard tiny "
                f"(1e-12, torch.finfo(p.dtype).tiny) or use F.log_softmax, which needs none")
    return None


# --- naming28: q * k.T in the paired products (an (n, d_k) times a (d_k, n): blind22) -------------------------
_PAIRS_SIZE_MISMATCH = re.compile(r"^The size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at "
                            r"non-singleton dimension (\d+)")


def pairs_transposed_crash(fn, e: StudentCodeError, d_k, n) -> Misconception | AssertionError | None:
    """An elementwise size mismatch between d_k and n_samples (torch's own words) in dot_product_variance.
    variance_over_all_pairs when a second call with n_samples = d_k (where (n, d_k) * (d_k, n) broadcasts)
    gives, to rounding, the variance of (q * k.T).sum(-1) of the same generator's draws and not the right
    one: q_i paired with k's columns, Q @ K^T's transpose carried into the paired products. Otherwise an
    AssertionError that says which sizes met; None when the crash is another one."""
    found = _PAIRS_SIZE_MISMATCH.search((e.message or "").splitlines()[0] if e.message else "")
    if e.exc_type != "RuntimeError" or found is None or {int(found.group(1)), int(found.group(2))} != {d_k, n} \
            or d_k == n:
        return None
    first = e.message.splitlines()[0][:200]
    seed = 20260528 + d_k
    try:
        got = fn(d_k, d_k, torch.Generator().manual_seed(seed))
    except StudentCodeError:
        got = None
    got = got.item() if type(got) is torch.Tensor and got.numel() == 1 else got
    right, transposed = [], []
    for dtype in (torch.float32, torch.float64):
        g = torch.Generator().manual_seed(seed)
        q = torch.randn(d_k, d_k, generator=g, dtype=dtype)
        k = torch.randn(d_k, d_k, generator=g, dtype=dtype)
        for unbiased in (True, False):
            right.append(float((q * k).sum(-1).var(unbiased=unbiased)))
            transposed.append(float((q * k.T).sum(-1).var(unbiased=unbiased)))
    if isinstance(got, (int, float)) and not isinstance(got, bool) and not _replays(got, right) \
            and _replays(got, transposed):
        return Misconception("variance_over_all_pairs", f"your code raised {e.exc_type}: {first}{student_line(e)} "
                             f"(d_k = {d_k}, n_samples = {n}); with n_samples = d_k = {d_k} the same function runs "
                             f"and gives the variance of (q * k.T).sum(-1) of the same generator's draws: q * k.T "
                             f"multiplies an (n_samples, d_k) by a (d_k, n_samples), pairing q_i with k's columns "
                             f"as Q @ K^T does: " + describe("variance_over_all_pairs"))
    return AssertionError(f"an elementwise operation met a tensor with d_k = {d_k} and one with n_samples = {n} along "
                          f"the same axis (your code raised {e.exc_type}: {first}{student_line(e)}): an "
                          f"(n_samples, d_k) tensor combined with a (d_k, n_samples) one (a transposed k, as in "
                          f"q * k.T) or with one value per sample; the n paired dot products are "
                          f"(q * k).sum(dim=-1), both (n_samples, d_k)")


_UNPACK_TWO = re.compile(r"^too many values to unpack \(expected 2(?:, got (\d+))?\)")


# the student's line that raised (read, never run): two names unpacked from softmax_entropy of the two score
# rows put side by side as columns: stack(..., dim=1 or -1), cat of (5, 1) columns along dim 1, column_stack
_UNPACKED_PAIR = re.compile(r"^\(?\s*\w+\s*,\s*\w+\s*\)?\s*=[^=]")
_STACK_COLUMNS = re.compile(r"\bstack\(\s*[\[(][^\])]*[\])]\s*,\s*(dim\s*=\s*)?(1|-1)\s*\)")
_CAT_COLUMNS = re.compile(r"\bcat\(.*(unsqueeze\(\s*(1|-1)\s*\)|\[\s*:\s*,\s*None\s*\]).*(dim\s*=\s*)?(1|-1)\s*\)")


_MV_MISMATCH = re.compile(r"^size mismatch, got input \(1\), mat \(1x(\d+)\), vec \((\d+)\)")
# q @ k.T[0] (or k.mT / k.t() / k.transpose(0, 1) / k.transpose(-2, -1), then [0]), or q @ k[:, 0]: k's first column
_INDEXED_BEFORE_AT = re.compile(r"@\s*\w+\s*(?:\.\s*(?:T|mT|t\(\s*\)|transpose\(\s*(?:0\s*,\s*1|1\s*,\s*0|-2\s*,\s*-1|"
                                r"-1\s*,\s*-2)\s*\))\s*\[\s*0\s*\]|\[\s*:\s*,\s*0\s*\])(?!\s*[\[.])")


def raise_if_index_before_matmul(e: StudentCodeError) -> None:
    """index_before_matmul: entropy_table's `q @ k.T[0]` for `(q @ k.T)[0]` (indexing binds before @): the crash
    is the one the replay gives on the same shapes, a (1, d) query times a vector of the 5 keys' first
    coordinates, and the raising line of entropy_table indexes k's transpose (or k's first column) after @."""
    found = _MV_MISMATCH.search((e.message or "").splitlines()[0] if e.message else "")
    where = student_line(e)
    if e.exc_type != "RuntimeError" or found is None or (where and "`entropy_table`" not in where):
        return
    line = crash_source_line(e)
    d, n = int(found.group(1)), int(found.group(2))
    # d and n are the student's text, and the replay draws them in the grader: a forged 1x20000 by 30000 cost
    # 2.3 GB and 4.4 s (red-team round 74). The tests' d is at most 256 and the lesson draws 5 keys
    if not _INDEXED_BEFORE_AT.search(line) or d == n or not (0 < d <= 4096 and 0 < n * d <= 1 << 22):
        return
    try:
        torch.randn(1, d) @ torch.randn(n, d).T[0]
    except RuntimeError as replay:
        if str(replay).splitlines()[0] != e.message.splitlines()[0]:
            return
    else:
        return
    raise Misconception("index_before_matmul", f"entropy_table's `{ascii(line[:80])[1:-1]}` multiplies q by k.T[0], "
                        f"the first coordinate of each of the {n} keys, not the {n} scores (your code raised "
                        f"{e.exc_type}: {e.message.splitlines()[0][:80]}{where}): " + describe("index_before_matmul"))


def _range_bounds(func) -> list[int]:
    """The int literals N of the `range(N)` calls in `func` (one argument, a constant), in order."""
    import ast
    return [n.args[0].value for n in list(itertools.islice(ast.walk(func), 3000)) if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Name) and n.func.id == "range" and len(n.args) == 1 and not n.keywords
            and isinstance(n.args[0], ast.Constant) and type(n.args[0].value) is int]


_MORE_DIMS = (8, 20, 32, 6, 10, 24)


def table_count_crash(e: StudentCodeError, fn, dims, seed, submission, as_table) -> Misconception | None:
    """naming64: an IndexError in entropy_table whose loop runs a fixed N times (`range(4)`, the default dims' length)
    where it must run over dims: the source has a literal `range(N)` with N > len(dims), and called again (bounded:
    a few small d's) with dims padded to N it runs and is right, with N + 1 dims it returns the first N rows only."""
    named = table_width_one_squeezed(e, fn, dims, seed, submission) \
        or table_std_unbracketed_crash(e, dims, seed, submission)   # naming66, naming69
    if named is not None or e.exc_type != "IndexError":
        return named
    func = _function_read(submission, "entropy_table")
    bounds = [b for b in (_range_bounds(func) if func is not None else []) if len(dims) < b <= len(dims) + 4]
    if len(bounds) != 1:
        return None
    n = bounds[0]
    longer = tuple(dims) + tuple(d for d in _MORE_DIMS if d not in dims)[:n + 1 - len(dims)]

    def table(ds):
        try:
            return as_table(fn(dims=ds, seed=seed), ds[:n])
        except Exception:  # noqa: BLE001 - a replay is only evidence
            return None

    right, first = table(longer[:n]), table(longer)
    want = ref.table_as_tensor(ref.entropy_table(longer[:n], seed))
    if not all(type(t) is torch.Tensor and tuple(t.shape) == tuple(want.shape)
               and matching_variants(t, {"v": want}, torch.float32) for t in (right, first)):
        return None
    return Misconception("table_rows_fixed_count", f"your code raised IndexError: "
                         f"{(e.message or '').splitlines()[0] if e.message else ''}, for dims = {tuple(dims)}: the loop "
                         f"is `range({n})`, a fixed {n} rows (the default dims have {n}); called again with {n} dims it "
                         f"is right, and with {n + 1} dims it returns the first {n} rows only: "
                         + describe("table_rows_fixed_count"))


def table_unpack_crash(e: StudentCodeError) -> AssertionError | None:
    """First the crash of `q @ k.T[0]` (raise_if_index_before_matmul). No key (the crash cannot show which tensor
    was unpacked): entropy_table unpacking two values (the raw
    and scaled entropies, say) from more than two, what the two score rows stacked or concatenated along the
    wrong axis give (a (5, 2) tensor has one entropy per (raw, scaled) pair: five). Said in words, with the
    axis to use. None for another crash, or one inside another function than entropy_table."""
    raise_if_index_before_matmul(e)
    found = _UNPACK_TWO.search((e.message or "").splitlines()[0] if e.message else "")
    where = student_line(e)
    if e.exc_type != "ValueError" or found is None or (where and "`entropy_table`" not in where):
        return None
    got = f" ({found.group(1)} of them)" if found.group(1) else ""
    line = crash_source_line(e)
    if _UNPACKED_PAIR.search(line) and "softmax_entropy(" in line and (
            _STACK_COLUMNS.search(line) or _CAT_COLUMNS.search(line) or "column_stack(" in line):
        raise Misconception("entropy_wrong_dim", f"entropy_table unpacks two names from more than two values{got} "
                            f"(your code raised {e.exc_type}: {e.message.splitlines()[0][:120]}{where}), at "
                            f"`{ascii(line[:100])[1:-1]}`: the raw and scaled scores stacked as columns, (5, 2), so "
                            "softmax_entropy runs across each (raw, scaled) pair: " + describe("entropy_wrong_dim")
                            + "; stack them as rows, torch.stack([raw, scaled]) (shape (2, 5))")
    return AssertionError(f"entropy_table unpacks two names from something with more than two values{got} (your "
                          f"code raised {e.exc_type}: {e.message.splitlines()[0][:200]}{where}). If those are the two "
                          "entropies (H_raw, H_scaled = softmax_entropy(...)), the raw and scaled scores were stacked "
                          "or concatenated along the wrong axis: torch.stack([raw, scaled], dim=1) (or a torch.cat of "
                          "columns) is (5, 2), and softmax_entropy then returns one entropy per (raw, scaled) pair, "
                          "five values, taken across the pair instead of along each row of 5 scores. Stack them as "
                          "rows, torch.stack([raw, scaled]) (dim=0, shape (2, 5)), or call softmax_entropy once on "
                          "each row")


_LIST_OF_TUPLES = re.compile(r"^expected Tensor as element (\d+) in argument 0, but got tuple")


_W_O_COLUMNS = re.compile(r"\bW_?[oO]\w*\s*\[\s*:\s*,")


def _low_heads_replay(attention, X, Ws, n_heads, low):
    """(naming78) multi-head attention with the student's own attention run on `low` copies of each head's Q, K, V
    slices (projections in X's dtype) and each head cast back to X's dtype, times W_O; None where their attention
    raises or returns no (output, ...) tensor pair."""
    d_k = X.shape[-1] // n_heads
    Q, K, V = (X @ W for W in Ws[:3])
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        try:
            out = attention(Q[:, cols].to(low), K[:, cols].to(low), V[:, cols].to(low), d_k)
        except StudentCodeError:
            return None
        if not (isinstance(out, tuple) and out and type(out[0]) is torch.Tensor and out[0].dtype == low):
            return None
        heads.append(out[0].to(X.dtype))
    return torch.cat(heads, dim=-1) @ Ws[3]


def heads_low_precision(fn, attention, X, Ws, n_heads, got=None, e=None) -> Misconception | None:
    """mha_heads_low_precision (naming78): each head's attention run on float16 (or bfloat16) copies of its Q, K, V
    slices and cast back. A wrong result (`got`) that equals that replay, made with the student's own attention, on
    the same input (and not the right answer); or a crash (`e`) where a second call on a fresh small input (up to 4
    seeded draws where the replay runs) gives that replay there. Only for float32/float64 inputs, d_model <= 256."""
    if X.dtype not in (torch.float32, torch.float64) or n_heads < 1 or X.shape[-1] % n_heads or X.shape[-1] > 256:
        return None
    right = ref.multi_head_attention(X.double(), *(w.double() for w in Ws), n_heads)
    for low, said in ((torch.float16, "float16"), (torch.bfloat16, "bfloat16")):
        if got is not None:
            replay = _low_heads_replay(attention, X, Ws, n_heads, low)
            if replay is None or type(got) is not torch.Tensor or got.dtype != X.dtype \
                    or matching_variants(got, {"right": right}, X.dtype) \
                    or not matching_variants(got, {"v": replay}, X.dtype, expected=right):
                continue
            return Misconception("mha_heads_low_precision", f"multi_head_attention(...) is wrong: it equals, on the "
                                 f"same input, your attention run on {said} copies of each head's Q, K, V and cast "
                                 f"back to {str(X.dtype).split('.')[-1]}: " + describe("mha_heads_low_precision"))
        elif e is not None:
            g = torch.Generator().manual_seed(78)
            for _ in range(4):
                X2 = torch.randn((4, X.shape[-1]), generator=g, dtype=X.dtype)
                replay = _low_heads_replay(attention, X2, Ws, n_heads, low)
                if replay is None:
                    continue
                right2 = ref.multi_head_attention(X2.double(), *(w.double() for w in Ws), n_heads)
                try:
                    again = fn(X2, *Ws, n_heads)
                except StudentCodeError:
                    continue
                if type(again) is torch.Tensor and not matching_variants(again, {"right": right2}, X.dtype) \
                        and matching_variants(again, {"v": replay}, X.dtype, expected=right2):
                    raised = (e.message or "").strip().splitlines()
                    return Misconception("mha_heads_low_precision", f"your code raised {e.exc_type}"
                                         f"{': ' + raised[0][:120] if raised else ''}; on a new "
                                         f"input of 4 tokens it runs, and its output is your attention run on {said} "
                                         "copies of each head's Q, K, V and cast back (float16 weights can miss a "
                                         "1e-5 row-sum check): " + describe("mha_heads_low_precision"))
                break
    return None


def raise_if_heads_low_precision(fn, attention, got, X, Ws, n_heads) -> None:
    """heads_low_precision on a wrong result, raised."""
    named = heads_low_precision(fn, attention, X, Ws, n_heads, got=got)
    if named is not None:
        raise named


def mha_crash_said(e: StudentCodeError, attention, X, Ws, n_heads, fn=None) -> Exception | None:
    """Crashes named from their own words and sizes: torch.cat / torch.stack given a list of tuples where the
    student's attention returns an (output, weights) pair (checked on head 0: the heads' pairs were never
    unpacked, mha_heads_kept_as_pairs); or a (T, d_k) head times a (d_model, d_k) block, a column block of a
    (d_model, d_model) weight: W_O[:, cols] in the student's own line that raised (crash_words.crash_source_line, read,
    never run) is mha_w_o_column_blocks; without W_O on that line (W_Q's block, or no line) it is said in words.
    None for any other crash."""
    first = (e.message or "").splitlines()[0][:200] if e.message else ""
    said = f" (your code raised {e.exc_type}: {first}{student_line(e)})"
    T, d_model = X.shape[-2], X.shape[-1]
    if n_heads < 1 or d_model % n_heads:
        return None
    if e.exc_type == "AssertionError" and fn is not None:
        return heads_low_precision(fn, attention, X, Ws, n_heads, e=e)
    d_k = d_model // n_heads
    if e.exc_type == "TypeError" and _LIST_OF_TUPLES.search(first):
        q, k, v = (X @ W[:, :d_k] for W in Ws[:3])
        try:
            pair = attention(q, k, v, d_k)
        except StudentCodeError:
            return None
        if not (isinstance(pair, tuple) and len(pair) == 2 and all(type(p) is torch.Tensor for p in pair)):
            return None
        return Misconception("mha_heads_kept_as_pairs", f"torch.cat (or torch.stack) was given a list of tuples, not "
                             f"tensors{said}: your attention(q, k, v, d_k) returns the pair (output, weights), and "
                             f"the list keeps each head's pair whole: " + describe("mha_heads_kept_as_pairs"))
    cut = f"mat1 and mat2 shapes cannot be multiplied ({T}x{d_k} and {d_model}x{d_k})"
    if e.exc_type == "RuntimeError" and first.startswith(cut) and n_heads > 1 and T != d_model:
        line = crash_source_line(e)
        if _W_O_COLUMNS.search(line):
            return Misconception("mha_w_o_column_blocks", f"a ({T}, {d_k}) head output times a ({d_model}, {d_k}) "
                                 f"column block of W_O{said}, at `{ascii(line[:100])[1:-1]}`: "
                                 + describe("mha_w_o_column_blocks"))
        return AssertionError(f"a ({T}, {d_k}) matrix, one head's output (T, d_k), was multiplied by a "
                              f"({d_model}, {d_k}) one, a column block W[:, h*d_k:(h+1)*d_k] of a ({d_model}, "
                              f"{d_model}) weight{said}. Summing the heads' products through W_O is right, but head h's "
                              f"output multiplies the ROW block W_O[h*d_k:(h+1)*d_k, :], ({d_k}, {d_model}): the "
                              f"rows of W_O that concat @ W_O multiplies by that head's columns (if the block is "
                              f"W_Q, W_K or W_V's instead, project all of X first, X @ W, then cut the columns)")
    return None


def mha_counter_advanced(fn, e: StudentCodeError, X, Ws, n_heads) -> Misconception | None:
    """mha_kv_slice_next_head (round 37, blind36 q8_column_counter_advanced_before_key_slice): a crash (the last
    head's key or value slice empty) where a second call, with W_K and W_V given d_k more columns (X @ W then has
    one head more), runs and equals the reference multi-head attention with W_K's and/or W_V's columns shifted by
    one head (W[:, d_k:]), and not the unshifted one: every head took its keys (values) from the next head's
    columns, the column counter moved between the query slice and the key/value slices."""
    T, d_model = X.shape[-2], X.shape[-1]
    if X.dim() != 2 or n_heads < 2 or d_model % n_heads or e.exc_type != "RuntimeError":
        return None
    d_k = d_model // n_heads
    W_Q, W_K, W_V, W_O = Ws
    g = torch.Generator().manual_seed(37)
    W_Kx, W_Vx = (torch.cat([W, randn((d_model, d_k), g, W.dtype, d_model ** -0.5)], dim=1) for W in (W_K, W_V))
    try:
        got = fn(X, W_Q, W_Kx, W_Vx, W_O, n_heads)
    except StudentCodeError:
        return None
    if type(got) is not torch.Tensor or tuple(got.shape) != (T, d_model):
        return None
    X64, Q64, O64 = X.double(), W_Q.double(), W_O.double()
    K0, K1, V0, V1 = W_Kx[:, :d_model], W_Kx[:, d_k:], W_Vx[:, :d_model], W_Vx[:, d_k:]
    right = ref.multi_head_attention(X64, Q64, K0.double(), V0.double(), O64, n_heads)
    shifted = {what: ref.multi_head_attention(X64, Q64, k.double(), v.double(), O64, n_heads)
               for what, k, v in (("keys and values", K1, V1), ("keys", K1, V0), ("values", K0, V1))}
    hits = matching_variants(got, shifted, X.dtype, expected=right)
    if len(hits) != 1:
        return None
    return Misconception("mha_kv_slice_next_head", f"your code raised {e.exc_type}: "
                         f"{(e.message.splitlines() or [''])[0][:200]}{student_line(e)}; called again with W_K and W_V "
                         f"{d_k} columns wider (one head more), it runs and equals multi-head attention whose heads "
                         f"take their {hits[0]} from the next head's columns: " + describe("mha_kv_slice_next_head"))


def mha_merge_crash(e: StudentCodeError, X, Ws, n_heads) -> Exception | None:
    """A crash of the heads' merge, replayed on zeros of this question's own shapes (crash_words.crash_replayed: the
    same words and sizes): torch.cat(heads, dim=2) on the n_heads (T, d_k) heads, an axis of batched (B, T, d)
    code on 2-D tensors (fixed_axes: any dim=2 on these 2-D tensors raises those words, and each is that
    mistake); the (T, n_heads, d_k) heads merged by flatten() (start_dim=0) or reshape(-1) into one vector of
    T * d_model numbers, then times W_O: no key says it, said in words. None for any other crash."""
    T, d_model = X.shape[-2], X.shape[-1]
    if X.dim() != 2 or n_heads < 2 or d_model % n_heads or T < 2:
        return None
    d_k = d_model // n_heads
    crash = f"{e.exc_type}: {((e.message or '').splitlines() or [''])[0]}"
    heads = [torch.zeros(T, d_k) for _ in range(n_heads)]
    W_O = torch.zeros(d_model, d_model)
    replays = {"fixed_axes": lambda: torch.cat(heads, dim=2),
               "merged_every_axis": lambda: torch.zeros(T, n_heads, d_k).flatten() @ W_O}
    key = crash_replayed(crash, replays)
    if key is None:
        return None
    said = f"your code raised {crash}{student_line(e)}"
    if key == "fixed_axes":
        return Misconception("fixed_axes", f"{said}: axis 2 of a 2-D tensor, the crash that torch.cat(heads, "
                             f"dim=2) gives on the {n_heads} heads of ({T}, {d_k}) (or any dim=2, transpose(1, 2), "
                             f"on them): axis 2 is the feature axis of batched (B, T, head_size) code, but here each "
                             f"head is 2-D and its feature axis is 1 (dim=-1 fits both): " + describe("fixed_axes"))
    return AssertionError(f"a vector of all {T * d_model} numbers of a ({T}, {d_model}) tensor met a ({d_model}, "
                          f"{d_model}) weight ({said}, the crash that merging every axis gives): ({T}, {n_heads}, "
                          f"{d_k}) heads flattened with flatten() (its default start_dim=0 merges every axis, the "
                          f"tokens too) or reshape(-1) become {T * d_model} numbers, and that vector times W_O "
                          f"({d_model}, {d_model}) fails. Merge only the head axes, keeping one row per token: "
                          f"flatten(1) (or flatten(-2)) or reshape({T}, {d_model})")


_LEFT_OF_W_O = re.compile(r"\bW_?[oO]\w*\s*(@|\.(mm|matmul)\()|\b(matmul|mm)\(\s*W_?[oO]\w*\s*,")


def output_projection_left(e: StudentCodeError, X, Ws, n_heads) -> Exception | None:
    """W_O @ concat for concat @ W_O: torch's words for a (d_model, d_model) weight times the (T, d_model) heads,
    replayed on this question's shapes (crash_words.crash_replayed), with W_O on the left in the student's own line
    that raised (crash_words.crash_source_line: read, never run). The same words come from any weight times a
    (T, d_model) tensor (W_Q @ X too), so without the line it is said in words, named nothing."""
    T, d_model = X.shape[-2], X.shape[-1]
    if X.dim() != 2 or e.exc_type != "RuntimeError" or T == d_model:
        return None
    crash = f"{e.exc_type}: {((e.message or '').splitlines() or [''])[0]}"
    concat, W_O = torch.zeros(T, d_model), torch.zeros(d_model, d_model)
    if crash_replayed(crash, {"mha_output_projection_left": lambda: W_O @ concat}) is None:
        return None
    line = crash_source_line(e)
    said = f"your code raised {crash}{student_line(e)}"
    if _LEFT_OF_W_O.search(line):
        return Misconception("mha_output_projection_left", f"{said}, at `{ascii(line[:100])[1:-1]}`: the "
                             f"({d_model}, {d_model}) W_O times the ({T}, {d_model}) concatenated heads: "
                             + describe("mha_output_projection_left"))
    return AssertionError(f"{said}: a ({d_model}, {d_model}) weight was multiplied from the left onto a ({T}, "
                          f"{d_model}) tensor (one row per token), W @ x where the notebook applies every weight "
                          f"as x @ W: the concatenated heads @ W_O, and X @ W_Q, X @ W_K, X @ W_V")


_ELEMENTWISE_W = re.compile(r"(?<![*\w])\*(?!\*)\s*\(?\s*W_?\w*\b|\bW_?\w*\s*\)?\s*\*(?![*=])|torch\.mul\(|\.mul\(")


def elementwise_projection(e: StudentCodeError, X, Ws, n_heads) -> Exception | None:
    """concat * W_O (or X * W_Q) for the matrix product (naming32, blind29 q8_output_projection_elementwise): torch's
    broadcast words for a (T, d_model) tensor times a (d_model, d_model) weight elementwise, replayed on this
    question's shapes (crash_words.crash_replayed), with a * (or mul) of a weight in the student's own line that
    raised (crash_words.crash_source_line: read, never run). elementwise_product, attention-pipeline's text."""
    T, d_model = X.shape[-2], X.shape[-1]
    if X.dim() != 2 or e.exc_type != "RuntimeError" or T == d_model:
        return None
    crash = f"{e.exc_type}: {((e.message or '').splitlines() or [''])[0]}"
    x, w = torch.zeros(T, d_model), torch.zeros(d_model, d_model)
    if crash_replayed(crash, {"elementwise_product": lambda: x * w}) is None:
        return None
    line = crash_source_line(e)
    if not _ELEMENTWISE_W.search(line):
        return None
    return Misconception("elementwise_product", f"your code raised {crash}{student_line(e)}, at "
                         f"`{ascii(line[:100])[1:-1]}`: a ({T}, {d_model}) tensor times a ({d_model}, {d_model}) "
                         "weight elementwise, the crash of * where @ is meant: " + describe("elementwise_product"))


# --- naming30: blind24's kinds (scaled-attention helper) ------------------------------------------------------

def _root_name(n):
    """The variable a call argument starts from: K in K[:, cols], K.view(...), Kh.contiguous()."""
    import ast
    while isinstance(n, (ast.Subscript, ast.Attribute, ast.Call, ast.Starred)):
        n = n.func if isinstance(n, ast.Call) else n.value
    return n.id if isinstance(n, ast.Name) else None


def qk_roles_from_source(submission, m: Misconception, what: str) -> AssertionError:
    """qk_swapped in self-attention gives the same numbers as every head scoring K_h Q_h^T (the keys passed
    where attention takes the queries): only the student's source tells which. Read (never run) from
    multi_head_attention's def: the call to attention(a, b, ...) with a a key-named and b a query-named
    variable -> scores_transposed; an assignment of a query-named variable from the W_K parameter (its second
    weight) -> qk_swapped; neither shown -> a message that says both."""
    import ast
    if m.key != "qk_swapped":
        return m
    from autograder.grading.source_checks import cells_of
    calls, from_w_k = [], False
    for cell in cells_of(submission) if submission is not None else []:
        try:
            tree = parse(cell)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for fdef in ast.walk(tree):
            if not (isinstance(fdef, ast.FunctionDef) and fdef.name == "multi_head_attention"):
                continue
            params = [a.arg for a in fdef.args.args]
            w_k = params[2] if len(params) > 2 else None
            for n in ast.walk(fdef):
                if isinstance(n, ast.Call) and len(n.args) >= 2 and (
                        getattr(n.func, "id", None) == "attention" or getattr(n.func, "attr", None) == "attention"):
                    calls.append((_root_name(n.args[0]) or "", _root_name(n.args[1]) or ""))
                if isinstance(n, ast.Assign) and w_k is not None:
                    pairs = []
                    for t in n.targets:
                        if isinstance(t, ast.Tuple) and isinstance(n.value, ast.Tuple) and len(t.elts) == len(n.value.elts):
                            pairs += list(zip(t.elts, n.value.elts))
                        else:
                            pairs.append((t, n.value))
                    for t, v in pairs:
                        if isinstance(t, ast.Name) and t.id[:1] in "qQ" and any(
                                isinstance(x, ast.Name) and x.id == w_k for x in ast.walk(v)):
                            from_w_k = True
    swapped_call = any(a[:1] in ("k", "K") and b[:1] in ("q", "Q") for a, b in calls)
    if swapped_call and not from_w_k:
        a, b = next((a, b) for a, b in calls if a[:1] in ("k", "K") and b[:1] in ("q", "Q"))
        return Misconception("scores_transposed", f"{what} is wrong: it matches every head scoring K_h Q_h^T, and "
                             f"your code calls attention({a}..., {b}..., ...): the keys go where attention takes the "
                             "queries: " + describe("scores_transposed") + "; call attention(Q_h, K_h, V_h, d_k)")
    if from_w_k and not swapped_call:
        return m
    return AssertionError(f"{what} is wrong: it matches every head scoring K_h Q_h^T: the tensor projected by W_K is "
                          "used as the queries and the one projected by W_Q as the keys. Either the projections are "
                          "swapped (Q must be X @ W_Q, K must be X @ W_K) or attention is called with the keys first "
                          "(call attention(Q_h, K_h, V_h, d_k))")


# --- naming33: blind32's q2 draws of another variance and both dot products kept -------------------------------

def _variance_call(fn, d_k, n, seed, scaled) -> float | None:
    """The student's dot_product_variance on a generator seeded `seed`, as a float, or None (a crash, a non-number)."""
    try:
        got = fn(d_k, n, torch.Generator().manual_seed(seed), scaled=scaled)
    except Exception:  # noqa: BLE001 - a second call is only evidence
        return None
    got = got.item() if type(got) is torch.Tensor and got.numel() == 1 else (numpy_scalar(got) or got)
    if isinstance(got, bool) or not isinstance(got, (int, float)) or not math.isfinite(got):
        return None
    return float(got)


def _right_variances(d_k, n, seed, scaled) -> list[float]:
    """The right variance of the draws of a generator seeded `seed` (float32 and float64 randn, q then k)."""
    s = math.sqrt(d_k) if scaled else 1.0
    return [float((ref._draw("right", d_k, n, torch.Generator().manual_seed(seed), dt) / s).var())
            for dt in (torch.float32, torch.float64)]


def raise_if_draws_not_unit_variance(fn, v, seed, d_k, n, scaled, submission=None) -> None:
    """draws_not_unit_variance: Var(q.k) = d_k s^4 for iid centred entries of variance s^2, so an estimate c
    times its target (c d_k unscaled, c scaled) says each product q_i k_i has variance c. Named only where five
    estimates agree on c (this one and d_k = 12, 64, scaled and not, four other generators: a c that moves with
    d_k or the flag is a scale or flag mistake), c is neither about 1 (right) nor about 2 (q.q, or dot products of
    2 d_k terms: said elsewhere), and the values are not the right randn draws' variances times one constant:
    there the draws scaled (randn * s) and the dot products scaled give the same numbers, so nothing is named.
    A constant c says only that each coordinate's term has variance c: |q - k|^2 of randn draws gives c = 8 too,
    so the key needs the source to draw no normals by a library call (no randn, normal_...: the normals are made
    by hand, from uniforms); else nothing is named. Called after every other cause of the q2 tests is ruled out
    (a statistic of the mean, var / n, is c = 1 / n)."""
    raise_if_sample_tail_left_zero(fn, v, seed, d_k, n, scaled, submission)   # naming71: a chunk loop's tail left 0
    target = 1.0 if scaled else float(d_k)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
        return
    ratios = [v / target]
    if abs(ratios[0] - 1) < 0.1 or abs(ratios[0] / 2 - 1) < 0.1:
        return
    multiples = [[v / r for r in _right_variances(d_k, n, seed, scaled)]]
    for i, (d, sc) in enumerate(((12, False), (64, False), (12, True), (64, True))):
        for t in range(3):   # a NaN now and then: hand-made normals log a uniform that can be 0 (-ln 0 = inf)
            s = (seed + 7919 * (i + 1) + 104729 * t) % (2**31 - 1)
            got = _variance_call(fn, d, n, s, sc)
            if got is not None:
                break
        if got is None or got <= 0:
            return
        ratios.append(got / (1.0 if sc else d))
        multiples.append([got / r for r in _right_variances(d, n, s, sc)])
    if max(ratios) > 1.1 * min(ratios):
        return
    c = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    a = multiples[0]
    if any(all(any(abs(m / x - 1) <= 1e-4 for m in ms) for ms in multiples[1:]) for x in a):
        raise AssertionError(f"for d_k = {d_k}{' with scaled=True' if scaled else ''} the result is {c:.3g} times "
                             "the variance of the same generator's torch.randn draws, for d_k = 12 and 64, scaled "
                             "or not: the draws (or the dot products) are multiplied by a constant; q and k must be "
                             "standard normals, torch.randn(n_samples, d_k, generator=generator), used as drawn")
    from autograder.grading.source_checks import SourceUnreadable, cells_of, find_use
    try:
        if submission is None or find_use(cells_of(submission), "dot_product_variance", ("randn", "normal")):
            return
    except SourceUnreadable:
        return
    raise_if_draws_not_centred(c, submission)
    raise Misconception("draws_not_unit_variance", f"for d_k = 12 and 64 the variance of q.k is about {c:.3g} d_k and "
                        f"that of q.k / sqrt(d_k) about {c:.3g}, not d_k and 1: each product q_i k_i has variance "
                        f"about {c:.3g}, so your q and k entries have variance about {math.sqrt(c):.3g} (if drawn "
                        "alike, centred), not 1: " + describe("draws_not_unit_variance"))


def raise_if_both_kept(fn, v, seed, d_k, n) -> None:
    """scaled_and_unscaled_pooled: with scaled=True the result is the variance of the n dot products and the same
    n divided by sqrt(d_k), pooled (an append without `else`): from scaled=False on a generator seeded alike (the
    same dot products, variance V), about V (n - 1) (1 + 1/d_k) / (2n - 1), to 1e-3 (the dots' mean moves it by
    about 1/n); checked again for another d_k. Dividing the dot products by sqrt(2) is 1/d_k away."""
    for d, s, got in ((d_k, seed, v), (64 if d_k != 64 else 12, (seed + 104729) % (2**31 - 1), None)):
        got = got if got is not None else _variance_call(fn, d, n, s, True)
        plain = _variance_call(fn, d, n, s, False)
        if got is None or plain is None or plain <= 0 or not abs(plain / d - 1) < 0.1:
            return
        pooled = plain * (n - 1) * (1 + 1 / d) / (2 * n - 1)
        if abs(got / pooled - 1) > 1e-3:
            return
    raise Misconception("scaled_and_unscaled_pooled", f"for d_k = {d_k} with scaled=True the result {v:.4g} is the "
                        "variance of the unscaled dot products that scaled=False gives on the same generator together "
                        f"with the same dot products divided by sqrt(d_k), about (1 + d_k) / 2 = {(1 + d_k) / 2:g}, and "
                        "likewise for another d_k: " + describe("scaled_and_unscaled_pooled"))


# --- naming34: blind33's q2 draws of mean 6, q4 table of equal scores, q2 unscaled dots made one constant ----------

def _uniform_sum_products(count: int) -> float:
    """Var(q_i k_i) for q_i, k_i each a sum of `count` U(0, 1) draws never centred: mean m = count / 2, variance
    s^2 = count / 12, so (s^2 + m^2)^2 - m^4 = s^4 + 2 s^2 m^2 (73 for twelve: m = 6, s = 1)."""
    m, s2 = count / 2, count / 12
    return (s2 + m * m) ** 2 - m ** 4


def raise_if_draws_not_centred(c, submission) -> None:
    """draws_not_centred: the per-product variance c (constant over d_k and the flag, the source drawing no
    normals by a library call: raise_if_draws_not_unit_variance's evidence) is, within 3%, what `count` uniforms
    summed and never centred give (count = 2 .. 24; one uniform is uniform_samples), and the source draws
    uniforms (rand): each entry then has mean count / 2, not 0. A c of that size with no uniforms in the source is
    left unnamed (centred draws of variance sqrt(c) would give it too), as is any other c (draws_not_unit_variance)."""
    hits = [n for n in range(2, 25) if abs(c / _uniform_sum_products(n) - 1) <= 0.03]
    if not hits:
        return
    from autograder.grading.source_checks import SourceUnreadable, cells_of, find_use
    try:
        uniforms = submission is not None and find_use(cells_of(submission), "dot_product_variance", ("rand", "uniform"))
    except SourceUnreadable:
        uniforms = False
    if not uniforms:
        raise AssertionError(f"for d_k = 12 and 64 the variance of q.k is about {c:.3g} d_k and that of q.k / sqrt(d_k) "
                             f"about {c:.3g}, not d_k and 1: each product q_i k_i has variance about {c:.3g}, so q and "
                             "k are not standard normals (not centred, or of another variance): draw them with "
                             "torch.randn(n_samples, d_k, generator=generator)")
    n = hits[0]
    m, s2 = n / 2, n / 12
    raise Misconception("draws_not_centred", f"for d_k = 12 and 64 the variance of q.k is about {c:.3g} d_k and that of "
                        f"q.k / sqrt(d_k) about {c:.3g}, not d_k and 1, and your q and k are made from uniforms: "
                        f"{n} U(0, 1) summed have mean {m:g} and variance {s2:.3g}, and entries of mean m and variance "
                        f"s^2 give each product q_i k_i the variance (s^2 + m^2)^2 - m^4 = "
                        f"{_uniform_sum_products(n):.3g}: the draws are not centred: " + describe("draws_not_centred"))


def raise_if_scores_all_equal(table, dims) -> None:
    """table_scores_all_equal: every row's raw_std and scaled_std 0 (to rounding: 1e-7 at d = 4) and H_raw and H_scaled ln 5 (to
    float32 rounding): what five equal scores give, whatever q and d (one key repeated five times: expand, repeat,
    [k] * 5; or a query or keys of zeros), and nothing else does: five scores with any spread have a std above 0
    and an entropy below ln 5. Checked only after the table matched no replayed mistake (raise_if_one_score_table)."""
    t = table.double()
    if not bool(torch.isfinite(t).all()) or not bool((t[:, :2].abs() <= 1e-4).all()):   # 0 up to float32 rounding
        return
    if not bool(((t[:, 2:] - math.log(5)).abs() <= 1e-5).all()):
        return
    raise Misconception("table_scores_all_equal", f"the entropy table's raw_std and scaled_std are 0 (up to rounding) and H_raw "
                        f"and H_scaled are ln 5 = {math.log(5):.4f} in every row (d = {', '.join(str(d) for d in dims)}): "
                        "what five EQUAL scores give (no spread, so a uniform softmax over the 5 keys), not the "
                        "query's scores against five independent keys: " + describe("table_scores_all_equal"))


# --- q5..q7: a letter computed by a probe at a size where the options coincide (blind35, round 36) -----------
_DRAWS = ("randn", "normal", "rand", "randn_like", "empty", "ones", "zeros", "full")


def _degenerate_probe(cell: str, question: str):
    """The source of the size-1 binding (or of the draw) when the cell computes `question` (not a literal) from a
    random draw whose size is a name bound to 1 (`d = 1; torch.randn(n, d)`) or the literal 1 as the draw's last
    size; None otherwise."""
    import ast
    try:
        tree = parse(cell)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None
    answers = [n for n in ast.walk(tree) if isinstance(n, ast.Assign)
               and any(isinstance(t, ast.Name) and t.id == question for t in n.targets)]
    if not answers or any(isinstance(a.value, ast.Constant) for a in answers):
        return None
    draws = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and (
        getattr(n.func, "attr", None) in _DRAWS or getattr(n.func, "id", None) in _DRAWS)]
    ones = {t.id: a for a in ast.walk(tree) if isinstance(a, ast.Assign) and isinstance(a.value, ast.Constant)
            and type(a.value.value) in (int, float) and a.value.value == 1 for t in a.targets if isinstance(t, ast.Name)}
    for call_ in draws:
        sizes = [a for a in call_.args if not isinstance(a, ast.Starred)]
        used = {n.id for a in sizes for n in ast.walk(a) if isinstance(n, ast.Name)} & set(ones)
        if used:
            name = sorted(used)[0]
            return ast.get_source_segment(cell, ones[name]) or f"{name} = 1"
        if len(sizes) >= 2 and isinstance(sizes[-1], ast.Constant) and sizes[-1].value == 1:
            return ast.get_source_segment(cell, call_) or "a draw of size 1"
    return None


def raise_if_probe_at_size_one(question: str, value, answer: str, submission) -> None:
    """A wrong letter that the answer cell computes (not a literal) from a random draw of size 1 (`d = 1;
    torch.randn(n, d)`): at d_k = 1 the options 1, sqrt(d_k), d_k and d_k^2 all equal 1, so that experiment cannot
    tell them apart, whatever letter its tie picks. Read off the cell's source (parsed, never run: student code
    runs only in the sandbox's worker)."""
    from autograder.grading.source_checks import cells_of
    if not isinstance(value, str) or value.strip().upper() == answer or submission is None:
        return
    for cell in cells_of(submission):
        if question not in cell:
            continue
        found = _degenerate_probe(cell, question)
        if found is not None:
            raise Misconception("probe_at_degenerate_size", f"{question} is {value!r}, computed by an experiment at "
                                f"size 1 (`{found.strip()[:80]}`): at d_k = 1 the options 1, sqrt(d_k), d_k and d_k^2 "
                                "all equal 1, so it cannot tell them apart: " + describe("probe_at_degenerate_size"))
        return


# --- q5..q7: the letter lesson 79's own quiz gives for the same question (blind34, round 36) ---------------
# lesson 79's "check your understanding" answers all three questions with A, its options in another order
LESSON_LETTER = {"q5_answer": ("A", "d_k"), "q6_answer": ("A", "a weighted average of the rows of X"),
                 "q7_answer": ("A", "a soft, differentiable lookup: a softmax-weighted mix of all the values")}


def raise_if_lesson_letter(question: str, value, answer: str, wrong, submission=None) -> None:
    """A wrong bare letter that is the one lesson 79's quiz gives for the same question. answer_lesson_quiz_letter,
    the lesson's reading first (it orders its options differently), when the cell that sets it cites the lesson or its
    quiz (a comment, say); else the letter's own misconception here first, the lesson's order after it (the judges
    of blind81-83: a lead about the lesson is beside the point for a student whose cell gives another reason)."""
    if not isinstance(value, str) or question not in LESSON_LETTER:
        return
    letter = value.strip().strip("()").strip().upper()
    lesson, there = LESSON_LETTER[question]
    if letter != lesson or letter == answer.upper():
        return
    here = OPTIONS[question][letter][0]
    said = (f"{question} is {value!r}, the letter lesson 79's quiz gives for this question, but the lesson orders its "
            f"options differently (there {lesson} is {there}); in this notebook {letter} is {here!r}, not the best "
            f"answer")
    from autograder.grading.source_checks import cells_of, computed_answer, lesson_cited
    cite = lesson_cited(cells_of(submission) if submission is not None else [], question)
    if cite is not None:
        raise Misconception("answer_lesson_quiz_letter", f"{said}, and its cell cites the lesson ({cite!r}): "
                            + describe("answer_lesson_quiz_letter"))
    key = (wrong or {}).get(letter)
    if key and not computed_answer(cells_of(submission) if submission is not None else [], question):
        # a letter the notebook's code worked out (a probe, a check) is the code's pick, not a reading of the
        # lesson nor a belief: expect_choice says so (answer_computed_by_code; blind41's one-hot probe)
        # the cell does not cite the lesson: the diagnosis first, the lesson's order after it, as a side note
        raise Misconception(key, f"{question} is {value!r}: in this notebook {letter} is {here!r}, not the best answer; "
                            f"that choice reflects {describe(key)} (if the letter came from lesson 79's quiz: the "
                            f"lesson orders its options differently, there {lesson} is {there})")


# --- q5..q7: a letter picked by a word search over the options' texts (blind37, round 38) -------------------
# Read off the notebook's source (parsed, never run): the options' texts from a literal in its cells, the words
# searched for from the answer cell's condition, and the condition evaluated here by a small reader that knows
# only `word in text` / `not in`, text.find/count/startswith/endswith(word) (compared with an int), .lower(),
# .upper(), .casefold(), and/or/not, and any()/all() over a literal list of words: anything else is not read,
# and nothing is named.
_FOLDS = ("lower", "upper", "casefold")
_LETTERS = ("A", "B", "C", "D")
_COMPARE = {"GtE": lambda a, b: a >= b, "Gt": lambda a, b: a > b, "NotEq": lambda a, b: a != b,
            "Eq": lambda a, b: a == b, "Lt": lambda a, b: a < b, "LtE": lambda a, b: a <= b}


class _Unread(Exception):
    """A part of the search this reader does not know: nothing is named."""


def _parsed(cell: str):
    try:
        return parse(cell)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None


def _literal_options(tree) -> list[tuple[str, dict[str, str], list[str]]]:
    """(name, {letter: text}, its letters in order) of each name bound to a dict literal whose keys are the letters
    A-D (any case) and whose values are strings, or to a list or tuple literal of four strings (letters by
    position)."""
    import ast
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            continue
        value, name = node.value, node.targets[0].id
        if isinstance(value, ast.Dict) and value.keys and all(
                isinstance(k, ast.Constant) and isinstance(k.value, str) and k.value.strip().upper() in _LETTERS
                for k in value.keys) and all(isinstance(v, ast.Constant) and isinstance(v.value, str)
                                             for v in value.values):
            letters = [k.value for k in value.keys]
            found.append((name, dict(zip(letters, (v.value for v in value.values))), letters))
        elif isinstance(value, (ast.List, ast.Tuple)) and len(value.elts) == 4 and all(
                isinstance(v, ast.Constant) and isinstance(v.value, str) and len(v.value) > 1 for v in value.elts):
            found.append((name, dict(zip(_LETTERS, (v.value for v in value.elts))), list(_LETTERS)))
    return found


def _word_constants(tree) -> dict[str, str]:
    """Names bound exactly once in the cell, to a string literal (`keyword = "gradient"`)."""
    import ast
    seen: dict[str, list] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        seen.setdefault(n.id, []).append(node.value.value if isinstance(t, ast.Name) and isinstance(
                            node.value, ast.Constant) and isinstance(node.value.value, str) else None)
    return {name: values[0] for name, values in seen.items() if len(values) == 1 and values[0] is not None}


def _condition_value(node, text_of, words, steps=None) -> bool:
    """The search condition `node` for one option: text_of(expression) is the option's text for the expressions
    that stand for it (None for any other); `words` the names bound to a word. Raises _Unread, also past `steps`
    (a one-item list the caller may share between readings; 20,000 alone). Red-team round 138: `any(any(... "" in v
    for w1 in [10 words]) ... for w8 in [10 words])` is true at once for Python, which stops, and was 10^8 readings
    here: q5 said the grader's checks "spent over 30 s of CPU" where one `any` is answer_by_keyword_search."""
    import ast
    steps = [20_000] if steps is None else steps

    def step() -> None:
        steps[0] -= 1
        if steps[0] < 0:
            raise _Unread

    def text(n):
        step()
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _FOLDS and not n.args:
            return getattr(text(n.func.value), n.func.attr)()
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "str" and len(n.args) == 1:
            return text(n.args[0])
        got = text_of(n)
        if got is None:
            raise _Unread
        return got

    def word(n, bound):
        step()
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            return n.value
        if isinstance(n, ast.Name) and n.id in bound:
            return bound[n.id]
        if isinstance(n, ast.Name) and n.id in words:
            return words[n.id]
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _FOLDS and not n.args:
            return getattr(word(n.func.value, bound), n.func.attr)()
        raise _Unread

    def number(n, bound):
        step()
        if isinstance(n, ast.Constant) and type(n.value) is int:
            return n.value
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return -number(n.operand, bound)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and len(n.args) == 1 and not n.keywords \
                and n.func.attr in ("find", "count"):
            t, w = text(n.func.value), word(n.args[0], bound)
            return t.find(w) if n.func.attr == "find" else t.count(w)
        raise _Unread

    def value(n, bound) -> bool:
        step()
        if isinstance(n, ast.BoolOp):
            parts = [value(v, bound) for v in n.values]
            return all(parts) if isinstance(n.op, ast.And) else any(parts)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not):
            return not value(n.operand, bound)
        if isinstance(n, ast.Compare) and len(n.ops) == 1:
            op, right = n.ops[0], n.comparators[0]
            if isinstance(op, (ast.In, ast.NotIn)):
                hit = word(n.left, bound) in text(right)
                return hit if isinstance(op, ast.In) else not hit
            if type(op).__name__ not in _COMPARE:
                raise _Unread
            return _COMPARE[type(op).__name__](number(n.left, bound), number(right, bound))
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and len(n.args) == 1 and not n.keywords \
                and n.func.attr in ("count", "startswith", "endswith", "__contains__"):
            t, w = text(n.func.value), word(n.args[0], bound)
            return bool({"count": t.count, "startswith": t.startswith, "endswith": t.endswith,
                         "__contains__": t.__contains__}[n.func.attr](w))
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("any", "all") \
                and len(n.args) == 1 and isinstance(n.args[0], ast.GeneratorExp) and len(n.args[0].generators) == 1:
            gen = n.args[0].generators[0]
            if gen.ifs or not isinstance(gen.target, ast.Name) or not isinstance(gen.iter, (ast.List, ast.Tuple)):
                raise _Unread
            results = [value(n.args[0].elt, {**bound, gen.target.id: word(w, bound)}) for w in gen.iter.elts]
            return any(results) if n.func.id == "any" else all(results)
        raise _Unread

    return value(node, {})


def _searches(tree, question):
    """(target, iterable, condition) of each search that sets `question`: a comprehension or generator with one
    `if` (next(...), [...][0]) in the value assigned to it, or to a name that value reads, or a for loop whose
    `if` assigns it."""
    import ast
    answers = [n.value for n in ast.walk(tree) if isinstance(n, ast.Assign)
               and any(isinstance(t, ast.Name) and t.id == question for t in n.targets)]
    read = {n.id for a in answers for n in ast.walk(a) if isinstance(n, ast.Name)}
    feeding = answers + [n.value for n in ast.walk(tree) if isinstance(n, ast.Assign)
                         and any(isinstance(t, ast.Name) and t.id in read for t in n.targets)]
    inside = {id(n) for v in feeding for n in ast.walk(v)}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1 \
                and len(node.generators[0].ifs) == 1 and id(node) in inside:
            gen = node.generators[0]
            out.append((gen.target, gen.iter, gen.ifs[0]))
        elif isinstance(node, ast.For):
            for stmt in node.body:
                if isinstance(stmt, ast.If) and any(isinstance(s, ast.Assign) and any(
                        isinstance(t, ast.Name) and t.id == question for t in s.targets) for s in stmt.body):
                    out.append((node.target, node.iter, stmt.test))
    return out


def _rows_of(target, iterable, options):
    """[(letter, {expression: text})] of one search's loop over one options literal (.items(), its keys, .values(),
    enumerate of a list), the expression being how the condition names that option's text; None when the loop
    is not over that literal, or not in a way read here."""
    import ast
    name, table, letters = options
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) and not iterable.args \
            and isinstance(iterable.func.value, ast.Name) and iterable.func.value.id == name:
        kind = iterable.func.attr
    elif isinstance(iterable, ast.Name) and iterable.id == name:
        kind = "keys"
    elif isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "enumerate" \
            and len(iterable.args) == 1 and isinstance(iterable.args[0], ast.Name) and iterable.args[0].id == name:
        kind = "enumerate"
    else:
        return None
    pair = isinstance(target, ast.Tuple) and len(target.elts) == 2 and all(isinstance(e, ast.Name) for e in target.elts)
    rows = []
    for letter in letters:
        if kind in ("items", "enumerate") and pair:
            rows.append((letter, {target.elts[1].id: table[letter]}))
        elif kind == "keys" and isinstance(target, ast.Name):
            rows.append((letter, {ast.dump(ast.Subscript(ast.Name(name, ast.Load()), ast.Name(target.id, ast.Load()),
                                                         ast.Load())): table[letter]}))
        else:
            return None
    return rows


def keyword_search_hits(cell: str, question: str, options_found) -> tuple[list[str], list[str]] | None:
    """(the letters whose option text the cell's search matches, in the options' order; the words it searches for)
    when the cell sets `question` from something else than a literal and holds a search read here over one of the
    options literals; None otherwise."""
    import ast
    tree = _parsed(cell)
    if tree is None:
        return None
    answers = [n for n in ast.walk(tree) if isinstance(n, ast.Assign)
               and any(isinstance(t, ast.Name) and t.id == question for t in n.targets)]
    if not answers or all(isinstance(a.value, ast.Constant) for a in answers):
        return None
    words = _word_constants(tree)
    steps = [100_000]       # for every search and options literal together (rt138: each pair was its own budget)
    for target, iterable, condition in _searches(tree, question):
        searched = sorted({n.value for n in ast.walk(condition) if isinstance(n, ast.Constant) and isinstance(
            n.value, str)} | {words[n.id] for n in ast.walk(condition) if isinstance(n, ast.Name) and n.id in words})
        for options in options_found:
            rows = _rows_of(target, iterable, options)
            if rows is None or not searched:
                continue
            try:
                hits = [letter for letter, texts in rows if _condition_value(
                    condition, lambda n, texts=texts: texts.get(n.id if isinstance(n, ast.Name) else ast.dump(n)),
                    words, steps)]
            except (_Unread, TypeError, AttributeError, ValueError, RecursionError, MemoryError):
                continue   # a condition nested past the stack (`if not not ... "variance" in v`, 990: rt137) is unread
            return [h.strip().upper() for h in hits], searched
    return None


def raise_if_keyword_search(question: str, value, answer: str, submission) -> None:
    """answer_by_keyword_search (naming38, blind37 q7_answer_keyword_search_hits_negated_option): a wrong letter
    that the cell setting `question` picks by a word search over a literal of the options' texts, where that
    search, read off the source and evaluated here on those texts, gives exactly this letter (its first hit,
    next(...) or [0], or its last, a loop that keeps overwriting). What that option says is then not what the
    student believes (the letter's own misconception would say so): the search picked it."""
    from autograder.grading.source_checks import cells_of
    if not isinstance(value, str) or submission is None:
        return
    letter = value.strip().upper()
    if letter not in _LETTERS or letter == answer.upper():
        return
    cells = cells_of(submission)
    options_found = [o for cell in cells if (tree := _parsed(cell)) is not None for o in _literal_options(tree)]
    if not options_found:
        return
    for cell in cells:
        if question not in cell:
            continue
        found = keyword_search_hits(cell, question, options_found)
        if found is None or not found[0] or letter not in (found[0][0], found[0][-1]):
            continue
        hits, searched = found
        said = " and ".join(repr(w) for w in searched[:3])
        which = "the only" if len(hits) == 1 else "the first" if letter == hits[0] else "the last"
        raise Misconception("answer_by_keyword_search", f"{question} is {value!r}, {which} option whose text "
                            f"matches your cell's search for {said}, and it is not the best answer: "
                            + describe("answer_by_keyword_search"))


# --- q5..q7: a wrong letter (or number) that the answer cell's CODE computed (blind38, round 39) ------------
# max() over a dict (its largest key), an exact float == that never holds (the placeholder kept), a check that
# falls back to another letter, "DC"[flag] read the wrong way round: the letter is what the code picked, not a
# belief the student holds, so that letter's misconception is not said. Read off the source (parsed, never run).
_STR_FOLDS = ("strip", "upper", "lower", "casefold", "lstrip", "rstrip")


def _string_literal(node, literals: dict[str, str]) -> bool:
    """A string written out: "D", "d".upper(), f"D" with no fields, or a name bound once in the notebook to one. The
    folds are looked through in a loop (red-team round 137: `"B".upper().upper()...`, 999 calls, recursed past the
    stack, and q5 said RecursionError instead of answer_computed_by_code)."""
    import ast
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _STR_FOLDS \
            and not node.args and not node.keywords:
        node = node.func.value
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return all(isinstance(v, ast.Constant) for v in node.values)
    return isinstance(node, ast.Name) and node.id in literals


def _formula(node) -> bool:
    """An arithmetic expression of names and numbers (`d_k`, `d_k ** 2`), reading at least one name."""
    import ast
    parts = list(ast.walk(node))
    return any(isinstance(n, ast.Name) for n in parts) and all(
        isinstance(n, (ast.Name, ast.Constant, ast.BinOp, ast.UnaryOp, ast.Load, ast.operator, ast.unaryop))
        for n in parts)


def answer_bindings(cells: list[str], question: str):
    """(the source of each binding of `question` in the last cell that binds it, in order; the value nodes;
    the names bound exactly once in the notebook to a string literal; that cell's parsed tree); None when no cell
    binds it or a cell that names it does not parse."""
    import ast
    last, literals, seen = None, {}, {}
    for cell in cells:
        tree = _parsed(cell)
        if tree is None:
            if question in cell:
                return None
            continue
        for name, word in _word_constants(tree).items():
            seen[name] = seen.get(name, 0) + 1
            literals[name] = word
        found = sorted((n for n in ast.walk(tree) if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign))
                        and any(isinstance(t, ast.Name) and t.id == question
                                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))),
                       key=lambda n: (n.lineno, n.col_offset))
        if found:
            last = (cell, found, tree)
    if last is None:
        return None
    cell, found, tree = last
    literals = {k: v for k, v in literals.items() if seen[k] == 1 and k != question}
    from autograder.grading.pyparse import Segments
    segments = Segments(cell)
    return [(segments.of(n) or question).strip() for n in found], [n for n in found], literals, tree


def _count_arithmetic(node) -> bool:
    """An expression that only counts: int constants, names, len(...), ord of a one-letter string, + - * //."""
    import ast
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)) \
            and _count_arithmetic(node.left) and _count_arithmetic(node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1 and not node.keywords:
        arg = node.args[0]
        return node.func.id == "len" or (node.func.id == "ord" and isinstance(arg, ast.Constant)
                                         and isinstance(arg.value, str) and len(arg.value) == 1)
    return False


def _letter_by_count(node) -> bool:
    """A letter picked by counting: chr(ord("A") + n) (or chr(64 + n)), with n only counted (constants, names,
    len(...)); or a run of letters that begins with the options' ("ABCDE...", string.ascii_uppercase) indexed by
    such a count."""
    import ast
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _STR_FOLDS \
            and not node.args and not node.keywords:
        node = node.func.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "chr" \
            and len(node.args) == 1 and not node.keywords:
        arg = node.args[0]
        return isinstance(arg, ast.BinOp) and isinstance(arg.op, (ast.Add, ast.Sub)) and _count_arithmetic(arg) \
            and any((isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "ord")
                    or (isinstance(n, ast.Constant) and type(n.value) is int and 60 <= n.value <= 100)
                    for n in ast.walk(arg))
    if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice) and _count_arithmetic(node.slice):
        base = node.value
        return (isinstance(base, ast.Constant) and isinstance(base.value, str)
                and base.value.upper().startswith("".join(_LETTERS) + chr(ord(_LETTERS[-1]) + 1))) \
            or (isinstance(base, ast.Attribute) and base.attr in ("ascii_uppercase", "ascii_lowercase",
                                                                 "ascii_letters"))
    return False


def raise_if_letter_past_options(question: str, value, submission) -> None:
    """answer_letter_past_last_option (round 52, blind52 q7_answer_last_letter_as_a_plus_option_count): the answer is
    the letter right after the last option ('E' for options A..D), and the last binding of `question` counts it out
    (chr(ord("A") + 4), "ABCDE"[n_options], string.ascii_uppercase[4]): the count ran one past the options. A
    literal 'E', or a letter two past, or one a probe or a test worked out, is not named."""
    import ast
    from autograder.grading.source_checks import cells_of
    if submission is None or not isinstance(value, str):
        return
    past = chr(ord(_LETTERS[-1]) + 1)
    if value.strip().strip("()").strip().upper() != past:
        return
    found = answer_bindings(cells_of(submission), question)
    if found is None:
        return
    sources, nodes, _literals, _tree = found
    last = nodes[-1]
    try:
        if not isinstance(last, (ast.Assign, ast.AnnAssign)) or last.value is None or not _letter_by_count(last.value):
            return
    except (RecursionError, MemoryError):   # a count nested past the stack (600 `+ 1 - 1`: red-team round 70)
        return
    raise Misconception("answer_letter_past_last_option", f"{question} is {value.strip()!r}, the letter your code "
                        f"counts out (`{_shown_binding(sources[-1:])}`): one past the last option, {_LETTERS[-1]}, so "
                        "it is no option at all: " + describe("answer_letter_past_last_option"))


def _shown_binding(sources: list[str]) -> str:
    shown = [s.splitlines()[0][:70] + ("..." if len(s.splitlines()[0]) > 70 or "\n" in s else "")
             for s in sources[-3:]]
    return "`, then `".join(shown)


def raise_if_computed_choice(question: str, value, answer: str, submission) -> None:
    """answer_computed_wrong_choice: a wrong letter where the last cell that binds `question` computes it
    (max over a dict, a test with a fallback letter, an index, a loop that assigns under a condition) rather
    than writing a string literal: the code picked the option, so no belief is said. answer_value_not_letter
    with the formula shown: a number that the binding reads from the notebook's names (`q5_answer = d_k`), a
    value, not an option's number. Lesson-citing cells that give the lesson's letter are left to
    raise_if_lesson_letter."""
    import ast
    import numbers
    from autograder.grading.source_checks import cells_of
    if submission is None:
        return
    number = isinstance(value, numbers.Number) and not isinstance(value, bool)
    if not number and not (isinstance(value, str) and value.strip().upper() in _LETTERS
                           and value.strip().upper() != answer.upper()):
        return
    cells = cells_of(submission)
    found = answer_bindings(cells, question)
    if found is None:
        return
    sources, nodes, literals, tree = found
    values = [n.value for n in nodes]
    if any(v is None or isinstance(n, ast.AugAssign) for n, v in zip(nodes, values)):
        return
    if number:
        local = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        names = sorted({n.id for n in ast.walk(values[0]) if isinstance(n, ast.Name)})
        if len(values) == 1 and _formula(values[0]) and not set(names) & local:
            read = ", ".join(f"`{n}`" for n in names[:3])
            plural = "s" if len(names) > 1 else ""
            raise Misconception("answer_value_not_letter", f"{question} is {value!r}, the value of the unquoted "
                                f"formula `{sources[-1].split('=', 1)[-1].strip()[:70]}`: it reads the notebook's "
                                f"variable{plural} {read}, so it is a number, not a letter (nor an option's number): "
                                + describe("answer_value_not_letter"))
        return
    letter = value.strip().upper()
    lesson = LESSON_LETTER.get(question, ("", ""))[0]
    if letter == lesson and any(CITES_LESSON.search(c) for c in cells if question in c):
        return
    how = _mechanical_pick(tree, nodes, value, literals)
    if how is not None:
        raise Misconception("answer_computed_wrong_choice", f"{question} is {value!r}, the letter your code "
                            f"picked: {how} (`{_shown_binding(sources)}`); it is not the best answer: "
                            + describe("answer_computed_wrong_choice"))


def _bound_in(tree, name: str):
    """The value of the last top-level-or-nested `name = ...` in the cell, or None."""
    import ast
    found = [n for n in ast.walk(tree) if isinstance(n, ast.Assign) and len(n.targets) == 1
             and isinstance(n.targets[0], ast.Name) and n.targets[0].id == name]
    return max(found, key=lambda n: (n.lineno, n.col_offset)).value if found else None


def _truth_value(node, tree, depth=0) -> bool:
    """An expression that gives True or False: a comparison, not, and/or, bool(...), torch.allclose/equal(...),
    a truth constant, or a name bound in the cell to one of those."""
    import ast
    if isinstance(node, (ast.Compare, ast.BoolOp)) or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)):
        return True
    if isinstance(node, ast.Constant):
        return isinstance(node.value, bool)
    if isinstance(node, ast.Call):
        f = node.func
        return (isinstance(f, ast.Name) and f.id == "bool") or (
            isinstance(f, ast.Attribute) and f.attr in ("allclose", "equal", "isclose", "all", "any", "item")
            and (f.attr != "item" or _truth_value(f.value, tree, depth + 1)))
    if isinstance(node, ast.Name) and tree is not None and depth < 3:
        bound = _bound_in(tree, node.id)
        return bound is not None and _truth_value(bound, tree, depth + 1)
    return False


_GRADED_NAMES = frozenset({"attention", "multi_head_attention", "softmax_entropy", "dot_product_variance",
                           "entropy_table"})


def _last_bindings(tree) -> dict:
    """{name: the value of its last `name = ...` in the cell} (_bound_in for every name, in one walk)."""
    import ast
    last: dict = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            held = last.get(n.targets[0].id)
            if held is None or (n.lineno, n.col_offset) > held[0]:
                last[n.targets[0].id] = ((n.lineno, n.col_offset), n.value)
    return {name: value for name, (_at, value) in last.items()}


def _probes_graded_function(node, tree, depth=0, bindings=None, reached=None) -> bool:
    """(naming78) The truth value calls one of the notebook's graded functions (attention(X, X, X), ...) directly or
    through a name bound in the cell: a probe whose outcome picks the letter. Then (if_false, if_true)[flag] is read
    as the student wrote it, and what is wrong is what the probe measures (answer_computed_by_code), not the order.
    The cell's bindings are read once and each name followed once per depth (red-team round 140: a name used k times,
    bound to k uses of another, three deep, was k^3 walks of the cell, 80 of them over the 30 s guard)."""
    import ast
    if tree is None:
        bindings = {}
    elif bindings is None:
        bindings = _last_bindings(tree)
    reached = {} if reached is None else reached     # name -> the least depth it was followed from
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _GRADED_NAMES:
            return True
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and depth < 3 \
                and n.id not in _GRADED_NAMES and reached.get(n.id, 99) > depth:
            reached[n.id] = depth
            bound = bindings.get(n.id)
            if bound is not None and _probes_graded_function(bound, tree, depth + 1, bindings, reached):
                return True
    return False


def _mechanical_pick(tree, nodes, value, literals) -> str | None:
    """How the cell's code picked this letter mechanically, whatever the student meant (None: not one of these):
    max/min/sorted over a dict with no key= (it compares the letters, the keys); a string or tuple of letters indexed
    by a truth value (False is 0, True is 1: "DC"[True] is 'C'); a placeholder letter set first and only replaced
    inside a loop or test that never assigned. A letter from a test's own branch, or from a key= the student wrote,
    is what the student's check concluded: not said here."""
    import ast
    if tree is None:
        return None
    last = nodes[-1].value
    core = last
    while isinstance(core, ast.Call) and isinstance(core.func, ast.Attribute) and core.func.attr in _STR_FOLDS:
        core = core.func.value
    index = None
    if isinstance(core, ast.Subscript) and isinstance(core.value, ast.Call):
        try:
            index = ast.literal_eval(core.slice)                       # sorted(d)[-1]
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            index = None
        index = index if type(index) is int else None
        core = core.value if index is not None else core
    if isinstance(core, ast.Call) and isinstance(core.func, ast.Name) and core.func.id in ("max", "min", "sorted") \
            and len(core.args) == 1 and not any(kw.arg == "key" for kw in core.keywords) \
            and (core.func.id == "sorted") == (index is not None):
        arg = core.args[0]
        if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and arg.func.attr == "keys" \
                and not arg.args:
            arg = arg.func.value
        bound = _bound_in(tree, arg.id) if isinstance(arg, ast.Name) else arg
        keys = [k.value for k in bound.keys] if isinstance(bound, ast.Dict) and all(
            isinstance(k, ast.Constant) and isinstance(k.value, str) for k in bound.keys) else []
        try:
            picked = max(keys) if core.func.id == "max" else min(keys) if core.func.id == "min" \
                else sorted(keys)[index]
        except (ValueError, IndexError, TypeError):
            picked = None
        if picked is not None and picked == value:      # what that call gives on the dict written in the cell
            which = {"max": "the largest", "min": "the smallest", "sorted": "an end of the sorted"}[core.func.id]
            return (f"{core.func.id}() over a dict compares its keys, the letters, so it gives {which} letter "
                    "whatever the values say; to pick by the values pass key=your_dict.get")
    if isinstance(last, ast.Subscript) and (
            (isinstance(last.value, ast.Constant) and isinstance(last.value.value, str) and len(last.value.value) >= 2)
            or (isinstance(last.value, (ast.Tuple, ast.List)) and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in last.value.elts))) \
            and _truth_value(last.slice, tree) and not _probes_graded_function(last.slice, tree) and value in (
                [last.value.value[0], last.value.value[1]] if isinstance(last.value, ast.Constant)
                else [e.value for e in last.value.elts[:2]]):
        return ("a truth value used as an index counts as 0 (False) or 1 (True), so (if_false, if_true)[flag] "
                "takes its FIRST item when the flag is False and its second when it is True")
    first = nodes[0].value
    top = {id(s) for s in tree.body}
    if len(nodes) >= 2 and id(nodes[0]) in top and _string_literal(first, literals) \
            and all(id(n) not in top for n in nodes[1:]) and isinstance(first, ast.Constant) \
            and str(first.value).strip().upper() == value.strip().upper():
        exact = any(isinstance(n, ast.Compare) and any(isinstance(op, (ast.Eq, ast.NotEq)) for op in n.ops)
                    for n in ast.walk(tree))
        return (f"the placeholder {first.value!r} set first was never replaced: the assignment inside the loop or "
                "test never ran" + (" (a measured float compared with == almost never equals an option's exact "
                                    "value; compare with a tolerance or take the closest option)" if exact else ""))
    return None


# --- q8: one buffer written by every head and appended each time (blind38, round 39) ------------------------
_INPLACE_WRITES = ("copy_", "zero_", "fill_", "add_", "mul_", "div_", "sub_", "addmm_", "baddbmm_")


def _shared_buffer_lines(submission) -> list[str]:
    """The source lines of multi_head_attention (read, never run) where a loop appends to a list (append,
    insert, +=, heads[h] = ...) a name bound before the loop and not rebound inside it, which the loop writes in
    place (out=name, name.copy_(...), name[...] = ...): the list then holds that one tensor n_heads times."""
    import ast
    from autograder.grading.source_checks import cells_of
    found = []
    for cell in cells_of(submission) if submission is not None else []:
        tree = _parsed(cell)
        if tree is None:
            continue
        for fdef in ast.walk(tree):
            if not (isinstance(fdef, ast.FunctionDef) and fdef.name == "multi_head_attention"):
                continue
            for loop in (n for n in ast.walk(fdef) if isinstance(n, (ast.For, ast.While))):
                inner = [n for stmt in loop.body for n in ast.walk(stmt)]
                rebound = {n.id for n in inner if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
                stored = set()
                for n in inner:
                    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in (
                            "append", "insert") and n.args and isinstance(n.args[-1], ast.Name):
                        stored.add(n.args[-1].id)
                    elif isinstance(n, ast.AugAssign) and isinstance(n.value, ast.List) and len(n.value.elts) == 1 \
                            and isinstance(n.value.elts[0], ast.Name):
                        stored.add(n.value.elts[0].id)
                    elif isinstance(n, ast.Assign) and isinstance(n.value, ast.Name) and all(
                            isinstance(t, ast.Subscript) for t in n.targets):
                        stored.add(n.value.id)
                written = {}
                for n in inner:
                    if isinstance(n, ast.Call):
                        for kw in n.keywords:
                            if kw.arg == "out" and isinstance(kw.value, ast.Name):
                                written[kw.value.id] = n
                        if isinstance(n.func, ast.Attribute) and n.func.attr in _INPLACE_WRITES \
                                and isinstance(n.func.value, ast.Name):
                            written[n.func.value.id] = n
                    elif isinstance(n, (ast.Assign, ast.AugAssign)):
                        for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                            if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                                written[t.value.id] = n
                for name in sorted((stored & set(written)) - rebound):
                    found.append((ast.get_source_segment(cell, written[name]) or name).strip().splitlines()[0][:80])
    return found


def raise_if_shared_head_buffer(submission, m: Misconception, got, X, Ws, n_heads, what: str) -> Misconception:
    """mha_heads_share_one_buffer where the output matched a fixed head slice: when every head's block equals the
    LAST head's right output (what a buffer written by each head and appended n_heads times gives after the
    loop: the same numbers as slicing head n_heads - 1 for every head) and the source shows that buffer (one
    name appended in the loop and written in place there, never rebound), the slice is not the cause.
    Anything else: `m` unchanged."""
    if m.key != "mha_head_slice_fixed" or n_heads < 2 or type(got) is not torch.Tensor:
        return m
    X64, W64 = X.double(), [w.double() for w in Ws]
    heads = _mha_heads(X64, *W64[:3], n_heads)
    last = torch.cat([heads[-1]] * n_heads, dim=-1) @ W64[3]
    right = torch.cat(heads, dim=-1) @ W64[3]
    if not matching_variants(got, {"last": last}, X.dtype, expected=right):
        return m
    lines = _shared_buffer_lines(submission)
    if not lines:
        late = closure_reads_loop_name(_function_read(submission, "multi_head_attention"))   # naming72
        if late is None:
            return m
        return Misconception("closure_bound_late", f"{what} is wrong: every head's block is the LAST head's output "
                             f"({n_heads} heads, all equal to head {n_heads - 1}), and a lambda or inner function of "
                             f"your multi_head_attention reads `{ascii(late)[1:-1]}`, which its loop sets, so each "
                             f"one cuts head {n_heads - 1}'s columns when it is called: "
                             + describe("closure_bound_late"))
    return Misconception("mha_heads_share_one_buffer", f"{what} is wrong: every head's block is the LAST head's "
                         f"output ({n_heads} heads, all equal to head {n_heads - 1}), and your loop writes each head "
                         f"into one tensor it appends every time (`{lines[0]}`): "
                         + describe("mha_heads_share_one_buffer"))


# --- naming43: blind42's kinds ---------------------------------------------------------------------------------

def one_head_shortcut(m: Misconception, got, X, Ws, n_heads, what: str) -> Misconception:
    """mha_one_head_skips_projections (blind42's q8_one_head_shortcut_skips_projections): with n_heads == 1 the
    output matched mha_no_input_projections, and a replay of attention(X, X, X, d_model) @ W_O on the same input
    equals it while the right one-head output does not (the several-head case of the same test runs first, so a
    code that skips the projections for any head count is named there). Anything else: `m` unchanged."""
    if m.key != "mha_no_input_projections" or n_heads != 1 or type(got) is not torch.Tensor:
        return m
    X64, W64 = X.double(), [w.double() for w in Ws]
    right = ref.multi_head_attention(X64, *W64, 1)
    replay = ref.attention(X64, X64, X64, X.shape[-1])[0] @ W64[3]
    if not matching_variants(got, {"shortcut": replay}, X.dtype, expected=right):
        return m
    return Misconception("mha_one_head_skips_projections", f"with n_heads = 1, {what} equals attention(X, X, X) @ "
                         "W_O on the same input: the one head attends over X itself, not over X @ W_Q, X @ W_K, "
                         "X @ W_V: " + describe("mha_one_head_skips_projections"))


def _chained_projections(X, W_Q, W_K, W_V, sources: dict) -> dict:
    """Q, K, V (float64) where role r is (the tensor named by sources[r]) @ its own W: 'x' is X itself, 'q', 'k',
    'v' another role's projection (itself chained or not). None where the sources form a cycle."""
    mats = {"q": W_Q.double(), "k": W_K.double(), "v": W_V.double()}
    done: dict = {"x": X.double()}

    def get(r, seen=()):
        if r not in done:
            if r in seen:
                return None
            src = get(sources[r], (*seen, r))
            if src is None:
                return None
            done[r] = src @ mats[r]
        return done[r]
    return {r: get(r) for r in "qkv"}


def chained_projection_variants(X, W_Q, W_K, W_V, W_O, n_heads) -> dict:
    """mha_projection_chained (naming44, blind43 q8_projections_chained_from_previous_projection): one or more of
    Q, K, V projected from another projection instead of from X (K = Q @ W_K, V = K @ W_V; V = Q @ W_V; Q = K @ W_Q
    after K ...), every acyclic choice of sources with at least one not X, the heads then split and merged right.
    Only for square projections (a chain needs X's width). Random, distinct weights: none of these equals the
    right output, another of them or another catalogued variant on the test shapes (naming44 checked)."""
    import itertools
    d_model = X.shape[-1]
    if X.dim() != 2 or n_heads < 1 or d_model % n_heads \
            or not all(tuple(w.shape) == (d_model, d_model) for w in (W_Q, W_K, W_V)):
        return {}
    d_k = d_model // n_heads
    W = W_O.double()
    out = {}
    for srcs in itertools.product(*(("x", *(o for o in "qkv" if o != r)) for r in "qkv")):
        if set(srcs) == {"x"}:
            continue
        sources = dict(zip("qkv", srcs))
        p = _chained_projections(X, W_Q, W_K, W_V, sources)
        if any(v is None for v in p.values()):
            continue
        heads = [ref.attention(*(p[r][:, h * d_k:(h + 1) * d_k] for r in "qkv"), d_k)[0] for h in range(n_heads)]
        tag = "_".join(f"{r}_from_{s}" for r, s in sources.items() if s != "x")
        out[f"mha_projection_chained/{tag}"] = torch.cat(heads, dim=-1) @ W
    return out


def projection_chain_said(m: Misconception, got, X, Ws, n_heads, what: str) -> Misconception:
    """mha_projection_chained told with the chain that matched (K = Q @ W_K, V = K @ W_V): the variant is found
    again on the same inputs; `m` unchanged for any other key or where not exactly one chain matches."""
    if m.key != "mha_projection_chained" or type(got) is not torch.Tensor:
        return m
    X64, W64 = X.double(), [w.double() for w in Ws]
    right = ref.multi_head_attention(X64, *W64, n_heads)
    found = matching_variants(got, chained_projection_variants(X64, *W64, n_heads), X.dtype, expected=right)
    if len(found) != 1:
        return m
    pairs = [part.split("_from_") for part in re.findall(r"[qkv]_from_[xqkv]", found[0].split("/", 1)[1])]
    said = ", ".join(f"{r.upper()} = {s.upper()} @ W_{r.upper()}" for r, s in pairs)
    return Misconception("mha_projection_chained", f"{what} is wrong: it equals the output with {said} on the same "
                         "input: " + describe("mha_projection_chained"))


def table_swap_said(m: Misconception, table, dims, seed) -> Misconception:
    """table_fields_swapped told with the two columns whose values are exchanged (blind43's
    q4_table_row_zipped_with_keys_out_of_order: scaled_std and H_raw, from a value list zipped with the keys in
    another order), found again among the one-pair swaps of the right table; `m` unchanged for any other key or
    where not exactly one pair matches."""
    if m.key == "float16_precision" and type(table) is torch.Tensor:
        # naming55: a bfloat16 number in float16's range is a float16 number too: the exact bfloat16 replay tells
        try:
            raise_if_low_precision_table(table, ref.table_as_tensor(ref.entropy_table(dims, seed)), dims, seed,
                                         _LOW_DTYPES[:1])
        except Misconception as low:
            return low
        return m
    if m.key != "table_fields_swapped" or type(table) is not torch.Tensor:
        return m
    swaps = {k: ref.table_as_tensor(v) for k, v in ref.table_fields_swapped(ref.entropy_table(dims, seed)).items()}
    found = matching_variants(table, swaps, torch.float32, expected=ref.table_as_tensor(ref.entropy_table(dims, seed)))
    if len(found) != 1:
        return m
    a, b = next((a, b) for a in TABLE_COLUMNS for b in TABLE_COLUMNS
                if a != b and found[0] == f"table_fields_swapped/{a}_{b}")
    return Misconception("table_fields_swapped", f"the entropy table's {a} and {b} hold each other's values in every "
                         f"row ({a} has what {b} should, and {b} what {a} should), every other column is right: "
                         + describe("table_fields_swapped"))


# --- q5..q7: a probe's own slip, read off the answer cell (naming47, blind47) ------------------------------------
# The letter is wrong because the cell's experiment is broken, and answer_computed_by_code would quote its last
# line. Each reader below names one slip only where the cell that binds the answer holds that slip's exact shape
# (parsed, never run) and nothing that would repair it; the letter must be one the broken probe gives.

def _compares(tree) -> bool:
    """The cell compares something: ==, <, ... or torch.allclose / equal / isclose."""
    import ast
    return any(isinstance(n, ast.Compare) or _called(n) in ("allclose", "equal", "isclose", "assert_close")
               for n in ast.walk(tree))


_MHA_REPAIRS = ("in_proj_weight", "q_proj_weight", "k_proj_weight", "v_proj_weight", "out_proj", "in_proj_bias",
                "load_state_dict", "_reset_parameters", "init", "copy_", "fill_", "set_", "state_dict", "parameters",
                "named_parameters", "_parameters")


def fresh_multihead_reference(tree) -> str | None:
    """probe_against_fresh_multihead_attention (blind47 q6_answer_check_against_fresh_nn_multihead_attention): the
    cell builds an nn.MultiheadAttention, calls it, compares, and never touches its parameters (no in_proj_weight,
    out_proj, load_state_dict, nn.init, copy_...): its random projections can never give attention(X, X, X).
    The source of the construction, else None."""
    import ast
    made = [n for n in ast.walk(tree) if _called(n) == "MultiheadAttention"]
    if not made or not _compares(tree):
        return None
    for n in ast.walk(tree):
        if (isinstance(n, ast.Attribute) and n.attr in _MHA_REPAIRS) or (isinstance(n, ast.Name)
                                                                         and n.id in _MHA_REPAIRS):
            return None
    return ast.unparse(made[0])


def _number_of(node, tree) -> float | None:
    """A positive number written out, or a name bound once in the cell to one."""
    import ast
    if isinstance(node, ast.Name):
        bound = [n for n in ast.walk(tree) if isinstance(n, ast.Assign)
                 and any(isinstance(t, ast.Name) and t.id == node.id for t in n.targets)]
        if len(bound) != 1:
            return None
        node = bound[0].value
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    return None


def sdpa_scale_as_width(tree) -> tuple[str, float] | None:
    """probe_sdpa_scale_given_d_k (blind47 q6_answer_check_sdpa_scale_keyword_given_d_k): the cell calls
    F.scaled_dot_product_attention with scale= a number above 1 (written out, or a name bound once in the cell to
    one: the head width), or its square root (math.sqrt(d), d ** 0.5), and compares: scale= is the factor the scores
    are multiplied by, so the reference multiplies where it should divide. (the scale's source, its value), else
    None; any division, negative power or rsqrt in the scale leaves it alone."""
    import ast
    for sdpa in (n for n in ast.walk(tree) if _called(n) == "scaled_dot_product_attention"):
        for kw in sdpa.keywords:
            if kw.arg != "scale":
                continue
            v = kw.value
            c = _number_of(v, tree)
            if c is None and _called(v) == "sqrt" and len(v.args) == 1 and not v.keywords:
                inner = _number_of(v.args[0], tree)
                c = math.sqrt(inner) if inner is not None and inner > 0 else None
            if c is None and isinstance(v, ast.BinOp) and isinstance(v.op, ast.Pow) \
                    and isinstance(v.right, ast.Constant) and v.right.value == 0.5:
                inner = _number_of(v.left, tree)
                c = math.sqrt(inner) if inner is not None and inner > 0 else None
            if c is not None and c > 1 and _compares(tree):
                return ast.unparse(v), c
    return None


def _chain_root(node):
    """The name a chain of attribute reads and method calls starts from (`Q.detach().clone()` -> Q); not through an
    index (_root_name, q8's, goes through those too)."""
    import ast
    while isinstance(node, (ast.Call, ast.Attribute)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def grad_of_detached_original(tree) -> tuple[str, str] | None:
    """probe_grad_read_from_original (blind47 q7_answer_grad_read_from_original_after_detached_copy): the cell binds
    B = A.detach()... (a copy cut from A's graph), passes B to a call, runs the backward pass, and reads A.grad but never
    B.grad: A is not in the graph the backward ran through, so its .grad stays None. (A, B), else None."""
    import ast
    if not any(_called(n) == "backward" for n in ast.walk(tree)):
        return None
    grads = {n.value.id for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "grad"
             and isinstance(n.value, ast.Name)}
    for n in ast.walk(tree):
        if not (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)):
            continue
        b = n.targets[0].id
        if not any(_called(c) == "detach" for c in ast.walk(n.value)):
            continue
        a = _chain_root(n.value)
        if a is None or a == b or a not in grads or b in grads:
            continue
        passed = any(isinstance(c, ast.Call) and any(isinstance(x, ast.Name) and x.id == b for x in c.args)
                     for c in ast.walk(tree))
        rebound = sum(isinstance(t, ast.Name) and t.id == a for m in ast.walk(tree) if isinstance(m, ast.Assign)
                      for t in m.targets)
        if passed and rebound == 1:
            return a, b
    return None


def kernel_estimate_not_normalised(tree) -> tuple[str, str] | None:
    """probe_kernel_not_normalised (blind47 q7_answer_kernel_check_without_normalising): the cell binds N = exp(...)
    (a kernel), multiplies it into the values (N @ V) and compares, and nothing in the cell divides by a sum or
    normalises (no `/ ... .sum(...)`, no softmax, normalize or sum call on N): sum_j k(q, k_j) v_j is not a weighted
    average. (N, the product's source), else None."""
    import ast
    for n in ast.walk(tree):
        if _called(n) in ("softmax", "normalize", "log_softmax"):
            return None
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div) \
                and any(_called(c) in ("sum", "nansum") for c in ast.walk(n.right)):
            return None
    if not _compares(tree):
        return None
    kernels = {n.targets[0].id for n in ast.walk(tree) if isinstance(n, ast.Assign) and len(n.targets) == 1
               and isinstance(n.targets[0], ast.Name) and _called(n.value) == "exp"}
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and _chain_root(n) in kernels and _called(n) in ("sum", "div", "div_",
                                                                                       "true_divide"):
            return None
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div) and any(
                isinstance(c, ast.Name) and c.id in kernels for c in ast.walk(n.right)):
            return None
    for n in ast.walk(tree):
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult) and isinstance(n.left, ast.Name) \
                and n.left.id in kernels:
            return n.left.id, ast.unparse(n)
    return None


def dot_product_as_mean(tree) -> str | None:
    """probe_dot_product_as_mean (blind47 q5_answer_probe_dot_as_mean_of_products): the cell binds
    X = (a * b).mean(...) (or torch.mean(a * b, ...)), the products of two draws averaged where the dot product sums
    them, and takes X's .var() with nothing multiplying it back: its variance is about 1/d_k. X's binding, else None."""
    import ast
    for n in ast.walk(tree):
        if not (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)):
            continue
        v = n.value
        if _called(v) != "mean":
            continue
        if not isinstance(v.func, ast.Attribute):
            continue
        if isinstance(v.func.value, ast.Name) and v.func.value.id == "torch":   # torch.mean(a * b, dim=-1)
            arg = v.args[0] if v.args else None
        else:                                                                   # (a * b).mean(dim=-1)
            arg = v.func.value
        if not (isinstance(arg, ast.BinOp) and isinstance(arg.op, ast.Mult)
                and all(isinstance(s, ast.Name) for s in (arg.left, arg.right))):
            continue
        x = n.targets[0].id
        uses = [m for m in ast.walk(tree) if isinstance(m, ast.Name) and m.id == x and isinstance(m.ctx, ast.Load)]
        var_of = [m for m in ast.walk(tree) if _called(m) == "var" and (
            (isinstance(m.func, ast.Attribute) and isinstance(m.func.value, ast.Name) and m.func.value.id == x)
            or (m.args and isinstance(m.args[0], ast.Name) and m.args[0].id == x))]
        if len(uses) == 1 and len(var_of) == 1:
            return ast.unparse(n)
    return None


# question -> ((reader, the wrong letters that slip gives, key), ...)
_PROBE_SLIPS = {
    "q5_answer": ((dot_product_as_mean, "A", "probe_dot_product_as_mean"),),
    "q6_answer": ((fresh_multihead_reference, "BCD", "probe_against_fresh_multihead_attention"),
                  (sdpa_scale_as_width, "BCD", "probe_sdpa_scale_given_d_k")),
    "q7_answer": ((grad_of_detached_original, "ABC", "probe_grad_read_from_original"),
                  (kernel_estimate_not_normalised, "ABC", "probe_kernel_not_normalised")),
}


def raise_if_probe_slip(question: str, value, answer: str, submission) -> None:
    """A wrong letter worked out by the cell that binds `question` where exactly one probe slip of _PROBE_SLIPS is
    read off that cell: named for that slip. Nothing otherwise (two slips read: left to the generic key)."""
    from autograder.grading.source_checks import cells_of
    if submission is None or not isinstance(value, str):
        return
    letter = value.strip().upper()
    if letter not in _LETTERS or letter == answer.upper():
        return
    found = answer_bindings(cells_of(submission), question)
    if found is None:
        return
    _sources, _nodes, _literals, tree = found
    if all(_string_literal_only(st) for st in tree.body):   # a letter written out: no probe to blame
        return
    hits = []
    for reader, letters, key in _PROBE_SLIPS.get(question, ()):
        got = reader(tree)
        if got is not None and letter in letters:
            hits.append((key, got))
    if len(hits) != 1:
        return
    key, got = hits[0]
    raise Misconception(key, f"{question} is {value!r}, the letter your cell's check gave, and it is not the best "
                        f"answer: {_probe_said(key, got)}{describe(key)}")


def _string_literal_only(node) -> bool:
    """A statement that only writes out a constant (`q6_answer = "C"`, a docstring)."""
    import ast
    return isinstance(node, (ast.Assign, ast.Expr)) and isinstance(node.value, ast.Constant)


def _probe_said(key: str, got) -> str:
    if key == "probe_sdpa_scale_given_d_k":
        return f"your reference passes scale={got[0][:30]}, which multiplies the scores by {got[1]:.4g}; "
    if key == "probe_grad_read_from_original":
        return f"the backward ran through `{got[1]}`, a detached copy, but the check reads `{got[0]}.grad`; "
    if key == "probe_kernel_not_normalised":
        return f"`{got[1][:40]}` is never divided by the kernel's row sum; "
    if key == "probe_against_fresh_multihead_attention":
        return "your reference is a fresh layer with random projections; "
    return f"`{got[:60]}` averages the products; "


def raise_if_uniform_weights(pair, Q, K, V, d_k) -> None:
    """uniform_weights (red-team 52): rows that sum to 1 because every weight is 1/T_k. Named when both results of
    the call are those of reference's uniform_weights variant on these inputs (weights 1/T_k, output the mean of V)
    and the right weights are not uniform there (q1's property test draws Q at 3 times the usual scale, so its
    scores are far apart): a softmax with another scale, or none, is not uniform and keeps the point."""
    if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(type(p) is torch.Tensor for p in pair)):
        return
    Q64, K64, V64 = Q.double(), K.double(), V.double()
    right = ref.attention(Q64, K64, V64, d_k)
    wrong = ref.ATTENTION_VARIANTS["uniform_weights"](Q64, K64, V64, d_k)
    if matching_variants(right[1], {"w": wrong[1]}, Q.dtype):
        return
    if all(tuple(p.shape) == tuple(w.shape) and matching_variants(p, {"w": w}, Q.dtype) for p, w in zip(pair, wrong)):
        T_k = K.shape[-2]
        raise Misconception("uniform_weights", f"every weight is 1/T_k = 1/{T_k} and the output is the mean of the "
                            "value rows: the rows sum to 1, but Q and K never reach the weights; it matches "
                            + describe("uniform_weights") + ": weights = softmax(Q K^T / sqrt(d_k), dim=-1)")


def check_square_keys(fn, dtype=torch.float32) -> None:
    """naming72 (blind73's uncaught q1_keys_transposed_back_when_length_equals_width): a call the notebook promises
    ("shapes you have not seen"), on inputs from a generator of their own (the test's rng is left as it was): K square,
    as many keys as their width (T_k = d_k = 6, K not symmetric), T_q = 7 (sqrt(7) is no other catalogued scale:
    isqrt(6) = 2, d_v = 3; more queries than keys, so a loop bounded by the other length crashes here as it does in the
    other tests, and is named there, instead of computing wrong values no diagnosis reads: the scan after round 72).
    Weights that are softmax(Q K / sqrt(d_k)) (K not transposed) where the same call on 5 of
    those keys is right name keys_layout_guessed_from_shape; anything else is checked as every call is (check_pair).
    Not a d_k other than the inputs' width: the notebook's shapes, Q (T_q, d_k), make d_k that width."""
    g = torch.Generator().manual_seed(72)
    Q, K, V = (torch.randn(shape, generator=g, dtype=torch.float64).to(dtype) for shape in ((7, 6), (6, 6), (6, 3)))
    pair = call_pair(fn, Q, K, V, 6)
    if isinstance(pair, (tuple, list)) and len(pair) == 2 and type(pair[1]) is torch.Tensor:
        as_is = torch.softmax(Q.double() @ K.double() / math.sqrt(6), dim=-1)
        if matching_variants(pair[1], {"v": as_is}, dtype) and _pair_right(fn, Q, K[:5], V[:5], 6):
            raise Misconception("keys_layout_guessed_from_shape", "with K square (6 keys of width 6: T_k = d_k) the "
                                "weights are softmax(Q K / sqrt(d_k)), K not transposed, while the same call on 5 of "
                                "those keys is right: " + describe("keys_layout_guessed_from_shape"))
    for part in ("weights", "output"):
        check_pair(pair, Q, K, V, 6, part, fn)


def check_size_one_axes(fn, rng, d_k=12, d_v=5, dtype=torch.float64, submission=None) -> None:
    """q1's output on 2-D inputs with one query (T_q = 1) and with one key (T_k = 1), which the notebook allows.
    An output of the right values whose shape is the right one with its size-one axes dropped (a bare .squeeze()
    after bmm, or on the result) names attention_size_one_axes_dropped; any other output is checked as every
    output is (check_pair: its known mistakes, else a generic failure). The weights are only evidence (their own
    tests charge them); a crash fails as it is (no diagnosis reruns it here)."""
    for T_q, T_k in ((1, 7), (4, 1)):
        Q, K, V = draw_inputs(rng, T_q, T_k, d_k, d_v, dtype)
        pair = call(fn, Q, K, V, d_k, what="attention")
        if isinstance(pair, (tuple, list)) and len(pair) == 2 and type(pair[0]) is torch.Tensor:
            out, want = pair[0], ref.attention(Q.double(), K.double(), V.double(), d_k)
            squeezed = tuple(s for s in want[0].shape if s != 1)
            if tuple(out.shape) != tuple(want[0].shape) and tuple(out.shape) == squeezed and out.dtype == dtype \
                    and matching_variants(out, {"v": want[0].reshape(squeezed)}, dtype):
                w = pair[1]
                also = (f" (and the weights {tuple(w.shape)}, not {tuple(want[1].shape)})"
                        if type(w) is torch.Tensor and tuple(w.shape) == tuple(s for s in want[1].shape if s != 1)
                        and tuple(w.shape) != tuple(want[1].shape) else "")
                raise Misconception("attention_size_one_axes_dropped", f"with {T_q} quer{'y' if T_q == 1 else 'ies'} "
                                    f"and {T_k} key{'' if T_k == 1 else 's'} (2-D inputs) the output has shape "
                                    f"{tuple(out.shape)}, not {tuple(want[0].shape)}{also}: the right values, a "
                                    "size-one axis gone: " + size_one_axes_said(submission))
            raise_if_single_key_value_once(out, Q, K, V, d_k, submission)   # naming66
        named = rows_left_uncomputed_again(fn, pair, Q, K, V, d_k)
        if named is not None:
            raise named
        check_pair(pair, Q, K, V, d_k, "output", fn)


# --- red-team 51: an estimate must vary between generators as a sample variance does (moved from q2.py) -------

SMALL_N = 4            # draws per estimate in raise_if_not_sampled (q2)
SMALL_SEEDS = 8        # generators at most: a right estimator's spread over 8 was never below 0.13 in 5000 tries
MIN_SPREAD = 0.05      # of the target; below it on 8 generators: P < 1e-7 for a sample variance of 4 draws


def raise_if_not_sampled(fn, d_k, rng, scaled, number):
    """An estimate that passed the band must vary between generators as a sample variance does: from n_samples = 4
    draws the estimates of a right estimator spread by about 70% of the target over generators (the band at
    n = 10000 cannot tell a real estimate from the target jittered by one draw of the generator: red-team round
    51). Three generators first, up to eight only while the spread stays under MIN_SPREAD (a right estimator
    is over it after three in nearly every grade). A crash on four draws fails the test as any crash does. `number`:
    q2's reading of a result as a number (its own failures said there)."""
    target = 1.0 if scaled else float(d_k)
    flag = {"scaled": True} if scaled else {}
    values = []
    for _ in range(SMALL_SEEDS):
        g = torch.Generator().manual_seed(int(torch.randint(0, 2**31 - 1, (1,), generator=rng)))
        got = call(fn, d_k, SMALL_N, g, **flag, what="dot_product_variance")
        values.append(number(got, f"dot_product_variance(d_k={d_k}, n_samples={SMALL_N}, ...)"))
        if len(values) >= 3 and statistics.pstdev(values) >= MIN_SPREAD * target:
            return
    spread = statistics.pstdev(values) / target
    raise Misconception("estimate_not_sampled", f"with n_samples = {SMALL_N}, {len(values)} different generators gave "
                        f"{', '.join(f'{v:.4g}' for v in values[:4])}, ...: within {spread:.1%} of each other, where a "
                        f"variance of {SMALL_N} sampled dot products varies by about 70% of {target:.4g} from one "
                        "generator to the next: " + describe("estimate_not_sampled"))


# --- naming50: blind50's q2_dots_buffer_from_python_int_list_truncates (each dot product made a whole number) ------

# (tag, rounding, what it is said as): toward 0 is what an integer buffer (torch.tensor([0] * n), torch.zeros(n,
# dtype=torch.long)) does to the floats copied in, and int(x), .long(), .int(), .to(torch.int64); // 1 and math.floor
# round down; round() and torch.round to the nearest
_INTEGER_ROUNDINGS = (
    ("toward_zero", torch.trunc, "cut toward 0 to whole numbers (what copying them into an integer buffer, int() "
                                 "or .long() does)"),
    ("down", torch.floor, "rounded down to whole numbers (// 1, floor)"),
    ("nearest", torch.round, "rounded to the nearest whole number (round)"),
)


def _integer_dots_draws(d_k, n, seed):
    """(tag, q, k) of the draws an estimate that rounds its dot products may have made from a generator seeded
    `seed`: two (n, d_k) draws, float32 and float64, and one float32 vector of d_k per call in a loop over the samples
    (under 16 numbers torch draws them another way than in a batch), q and k drawn in turn or all q then all k. Only
    for a failed estimate (about half a second)."""
    out = []
    for dtype in (torch.float32, torch.float64):
        g = torch.Generator().manual_seed(seed)
        out.append(("" if dtype == torch.float32 else "/float64", torch.randn(n, d_k, generator=g, dtype=dtype),
                    torch.randn(n, d_k, generator=g, dtype=dtype)))
    if n <= 20_000:
        g = torch.Generator().manual_seed(seed)
        rows = torch.stack([torch.randn(d_k, generator=g) for _ in range(2 * n)])
        out += [("/per_sample", rows[0::2], rows[1::2]), ("/per_sample_blocks", rows[:n], rows[n:])]
    return out


def integer_dots_variants(d_k, n, seed, scaled) -> dict[str, float]:
    """{dots_made_integers/<rounding>/<when>[/biased][<draws>]: value}: the variance of the right draws' dot products
    each made a whole number (_INTEGER_ROUNDINGS), replayed on a generator seeded as the student's; with scaled, the
    rounding after the division by sqrt(d_k) (an integer buffer filled with the scaled dots) or before it (the raw
    dots stored as integers, then divided); the unbiased and the biased sample variance (a 1e-4 step); the draws of
    _integer_dots_draws. q2's replay of a failed estimate only (variance_variants_replayed). Truncation toward 0 takes
    about 20% off the variance at d_k = 12 and half of it scaled; rounding down or to the nearest adds about 1/12
    (8% scaled), so those fail the band only now and then, and are named only then."""
    out = {}
    s = math.sqrt(d_k)
    for tag, q, k in _integer_dots_draws(d_k, n, seed):
        dots = (q * k).sum(dim=-1)
        for name, rounding, _ in _INTEGER_ROUNDINGS:
            made = {"after": rounding(dots / s), "before": rounding(dots) / s} if scaled else {"after": rounding(dots)}
            for when, x in made.items():
                x = x.double()
                out[f"dots_made_integers/{name}/{when}{tag}"] = float(x.var())
                out[f"dots_made_integers/{name}/{when}/biased{tag}"] = float(x.var(unbiased=False))
    return out


def raise_if_dots_made_integers(d_k, n, seed, scaled, v) -> None:
    """dots_made_integers (naming50): the failed estimate `v` is, to float32 rounding (2e-5 relative, q2's replay
    tolerance), the variance of the same generator's dot products each made a whole number (integer_dots_variants),
    the right draws' variance is not, and no other replayed mistake (variance_variants_replayed) gives it: the
    output equals what that slip gives on the same input. Says which rounding matched, and whether before or after
    the division by sqrt(d_k)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        return

    def same(a, b):
        return abs(a - b) <= 2e-5 * max(abs(b), 1e-12)

    right, wrong = variance_variants_replayed(d_k, n, seed, scaled)
    if any(same(v, r) for r in right):
        return
    hits = [k for k, x in wrong.items() if same(v, x)]
    if not hits or {replay_key(k) for k in hits} != {"dots_made_integers"}:
        return
    name, when = hits[0].split("/")[1:3]
    said = next(words for tag, _, words in _INTEGER_ROUNDINGS if tag == name)
    where = (f" {when} the division by sqrt(d_k)" if scaled else "")
    flag = " with scaled=True" if scaled else ""
    raise Misconception("dots_made_integers", f"each dot product was made a whole number: for d_k = {d_k}{flag} the "
                        f"result {v:.4g} is exactly the variance of the same generator's dot products {said}{where}, "
                        f"not of the dot products themselves ({right[0]:.4g}): " + describe("dots_made_integers"))


# --- naming50: blind18's q4_table_default_seed_42, blind20's q4_table_default_dims_from_milestone -------------------

def raise_if_table_default_wrong(fn, dims, seed, expected, passed, table_of) -> None:
    """default_argument_wrong (the engine's key): entropy_table called with its defaults (the lesson's test passes
    nothing) failed, and a second call passing the notebook's default seed, dims, or both explicitly is the lesson's
    table, to float32 rounding, where the call without them is not: the signature declares another default (seed=42,
    dims=(4, 16, 64)). Only where the test called it without arguments (`passed` empty); `table_of` reads rows as q4
    does (a malformed second answer is no evidence)."""
    if passed:
        return

    def right(rows):
        try:
            table = table_of(rows)
        except Exception:  # noqa: BLE001 - a malformed second answer is no evidence
            return False
        return type(table) is torch.Tensor and tuple(table.shape) == tuple(expected.shape) \
            and bool(matching_variants(table.double(), {"v": expected.double()}, torch.float32))

    for given in ({"seed": seed}, {"dims": tuple(dims)}, {"dims": tuple(dims), "seed": seed}):
        raise_if_wrong_default(fn, (), given, right, what="entropy_table()")


# --- naming50: blind29's q2_coordinates_added_not_multiplied, blind27's q2_squared_distance_as_similarity ------------

def pair_score_variants(d_k, n, seed, scaled) -> dict[str, float]:
    """{key/tag[/float64]: value}: the variance of another score of each pair than q.k, replayed on a generator seeded
    as the student's: the coordinates added, not multiplied ((q + k).sum(-1), a sum of 2 d_k normals: about 2 d_k,
    where q.q is too, but on other numbers), and the (squared) distance |q - k|^2 (about 8 d_k) or |q - k| (about 1),
    each divided by sqrt(d_k) when scaled; float32 and float64 draws. q2's replay of a failed estimate only
    (variance_variants_replayed), named there when it is the one replay that matches."""
    out = {}
    s = math.sqrt(d_k) if scaled else 1.0
    for dtype in (torch.float32, torch.float64):
        tag = "" if dtype == torch.float32 else "/float64"
        g = torch.Generator().manual_seed(seed)
        q = torch.randn(n, d_k, generator=g, dtype=dtype)
        k = torch.randn(n, d_k, generator=g, dtype=dtype)
        squared = ((q - k) ** 2).sum(dim=-1)
        out["dots_coordinates_added" + tag] = float(((q + k).sum(dim=-1) / s).var())
        out["dots_squared_distance/squared" + tag] = float((squared / s).var())
        out["dots_squared_distance/distance" + tag] = float((squared.sqrt() / s).var())
        # naming54 (blind54 q2_dot_taken_as_norm_of_products): the length of the products q * k for their sum
        products = q * k
        out["dots_norm_of_products/l2" + tag] = float((torch.linalg.vector_norm(products, dim=-1) / s).var())
        out["dots_norm_of_products/squared" + tag] = float((products.pow(2).sum(dim=-1) / s).var())
        out["dots_norm_of_products/l1" + tag] = float((products.abs().sum(dim=-1) / s).var())
    return out


# --- naming53: blind53's q8_fused_qkv_chunked_along_tokens ----------------------------------------------------------

def _token_pieces(fused, how):
    """The fused projection (T, 3 d_model) cut in three along dim 0, the TOKENS: chunk(3)'s default dim, or
    tensor_split(3)'s (their piece sizes differ when T is not a multiple of 3). None when there are not three."""
    pieces = fused.chunk(3) if how == "chunk" else torch.tensor_split(fused, 3)
    return pieces if len(pieces) == 3 else None


def _token_chunked_heads(pieces, d_model, n_heads):
    """Each head's attention over column block h of the three pieces of rows (all of them columns of the W_Q block
    of the fused projection), as the cell slices Q[:, cols], K[:, cols], V[:, cols]: raises where the row counts
    do not compose."""
    Q, K, V = pieces
    d_k = d_model // n_heads
    return torch.cat([ref.attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k],
                                    V[:, h * d_k:(h + 1) * d_k], d_k)[0] for h in range(n_heads)], dim=-1)


def fused_token_chunk_variants(X, W_Q, W_K, W_V, W_O, n_heads) -> dict:
    """fused_qkv_chunked_wrong_axis (blind53 q8_fused_qkv_chunked_along_tokens): X @ [W_Q | W_K | W_V] cut in three
    along the tokens ((X @ W_QKV).chunk(3), chunk's default dim=0, or torch.tensor_split(..., 3)) instead of the
    features: queries, keys and values are thirds of the sequence, all from W_Q's columns, and the output has
    ceil(T / 3) rows (where the pieces compose: the keys' and values' row counts agree). Another shape than the
    right one, equal to no other variant."""
    T, d_model = X.shape[-2:]
    if X.dim() != 2 or T < 3 or d_model % n_heads:
        return {}
    fused = X.double() @ torch.cat([W.double() for W in (W_Q, W_K, W_V)], dim=-1)
    out = {}
    for how in ("chunk", "tensor_split"):
        pieces = _token_pieces(fused, how)
        if pieces is None or pieces[1].shape[0] != pieces[2].shape[0]:
            continue
        value = _token_chunked_heads(pieces, d_model, n_heads) @ W_O.double()
        if not any(value.shape == v.shape and torch.allclose(value, v) for v in out.values()):
            out[f"fused_qkv_chunked_wrong_axis/{how}"] = value
    return out


def fused_token_chunk_crash(fn, e: StudentCodeError, X, Ws, n_heads) -> Misconception | None:
    """fused_qkv_chunked_wrong_axis where the thirds of the tokens do not compose (T not a multiple of 3: chunk(3)
    of 5 rows is 2, 2, 1): torch's message is the one the replay of that cut raises on the same input (head 0's
    (r, r) weights times the values' other row count), and a second call on X with T2 = 6 tokens (a multiple of 3,
    where the cut runs) must give the replay's (2, d_model) output: a fixed slice or another crash is not named."""
    T, d_model = X.shape
    if e.exc_type != "RuntimeError" or X.dim() != 2 or d_model % n_heads:
        return None
    fused = X.double() @ torch.cat([W.double() for W in Ws[:3]], dim=-1)
    said = None
    for how in ("chunk", "tensor_split"):
        pieces = _token_pieces(fused, how)
        if pieces is None:
            continue
        try:
            _token_chunked_heads(pieces, d_model, n_heads)
        except RuntimeError as err:
            first = str(err).splitlines()[0]
            if first and first in (e.message or ""):
                said = first
                break
    if said is None:
        return None
    X2 = torch.randn((6, d_model), generator=torch.Generator().manual_seed(0), dtype=X.dtype)
    try:
        again = fn(X2, *Ws, n_heads)
    except StudentCodeError:
        return None
    if type(again) is not torch.Tensor:
        return None
    wrong = fused_token_chunk_variants(X2, *Ws, n_heads)
    if not wrong or not matching_variants(again, wrong, X.dtype):
        return None
    return Misconception("fused_qkv_chunked_wrong_axis", f"your code raised {e.exc_type}: {said}: the fused "
                         f"projection X @ [W_Q | W_K | W_V] ({T}, {3 * d_model}) is cut in three along the {T} "
                         f"tokens (rows), not the {3 * d_model} features, so the queries, keys and values are "
                         f"thirds of the sequence that do not line up; with T = 6 tokens it runs and returns "
                         f"{tuple(again.shape)}, 2 rows, as that cut gives: " + describe("fused_qkv_chunked_wrong_axis"))


# --- naming53: blind53's q7_answer_dict_letter_to_reason ------------------------------------------------------------

def raise_if_letter_in_dict(question: str, value, answer: str, wrong, choices: str = "ABCD") -> None:
    """answer_in_container for a one-entry dict that holds the letter: the letter as its key with a reason or note
    as its value ({"D": "soft lookup ..."}), or as its value under a label ({"answer": "D"}). A dict of true/false
    marks ({"D": True}) is the engine's answer_as_option_marks, left to expect_choice. A wrong letter names that
    choice's key where it has one (the choice is the bigger mistake), the form said too."""
    if type(value) is not dict or len(value) != 1:
        return
    (k, v), = value.items()
    if isinstance(v, bool) or not isinstance(k, str):
        return
    if k.strip().upper() in choices and len(k.strip()) == 1 and not (isinstance(v, str) and v.strip().upper() in choices
                                                                     and len(v.strip()) == 1):
        letter = k.strip().upper()
        how = f"mapping the letter {k.strip()!r} to {'a reason' if isinstance(v, str) else 'a value'}"
    elif isinstance(v, str) and len(v.strip()) == 1 and v.strip().upper() in choices \
            and not (len(k.strip()) == 1 and k.strip().upper() in choices):
        letter, how = v.strip().upper(), f"holding the letter {v.strip()!r} under the key {k!r}"
    else:
        return
    shown = repr(value) if len(repr(value)) <= 40 else "{" + repr(k) + ": ...}"
    key = wrong.get(letter) if letter != answer else None
    if key:
        raise Misconception(key, f"{question} is {shown}, a dict {how}, not a letter; and {letter} is not the best "
                            f"answer: that choice reflects {describe(key)}; answer with one letter as a string")
    raise Misconception("answer_in_container", f"{question} is {shown}, a dict {how}, not the letter itself: take the "
                        f"letter out, {question} = {letter!r}: " + describe("answer_in_container"))


# --- naming53: blind53's q2_dots_by_polarisation_identity_halved -----------------------------------------------------

def _polarisation_pairs(submission) -> bool:
    """Whether dot_product_variance's own body forms both a + b and a - b (or b - a) of the same two names: the
    polarisation identity q.k = (|q + k|^2 - |q - k|^2) / 4 (or (|q + k|^2 - |q|^2 - |k|^2) / 2 with a - b absent is
    not it). False where the source cannot be read."""
    import ast
    from autograder.grading.pyparse import parse
    from autograder.grading.source_checks import cells_of
    try:
        cells = cells_of(submission) if submission is not None else []
    except Exception:  # noqa: BLE001 - no source is no evidence
        return False
    for cell in cells:
        try:
            tree = parse(cell)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for node in ast.walk(tree):
            if not (isinstance(node, ast.FunctionDef) and node.name == "dot_product_variance"):
                continue
            sums, diffs = set(), set()
            for b in ast.walk(node):
                op, names = _sum_or_difference(b)
                if op and len(names) == 2 and names[0] != names[1]:
                    (sums if op == "add" else diffs).add(frozenset(names))
            if sums & diffs:
                return True
    return False


def _sum_or_difference(b) -> tuple[str | None, tuple[str, ...]]:
    """("add" or "sub", the two names) for a + b, a - b, a.add(b), a.sub(b), torch.add(a, b), torch.sub(a, b)
    (or subtract) of two plain names; (None, ()) for anything else."""
    import ast
    if isinstance(b, ast.BinOp) and isinstance(b.op, (ast.Add, ast.Sub)) and isinstance(b.left, ast.Name) \
            and isinstance(b.right, ast.Name):
        return ("add" if isinstance(b.op, ast.Add) else "sub"), (b.left.id, b.right.id)
    if not (isinstance(b, ast.Call) and isinstance(b.func, ast.Attribute) and not b.keywords
            and b.func.attr in ("add", "sub", "subtract") and all(isinstance(a, ast.Name) for a in b.args)):
        return None, ()
    op = "add" if b.func.attr == "add" else "sub"
    if isinstance(b.func.value, ast.Name) and b.func.value.id == "torch" and len(b.args) == 2:
        return op, (b.args[0].id, b.args[1].id)
    if isinstance(b.func.value, ast.Name) and len(b.args) == 1:
        return op, (b.func.value.id, b.args[0].id)
    return None, ()


def _polarisation_variants(d_k, n, seed, scaled) -> dict[float, list[float]]:
    """{multiple of q.k: [variances]}: the polarisation identity divided by 2 (2 q.k) or not at all (4 q.k) instead
    of 4, on q then k drawn from a generator seeded as the student's, float32 and float64, scaled by sqrt(d_k) when
    asked."""
    s = math.sqrt(d_k) if scaled else 1.0
    out = {2.0: [], 4.0: []}
    for dtype in (torch.float32, torch.float64):
        g = torch.Generator().manual_seed(seed)
        q = torch.randn(n, d_k, generator=g, dtype=dtype)
        k = torch.randn(n, d_k, generator=g, dtype=dtype)
        both = (q + k).pow(2).sum(1) - (q - k).pow(2).sum(1)
        out[2.0].append(float((both / 2 / s).var()))
        out[4.0].append(float((both / s).var()))
    return out


def raise_if_polarisation_misdivided(v, d_k, n, seed, scaled, submission) -> None:
    """dots_polarisation_misdivided: the estimate is, to float rounding, the variance of (|q+k|^2 - |q-k|^2) / 2 (or
    undivided) of the generator's own draws (2 q.k or 4 q.k: 4 or 16 times the variance), and dot_product_variance
    forms both q + k and q - k (the identity is used: doubled draws give the same numbers, so the source decides)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
        return
    hits = [m for m, values in _polarisation_variants(d_k, n, seed, scaled).items()
            if any(abs(v - x) <= 2e-5 * abs(x) for x in values)]
    if len(hits) != 1 or not _polarisation_pairs(submission):
        return
    m = hits[0]
    by = "2" if m == 2.0 else "1 (not divided)"
    raise Misconception("dots_polarisation_misdivided", f"for d_k = {d_k}{' with scaled=True' if scaled else ''} the "
                        f"result is {m * m:.0f} times too large: your dot products are (|q + k|^2 - |q - k|^2) divided by "
                        f"{by}, which is {m:.0f} q.k (that replayed on the same generator's draws gives your "
                        "variance exactly): "
                        + describe("dots_polarisation_misdivided"))


# --- naming54: blind54's q1_logcumsumexp_for_logsumexp ---------------------------------------------------------------

def running_normaliser_evidence(pair, Q64, K64, V64, d_k, same):
    """(softmax_running_normaliser, (output, weights), message) when both results are those of each exponential
    divided by a running sum over the keys up to it, exp(s - logcumsumexp(s, -1)) (or e / e.cumsum(-1)), instead of
    the row's total: the first weight of every row is 1, the last is the right one. None otherwise (one key: the
    same as the right softmax)."""
    S = Q64 @ K64.transpose(-2, -1) / math.sqrt(d_k)
    if S.shape[-1] < 2 or tuple(pair[1].shape) != tuple(S.shape):
        return None
    w = torch.exp(S - torch.logcumsumexp(S, dim=-1))
    wrong = (w @ V64, w)
    if same(w, torch.softmax(S, dim=-1)) or not all(same(p, x) for p, x in zip(pair, wrong)):
        return None
    sums = w.sum(dim=-1)
    return "softmax_running_normaliser", wrong, (
        f"{describe('softmax_running_normaliser')} (here the rows sum to {float(sums.min()):.3g} ... "
        f"{float(sums.max()):.3g})")


# --- naming54: blind54's q4_table_scores_as_k_at_q_row_zero ----------------------------------------------------------

def _transposed(node, names) -> bool:
    """Whether `node` is one of `names` transposed: q.T, q.mT, q.t(), q.transpose(...), torch.t(q),
    torch.transpose(q, ...)."""
    import ast
    if isinstance(node, ast.Attribute) and node.attr in ("T", "mT"):
        return isinstance(node.value, ast.Name) and node.value.id in names
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute) \
            or node.func.attr not in ("t", "transpose"):
        return False
    owner = node.func.value
    if isinstance(owner, ast.Name) and owner.id == "torch":
        return bool(node.args) and isinstance(node.args[0], ast.Name) and node.args[0].id in names
    return isinstance(owner, ast.Name) and owner.id in names


def _keys_times_query(v, keys, queries) -> bool:
    """Whether `v` is a product of one of `keys` (left) with one of `queries` transposed (right): k @ q.T,
    k.matmul(q.T), k.mm(q.T), torch.matmul(k, q.T), torch.mm(k, q.T)."""
    import ast
    if isinstance(v, ast.BinOp) and isinstance(v.op, ast.MatMult):
        left, right = v.left, v.right
    elif isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr in ("matmul", "mm") \
            and not v.keywords:
        owner = v.func.value
        if isinstance(owner, ast.Name) and owner.id == "torch":
            if len(v.args) != 2:
                return False
            left, right = v.args
        elif len(v.args) == 1:
            left, right = owner, v.args[0]
        else:
            return False
    else:
        return False
    return isinstance(left, ast.Name) and left.id in keys and _transposed(right, queries)


def _one_row_draw(call) -> bool | None:
    """For a torch.randn(...) of two axes in the student's source: True when its first size is the constant 1 (one
    query), False when it is another size (the keys); None for anything else."""
    import ast
    if _draw_ndim(call) != 2:
        return None
    size = next((k.value for k in call.keywords if k.arg == "size"), None)
    first = (size.elts[0] if isinstance(size, (ast.Tuple, ast.List)) else None) if size is not None else (
        call.args[0].elts[0] if len(call.args) == 1 and isinstance(call.args[0], (ast.Tuple, ast.List))
        else call.args[0])
    return isinstance(first, ast.Constant) and first.value == 1


def _assigned_pairs(n) -> list:
    """(name, value) of each plain name an assignment binds: x = v, or x, y = v, w (a tuple of as many values)."""
    import ast
    if not (isinstance(n, ast.Assign) and len(n.targets) == 1):
        return []
    target = n.targets[0]
    if isinstance(target, ast.Name):
        return [(target.id, n.value)]
    if isinstance(target, ast.Tuple) and isinstance(n.value, ast.Tuple) and len(target.elts) == len(n.value.elts):
        return [(t.id, v) for t, v in zip(target.elts, n.value.elts) if isinstance(t, ast.Name)]
    return []


def transposed_scores_indexed(submission) -> str | None:
    """The expression of entropy_table's source (read, never run) that takes row [0] of the keys times the query
    transposed, (k @ q.T)[0] (or of a name assigned that product), where q is drawn (1, d) and k with another number
    of rows: K Q^T is (5, 1), so its row 0 is one score. None where there is none or the source cannot be read."""
    import ast
    from autograder.grading.source_checks import cells_of
    try:
        cells = cells_of(submission) if submission is not None else []
    except Exception:  # noqa: BLE001 - no source is no evidence
        return None
    for cell in cells:
        try:
            tree = parse(cell)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for fdef in ast.walk(tree):
            if not (isinstance(fdef, ast.FunctionDef) and fdef.name == "entropy_table"):
                continue
            queries: set[str] = set()
            keys: set[str] = set()
            for n in ast.walk(fdef):
                for target, value in _assigned_pairs(n):
                    one = _one_row_draw(value)
                    if one is not None:
                        (queries if one else keys).add(target)
            if not queries or not keys or queries & keys:
                continue
            products: set[str] = set()
            for n in ast.walk(fdef):
                products.update(t for t, v in _assigned_pairs(n) if _keys_times_query(v, keys, queries))
            for n in ast.walk(fdef):
                if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant) and n.slice.value == 0 \
                        and not isinstance(n.slice.value, bool) and (
                            _keys_times_query(n.value, keys, queries)
                            or (isinstance(n.value, ast.Name) and n.value.id in products)):
                    return ast.get_source_segment(cell, n) or "[0]"
    return None


# --- naming55: blind55's q1_scores_by_linalg_vecdot_pair_rows_not_all_pairs ----------------------------------------

def paired_rows_evidence(pair, Q64, K64, V64, d_k, same):
    """(scores_paired_rows, (output, weights), message) when both results are those of each query scored against its
    own key only (torch.linalg.vecdot(Q, K), (Q * K).sum(-1), einsum('id,id->i')): weights the softmax of the T
    row-paired dot products, shape (T,), the output those weights times V, shape (d_v,) (or each weight times its
    value row, (T, d_v)). Only with as many queries as keys (else the pairing itself crashes); None otherwise."""
    if Q64.dim() != 2 or tuple(Q64.shape) != tuple(K64.shape) or Q64.shape[0] < 2:
        return None
    if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(type(p) is torch.Tensor for p in pair)):
        return None
    w = torch.softmax((Q64 * K64).sum(dim=-1) / math.sqrt(d_k), dim=-1)
    if tuple(pair[1].shape) != tuple(w.shape) or not same(pair[1], w):
        return None
    for out in (w @ V64, w[:, None] * V64):
        if same(pair[0], out):
            return "scores_paired_rows", (out, w), (
                f"{describe('scores_paired_rows')} (here the weights have shape {tuple(w.shape)}: the softmax of the "
                f"{w.shape[0]} dot products Q[i] . K[i], where they should be ({Q64.shape[0]}, {K64.shape[0]}))")
    return None


def paired_rows_crash(fn, e: StudentCodeError, Q, K, V, d_k) -> Misconception | None:
    """scores_paired_rows from a crash with T_q != T_k: torch's own size mismatch of the T_q queries with the T_k keys
    (the words a row-paired product (Q * K).sum(-1) gives on these tensors), and the same call cut to as many queries
    as keys runs and both its results are those of the row-paired scores (paired_rows_evidence)."""
    T_q, T_k = Q.shape[-2], K.shape[-2]
    if e.exc_type != "RuntimeError" or Q.dim() != 2 or T_q == T_k:
        return None
    first = ((e.message or "").splitlines() or [""])[0]
    found = _SIZE_MISMATCH.search(first)
    if found is None or {int(found.group(1)), int(found.group(2))} != {T_q, T_k}:
        return None
    T = min(T_q, T_k)
    try:
        out = fn(Q[:T].clone(), K[:T].clone(), V[:T].clone(), d_k)
    except StudentCodeError:
        return None
    Q64, K64, V64 = Q[:T].double(), K[:T].double(), V[:T].double()
    found_pair = paired_rows_evidence(out, Q64, K64, V64, d_k,
                                      lambda a, b: bool(matching_variants(a, {"v": b}, Q.dtype)))
    if found_pair is None:
        return None
    return Misconception("scores_paired_rows", f"your code raised {e.exc_type}: {first[:200]}, with T_q = {T_q} "
                         f"queries and T_k = {T_k} keys; with as many queries as keys it runs and its weights are "
                         f"one per row: {found_pair[2]}")


# --- naming55: blind55's q1_scores_into_preallocated_default_float32_out_buffer ------------------------------------

_OUT_DTYPE = re.compile(r"Expected out tensor to have dtype ([\w:]{1,30}), but got float instead")


def out_buffer_crash(fn, e: StudentCodeError, Q, K, V, d_k) -> Misconception | None:
    """out_buffer_default_dtype (as attention-pipeline's q01): a float64 (or float16) call crashes with torch's
    "Expected out tensor to have dtype double, but got float", on a line of the student's that passes out=, and the
    same call in float32 (the default dtype the buffer was made in) runs and both its results are right."""
    if Q.dtype == torch.float32 or e.exc_type != "RuntimeError":
        return None
    words = _OUT_DTYPE.search(e.message or "")
    line = crash_source_line(e)
    if words is None or not re.search(r"\bout\s*=", line):
        return None
    try:
        got = fn(Q.float(), K.float(), V.float(), d_k)
    except StudentCodeError:
        return None
    right = ref.attention(Q.double(), K.double(), V.double(), d_k)
    if not (isinstance(got, (tuple, list)) and len(got) == 2 and all(type(p) is torch.Tensor for p in got)
            and all(matching_variants(p, {"right": r}, torch.float32) for p, r in zip(got, right))):
        return None
    said = str(Q.dtype).replace("torch.", "")
    return Misconception("out_buffer_default_dtype", f"the out= buffer is float32 while the inputs are {said}: "
                         f"`{ascii(line[:70])[1:-1]}` raised {e.exc_type}: {e.message.splitlines()[0][:100]}, and "
                         "the same call in float32 runs and is right: " + describe("out_buffer_default_dtype")
                         + " (here: torch.empty(..., dtype=Q.dtype), or scores = Q @ K.T)")


# --- naming55: blind55's q2_sum_of_iid_terms_taken_as_d_k_times_one_term --------------------------------------------

def one_term_variants(d_k, n, seed, scaled) -> dict[str, float]:
    """{dots_one_term_times_d_k/layout: value}: the variance of d_k times ONE product q_1 k_1 (the sum of d_k iid terms
    taken as d_k copies of one), replayed on a generator seeded as the student's: two (n,) draws, one (2, n) draw, or
    the first column of two (n, d_k) draws; float32 and float64; unbiased and biased. Each costs O(n d_k)."""
    out = {}
    s = math.sqrt(d_k) if scaled else 1.0
    for dtype in (torch.float32, torch.float64):
        tag = "" if dtype == torch.float32 else "/float64"
        g = torch.Generator().manual_seed(seed)
        q, k = torch.randn(n, generator=g, dtype=dtype), torch.randn(n, generator=g, dtype=dtype)
        g = torch.Generator().manual_seed(seed)
        both = torch.randn(2, n, generator=g, dtype=dtype)
        g = torch.Generator().manual_seed(seed)
        qw, kw = torch.randn(n, d_k, generator=g, dtype=dtype), torch.randn(n, d_k, generator=g, dtype=dtype)
        for layout, (a, b) in (("two_draws", (q, k)), ("one_draw", both), ("first_column", (qw[:, 0], kw[:, 0]))):
            dots = d_k * a * b / s
            out[f"dots_one_term_times_d_k/{layout}{tag}"] = float(dots.var())
            out[f"dots_one_term_times_d_k/{layout}/biased{tag}"] = float(dots.var(unbiased=False))
    return out


# --- naming55: blind55's q4_table_scores_computed_in_bfloat16 -------------------------------------------------------

_LOW_DTYPES = ((torch.bfloat16, "bfloat16"), (torch.float16, "float16"))


def _low_precision_tables(dims, seed, dtype):
    """The lesson's table with q and k in `dtype`, two ways of drawing them (float32 draws cast, or drawn in the
    dtype), and (naming78) float32 draws cast for the matmul only, its scores cast back to float32 (q.half() @
    k.half().T then .float()): [(raw_std, scaled_std, H_raw, H_scaled) rows as a float64 (len(dims), 4) tensor] per
    way."""
    tables = []
    for cast, back in ((True, False), (False, False), (True, True)):
        rows = []
        for d in dims:
            g = torch.Generator().manual_seed(seed)     # torch.manual_seed(seed)'s stream, not the grader's shared one
            if cast:
                q, k = torch.randn(1, d, generator=g).to(dtype), torch.randn(5, d, generator=g).to(dtype)
            else:
                q, k = torch.randn(1, d, dtype=dtype, generator=g), torch.randn(5, d, dtype=dtype, generator=g)
            raw = (q @ k.T)[0]
            raw = raw.float() if back else raw
            scaled = raw / d ** 0.5
            rows.append([float(raw.std()), float(scaled.std()), float(ref.softmax_entropy(raw)),
                         float(ref.softmax_entropy(scaled))])
        tables.append(torch.tensor(rows, dtype=torch.float64))
    return tables


def raise_if_low_precision_table(table, expected, dims, seed, dtypes=_LOW_DTYPES) -> None:
    """table_low_precision: the stds (raw_std, scaled_std) of a wrong table are, to float32's rounding, those of the
    lesson's table replayed with q and k in bfloat16 (or float16), where that replay's stds are not the right ones,
    and its entropies are within that dtype's rounding of the replay's (the entropy formula's own low-precision steps
    may round differently). Exactly one of `dtypes` may match. len(dims) tiny draws: bounded."""
    if type(table) is not torch.Tensor or tuple(table.shape) != tuple(expected.shape) or table.shape[1] != 4 \
            or len(dims) > 16 or max(dims) > 4096:
        return
    got, right = table.double(), expected.double()
    hits = []
    for dtype, said in dtypes:
        for replay in _low_precision_tables(dims, seed, dtype):
            if matching_variants(replay[:, :2], {"right": right[:, :2]}, torch.float32) \
                    or not matching_variants(got[:, :2], {"v": replay[:, :2]}, torch.float32):
                continue
            tol = 8 * torch.finfo(dtype).eps * replay[:, 2:].abs().clamp(min=1.0)
            if bool(torch.isfinite(got[:, 2:]).all()) and bool(((got[:, 2:] - replay[:, 2:]).abs() <= tol).all()):
                hits.append(said)
                break
    if len(hits) == 1:
        raise Misconception("table_low_precision", f"the entropy table is the lesson's computed with q and k in "
                            f"{hits[0]}: its stds are exactly those of the {hits[0]} draws (raw_std "
                            f"{float(got[-1, 0]):.6g} where float32 gives {float(right[-1, 0]):.6g} at d = {dims[-1]}), "
                            "and its entropies agree with them to that dtype's rounding: "
                            + describe("table_low_precision"))


# --- naming55: blind55's q8_heads_cut_by_unfold_with_step_one -------------------------------------------------------

def overlapping_heads_crash(fn, e: StudentCodeError, X, Ws, n_heads) -> Misconception | None:
    """mha_heads_overlapping_windows: torch's (T x (d_model - d_k + 1) d_k) @ (d_model x d_model), the width of every
    window of d_k columns at step 1 concatenated, and a second call with a W_O of that many rows runs and gives those
    overlapping heads (attention on columns s to s + d_k, s = 0 .. d_model - d_k) concatenated times it."""
    found = _MATMUL.search(e.message or "")
    T, d_model = X.shape
    d_k = d_model // n_heads
    n_windows = d_model - d_k + 1
    if e.exc_type != "RuntimeError" or not found or n_heads < 2 or d_model > 256 \
            or tuple(int(x) for x in found.groups()) != (T, n_windows * d_k, d_model, d_model):
        return None
    W_O = torch.randn((n_windows * d_k, d_model), generator=torch.Generator().manual_seed(55), dtype=X.dtype)
    try:
        again = fn(X, Ws[0], Ws[1], Ws[2], W_O, n_heads)
    except StudentCodeError:
        return None
    Q, K, V = (X.double() @ W.double() for W in Ws[:3])
    heads = torch.cat([ref.attention(Q[:, s:s + d_k], K[:, s:s + d_k], V[:, s:s + d_k], d_k)[0]
                       for s in range(n_windows)], dim=-1)
    if type(again) is not torch.Tensor or not matching_variants(again, {"v": heads @ W_O.double()}, X.dtype):
        return None
    return Misconception("mha_heads_overlapping_windows", f"your code raised {e.exc_type}: {found.group(0)}: "
                         f"{n_windows} heads of width {d_k} (every window of d_k columns, step 1) where n_heads = "
                         f"{n_heads}; given a W_O of {n_windows * d_k} rows it runs, and its heads are those windows: "
                         + describe("mha_heads_overlapping_windows"))


# --- naming55: blind55's q8_head_weight_blocks_viewed_without_permute -----------------------------------------------

def weight_blocks_viewed_variants(X, W_Q, W_K, W_V, W_O, n_heads) -> dict:
    """{mha_weight_blocks_viewed/<roles>: output}: head h projecting with W.reshape(n_heads, d_model, d_k)[h] (a chunk
    of W's memory: rows, not the column block W[:, h d_k:(h + 1) d_k]) for the roles in <roles>, the right column
    block for the others; the heads concatenated times W_O."""
    out: dict = {}
    d_model = X.shape[-1]
    if n_heads < 2 or d_model % n_heads:
        return out
    d_k = d_model // n_heads
    X64 = X.double()
    Ws = {"q": W_Q.double(), "k": W_K.double(), "v": W_V.double()}
    for roles in ("qkv", "qk", "v"):
        heads = []
        for h in range(n_heads):
            p = {r: X64 @ (W.reshape(n_heads, d_model, d_k)[h] if r in roles else W[:, h * d_k:(h + 1) * d_k])
                 for r, W in Ws.items()}
            heads.append(ref.attention(p["q"], p["k"], p["v"], d_k)[0])
        out[f"mha_weight_blocks_viewed/{roles}"] = torch.cat(heads, dim=-1) @ W_O.double()
    return out


# --- naming59: blind59's kinds -----------------------------------------------------------------------------------

_SLICING_CALLS = frozenset({"chunk", "split", "narrow", "unbind", "tensor_split", "index_select", "view", "reshape"})


def _head_arg_kinds(fdef) -> list[tuple[str, str, str]]:
    """For each call attention(a, b, c, ...) in `fdef` (parsed, never run): how each of a, b, c is made, 'sliced'
    (a subscript, a chunk/split/view, or a name bound to one or a for-loop target) or 'whole' (X @ W, a matmul, or
    a name bound only to such things), '' where it does not show."""
    import ast
    bound: dict[str, list] = {}
    for n in ast.walk(fdef):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Name):
                    bound.setdefault(t.id, []).append(n.value)
                elif isinstance(t, ast.Tuple) and isinstance(n.value, ast.Tuple) and len(t.elts) == len(n.value.elts):
                    for a, b in zip(t.elts, n.value.elts):
                        if isinstance(a, ast.Name):
                            bound.setdefault(a.id, []).append(b)
                elif isinstance(t, ast.Tuple):
                    for a in t.elts:
                        if isinstance(a, ast.Name):
                            bound.setdefault(a.id, []).append(t)      # unpacked from one call: a split
        elif isinstance(n, (ast.For, ast.comprehension)):
            if isinstance(n.target, ast.Name):      # for v_h in V.chunk(...): what it walks over
                bound.setdefault(n.target.id, []).append(n.iter)
            for a in ast.walk(n.target) if isinstance(n.target, ast.Tuple) else ():
                if isinstance(a, ast.Name):
                    bound.setdefault(a.id, []).append(n.target)

    # a name's kind at a depth, worked out once: unremembered, 8 bindings followed 4 deep cost 8^4 walks per argument,
    # seconds of the grader's CPU for a cell of `a = a` and `attention(a,a,a)` calls (red-team round 94)
    named: dict[tuple[str, int], str] = {}

    def kind(e, depth=0) -> str:
        if isinstance(e, (ast.Subscript, ast.Tuple)):
            return "sliced"
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr in _SLICING_CALLS:
            return "sliced"
        if isinstance(e, ast.BinOp) and isinstance(e.op, ast.MatMult):
            return "whole"
        if isinstance(e, ast.Call) and getattr(e.func, "attr", getattr(e.func, "id", "")) in ("matmul", "mm"):
            return "whole"
        if isinstance(e, ast.Name) and e.id in bound and depth < 4:
            if (e.id, depth) not in named:
                kinds = {kind(v, depth + 1) for v in bound[e.id][:8]}
                named[(e.id, depth)] = kinds.pop() if len(kinds) == 1 else ""
            return named[(e.id, depth)]
        return ""

    found = []
    for n in ast.walk(fdef):
        if isinstance(n, ast.Call) and len(n.args) >= 3 and (
                getattr(n.func, "id", None) == "attention" or getattr(n.func, "attr", None) == "attention"):
            found.append(tuple(kind(a) for a in n.args[:3]))
    return found


def values_unsliced_from_source(submission, m: Misconception, what: str) -> Misconception:
    """mha_head_slice_fixed where Q and K held one head's slice (qk_f) gives the same numbers as every head's
    attention over the WHOLE V with the too-wide concatenation cut back to head f's d_model columns (blind59): the
    source tells which. Where the notebook's last multi_head_attention calls attention with Q and K sliced and V
    whole (X @ W_V or a name bound only to it), mha_values_not_sliced; else `m` unchanged (naming59)."""
    from autograder.grading.source_checks import cells_of, last_function_def
    if submission is None or m.key != "mha_head_slice_fixed":
        return m
    try:
        fdef = last_function_def(cells_of(submission), "multi_head_attention", max_chars=20000)
        kinds = _head_arg_kinds(fdef) if fdef is not None else []
    except (RecursionError, MemoryError):
        return m
    if not kinds or not all(k == ("sliced", "sliced", "whole") for k in kinds):
        return m
    return Misconception("mha_values_not_sliced", f"{what} is wrong: it equals one head's attention weights applied "
                         "to the whole V (d_model columns), and your code passes each head its own columns of Q and K "
                         "but all of V: " + describe("mha_values_not_sliced"))


def tiled_totals_variants(Q64, K64, V64, d_k) -> dict:
    """attention_row_totals_tiled (naming59): e divided by the row totals laid out query after query along the rows
    (totals.repeat(T_k).view(T_q, T_k)): entry (i, j) by the total of row (i * T_k + j) mod T_q, e unshifted or
    shifted by its row max. Only where T_q != T_k (square, it is keepdim_missing's column-j total) and T_q > 1."""
    T_q, T_k = Q64.shape[-2], K64.shape[-2]
    if Q64.dim() != 2 or K64.dim() != 2 or T_q == T_k or T_q < 2:
        return {}
    s = Q64 @ K64.T / math.sqrt(d_k)
    index = torch.arange(T_q * T_k).remainder(T_q).view(T_q, T_k)
    out = {}
    for shift, e in (("unshifted", torch.exp(s)), ("row_max", torch.exp(s - s.amax(dim=-1, keepdim=True)))):
        w = e / e.sum(dim=-1)[index]
        out[f"attention_row_totals_tiled/{shift}"] = (w @ V64, w)
    return out


def clipped_rows_variants(Q64, K64, V64, d_k) -> dict:
    """output_rows_loop_clipped (naming59): the right weights, the output rows filled in a loop over min(T_q, T_k)
    (or T_k) queries: rows T_k .. T_q - 1 left zero. Only where T_q > T_k."""
    T_q, T_k = Q64.shape[-2], K64.shape[-2]
    if Q64.dim() != 2 or K64.dim() != 2 or T_q <= T_k:
        return {}
    out, w = ref.attention(Q64, K64, V64, d_k)
    out = out.clone()
    out[T_k:] = 0.0
    return {"output_rows_loop_clipped": (out, w)}


_CLAMP_BOUNDS = (10.0, 15.0, 20.0, 25.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0)


def clamped_entropy_replays(logits) -> dict:
    """entropy_logits_clamped (naming59): the entropy of softmax(logits.clamp(-c, c)) (or clamp(max=c)) for the usual
    bounds c, where it differs from the right entropy (a row with logits past c, as test_entropy_saturated_rows'
    row 3)."""
    right = ref.softmax_entropy(logits)
    out = {}
    for c in _CLAMP_BOUNDS:
        for how, z in (("both", logits.clamp(min=-c, max=c)), ("max", logits.clamp(max=c))):
            p = torch.softmax(z, dim=-1)
            H = -(p * torch.log_softmax(z, dim=-1)).sum(dim=-1)
            if H.shape == right.shape and float((H - right).abs().max()) > 1e-3:
                out[f"entropy_logits_clamped/{how}_{c:g}"] = H
    return out


def mha_one_based_variants(X, W_Q, W_K, W_V, W_O, n_heads) -> dict:
    """mha_heads_numbered_from_one (naming59): heads h = 1 .. n_heads with the slice start clipped to d_model - d_k:
    head h uses head min(h + 1, n_heads - 1)'s columns. Only from 3 heads on (with 2 every head is head 1's: a
    fixed slice)."""
    if n_heads < 3 or X.shape[-1] % n_heads:
        return {}
    heads = _mha_heads(X, W_Q, W_K, W_V, n_heads, lambda r, h: min(h + 1, n_heads - 1))
    return {"mha_heads_numbered_from_one": torch.cat(heads, dim=-1) @ W_O.double()}


def raise_if_dims_one_based(rows_dims, dims, got, seed) -> None:
    """table_dims_one_based (naming59): rows for dims[1:] and dims[-1] again (1-based positions, the index clipped),
    with the right values at those d's."""
    want = [int(d) for d in dims]
    if len(want) < 2 or rows_dims != want[1:] + want[-1:]:
        return
    if not matching_variants(got, {"v": _table_rows_at(rows_dims, seed)}, torch.float32):
        return
    raise Misconception("table_dims_one_based", f"the table's rows are for d = {rows_dims}, the dims asked for, "
                        f"{want}, from the second on and the last twice (right values at those d's): "
                        + describe("table_dims_one_based"))


# --- naming60: blind60's kinds (rewrites that broke it; state carried between calls) ------------------------------

def rewrite_pair_variants(Q64, K64, V64, d_k) -> dict:
    """scores_mirrored_as_symmetric (naming60): square scores (T_q == T_k) built from one triangle of Q K^T mirrored
    to the other (as if Q K^T were symmetric, which it is only when Q is K): the upper triangle mirrored below the
    diagonal, or the lower one above it. query_rows_left_uncomputed: the right weights and output with the last r
    query rows left 0 (both parts), for 1 <= r < T_q: queries done in pieces (two halves of T_q // 2 rows, chunks
    of a fixed size, range(T_q - 1)) that never reach the last rows. 2-D inputs only."""
    out: dict = {}
    if Q64.dim() != 2 or K64.dim() != 2:
        return out
    T_q, T_k = Q64.shape[-2], K64.shape[-2]
    S = Q64 @ K64.T
    if T_q == T_k and T_q >= 2:
        for side, tri in (("upper", torch.triu(S)), ("lower", torch.tril(S))):
            mirrored = tri + tri.T - torch.diag_embed(tri.diagonal())
            w = torch.softmax(mirrored / math.sqrt(d_k), dim=-1)
            out[f"scores_mirrored_as_symmetric/{side}"] = (w @ V64, w)
    o, w = ref.attention(Q64, K64, V64, d_k)
    for r in range(1, T_q):
        o_r, w_r = o.clone(), w.clone()
        o_r[T_q - r:] = 0.0
        w_r[T_q - r:] = 0.0
        out[f"query_rows_left_uncomputed/{r}"] = (o_r, w_r)
    return out


def rows_left_uncomputed_again(fn, pair, Q, K, V, d_k) -> Misconception | None:
    """query_rows_left_uncomputed where one query gives an all-zero output (nothing to tell it by on its own): a
    second call with T_q = 3 and 5 queries (fixed draws, the same keys and values) whose both results are the right
    ones with the last row(s) left 0 (rewrite_pair_variants), and the right ones on T_q = 2 and 4."""
    if Q.shape[-2] != 1 or not (isinstance(pair, (tuple, list)) and len(pair) == 2) \
            or type(pair[0]) is not torch.Tensor or bool(pair[0].ne(0).any()):
        return None
    g = torch.Generator().manual_seed(60)
    said = []
    for T_q in (2, 3, 4, 5):
        Q2 = torch.randn(T_q, Q.shape[-1], generator=g, dtype=torch.float64).to(Q.dtype)
        try:
            again = fn(Q2, K, V, d_k)
        except StudentCodeError:
            return None
        if not (isinstance(again, (tuple, list)) and len(again) == 2 and all(type(p) is torch.Tensor for p in again)):
            return None
        Q64, K64, V64 = Q2.double(), K.double(), V.double()
        right = ref.attention(Q64, K64, V64, d_k)
        if all(matching_variants(p, {"v": r}, Q.dtype) for p, r in zip(again, right)):
            continue
        hits = [k for k, wrong in rewrite_pair_variants(Q64, K64, V64, d_k).items()
                if k.startswith("query_rows_left_uncomputed/") and all(
                    matching_variants(p, {"v": x}, Q.dtype) for p, x in zip(again, wrong))]
        if len(hits) != 1:
            return None
        said.append(f"T_q = {T_q}: the last {hits[0].split('/')[1]} row(s) 0")
    if not said:
        return None
    return Misconception("query_rows_left_uncomputed", "with one query the output is all 0; called again with more "
                         f"queries (same keys and values) the other rows are right and the last are 0 ({'; '.join(said)}): "
                         + describe("query_rows_left_uncomputed"))


_FILLING = frozenset({"append", "extend", "insert", "setdefault", "update", "copy_", "fill_"})


def attention_state_line(submission, name: str = "attention", returned: bool = False) -> str | None:
    """The line of the notebook's last `def name` (parsed, never run; at most 3000 nodes walked) where it writes into
    a name kept at module level (global_names_read): an out= argument naming it (`matmul(w, V, out=_buffers[key])`),
    a store into its items (`_buffers[key] = torch.empty(...)`), or a method that fills it (`_cache.append(...)`,
    setdefault, update): a value that outlives the call. None where there is none, or the source is not read.
    `returned`: a store or fill counts only where the def returns that kept entry itself (_returns_kept: `return buf, w`
    after `buf = CACHE[key]`); red-team round 107: a cache of the scale (`_scales[d_k] = 1 / math.sqrt(d_k)`) beside
    a fixed last-head slice was told attention's result written into a tensor kept between calls."""
    import ast
    from autograder.grading.source_checks import SourceUnreadable, cells_of, last_function_def
    kept = set(global_names_read(submission, name))
    if not kept:
        return None
    try:
        func = last_function_def(cells_of(submission), name, max_chars=20000)
    except (SourceUnreadable, RecursionError, MemoryError):
        return None
    if func is None:
        return None

    def names(node):
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} & kept

    nodes = list(itertools.islice(ast.walk(func), 3000))
    for n in nodes:
        if isinstance(n, ast.Call) and any(k.arg == "out" and names(k.value) for k in n.keywords):
            return " ".join(unparse(n).split())[:100]
    if returned and not _returns_kept(nodes, kept):
        return None
    for n in nodes:
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Subscript) and names(t.value) for t in n.targets) \
                or isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _FILLING \
                and names(n.func.value):
            return " ".join(unparse(n).split())[:100]
    return None


def _returns_kept(nodes, kept: set[str]) -> bool:
    """Whether a `return` among `nodes` (a def's, walked) hands back a kept name or one of its entries itself, directly
    or through a local bound to it (`buf = CACHE[key]` ... `return buf, w`), not a value computed from it."""
    import ast

    def held(e, names) -> bool:
        base = e.value if isinstance(e, ast.Subscript) else e
        return isinstance(base, ast.Name) and base.id in names
    names = set(kept)
    for _ in range(3):   # an alias of an alias (a = CACHE[k]; b = a)
        names |= {t.id for n in nodes if isinstance(n, ast.Assign) and held(n.value, names)
                  for t in n.targets if isinstance(t, ast.Name)}
    for n in nodes:
        if isinstance(n, ast.Return) and n.value is not None:
            parts = n.value.elts if isinstance(n.value, (ast.Tuple, ast.List)) else [n.value]
            if any(held(e, names) for e in parts):
                return True
    return False


def attention_reused_in_heads(submission, m: Misconception, got, X, Ws, n_heads, what: str) -> Misconception:
    """attention_result_reused (naming60) where the output matched a fixed head slice: every head's block is the LAST
    head's right output (what heads that are all one tensor, overwritten by each later call, give) and the student's
    attention writes its result into a name kept at module level (attention_state_line: an out= buffer cached per
    shape). The tests call attention across the sandbox, where every result comes back as a copy, so q1's own tests
    see right values; q8's student code holds the shared tensor itself. Anything else: `m` unchanged."""
    m = attention_cached_in_heads(submission, m, got, X, Ws, n_heads, what)   # naming80: head 0's, shape-keyed
    if m.key != "mha_head_slice_fixed" or n_heads < 2 or type(got) is not torch.Tensor:
        return m
    X64, W64 = X.double(), [w.double() for w in Ws]
    heads = _mha_heads(X64, *W64[:3], n_heads)
    last = torch.cat([heads[-1]] * n_heads, dim=-1) @ W64[3]
    right = torch.cat(heads, dim=-1) @ W64[3]
    if not matching_variants(got, {"last": last}, X.dtype, expected=right):
        return m
    line = attention_state_line(submission, returned=True)
    if line is None:
        return m
    return Misconception("attention_result_reused", f"{what} is wrong: every head's block is the LAST head's output "
                         f"({n_heads} heads, all equal to head {n_heads - 1}), and your attention (q1) writes its result "
                         f"into a tensor kept between calls (`{line}`): " + describe("attention_result_reused"))


def empty_heads_again(fn, e, X, Ws, n_heads, submission=None) -> Misconception | None:
    """mha_heads_missing where n_heads = 1 raises torch.cat's 'expected a non-empty list of Tensors' (no head was
    computed): a second call on the same X with 3 heads (2 where 3 does not divide d_model) names it by
    heads_missing (its output given W_O's first rows is the heads it kept)."""
    if n_heads != 1 or "expected a non-empty list of Tensors" not in e.message:
        return None
    d_model = X.shape[-1]
    for h in (3, 2):
        if d_model % h:
            continue
        try:
            fn(X, *Ws, h)
        except StudentCodeError as again:
            named = heads_missing(fn, again, X, Ws, h, submission)
            if named is not None and named.key == "mha_heads_missing":
                return Misconception("mha_heads_missing", f"your code raised {e.exc_type}: {e.message.splitlines()[0]} "
                                     f"with n_heads = 1 (no head computed, nothing to concatenate); with n_heads = {h} "
                                     f"on the same input {str(named).split(': ', 1)[-1]}")
        return None
    return None


def projection_precision_variants(X, W_Q, W_K, W_V, W_O, n_heads) -> dict:
    """mha_projections_low_precision (naming60): the right multi-head attention (float64 from there on) of the
    projections computed in bfloat16 or float16 and cast back (X.to(low) @ W.to(low)), from the input's own dtype;
    only for inputs in a wider dtype."""
    out: dict = {}
    if X.dtype not in (torch.float32, torch.float64):
        return out
    for low in (torch.bfloat16, torch.float16):
        try:
            q, k, v = ((X.to(low) @ W.to(low)).double() for W in (W_Q, W_K, W_V))
        except RuntimeError:
            continue
        d_k = X.shape[-1] // n_heads
        heads = [ref.attention(q[:, h * d_k:(h + 1) * d_k], k[:, h * d_k:(h + 1) * d_k], v[:, h * d_k:(h + 1) * d_k],
                               d_k)[0] for h in range(n_heads)]
        out[f"mha_projections_low_precision/{str(low).split('.')[-1]}"] = torch.cat(heads, dim=-1) @ W_O.double()
    return out


_EARLIER_HEAD_WIDTHS = (4, 12)    # the head widths of q8's calls (float64: 12; float32: 4 first)


def kept_scale_variants(submission, X64, W_Q, W_K, W_V, W_O, n_heads) -> dict:
    """mha_scale_kept_across_calls (naming60): the right multi-head attention with the scale 1/sqrt(d) of another
    head width d that an earlier call used, where the source of multi_head_attention reads a name kept at module
    level and fills it (attention_state_line: a cache dict or list filled on the first call): the first call's scale is
    reused for later shapes."""
    d_k = X64.shape[-1] // n_heads
    found = global_scale_variants(submission, X64, W_Q, W_K, W_V, W_O, n_heads)   # naming80: a global's scale
    if attention_state_line(submission, "multi_head_attention") is None:
        return found
    return found | {f"mha_scale_kept_across_calls/{d}": ref.multi_head_attention(X64, W_Q, W_K, W_V, W_O, n_heads,
                                                                         _scale_dim=d)
            for d in _EARLIER_HEAD_WIDTHS if d != d_k}


def entropy_rewrite_variants(logits) -> dict:
    """entropy_shift_not_added_back (naming60): H = lse - sum p s with the logsumexp taken of the max-shifted logits
    and the max never added back: every entropy minus its row's largest logit."""
    H = ref.softmax_entropy(logits)
    m = logits.amax(dim=-1)
    if not bool(m.ne(0).any()):
        return {}
    return {"entropy_shift_not_added_back": H - m}


def entropy_batch_fast_path(fn, got, logits, dtype, expected) -> Misconception | None:
    """entropy_fast_path_whole_batch (naming60): every entropy 0 where some rows are not, and the softmax of at least
    one row is one-hot in the input's dtype (a shortcut `if (p.max(-1) == 1).any(): return zeros`), confirmed by a
    second call on the rows that are not one-hot alone, which gives their right entropies."""
    if type(got) is not torch.Tensor or got.shape != expected.shape or got.dim() != 1 or bool(got.ne(0).any()) \
            or not bool((expected.abs() > 1e-3).any()):
        return None
    p = torch.softmax(logits.to(dtype), dim=-1)
    hot = p.amax(dim=-1) == 1
    if not bool(hot.any()) or bool(hot.all()):
        return None
    rest = logits[~hot].to(dtype)
    try:
        again = fn(rest)
    except StudentCodeError:
        return None
    if type(again) is not torch.Tensor or not matching_variants(again, {"v": ref.softmax_entropy(rest.double())}, dtype):
        return None
    return Misconception("entropy_fast_path_whole_batch", f"softmax_entropy(logits) is 0 for every row, where only "
                         f"row(s) {hot.nonzero().flatten().tolist()} are one-hot; the other rows alone give their right "
                         "entropies: " + describe("entropy_fast_path_whole_batch"))


_LOW_DTYPE_WORDS = re.compile(r"\b(float16|half|bfloat16)\b")


def variance_overflow_said(fn, submission, failure: AssertionError, d_k, n) -> Misconception | None:
    """variance_float16_overflow (naming60): a variance that is not a finite number, where the source of
    dot_product_variance names float16 (torch.float16, .half(), bfloat16) and a second call with few samples
    (n_samples = 200, a sum of squares far below 65504) gives a finite variance near d_k."""
    if "not a finite number" not in str(failure) or submission is None:
        return None
    from autograder.grading.source_checks import SourceUnreadable, cells_of, last_function_def
    try:
        func = last_function_def(cells_of(submission), "dot_product_variance", max_chars=20000)
    except (SourceUnreadable, RecursionError, MemoryError):
        return None
    if func is None:
        return None
    import ast
    words = [n.attr if isinstance(n, ast.Attribute) else n.id for n in list(itertools.islice(ast.walk(func), 3000))
             if isinstance(n, (ast.Attribute, ast.Name))]
    low = sorted({w for w in words if _LOW_DTYPE_WORDS.fullmatch(w)})
    if not low:
        return None
    try:
        small = fn(d_k, 200, torch.Generator().manual_seed(60))
        small = float(small)
    except (StudentCodeError, TypeError, ValueError, RuntimeError):
        return None
    if not (math.isfinite(small) and abs(small / d_k - 1) < 0.5):
        return None
    return Misconception("variance_float16_overflow", f"dot_product_variance(d_k={d_k}, n_samples={n}, ...) is not a "
                         f"finite number, while with n_samples = 200 it is {small:.3g}; your function works in "
                         f"{low[0]}: " + describe("variance_float16_overflow"))


def overflow_checked(thunk, fn, submission, d_k, n):
    """thunk(), q2's estimates; a failure that is a variance not finite is named variance_float16_overflow where
    variance_overflow_said shows it, else raised as it is."""
    try:
        return thunk()
    except Misconception:
        raise
    except AssertionError as failure:
        named = variance_overflow_said(fn, submission, failure, d_k, n)
        if named is not None:
            raise named from None
        raise


# ---------------------------------------------------------------------------------------------------
# naming61: a library's documented behaviour misread (blind61)
# ---------------------------------------------------------------------------------------------------

_READ_LIMIT = 20_000   # a function's cell longer than this is not read (a bounded walk of the student's source)


def _function_read(submission, name):
    """The notebook's last `def name`, parsed (never run), from a cell of at most _READ_LIMIT characters; None
    without a submission, or where there is none readable. `submission` None: the one of the test now running."""
    import ast
    from autograder.grading import checks
    from autograder.grading.source_checks import cells_of, last_function_def
    if submission is None:
        submission = checks.running_submission()
    if submission is None:
        return None
    try:
        func = last_function_def(cells_of(submission), name, max_chars=_READ_LIMIT)
    except Exception:  # noqa: BLE001 - unreadable source is no evidence
        return None
    return func if isinstance(func, ast.FunctionDef) else None


def _rounding_written(func) -> str | None:
    """The text of a call in `func` with rounding_mode='trunc' or 'floor' (torch.div, torch.divide, Tensor.div);
    None where there is none. A `//` or floor_divide is left to the one-edit search (one_edit_fix: / for //)."""
    import ast
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and any(k.arg == "rounding_mode" and isinstance(k.value, ast.Constant)
                                              and k.value.value in ("trunc", "floor") for k in node.keywords):
            return unparse(node)
    return None


def rounded_division_variants(Q64, K64, V64, d_k) -> dict:
    """{scores_division_rounded/<mode>: (output, weights)}: the scaled scores divided with rounding_mode='trunc'
    (towards zero) or 'floor' (down), whole numbers before the softmax (naming61). 2-D inputs only."""
    if Q64.dim() != 2 or K64.dim() != 2:
        return {}
    S = Q64 @ K64.T
    out = {}
    for mode in ("trunc", "floor"):
        w = torch.softmax(torch.div(S, math.sqrt(d_k), rounding_mode=mode), dim=-1)
        out[f"scores_division_rounded/{mode}"] = (w @ V64, w)
    return out


def division_rounded_from_source(submission, m, name="attention"):
    """scores_division_rounded (by replay) stands where `name`'s source divides with rounding_mode='trunc' or
    'floor': the message quotes it; without it the same numbers are said, named nothing (scores made whole numbers
    another way, an .int() or .long(), or a // the one-edit search mends, are other slips the text does not cover)."""
    func = _function_read(submission, name)
    written = None if func is None else _rounding_written(func)
    if written is None:
        return AssertionError(str(m).replace(describe("scores_division_rounded"),
                                             "the scaled scores rounded to whole numbers before the softmax"))
    return Misconception("scores_division_rounded", f"{m} (here `{written[:120]}` in {name})")


def _einsum_scalar_spec(func) -> str | None:
    """The text of an einsum call in `func` whose equation (a string constant) has no '->' and no label that
    appears once: in implicit mode its output keeps only the labels that appear once, so it is one number."""
    import ast
    for node in ast.walk(func):
        if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)):
            continue
        callee = getattr(node.func, "attr", getattr(node.func, "id", ""))
        spec = node.args[0].value
        if callee != "einsum" or "->" in spec or "." in spec or len(spec) > 60:
            continue
        labels = [c for c in spec if c.isalpha()]
        if labels and all(labels.count(c) > 1 for c in labels):
            return unparse(node)
    return None


def einsum_implicit_nan(what, submission=None) -> Misconception | None:
    """dots_einsum_implicit_summed (naming61): a NaN variance (of one number) where dot_product_variance's source
    has an einsum with no '->' whose every label appears twice ('nd,nd'): implicit mode sums them all, n too."""
    func = _function_read(submission, "dot_product_variance")
    written = None if func is None else _einsum_scalar_spec(func)
    if written is None:
        return None
    return Misconception("dots_einsum_implicit_summed", f"{what} is NaN, the variance of one number (torch's var "
                         f"divides by n - 1), and `{written[:120]}` has no '->': "
                         + describe("dots_einsum_implicit_summed"))


_SHARED_WRITE = "more than one element of the written-to tensor refers to a single memory location"
_EXPANDING = frozenset({"expand", "expand_as", "broadcast_to"})


def _expanded_buffer(func) -> str | None:
    """The text of an assignment in `func` that binds a name to an .expand(...) / .expand_as(...) /
    broadcast_to(...) (the outermost call) where that name is later written into (a subscript store, an
    augmented assignment, or an in-place method ending in '_')."""
    import ast
    made = {}
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Call) \
                and getattr(node.value.func, "attr", getattr(node.value.func, "id", "")) in _EXPANDING:
            made.setdefault(node.targets[0].id, node)
    for node in ast.walk(func):
        target = None
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                    target = t.value.id
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.attr.endswith("_") \
                and not node.func.attr.startswith("_"):
            target = node.func.value.id
        if target in made:
            return unparse(made[target])
    return None


def _three_axis_view(node, views) -> bool:
    """Whether `node` is a .view / .reshape call with three sizes (or a 3-tuple), an .unflatten, or a name bound
    to one of those (`views`)."""
    import ast
    if isinstance(node, ast.Name):
        return node.id in views
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return False
    if node.func.attr == "unflatten":
        return True
    if node.func.attr not in ("view", "reshape"):
        return False
    args = node.args
    if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
        args = args[0].elts
    return len(args) == 3 and not any(isinstance(a, ast.Starred) for a in args)


def _dot_t_on_three_axes(func) -> str | None:
    """The text of a `.T` in `func` taken of a three-axis view (_three_axis_view), None where there is none."""
    import ast
    views = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and _three_axis_view(node.value, set()):
            views.add(node.targets[0].id)
    for node in ast.walk(func):
        if isinstance(node, ast.Attribute) and node.attr == "T" and _three_axis_view(node.value, views):
            return unparse(node)
    return None


def library_misread_crash(e, submission, name="multi_head_attention") -> Misconception | None:
    """Crashes of multi_head_attention whose cause the source shows (naming61; q8's inputs are all plain,
    contiguous tensors): mha_buffer_expanded, torch's own words for a write into a tensor whose elements share
    memory, where the function writes into a name it bound to an .expand(...); mha_heads_dot_T, a RuntimeError
    where the source takes `.T` of a (T, n_heads, d_k) view (reverses all three axes)."""
    if e.exc_type != "RuntimeError":
        return None
    func = _function_read(submission, name)
    if func is None:
        return None
    first = (e.message.splitlines() or [""])[0][:200]
    if _SHARED_WRITE in e.message:
        written = _expanded_buffer(func)
        if written is not None:
            return Misconception("mha_buffer_expanded", f"your code raised {e.exc_type}: {first}: `{written[:120]}` "
                                 "is written into: " + describe("mha_buffer_expanded"))
        return None
    written = _dot_t_on_three_axes(func)
    if written is not None:
        return Misconception("mha_heads_dot_T", f"your code raised {e.exc_type}: {first}: `{written[:120]}` is .T of "
                             "a three-axis tensor: " + describe("mha_heads_dot_T"))
    return None


def dot_t_split_variants(submission, X64, W_Q, W_K, W_V, W_O, n_heads) -> dict:
    """mha_heads_dot_T (naming61), by replay where the source takes .T of a three-axis view (_dot_t_on_three_axes):
    Q, K, V split as .view(T, n_heads, d_k).T, (d_k, n_heads, T), through a batched attention (the last two axes:
    the heads as queries and keys, the tokens as features) and merged back with .T and a reshape to (T, d_model)."""
    T, d_model = X64.shape
    d_k = d_model // n_heads
    func = _function_read(submission, "multi_head_attention")
    if n_heads < 2 or func is None or _dot_t_on_three_axes(func) is None:
        return {}
    Qh, Kh, Vh = ((X64 @ W).view(T, n_heads, d_k).permute(2, 1, 0) for W in (W_Q, W_K, W_V))
    w = torch.softmax(Qh @ Kh.transpose(-2, -1) / math.sqrt(d_k), dim=-1)
    return {"mha_heads_dot_T": (w @ Vh).permute(2, 1, 0).reshape(T, d_model) @ W_O}


_NEW_TENSOR_METHODS = frozenset({"masked_fill", "nan_to_num", "clamp", "clamp_min", "clip", "index_fill", "where",
                                 "masked_scatter", "fill_diagonal"})


def nan_guard_said(name="softmax_entropy") -> str:
    """What entropy_nan_saturated adds where `name`'s source shows why its guard did not hold (naming61, words only,
    the key unchanged): a guard whose result is thrown away (`terms.masked_fill(...)` as a statement), or a clamp
    at torch.finfo(...).min (the most negative float, not the smallest positive one); else nothing."""
    import ast
    func = _function_read(None, name)
    if func is None:
        return ""
    for node in ast.walk(func):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Attribute) and node.value.func.attr in _NEW_TENSOR_METHODS:
            attr = node.value.func.attr
            return (f" (`{unparse(node.value)[:120]}` returns a new tensor, and its result is thrown away: assign it, "
                    f"x = x.{attr}(...), or use the in-place {attr}_)")
    for node in ast.walk(func):
        if isinstance(node, ast.Attribute) and node.attr == "min" and isinstance(node.value, ast.Call) \
                and getattr(node.value.func, "attr", getattr(node.value.func, "id", "")) == "finfo":
            return (f" (`{unparse(node)[:120]}` is the most negative float, about -3.4e38, so a clamp at it leaves "
                    "log(0) = -inf: torch.finfo(dtype).tiny is the smallest positive one)")
    return ""


def flag_negation_said(name="dot_product_variance") -> str:
    """What scaled_flag_ignored adds where `name`'s source negates a parameter with ~ (naming61, words only): on a
    Python bool ~ is the integer bitwise NOT (~False == -1, ~True == -2), both true; else nothing."""
    import ast
    func = _function_read(None, name)
    if func is None:
        return ""
    params = {a.arg for a in func.args.args + func.args.kwonlyargs}
    for node in ast.walk(func):
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert) and isinstance(node.operand, ast.Name) \
                and node.operand.id in params:
            flag = node.operand.id
            return (f" (`~{flag}` on a Python bool is the integer bitwise NOT, ~False == -1 and ~True == -2, both "
                    f"true: write `not {flag}`; ~ negates only bool tensors)")
    return ""


# --- naming62: blind62's conventions carried over from another source (sequence-first batch axis, a keep mask
# filled as padding, bfloat16 scores, an out-of-place op whose result is dropped, Flax's length-heads values) ----

def _calls_in(func, names) -> list:
    """The calls in `func` (parsed, never run) to a method or function named one of `names`."""
    import ast
    return [n for n in ast.walk(func) if isinstance(n, ast.Call) and _called(n) in names]


def _int_arg(node, value) -> bool:
    import ast
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == value


def _axis_one_added(func) -> str | None:
    """The first `x.unsqueeze(1)` / `torch.unsqueeze(x, 1)` / `x[:, None]` in `func`, quoted bounded; else None."""
    import ast
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and _called(node) in ("unsqueeze", "unsqueeze_"):
            method = isinstance(node.func, ast.Attribute) and not (
                isinstance(node.func.value, ast.Name) and node.func.value.id == "torch")
            axis = node.args[0] if method and node.args else node.args[1] if len(node.args) > 1 else None
            axis = axis if axis is not None else next((k.value for k in node.keywords if k.arg == "dim"), None)
            operand = node.func.value if method else node.args[0] if node.args else None
            # on a tensor named (Q, a loop's x), not on a tensor made there (torch.full(...)[:, None], a scale)
            if axis is not None and _int_arg(axis, 1) and isinstance(operand, ast.Name):
                return unparse(node)[:100]
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple) and len(node.slice.elts) >= 2 \
                and isinstance(node.slice.elts[0], ast.Slice) and isinstance(node.slice.elts[1], ast.Constant) \
                and node.slice.elts[1].value is None and isinstance(node.value, ast.Name):
            return unparse(node)[:100]
    return None


def _multiplies_matrices(func) -> bool:
    """Whether `func` (parsed, never run) has a @, matmul or bmm: what batches over an axis added at dim 1."""
    import ast
    return any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult) or _called(n) in ("matmul", "bmm")
               for n in ast.walk(func))


def _tokens_batched(pair, Q, K, V) -> bool:
    """Whether (output, weights) is what the batch axis at dim 1 gives on square inputs: every token its own
    batch of one, so the weights are a (T, 1) column of ones and the output is V itself."""
    if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(type(p) is torch.Tensor for p in pair)):
        return False
    out, w = pair
    T = Q.shape[-2]
    return K.shape[-2] == T and tuple(w.shape) == (T, 1) and bool(torch.isfinite(w).all()) \
        and bool(torch.all(w.double() == 1)) and bool(matching_variants(out, {"v": V.double()}, Q.dtype)) \
        and T > 1


def batch_axis_at_dim_one(fn, pair, Q, K, V, d_k, crash=None) -> Misconception | None:
    """attention_batch_axis_at_dim_one (naming62): the student's pair (or, after a crash with T_q != T_k, a second
    call on as many queries as keys) is the replay of the batch axis added at dim 1, nn.MultiheadAttention's
    sequence-first (L, N=1, E) (weights a (T, 1) column of ones, output V), and the source adds that axis
    (unsqueeze(1), [:, None]). None otherwise."""
    said = ""
    if crash is not None:
        T = min(Q.shape[-2], K.shape[-2])
        if T < 2 or Q.shape[-2] == K.shape[-2]:
            return None
        try:
            pair = fn(Q[:T], K[:T], V[:T], d_k)
        except Exception:  # noqa: BLE001 - a replay is only evidence
            return None
        Q, K, V = Q[:T], K[:T], V[:T]
        said = (f"your code raised {crash.exc_type}: {crash.message.splitlines()[0] if crash.message else ''}, "
                f"and with as many queries as keys ({T}) ")
    if not _tokens_batched(pair, Q, K, V):
        return None
    func = _function_read(None, "attention")
    # the replay's (T, 1) ones and V come from @ batching over the added axis; (Q * K).sum(-1, keepdim=True), an
    # elementwise score, gives them too, with no matrix product
    added = None if func is None or not _multiplies_matrices(func) else _axis_one_added(func)
    if added is None:
        return None
    T = Q.shape[-2]
    said += (f"{'i' if said else 'I'}t returns weights of shape ({T}, 1), every entry 1, and the output is V itself, "
             f"each token attending only to itself: what `{added}` gives (the batch axis at dim 1): ")
    return Misconception("attention_batch_axis_at_dim_one", said + describe("attention_batch_axis_at_dim_one"))


def _fills_minus_inf(func) -> str | None:
    """The first fill of the scores with -inf in `func`: a masked_fill(_), a torch.where or an indexed assignment
    whose value is -inf (float('-inf'), -math.inf, -torch.inf) where its mask is True, the mask not written inverted
    (~keep, keep == 0: the right polarity, red-team round 118), quoted bounded; else None."""
    import ast

    def float_of(n, words) -> bool:   # float("-inf"): read off the node, never unparsed (every argument of nested
        # masked_fills written back cost the grader 0.8 s of CPU a call on a 17 KB def, red-team round 118)
        return isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "float" and not n.keywords \
            and len(n.args) == 1 and isinstance(n.args[0], ast.Constant) and n.args[0].value in words

    def minus_inf(n) -> bool:   # float('-inf'), -float('inf'), -math.inf, -torch.inf, -np.inf, -numpy.inf
        if float_of(n, ("-inf", "-Infinity")):
            return True
        if not (isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub)):
            return False
        v = n.operand
        return float_of(v, ("inf", "Infinity")) or isinstance(v, ast.Attribute) and v.attr == "inf" \
            and isinstance(v.value, ast.Name) and v.value.id in ("math", "torch", "np", "numpy")

    def negated(n) -> bool:   # ~m, not m, m == 0 / False, logical_not(m), 1 - m: a keep mask already inverted
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.Invert, ast.Not)) or _called(n) == "logical_not":
            return True
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub) and isinstance(n.left, ast.Constant):
            return True
        return isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.Eq, ast.NotEq)) \
            and isinstance(n.comparators[0], ast.Constant) and n.comparators[0].value in (0, False)

    for node in ast.walk(func):
        if isinstance(node, ast.Call) and _called(node) in ("masked_fill", "masked_fill_"):
            # -inf where the mask is True, the mask not written inverted (masked_fill(~keep, -inf) is right)
            method = isinstance(node.func, ast.Attribute) and not (
                isinstance(node.func.value, ast.Name) and node.func.value.id == "torch")
            args = [*node.args[0 if method else 1:], *(k.value for k in node.keywords if k.arg in ("mask", "value"))]
            mask = next((k.value for k in node.keywords if k.arg == "mask"), args[0] if args else None)
            if any(minus_inf(a) for a in args) and mask is not None and not negated(mask):
                return unparse(node)[:100]
        # torch.where(cond, -inf, scores) fills where cond is True; torch.where(keep, scores, -inf) keeps them
        if isinstance(node, ast.Call) and _called(node) == "where" and len(node.args) == 3 \
                and minus_inf(node.args[1]) and not negated(node.args[0]):
            return unparse(node)[:100]
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript) and minus_inf(node.value) \
                and not negated(node.targets[0].slice):
            return unparse(node)[:100]
    return None


def mask_filled_everywhere(pair, Q, K, V) -> Misconception | None:
    """mask_polarity_inverted (naming62): every entry of both results NaN on finite inputs, the replay of a
    masked_fill(mask, -inf) whose mask is True on every key (a keep = True mask, Hugging Face / SDPA polarity,
    filled as a padding = True one: softmax of a row of -inf is NaN), with that fill in the source."""
    if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(type(p) is torch.Tensor for p in pair)):
        return None
    if not all(bool(torch.isfinite(t).all()) for t in (Q, K, V)) or not all(p.numel() and bool(torch.isnan(p).all())
                                                                           for p in pair):
        return None
    scores = (Q.double() @ K.double().transpose(-2, -1)).masked_fill(
        torch.ones(Q.shape[-2], K.shape[-2], dtype=torch.bool), float("-inf"))
    replay = torch.softmax(scores, dim=-1)
    if not bool(torch.isnan(replay).all()) or tuple(pair[1].shape) != tuple(replay.shape):
        return None
    func = _function_read(None, "attention")
    fill = None if func is None else _fills_minus_inf(func)
    if fill is None:
        return None
    return Misconception("mask_polarity_inverted", f"every entry of the weights and of the output is NaN, what "
                         f"`{fill}` gives when the mask is True on every key (each row of scores all -inf, and "
                         "the softmax of a row of -inf is 0/0): " + describe("mask_polarity_inverted"))


def _low_precision_replays(Q, K, V, d_k) -> dict:
    """(output, weights) with the score matmul in bfloat16 or float16 and cast back (the scale applied after the
    cast or before it), the rest in the inputs' dtype: what JAX's default matmul precision on a TPU gives."""
    out = {}
    if Q.dtype not in (torch.float32, torch.float64):
        return out
    for low in (torch.bfloat16, torch.float16):
        ql, kl = Q.to(low), K.to(low)
        raw = ql @ kl.transpose(-2, -1)
        for form, S in (("after", raw.to(Q.dtype) / math.sqrt(d_k)), ("before", (raw / math.sqrt(d_k)).to(Q.dtype)),
                        ("queries", ((Q / math.sqrt(d_k)).to(low) @ kl.transpose(-2, -1)).to(Q.dtype))):
            w = torch.softmax(S, dim=-1)
            out[f"{low}/{form}"] = (w @ V, w)
    return out


def scores_low_precision(pair, Q, K, V, d_k) -> Misconception | None:
    """scores_low_precision (naming62): both results are the replay of the score matmul done in bfloat16 (or
    float16) and cast back, and not the right ones; None otherwise."""
    if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(type(p) is torch.Tensor for p in pair)):
        return None
    if Q.dim() != 2 or Q.numel() > 4096 or K.numel() > 4096 or V.numel() > 4096:
        return None
    right = ref.attention(Q.double(), K.double(), V.double(), d_k)
    if all(matching_variants(p, {"v": r}, Q.dtype) for p, r in zip(pair, right)):
        return None
    for key, wrong in _low_precision_replays(Q, K, V, d_k).items():
        if all(tuple(p.shape) == tuple(w.shape) and torch.allclose(p.double(), w.double(), rtol=1e-5, atol=1e-7)
               for p, w in zip(pair, wrong)):
            low = "bfloat16" if "bfloat16" in key else "float16"
            return Misconception("scores_low_precision", f"the weights and the output are what the scores give "
                                 f"when Q @ K^T is computed in {low} and cast back to {str(Q.dtype)[6:]} (off in the "
                                 "third significant digit): " + describe("scores_low_precision"))
    return None


def _all_false_default_mask(func) -> tuple[str, str, str] | None:
    """(parameter, the default built, the fill) where `func` takes a parameter defaulting to None, builds it under
    `if p is None:` as an all-False tensor (torch.zeros(...), zeros_like, new_zeros, torch.full(..., False), with
    a .bool() / .to(...) after it) and fills the scores with -inf where p is False (masked_fill(~p, -inf),
    torch.where(p, scores, -inf), scores[~p] = -inf): True = keep read off a default that keeps nothing. Each
    part on the same name; None where any part is missing (naming82)."""
    import ast
    a = func.args
    pos = [*a.posonlyargs, *a.args]
    params = {x.arg for x, d in zip(pos[len(pos) - len(a.defaults):], a.defaults)
              if isinstance(d, ast.Constant) and d.value is None}
    params |= {x.arg for x, d in zip(a.kwonlyargs, a.kw_defaults) if isinstance(d, ast.Constant) and d.value is None}

    def all_false(n) -> bool:
        while isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("bool", "to") \
                and isinstance(n.func.value, ast.Call):
            n = n.func.value
        name = _called(n)
        if name in ("zeros", "zeros_like", "new_zeros"):
            return True
        return name in ("full", "full_like", "new_full") and len(n.args) >= 2 \
            and isinstance(n.args[1], ast.Constant) and n.args[1].value is False

    def is_p(n, p) -> bool:
        return isinstance(n, ast.Name) and n.id == p

    def negated_p(n, p) -> bool:   # ~p, not p, p == 0 / False, torch.logical_not(p), p.logical_not()
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.Invert, ast.Not)):
            return is_p(n.operand, p)
        if isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], ast.Eq) \
                and isinstance(n.comparators[0], ast.Constant) and n.comparators[0].value in (0, False):
            return is_p(n.left, p)
        if _called(n) == "logical_not":
            return any(is_p(x, p) for x in n.args) or isinstance(n.func, ast.Attribute) and is_p(n.func.value, p)
        return False

    def minus_inf(n) -> bool:
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            v = n.operand
            return isinstance(v, ast.Attribute) and v.attr == "inf" or isinstance(v, ast.Call) \
                and isinstance(v.func, ast.Name) and v.func.id == "float" and len(v.args) == 1 \
                and isinstance(v.args[0], ast.Constant) and v.args[0].value in ("inf", "Infinity")
        return isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "float" \
            and len(n.args) == 1 and isinstance(n.args[0], ast.Constant) and n.args[0].value in ("-inf", "-Infinity")

    built = {}
    for node in ast.walk(func):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and len(node.test.ops) == 1 \
                and isinstance(node.test.ops[0], ast.Is) and isinstance(node.test.left, ast.Name) \
                and node.test.left.id in params and isinstance(node.test.comparators[0], ast.Constant) \
                and node.test.comparators[0].value is None:
            p = node.test.left.id
            for st in node.body:
                if isinstance(st, ast.Assign) and len(st.targets) == 1 and is_p(st.targets[0], p) \
                        and all_false(st.value):
                    built.setdefault(p, unparse(st)[:100])
    if not built:
        return None
    for node in ast.walk(func):
        for p, text in built.items():
            fill = None
            if isinstance(node, ast.Call) and _called(node) in ("masked_fill", "masked_fill_"):
                method = isinstance(node.func, ast.Attribute) and not (
                    isinstance(node.func.value, ast.Name) and node.func.value.id == "torch")
                args = [*node.args[0 if method else 1:], *(k.value for k in node.keywords if k.arg == "value")]
                mask = next((k.value for k in node.keywords if k.arg == "mask"), args[0] if args else None)
                if mask is not None and negated_p(mask, p) and any(minus_inf(x) for x in args[1:] or args):
                    fill = node
            elif isinstance(node, ast.Call) and _called(node) == "where" and len(node.args) == 3 \
                    and is_p(node.args[0], p) and minus_inf(node.args[2]):
                fill = node
            elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript) \
                    and minus_inf(node.value) and negated_p(node.targets[0].slice, p):
                fill = node
            if fill is not None:
                return p, text, unparse(fill)[:100]
    return None


def default_mask_hides_every_key(fn, pair, Q, K, V, d_k) -> Misconception | None:
    """default_mask_hides_every_key (naming82): every entry of both results NaN on finite inputs (the replay of -inf
    on every score), the source builds a None-default mask as all False and fills -inf where the mask is False,
    and a second call passing that parameter an all-True mask (keep every key) is right: the default is the cause."""
    if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(type(p) is torch.Tensor for p in pair)):
        return None
    if not all(bool(torch.isfinite(t).all()) for t in (Q, K, V)) or not all(p.numel() and bool(torch.isnan(p).all())
                                                                           for p in pair):
        return None
    func = _function_read(None, "attention")
    found = None if func is None else _all_false_default_mask(func)
    if found is None:
        return None
    p, built, fill = found
    keep = torch.ones(*Q.shape[:-1], K.shape[-2], dtype=torch.bool)
    try:
        again = fn(Q, K, V, d_k, **{p: keep})
    except Exception:  # noqa: BLE001 - a second call is only evidence
        return None
    right = ref.attention(Q.double(), K.double(), V.double(), d_k)
    if not (isinstance(again, (tuple, list)) and len(again) == 2 and all(type(x) is torch.Tensor for x in again)
            and all(matching_variants(x, {"right": r}, Q.dtype) for x, r in zip(again, right))):
        return None
    return Misconception("default_mask_hides_every_key", f"every entry of the weights and of the output is NaN: with "
                         f"no {p} given, `{built}` builds a mask that is False on every key, and `{fill}` hides the "
                         f"keys where the mask is False, so every score is -inf (the softmax of a row of -inf is "
                         f"0/0); the same call with {p}= an all-True mask is right: "
                         + describe("default_mask_hides_every_key"))


def carried_convention(fn, pair, Q, K, V, d_k) -> None:
    """Raise the naming62 kinds read from one (output, weights) pair, each a replay with its source condition."""
    found = default_mask_hides_every_key(fn, pair, Q, K, V, d_k) or batch_axis_at_dim_one(fn, pair, Q, K, V, d_k) \
        or mask_filled_everywhere(pair, Q, K, V) \
        or scores_low_precision(pair, Q, K, V, d_k)
    if found is not None:
        raise found


_OUT_OF_PLACE = frozenset({"index_copy", "index_add", "index_fill", "index_put", "scatter", "scatter_add",
                           "scatter_reduce", "masked_fill", "masked_scatter", "put", "index_reduce"})


_MADE = frozenset({"zeros", "zeros_like", "empty", "empty_like", "ones", "ones_like", "full", "full_like",
                   "new_zeros", "new_empty", "new_ones", "new_full"})


def out_of_place_dropped(got, expected, name="multi_head_attention") -> Misconception | None:
    """out_of_place_result_dropped (naming62): an all-zero result where the right one is not, and `name`'s source has
    a bare statement `x.index_copy(...)` (or index_add, scatter, masked_fill, ...: the out-of-place forms, which
    return a new tensor) whose result nothing keeps, on an x the def returns, so the buffer it was meant to fill stays
    zeros."""
    import ast
    if type(got) is not torch.Tensor or tuple(got.shape) != tuple(expected.shape) or not bool((got == 0).all()) \
            or bool((expected == 0).all()):
        return None
    func = _function_read(None, name)
    if func is None:
        return None
    # only a statement on a buffer the def returns (concat in `return concat @ W_O`) leaves the result zeros: a
    # harmless X.masked_fill(...) elsewhere is thrown away too, but is not why the output is zeros
    returned = {n.id for r in ast.walk(func) if isinstance(r, ast.Return) and r.value is not None
                for n in ast.walk(r.value) if isinstance(n, ast.Name)}
    # a buffer's making (torch.zeros(T, d_model, dtype=X.dtype)) passes no data on: X is not what is returned
    assigns = [a for a in ast.walk(func) if isinstance(a, ast.Assign) and len(a.targets) == 1
               and isinstance(a.targets[0], ast.Name) and _called(a.value) not in _MADE]
    for _ in range(8):   # out = concat @ W_O; return out: followed through a few assignments, bounded
        more = {n.id for a in assigns if a.targets[0].id in returned for n in ast.walk(a.value)
                if isinstance(n, ast.Name)} - returned
        if not more:
            break
        returned |= more
    for node in ast.walk(func):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Attribute) and node.value.func.attr in _OUT_OF_PLACE \
                and isinstance(node.value.func.value, ast.Name) and node.value.func.value.id in returned:
            attr = node.value.func.attr
            return Misconception("out_of_place_result_dropped", f"{name}(...) returns all zeros: `"
                                 f"{unparse(node.value)[:120]}` returns a new tensor and its result is thrown away, "
                                 f"so the buffer stays zeros (use {attr}_ or assign the result): "
                                 + describe("out_of_place_result_dropped"))
    return None


def _length_heads_reshape(func) -> set:
    """Names assigned from a 3-argument `.reshape(T, n_heads, d)` / `.view(...)` whose second argument is the last
    parameter of `func` (n_heads), with no transpose, permute or einsum applied to them afterwards."""
    import ast
    params = [a.arg for a in func.args.args]
    heads = params[-1] if params else None
    names = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Call) and _called(node.value) in ("reshape", "view") \
                and len(node.value.args) == 3 and isinstance(node.value.args[1], ast.Name) \
                and node.value.args[1].id == heads:
            names.add(node.targets[0].id)
    for node in ast.walk(func):   # re-bound head-first anywhere: not this layout
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id in names \
                and not (isinstance(node.value, ast.Call) and _called(node.value) in ("reshape", "view")):
            names.discard(node.targets[0].id)
    return names


def values_length_heads_crash(e: StudentCodeError, X, Ws, n_heads, name="multi_head_attention"):
    """mha_values_length_heads_layout (naming62): a crash word for word what weights (heads, T, T) @ V in Flax's
    (T, heads, head_dim) layout raises on these inputs, where the source reshapes to (T, n_heads, d) and feeds that
    tensor, untransposed, as the right operand of @ / matmul; None otherwise."""
    import ast
    T, d_model = X.shape[-2], X.shape[-1]
    if X.dim() != 2 or d_model % n_heads or T == n_heads or not e.message:
        return None
    d = d_model // n_heads
    Vh = (X.double() @ Ws[2].double()).reshape(T, n_heads, d)
    try:
        torch.ones(n_heads, T, T, dtype=torch.float64) @ Vh
        return None
    except RuntimeError as replay:
        if str(replay).splitlines()[0] != e.message.splitlines()[0]:
            return None
    func = _function_read(None, name)
    if func is None:
        return None
    kept = _length_heads_reshape(func)
    for node in ast.walk(func):
        right = node.right if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult) else \
            node.args[1] if isinstance(node, ast.Call) and _called(node) in ("matmul", "bmm") and len(node.args) == 2 \
            else None
        if isinstance(right, ast.Name) and right.id in kept:
            return Misconception("mha_values_length_heads_layout", f"your code raised {e.exc_type}: "
                                 f"{e.message.splitlines()[0]}, the crash of (heads, T, T) weights @ `{right.id}` kept "
                                 f"({T}, {n_heads}, {d}) = (T, heads, head_dim): "
                                 + describe("mha_values_length_heads_layout"))
    return None


def _negative_axes_only(func) -> bool:
    """Whether `func` (parsed, never run) adds an axis at dim 1 and transposes only with negative axes (transpose(-2,
    -1), .mT), with no .T, no non-negative transpose / permute / swapaxes and no shape unpacking: fixed_axes's cause
    (K.T, transpose(1, 2), B, T, d = Q.shape) is not there to fix (naming62)."""
    import ast
    if func is None or _axis_one_added(func) is None:
        return False
    negative = False
    for node in ast.walk(func):
        if isinstance(node, ast.Attribute) and node.attr == "T":
            return False
        if isinstance(node, ast.Call) and _called(node) in ("transpose", "swapaxes", "swapdims", "permute", "movedim",
                                                            "bmm", "baddbmm", "einsum"):
            if _called(node) != "transpose" or not all(isinstance(a, ast.UnaryOp) and isinstance(a.op, ast.USub)
                                                       for a in node.args[-2:]):
                return False
            negative = True
        if isinstance(node, ast.Attribute) and node.attr == "mT":
            negative = True
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Tuple) \
                and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
            return False
    return negative


# --- naming63: blind63's q1_online_softmax_rescale_factor_inverted and q8_fused_qkv_weights_concatenated_along_rows --

_ONLINE_SAID = {
    "inverted": "the running sum and accumulator rescaled by exp(m_new - m_old) where it is exp(m_old - m_new)",
    "missing": "the running sum and accumulator never rescaled when a later block raises the row's maximum",
    "stale": "each block's exp(s - m) taken against the running max m before it is updated with that block's max",
}


def _loop_block_sizes(func, T_k) -> list[int]:
    """The integer constants 1 < b < T_k written in `func` (at most 8, in order) when it has a for/while loop and
    calls exp: the block sizes a blocked (online) softmax over the keys may use. [] otherwise."""
    import ast
    nodes = list(ast.walk(func))
    if not any(isinstance(n, (ast.For, ast.While)) for n in nodes) \
            or not any(isinstance(n, ast.Call) and getattr(n.func, "attr", getattr(n.func, "id", "")) in ("exp", "exp_")
                       for n in nodes):
        return []
    sizes: list[int] = []
    for n in nodes:
        if isinstance(n, ast.Constant) and type(n.value) is int and 1 < n.value < T_k and n.value not in sizes:
            sizes.append(n.value)
    return sizes[:8]


def _online_softmax(S, V64, block, mode):
    """(output, weights) of a blocked (online) softmax over key blocks of `block` columns whose rescale of the
    running sum and accumulator is inverted (exp(m_new - m)) or missing; the weights exp(S - m_final) / l."""
    m = l = acc = None
    for s in range(0, S.shape[-1], block):
        blk = S[..., s:s + block]
        m_blk = blk.amax(dim=-1, keepdim=True)
        if m is None:
            m = m_blk
            p = torch.exp(blk - m)
            l, acc = p.sum(dim=-1, keepdim=True), p @ V64[s:s + block]
            continue
        m_new = torch.maximum(m, m_blk)
        alpha = torch.exp(m_new - m) if mode == "inverted" else torch.ones_like(m) if mode == "missing" \
            else torch.exp(m - m_new)
        p = torch.exp(blk - (m if mode == "stale" else m_new))   # naming86: stale, exp taken before m is updated
        l = l * alpha + p.sum(dim=-1, keepdim=True)
        acc = acc * alpha + p @ V64[s:s + block]
        m = m_new
    return acc / l, torch.exp(S - m) / l


def online_softmax_evidence(pair, Q64, K64, V64, d_k, same):
    """(online_softmax_rescale_wrong, (output, weights), message) when the output is that of a blocked softmax over
    key blocks of a size the student's `attention` writes (a constant 1 < b < T_k in a function with a loop and an
    exp) with the rescale factor inverted or left out, and the weights are that replay's or the right ones. The
    replay is a few (T_q, b) products per block size (the tests' inputs are small). None otherwise."""
    func = _function_read(None, "attention")
    if func is None or Q64.dim() != 2 or tuple(pair[0].shape) != (Q64.shape[0], V64.shape[-1]):
        return None
    S = Q64 @ K64.mT / math.sqrt(d_k)
    right = ref.attention(Q64, K64, V64, d_k)
    for block in _loop_block_sizes(func, S.shape[-1]):
        for mode in ("inverted", "missing", "stale"):
            out, w = _online_softmax(S, V64, block, mode)
            if same(out, right[0]) or not same(pair[0], out) or not (same(pair[1], w) or same(pair[1], right[1])):
                continue
            sums = w.sum(dim=-1)
            key = "online_softmax_exp_before_max_update" if mode == "stale" else "online_softmax_rescale_wrong"
            return key, (out, w), (
                f"{describe(key)} (replayed over key blocks of {block}: "
                f"{_ONLINE_SAID[mode]}; the rows of exp(scores - m) / l then sum to {float(sums.min()):.3g} ... "
                f"{float(sums.max()):.3g})")
    return None


def _rows_cat(node, weights) -> bool:
    """Whether `node` is torch.cat / concat / concatenate / vstack / row_stack of a list or tuple of all of
    `weights` (names) along the rows (no dim, dim 0 or -2)."""
    import ast
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "torch" and node.args and isinstance(node.args[0], (ast.List, ast.Tuple))):
        return False
    names = {e.id for e in node.args[0].elts if isinstance(e, ast.Name)}
    if not set(weights) <= names:
        return False
    if node.func.attr in ("vstack", "row_stack"):
        return True
    if node.func.attr not in ("cat", "concat", "concatenate"):
        return False
    dims = [k.value for k in node.keywords if k.arg in ("dim", "axis")] + node.args[1:2]
    return not dims or (isinstance(dims[0], (ast.Constant, ast.UnaryOp))
                        and unparse(dims[0]) in ("0", "-2"))


def fused_rows_crash(e, X, Ws, submission=None) -> Misconception | None:
    """mha_fused_qkv_rows_stacked: a matmul crash (T x d_model and 3 d_model x d_model) that X @ torch.cat([W_Q,
    W_K, W_V]) (the rows stacked) raises in the same words, where the source concatenates the three weight
    parameters along the rows (torch.cat without dim=1, vstack)."""
    found = _MATMUL.search(e.message or "")
    T, d_model = X.shape
    if e.exc_type != "RuntimeError" or not found \
            or tuple(int(x) for x in found.groups()) != (T, d_model, 3 * d_model, d_model):
        return None
    try:
        X @ torch.cat(list(Ws[:3]))
        return None
    except RuntimeError as again:
        if found.group(0) not in str(again):
            return None
    func = _function_read(submission, "multi_head_attention")
    if func is None:
        return None
    import ast
    params = [a.arg for a in func.args.args]
    if len(params) < 4:
        return None
    cat = next((n for n in ast.walk(func) if _rows_cat(n, params[1:4])), None)
    if cat is None:
        return None
    return Misconception("mha_fused_qkv_rows_stacked", f"your code raised {e.exc_type}: {found.group(0)}: "
                         f"`{unparse(cat)[:120]}` is ({3 * d_model}, {d_model}), the three weights stacked along "
                         f"the rows: " + describe("mha_fused_qkv_rows_stacked"))


# naming65 (blind65: leftovers from debugging and unfinished edits) ----------------------------------------------
_DRAWS65 = frozenset({"randn", "rand", "randint", "randn_like", "rand_like", "normal", "tensor", "ones", "zeros", "full",
                      "eye", "arange", "linspace", "empty", "ones_like", "zeros_like", "as_tensor"})


def _called_name(call) -> str:
    import ast
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _overwritten_parameters(func) -> list[tuple[str, str]]:
    """(parameter, statement) for each parameter of `func` that a top-level statement of its body assigns from a
    draw or a constant (`Q = torch.randn(3, d_k)`, a literal), not from itself, before any statement reads it:
    the argument passed in is never used. A bounded walk of the first 40 statements."""
    import ast
    params = [a.arg for a in func.args.posonlyargs + func.args.args + func.args.kwonlyargs]
    found: list[tuple[str, str]] = []
    read: set[str] = set()
    for stmt in func.body[:40]:
        loads = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        pairs = []
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            t, v = stmt.targets[0], stmt.value
            if isinstance(t, ast.Name):
                pairs = [(t, v)]
            elif isinstance(t, ast.Tuple) and isinstance(v, ast.Tuple) and len(t.elts) == len(v.elts):
                pairs = list(zip(t.elts, v.elts))      # Q, K = torch.randn(3, d_k), torch.randn(3, d_k)
        for t, value in pairs:
            drawn = isinstance(value, ast.Constant) or (isinstance(value, ast.Call) and _called_name(value) in _DRAWS65)
            if isinstance(t, ast.Name) and t.id in params and t.id not in read and t.id not in loads and drawn:
                found.append((t.id, unparse(stmt)[:60]))
        read |= loads
    return found


def _same_weights_for_other_inputs(fn, T: int, d_k: int, d_v: int, dt) -> bool:
    """Two calls with two different (T, d_k) query and key sets and the same (T, d_v) values both run and give
    the same weights, wrong for at least one of them: the queries and keys passed in are not used."""
    g = torch.Generator().manual_seed(65)
    v = randn((T, d_v), g, dt)
    got, right = [], []
    for _ in range(2):
        q, k = randn((T, d_k), g, dt), randn((T, d_k), g, dt)
        try:
            out = fn(q, k, v, d_k)
        except StudentCodeError:
            return False
        if not (isinstance(out, (tuple, list)) and len(out) == 2 and type(out[1]) is torch.Tensor):
            return False
        got.append(out[1])
        right.append(ref.attention(q.double(), k.double(), v.double(), d_k)[1])
    if got[0].shape != got[1].shape or not torch.equal(got[0], got[1]):
        return False
    return not all(matching_variants(w, {"right": r}, dt) for w, r in zip(got, right))


def overwritten_inputs_crash(fn, e: StudentCodeError, Q, K, V, d_k) -> Misconception | None:
    """parameters_overwritten_in_body (naming65, blind65 q1_trace_inputs_pasted_into_function_overwrite_q_and_k):
    the student's `attention` assigns its query or key parameter from a fresh draw or a constant before reading it
    (lines pasted from the trace cell), and called again with two different query/key sets (as many keys as the
    draw has rows, 3 in the trace, or as this call's) it runs and gives the same weights both times."""
    func = _function_read(None, "attention")
    if func is None or Q.dim() != 2 or K.dim() != 2 or V.dim() != 2 or not 0 < d_k <= 256:
        return None
    params = [a.arg for a in func.args.posonlyargs + func.args.args][:2]
    gone = [(p, said) for p, said in _overwritten_parameters(func) if p in params]
    if not gone:
        return None
    for T in dict.fromkeys((3, K.shape[0], Q.shape[0])):
        if T <= 64 and any(_same_weights_for_other_inputs(fn, T, d_k, V.shape[1], dt)
                           for dt in dict.fromkeys((Q.dtype, torch.float32))):
            break
    else:
        return None
    first = (e.message or "").splitlines()[0] if e.message else ""
    names = " and ".join(p for p, _ in gone)
    lines = "; ".join(f"`{said}`" for _, said in gone)
    return Misconception("parameters_overwritten_in_body", f"your code raised {e.exc_type}: {first}: `attention` "
                         f"assigns its parameter{'s' if len(gone) > 1 else ''} {names} anew before reading "
                         f"{'them' if len(gone) > 1 else 'it'} ({lines}), and called again with {T} queries and keys, "
                         "two different sets, it runs and gives the same weights both times: the arguments passed in "
                         "are never used: " + describe("parameters_overwritten_in_body"))


def _head_defaults(submission) -> list[tuple[str, str, int]]:
    """(helper, parameter, default) for each top-level def of the notebook with a parameter named like a head count
    (`n_heads=4`) whose default is an int, that the last multi_head_attention calls without passing it."""
    import ast
    from autograder.grading.source_checks import cells_of
    mha = _function_read(submission, "multi_head_attention")
    if mha is None:
        return []
    helpers: dict[str, ast.FunctionDef] = {}
    try:
        for cell in cells_of(submission):
            if "def " in cell and len(cell) <= _READ_LIMIT:
                try:
                    tree = parse(cell)
                except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
                    continue
                helpers.update({n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)})
    except Exception:  # noqa: BLE001 - unreadable source is no evidence
        return []
    out = []
    for call_ in (n for n in ast.walk(mha) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)):
        helper = helpers.get(call_.func.id)
        if helper is None or helper.name == "multi_head_attention" or helper.args.vararg or helper.args.kwarg:
            continue
        positional = helper.args.posonlyargs + helper.args.args
        defaults = dict(zip([a.arg for a in positional][len(positional) - len(helper.args.defaults):],
                            helper.args.defaults))
        for i, a in enumerate(positional):
            value = defaults.get(a.arg)
            if "head" not in a.arg.lower() or not isinstance(value, ast.Constant) or type(value.value) is not int:
                continue
            passed = len(call_.args) > i or any(k.arg in (a.arg, None) for k in call_.keywords) \
                or any(isinstance(x, ast.Starred) for x in call_.args)
            if not passed and 0 < value.value <= 64:
                out.append((helper.name, a.arg, value.value))
    return list(dict.fromkeys(out))


def raise_if_helper_head_default(submission, fn, got, X, Ws, n_heads, what) -> None:
    """helper_head_count_default (naming65, blind65 q8_split_helper_default_four_heads_left_from_the_demo): the
    answer equals cutting c heads of width d_model // c (c the int default of a helper's head-count parameter that
    multi_head_attention never passes), each scaled by the real d_k or by its width, and a second call with
    n_heads = c on the same inputs is right."""
    raise_if_heads_capped_by_tokens(fn, got, X, Ws, n_heads, what)   # naming88: a second call with T = n_heads
    raise_if_global_scale(submission, got, X, Ws, n_heads, what)   # naming80: first, where the source shows it
    d_model = X.shape[-1]
    found = [(h, p, c) for h, p, c in _head_defaults(submission) if c != n_heads and d_model % c == 0]
    if not found or type(got) is not torch.Tensor:
        return
    helper, param, c = found[0]
    X64, W64 = X.double(), [w.double() for w in Ws]
    Q, K, V = (X64 @ W for W in W64[:3])
    w, d_k = d_model // c, d_model // n_heads
    replays = {f"as_default/{s}": torch.cat([ref.attention(*(M[:, i * w:(i + 1) * w] for M in (Q, K, V)), s)[0]
                                             for i in range(c)], dim=-1) @ W64[3] for s in dict.fromkeys((d_k, w))}
    if not matching_variants(got, replays, X.dtype):
        return
    try:
        again = fn(X, *Ws, c)
    except StudentCodeError:
        return
    if type(again) is not torch.Tensor or not matching_variants(again, {"right": ref.multi_head_attention(X64, *W64, c)},
                                                                 X.dtype):
        return
    raise Misconception("helper_head_count_default", f"{what} is wrong: it equals cutting {c} heads of width {w} "
                        f"instead of {n_heads} head{'s' if n_heads > 1 else ''} of width {d_k}, and your multi_head_attention "
                        f"calls `{helper}` without `{param}`, so its default {param}={c} is used; called again with n_heads = {c} it is "
                        "right: " + describe("helper_head_count_default"))


_SPLITTERS65 = frozenset({"split", "chunk", "tensor_split", "view", "reshape", "unflatten", "rearrange", "unfold",
                          "hsplit", "split_with_sizes", "unbind"})


def _split_written(submission) -> bool:
    """Whether multi_head_attention (or a top-level helper it calls) splits with a split/chunk/view/reshape-like call
    or slices columns with bounds that read a head-count name: where a swapped count and width can be written."""
    import ast
    mha = _function_read(submission, "multi_head_attention")
    if mha is None:
        return True           # unread: the replay stands as before
    heads = {a.arg for a in mha.args.args[5:6]} | {"n_heads", "num_heads", "heads"}
    funcs = [mha] + [f for f in (_function_read(submission, n.func.id) for n in ast.walk(mha)
                                 if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)) if f is not None][:8]
    for func in funcs:
        for n in ast.walk(func):
            if isinstance(n, ast.Call) and _called_name(n) in _SPLITTERS65:
                return True
            if isinstance(n, ast.Slice) and any(isinstance(x, ast.Name) and (x.id in heads or "head" in x.id.lower())
                                                for b in (n.lower, n.upper) if b is not None for x in ast.walk(b)):
                return True
    return False


def split_count_from_source(submission, m: Misconception, got, expected, dtype, n_heads, what) -> Misconception:
    """mha_split_by_head_count stands where the source has a split, chunk, view or reshape (or head-count-bounded
    column slices) that can swap the count and the width; else the values equal it by coincidence of the sizes
    (blind65: 4 heads of width 8 where d_k = 32 // 8 = 4) and the plain failure is raised, with that fact."""
    if m.key != "mha_split_by_head_count" or _split_written(submission):
        return m
    d_k = got.shape[-1] // n_heads if type(got) is torch.Tensor else 0
    try:
        assert_matches(got, expected, what=what, dtype=dtype)
    except AssertionError as failure:
        raise AssertionError(f"{failure} (its values equal {d_k} heads of width {n_heads}, but no split, chunk, view, "
                             "reshape or slice in your code cuts heads that way: count the heads your code cuts and "
                             "their width)") from None
    return m


def _stored_in(func) -> set[str]:
    import ast
    out = {a.arg for a in ast.walk(func) if isinstance(a, ast.arg)}
    for n in ast.walk(func):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            out.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            out |= {(a.asname or a.name).split(".")[0] for a in n.names}
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            out |= set(n.names)
    return out


def unassigned_name(submission, e: StudentCodeError, fname: str) -> Misconception | None:
    """name_assigned_nowhere (naming65, blind65 q2_scaled_branch_still_reads_the_pre_refactor_name): a NameError for
    a name that the student's `fname` reads, and that neither it nor any cell of the notebook assigns (not a
    builtin, not a module alias the notebook forgot to import): left from a rename or a refactor. The name the
    function does assign that looks most like it is said, where one does."""
    import ast
    import builtins
    import difflib
    from autograder.grading import crash_words
    from autograder.grading.source_checks import cells_assigning_globally, cells_of
    found = re.search(r"name '([A-Za-z_]\w{0,60})' is not defined", e.message or "")
    if e.exc_type != "NameError" or found is None:
        return None
    name = found.group(1)
    func = _function_read(submission, fname)
    if func is None or hasattr(builtins, name) or name in getattr(crash_words, "_MODULE_ALIASES", {}):
        return None
    reads = any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for n in ast.walk(func))
    stored = _stored_in(func)
    try:
        made = cells_assigning_globally(cells_of(submission), name)
    except Exception:  # noqa: BLE001 - unreadable source is no evidence
        return None
    if not reads or name in stored or made:
        return None
    close = difflib.get_close_matches(name, sorted(stored), n=1, cutoff=0.6)
    looks = f" (the name of its own that looks most like it is `{close[0]}`)" if close else ""
    return Misconception("name_assigned_nowhere", f"your code raised NameError: name '{name}' is not defined: "
                         f"`{fname}` reads `{name}`, which neither it nor any cell of the notebook assigns{looks}: "
                         + describe("name_assigned_nowhere"))


def unassigned_name_guard(submission, fname: str, thunk):
    """thunk(), with a NameError of a name assigned nowhere (unassigned_name) named."""
    try:
        return thunk()
    except StudentCodeError as e:
        named = unassigned_name(submission, e, fname)
        if named is not None:
            raise named from None
        raise


# --- naming66: blind66's right-in-the-middle, wrong-at-the-edges variants ------------------------------------------

def _function_of(submission, name):
    """The notebook's last `def name`, parsed (never run), or None; only a cell under 20,000 characters is read."""
    from autograder.grading.source_checks import cells_of, last_function_def
    if submission is None:
        return None
    return last_function_def(cells_of(submission), name, max_chars=20_000)


def _params(func) -> list[str]:
    return [a.arg for a in func.args.args] if func is not None else []


def key_count_branch(submission) -> str | None:
    """The test of an `if` in attention that compares the key count (K.shape[0] or [-2], K.size(0), len(K), with
    K attention's second parameter) with 1, quoted (bounded), or None."""
    import ast
    func = _function_of(submission, "attention")
    names = _params(func)
    if len(names) < 2:
        return None
    key = re.escape(names[1])
    pattern = re.compile(rf"(\b{key}\.shape\[\s*(0|-2)\s*\]|\b{key}\.size\(\s*(0|-2)\s*\)|len\(\s*{key}\s*\))")
    for node in ast.walk(func):
        if isinstance(node, (ast.If, ast.IfExp)) and isinstance(node.test, ast.Compare):
            text = unparse(node.test)
            if len(text) < 200 and pattern.search(text) and any(
                    isinstance(c, ast.Constant) and c.value == 1 for c in [node.test.left, *node.test.comparators]):
                return text
    return None


def raise_if_single_key_value_once(out, Q, K, V, d_k, submission) -> None:
    """attention_single_key_value_once: with one key (T_k = 1) and several queries the output is V itself, (1, d_v)
    (the replay: the one value row returned once, not once per query), and the source branches on the key count."""
    if not (K.shape[-2] == 1 and Q.shape[-2] > 1 and type(out) is torch.Tensor and tuple(out.shape) == tuple(V.shape)
            and out.is_floating_point() and matching_variants(out, {"v": V.double()}, V.dtype)):
        return
    branch = key_count_branch(submission)
    if branch is None:
        return
    raise Misconception("attention_single_key_value_once", f"with {Q.shape[-2]} queries and 1 key (2-D inputs) the "
                        f"output has shape {tuple(out.shape)}, not ({Q.shape[-2]}, {V.shape[-1]}): it is the one value "
                        f"row itself, returned once, not once per query; your code branches on `{branch}`: "
                        + describe("attention_single_key_value_once"))


def size_one_axes_said(submission) -> str:
    """attention_size_one_axes_dropped's text, told for code with no .squeeze( in attention: the axis is then lost by
    indexing (Q[0]) in a one-query branch."""
    func = _function_of(submission, "attention")
    if func is None or ".squeeze(" in unparse(func)[:20_000]:
        return describe("attention_size_one_axes_dropped")
    return ("dropping the query axis: your code has no squeeze, so the one query is taken as a vector (Q[0], or a "
            "branch for one query that works on it) and the results come back (d_v,) and (T_k,) instead of (1, d_v) "
            "and (1, T_k); keep Q 2-D (Q[:1], or no one-query branch: Q @ K.T works for any T_q)")


_VALUE_WIDTH = re.compile(r"\b[Vv]\w{0,20}\s*\.\s*(shape\s*\[\s*(-1|1)\s*\]|size\s*\(\s*(-1|1)\s*\))")


def raise_if_value_width_assert(fn, line: str, right_on, Q, K, V, d_k) -> None:
    """own_assert_value_width: the student's assert, whose line reads the values' width (V.shape[-1]), failed on
    values of width d_v != d_k; the same call with values as wide as the keys (d_k) runs and is right."""
    if V.shape[-1] == d_k or not _VALUE_WIDTH.search(line):
        return
    wide = V.new_zeros(*V.shape[:-1], d_k)
    m = min(d_k, V.shape[-1])
    wide[..., :m] = V[..., :m]
    if not right_on(Q, K, wide):
        return
    raise Misconception("own_assert_value_width", f"your own assert failed{line}: these inputs have values of width "
                        f"d_v = {V.shape[-1]} and keys of width d_k = {d_k}; with values as wide as the keys the same "
                        "call runs and is right: " + describe("own_assert_value_width")) from None


def floor_division_in(submission, name="dot_product_variance") -> str | None:
    """The first `a // b` (or `a //= b`) in the notebook's last `def name`, quoted (bounded), or None."""
    import ast
    func = _function_of(submission, name)
    for node in ast.walk(func) if func is not None else []:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv):
            return unparse(node)[:80]
        if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.FloorDiv):
            return unparse(node)[:80]
    return None


def raise_if_floor_divided(v, plain, d_k, submission) -> None:
    """variance_floor_divided: the scaled result is floor(unscaled / d_k) of the same generator's draws (a whole
    number: 0.0 where the sample variance fell just under d_k), and the source writes `//`."""
    if not (isinstance(v, (int, float)) and isinstance(plain, float) and math.isfinite(plain)
            and float(v) == math.floor(plain / d_k) and float(v) != plain / d_k):
        return
    written = floor_division_in(submission)
    if written is None:
        return
    raise Misconception("variance_floor_divided", f"for d_k = {d_k} with scaled=True the result is {float(v):g}, a whole "
                        f"number: the unscaled variance of the same draws, {plain:.5g}, divided by d_k and rounded "
                        f"down ({plain:.5g} / {d_k} = {plain / d_k:.4g}); your code has `{written}`: "
                        + describe("variance_floor_divided"))


def _shift_by_mean(submission) -> str | None:
    """A subtraction in softmax_entropy whose right side takes a mean (x - x.mean(...), x - torch.mean(x, ...)),
    quoted (bounded), or None."""
    import ast
    func = _function_of(submission, "softmax_entropy")
    for node in ast.walk(func) if func is not None else []:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
            right = node.right
            if isinstance(right, ast.Call) and isinstance(right.func, ast.Attribute) and right.func.attr == "mean":
                return unparse(node)[:100]
    return None


def mean_shift_nan(got, logits, submission) -> Misconception | None:
    """entropy_shift_by_mean: NaN in exactly the rows where a softmax shifted by the row mean (not the max) overflows
    (the replay on the same logits: exp(x - mean) is inf, inf / inf NaN), and the source subtracts a mean."""
    if type(got) is not torch.Tensor or tuple(got.shape) != tuple(logits.shape[:-1]):
        return None
    e = torch.exp(logits - logits.mean(dim=-1, keepdim=True))
    p = e / e.sum(dim=-1, keepdim=True)
    replay = torch.isnan(p).any(dim=-1)
    if not bool(replay.any()) or not torch.equal(replay, torch.isnan(got)):
        return None
    written = _shift_by_mean(submission)
    if written is None:
        return None
    rows = [i for i, r in enumerate(replay.tolist()) if r]
    gap = float((logits.amax(-1) - logits.mean(-1))[rows[0]])
    return Misconception("entropy_shift_by_mean", f"softmax_entropy returned NaN for rows {rows}, exactly the rows where "
                         f"a softmax shifted by the row mean overflows (row {rows[0]}: its largest logit is {gap:.4g} "
                         f"above the mean, exp({gap:.4g}) is inf in {str(logits.dtype).replace('torch.', '')}); your "
                         f"code has `{written}`: " + describe("entropy_shift_by_mean"))


def _number_returned(submission) -> str | None:
    """A return in softmax_entropy of `.item()` or float(...), quoted (bounded), or None."""
    import ast
    func = _function_of(submission, "softmax_entropy")
    for node in ast.walk(func) if func is not None else []:
        value = node.value.operand if isinstance(node, ast.Return) and isinstance(node.value, ast.UnaryOp) else \
            getattr(node, "value", None)
        if isinstance(node, ast.Return) and isinstance(value, ast.Call):
            f = value.func
            if (isinstance(f, ast.Attribute) and f.attr == "item") or (isinstance(f, ast.Name) and f.id == "float"):
                return unparse(node)[:100]
    return None


def raise_if_one_row_item(got, expected, what, submission) -> None:
    """entropy_one_row_item: one row (T,) gives a Python float of the right entropy, and softmax_entropy returns
    .item() (or float(...)) on some path, where 2-D and 3-D logits (checked before) gave tensors."""
    if type(got) is not float or not math.isfinite(got) or abs(got - float(expected)) > 1e-4 * max(1.0, abs(got)):
        return
    written = _number_returned(submission)
    if written is None:
        return
    raise Misconception("entropy_one_row_item", f"{what} returned a Python float ({got:.6g}, the right entropy), not a "
                        f"0-d tensor (shape ()); your code has `{written}`: " + describe("entropy_one_row_item"))


def _squeeze_of(func, arg: str | None, bare: bool) -> str | None:
    """The first `arg.squeeze(...)` / torch.squeeze(arg, ...) in func (any receiver where arg is None; with `bare`,
    only a squeeze with no dim), quoted (bounded), or None."""
    import ast
    for node in ast.walk(func) if func is not None else []:
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "squeeze"):
            continue
        method = not (isinstance(node.func.value, ast.Name) and node.func.value.id == "torch")
        target = node.func.value if method else (node.args[0] if node.args else None)
        dims = len(node.args) - (0 if method else 1) + len(node.keywords)
        if bare and dims:
            continue
        if arg is not None and not (isinstance(target, ast.Name) and target.id == arg):
            continue
        return unparse(node)[:80]
    return None


def table_width_one_squeezed(e: StudentCodeError, fn, dims, seed, submission) -> Misconception | None:
    """table_width_one_squeezed: entropy_table crashed on dims with d = 1, its source has a bare .squeeze() (no dim),
    and called again (bounded: the same dims without the 1) it runs."""
    if 1 not in dims or len(dims) > 8:
        return None
    written = _squeeze_of(_function_of(submission, "entropy_table"), None, bare=True)
    rest = tuple(d for d in dims if d != 1)
    if written is None or not rest:
        return None
    try:
        call(fn, dims=rest, seed=seed, what="entropy_table")
    except StudentCodeError:
        return None
    return Misconception("table_width_one_squeezed", f"entropy_table raised {e.exc_type}: "
                         f"{e.message.splitlines()[0][:120] if e.message else ''} for dims = {tuple(dims)}; the same call "
                         f"with dims = {rest} (no d = 1) runs; your code has `{written}`: "
                         + describe("table_width_one_squeezed"))


def token_axis_squeezed(fn, e, X, Ws, n_heads, submission) -> Misconception | None:
    """mha_token_axis_squeezed: multi_head_attention crashed on one token (T = 1), its source squeezes its input
    (X.squeeze(0), X.squeeze()), and the same token twice (T = 2) runs."""
    if X.dim() != 2 or X.shape[0] != 1:
        return None
    func = _function_of(submission, "multi_head_attention")
    names = _params(func)
    written = _squeeze_of(func, names[0], bare=False) if names else None
    if written is None:
        return None
    try:
        call(fn, X.expand(2, -1).clone(), *Ws, n_heads, what="multi_head_attention")
    except StudentCodeError:
        return None
    return Misconception("mha_token_axis_squeezed", f"your code raised {e.exc_type}: "
                         f"{e.message.splitlines()[0][:120] if e.message else ''} on one token (X of shape "
                         f"{tuple(X.shape)}); on two tokens it runs; your code has `{written}`: "
                         + describe("mha_token_axis_squeezed"))


# --- naming67: blind67's q6_answer_read_from_the_letters_dict_under_q5_key, q8_projected_result_assigned_but_never_returned

_QUESTION_KEY = re.compile(r"^\s*(?:q|question[\s_]*)(\d{1,2})(?:_?answer)?\s*$", re.IGNORECASE)


def _last_top_assign(submission, name: str, max_chars: int = 20_000):
    """The notebook's last module-level `name = ...` (a plain assignment to the name alone), parsed (never run), or
    None; only cells under `max_chars` characters are read."""
    import ast
    from autograder.grading.source_checks import cells_of
    last = None
    for cell in cells_of(submission) if submission is not None else []:
        if len(cell) > max_chars or name not in cell:
            continue
        try:
            tree = parse(cell)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            continue
        for n in tree.body:
            if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in n.targets):
                last = n
    return last


def _entry_read(value_node):
    """(container name, key) where `value_node` is `box["key"]` or `box.get("key")` with a string key, else None."""
    import ast
    if isinstance(value_node, ast.Subscript) and isinstance(value_node.value, ast.Name) \
            and isinstance(value_node.slice, ast.Constant) and isinstance(value_node.slice.value, str):
        return value_node.value.id, value_node.slice.value
    if isinstance(value_node, ast.Call) and isinstance(value_node.func, ast.Attribute) \
            and value_node.func.attr == "get" and isinstance(value_node.func.value, ast.Name) and value_node.args \
            and isinstance(value_node.args[0], ast.Constant) and isinstance(value_node.args[0].value, str):
        return value_node.func.value.id, value_node.args[0].value
    return None


def _choice_right(value: str, question: str, answer: str) -> bool:
    """Whether `value` is the right letter: the test's own judge (expect_choice) takes "(d)" as right, so a key read
    off the source must not cost it the point, and "a." is the right letter in a form the judge names itself
    (red-team round 130)."""
    from autograder.grading.checks import expect_choice
    if value.strip().strip("().:").strip().upper() == answer.upper():
        return True
    try:
        expect_choice(value, question, answer=answer, choices="ABCD")
    except AssertionError:
        return False
    return True


def raise_if_read_under_other_key(question: str, value, answer: str, submission) -> None:
    """answer_read_under_other_key: the answer is wrong and the notebook's last binding of it reads one entry of a
    dict under ANOTHER question's key (`q6_answer = my_letters["q5"]`, `.get("q5_answer")`): the key is read off
    the source, and the letter the answer holds is that entry's where the dict is written out. Nothing where the
    letter is right, or where the key names this question."""
    import ast
    own = re.match(r"q(\d+)_answer$", question)
    if not isinstance(value, str) or own is None or _choice_right(value, question, answer):
        return
    last = _last_top_assign(submission, question)
    read = _entry_read(last.value) if last is not None else None
    if read is None:
        return
    box, key = read
    other = _QUESTION_KEY.match(key)
    if other is None or int(other.group(1)) == int(own.group(1)):
        return
    literal = _last_top_assign(submission, box)
    entries = {}
    if literal is not None and isinstance(literal.value, ast.Dict):
        entries = {k.value: v.value for k, v in zip(literal.value.keys, literal.value.values)
                   if isinstance(k, ast.Constant) and isinstance(k.value, str)
                   and isinstance(v, ast.Constant) and isinstance(v.value, str)}
        if key in entries and entries[key] != value:
            return                   # the letter is not that entry's: something else changed it
    mine = next((k for k in entries if (m := _QUESTION_KEY.match(k)) and int(m.group(1)) == int(own.group(1))), None)
    held = f" (it holds {entries[mine]!r})" if mine is not None else ""
    fix = f"{box}[{mine!r}]{held}" if mine is not None else f"this question's own entry of {box}"
    raise Misconception("answer_read_under_other_key", f"{question} is {value[:20]!r}, read from "
                        f"`{unparse(last.value)[:60]}`: the entry under another question's key ({key!r}), not "
                        f"{question[:-len('_answer')]}'s; read {fix}: " + describe("answer_read_under_other_key"))


def _returns_value(func) -> bool:
    """Whether `func`'s own body (nested defs and lambdas not entered) has a `return` with a value, or a yield."""
    import ast
    todo = list(func.body)
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Return) and n.value is not None:
            return True
        if isinstance(n, (ast.Yield, ast.YieldFrom)):
            return True
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        todo.extend(ast.iter_child_nodes(n))
    return False


def raise_if_result_not_returned(submission, name: str, got, what: str) -> None:
    """result_assigned_not_returned: the call gave None, and the notebook's last `def name` has no `return` of a value
    anywhere in its own body and ends with an assignment to one name (`output = ... @ W_O`) or a bare expression:
    the result is computed, then dropped, so every call gives None. Read off the source (bounded)."""
    import ast
    if got is not None:
        return
    func = _function_of(submission, name)
    if func is None or not func.body or _returns_value(func):
        return
    last = func.body[-1]
    if isinstance(last, (ast.Assign, ast.AnnAssign)):
        targets = last.targets if isinstance(last, ast.Assign) else [last.target]
        if len(targets) != 1 or not isinstance(targets[0], ast.Name) or last.value is None:
            return
        said = (f"{name} ends with `{unparse(last)[:80]}` and has no `return`: the result is stored in "
                f"{targets[0].id} and never returned, so every call gives None; add `return {targets[0].id}`")
    elif isinstance(last, ast.Expr) and not isinstance(last.value, ast.Constant) and not (
            isinstance(last.value, ast.Call) and isinstance(last.value.func, ast.Name) and last.value.func.id == "print"):
        said = (f"{name} ends with the bare expression `{unparse(last.value)[:80]}` and has no `return`: its value is "
                f"computed and thrown away, so every call gives None; write `return {unparse(last.value)[:60]}`")
    else:
        return
    raise Misconception("result_assigned_not_returned", f"{what} is None: {said}: "
                        + describe("result_assigned_not_returned"))


def _outside_generator_passed(submission, name: str) -> str | None:
    """Where the notebook's last `def name` draws with `generator=G` and G is a name that neither the function nor
    anything inside it binds (a Generator made in another cell: the q2 demo's `gen`), the cause said in words:
    torch.manual_seed does not reseed that Generator. None otherwise (bounded: one parsed def, quotes cut)."""
    import ast
    func = _function_of(submission, name)
    if func is None:
        return None
    bound = {a.arg for n in ast.walk(func) if isinstance(n, (ast.FunctionDef, ast.Lambda))
             for a in (*n.args.posonlyargs, *n.args.args, *n.args.kwonlyargs)}
    bound |= {n.id for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    bound |= {a.arg for n in ast.walk(func) if isinstance(n, (ast.FunctionDef, ast.Lambda))
              for a in (n.args.vararg, n.args.kwarg) if a is not None}
    for n in ast.walk(func):
        if isinstance(n, ast.Call):
            for kw in n.keywords:
                if kw.arg == "generator" and isinstance(kw.value, ast.Name) and kw.value.id not in bound:
                    g = kw.value.id[:30]
                    return (f"your {name} draws with `{unparse(n)[:70]}`, and `{g}` is a Generator made outside "
                            f"{name}, which torch.manual_seed(seed) does not reseed: its draws go "
                            f"on from wherever `{g}` was left; drop generator={g} so that the reseeded global RNG "
                            f"draws (or make one here, torch.Generator().manual_seed(seed), and pass that)")
    return None


def normalize_p_said(submission, m: Misconception, name: str) -> Misconception:
    """weights_not_normalised (the replay: exps off by a per-row factor) told with its cause where the notebook's last
    `def name` calls normalize(x, a, ...) with a second positional argument (p, the norm order, not dim) that is not
    1 and no p= keyword: each row is divided by its p-norm, not its sum. `m` itself otherwise (the key unchanged)."""
    import ast
    if m.key != "weights_not_normalised":
        return m
    func = _function_of(submission, name)
    for n in ast.walk(func) if func is not None else []:
        if not (isinstance(n, ast.Call) and len(n.args) >= 2 and not any(k.arg == "p" for k in n.keywords)
                and ((isinstance(n.func, ast.Attribute) and n.func.attr == "normalize")
                     or (isinstance(n.func, ast.Name) and n.func.id == "normalize"))):
            continue
        p = n.args[1]
        if isinstance(p, ast.Constant) and p.value in (1, 1.0) and not isinstance(p.value, bool):
            continue
        said = unparse(p)[:20]
        return Misconception(m.key, f"{m}; the cause, in your code: `{unparse(n)[:70]}` passes {said} as p, the norm "
                             "order (normalize(input, p=2.0, dim=1): its second positional parameter is p, not "
                             f"dim), so each row is divided by its p = {said} norm, not by its sum; divide by the row "
                             "sum (exps / exps.sum(dim=-1, keepdim=True)) or write normalize(exps, p=1, dim=-1)")
    return m


def helper_swap_said(submission, key: str) -> str:
    """randn_shape_swapped (the replay: the draws (d_k, n_samples)) told where the sizes are swapped at a call of the
    notebook's own helper, not in its torch.randn: dot_product_variance calls `helper(d_k, n_samples, ...)`
    positionally while the helper is declared (n, d, ...) and draws torch.randn(n, d, ...) in its declared order.
    "" otherwise (bounded: two parsed defs, quotes cut)."""
    import ast
    if key == "divide_by_dk":     # naming70: the same replay, with its cause where the source scales q and k both
        return scale_on_both_said(submission)
    if key == "keys_are_queries":     # naming71: q and k drawn with out= into one buffer
        return one_out_buffer_said(submission) or (   # naming74: said of q2's dot products (blind75)
            "; here each pair's dot product is a vector with itself ((q * q).sum(-1) = |q|^2, variance about "
            "2 d_k): dot each query with its key, (q * k).sum(-1)")
    if key != "randn_shape_swapped":
        return ""
    func = _function_of(submission, "dot_product_variance")
    names = _params(func)
    if len(names) < 2:
        return ""
    calls = [c for c in ast.walk(func) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
             and c.func.id != "dot_product_variance"
             and {names[0], names[1]} <= {a.id for a in c.args if isinstance(a, ast.Name)}]
    for call_node in calls[:4]:      # a few calls: each one's helper is a parse of the notebook
        helper = _function_of(submission, call_node.func.id)
        declared = _params(helper)
        given = {declared[i]: a.id for i, a in enumerate(call_node.args[:len(declared)]) if isinstance(a, ast.Name)}
        for draw in ast.walk(helper) if helper is not None else []:
            if not (isinstance(draw, ast.Call) and _called(draw) == "randn" and len(draw.args) >= 2
                    and all(isinstance(a, ast.Name) and a.id in given for a in draw.args[:2])):
                continue
            a, b = draw.args[0].id, draw.args[1].id
            if given[a] == names[0] and given[b] == names[1] and declared.index(a) < declared.index(b):
                h = call_node.func.id[:30]
                return (f"; the swap is at your call `{unparse(call_node)[:70]}`: {h} is declared "
                        f"({', '.join(declared)[:60]}) and draws torch.randn({a}, {b}, ...), so {a} gets {names[0]} "
                        f"and {b} gets {names[1]}; pass them in the declared order, or by keyword "
                        f"({h}({a}={names[1]}, {b}={names[0]}, ...))")
    return ""


_DRAWS70 = frozenset({"randn", "randn_like", "normal", "normal_"})


def scale_on_both_said(submission) -> str:
    """What divide_by_dk (its replay) adds where dot_product_variance's source scales both operands (naming70, words
    only, the key unchanged): two different draws (names bound to a torch.randn-like call, or such calls themselves)
    each multiplied or divided by a factor that reads d_k and is no draw (q * d_k ** -0.5 and k * d_k ** -0.5, or
    q / sqrt(d_k) and k / sqrt(d_k)): the two factors multiply in q.k. "" otherwise (bounded: one parsed def, its
    first 3000 nodes)."""
    import ast
    import itertools
    func = _function_read(submission, "dot_product_variance")
    names = _params(func)
    if not names:
        return ""
    nodes = list(itertools.islice(ast.walk(func), 3000))
    assigns = [n for n in nodes if isinstance(n, ast.Assign)]
    drawn: set[str] = set()
    reads_dk = {names[0]}
    for _ in range(3):     # a factor bound from d_k, then from that name (inv = 1 / root, root = math.sqrt(d_k))
        for n in assigns:
            pairs = [(t, n.value) for t in n.targets]
            pairs += [(a, b) for t in n.targets if isinstance(t, ast.Tuple) and isinstance(n.value, ast.Tuple)
                      and len(t.elts) == len(n.value.elts) for a, b in zip(t.elts, n.value.elts)]
            for target, value in pairs:
                if not isinstance(target, ast.Name):
                    continue
                if _called(value) in _DRAWS70:
                    drawn.add(target.id)
                elif any(isinstance(x, ast.Name) and x.id in reads_dk for x in ast.walk(value)):
                    reads_dk.add(target.id)

    def draw(x):
        if isinstance(x, ast.Name) and x.id in drawn:
            return x.id
        return f"@{x.lineno}:{x.col_offset}" if _called(x) in _DRAWS70 else None

    def factor(x):     # the first 400 nodes of x (red-team round 132: each product of a 1,900-factor chain walked the
        # chain below it, 3 s of the grader's CPU a call on a 19,000-character def)
        return draw(x) is None and any(isinstance(y, ast.Name) and y.id in reads_dk - drawn
                                       for y in itertools.islice(ast.walk(x), 400))

    scaled: dict[str, str] = {}
    for n in nodes:
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Mult, ast.Div)):
            for operand, other in ((n.left, n.right), (n.right, n.left)) if isinstance(n.op, ast.Mult) \
                    else ((n.left, n.right),):
                if draw(operand) is not None and factor(other):
                    scaled.setdefault(draw(operand), unparse(n)[:60])
        elif isinstance(n, ast.AugAssign) and isinstance(n.op, (ast.Mult, ast.Div)) and draw(n.target) is not None \
                and factor(n.value):
            scaled.setdefault(draw(n.target), unparse(n)[:60])
    if len(scaled) < 2:
        return ""
    first, second = list(scaled.values())[:2]
    return (f" (your code scales both operands, `{first}` and `{second}`: each factor is 1/sqrt(d_k) and the two "
            "multiply in q.k, so the dot product is divided by d_k; scale the dot product once, or only one of q "
            "and k)")


_SPLIT_SIZES70 = re.compile(r"split_with_sizes expects split_sizes to sum exactly to (\d+) \(input tensor's size at "
                            r"dimension -?\d+\), but got split_sizes=\[([0-9, ]{0,400})\]")


def _split_points70(sizes: list[int], d_model: int, d_k: int) -> bool:
    """Whether `sizes` are split points of heads d_k wide: d_k apart, from 0 or d_k, at most d_model, two or more."""
    return (len(sizes) >= 2 and d_k > 0 and sizes[0] in (0, d_k) and sizes[-1] <= d_model
            and all(b - a == d_k for a, b in zip(sizes, sizes[1:])))


def _split_call70(submission, e=None) -> str | None:
    """The text of the first torch.split / Tensor.split / split_with_sizes call in multi_head_attention whose second
    argument is no int literal, or None (bounded: one parsed def). With the crash `e` (red-team round 132), only a
    call on the line that raised, in multi_head_attention or a def inside it: the first such call of the def was
    quoted, so a right `(X @ W_Q).split(d_k, dim=-1)` above a `torch.split(X @ W_K, bounds, dim=-1)` was quoted as
    the split points."""
    import ast
    import itertools
    func = _function_read(submission, "multi_head_attention")
    if func is None:
        return None
    line = None
    if e is not None:
        inside = {func.name} | {n.name for n in itertools.islice(ast.walk(func), 3000)
                                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        frames = [f for f in e.notebook_frames() if f.function in inside] if hasattr(e, "notebook_frames") else []
        if not frames:
            return None
        line = frames[-1].line
    for n in itertools.islice(ast.walk(func), 3000):
        if not (isinstance(n, ast.Call) and _called_name(n) in ("split", "split_with_sizes")):
            continue
        if line is not None and not n.lineno <= line <= (n.end_lineno or n.lineno):
            continue
        on_torch = isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) and n.func.value.id == "torch"
        args = n.args[1:] if on_torch else n.args
        sizes = args[0] if args else next((k.value for k in n.keywords if k.arg in ("split_size_or_sections",
                                                                                 "split_size", "split_sizes")), None)
        if sizes is not None and not (isinstance(sizes, ast.Constant) and isinstance(sizes.value, int)):
            return unparse(n)[:90]
    return None


def split_points_crash(e: StudentCodeError, X, n_heads, submission=None) -> Misconception | None:
    """mha_split_points_as_sizes (naming70) from torch's own message: split_with_sizes raised because the sizes it
    got, [d_k, 2 d_k, ...] (or from 0), sum to more than d_model, the width it names: split points given where torch
    takes the widths of the pieces. None otherwise."""
    d_model = X.shape[-1]
    d_k = d_model // n_heads if n_heads else 0
    found = _SPLIT_SIZES70.search(e.message or "")
    if e.exc_type != "RuntimeError" or found is None or int(found.group(1)) != d_model or d_model % max(n_heads, 1):
        return None
    sizes = [int(s) for s in found.group(2).replace(" ", "").split(",") if s]
    if not _split_points70(sizes, d_model, d_k):
        return None
    call_text = _split_call70(submission, e)
    where = f" (your `{call_text}`)" if call_text else ""
    first = (e.message.splitlines() or [""])[0]
    return Misconception("mha_split_points_as_sizes", f"your code raised {e.exc_type}: {first[:200]}: with {n_heads} "
                         f"heads of d_k = {d_k}, the sizes {sizes[:8]} are where the heads start or end, multiples of "
                         f"d_k, not their widths{where}: " + describe("mha_split_points_as_sizes"))


def split_points_variants(submission, X64, W_Q, W_K, W_V, W_O, n_heads) -> dict:
    """mha_split_points_as_sizes (naming70), by replay where the source calls split: the points d_k, 2 d_k, ... (or
    from 0) taken as widths where they happen to sum to d_model (3 heads), each piece through attention scaled by
    1/sqrt(d_k), concatenated and projected by W_O."""
    T, d_model = X64.shape
    d_k = d_model // n_heads
    if n_heads < 2 or d_model % n_heads or _split_call70(submission) is None:
        return {}
    out = {}
    for start in (0, d_k):
        sizes = list(range(start, d_model, d_k))
        if sum(sizes) != d_model or not _split_points70(sizes, d_model, d_k):
            continue
        pieces = [M.split(sizes, dim=-1) for M in (X64 @ W_Q, X64 @ W_K, X64 @ W_V)]
        heads = [torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d_k), dim=-1) @ v for q, k, v in zip(*pieces)]
        out[f"mha_split_points_as_sizes/from_{start}"] = torch.cat(heads, dim=-1) @ W_O
    return out


def probe_global_size_said(m: Misconception, question: str, submission) -> Misconception:
    """answer_computed_by_code told with its cause where the cell that works `question` out probes `attention(Q, K, V,
    N)` with a name N that the cell never sets, the notebook sets N = <int> at module level in another cell, and the
    probe's query is drawn in the cell with a last size W (torch.randn(1, W)) other than that int: the scores are
    divided by sqrt(N's value), not sqrt(W). `m` itself otherwise (bounded: the cells parsed once each)."""
    import ast
    from autograder.grading.source_checks import cells_of
    if m.key != "answer_computed_by_code" or submission is None:
        return m
    found = answer_bindings(cells_of(submission), question)
    if found is None:
        return m
    tree = found[3]
    stored = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    for probe in ast.walk(tree):
        if not (isinstance(probe, ast.Call) and _called(probe) == "attention" and len(probe.args) == 4
                and isinstance(probe.args[3], ast.Name) and probe.args[3].id not in stored
                and isinstance(probe.args[0], ast.Name)):
            continue
        size, query = probe.args[3].id, probe.args[0].id
        drawn = _bound_in(tree, query)
        if not (isinstance(drawn, ast.Call) and _called(drawn) in ("randn", "rand", "ones", "zeros")
                and drawn.args and isinstance(drawn.args[-1], ast.Constant) and type(drawn.args[-1].value) is int):
            continue
        width = drawn.args[-1].value
        held = None   # the value a Run All leaves in `size` when the answer's cell runs: cells above it only
        cells = cells_of(submission)
        above = max((i for i, c in enumerate(cells) if question in c and (t := _parsed(c)) is not None and any(
            isinstance(n, ast.Name) and n.id == question and isinstance(n.ctx, ast.Store) for n in ast.walk(t))),
            default=0)
        for cell in cells[:above]:
            other = _parsed(cell) if len(cell) <= 20_000 and size in cell else None
            for n in getattr(other, "body", []):
                if not any(isinstance(t, ast.Name) and t.id == size and isinstance(t.ctx, ast.Store)
                           for t in ast.walk(n)):
                    continue
                simple = isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                    and isinstance(n.value, ast.Constant) and type(n.value.value) is int
                held = n.value.value if simple else None   # a loop or another binding: its value is not read here
        # a size past 2**53 is no probe's: sqrt() of a 400-digit literal raised OverflowError into the test, told as
        # "a whole number too large" in the answer (red-team round 130)
        if held is None or held == width or not 0 < held <= 2 ** 53 or not 0 < width <= 2 ** 53:
            continue
        return Misconception(m.key, f"{m}; in your probe, `{unparse(probe)[:70]}` passes `{size}`, which this cell "
                             f"does not set: it is the notebook's {size} = {held} from another cell, while "
                             f"`{query}` is {width} wide, so the scores are divided by sqrt({held}) = "
                             f"{math.sqrt(held):.3g}, not sqrt({width}) = {math.sqrt(width):.3g}; pass the probe's "
                             f"own width ({query}.shape[-1])")
    return m


# --- naming round 69 (blind69: a list kept between calls, an assert on the token count, a std unbracketed) ---------

def token_count_assert(fn, e, X, Ws, n_heads) -> Misconception | None:
    """mha_assert_token_count (naming69, blind69 q8_divisibility_assert_checks_token_count): the student's own assert
    failed on T tokens, T not a multiple of n_heads (d_model is); the same call on the first n_heads * m rows (m = 1,
    2: two multiples of n_heads, the rows repeated where X has fewer) runs and is right, and on n_heads + 1 rows it
    fails again: the assert tests the token count, X.shape[0], where the heads split d_model."""
    T, d_model = X.shape[0], X.shape[-1]
    if e.exc_type != "AssertionError" or not _raised_in_notebook(e) or X.dim() != 2 or n_heads < 2 \
            or T % n_heads == 0 or d_model % n_heads:
        return None

    def rows(t):
        return X.repeat((t + T - 1) // T, 1)[:t].clone()

    def right_on(t):
        x = rows(t)
        try:
            got = fn(x, *Ws, n_heads)
        except StudentCodeError:
            return False
        want = ref.multi_head_attention(x.double(), *[w.double() for w in Ws], n_heads)
        return type(got) is torch.Tensor and matching_variants(got, {"right": want}, X.dtype)

    def fails_on(t):
        try:
            fn(rows(t), *Ws, n_heads)
        except StudentCodeError as again:
            return again.exc_type == "AssertionError"
        return False

    if not (right_on(n_heads) and right_on(2 * n_heads) and fails_on(n_heads + 1)):
        return None
    return Misconception("mha_assert_token_count", f"your own assert failed{_assert_line(e)} on X of shape "
                         f"{tuple(X.shape)}: T = {T} tokens with n_heads = {n_heads} (d_model = {d_model} is divisible "
                         f"by it); the same call with {n_heads} or {2 * n_heads} tokens runs and is right, with "
                         f"{n_heads + 1} it fails again, so the assert tests the number of tokens: "
                         + describe("mha_assert_token_count"))


def head_width_parity_assert(fn, e, X, n_heads) -> Misconception | None:
    """mha_assert_head_width (naming72, blind73 q8_assert_even_head_width_rejects_odd_slices): the student's own
    assert failed with an odd head width d_k = d_model // n_heads; the same call with one more column a head (X and
    weights of width n_heads * (d_k + 1), drawn apart: an even head width) runs and is right, and with two more
    (odd again) it fails again."""
    T, d_model = X.shape[0], X.shape[-1]
    if e.exc_type != "AssertionError" or not _raised_in_notebook(e) or X.dim() != 2 or d_model % n_heads \
            or (d_model // n_heads) % 2 == 0:
        return None
    d_k = d_model // n_heads
    g = torch.Generator().manual_seed(72)

    def call_at(width):
        x = torch.randn((T, width), generator=g, dtype=torch.float64).to(X.dtype)
        ws = [(torch.randn((width, width), generator=g, dtype=torch.float64) / width ** 0.5).to(X.dtype)
              for _ in range(4)]
        try:
            return x, ws, fn(x, *ws, n_heads)
        except StudentCodeError as again:
            return x, ws, again

    x, ws, got = call_at(n_heads * (d_k + 1))
    want = ref.multi_head_attention(x.double(), *[w.double() for w in ws], n_heads)
    if not (type(got) is torch.Tensor and matching_variants(got, {"right": want}, X.dtype)):
        return None
    *_, odd = call_at(n_heads * (d_k + 2))
    if not (isinstance(odd, StudentCodeError) and odd.exc_type == "AssertionError"):
        return None
    return Misconception("mha_assert_head_width", f"your own assert failed{_assert_line(e)} with d_model = {d_model} "
                         f"and n_heads = {n_heads}, a head width of {d_k}; with {d_k + 1} columns a head the same "
                         f"call runs and is right, with {d_k + 2} it fails again, so the assert rejects odd head "
                         "widths: " + describe("mha_assert_head_width"))


def _is_unbracketed(node) -> bool:
    """`x / n - 1` (n a name or len(...): the count, the - 1 meant for the divisor)."""
    import ast
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and isinstance(node.right, ast.Constant) \
        and node.right.value == 1 and isinstance(node.left, ast.BinOp) and isinstance(node.left.op, ast.Div) \
        and (isinstance(node.left.right, ast.Name) or (isinstance(node.left.right, ast.Call)
                                                        and _called(node.left.right) == "len"))


def _unbracketed_count(submission, e=None) -> str | None:
    """The first `x / n - 1` of the notebook, in a def of a cell under 20,000 characters (at most 40 cells read),
    quoted (bounded), or None. With the crash `e` (red-team round 131): only one that the square root on the line
    that raised takes, inline (`math.sqrt(total / len(v) - 1)`) or through a name its def binds from it (`var = s /
    n - 1` ... `math.sqrt(var)`): math.log(0) raises "math domain error" too, and an `i / n - 1` of another def was
    quoted as the cause."""
    import ast
    from autograder.grading.source_checks import cells_of
    cells = cells_of(submission) if submission is not None else []
    frames = e.notebook_frames() if e is not None else []
    if e is not None:
        if not frames or not 1 <= frames[-1].cell <= min(len(cells), 40):
            return None
        frame = frames[-1]
        cells = [cells[frame.cell - 1]]
    for cell in cells[:40]:
        if len(cell) > 20_000 or " - 1" not in cell:
            continue
        tree = _parsed(cell)
        if tree is None:
            continue
        if e is None:
            hit = next((n for n in ast.walk(tree) if _is_unbracketed(n)), None)
            if hit is not None:
                return unparse(hit)[:80]
            continue
        scopes = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                  and n.name == frame.function] if frame.function != "<module>" else [tree]
        for scope in scopes[-1:]:
            fed = {}   # names the def binds from an `x / n - 1`
            for n in ast.walk(scope):
                if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None \
                        and any(_is_unbracketed(x) for x in ast.walk(n.value)):
                    fed |= {t.id: n for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                            if isinstance(t, ast.Name)}
            for root in ast.walk(scope):
                if _called(root) != "sqrt" or not root.lineno <= frame.line <= (root.end_lineno or root.lineno):
                    continue
                for x in (x for arg in root.args for x in ast.walk(arg)):
                    if _is_unbracketed(x):
                        return unparse(x)[:80]
                    if isinstance(x, ast.Name) and x.id in fed:
                        hit = next(y for y in ast.walk(fed[x.id].value) if _is_unbracketed(y))
                        return unparse(hit)[:80]
    return None


def table_std_unbracketed_crash(e, dims, seed, submission) -> Misconception | None:
    """variance_count_unbracketed (naming69, blind69 q4_table_hand_std_divides_by_len_minus_one_without_parentheses):
    entropy_table raised ValueError "math domain error" (math.sqrt of a negative number); replayed, the biased
    variance of the raw or the scaled scores of some d in dims is below 1 (so that variance minus 1 is negative and
    its square root raises, as it did), and the notebook writes `x / n - 1`."""
    if e.exc_type != "ValueError" or "math domain error" not in (e.message or ""):
        return None
    written = _unbracketed_count(submission, e)
    if written is None:
        return None
    for d in list(dims)[:8]:
        raw = _raw_scores_at(int(d), seed).double()
        for what, x in (("raw", raw), ("scaled", raw / int(d) ** 0.5)):
            v = float(x.var(unbiased=False))
            if v < 1.0:
                return Misconception("variance_count_unbracketed", f"your code raised ValueError: math domain error "
                                     f"for dims = {tuple(dims)}, seed = {seed}: the {what} scores of d = {d} have "
                                     f"sum((x - mean)^2) / n = {v:.4g}, and that minus 1 is {v - 1:.4g}, negative, "
                                     f"whose math.sqrt raises; your code has `{ascii(written)[1:-1]}`: "
                                     + describe("variance_count_unbracketed"))
    return None


_LIST_GROWERS = ("append", "extend", "insert")


def _kept_list(submission, name="dot_product_variance") -> tuple[str, str] | None:
    """(the list's name, its growing call quoted) where the notebook's last `def name` appends to (extends) a list
    bound at cell level (`all_dots = []` or `list()`, a top-level statement of a cell under 20,000 characters) that
    the function never binds itself (no assignment of that name in it: the list outlives the call), never empties
    and reads whole (the result taken over it: _whole_list_read, red-team round 131); None otherwise. Bounded: one
    parsed def, 40 cells, parsed only where such a list is found in the def."""
    import ast
    from autograder.grading.source_checks import cells_of
    func = _function_of(submission, name)
    if func is None:
        return None
    bound = {n.id for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
    bound |= {a.arg for a in ast.walk(func) if isinstance(a, ast.arg)}
    grown = [c for c in ast.walk(func) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
             and c.func.attr in _LIST_GROWERS and isinstance(c.func.value, ast.Name) and c.func.value.id not in bound]
    parents = {child: node for node in ast.walk(func) for child in ast.iter_child_nodes(node)}
    uses = {c.func.value.id: [n for n in ast.walk(func) if isinstance(n, ast.Name) and n.id == c.func.value.id]
            for c in grown}
    grown = [c for c in grown if not any(_list_emptied(n, parents) for n in uses[c.func.value.id])
             and any(_whole_list_read(n, parents) for n in uses[c.func.value.id] if n is not c.func.value)]
    if not grown:   # before the cells are parsed (each call of the test asks)
        return None
    at_cell_level: set[str] = set()
    for cell in cells_of(submission)[:40]:
        tree = _parsed(cell) if len(cell) <= 20_000 else None
        for stmt in getattr(tree, "body", []):
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and (
                    isinstance(stmt.value, ast.List) and not stmt.value.elts
                    or isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name)
                    and stmt.value.func.id == "list" and not stmt.value.args):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                at_cell_level |= {t.id for t in targets if isinstance(t, ast.Name)}
    for grow in grown:
        if grow.func.value.id in at_cell_level:
            return grow.func.value.id, unparse(grow)[:60]
    return None


def _list_emptied(name, parents) -> bool:
    """Whether this use of a kept list empties it: `x.clear()`, `del x[:]`, `x[:] = ...` (the call starts afresh)."""
    import ast
    up = parents.get(name)
    if isinstance(up, ast.Attribute) and up.attr == "clear":
        return True
    return isinstance(up, ast.Subscript) and isinstance(up.slice, ast.Slice) and isinstance(up.ctx, (ast.Store,
                                                                                                     ast.Del))


def _whole_list_read(name, parents) -> bool:
    """Whether this read of a kept list takes the list as a whole (passed to a call, iterated, unpacked: what a
    result over every call's dots reads), not one entry or a slice of it (`log[-1]`, `log[-n:]`: this call's own),
    its length, or a method of it. Red-team round 131: `history.append(v); return history[-1]` was told it mixes
    every earlier call's dots in, in place of the mistake its number shows."""
    import ast
    up = parents.get(name)
    if isinstance(up, (ast.Subscript, ast.Attribute)):
        return False
    return not (isinstance(up, ast.Call) and _called(up) == "len")


def raise_if_dots_kept(fn, d_k, seed, scaled, submission, said: str = "") -> None:
    """variance_dots_kept_between_calls (naming69, blind69 q2_dots_collected_in_cell_level_list_never_cleared): the
    function grows a list made once at cell level (_kept_list) and takes its result over it, and two calls on
    generators seeded alike (d_k = 16, 2000 pairs: bounded) give different numbers: each call's estimate mixes in
    the dots of every earlier call. `said`: what the test saw already (two such calls differing): no call then."""
    kept = _kept_list(submission)
    if kept is None:
        return
    if not said:
        try:
            a, b = (fn(16, 2000, torch.Generator().manual_seed(seed), scaled=scaled) for _ in range(2))
        except Exception:   # noqa: BLE001 - a second call is only evidence
            return
        if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (a, b)) or a == b:
            return
        said = (f"two more calls on generators seeded alike (d_k = 16, 2000 pairs{', scaled' if scaled else ''}) "
                f"gave {float(a):.6g} and then {float(b):.6g}")
    raise Misconception("variance_dots_kept_between_calls", f"{said}: your function adds its dots to `{kept[0]}` "
                        f"(`{ascii(kept[1])[1:-1]}`), a list made once at cell level and never emptied, and takes its "
                        "result over that list, so each call's estimate mixes in the dots of every earlier call (of "
                        "other widths, scaled or not): " + describe("variance_dots_kept_between_calls"))


def split_axis_said(submission) -> str:
    """mha_head_rows_sliced said with its cause (naming69, blind69 q8_heads_cut_with_numpy_split_default_axis_zero): the
    notebook's multi_head_attention splits with np.split / np.array_split / torch.split / torch.chunk / .chunk given
    no axis (dim): their default cuts axis 0, the tokens. "" otherwise (bounded: one parsed def, a quote cut)."""
    import ast
    func = _function_of(submission, "multi_head_attention")
    for node in ast.walk(func) if func is not None else []:
        if not (isinstance(node, ast.Call) and _called(node) in ("split", "array_split", "chunk")):
            continue
        on = node.func.value.id if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) else None
        if on is None or any(k.arg in ("axis", "dim") for k in node.keywords) \
                or not 1 <= len(node.args) <= (2 if on in ("np", "numpy", "torch") else 1):
            continue
        return (f" (your `{ascii(unparse(node)[:60])[1:-1]}` gives no axis, and {_called(node)} cuts along axis 0, the "
                "tokens, by default: the heads are the column blocks, axis=1 (dim=-1))")
    return ""



# --- naming71: blind71 (memory- and speed-conscious code: buffers, chunks, caches) -------------------------------

def raise_if_result_accumulated(fn, Q, K, V, d_k, what) -> None:
    """output_accumulated_across_calls (naming71, blind71 q1_output_buffer_cached_by_shape_addmm_without_beta_zero): the
    output is wrong, and two more calls on the same inputs return outputs whose difference is the right output (each
    call adds its result onto what the calls before it left: out.addmm_(w, V) with beta=1 into a buffer kept per
    shape). A right answer gives the same output every time; nothing is said otherwise."""
    right = ref.attention(Q.double(), K.double(), V.double(), d_k)[0]
    try:
        a, b = (call(fn, Q, K, V, d_k, what="attention") for _ in range(2))
    except StudentCodeError:
        return
    outs = [x[0] if isinstance(x, (tuple, list)) and len(x) == 2 else None for x in (a, b)]
    if not all(type(o) is torch.Tensor and tuple(o.shape) == tuple(right.shape) for o in outs):
        return
    first, second = (o.double() for o in outs)
    if matching_variants(first, {"right": right}, Q.dtype) \
            or not matching_variants(second - first, {"right": right}, Q.dtype):
        return
    k = float((first * right).sum() / (right * right).sum()) if bool(right.ne(0).any()) else float("nan")
    raise Misconception("output_accumulated_across_calls", f"the output {what} is wrong: two more calls on the same "
                        "inputs returned two different outputs whose difference is the right output (here the first "
                        f"is about {k:.3g} times it): each call adds its result onto what the calls before it left: "
                        + describe("output_accumulated_across_calls"))


def stale_input_variants(earlier, W_Q, W_K, W_V, W_O, n_heads, X=None, kept=None) -> dict:
    """results_cached_by_shape (naming71, blind71 q8_projections_cached_by_input_shape): q8 calls multi_head_attention
    a second time on a new X of the shape of the call before (`earlier`, the same weights); the answer the earlier X
    gives, returned for the new one, is what a cache keyed on the shape (not the values) returns. {} without one.
    naming76 (blind76 q8_projection_module_cached_by_width_keeps_first_weights): new weights of the width of the call
    before (`kept`, that call's weights): this X projected with the kept weights is what a cache of the weights keyed
    on d_model returns."""
    found = {}
    if earlier is not None:
        W64 = [w.double() for w in (W_Q, W_K, W_V, W_O)]
        found["results_cached_by_shape"] = ref.multi_head_attention(earlier.double(), *W64, n_heads)
    if X is not None and kept is not None and all(k.shape == w.shape for k, w in zip(kept, (W_Q, W_K, W_V, W_O))):
        found["results_cached_by_shape/weights"] = ref.multi_head_attention(X.double(), *[k.double() for k in kept],
                                                                            n_heads)
    return found


def _int_literals(submission, name: str, limit: int = 8) -> list[int]:
    """The distinct int literals (2 or more) of the notebook's last `def name`, in order (bounded: one parsed def, at
    most 3000 nodes, `limit` values); [] where the source is not read."""
    import ast
    import itertools
    try:
        func = _function_of(submission, name)
    except Exception:  # noqa: BLE001 - an unread source is no evidence
        return []
    found: list[int] = []
    for node in list(itertools.islice(ast.walk(func), 3000)) if func is not None else []:
        if isinstance(node, ast.Constant) and type(node.value) is int and node.value >= 2 and node.value not in found:
            found.append(node.value)
    return found[:limit]


def raise_if_sample_tail_left_zero(fn, v, seed, d_k, n, scaled, submission=None) -> None:
    """sample_chunks_tail_left_zero (naming71, blind71 q2_chunked_products_last_partial_chunk_left_zero): the pairs are
    drawn in chunks of a size c written in dot_product_variance's source (an int literal, n % c != 0), only full
    chunks, into a zero-filled buffer: the last n % c dots stay 0. Named by an exact replay (each chunk's q then k
    from the same generator, then the variance over all n) or, drawn in another order, by a second call on n' = the
    full chunks' count, which is right, while this estimate is that right value times the share of full chunks."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        return
    target = 1.0 if scaled else float(d_k)
    for c in _int_literals(submission, "dot_product_variance"):
        full = n - n % c
        if not 2 <= c < n or full == n or full == 0:
            continue
        g = torch.Generator().manual_seed(seed)
        dots = torch.zeros(n)
        for start in range(0, full, c):
            q, k = torch.randn(c, d_k, generator=g), torch.randn(c, d_k, generator=g)
            dots[start:start + c] = (q * k).sum(1)
        replay = float((dots / math.sqrt(d_k) if scaled else dots).var())
        share = full / n
        if abs(v - replay) <= 2e-5 * max(abs(replay), 1e-12):
            how = f"it is exactly what the same generator gives with only the {full // c} full chunks of {c} drawn"
        elif share < 0.95 and abs(v / (share * target) - 1) < 0.05:
            again = _variance_call(fn, d_k, full, seed, scaled)
            if again is None or abs(again / target - 1) >= 0.10:
                continue
            how = (f"with n_samples = {full} ({full // c} full chunks of {c}) it is right ({again:.4g}), and this "
                   f"estimate is about {share:.3g} times that, the share of the samples in full chunks")
        else:
            continue
        raise Misconception("sample_chunks_tail_left_zero", f"for d_k = {d_k}{' with scaled=True' if scaled else ''} "
                            f"the result {v:.4g} is too small: {how} (the last {n - full} of {n} dots stay 0): "
                            + describe("sample_chunks_tail_left_zero"))


def _filled_default(submission, name: str, reads: int = 3) -> tuple[str, str] | None:
    """(parameter, line) where the notebook's last `def name` has a parameter whose default is a mutable container
    (`cache=[]`, `{}`, `list()`, `dict()`), made once when the def runs, and its body fills it (`cache.append(...)`,
    `cache[k] = ...`, update, setdefault, extend, insert) with a value computed from its positional parameter number
    `reads` (attention's d_k): a value of the first call kept between calls. None otherwise (bounded: one parsed def,
    at most 3000 nodes)."""
    import ast
    import itertools
    try:
        func = _function_of(submission, name)
    except Exception:  # noqa: BLE001 - an unread source is no evidence
        return None
    if func is None:
        return None
    positional = func.args.posonlyargs + func.args.args
    pairs = list(zip(positional[len(positional) - len(func.args.defaults):], func.args.defaults))
    pairs += [(a, d) for a, d in zip(func.args.kwonlyargs, func.args.kw_defaults) if d is not None]
    mutable = {a.arg for a, d in pairs if isinstance(d, (ast.List, ast.Dict, ast.Set)) or isinstance(d, ast.Call)
               and isinstance(d.func, ast.Name) and d.func.id in ("list", "dict", "set") and not d.args}
    if not mutable or len(positional) <= reads:
        return None

    def read_dk(xs) -> bool:
        return any(isinstance(x, ast.Name) and x.id == positional[reads].arg
                   for v in xs for x in itertools.islice(ast.walk(v), 400))
    for n in list(itertools.islice(ast.walk(func), 3000)):
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)
                                             and t.value.id in mutable for t in n.targets) \
                or isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) \
                and n.func.value.id in mutable and n.func.attr in ("append", "update", "setdefault", "extend", "insert"):
            # the value stored reads d_k, under a key that does not: an entry per d_k (`_calls[d_k] = ...`,
            # setdefault(d_k, ...)) is this call's own (red-team round 133: a counter keyed by d_k in a default dict,
            # beside a hard-coded `/ 8.0`, was told the scale of the first call is kept)
            if isinstance(n, ast.Assign):
                keys = [t.slice for t in n.targets if isinstance(t, ast.Subscript)]
                values: list = [n.value]
            else:
                cut = 1 if n.func.attr in ("setdefault", "insert") else 0
                keys = n.args[:1] if n.func.attr == "setdefault" else []
                values = n.args[cut:] + [k.value for k in n.keywords]
            if not read_dk(values) or read_dk(keys):
                continue
            target = n.targets[0].value.id if isinstance(n, ast.Assign) else n.func.value.id
            return target, " ".join(unparse(n).split())[:80]
    return None


def _state_kept_between_calls(submission, name: str) -> tuple[str, str] | None:
    """(where, line) where the cell holding the notebook's last top-level `def name` stores a value at run time in
    state that outlives a call: inside a def, an assignment to `C.attr` with C a class defined at the cell's top level
    (a class attribute), to a name the def declares `global`, or to `self.attr` under an `if` that tests that same
    attribute against None (`if self.scale is None:`, filled once), the value stored read from that def's parameters
    (a call counter's `+= 1` is no such value), and that state read back in the cell (outside a store and a test
    against None: a record never read keeps no scale). None otherwise (bounded: a cell under 20,000
    characters, at most 5000 nodes)."""
    import ast
    import itertools
    from autograder.grading.source_checks import cells_of
    if submission is None:
        return None
    try:
        cells = cells_of(submission)
    except Exception:  # noqa: BLE001 - an unread source is no evidence
        return None
    tree = None
    for cell in reversed(cells):
        if len(cell) > 20_000 or f"def {name}" not in cell:
            continue
        parsed = _parsed(cell)
        if parsed is not None and any(isinstance(n, ast.FunctionDef) and n.name == name for n in parsed.body):
            tree = parsed
            break
    if tree is None:
        return None
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}

    def line(n) -> str:
        return " ".join(unparse(n).split())[:80]

    def tested_none(test, attr: str) -> bool:
        return isinstance(test, ast.Compare) and isinstance(test.left, ast.Attribute) and test.left.attr == attr \
            and isinstance(test.left.value, ast.Name) and test.left.value.id == "self" \
            and any(isinstance(c, ast.Constant) and c.value is None for c in test.comparators)
    # the state is read back somewhere in the cell, outside a store and a test against None (red-team round 139: a
    # hard-coded `/ 8.0` beside `_LAST = tuple(Q.shape)` or `Log.last_dk = d_k`, a record never read, was told
    # mha_scale_kept_across_calls, "what the first call stores there is what every later call reads")
    cell_nodes = list(itertools.islice(ast.walk(tree), 20_000))
    not_read = {id(x) for n in cell_nodes if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) for x in ast.walk(t)}
    not_read |= {id(n.left) for n in cell_nodes if isinstance(n, ast.Compare)
                 and all(isinstance(c, ast.Constant) and c.value is None for c in n.comparators)}
    read_attrs = {x.attr for x in cell_nodes if isinstance(x, ast.Attribute) and id(x) not in not_read}
    read_names = {x.id for x in cell_nodes if isinstance(x, ast.Name) and id(x) not in not_read}
    for func in [n for n in itertools.islice(ast.walk(tree), 5000) if isinstance(n, ast.FunctionDef)]:
        declared = {g for n in itertools.islice(ast.walk(func), 3000) if isinstance(n, ast.Global) for g in n.names}
        params = {a.arg for a in func.args.posonlyargs + func.args.args + func.args.kwonlyargs} - {"self", "cls"}

        def reads_param(value, params=params) -> bool:   # from this call's arguments (a counter's += 1 is not)
            return any(isinstance(x, ast.Name) and x.id in params for x in itertools.islice(ast.walk(value), 400))
        for n in itertools.islice(ast.walk(func), 3000):
            if isinstance(n, ast.If):
                for stmt in n.body:
                    for t in stmt.targets if isinstance(stmt, ast.Assign) else []:
                        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self" \
                                and tested_none(n.test, t.attr) and reads_param(stmt.value) and t.attr in read_attrs:
                            return f"the attribute `self.{t.attr}` (filled once, when it is None)", line(stmt)
            if not isinstance(n, (ast.Assign, ast.AugAssign)) or not reads_param(n.value):
                continue
            for t in n.targets if isinstance(n, ast.Assign) else [n.target]:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id in classes \
                        and t.attr in read_attrs:
                    return f"the class attribute `{t.value.id}.{t.attr}`", line(n)
                if isinstance(t, ast.Name) and t.id in declared and t.id in read_names:
                    return f"the module-level (global) name `{t.id}`", line(n)
    return None


def scale_kept_in_default(submission, m: Misconception, name: str) -> Misconception:
    """wrong_scale_constant said with its cause (naming71, blind71 q1_scale_cached_in_default_argument_from_first_d_k):
    the weights replay a constant scale (m's evidence) and the source keeps a value in a mutable default argument that
    its body fills (_filled_default): the scale 1/sqrt(d_k) of the first call, reused by every later call. Named
    mha_scale_kept_across_calls; `m` unchanged otherwise."""
    found = _filled_default(submission, name)
    if found is None:
        kept = _state_kept_between_calls(submission, name)   # naming76: a class attribute, global or guarded self.x
        if kept is None:
            return m
        said, _, shrunk = str(m).replace(describe("wrong_scale_constant"),
                                         "scaling by a constant that does not follow this call's d_k").partition("\n")
        return Misconception("mha_scale_kept_across_calls", f"{said}; the cell of your {name} stores a value in "
                             f"{kept[0]} at run time (`{ascii(kept[1])[1:-1]}`), which outlives the call: what the "
                             "first call stores there is what every later call reads: "
                             + describe("mha_scale_kept_across_calls") + (f"\n{shrunk}" if shrunk else ""))
    said, _, shrunk = str(m).replace(describe("wrong_scale_constant"),
                                     "scaling by a constant that does not follow this call's d_k").partition("\n")
    return Misconception("mha_scale_kept_across_calls", f"{said}; your {name} fills the default argument `{found[0]}` "
                         f"from d_k (`{ascii(found[1])[1:-1]}`): a default list or dict is made once, when the def runs, "
                         "so what the first call puts there is what every later call reads: "
                         + describe("mha_scale_kept_across_calls") + (f"\n{shrunk}" if shrunk else ""))


def one_out_buffer_said(submission) -> str:
    """keys_are_queries (the replay: k = q) told with its cause (naming71, blind71
    q2_q_and_k_drawn_into_one_reused_out_buffer) where dot_product_variance draws twice with out= naming one tensor
    (`torch.randn(..., out=buf)` for q, then for k): both results are that buffer, which holds the second draw. ""
    otherwise (bounded: one parsed def, at most 3000 nodes, a quote cut)."""
    import ast
    import itertools
    try:
        func = _function_of(submission, "dot_product_variance")
    except Exception:  # noqa: BLE001 - an unread source is no evidence
        return ""
    seen: dict[str, int] = {}
    nodes = list(itertools.islice(ast.walk(func), 3000)) if func is not None else []
    loops = [x for x in nodes if isinstance(x, (ast.For, ast.While, ast.ListComp, ast.GeneratorExp))][:20]
    looped = {id(x) for loop in loops for x in itertools.islice(ast.walk(loop), 3000)}
    for n in nodes:
        if not isinstance(n, ast.Call):
            continue
        for kw in n.keywords:
            if kw.arg == "out" and isinstance(kw.value, ast.Name):   # in a loop: a call made more than once
                seen[kw.value.id] = seen.get(kw.value.id, 0) + (2 if id(n) in looped else 1)
                if seen[kw.value.id] >= 2:
                    return (f" (your draws both write into `{kw.value.id[:30]}` with out=: out= returns that same "
                            "tensor, so q and k are one tensor holding the second draw, and each 'dot' is |k|^2; "
                            "draw q and k into two tensors, or drop out=)")
    return ""


def _short_row_replay(right, T: int, c: int):
    """The right (T, d) answer with the last row of every chunk of c rows (start, start + c, ...) set to 0."""
    value = right.clone()
    value[[min(start + c, T) - 1 for start in range(0, T, c)]] = 0
    return value


def row_chunk_variants(submission, X64, W_Q, W_K, W_V, W_O, n_heads) -> dict:
    """slice_end_inclusive (naming71, blind71 q8_query_row_chunks_end_written_as_inclusive_index): the query rows
    computed in chunks of a size c written in multi_head_attention's source (an int literal, 2 <= c < T), each chunk
    sliced one row short: the right output with the last row of every chunk 0 (a zero concat row times W_O)."""
    T = X64.shape[0]
    sizes = [c for c in _int_literals(submission, "multi_head_attention") if 2 <= c < T]
    if X64.dim() != 2 or not sizes:
        return {}
    right = ref.multi_head_attention(X64, W_Q, W_K, W_V, W_O, n_heads)
    return {f"slice_end_inclusive/{c}": _short_row_replay(right, T, c) for c in sizes}


def row_chunk_crash(fn, e: StudentCodeError, X, Ws, n_heads, submission=None) -> Misconception | None:
    """slice_end_inclusive where the last chunk has one row (T % c == 1), sliced to none, and the code raises on it: a
    second call on the first T - 1 rows (whole chunks only) runs and returns row_chunk_variants' replay there (the
    last row of every chunk 0). None otherwise."""
    T = X.shape[0]
    if X.dim() != 2:
        return None
    for c in _int_literals(submission, "multi_head_attention"):
        if not 2 <= c <= T - 1 or T % c != 1:
            continue
        X2 = X[:T - 1].contiguous()
        try:
            got = fn(X2, *Ws, n_heads)
        except StudentCodeError:
            return None
        X64, W64 = X2.double(), [w.double() for w in Ws]
        right = ref.multi_head_attention(X64, *W64, n_heads)
        if type(got) is not torch.Tensor or not matching_variants(got, {"short": _short_row_replay(right, T - 1, c)},
                                                                  X.dtype, expected=right):
            continue
        zero = ", ".join(str(min(s + c, T - 1) - 1) for s in range(0, T - 1, c))
        first = (e.message.splitlines() or [""])[0][:160]
        return Misconception("slice_end_inclusive", f"your code raised {e.exc_type}: {first} with T = {T} tokens, where "
                             f"the last chunk of {c} rows has one row; on the first {T - 1} tokens it runs, and its "
                             f"output is right except rows {zero[:60]}, all 0 (the last row of every chunk of {c}): "
                             + describe("slice_end_inclusive"))
    return None


def half_weights_said(m: Misconception, pair, dtype, right) -> Misconception:
    """dtype_changed said with what the weights went through (naming71, blind71 q1_softmax_in_float16_to_halve_memory,
    on the layout cases where half_softmax_evidence's replay is a rounding away): every weight the call returned, in
    the input's dtype (float32 or float64), is a float16 (or bfloat16) number, so the softmax or the scores before it
    were computed in that dtype and cast back, where the right weights (`right`) in the input's dtype are not all such
    numbers (one-hot or uniform rows of 1/2^k are numbers of every dtype). bfloat16 is tried first (its numbers of
    this size are float16 numbers too). `m` unchanged otherwise."""
    w = pair[1] if isinstance(pair, (tuple, list)) and len(pair) == 2 else None
    if type(w) is not torch.Tensor or w.dtype != dtype or dtype not in (torch.float32, torch.float64) \
            or not bool(torch.isfinite(w).all()) or not bool(w.ne(0).any()):
        return m
    exact = right.to(dtype)
    for low, name in ((torch.bfloat16, "bfloat16"), (torch.float16, "float16")):
        if torch.equal(w, w.to(low).to(dtype)) and not torch.equal(exact, exact.to(low).to(dtype)):
            said, _, shrunk = str(m).partition("\n")
            return Misconception("dtype_changed", f"{said}; here every weight is a {name} number (the softmax, or the "
                                 f"scores before it, computed in {name} and cast back to {str(dtype)[6:]}), which keeps "
                                 f"only {name}'s precision: compute the softmax in the input's dtype"
                                 + (f"\n{shrunk}" if shrunk else ""))
    return m


# --- naming80 (blind80, blind81) ------------------------------------------------------------------------------------

_SHAPE_ATTRS = ("shape", "dtype", "device", "ndim", "size", "dim")


def _shape_keyed_store(submission, name: str = "attention") -> str | None:
    """results_cached_by_shape read in attention's source (naming80, blind81 q1_result_cache_keyed_by_input_shapes):
    the line where the notebook's last `def name` stores into a name kept at module level, under a key (written there,
    or a local assigned once in the def) that reads the first three parameters (Q, K, V) only through their shape,
    dtype or device, at least once, and the def returns that kept entry (attention_state_line, returned=True). None
    otherwise (a key with the tensors' values in it, or none of their shapes: no shape-keyed cache)."""
    import ast
    if attention_state_line(submission, name, returned=True) is None:
        return None
    kept = set(global_names_read(submission, name))
    try:
        func = _function_of(submission, name)
    except Exception:  # noqa: BLE001 - an unread source is no evidence
        return None
    if func is None or len(func.args.args) < 3:
        return None
    tensors = {a.arg for a in func.args.args[:3]}
    nodes = list(itertools.islice(ast.walk(func), 3000))
    local = {t.id: n.value for n in nodes if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}

    def shape_only(key) -> bool:
        inner = list(ast.walk(key))[:300]
        through = {id(n.value) for n in inner if isinstance(n, ast.Attribute) and n.attr in _SHAPE_ATTRS}
        used = [n for n in inner if isinstance(n, ast.Name) and n.id in tensors]
        return bool(used) and all(id(n) in through for n in used)
    for n in nodes:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Subscript) \
                and isinstance(n.targets[0].value, ast.Name) and n.targets[0].value.id in kept:
            key = n.targets[0].slice
            if isinstance(key, ast.Name) and key.id in local:
                key = local[key.id]
            if shape_only(key):
                return " ".join(unparse(n).split())[:100]
    return None


def attention_cached_in_heads(submission, m: Misconception, got, X, Ws, n_heads, what: str) -> Misconception:
    """results_cached_by_shape where q8's output matched a fixed head slice (mha_head_slice_fixed): every head's block
    is the FIRST head's right output (what an attention that hands back the first result for inputs of the same
    shapes gives: every head's slices have head 0's shapes) and the student's attention stores its results in a
    module-level cache keyed on the inputs' shapes (_shape_keyed_store). `m` unchanged otherwise (a fixed slice
    without such a cache keeps its name)."""
    if m.key != "mha_head_slice_fixed" or n_heads < 2 or type(got) is not torch.Tensor:
        return m
    X64, W64 = X.double(), [w.double() for w in Ws]
    heads = _mha_heads(X64, *W64[:3], n_heads)
    first = torch.cat([heads[0]] * n_heads, dim=-1) @ W64[3]
    right = torch.cat(heads, dim=-1) @ W64[3]
    if not matching_variants(got, {"first": first}, X.dtype, expected=right):
        return m
    line = _shape_keyed_store(submission)
    if line is None:
        return m
    return Misconception("results_cached_by_shape", f"{what} is wrong: every head's block is the FIRST head's output "
                         f"({n_heads} heads, all equal to head 0), and your attention (q1) keeps its results in a "
                         f"cache keyed on the inputs' shapes (`{line}`): every later head's Q, K, V slices have head "
                         "0's shapes, so they get head 0's result back: " + describe("results_cached_by_shape"))


def global_scale_variants(submission, X64, W_Q, W_K, W_V, W_O, n_heads) -> dict:
    """mha_scale_from_global (naming80, blind81 q8_half_renamed_head_width_call_reads_trace_global_d_k): the source
    of multi_head_attention passes a name it never binds, set at module level by the notebook (global_names_read:
    the trace's `d_k = 4`), as an argument of its call to attention; the right multi-head attention with every head
    scaled by 1/sqrt(c), c the int that global's last module-level assignment writes (`d_k = 4`). {} otherwise."""
    import ast
    from autograder.grading.source_checks import SourceUnreadable, cells_assigning_globally, cells_of
    d_k = X64.shape[-1] // n_heads
    found: dict = {}
    try:
        func = _function_of(submission, "multi_head_attention")
        if func is None:
            return {}
        free = set(global_names_read(submission, "multi_head_attention"))
        passed = [a.id for n in list(itertools.islice(ast.walk(func), 3000)) if isinstance(n, ast.Call)
                  and isinstance(n.func, ast.Name) and n.func.id == "attention"
                  for a in n.args[3:4] + [k.value for k in n.keywords if k.arg == "d_k"]
                  if isinstance(a, ast.Name) and a.id in free]
        cells = cells_of(submission)
        for name in dict.fromkeys(passed):
            made = cells_assigning_globally(cells, name)
            if not made or len(cells[made[-1]]) > 20_000:
                continue
            stores = [n for n in ast.parse(cells[made[-1]]).body if not isinstance(
                n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and any(
                isinstance(t, ast.Name) and t.id == name and isinstance(t.ctx, ast.Store) for t in ast.walk(n))]
            last = stores[-1] if stores else None   # the cell's last top-level store of it: `name = <int>` only
            values = [last.value.value] if isinstance(last, ast.Assign) and len(last.targets) == 1 \
                and isinstance(last.targets[0], ast.Name) and isinstance(last.value, ast.Constant) \
                and type(last.value.value) is int else []
            if values and 0 < values[-1] <= 4096 and values[-1] != d_k:
                found[f"mha_scale_from_global/{name}={values[-1]}"] = ref.multi_head_attention(
                    X64, W_Q, W_K, W_V, W_O, n_heads, _scale_dim=values[-1])
    except (SourceUnreadable, SyntaxError, RecursionError, MemoryError, ValueError):
        return found
    return found


def table_abs_scores(dims, seed):
    """scores_made_absolute (naming80, blind81 q4_entropy_table_sanity_assert_abs_in_place_on_scores): the lesson's
    table computed from the absolute values of the raw scores (raw.abs_() in a check changes them in place)."""
    rows = []
    for d in dims:
        raw = _raw_scores_at(d, seed).double().abs()
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": float(raw.std()), "scaled_std": float(scaled.std()),
                     "H_raw": float(ref.softmax_entropy(raw)), "H_scaled": float(ref.softmax_entropy(scaled))})
    return ref.table_as_tensor(rows)


def _discarded_list_concat(submission, name: str) -> str | None:
    """list_concat_discarded read in the source (naming80, blind80 q4_table_rows_added_functionally_result_discarded):
    the first statement of the notebook's last `def name` that is only `rows + [...]` (or `[...] + rows`, or +
    a tuple), `rows` a name the def binds to an empty list and returns: the new list is built and thrown away.
    None otherwise (`rows = rows + [row]`, `rows += [row]` and append are not this)."""
    import ast
    try:
        func = _function_of(submission, name)
    except Exception:  # noqa: BLE001 - an unread source is no evidence
        return None
    if func is None:
        return None
    nodes = list(itertools.islice(ast.walk(func), 3000))
    empty = {t.id for n in nodes if isinstance(n, ast.Assign) and isinstance(n.value, ast.List) and not n.value.elts
             for t in n.targets if isinstance(t, ast.Name)}
    returned = {n.value.id for n in nodes if isinstance(n, ast.Return) and isinstance(n.value, ast.Name)}
    for n in nodes:
        if isinstance(n, ast.Expr) and isinstance(n.value, ast.BinOp) and isinstance(n.value.op, ast.Add):
            sides = (n.value.left, n.value.right)
            held = [s.id for s in sides if isinstance(s, ast.Name) and s.id in empty & returned]
            if held and any(isinstance(s, (ast.List, ast.Tuple)) for s in sides):
                return " ".join(unparse(n).split())[:80]
    return None


def raise_if_rows_discarded(rows, dims, submission) -> None:
    """list_concat_discarded: entropy_table returned an empty list where rows were asked, and its source has a
    statement `rows + [row]` whose result is never kept, on the list it returns (_discarded_list_concat)."""
    if not isinstance(rows, list) or rows or not dims:
        return
    line = _discarded_list_concat(submission, "entropy_table")
    if line is None:
        return
    raise Misconception("list_concat_discarded", f"entropy_table returned an empty list for {len(dims)} d's, and the "
                        f"line that adds each row (`{line}`) builds a new list that is never kept: "
                        + describe("list_concat_discarded"))


def _scaled_never_read(submission) -> str | None:
    """scale_applied_unconditionally read in the source (naming80, blind81 q2_scaled_condition_commented_out): the
    notebook's last `def dot_product_variance` has a parameter `scaled` it never reads, and divides by a square root
    (math.sqrt, torch.sqrt, ** 0.5): the line that divides, or None (a flag that is read, or no division)."""
    import ast
    try:
        func = _function_of(submission, "dot_product_variance")
    except Exception:  # noqa: BLE001 - an unread source is no evidence
        return None
    if func is None or "scaled" not in [a.arg for a in func.args.args + func.args.kwonlyargs]:
        return None
    nodes = list(itertools.islice(ast.walk(func), 3000))
    if any(isinstance(n, ast.Name) and n.id == "scaled" for n in nodes):
        return None
    for n in nodes:
        if not isinstance(n, (ast.Assign, ast.AugAssign, ast.Return)) or n.value is None:
            continue
        divides = isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Div) or any(
            isinstance(b, ast.BinOp) and isinstance(b.op, ast.Div) for b in ast.walk(n.value))
        text = " ".join(unparse(n).split())
        if divides and ("sqrt" in text or "** 0.5" in text):
            return text[:80]
    return None


def raise_if_global_scale(submission, got, X, Ws, n_heads, what) -> None:
    """mha_scale_from_global said with the global and its value (naming80): the output equals the replay of
    global_scale_variants (each head scaled by 1/sqrt of the int a module-level name holds, that name passed as
    attention's scale in the source). Named even where another replay matches on this input too (integer square root,
    d_k for sqrt(d_k)): only this one is shown by the source."""
    if type(got) is not torch.Tensor or submission is None:
        return
    X64, W64 = X.double(), [w.double() for w in Ws]
    found = global_scale_variants(submission, X64, *W64, n_heads)
    hits = matching_variants(got, found, X.dtype, expected=ref.multi_head_attention(X64, *W64, n_heads))
    if len(hits) != 1:
        return
    name, _, value = hits[0].partition("/")[2].partition("=")
    raise Misconception("mha_scale_from_global", f"{what} is wrong: it equals every head scaled by 1/sqrt({value}) "
                        f"where the head width is {X.shape[-1] // n_heads}, and your multi_head_attention passes "
                        f"`{name}` to attention as the scale, a name it never sets: the notebook sets it at module "
                        f"level (`{name} = {value}`): " + describe("mha_scale_from_global"))


def _scale_option_on_top(func) -> tuple[str, str, str] | None:
    """(option, its fill, the scale) where `func` takes a parameter p defaulting to None, fills it under
    `if p is None:` with sqrt(d_k) (math.sqrt(d_k), d_k ** 0.5, torch/np.sqrt(d_k); d_k its fourth parameter),
    divides by p (x / p, x /= p) and ALSO divides by sqrt(d_k) (or multiplies by d_k ** -0.5) elsewhere: the
    plain call divides the scores by d_k. None where any part is missing (naming82); bounded (one parsed def)."""
    import ast
    a = func.args
    pos = [x.arg for x in [*a.posonlyargs, *a.args]]
    if len(pos) < 4:
        return None
    dk = pos[3]
    nones = {x.arg for x, d in zip([*a.posonlyargs, *a.args][len(pos) - len(a.defaults):], a.defaults)
             if isinstance(d, ast.Constant) and d.value is None}
    nones |= {x.arg for x, d in zip(a.kwonlyargs, a.kw_defaults) if isinstance(d, ast.Constant) and d.value is None}

    def root(n) -> bool:   # sqrt(d_k), d_k ** 0.5
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow):
            return isinstance(n.left, ast.Name) and n.left.id == dk and isinstance(n.right, ast.Constant) \
                and n.right.value == 0.5
        return _called(n) == "sqrt" and len(n.args) == 1 and isinstance(n.args[0], ast.Name) and n.args[0].id == dk

    def minus_half(n) -> bool:   # d_k ** -0.5
        return isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow) and isinstance(n.left, ast.Name) \
            and n.left.id == dk and isinstance(n.right, ast.UnaryOp) and isinstance(n.right.op, ast.USub) \
            and isinstance(n.right.operand, ast.Constant) and n.right.operand.value == 0.5

    fills = {}
    for node in ast.walk(func):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and len(node.test.ops) == 1 \
                and isinstance(node.test.ops[0], ast.Is) and isinstance(node.test.left, ast.Name) \
                and node.test.left.id in nones and isinstance(node.test.comparators[0], ast.Constant) \
                and node.test.comparators[0].value is None:
            p = node.test.left.id
            for st in node.body:
                if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
                        and st.targets[0].id == p and root(st.value):
                    fills.setdefault(p, unparse(st)[:80])
    if not fills:
        return None
    divided, scale = set(), None
    for node in ast.walk(func):
        right = node.right if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) else \
            node.value if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Div) else None
        if isinstance(right, ast.Name) and right.id in fills:
            divided.add(right.id)
        elif right is not None and root(right) or isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) \
                and (minus_half(node.left) or minus_half(node.right)):
            scale = scale or unparse(node)[:80]
    p = next((p for p in fills if p in divided), None)
    return None if p is None or scale is None else (p, fills[p], scale)


def scale_option_default_said(submission, m: Misconception, name: str) -> Misconception:
    """divide_by_dk (m: the replay of the scores divided by d_k) said with its cause (naming82, blind82
    q1_temperature_default_root_d_k_on_top_of_the_scale): an option of the student's own defaulting to sqrt(d_k)
    divides the scores on top of the 1/sqrt(d_k) scale (_scale_option_on_top). Named
    scale_option_default_on_top; `m` unchanged otherwise."""
    func = _function_read(submission, name)
    found = None if func is None else _scale_option_on_top(func)
    if found is None:
        return m
    p, fill, scale = found
    said, _, shrunk = str(m).partition("\n")
    return Misconception("scale_option_default_on_top", f"{said}; here `{scale}` scales the scores by 1/sqrt(d_k) and "
                         f"your option {p}, left to its default (`{fill}`), divides them by sqrt(d_k) again: "
                         + describe("scale_option_default_on_top") + (f"\n{shrunk}" if shrunk else ""))


def _option_filled_before_test(submission) -> tuple[str, str, str] | None:
    """(the fill, the test, the option) where dot_product_variance takes a parameter p defaulting to None, fills it
    under `if p is None:` (an assignment to p in that body) and, on a LATER line, tests `... or p is not None` (an
    `or` beside another operand) to decide whether to scale: after the fill that operand is always true. None where
    any part is missing (naming82, blind82 q2_scale_option_filled_before_scaled_test_always_scales); bounded (one
    parsed def, quotes cut)."""
    import ast
    try:
        func = _function_of(submission, "dot_product_variance")
    except Exception:  # noqa: BLE001 - unreadable source is no evidence
        return None
    if not isinstance(func, ast.FunctionDef):
        return None
    a = func.args
    pos = [*a.posonlyargs, *a.args]
    nones = {x.arg for x, d in zip(pos[len(pos) - len(a.defaults):], a.defaults)
             if isinstance(d, ast.Constant) and d.value is None}
    nones |= {x.arg for x, d in zip(a.kwonlyargs, a.kw_defaults) if isinstance(d, ast.Constant) and d.value is None}

    def none_test(t, op, p=None) -> str | None:   # `p is None` / `p is not None`: p
        if isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], op) \
                and isinstance(t.left, ast.Name) and t.left.id in nones and (p is None or t.left.id == p) \
                and isinstance(t.comparators[0], ast.Constant) and t.comparators[0].value is None:
            return t.left.id
        return None

    fills = {}
    for node in ast.walk(func):
        p = none_test(node.test, ast.Is) if isinstance(node, ast.If) else None
        if p is not None and any(isinstance(st, ast.Assign) and any(isinstance(t, ast.Name) and t.id == p
                                                                    for t in st.targets) for st in node.body):
            fills.setdefault(p, node)
    for node in ast.walk(func):
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.BoolOp) and isinstance(node.test.op, ast.Or)):
            continue
        for p, fill in fills.items():
            if node.lineno > fill.end_lineno and any(none_test(v, ast.IsNot, p) for v in node.test.values):
                return unparse(fill).splitlines()[0][:80] + " ...", unparse(node.test)[:80], p
    return None


# --- naming86: blind86/87's log-space, online and blockwise formulations ---------------------------------------------

def cummax_shift_pair_variants(Q64, K64, V64, d_k) -> dict:
    """softmax_shift_per_key_cummax (naming86, blind86 q1_cummax_running_max_subtracted_per_key_without_rescale):
    each score shifted by the running max of the keys up to it (torch.cummax along the keys), not by one value per
    row, then normalised: exp(s - cummax(s)) / its row sum. Kept where it is not the right answer (a row whose
    maximum is not its first key)."""
    if Q64.dim() != 2 or K64.dim() != 2 or K64.shape[-2] < 2:
        return {}
    s = Q64 @ K64.T / math.sqrt(d_k)
    e = torch.exp(s - torch.cummax(s, dim=-1).values)
    w = e / e.sum(dim=-1, keepdim=True)
    if torch.allclose(w, torch.softmax(s, dim=-1), rtol=1e-9, atol=1e-12):
        return {}
    return {"softmax_shift_per_key_cummax": (w @ V64, w)}


def table_log_probs_scaled(dims, seed):
    """table_scaled_log_probs_divided (naming86, blind86 q4_table_scaled_log_probs_from_raw_log_softmax_divided_by_
    root_d): the lesson's table with H_scaled = -sum(exp(x) * x) for x = log_softmax(raw) / sqrt(d) (the scale moved
    past the log_softmax); the other columns right."""
    rows = []
    for d in dims:
        raw = _raw_scores_at(d, seed).double()
        x = torch.log_softmax(raw, dim=-1) / d ** 0.5
        rows.append({"d": d, "raw_std": float(raw.std()), "scaled_std": float((raw / d ** 0.5).std()),
                     "H_raw": float(ref.softmax_entropy(raw)), "H_scaled": float(-(x.exp() * x).sum())})
    return ref.table_as_tensor(rows)


def zero_logits_masked_replays(logits: torch.Tensor) -> dict:
    """entropy_zero_logits_masked (naming86, blind87 q4_entropy_zero_logits_treated_as_padding): every logit exactly 0
    left out of the softmax as padding (masked to -inf), a row of only zeros giving 0. Only where some logit is 0 and
    some row then differs from the right entropy."""
    x = logits.double()
    pad = x == 0
    if x.numel() == 0 or not bool(pad.any()):
        return {}
    log_p = torch.log_softmax(x.masked_fill(pad, float("-inf")), dim=-1)
    H = -(log_p.exp() * log_p).nan_to_num(0.0).sum(dim=-1)
    right = ref.softmax_entropy(x)
    if torch.allclose(H, right, rtol=1e-6, atol=1e-9, equal_nan=True):
        return {}
    return {"entropy_zero_logits_masked": H}


def _block_diagonal_attention(Q, K, V, d_k, tile):
    """Each tile of `tile` rows attends only to the same rows of K and V (block-diagonal attention)."""
    T = Q.shape[-2]
    return torch.cat([ref.attention(Q[i:i + tile], K[i:i + tile], V[i:i + tile], d_k)[0]
                      for i in range(0, T, tile)], dim=0)


def round86_mha_variants(X, W_Q, W_K, W_V, W_O, n_heads) -> dict:
    """naming86 (blind86/87's q8): mha_qk_layer_norm, each head's queries and keys through F.layer_norm (no affine)
    before attention, per head or over the whole projection before the split; mha_query_tiles_own_keys, the tokens
    tiled in blocks of t rows (1 < t < T) and each tile of queries attending only to the same tile of keys and values;
    mha_projection_inner_tail_dropped, X @ W accumulated over inner tiles of t columns counted with d_model // t, so
    the last d_model % t columns of X (rows of W) never enter Q, K, V (and, /with_output, the output projection).
    2-D inputs, d_model divisible by n_heads."""
    out: dict = {}
    if X.dim() != 2 or X.shape[-1] % n_heads:
        return out
    import torch.nn.functional as F
    T, d_model = X.shape
    d_k = d_model // n_heads
    X64, Wq, Wk, Wv, Wo = X.double(), W_Q.double(), W_K.double(), W_V.double(), W_O.double()
    Q, K, V = X64 @ Wq, X64 @ Wk, X64 @ Wv
    cols = [slice(h * d_k, (h + 1) * d_k) for h in range(n_heads)]
    per_head = [ref.attention(F.layer_norm(Q[:, c], (d_k,)), F.layer_norm(K[:, c], (d_k,)), V[:, c], d_k)[0]
                for c in cols]
    out["mha_qk_layer_norm"] = torch.cat(per_head, dim=-1) @ Wo
    if n_heads > 1:
        Qn, Kn = F.layer_norm(Q, (d_model,)), F.layer_norm(K, (d_model,))
        whole = [ref.attention(Qn[:, c], Kn[:, c], V[:, c], d_k)[0] for c in cols]
        out["mha_qk_layer_norm/whole"] = torch.cat(whole, dim=-1) @ Wo
    for tile in range(2, min(T, 9)):
        heads = [_block_diagonal_attention(Q[:, c], K[:, c], V[:, c], d_k, tile) for c in cols]
        out[f"mha_query_tiles_own_keys/{tile}"] = torch.cat(heads, dim=-1) @ Wo
    seen = set()
    for tile in range(2, 9):
        kept = d_model // tile * tile
        if kept in (0, d_model) or kept in seen:
            continue
        seen.add(kept)
        Qc, Kc, Vc = (X64[:, :kept] @ W[:kept] for W in (Wq, Wk, Wv))
        heads = [ref.attention(Qc[:, c], Kc[:, c], Vc[:, c], d_k)[0] for c in cols]
        cat = torch.cat(heads, dim=-1)
        out[f"mha_projection_inner_tail_dropped/{kept}"] = cat @ Wo
        out[f"mha_projection_inner_tail_dropped/{kept}_with_output"] = cat[:, :kept] @ Wo[:kept]
    return out


def _online_entropy(x: torch.Tensor, block: int, mode: str) -> torch.Tensor:
    """The entropy of softmax(x) over the last dim computed online over chunks of `block` logits (running max m, sum l
    of exp(s - m), sum t of s exp(s - m); H = m + log l - t / l) with the rescale exp(m_old - m_new) left off t only
    ("t_missing"), off both ("missing"), or inverted on both ("inverted")."""
    first = x[..., :block]
    m = first.amax(dim=-1)
    e = torch.exp(first - m.unsqueeze(-1))
    l, t = e.sum(dim=-1), torch.where(e > 0, e * first, torch.zeros_like(e)).sum(dim=-1)
    for s in range(block, x.shape[-1], block):
        blk = x[..., s:s + block]
        m_blk = blk.amax(dim=-1)
        m_new = torch.maximum(m, m_blk)
        alpha = torch.exp(m - m_new)
        one = torch.ones_like(m)
        a_l, a_t = {"t_missing": (alpha, one), "missing": (one, one), "inverted": (1 / alpha, 1 / alpha)}[mode]
        e = torch.exp(blk - m_new.unsqueeze(-1))
        l = l * a_l + e.sum(dim=-1)
        t = t * a_t + torch.where(e > 0, e * blk, torch.zeros_like(e)).sum(dim=-1)
        m = m_new
    return m + torch.log(l) - t / l


def online_entropy_replays(logits: torch.Tensor) -> dict:
    """online_softmax_rescale_wrong for softmax_entropy (naming86, blind86 q4_online_entropy_second_accumulator_not_
    rescaled): the entropy computed online over chunks of b logits (1 < b < T, at most 8) with the running sums'
    rescale left off the second sum t, off both sums, or inverted (_online_entropy). Kept where finite, not the right
    entropy and not a smaller chunk's replay."""
    out: dict = {}
    x = logits.double()
    T = x.shape[-1] if x.dim() else 0
    if x.numel() == 0 or T < 3 or not bool(torch.isfinite(x).all()):
        return out
    right = ref.softmax_entropy(x)
    seen: list[torch.Tensor] = []
    for block in range(2, min(T, 9)):
        for mode in ("t_missing", "missing", "inverted"):
            H = _online_entropy(x, block, mode)
            if not bool(torch.isfinite(H).all()) or torch.allclose(H, right, rtol=1e-6, atol=1e-9) \
                    or any(torch.allclose(H, h, rtol=1e-9, atol=1e-12) for h in seen):
                continue
            seen.append(H)
            out[f"online_softmax_rescale_wrong/entropy_{mode}_{block}"] = H
    return out


def _chunk_sizes(func, n) -> list[int]:
    """The integer constants 1 < c < n written in `func` (at most 8, in order) when it has a for/while loop: the
    chunk sizes a streamed estimate may draw its samples in. [] otherwise."""
    import ast
    nodes = list(itertools.islice(ast.walk(func), 4000))
    if not any(isinstance(x, (ast.For, ast.While)) for x in nodes):
        return []
    sizes: list[int] = []
    for x in nodes:
        if isinstance(x, ast.Constant) and type(x.value) is int and 1 < x.value < n and x.value not in sizes:
            sizes.append(x.value)
    return sizes[:8]


def _rescaled_every_chunk(d_k, n, seed, chunk) -> list[float]:
    """The variance of the dot products of q, k drawn chunk by chunk ((b, d_k) q then k per chunk) from a generator
    seeded as the student's, its running sums of x and x^2 multiplied by 1/sqrt(d_k) and 1/d_k after every chunk;
    unbiased (n - 1) and biased (n)."""
    g = torch.Generator().manual_seed(seed)
    s1 = s2 = 0.0
    for start in range(0, n, chunk):
        b = min(chunk, n - start)
        q, k = torch.randn(b, d_k, generator=g), torch.randn(b, d_k, generator=g)
        dots = (q * k).sum(dim=1).double()
        s1 = (s1 + float(dots.sum())) / math.sqrt(d_k)
        s2 = (s2 + float((dots * dots).sum())) / d_k
    return [(s2 - s1 * s1 / n) / (n - 1), (s2 - s1 * s1 / n) / n]


def raise_if_rescaled_every_chunk(v, d_k, n, seed, submission) -> None:
    """variance_rescaled_every_chunk (naming86, blind86 q2_running_sums_rescaled_by_the_scale_after_every_chunk): the
    scaled estimate is, to rounding, that of samples drawn in chunks of a size the source writes (a constant in a
    function with a loop), whose running sums are multiplied by the scale after EVERY chunk (_rescaled_every_chunk),
    and not the right variance of the same draws over d_k."""
    func = _function_read(submission, "dot_product_variance")
    if func is None or not isinstance(v, (int, float)):
        return
    for chunk in _chunk_sizes(func, n):
        if not _replays(v, _rescaled_every_chunk(d_k, n, seed, chunk)):
            continue
        raise Misconception("variance_rescaled_every_chunk", f"for d_k = {d_k} with scaled=True the result {v:.4g} is "
                            f"what the same generator's draws give in chunks of {chunk} with the running sums "
                            f"multiplied by the scale after every chunk: " + describe("variance_rescaled_every_chunk"))


def _running_sum_written(name) -> bool:
    """Whether the running notebook's last `def name` (parsed, never run) calls a running sum: cumsum (torch, numpy or
    a tensor's method) or itertools.accumulate."""
    import ast
    func = _function_read(None, name)
    if func is None:
        return False
    return any(isinstance(x, ast.Call) and getattr(x.func, "attr", getattr(x.func, "id", "")) in ("cumsum", "accumulate")
               for x in itertools.islice(ast.walk(func), 4000))


# --- naming88: blind88/89's defensive code (a clamp against overflow, a head count cut to the tokens) and sorts ---

def raise_if_scores_clamped(pair, Q, K, V, d_k) -> None:
    """scores_clamped_before_softmax (naming88, blind88 q1_scores_clamped_to_plus_minus_twenty_against_exp_overflow):
    both results of one call equal softmax(S.clamp(-c, c)) (or S.clamp(max=c)), S the scaled scores, for a bound c
    read off the weights themselves (for a row's largest weight w_i and another w_j, c = s_j + ln(w_i / w_j) where
    key i was clamped), whatever c the source writes, and that replay is not the right answer."""
    if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(type(p) is torch.Tensor for p in pair)):
        return
    Q64, K64, V64 = Q.double(), K.double(), V.double()
    S = Q64 @ K64.mT / math.sqrt(d_k)
    w = pair[1].detach().double()
    if w.shape != S.shape or S.dim() != 2 or not bool(torch.isfinite(w).all()) or bool((w < 0).any()):
        return
    right = torch.softmax(S, dim=-1)
    top = w.argmax(dim=-1)
    cands: list[float] = []
    for r in range(min(S.shape[0], 8)):
        i = int(top[r])
        for j in range(S.shape[1]):
            if j == i or not 1e-300 < float(w[r, j]) < float(w[r, i]) * (1 - 1e-9):
                continue
            c = float(S[r, j]) + math.log(float(w[r, i]) / float(w[r, j]))
            if c > 0 and not any(abs(c - x) <= 1e-7 * max(1.0, c) for x in cands):
                cands.append(c)
    for c in cands[:40]:
        for lo in (-c, None):
            wc = torch.softmax(S.clamp(min=lo, max=c), dim=-1)
            if torch.allclose(wc, right, rtol=1e-9, atol=1e-12):
                continue
            if matching_variants(pair[1], {"v": wc}, Q.dtype) and matching_variants(pair[0], {"v": wc @ V64}, Q.dtype):
                bound = f"[{-c:.4g}, {c:.4g}]" if lo is not None else f"at most {c:.4g}"
                raise Misconception("scores_clamped_before_softmax", f"with wide scores (the largest scaled score "
                                    f"{float(S.max()):.4g}) both results of the same call match the softmax of the "
                                    f"scaled scores clamped to {bound} ({c * math.sqrt(d_k):.4g} before the "
                                    "1/sqrt(d_k) scale): " + describe("scores_clamped_before_softmax"))


def check_wide_scores(fn, dtype=torch.float64) -> None:
    """naming88 (blind88's uncaught clamp): a call the notebook promises (any values; its own subject is a softmax fed
    wide scores), on inputs from a generator of their own: T_q = 5, T_k = 8, d_k = 12, d_v = 4, Q and K scaled so the
    scaled scores have a std of about 30 (float64: exp of them is finite, so even an unshifted softmax is right).
    A clamp of the scores names scores_clamped_before_softmax; anything else is checked as every call is, the
    weights only (q1's weights test calls it: an output-only mistake is charged by the output's own tests). A crash
    or a result that is no (output, weights) pair is left to the tests whose own inputs show it."""
    g = torch.Generator().manual_seed(88)
    Q = (torch.randn((5, 12), generator=g, dtype=torch.float64) * 6.0).to(dtype)
    K = (torch.randn((8, 12), generator=g, dtype=torch.float64) * 5.0).to(dtype)
    V = torch.randn((8, 4), generator=g, dtype=torch.float64).to(dtype)
    try:
        pair = call(fn, Q, K, V, 12, what="attention")
    except StudentCodeError:   # a crash (an own assert of exact row sums, say) is charged where the tests' inputs show it
        return
    if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(type(p) is torch.Tensor for p in pair)):
        return
    raise_if_scores_clamped(pair, Q, K, V, 12)
    check_pair(pair, Q, K, V, 12, "weights", fn)


def sort_gather_pair_variants(Q64, K64, V64, d_k, got=None) -> dict:
    """softmax_sort_permutation_reapplied (naming88, blind89 q1_sorted_softmax_put_back_with_gather_not_scatter): the
    softmax taken on each row sorted (descending or ascending), put back with gather(-1, idx), which applies the sort
    permutation a second time: key j gets the probability of key idx[idx[j]]. Tied scores (equal keys) sort in either
    order, each row's the one nearer `got` (the student's weights, when given). Kept where it is not the right answer."""
    if Q64.dim() != 2 or K64.dim() != 2 or K64.shape[-2] < 3:
        return {}
    S = Q64 @ K64.T / math.sqrt(d_k)
    right = torch.softmax(S, dim=-1)
    out = {}
    last = S.shape[-1] - 1
    for desc in (True, False):
        ws = []
        for flip in (False, True):   # tied scores (equal keys) in either order: a sort's tie order is its own
            s, idx = (S.flip(-1) if flip else S).sort(dim=-1, descending=desc, stable=True)
            ws.append(torch.softmax(s, dim=-1).gather(-1, last - idx if flip else idx))
        w = ws[0]
        if got is not None and type(got) is torch.Tensor and got.shape == w.shape:   # each row's tie order: the nearer
            g = got.detach().double()
            w = torch.where(((g - ws[1]).abs().amax(-1) < (g - ws[0]).abs().amax(-1)).unsqueeze(-1), ws[1], ws[0])
        if not torch.allclose(w, right, rtol=1e-9, atol=1e-12):
            out[f"softmax_sort_permutation_reapplied/{'desc' if desc else 'asc'}"] = (w @ V64, w)
    return out


def round88_mha_variants(X, W_Q, W_K, W_V, W_O, n_heads) -> dict:
    """mha_head_refolded_column_major (naming88, blind89 q8_head_columns_masked_select_refolded_column_major): each
    head's (T, d_k) block of Q, K and V read out row-major (masked_select, flatten, reshape) and folded back as
    .view(d_k, T).T, which scrambles tokens and columns. 2-D inputs, T > 1 and d_k > 1 (else it is the right block)."""
    if X.dim() != 2 or X.shape[-1] % n_heads:
        return {}
    T, d_model = X.shape
    d_k = d_model // n_heads
    if T < 2 or d_k < 2:
        return {}
    X64 = X.double()
    Q, K, V = (X64 @ W.double() for W in (W_Q, W_K, W_V))
    heads = []
    for h in range(n_heads):
        c = slice(h * d_k, (h + 1) * d_k)
        q, k, v = (M[:, c].reshape(d_k, T).T for M in (Q, K, V))
        heads.append(ref.attention(q, k, v, d_k)[0])
    return {"mha_head_refolded_column_major": torch.cat(heads, dim=-1) @ W_O.double()}


def raise_if_heads_capped_by_tokens(fn, got, X, Ws, n_heads, what) -> None:
    """mha_heads_capped_by_tokens (naming88, blind88 q8_head_count_lowered_until_no_more_heads_than_tokens): with
    fewer tokens than heads (T < n_heads) the answer equals the right layer run with h < n_heads heads, h <= T and a
    divisor of d_model (the replay is not the right answer), and a second call with T = n_heads tokens, the same
    weights, is right: the head count was cut to the number of tokens."""
    if fn is None or type(got) is not torch.Tensor or X.dim() != 2 or tuple(got.shape) != tuple(X.shape):
        return
    T, d_model = X.shape
    if T >= n_heads or d_model % n_heads:
        return
    X64 = X.double()
    Wq, Wk, Wv, Wo = (w.double() for w in Ws)
    right = ref.multi_head_attention(X64, Wq, Wk, Wv, Wo, n_heads)
    for h in range(min(T, n_heads - 1), 0, -1):
        if d_model % h:
            continue
        replay = ref.multi_head_attention(X64, Wq, Wk, Wv, Wo, h)
        if torch.allclose(replay, right, rtol=1e-9, atol=1e-12) or not matching_variants(got, {"v": replay}, X.dtype):
            continue
        X2 = torch.randn((n_heads, d_model), generator=torch.Generator().manual_seed(88), dtype=torch.float64)
        try:
            again = fn(X2.to(X.dtype), *Ws, n_heads)
        except Exception:  # noqa: BLE001 - a second call is only evidence
            return
        want = ref.multi_head_attention(X2, Wq, Wk, Wv, Wo, n_heads)
        if type(again) is not torch.Tensor or not matching_variants(again, {"v": want}, X.dtype):
            return
        raise Misconception("mha_heads_capped_by_tokens", f"{what} is wrong: with T = {T} tokens and n_heads = "
                            f"{n_heads} it equals the layer run with {h} heads of width {d_model // h}, while with "
                            f"T = {n_heads} tokens (the same weights) it is right: "
                            + describe("mha_heads_capped_by_tokens"))


def _row_min_overflows(x: torch.Tensor) -> torch.Tensor:
    """The rows of x (in its own dtype) whose exp(x - row min) sums to inf."""
    return torch.isinf(torch.exp(x - x.amin(dim=-1, keepdim=True)).sum(dim=-1))


ROW_MIN_PROBE = ((40.0, -50.0, 0.0, 10.0), (0.5, -1.0, 2.0, 0.0))


_MIN_READS = frozenset({"min", "amin", "sort", "argsort", "msort", "topk", "kthvalue", "cummin", "aminmax"})


def _reads_a_minimum(submission) -> bool:
    """Whether the notebook's last `def softmax_entropy` calls something that can give a row's minimum (min, amin,
    sort, argsort, topk, kthvalue, cummin): the gate of entropy_shift_by_row_min, whose NaN rows (max - min past
    float32's exp range) are also those where a probability underflows to 0 and is then inverted (blind23's
    reciprocal, the scan after round 88). Student text: parsed, never run."""
    import ast
    from autograder.grading.source_checks import SourceUnreadable, cells_of, last_function_def
    if submission is None:
        return False
    try:
        func = last_function_def(cells_of(submission), "softmax_entropy", max_chars=20000)
        nodes = list(itertools.islice(ast.walk(func), 3000)) if func is not None else []
    except (SourceUnreadable, RecursionError, MemoryError):
        return False
    return any(isinstance(n, ast.Call) and ((isinstance(n.func, ast.Attribute) and n.func.attr in _MIN_READS)
                                            or (isinstance(n.func, ast.Name) and n.func.id in _MIN_READS))
               for n in nodes)


def min_shift_nan(got, logits, fn, submission=None) -> Misconception | None:
    """entropy_shift_by_row_min (naming88, blind89 q4_entropy_shift_from_ascending_sort_takes_row_min): the entropy is
    not finite in exactly the rows where exp(logits - row min) overflows in the logits' dtype (not the rows where the
    unshifted exp does), the other rows right; and a second call on ROW_MIN_PROBE, whose first row overflows only when
    shifted by its minimum (span 90; its max, mean and first entry all keep exp finite), is not finite there and
    right on the second row."""
    if type(got) is not torch.Tensor or tuple(got.shape) != tuple(logits.shape[:-1]) or not got.is_floating_point() \
            or logits.dim() < 1 or logits.dtype != torch.float32 or not _reads_a_minimum(submission):
        return None
    bad = _row_min_overflows(logits)
    if not bool(bad.any()) or bool(bad.all()) or not torch.equal(bad, ~torch.isfinite(got)) \
            or torch.equal(bad, torch.isinf(torch.exp(logits).sum(dim=-1))):
        return None
    if not matching_variants(got[~bad], {"v": ref.softmax_entropy(logits.double())[~bad]}, logits.dtype):
        return None
    probe = torch.tensor(ROW_MIN_PROBE, dtype=torch.float32)
    try:
        again = fn(probe.clone())
    except Exception:  # noqa: BLE001 - a second call is only evidence
        return None
    if type(again) is not torch.Tensor or tuple(again.shape) != (2,) or not again.is_floating_point() \
            or bool(torch.isfinite(again[0])) \
            or not matching_variants(again[1:], {"v": ref.softmax_entropy(probe.double())[1:]}, torch.float32):
        return None
    rows = [i for i, b in enumerate(bad.flatten().tolist()) if b]
    return Misconception("entropy_shift_by_row_min", f"softmax_entropy is not finite for rows {rows}, exactly the rows "
                         "where exp(logits - row minimum) overflows float32, the other rows right; and on the logits "
                         "[40, -50, 0, 10] (the maximum 40 keeps exp finite, the minimum -50 does not) it is not "
                         "finite either: " + describe("entropy_shift_by_row_min"))


def shift_nan(got, logits, submission, fn) -> Misconception | None:
    """A NaN entropy replayed as a shift by something other than each row's maximum: the whole tensor's maximum,
    the row mean (with the source), the row minimum (naming88, with a second call)."""
    return global_max_nan(got, logits) or mean_shift_nan(got, logits, submission) or min_shift_nan(got, logits, fn,
                                                                                                  submission)
