"""The diagnoses q1's tests share (scaled-attention): the student's (output, weights) pair read and matched
against the catalogued mistakes together, a crash named from a re-run, the layout cases' smallest failing
input. Not a test file (its name starts with "_"): q1.py loads it by path, beside itself."""
import math
import re

import torch

from autograder.grading.checks import (
    Misconception,
    assert_matches,
    call,
    describe,
    name_from_rerun,
    raise_if_nondeterministic,
    expect_tuple,
    matching_variants,
    randn,
)
from autograder.errors import StudentCodeError
from autograder.grading.shrink import Derived, TensorArgs, check_value
from reference import scaled_attention as ref


def _crash_named(e: StudentCodeError, Q, K) -> Misconception | None:
    """A crash whose message says which mistake made it: torch.sqrt of the int d_k; Q @ K (or K @ Q)
    without the transpose, the two shapes in the error being exactly Q's and K's."""
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


def call_pair(fn, Q, K, V, d_k):
    """The student's (output, weights). Both parts right in the other order names results_reordered; one
    tensor, the right output or weights, names what is missing. A crash is named from its message (see
    _crash_named), from a batch of one that runs and is right (fixed_axes), or, with T_q != T_k, from the
    same call cut to as many queries as keys, when that run is not simply right and one of its parts
    matches a known mistake."""
    try:
        value = call(fn, Q, K, V, d_k, what="attention")
    except StudentCodeError as e:
        named = _crash_named(e, Q, K)
        if named is not None:
            raise named from None
        if _batched_rerun(fn, Q, K, V, d_k):
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
                    if key is not None:
                        raise Misconception(key, f"your code raised {e.exc_type}: {e.message}, with T_q = "
                                            f"{Q.shape[-2]} queries and T_k = {K.shape[-2]} keys; with as many "
                                            f"queries as keys it runs and its {part} match {describe(key)}") from None
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
    return pair


def pair_evidence(pair, Q, K, V, d_k):
    """(key, (output, weights), message) of the one mistake both results of the same call match: a known
    mistake (reference.pair_variants), else a scale constant fitted to the weights (softmax(Q K^T / c)
    for a c that is not sqrt(d_k), the output following from those weights). None when there is none,
    or more than one."""
    if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(type(p) is torch.Tensor for p in pair)):
        return None
    Q64, K64, V64 = Q.double(), K.double(), V.double()
    right = ref.attention(Q64, K64, V64, d_k)

    def same(a, b):
        return bool(matching_variants(a, {"v": b}, Q.dtype))

    if all(same(p, r) for p, r in zip(pair, right)):
        return None
    hits = {}
    for key, wrong in ref.pair_variants(Q64, K64, V64, d_k).items():
        if all(same(p, w) for p, w in zip(pair, wrong)):
            hits.setdefault(key.split("/")[0], (key, wrong))
    if len(hits) == 1:
        base, (_, wrong) = hits.popitem()
        return base, wrong, describe(base)
    if hits:
        return None
    # a softmax of scores divided by some constant c fitted to the weights: the dot products (a scale other
    # than sqrt(d_k)), the negative squared distances (a Gaussian kernel), the cosine similarities
    for key, S in ref.kernel_scores(Q64, K64).items():
        c = ref.fitted_scale(S, pair[1])
        if c is None or (key == "wrong_scale_constant" and abs(c / math.sqrt(d_k) - 1) < 1e-6):
            continue
        w = torch.softmax(S / c, dim=-1)
        wrong = (w @ V64, w)
        if not all(same(p, x) for p, x in zip(pair, wrong)) or same(w, right[1]):
            continue
        if key != "wrong_scale_constant":
            return key, wrong, f"{describe(key)} (here c = {c:.4g})"
        # a scale = d_k ** 1/2 is d_k / 2 (not catalogued: with d_k = 16 it is 8, a d_k of 64 written out)
        hint = " (d_k / 2: Python reads d_k ** 1/2 as (d_k ** 1) / 2)" if abs(c / (d_k / 2) - 1) < 1e-6 else ""
        return key, wrong, (f"{describe(key)}: here c = {c:.4g}{hint}, where the scale is 1/sqrt(d_k) = "
                            f"1/{math.sqrt(d_k):.4g}")
    return None


def draw_inputs(rng, T_q, T_k, d_k, d_v, dtype, scale=1.0):
    Q = randn((T_q, d_k), rng, dtype, scale)
    K = randn((T_k, d_k), rng, dtype, scale)
    V = randn((T_k, d_v), rng, dtype)
    return Q, K, V


def _made_in_float32(t: object) -> bool:
    """Every entry of a float64 tensor is a float32 number: it went through float32 and was cast back."""
    return (type(t) is torch.Tensor and t.dtype == torch.float64 and bool(torch.isfinite(t).all())
            and torch.equal(t, t.float().double()))


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
    if Q.dtype == torch.float64 and type(got) is torch.Tensor and got.dtype == torch.float32 \
            and matching_variants(got, {"right": expected}, torch.float32):
        raise Misconception("float32_precision", f"the {named} comes back as float32 for float64 inputs (right "
                            "to float32's precision): " + describe("float32_precision"))
    if type(got) is torch.Tensor and got.dtype == Q.dtype and matching_variants(got, {"right": expected}, Q.dtype):
        return
    found = pair_evidence(pair, Q, K, V, d_k)
    if found is not None and type(got) is torch.Tensor and matching_variants(got, {"v": found[1][index]}, Q.dtype):
        raise Misconception(found[0], f"the {named} is wrong: with the other result of the same call it matches "
                            + found[2])
    if Q.dtype == torch.float64:
        # a softmax done in float32: weights that are float32 numbers, right to float32's rounding
        if _made_in_float32(weights) and not _made_in_float32(right[1]) \
                and matching_variants(weights, {"right": right[1]}, torch.float32):
            variants["float32_precision"] = weights if part == "weights" else weights @ V64
    try:
        assert_matches(got, expected, what=f"the {named}", dtype=Q.dtype, variants=variants)
    except Misconception:
        raise
    except AssertionError:
        if fn is not None:   # nothing named: a second call that differs shows randomness (dropout left on)
            raise_if_nondeterministic(fn, (Q, K, V, d_k), {}, pair, what="attention")
        raise


def answer_part(fn, index):
    """The student's attention, answering only its output (0) or its weights (1)."""
    def picked(*args, **kwargs):
        return expect_tuple(fn(*args, **kwargs), "attention", ("output", "weights"))[index]
    return picked


def check_layout(fn, Q, K, V, what):
    d_k = Q.shape[-1]
    found = None
    try:
        # names results returned in the wrong order (or one of them alone); a crash is check_value's
        pair = call_pair(fn, Q, K, V, d_k)
        found = pair_evidence(pair, Q, K, V, d_k)
        right = ref.attention(Q.double(), K.double(), V.double(), d_k)
        if found is None and not all(type(p) is torch.Tensor and matching_variants(p, {"right": r}, Q.dtype)
                                     for p, r in zip(pair, right)):
            raise_if_nondeterministic(fn, (Q, K, V, d_k), {}, pair, what="attention")
    except StudentCodeError:
        pass
    args = TensorArgs({"Q": Q, "K": K, "V": V, "d_k": Derived(lambda t: t["Q"].shape[-1])},
                      {"T_q": {"Q": -2}, "T_k": {"K": -2, "V": -2}, "d_k": {"Q": -1, "K": -1}, "d_v": {"V": -1}},
                      together_dims=(("T_q", "T_k"),), compare=(("T_q", "T_k"),))
    Q64, K64, V64 = Q.double(), K.double(), V.double()
    expected = ref.attention(Q64, K64, V64, d_k)
    for index, part in ((1, "weights"), (0, "output")):
        check_value(answer_part(fn, index), args, expected[index],
                    reference=lambda Q, K, V, d_k, i=index: ref.attention(Q, K, V, d_k)[i],
                    what=f"the {'weight matrix' if part == 'weights' else 'output'} {what}", name="attention",
                    dtype=Q.dtype, variants=({found[0]: found[1][index]} if found is not None
                                             else ref.wrong_variants(Q64, K64, V64, d_k, part)))
