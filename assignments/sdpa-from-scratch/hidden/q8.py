"""Question 8: the cost of attention, O(T^2 d_k), for one head with T = 1024 and d_k = 64."""
import ast
import importlib.util
import math
from pathlib import Path

from otter.test_files import test_case

from autograder.grading.checks import (Misconception, describe, expect_int, raise_if_other_unit, raise_if_typo,
                                       register_misconceptions)
from autograder.grading.pyparse import parse
from autograder.grading.source_checks import cells_assigning, cells_of
from reference import sdpa_from_scratch as ref

OK_FORMAT = False
name = "q8"
register_misconceptions(__file__)
_spec = importlib.util.spec_from_file_location(f"{__name__}_diagnose", Path(__file__).with_name("_diagnose.py"))
assert _spec is not None and _spec.loader is not None
diag = importlib.util.module_from_spec(_spec)      # hidden/_diagnose.py, beside this file (no package)
_spec.loader.exec_module(diag)

T, D_K = 1024, 64
# the question's counts written with MATLAB's ^, which Python reads as bitwise xor (below * in precedence)
XOR = {"attn_entries": {T ^ 2}, "score_madds": {T ^ 2 * D_K, (T ^ 2) * D_K, T ^ 2 ^ D_K, T * T ^ D_K}}

# the question's counts for one query, or for the causal triangle only (with or without the diagonal)
PER_QUERY = {"attn_entries": {T}, "score_madds": {T * D_K}}
TRIANGLE = {"attn_entries": {T * (T + 1) // 2}, "score_madds": {T * (T + 1) // 2 * D_K}}
# T (T - 1) / 2 = math.comb(T, 2): unordered pairs of two different tokens (naming31, blind28), not the causal
# triangle (which keeps the diagonal): each pair once AND no token with itself; no other count here is odd x 2^9
DISTINCT_PAIRS = {"attn_entries": T * (T - 1) // 2, "score_madds": T * (T - 1) // 2 * D_K}

# a kind: the count computed at a rounded size ("1k" for T = 1024); no other count of this question is 10^6 or
# 64 x 10^6 (T^2 = 2^20, T^2 d_k = 2^26, T d_k = 2^16)
ROUNDED_T = (1000,)
AT_T = {"attn_entries": lambda t: t * t, "score_madds": lambda t: t * t * D_K}


def _raise_if_loop_from_one(submission, name, got):
    """T (T - 1) counted in a loop over range(1, ...) that binds `name` or a name its assignment reads (cells read
    with ast, never run): the first query skipped, a number self_pairs_left_out also gives (blind36)."""
    try:
        cells = cells_of(submission) if submission is not None else []
        trees = [parse(cells[i]) for i in cells_assigning(cells, name)]
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return
    nodes = [n for tree in trees for n in ast.walk(tree)]
    sets = [n.value for n in nodes if isinstance(n, ast.Assign) and any(getattr(t, "id", 0) == name for t in n.targets)]
    read = {name} | {r.id for v in sets for r in ast.walk(v) if isinstance(r, ast.Name)}     # `s = entries * d_k`
    for it, body in ((n.iter, n.body) for n in nodes if isinstance(n, ast.For)):
        if ast.unparse(it).startswith("range(1, ") and any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
                                                           and n.id in read for b in body for n in ast.walk(b)):
            raise Misconception("loop_starts_at_one", f"{name} is {got} = {T - 1} x {T}{' x d_k' * (got > T * T)}, "
                                f"counted in a loop over {ast.unparse(it)[:40]}: " + describe("loop_starts_at_one"))


def _raise_if_related(got, name, submission=None, attn_entries=None):
    diag.name_count_from_another_rule(got, name, submission, T, D_K)     # round52: element_size(), n^3
    right = getattr(ref, name)
    for t in ROUNDED_T:
        if got == AT_T[name](t) != right:
            raise Misconception("size_rounded", f"{name} is {got}, the right formula at T = {t} instead of "
                                f"T = {T}: " + describe("size_rounded"))
    if 2 * got in (right, right - 1, right + 1):     # T^2 / 2 (or rounded): not T (T + 1) / 2, the triangle
        raise Misconception("count_halved_symmetric", f"{name} is {got}, half the right count: "
                            + describe("count_halved_symmetric"))
    typed_twice = name == "attn_entries" or attn_entries == 2 * T     # 2 T d_k alone also reads as 2 x one query's
    if typed_twice and got == AT_T[name](T) // T * 2 and got != right:
        # T * 2 for T ** 2 (blind31's 1024 * 2): a power typed as a product
        raise Misconception("square_as_times_two", f"{name} is {got}, T x 2 = {T} x 2"
                            + (f" times d_k = {D_K}" if name == "score_madds" else "") + ": "
                            + describe("square_as_times_two"))
    if name == "score_madds" and got == T * T + D_K and not diag.written_with_caret(submission, name):
        # T * T ^ d_k is T^2 + d_k (bit 6 of 2^20 is clear): without a ^ in its cell, d_k was added (blind31)
        raise Misconception("madds_d_k_added", f"{name} is {got} = T^2 + d_k: " + describe("madds_d_k_added"))
    if got in XOR[name]:
        raise Misconception("caret_is_xor", f"{name} is what a power written with ^ gives: " + describe("caret_is_xor"))
    if got in PER_QUERY[name]:
        raise Misconception("count_per_query", f"{name} is {got}, the count for one query: "
                            + describe("count_per_query"))
    if got == AT_T[name](T) // T * (T - 1):     # T (T - 1): the diagonal (a token with itself) left out
        _raise_if_loop_from_one(submission, name, got)     # or a loop over range(1, T): the same number (blind36)
        raise Misconception("self_pairs_left_out", f"{name} is {got}, T (T - 1) = {T} x {T - 1}"
                            + (f" x d_k = {D_K}" if name == "score_madds" else "") + ": "
                            + describe("self_pairs_left_out"))
    if got == DISTINCT_PAIRS[name]:
        raise Misconception("distinct_pairs_counted_once", f"{name} is {got}, T (T - 1) / 2 = math.comb({T}, 2)"
                            + (f" x d_k = {D_K}" if name == "score_madds" else "") + ": "
                            + describe("distinct_pairs_counted_once"))
    if got in TRIANGLE[name]:
        raise Misconception("causal_triangle_count", f"{name} is {got}, the count of the causal triangle only: "
                            + describe("causal_triangle_count"))


def _raise_if_not_int(value, name):
    """The right count, but not a Python int (the format asks isinstance(value, int)); a tensor: returns_tensor_not_number."""
    if type(value) is int:
        return
    if isinstance(value, float) or getattr(getattr(value, "dtype", None), "is_floating_point", False) \
            or type(value).__name__.startswith("float"):
        raise Misconception("float_for_int", f"{name} is {value!r}, a float: " + describe("float_for_int"))
    said, kind = f"{name} holds the right count but is a {type(value).__name__}: ", "returns_tensor_not_number"
    raise (Misconception(kind, said + describe(kind)) if type(value).__name__ == "Tensor" or type(value).__module__ == "numpy"
           else AssertionError(said + f"give a plain Python int (int({name}))"))


def _raise_if_wrapped(value, name):
    """The right number in a 1-tuple or 1-list (a trailing comma: `cost_ratio = 4,`)."""
    if (type(value) in (tuple, list) and len(value) == 1 and type(value[0]) in (int, float)
            and value[0] == getattr(ref, name)):
        raise Misconception("answer_in_one_more_container", f"{name} is {value!r}, a 1-{type(value).__name__} "
                            f"holding the right number {getattr(ref, name)}: " + describe("answer_in_one_more_container"))


def _raise_if_fraction_of_unit(value, name):
    """A count given in millions with its decimals (1.05, 67.1): not a whole number, so before expect_int."""
    if type(value) is float and not value.is_integer():
        raise_if_other_unit(value, getattr(ref, name), name)


@test_case(points=1, hidden=True)
def test_attn_entries(attn_entries, score_madds=None, submission=None):
    diag.name_count_overflowed(attn_entries, "attn_entries", submission)
    _raise_if_wrapped(attn_entries, "attn_entries")
    _raise_if_fraction_of_unit(attn_entries, "attn_entries")
    got = expect_int(attn_entries, "attn_entries")
    diag.name_counts_swapped(got, score_madds, "attn_entries")
    if got == ref.attn_entries * 64:
        raise Misconception("entries_times_d_k", "attn_entries counts d_k = 64 numbers per weight: the weight "
                            "matrix has one entry per (query, key) pair")
    if got == T * D_K:
        raise Misconception("entries_of_Q", "attn_entries is T * d_k: " + describe("entries_of_Q"))
    if got == 4 * ref.attn_entries:   # (2T)^2, float32's 4 bytes, a batch of 4 (blind27); bytes by source (round71)
        diag.name_entries_times_four(got, "attn_entries", submission)
    if got == 8 * ref.attn_entries:      # float64's bytes, or the paper's h = 8 heads where the cell says so (round82)
        diag.name_entries_times_eight(got, "attn_entries", submission)
    if got == 2 * ref.attn_entries:   # two readings, one number (blind21): said both ways, named neither
        diag.name_pair_list_numel(got, submission, T)      # naming round 88: numel of a (T^2, 2) pair list
        raise AssertionError(f"attn_entries is {got} = 2 T^2: two T x T matrices counted (the scores and the "
                             "weights, say), or the weights' bytes in float16; the weight matrix alone has T^2 "
                             "entries, one per query-key pair")
    _raise_if_related(got, "attn_entries", submission)
    diag.name_count_slips(got, "attn_entries", submission)
    raise_if_other_unit(got, ref.attn_entries, "attn_entries")
    raise_if_typo(got, ref.attn_entries, "attn_entries")
    if got != ref.attn_entries:
        raise AssertionError(f"attn_entries is {got:,}, not the number of entries of the weight matrix "
                             "(one per query-key pair)")
    _raise_if_not_int(attn_entries, "attn_entries")


@test_case(points=1, hidden=True)
def test_score_madds(score_madds, attn_entries=None, submission=None):
    diag.name_count_overflowed(score_madds, "score_madds", submission)
    _raise_if_wrapped(score_madds, "score_madds")
    _raise_if_fraction_of_unit(score_madds, "score_madds")
    got = expect_int(score_madds, "score_madds")
    diag.name_counts_swapped(attn_entries, got, "score_madds")
    diag.name_count_iterable_slips(got, "score_madds", submission)     # round72: a generator read twice, a 0 start
    if got == D_K:      # round45 (blind44): one score's dot product; one query's row, T d_k, is count_per_query
        raise Misconception("madds_of_one_score", f"score_madds is {got} = d_k, the multiply-adds of one score, "
                            f"not of all {T} x {T}: " + describe("madds_of_one_score"))
    # T d_k^2 = 2^22 is also T^2 x 4 (T = 16 d_k), the float32 bytes of the weights: named only when
    # attn_entries is not itself counted in bytes (a count in bytes would be that answer's mistake)
    bytes_reading = type(attn_entries) in (int, float) and attn_entries == 4 * ref.attn_entries
    if got == T * D_K * D_K and not bytes_reading:
        raise Misconception("madds_features_squared", f"score_madds is {got} = T x d_k^2 = {T} x {D_K}^2: "
                            + describe("madds_features_squared"))
    if got in (2 * ref.score_madds, (g4 := float(f"{2 * ref.score_madds:.3e}"))):    # round60: einsum_path's 4 digits
        # 2 T^2 d_k = T^2 x 128: a multiply and an add counted apart, weights @ V's T^2 d_v added (d_v = d_k), or Q1's
        # d_v = 128 written for d_k (naming11, blind10): the number cannot tell them apart, one key gives all three
        raise Misconception("madds_counted_twice", f"score_madds is {got}, twice the multiply-adds of Q @ K.T "
                            f"(T^2 x {2 * D_K}{', to 4 digits as a FLOP count prints it' * (got == g4)}): "
                            + diag.madds_twice_cause(submission))     # round70: a helper's factor 2, by source
    diag.name_madds_training_step(got, submission, T, D_K)     # naming round 86: 3 T^2 d_k, forward plus backward
    if got in (T * T * (D_K - 1), T * T * (2 * D_K - 1)):
        raise Misconception("madds_counts_additions", f"score_madds is {got}, T^2 x "
                            f"{got // (T * T)}: " + describe("madds_counts_additions"))
    # T^2 x 8: 8 is sqrt(d_k) (the scale divisor) but also the d_k of Question 2's example and the bytes of a
    # float64: named only when attn_entries is not itself counted in bytes, with both d_k readings in the key
    if got == T * T * math.isqrt(D_K) and not (type(attn_entries) in (int, float) and attn_entries == 8 * ref.attn_entries):
        raise Misconception("madds_with_sqrt_d_k", f"score_madds is {got} = T^2 x {math.isqrt(D_K)}: "
                            + describe("madds_with_sqrt_d_k"))
    if got == T * T * 6:     # 6 = log2(d_k = 2^6), the exponent written for d_k (blind37); 6 is no other size here
        raise Misconception("madds_with_log2_d_k", f"score_madds is {got} = T^2 x 6: " + describe("madds_with_log2_d_k"))
    if got == ref.attn_entries:
        raise Misconception("madds_without_d_k", "score_madds is one multiply-add per score: each score is a dot "
                            "product of length d_k")
    # 2^29 = T^2 x 512, d_model = 8 heads x d_k (blind28); also T^2 d_k x 8 bytes of float64: named only when
    # attn_entries is not itself counted in bytes
    if got == T * T * D_K * 8 and not (type(attn_entries) in (int, float) and attn_entries == 8 * ref.attn_entries):
        raise Misconception("madds_all_heads_width", f"score_madds is {got} = T^2 x {8 * D_K} = T^2 x (8 x d_k): "
                            + describe("madds_all_heads_width"))
    _raise_if_related(got, "score_madds", submission, attn_entries)
    diag.name_count_slips(got, "score_madds", submission)    # round57: counted after T *= 2, replayed
    raise_if_other_unit(got, ref.score_madds, "score_madds")
    if got == (T * D_K) ** 2:     # 2^32: no other count of this question (T^2 d_k = 2^26, T d_k^2 = 2^22)
        raise Misconception("madds_sizes_multiplied", f"score_madds is {got} = (T x d_k) x (T x d_k), the size of "
                            "Q times the size of K: " + describe("madds_sizes_multiplied"))
    extra, rest = divmod(got - ref.score_madds, T * T)
    if rest == 0 and 0 < abs(extra) <= 4:
        # naming25: T^2 (d_k + k), k a small number of operations per score (a scale multiply, a mask, an exp):
        # no key says which step was counted, so said in numbers
        raise AssertionError(f"score_madds is {got} = T^2 x (d_k {'+' if extra > 0 else '-'} {abs(extra)}) = {T}^2 x "
                             f"{D_K + extra}: {abs(extra)} operation(s) per score {'more' if extra > 0 else 'fewer'} "
                             f"than the T^2 x d_k = {ref.score_madds} multiply-adds of Q @ K.T; count the dot "
                             "products only (d_k multiply-adds per score), not the scale or any other step per score")
    raise_if_typo(got, ref.score_madds, "score_madds")
    if got != ref.score_madds:
        raise AssertionError(f"score_madds is {got:,}, not the number of multiply-adds of Q @ K.T "
                             "(each entry is a dot product of length d_k)")
    _raise_if_not_int(score_madds, "score_madds")


@test_case(points=1, hidden=True)
def test_cost_ratio(cost_ratio, submission=None):
    _raise_if_wrapped(cost_ratio, "cost_ratio")   # then a plain number only (anything else: expect_int says what it is)
    if type(cost_ratio) in (int, float) and cost_ratio != 0 and abs(cost_ratio * ref.cost_ratio - 1) < 1e-9:
        raise Misconception("cost_ratio_inverted", f"cost_ratio is {cost_ratio}, 1 / {ref.cost_ratio}: " + describe("cost_ratio_inverted"))
    got = diag.ratio_int(cost_ratio, "cost_ratio", submission)     # round54: a `%` typed for `//`, replayed
    # the increase instead of the factor: new / old - 1 = 3, the same in percent (300), or the extra count
    # new - old of either question's count; no other key of this test owns these numbers (2, 8, 1/4)
    increase = {ref.cost_ratio - 1: "new / old - 1", 100 * (ref.cost_ratio - 1): "the increase in percent",
                (ref.cost_ratio - 1) * ref.score_madds: "the extra multiply-adds new - old",
                (ref.cost_ratio - 1) * ref.attn_entries: "the extra weight entries new - old"}
    diag.name_cost_ratio_increase(got, submission, increase, ref.cost_ratio)   # round64: a `- 1` in the cell, or `//`
    if got == 2:
        diag.name_ratio_two(submission)
    if got == 8:
        # 8 = 2^3 is T^3, or T^2 d_k with d_k doubled along with T (blind15): the value cannot tell which
        raise Misconception("cost_ratio_eight", "cost_ratio is 8: " + describe("cost_ratio_eight"))
    # a kind: new / a * rest, the old cost a * rest not bracketed, is the ratio times rest^2 (naming20)
    unbracketed = {ref.cost_ratio * (T * D_K) ** 2: "/ T * T * d_k", ref.cost_ratio * D_K ** 2: "/ T**2 * d_k",
                   ref.cost_ratio * T ** 4: "/ d_k * T * T"}
    if got in unbracketed:
        raise Misconception("ratio_denominator_unbracketed", f"cost_ratio is {got}, what new {unbracketed[got]} "
                            "gives: " + describe("ratio_denominator_unbracketed"))
    costs = {ref.cost_ratio * ref.score_madds: "the multiply-adds at 2T", ref.score_madds: "the multiply-adds at T",
             ref.attn_entries: "the weight entries at T"}      # (2T)^2 itself is also new / T * T: below
    if got in costs:
        raise Misconception("cost_not_ratio", f"cost_ratio is {got}, {costs[got]}: " + describe("cost_not_ratio"))
    if got == ref.cost_ratio * T * T:    # (2T)^2 / T * T, or the new count (2T)^2 itself: the value cannot tell
        raise AssertionError(f"cost_ratio is {got} = (2T)^2, the new count itself, not a ratio: either the old "
                             "cost T * T was not bracketed ((2*T)**2 / T * T divides by T and multiplies by T "
                             "again) or the old cost was never divided out; write new / (old)")
    diag.name_count_kept_between_calls(got, submission)      # round69: a global total, 5 = 1 + 4
    if got != ref.cost_ratio:
        raise AssertionError(f"cost_ratio is {got}, not right: how does T * T change when T doubles?")
    _raise_if_not_int(cost_ratio, "cost_ratio")
