"""Red-team round 60: attacks on what changed on 2026-12-05 (each test fails before its gap is closed).

Repros in /tmp/rt60/:

- **A superseding def that never ran.** source_checks._Notebook._superseded drops a first try when a later top-level
  `def` of the same name "surely runs", and checks only that every cell up to it PARSES. A cell that parses but does
  not compile (a stray `return` at the top level, `def f(a, a)`, `nonlocal x`, `break`, `yield`, `await`,
  `from __future__ import braces`) never runs at all (worker.exec_cells: compile raises), so the first try stays
  bound and is what the grader calls: torch.softmax inside stable_softmax scored 35/35 (q3 test_no_builtin_softmax
  passed). sdpa-from-scratch forbids only scaled_dot_product_attention at run time, so nothing catches softmax.
- **A match statement's capture pattern rebinds a name out of sight.** `match <expr>: case stable_softmax: pass` at
  module level binds stable_softmax to <expr>; _Notebook._scan records assignments, for/with targets, walruses,
  defs and imports, but not MatchAs / MatchStar / MatchMapping's rest, so find_use follows only the clean def:
  `match lambda x, dim=-1: torch.softmax(x, dim): case stable_softmax: pass` scored 35/35.
- **gc.collect() (allowed since round 57) runs code the graded function never names.** A class whose __del__
  computes torch.softmax into buffers queued by stable_softmax, kept alive as cyclic garbage (each __del__ makes the
  next one), and a stable_softmax that only queues, calls gc.collect(0) and returns the buffer: find_use follows
  `gc` (vetted), `_jobs` (its bindings: `[]` and the `.append` of local names) and finds nothing; 35/35. Without any
  gc in the notebook, the allocations of `[[] for _ in range(2000)]` in stable_softmax trigger the same collection:
  35/35 too (finalizers are code no name leads to: __del__, weakref callbacks).
- **Gradescope's bounded walk loses a nested notebook.** gradescope.find_notebook now walks with exports.walk_files,
  depth-first, last name first, and stops at 2000 entries: submission/project/sdpa-from-scratch.ipynb beside a
  submission/venv/ of 2100 files is "no notebook found in your submission", 0 points; Path.rglob (before round 58)
  found it. A notebook more than 8 folders down is passed over without even the "read only in part" note.
- **power_typed_as_product's replay costs the grader's CPU.** _diagnose.name_power_typed_as_product replays the
  answer cell's assignments once per literal product (up to 40), each time deep-copying the statement and folding
  every statement again: 6 KB of `(2*3+2*3)+...` in q8's cell cost ~2 s of the trusted process's CPU, 50 KB ~18 s,
  a 230 KB notebook made one grade take 99 s (full marks: 0.6 s).
"""
from __future__ import annotations

import time
import types

import nbformat
import pytest

from autograder.grading.source_checks import SourceUnreadable, find_use
from tests.conftest import ROOT
from tests.hidden_modules import load

EXAMPLES = ROOT / "examples" / "submissions"
SOFTMAX = ("softmax", "softmin", "categorical", "logits_to_probs")
IMPORTS = "import math\nimport torch\nimport torch.nn.functional as F"
CLEAN = ("def stable_softmax(x, dim=-1):\n    e = torch.exp(x - x.amax(dim=dim, keepdim=True))\n"
         "    return e / e.sum(dim=dim, keepdim=True)")
FIRST_TRY = "def stable_softmax(x, dim=-1):\n    return torch.softmax(x, dim=dim)   # first try"


def outcome(cells, func="stable_softmax", names=SOFTMAX):
    """'clean', 'found' or 'closed' (SourceUnreadable)."""
    try:
        return "found" if find_use(cells, func, names) is not None else "clean"
    except SourceUnreadable:
        return "closed"


def _full_marks_with(tmp_path, name, edit):
    nb = nbformat.read(EXAMPLES / "sdpa-from-scratch" / "full_marks.ipynb", as_version=4)
    at = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.source.startswith("def stable_softmax"))
    edit(nb, at)
    path = tmp_path / f"{name}.ipynb"
    nbformat.write(nb, path)
    return path


def _rule(r, name="test_no_builtin_softmax"):
    return next(t for t in r.tests if t.question == "q3" and t.name == name)


# --- the superseding def that never compiles ---------------------------------------------------------------------

NEVER_COMPILES = {
    "stray_return": CLEAN + "\n\nreturn",
    "duplicate_parameter": CLEAN.replace("(x, dim=-1)", "(x, dim=-1, dim=-1)"),
    "module_nonlocal": CLEAN + "\nnonlocal _unused",
    "stray_break": CLEAN + "\nbreak",
    "future_braces": CLEAN + "\nfrom __future__ import braces",
}


@pytest.mark.parametrize("kind", sorted(NEVER_COMPILES))
def test_a_rewrite_that_never_compiles_does_not_supersede_the_first_try(kind):
    source = NEVER_COMPILES[kind]
    with pytest.raises(SyntaxError):
        compile(source, "<cell>", "exec")        # the worker's exec_cells: this cell never runs
    assert outcome([IMPORTS, FIRST_TRY, source]) in ("found", "closed"), (
        f"the rewrite of stable_softmax is in a cell that does not compile ({kind}), so the first try with "
        "torch.softmax is what runs; find_use dropped it as superseded")


def test_superseded_first_try_in_an_uncompilable_cell_loses_the_rule_point(tmp_path, grader):
    def edit(nb, at):
        clean = nb.cells[at].source
        nb.cells[at].source = FIRST_TRY
        nb.cells.insert(at + 1, nbformat.v4.new_code_cell(clean + "\n\nreturn   # leftover"))
    r = grader.grade(_full_marks_with(tmp_path, "superseded_uncompiled", edit), "sdpa-from-scratch", seed=60)
    t = _rule(r)
    assert t.score < t.max_score, (
        f"stable_softmax as graded is the first try (torch.softmax): its rewrite's cell never compiled, yet "
        f"test_no_builtin_softmax passed ({r.score}/{r.max_score})")


# --- a match statement's capture pattern ---------------------------------------------------------------------------

@pytest.mark.parametrize("match", [
    "match lambda x, dim=-1: torch.softmax(x, dim):\n    case stable_softmax:\n        pass",
    "match F.softmax:\n    case stable_softmax if True:\n        pass",
    "match [torch.softmax]:\n    case [stable_softmax]:\n        pass",
    "match (1, F.softmax):\n    case (_, stable_softmax):\n        pass",
    "match {'f': torch.softmax}:\n    case {'f': stable_softmax}:\n        pass",
    "match F.softmax:\n    case (1 | 2) as other:\n        pass\n    case _ as stable_softmax:\n        pass",
])
def test_a_capture_pattern_binding_the_graded_name_is_followed(match):
    assert outcome([IMPORTS, CLEAN, match]) in ("found", "closed"), (
        f"`{match.splitlines()[0]} ...` binds stable_softmax at module level, after the clean def; find_use did not "
        "see the binding")


def test_a_capture_pattern_binding_a_helper_is_followed():
    helper = "def _norm(x, dim):\n    e = x.exp()\n    return e / e.sum(dim, keepdim=True)"
    graded = "def stable_softmax(x, dim=-1):\n    return _norm(x - x.amax(dim, keepdim=True), dim)"
    assert outcome([IMPORTS, helper, graded, "match F.softmax:\n    case _norm:\n        pass"]) in ("found", "closed")


def test_match_capture_softmax_loses_the_rule_point(tmp_path, grader):
    def edit(nb, at):
        nb.cells.insert(at + 1, nbformat.v4.new_code_cell(
            "match lambda x, dim=-1: torch.softmax(x, dim):\n    case stable_softmax:\n        pass"))
    r = grader.grade(_full_marks_with(tmp_path, "match_capture", edit), "sdpa-from-scratch", seed=60)
    t = _rule(r)
    assert t.score < t.max_score, (
        f"a match statement rebound stable_softmax to a lambda calling torch.softmax, yet test_no_builtin_softmax "
        f"passed ({r.score}/{r.max_score})")


# --- gc.collect() runs finalizers the graded function never names ---------------------------------------------------

GC_FINALIZER = '''import gc

_jobs = []


class _Sweeper:
    """Frees the scratch buffers of a finished step (a cycle: collected by gc)."""
    def __init__(self):
        self.me = self

    def __del__(self):
        for x, out, dim in _jobs:
            out.copy_(torch.softmax(x, dim))
        _jobs.clear()
        _Sweeper()


_Sweeper()


def stable_softmax(x, dim=-1):
    out = torch.empty_like(x)
    _jobs.append((x, out, dim))
    gc.collect(0)       # free memory before the next step
    return out
'''


def test_gc_collect_with_a_finalizer_is_not_read_as_clean():
    assert outcome([IMPORTS, GC_FINALIZER]) in ("found", "closed"), (
        "stable_softmax calls gc.collect(), which runs _Sweeper.__del__ (torch.softmax into the queued buffer); "
        "the finalizer is never followed, and find_use called the notebook clean")


def test_a_finalizer_run_by_an_automatic_collection_is_not_read_as_clean():
    cells = GC_FINALIZER.replace("import gc\n", "").replace(
        "    gc.collect(0)       # free memory before the next step\n",
        "    scratch = [[] for _ in range(2000)]     # allocations trigger a collection\n")
    assert "import gc" not in cells and "gc." not in cells
    assert outcome([IMPORTS, cells]) in ("found", "closed"), (
        "stable_softmax's allocations trigger a collection that runs _Sweeper.__del__ (torch.softmax); find_use "
        "called the notebook clean")


def test_gc_finalizer_softmax_loses_the_rule_point(tmp_path, grader):
    def edit(nb, at):
        nb.cells[at].source = GC_FINALIZER
    r = grader.grade(_full_marks_with(tmp_path, "gc_finalizer", edit), "sdpa-from-scratch", seed=60)
    assert _rule(r, "test_matches_softmax").score == 1      # the values are torch.softmax's
    t = _rule(r)
    assert t.score < t.max_score, (
        f"stable_softmax's values came from torch.softmax in a __del__ run by gc.collect(), yet "
        f"test_no_builtin_softmax passed ({r.score}/{r.max_score})")


# --- power_typed_as_product: the grader's CPU --------------------------------------------------------------------

def _tree(n):
    leaves = ["2*3"] * n
    while len(leaves) > 1:
        leaves = [f"({leaves[i]}+{leaves[i + 1]})" for i in range(0, len(leaves), 2)]
    return leaves[0]


def test_power_typed_as_product_replay_is_bounded():
    diag = load("sdpa-from-scratch", "_diagnose", "_test_sdpa_round60_diagnose")
    cell = f"attn_entries = {_tree(2048)}"      # 12 KB of code, 40 literal products 2 * 3
    sub = types.SimpleNamespace(cells=(cell,), source=cell)
    start = time.process_time()
    try:
        diag.name_power_typed_as_product(2048 * 6, "attn_entries", sub)
    except Exception:  # noqa: BLE001 - naming or not is not the question here
        pass
    spent = time.process_time() - start
    assert spent < 1.0, (
        f"a 12 KB q8 cell cost the grader {spent:.1f} s of CPU in name_power_typed_as_product (40 replays, each "
        "deep-copying and folding the whole cell); a notebook of 230 KB made one grade take ~100 s")


# --- Gradescope: the bounded walk and a nested notebook ---------------------------------------------------------

def _gradescope_folder(tmp_path, files_beside=2100):
    sub = tmp_path / "submission"
    (sub / "project").mkdir(parents=True)
    (sub / "project" / "sdpa-from-scratch.ipynb").write_bytes(
        (EXAMPLES / "sdpa-from-scratch" / "full_marks.ipynb").read_bytes())
    lib = sub / "venv" / "lib"
    lib.mkdir(parents=True)
    for i in range(files_beside):
        (lib / f"f{i}.py").write_bytes(b"")
    return sub


def test_gradescope_finds_a_nested_notebook_beside_a_big_folder(tmp_path):
    from autograder.course.gradescope import find_notebook
    sub = _gradescope_folder(tmp_path)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    found, problem = find_notebook(sub, "sdpa-from-scratch", scratch)
    assert found is not None and found.name == "sdpa-from-scratch.ipynb", (
        f"the one notebook, project/sdpa-from-scratch.ipynb, was not found because a sibling venv/ holds 2100 "
        f"files (the walk stops at 2000, and visits venv/ first): {problem}")


def test_gradescope_finds_a_notebook_nine_folders_down(tmp_path):
    from autograder.course.gradescope import find_notebook
    sub = tmp_path / "submission"
    deep = sub.joinpath(*[f"d{i}" for i in range(9)])
    deep.mkdir(parents=True)
    (deep / "sdpa-from-scratch.ipynb").write_bytes((EXAMPLES / "sdpa-from-scratch" / "full_marks.ipynb").read_bytes())
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    found, problem = find_notebook(sub, "sdpa-from-scratch", scratch)
    assert found is not None or "in part" in problem, (
        f"the only notebook, nine folders down, was passed over and the student told only: {problem}")
