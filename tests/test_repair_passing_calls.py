"""Issue 21, a one-edit fix must be true (naming round 64): blind64's `entropy_table` looped `for i in range(4):` (the
default dims' length) where it must loop over `dims`; the 3-dims test crashed and the search told the student "`3` in
place of `4`", checked only on that test's input. With `range(3)` the 4-dims test, which passed, fails: a fix that
mends one failing test by breaking a passing one is no fix. The passing test's call was not among those the search
checked (the reference's table is not the student's to the search's tolerance, so only the failing call was asked).
Each fix is now also run on the calls the function's passing tests made, and must keep each right: the student's
own answer, the reference's, or that test rerun with the copy passes (autograder/grading/repair.py: _kept_right);
where no fix does, the failure keeps its own message.

Spellings of my own, not blind64's cell."""
from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest
import torch

from autograder.grading.grader import Grader
from autograder.grading.repair import KEY, name_by_one_edit
from tests.heldout.harness import grade_cells
from tests.test_repair import _Namespace, _report

ENTROPY = '''
def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)

'''
DRAWS = '''        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
'''

# a literal that fits the default dims (4 of them) and nothing else: its only one-edit "fix" (4 -> 3) mends the
# 3-dims test and breaks the default-dims one, which passes
FITS_THE_DEFAULT = {
    "range(4) over a helper's rows": ENTROPY + '''
def _row(d, seed):
    torch.manual_seed(seed)
    q = torch.randn(1, d); k = torch.randn(5, d)
    raw = (q @ k.T)[0]
    scaled = raw / d**0.5
    return {"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
            "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    return [_row(dims[j], seed) for j in range(4)]
''',
    "torch.zeros(4, 4) buffer of the stats": ENTROPY + '''
def entropy_table(dims=(4, 16, 64, 256), seed=0):
    stats = torch.zeros(4, 4)
    for i, d in enumerate(dims):
''' + DRAWS + '''        stats[i] = torch.stack([raw.std(), scaled.std(), softmax_entropy(raw), softmax_entropy(scaled)])
    return [{"d": dims[i], "raw_std": stats[i, 0].item(), "scaled_std": stats[i, 1].item(),
             "H_raw": stats[i, 2].item(), "H_scaled": stats[i, 3].item()} for i in range(stats.shape[0])]
''',
    "[None] * 4 rows filled in": ENTROPY + '''
def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = [None] * 4
    for i, d in enumerate(dims):
''' + DRAWS + '''        rows[i] = {"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                   "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}
    return rows
''',
}


@pytest.mark.parametrize("spelling", sorted(FITS_THE_DEFAULT))
def test_a_literal_fitting_only_the_failing_input_is_not_offered(grader: Grader, spelling: str) -> None:
    outcome = grade_cells(grader, "scaled-attention", {"entropy_table": FITS_THE_DEFAULT[spelling]}, "round64")
    assert outcome.score < outcome.max_score, spelling
    assert [(q, t) for q, t, _k, _m in outcome.failed] == [("q4", "test_entropy_table_other_dims_and_seed")], \
        outcome.failed                 # the default dims' test passes: the edit 4 -> 3 would break it
    for _q, _t, key, message in outcome.failed:
        said = message.split("\n", 1)[0]
        assert key != KEY and "in place of" not in said and "one change" not in said, (spelling, key, said)


def test_a_genuine_bound_slip_still_gets_its_edit(grader: Grader) -> None:
    cell = ENTROPY + '''
def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    for i in range(len(dims) - 1):
        d = dims[i]
''' + DRAWS + '''        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''
    outcome = grade_cells(grader, "scaled-attention", {"entropy_table": cell}, "round64")
    table = [(key, message) for q, t, key, message in outcome.failed if "table" in t]
    assert table and all(key == KEY and "`len(dims)` in place of `len(dims) - 1`" in message
                         for key, message in table), table


def _blind64_correct(name: str) -> dict[str, str]:
    path = Path(__file__).parent / "heldout" / "scaled-attention" / "blind64.py"
    spec = importlib.util.spec_from_file_location("blind64_scaled_attention", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dict(module.CORRECT[name])


@pytest.mark.parametrize("cells", [
    {"entropy_table": ENTROPY + '''
def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = [None] * len(dims)
    for i, d in enumerate(dims):
''' + DRAWS + '''        rows[i] = {"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                   "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}
    return rows
'''},
    "entropy_special_entr_table_inner_product_explicit_squeeze",
])
def test_correct_tables_keep_full_marks(grader: Grader, cells: Any) -> None:
    if isinstance(cells, str):
        cells = _blind64_correct(cells)
    outcome = grade_cells(grader, "scaled-attention", cells, "round64-correct")
    assert outcome.full_marks, outcome.failed


# unit level: a passing test's call that no reference answer checks (here the reference refuses the square input the
# passing test gives), so the search's own checks never see it; the fix must still answer it as the student did
def _row_means(X: torch.Tensor) -> torch.Tensor:
    if X.shape[0] == X.shape[1]:
        raise NotImplementedError("the reference refuses square inputs")
    return X.mean(dim=-1)


def _named(cell: str, name: str, calls: list[tuple[tuple[str, str], torch.Tensor, bool]]) -> list[Any]:
    space = _Namespace(cell)
    reports = []
    for test, X, passed in calls:
        space.recorded.test = test
        try:
            answer = space.ns[name](X)
        except Exception as e:  # noqa: BLE001 - recorded as the proxy would
            answer = e
        space.recorded.add(name, (X,), {}, answer)
        reports.append(_report(*test, status="passed" if passed else "failed"))
    return name_by_one_edit(reports, space, {name: _row_means}, [space.cell])


def _square(n: int) -> torch.Tensor:
    x = torch.randn(n, n, generator=torch.Generator().manual_seed(n), dtype=torch.float64)
    return x + x.T              # symmetric: its row means are its column means


def test_unit_a_fixed_buffer_size_that_breaks_a_passing_call_is_not_said() -> None:
    cell = ("def row_means(X):\n"
            "    out = torch.zeros(4, dtype=X.dtype)\n"
            "    for i in range(X.shape[0]):\n"
            "        out[i] = X[i].mean()\n"
            "    return out\n")
    wide = torch.randn(3, 5, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    out = _named(cell, "row_means", [(("q1", "lesson"), _square(4), True), (("q1", "other"), wide, False)])
    failed = [r for r in out if r.status == "failed"]
    assert failed and all(r.misconception is None and r.message == "does not match" for r in failed), \
        [(r.misconception, r.message) for r in failed]


def test_unit_a_genuine_axis_slip_that_keeps_the_passing_call_is_said() -> None:
    cell = ("def row_means(X):\n"
            "    return X.mean(dim=0)\n")
    wide = torch.randn(3, 5, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    out = _named(cell, "row_means", [(("q1", "lesson"), _square(4), True), (("q1", "other"), wide, False)])
    failed = [r for r in out if r.status == "failed"]
    assert failed and all(r.misconception == KEY for r in failed), [(r.misconception, r.message) for r in failed]
    assert "in place of `0`" in failed[0].message, failed[0].message
