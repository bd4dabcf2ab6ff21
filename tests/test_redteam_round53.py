"""Red-team round 53 (each test fails before its gap is closed).

The trusted process's folding of student numbers (sdpa-from-scratch `_diagnose._const_eval`, used by
`name_shift_precedence` from q8's test_attn_entries and test_score_madds): a shift or a power is bounded (2^20000),
but `*`, `//` and `%` of the values the cell's earlier lines bound are not. A q8 cell whose counts are wrong by one
and which then (after a `1 / 0` the worker stops at, so the worker never computes them) squares `1 << 20000` a dozen
times and floor-divides (CPython 3.11's long division is quadratic) spends the grader's CPU until the test's
`limits.check_cpu_s` stops it: 60 s of the grader's CPU for one small notebook (full marks: 0.5 s), and without any
bound where tests run off the main thread (cpu_budget is main-thread only: a batch run on threads of one grader)
(/tmp/rt53/bigdiv_q8.ipynb).
"""
from __future__ import annotations

import time

from tests.hidden_modules import load

diag = load("sdpa-from-scratch", "_diagnose", "_test_redteam_round53_diagnose")


def _sub(*cells):
    from autograder.grading.runner import SubmissionInfo
    return SubmissionInfo(source="\n".join(cells), cells=tuple(cells))


def _folded_division(k: int) -> str:
    """Counts wrong by one, then lines the worker never runs (it stops at 1 / 0) but the grader folds."""
    return ("attn_entries = 1024 ** 2 + 1\nscore_madds = 1024 * 1024 * 64 + 1\ncost_ratio = 4\n1 / 0\n"
            "a = 1 << 20000\n" + "a = a * a\n" * k + "h = 1 << 20000\n" + "h = h * h\n" * (k - 1)
            + "c = a // (h - 1)\n")


def test_q8_count_naming_does_not_fold_huge_products_and_divisions():
    cell = _folded_division(7)          # a ~2.5 Mbit by ~1.3 Mbit division: ~2 s of CPU in one C call today
    start = time.process_time()
    try:
        diag.name_count_overflowed(1024 ** 2 + 1, "attn_entries", _sub(cell))
    except AssertionError:
        pass                            # a failure said in words is fine; the cost is the point
    spent = time.process_time() - start
    assert spent < 0.5, (f"naming a wrong q8 count folded the cell's big-int arithmetic in the grader: {spent:.1f} s "
                         "of the grader's CPU for one test (bound * // % like << and **)")


# --- the one-edit search's printing in the grader ---------------------------------------------------------------
# repair._edits_of prints the edited statement back (ast.unparse, _Printed.source) for each of up to 800 edits per
# function; a def just under MAX_SOURCE_CHARS whose one statement is a dense list `[x*2-1, x*2-1, ...]` makes each
# print ~1000 nodes: about 6 s of the grader's CPU per function, outside any test's cpu_budget. Three such defs in
# sdpa-from-scratch, each wrong by an unnamed slip: 15.7 s of the grader's CPU for the grade, against 1.7 s for the
# same slips unpadded and 0.5 s for full marks (/tmp/rt53/search_pad.ipynb, /tmp/rt53/search_nopad.ipynb).
PADDED_SOFTMAX = ("def stable_softmax(x, dim=-1):\n    shifted = x - x.max(dim=dim, keepdim=True).values\n"
                  "    junk = [" + ",".join("x*2-1" for _ in range(960)) + "]\n"
                  "    exps = torch.exp(shifted)\n    return exps / exps.sum(dim=dim, keepdim=True) + 0.01\n")


def test_one_edit_search_of_a_padded_def_is_cheap_in_the_grader():
    from autograder.grading import repair
    assert len(PADDED_SOFTMAX) < repair.MAX_SOURCE_CHARS
    start = time.process_time()
    repair._own_edits([PADDED_SOFTMAX], "stable_softmax", "_rt53_copy_")
    spent = time.process_time() - start
    assert spent < 1.5, (f"making one def's one-edit copies cost {spent:.1f} s of the grader's CPU (a {len(PADDED_SOFTMAX)}"
                         "-char def, one wide statement printed again for each edit): bound the printing, not only "
                         "the number of edits")


# --- get_ipython()'s stand-in runs a string the static rules never read -----------------------------------------
# worker.IPythonStandIn.run_cell_magic("capture", "", code) execs `code` in the notebook's namespace, as exec() does,
# but the static rules fail closed only on exec/eval/compile (source_checks.DYNAMIC_NAMES): a stable_softmax that
# calls a helper defined from a string built at run time (torch's softmax inside) gets 35 / 35, test_no_builtin_softmax
# included; the same notebook with exec(_code) gets 33 / 35, the rule failing closed
# (/tmp/rt53/ipython_hidden_softmax.ipynb, /tmp/rt53/exec_hidden_softmax.ipynb).
HIDDEN_SOFTMAX = ('_code = "def _h(x, dim):\\n    return torch.nn.functional." + "soft" + "max(x, dim=dim)\\n"\n'
                  'get_ipython().run_cell_magic("capture", "", _code)\n'
                  "def stable_softmax(x, dim=-1):\n    return _h(x, dim)\n")


def test_code_run_through_get_ipython_is_not_read_as_rule_abiding(tmp_path, grader):
    import nbformat
    from tests.conftest import ROOT
    nb = nbformat.read(ROOT / "examples" / "submissions" / "sdpa-from-scratch" / "full_marks.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code" and c.source.startswith("def stable_softmax"))
    cell.source = HIDDEN_SOFTMAX
    path = tmp_path / "ipython_hidden_softmax.ipynb"
    nbformat.write(nb, path)
    r = grader.grade(path, "sdpa-from-scratch", seed=53)
    rule = {t.name: t.score for t in r.tests if t.name == "test_no_builtin_softmax"}
    assert rule and not any(rule.values()), (
        f"a stable_softmax whose helper is torch's softmax, defined through get_ipython().run_cell_magic from a "
        f"string, earned the no-built-in-softmax rule ({rule}; total {r.score} / {r.max_score}): exec() there fails it")


# --- the one-edit search's reading of a large notebook ------------------------------------------------------------
# source_checks.cells_assigning_globally parses once (_parsed) but walks every module-level node of every cell on each
# call; the one-edit search asks it dozens of times per grade (repair._picked_by_position ->
# assigned_from_string_index, _name_by_value_edits, helper_blame.blame_helpers: 63 calls for one notebook). A notebook
# within intake's limits holding 460 KB of plain data (`_ = [0,0,...]` lines) beside three unnamed slips took 22.6 s
# of the grader's CPU, against 1.85 s for the same slips without the data (/tmp/rt53/bulk_nodes.ipynb,
# /tmp/rt53/search_nopad.ipynb), none of it inside a test's cpu_budget.
def test_asking_where_names_are_assigned_does_not_rewalk_a_large_notebook():
    from autograder.grading import source_checks as sc
    line = "_ = [" + ",".join("0" for _ in range(2000)) + "]\n"
    cells = [line * 115, "weights3 = 1\n", "out3 = 2\n"]
    sc._parsed(tuple(cells))                                   # the one parse, not counted
    start = time.process_time()
    for k in range(20):
        sc.cells_assigning_globally(cells, f"name_{k}")
    spent = time.process_time() - start
    assert spent < 1.0, (f"20 look-ups of where a name is assigned in a 460 KB notebook cost {spent:.1f} s of the "
                         "grader's CPU (each walks every node again): index the bindings once per parse")
