"""Hidden tests for q4: softmax_entropy(logits) and entropy_table(dims, seed).

test_entropy_views hands softmax_entropy logits that are not contiguous: transposed in memory and
shared by every batch entry (expanded, stride 0). Subtracting the row maximum in place (logits -= ...)
raises on them, and so does flattening with `.view(-1, n)`; a failure there also shows the smallest
input of its kind that still fails (autograder.grading.shrink)."""
import torch
from otter.test_files import test_case

from autograder.grading.checks import (
    Misconception,
    assert_matches,
    assert_plain_tensor,
    call, charged_in_parts,
    charged_elsewhere, describe, is_stub,
    matching_variants,
    raise_if_records_malformed,
    randn,
    register_misconceptions,
)
from autograder.errors import StudentCodeError
from autograder.grading.shrink import TensorArgs, check_value
from reference import scaled_attention as ref

OK_FORMAT = False
name = "q4"
points = 7
register_misconceptions(__file__)


def _load_diagnose():
    """hidden/_diagnose.py, the diagnoses beside this file (the folder is no package)."""
    import importlib.util
    from pathlib import Path
    spec = importlib.util.spec_from_file_location(f"_{name}_diagnose", Path(__file__).with_name("_diagnose.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


D = _load_diagnose()


@test_case(points=2, hidden=True)
def test_entropy_random_logits(softmax_entropy, rng, submission=None):
    # square (6, 6): an entropy over the wrong dim has the right shape and can be named
    logits = randn((6, 6), rng, torch.float32, scale=2.0)
    expected = ref.softmax_entropy(logits.double())
    D.entropy_judge(softmax_entropy, expected, "softmax_entropy(logits)", torch.float32,
                    D.entropy_variants(logits.double()))(D.call_entropy(softmax_entropy, logits))
    # leading batch dims: one entropy per row of the last dim
    logits = randn((2, 3, 5), rng, torch.float32, scale=2.0)
    D.entropy_judge(softmax_entropy, ref.softmax_entropy(logits.double()), "softmax_entropy of a (2, 3, 5) tensor",
                    torch.float32, D.entropy_variants(logits.double()))(
        D.call_entropy(softmax_entropy, logits))
    D.check_entropy_dtype(softmax_entropy, randn((4, 6), rng, torch.float64, scale=2.0))   # "the same dtype"
    # one row, shape (T,): "(..., T) gives (...)", a 0-d tensor here
    D.check_entropy_one_row(softmax_entropy, randn((7,), rng, torch.float32, scale=2.0), submission)
    # size-one leading axes are kept: (3, 1, 6) gives (3, 1)
    D.check_entropy_size_one_axes(softmax_entropy, randn((3, 1, 6), rng, torch.float32, scale=2.0))


def _nan_cause(softmax_entropy) -> AssertionError:
    """Why softmax_entropy returned NaN, from a second call on reference.ENTROPY_PROBE: a row whose exp
    overflows float32 though no probability underflows (NaN there: exp of the raw logits), and one whose
    probabilities underflow to 0 though no exp overflows (NaN there: 0 * log 0). Either cause is blamed
    only when the same function is right on ordinary logits; the entropy of the raw scores (log of a
    negative score) is named from a probe of its own (D.raw_scores_entropy)."""
    said = "softmax_entropy returned NaN for a saturated row"
    named = D.raw_scores_entropy(softmax_entropy, True)
    if named is not None:
        return named
    if _entropy_wrong(softmax_entropy):
        return AssertionError(f"{said} (and it is wrong on ordinary logits too)")
    try:
        probe = call(softmax_entropy, ref.ENTROPY_PROBE.clone(), what="softmax_entropy")
    except StudentCodeError:
        return AssertionError(said)
    if type(probe) is not torch.Tensor or tuple(probe.shape) != (2,) or not probe.is_floating_point():
        return AssertionError(said)
    overflow, underflow = (not bool(torch.isfinite(probe[0])), bool(torch.isnan(probe[1])))
    if overflow and not underflow:
        return Misconception("entropy_exp_overflow", f"{said}, and also for large logits whose probabilities are "
                             f"all far from 0: {describe('entropy_exp_overflow')}")
    if underflow and not overflow:
        return Misconception("entropy_nan_saturated", f"{said}: {describe('entropy_nan_saturated')}{D.nan_guard_said()}")
    return AssertionError(f"{said} (both for large logits and for probabilities that underflow to 0)")


@test_case(points=1, hidden=True)
def test_entropy_saturated_rows(softmax_entropy, rng, submission=None):
    # rows 0, 2 saturated (all probabilities but one underflow); row 3: logits 85 and 45 (a clamp ties them, naming59);
    # row 4: two tied maxima, 0, the rest near -200 underflow: ln 2 (a NaN guarded after the row sum gives 0)
    logits = randn((5, 8), rng, torch.float32)
    logits[[0, 2, 3, 3], [3, 6, 2, 5]] += torch.tensor([300.0, 250.0, 85.0, 45.0])
    logits[4] -= 200.0
    logits[4, 1] = logits[4, 5] = 0.0
    got = assert_plain_tensor(D.call_entropy(softmax_entropy, logits), "softmax_entropy(logits)")
    if got.is_floating_point() and torch.isnan(got).any():
        raise D.shift_nan(got, logits, submission, softmax_entropy) or _nan_cause(softmax_entropy)
    D.raise_if_inf_saturated(softmax_entropy, got, _entropy_wrong)
    D.raise_if_unweighted_saturated(got, logits)
    D.entropy_judge(softmax_entropy, ref.softmax_entropy(logits.double()), "softmax_entropy(logits)", torch.float32,
                    D.entropy_variants(logits.double()))(got)


@test_case(points=1, hidden=True)
def test_entropy_views(softmax_entropy, rng):
    # logits (B, T, n) = (3, 5, 7): (n, T) memory seen as (T, n), expanded over the batch (stride 0);
    # one row of equal logits (ties: entropy log n) and two equal rows
    B, T, n = 3, 5, 7
    logits = randn((n, T), rng, torch.float32, scale=2.0).T
    logits[int(torch.randint(0, T, (1,), generator=rng))] = 0.5
    i, j = (int(x) for x in torch.randperm(T, generator=rng)[:2])
    logits[j] = logits[i]
    logits = logits.expand(B, T, n)
    L64 = logits.double()
    args = TensorArgs({"logits": logits}, {"n": {"logits": -1}, "T": {"logits": -2}})
    try:
        check_value(softmax_entropy, args, ref.softmax_entropy(L64), reference=ref.softmax_entropy,
                    what="softmax_entropy of transposed, expanded logits", name="softmax_entropy",
                    judge=D.entropy_judge(softmax_entropy, ref.softmax_entropy(L64), "softmax_entropy of transposed, "
                                          "expanded logits", torch.float32, D.entropy_variants(L64)))
    except StudentCodeError as e:
        raise (D.entropy_crash(softmax_entropy, e, tuple(logits.shape)) or e) from None


def _table(rows, dims):
    if not isinstance(rows, (list, tuple)):
        raise AssertionError(f"entropy_table should return a list of dicts, got {type(rows).__name__}")
    if len(rows) != len(dims):
        raise AssertionError(f"entropy_table should return one row per d: {len(dims)} rows, got {len(rows)}")
    D.raise_if_index_as_d(rows, dims)
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise AssertionError(f"row {i} of entropy_table should be a dict, got {type(row).__name__}")
        missing = [k for k in ref.ENTROPY_TABLE_KEYS if k not in row]
        if missing:
            D.raise_if_key_misspelled(row, missing, i)
            raise AssertionError(f"row {i} of entropy_table is missing the key(s) {missing}")
        for key in ref.ENTROPY_TABLE_KEYS:
            value = row[key]
            if isinstance(value, torch.Tensor) and value.numel() == 1:
                row[key] = value = value.item()
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise AssertionError(f"row {i}, key {key!r} should be a number, got {type(value).__name__}")
        if int(row["d"]) != dims[i]:
            raise AssertionError(f"row {i} should be for d = {dims[i]}, got d = {row['d']}")
    return ref.table_as_tensor(rows)


def _raise_if_columns(rows, dims, expected) -> None:
    """A dict of columns (one list per key) where a list of rows is asked, named when turning it into rows
    gives the right table."""
    if not isinstance(rows, dict) or not all(isinstance(rows.get(k), (list, tuple)) for k in ref.ENTROPY_TABLE_KEYS):
        return
    if any(len(rows[k]) != len(dims) for k in ref.ENTROPY_TABLE_KEYS):
        return
    as_rows = [{k: rows[k][i] for k in ref.ENTROPY_TABLE_KEYS} for i in range(len(dims))]
    try:
        table = _table(as_rows, dims)
    except AssertionError:
        return
    if matching_variants(table, {"right": expected}, torch.float32):
        raise Misconception("table_dict_of_lists", "entropy_table returns a dict of columns (one list per key); as "
                            "one dict per d its values are right: " + describe("table_dict_of_lists"))


def _entropy_wrong(softmax_entropy) -> bool:
    """Whether the student's softmax_entropy is wrong on the lesson's kind of input, 5 float32 scores."""
    raw = torch.tensor([0.3, -1.2, 2.5, 0.0, 0.7])
    try:
        got = softmax_entropy(raw.clone())
    except StudentCodeError:
        return True
    want = ref.softmax_entropy(raw.double())
    return not (type(got) is torch.Tensor and tuple(got.shape) == () and got.is_floating_point()
                and abs(float(got) - float(want)) <= 1e-5)


def _check_table(fn, softmax_entropy, dims, seed, passed, numbers=False, submission=None):
    """entropy_table calls the student's softmax_entropy: a table wrong only through it (the lesson's table with
    their softmax_entropy) is charged by its own tests. `numbers`: a table of right values in tensors fails too."""
    expected = ref.table_as_tensor(ref.entropy_table(dims, seed))
    def variants():   # only for a wrong table (assert_matches calls it then): most of a right one's time
        return {**{k: ref.table_as_tensor(v) for k, v in ref.entropy_table_variants(dims, seed).items()},
                **D.table_extra_variants(dims, seed)}

    def check(rows):
        D.raise_if_rows_discarded(rows, dims, submission)   # naming80: `rows + [row]` kept nowhere
        raise_if_records_malformed(rows, list(dims), "d", "entropy_table(...)")
        _raise_if_columns(rows, dims, expected)
        D.raise_if_other_dims(rows, dims, seed, fn, softmax_entropy)    # rows for other d's than asked: which, whose
        table = _table(rows, dims)
        try:
            assert_matches(table, expected, what="the entropy table (raw_std, scaled_std, H_raw, H_scaled)",
                           variants=variants)
        except Misconception as m:
            raise D.table_scaled_std_said(D.table_swap_said(m, table, dims, seed), table, dims, seed) from None
        except AssertionError:
            # what nothing above names: a std column squared, or every row drawn at another seed
            D.raise_if_column_squared(table, expected)
            D.raise_if_one_score_table(table, dims, seed, submission)   # one score per d: which axis, from the source
            D.raise_if_table_scale(table, expected, dims, seed)
            D.raise_if_rounded_or_sliced(table, expected, dims, seed)
            D.raise_if_key_count(table, expected, dims, seed)
            D.raise_if_reseeded(table, dims, seed, lambda s: _table(call(fn, dims=dims, seed=s, what="entropy_table"),
                                                                   dims), submission)
            raise

    def own():
        return ref.entropy_table(dims, seed, entropy=softmax_entropy)

    tensors: set[str] = set()

    def student():
        rows = call(fn, **passed, what="entropy_table")
        tensors.update(D.tensor_values(rows))    # before check(), which reads them as numbers
        return rows

    try:
        with D.scale_as_written(submission, "entropy_table"):     # d ** -1/2 told as written
            charged_in_parts(student, check, own, parts=(softmax_entropy,))
    except StudentCodeError as e:
        D.raise_if_table_container(e, dims)
        # a crash where their softmax_entropy cannot even be composed into the table (it returns one value
        # per entry, not one per row, and .item() fails): its own tests charge that
        if not is_stub(e) and _entropy_wrong(softmax_entropy) and (
                D.fails(own) or D.float_has_no_item(e, softmax_entropy)):
            return charged_elsewhere((softmax_entropy,), e)     # held unless a test of softmax_entropy fails (round 77)
        raise (D.table_unpack_crash(e) or D.table_count_crash(e, fn, dims, seed, submission, _table) or e) from None
    except AssertionError:   # called with its defaults: right with the notebook's passed explicitly?
        D.raise_if_table_default_wrong(fn, dims, seed, expected, passed, lambda rows: _table(rows, dims))
        raise
    if numbers and tensors:
        raise Misconception("returns_tensor_not_number", f"the table's values for {sorted(tensors)} are tensors, not "
                            "Python numbers: " + describe("returns_tensor_not_number"))


@test_case(points=2, hidden=True)
def test_entropy_table_lesson(entropy_table, softmax_entropy, submission=None):
    # the lesson's own table: d in (4, 16, 64, 256), seed 0
    _check_table(entropy_table, softmax_entropy, (4, 16, 64, 256), 0, {}, submission=submission)


@test_case(points=1, hidden=True)
def test_entropy_table_other_dims_and_seed(entropy_table, softmax_entropy, rng, submission=None):
    seed = int(torch.randint(1, 1_000_000, (1,), generator=rng))
    for dims in ((12, 48, 100), (48, 100, 12, 1)):   # then out of order (rows follow dims), and d = 1 (naming66)
        _check_table(entropy_table, softmax_entropy, dims, seed, dict(dims=dims, seed=seed), True, submission)
