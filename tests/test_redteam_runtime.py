"""Red-team round 25: what a notebook can do at run time, inside its worker, to how it is graded.

- The worker's own checks (the in-place check, the forbidden-API guard, the timed calls) run in the
  student's interpreter: a cell that imports `autograder` and replaces `calls._same_tensor` hid every
  in-place write (inplace_on_input.ipynb, 19/35, scored 33/35). A notebook that reaches for the grader's
  package, the module table, the garbage collector's object lists, class or function internals or stack
  frames is now rejected, the spelling named (source_checks.reaches_into_grader; the spellings are unit-
  tested in tests/test_source_checks.py).
- charged_in_parts' excuse (a composite wrong only through the student's earlier answers) was evidence
  from the student's own stages, which recognised the grader's re-run: a self_attention returning zeros
  scored 42/42. The excuse now stands only where an earlier answer's own test fails
  (runner.hold_excuses; the rule is unit-tested in tests/test_charged_in_parts.py)."""
from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from tests.conftest import ROOT

EXAMPLES = ROOT / "examples" / "submissions"


def _with_cell(src: Path, code: str, dest: Path, replace_prefix: str | None = None) -> Path:
    nb = nbformat.read(src, as_version=4)
    if replace_prefix is None:
        nb.cells.append(nbformat.v4.new_code_cell(code))
    else:
        cell = next(c for c in nb.cells if c.cell_type == "code" and c.source.startswith(replace_prefix))
        cell.source = code
    nbformat.write(nb, dest)
    return dest


@pytest.mark.parametrize("patch", [
    "import autograder.sandbox.calls as _c\n_c._same_tensor = lambda a, b: True",
    "import sys\n_c = sys.modules['autograder.sandbox.calls']\n_c._same_tensor = lambda a, b: True",
    "import gc\nfor _o in gc.get_objects():\n    pass",
], ids=["import", "module-table", "gc-objects"])
def test_a_notebook_that_reaches_into_the_grader_is_rejected_in_words(tmp_path, grader, patch):
    path = _with_cell(EXAMPLES / "sdpa-from-scratch" / "inplace_on_input.ipynb", patch, tmp_path / "patched.ipynb")
    r = grader.grade(path, "sdpa-from-scratch", seed=5)
    assert r.status == "rejected" and r.score == 0, (r.status, r.score)
    assert "reaches into the grader's own code" in r.message and "code cell" in r.message, r.message


def test_the_same_notebook_without_the_patch_is_charged_as_before(tmp_path, grader):
    r = grader.grade(EXAMPLES / "sdpa-from-scratch" / "inplace_on_input.ipynb", "sdpa-from-scratch", seed=5)
    assert r.status == "graded" and "inplace_on_input" in {t.misconception for t in r.tests}


PROBE = '''_seen = {"last": None, "probe": False}

def _fp(*ts):
    return tuple((tuple(t.shape), str(t.dtype), float(t.double().sum())) for t in ts)

def self_attention(X, W_Q, W_K, W_V, causal=True):
    _seen["last"] = _fp(X, W_Q, W_K, W_V)
    T = X.shape[-2]
    return (torch.zeros(*X.shape[:-1], W_V.shape[-1], dtype=X.dtype),
            torch.zeros(*X.shape[:-1], T, dtype=X.dtype))

def project_qkv(X, W_Q, W_K, W_V):
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    if _seen["last"] is not None and _fp(X, W_Q, W_K, W_V) == _seen["last"]:
        _seen["probe"] = True
        return Q, K, torch.zeros_like(V)
    return Q, K, V

def attention_weights(S, M=None):
    if _seen["probe"]:
        _seen["probe"] = False
        return torch.zeros_like(S)
    if M is not None:
        S = S + M
    return torch.softmax(S, dim=-1)
'''


def test_stages_that_lie_only_in_the_grader_rerun_excuse_nothing(tmp_path, grader):
    path = _with_cell(EXAMPLES / "attention-pipeline" / "full_marks.ipynb", PROBE, tmp_path / "probe.ipynb",
                      replace_prefix="def self_attention")
    r = grader.grade(path, "attention-pipeline", seed=11)
    stages = [t.name for t in r.tests if t.question in ("q01", "q02", "q03", "q04", "q05", "q06")
              and t.status == "failed"]
    q07 = [t for t in r.tests if t.question == "q07"]
    assert not stages and q07 and all(t.status == "failed" for t in q07 if t.max_score), \
        (r.score, [(t.name, t.status) for t in q07])


# --- what the student's words can put into results.json ---------------------------------------------------
def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


@pytest.mark.parametrize("cell, replace", [
    ('raise RuntimeError("x \\ud800 y\\n\\nScore 35 / 35.")', None),                       # a cell's error
    ('def stable_softmax(x, dim=-1):\n    raise ValueError("\\x1b[2J\\x07 \\u202e53 / 53 :erocS")\n',
     "def stable_softmax"),                                                               # a test's message
    ('def stable_softmax(x, dim=-1):\n    raise ValueError("fine\\u2028Score: 35 / 35\\x85")\n', "def stable_softmax"),
], ids=["cell-error", "test-message", "line-separators"])
def test_results_json_holds_no_unshown_character_and_no_line_of_the_students(tmp_path, grader, cell, replace):
    """Red-team round 25: Gradescope's results.json (`grade --results`, run_autograder) wrote a student's
    exception as it was: a lone surrogate (no UTF-8 can hold it), ESC/BEL and a right-to-left override,
    and a cell error's second line ("Score 35 / 35.") under the real score. The reports make every
    student-derived string inert where they are built (results.py), so every output reads it so."""
    import json
    import re

    from autograder.course.outputs import results_text
    path = _with_cell(EXAMPLES / "sdpa-from-scratch" / "full_marks.ipynb", cell, tmp_path / "words.ipynb", replace)
    result = grader.grade(path, "sdpa-from-scratch", seed=3)
    text = results_text(result, grader.course.config.visibility)
    text.encode("utf-8")                                      # strict: no lone surrogate survives
    unsafe = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069"
                        "\ud800-\udfff]")
    data = json.loads(text)
    assert not [s for s in _strings(data) if unsafe.search(s)]
    # the summary's own first line says the score of the tests shown now (red-team round 89: not the total while tests
    # wait); no line of the student's says a score
    assert data["output"].startswith("Score on the tests shown now: ")
    assert not any(re.findall(r"^\s*Score:? 35 / 35", s, re.M) for s in _strings(data))
