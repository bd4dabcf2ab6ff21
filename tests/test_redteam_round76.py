r"""Red-team round 76: today's changes to the trusted side, read with a student's bytes (the similarity page's new
tokenizer: every binding form followed, in the instructor's process, for the whole class).

Repros in /tmp/rt76/ (sim_quad.py, sim_queue3.py; OLD=1 runs the code as found, HEAD's similarity.py). `extract`
runs in the grader's own process for every notebook of a batch, after grading, with no time bound of its own: a
notebook that makes it slow holds the class's similarity page (and the batch's end) for everyone.

- **One value walked once per target.** Round 72 follows every binding form: each name a statement binds is kept
  when its value reads a definition (`_reads_definition`, a walk of the value). `a0, ..., aN = 0, ..., 0` (also a
  for's targets, `a = b = ... = v`) walked the same value once per target, N walks of N nodes: a 39 KB cell of 4000
  names cost 21 s (for: 14 s, a chain: 19 s), growing as the square. Measured: sim_quad.py, OLD=1 against now.
  Now: one answer per value node, per cell (it is the walk's own: the value is read before any target is bound; a
  target bound after True only adds to what is defined, after False only removes): 0.06 s.
- **One statement's lines cut once per name.** The graded function's helpers are followed by name, each cut from its
  cell's lines and joined (then refused as too long), and every name looked up in a list of those refused:
  3000 names bound by one chain `aa = ab = ... = (g, 0, ...)` of 100,000 lines, all read by the graded `f`, cost
  13 s of CPU for a 327 KB notebook (75 s for 1.3 MB; linear in each). Measured: sim_queue3.py, process CPU time.
  Now: each name taken once (a set), each node's lines cut once (by its id, alive in `defs`), the queue a deque:
  0.34 s.
- **A classmate, sid and all, in a copier's own name.** Round 72 shows each person as `name (sid ...)` and a
  submission's people joined with `, ` (a group). A Gradescope name is the student's own: Mallory (sid 1003), named
  `Alice Smith (sid 1002), Mallory Jones`, copies Carol; the flagged pair read `submission_3 (Alice Smith (sid 1002),
  Mallory Jones (sid 1003))`, the real Alice with her real sid in the copier's group (/tmp/rt76/forge_name.py, the
  page's row). Now a name or id holding `(`, `)`, `,` or `"` is shown quoted, its quotes escaped
  (`exports._one_person`): `"Alice Smith (sid 1002), Mallory Jones" (sid 1003)`.
- **One notebook took the similarity page from the whole class.** Round 72's binding forms (a for's, a with's, a
  case's, a walrus's name) yield names without the MAX_NAME check the def and assignment forms have; a helper so
  bound with a 250-character name and read by the graded function (`for hhh...h in [causal_mask]: pass`, then a
  wrapper `causal_mask` whose body reads it: the notebook runs and grades as before) reached `StoredFunction`, whose
  ValidationError left `extract_file` (its guard covers reading the notebook only), and `batch` wrote "similarity
  report not written: ValidationError" and no page: Carol's and Dan's 0.963 copy unlisted with Mallory's
  (/tmp/rt76/class_page.py, OLD=1). Now such a name is not followed (no graded name is that long), and extract_file
  turns anything extract raises into a note for that notebook: the page is written, Mallory's copy scored 0.904.
- **A line separator in a comment hid a copy** (older than today's changes, met while testing them). `extract` cut
  each function from `cell.splitlines()`, which also ends a line at U+2028, U+2029, U+0085, \x0b, \x0c and
  \x1c-\x1e; Python does not, and the tree's line numbers are Python's. One `# note\u2028` comment atop the copied
  cell (or one at the end of every line) cut every function from the wrong lines: the copy scored 0.0 against its
  original (0.963 plain), for each of the eight characters (/tmp/rt76/lsep.py, OLD=1). The notebook runs as before.
  Now the cell's lines end where Python's do (`\n`, `\r\n`, `\r`), and `normalise` numbers its spans by the lines
  tokenize reads: 0.963 for each.
"""
from __future__ import annotations

import keyword
import string
import time

import nbformat

from autograder.course import similarity as sim


def _write_notebook(path, cells: list[str]) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nbformat.write(nb, str(path))


def test_a_value_shared_by_many_targets_is_walked_once(monkeypatch, tmp_path):
    names = [f"a{i}" for i in range(4000)]
    cells = ["def f(x):\n    return x\n",
             f"{', '.join(names)} = {', '.join('0' for _ in names)}\n",   # nothing read: every target unbound
             f"for {', '.join(names)} in [({', '.join('0' for _ in names)},)]:\n    pass\n",
             " = ".join(names) + " = [0]\n",
             "g, h = f, 0\n"]                                            # reads a def: both kept (as before)
    walked: list[int] = []
    real = sim._reads_definition

    def counted(bound, defs):
        walked.append(1)
        return real(bound, defs)

    monkeypatch.setattr(sim, "_reads_definition", counted)
    path = tmp_path / "many_targets.ipynb"
    _write_notebook(path, cells)
    start = time.process_time()
    stored = sim.extract_file(path, ["f", "g", "h"])
    spent = time.process_time() - start
    # one walk per statement's value (three statements of 4000 targets, one of two), never one per target
    assert len(walked) <= 10, len(walked)
    assert spent < 10, spent        # 21 s + 14 s + 19 s as found; 0.2 s now
    assert {f.name for f in stored.functions} == {"f", "g", "h"}


def test_one_statement_binding_thousands_of_helpers_is_cut_once(tmp_path):
    pool = [a + b for a in string.ascii_letters for b in string.ascii_letters + string.digits]
    helpers = [n for n in pool if not keyword.iskeyword(n) and n not in sim._BUILTINS][:3000]
    chain = " = ".join(helpers) + " = (g,\n" + "0,\n" * 100_000 + ")\n"   # each name: g, in a 300 KB statement
    cells = ["def g(x):\n    return x\n", chain, f"def f(x):\n    return [{', '.join(helpers)}]\n"]
    path = tmp_path / "helpers.ipynb"
    _write_notebook(path, cells)
    start = time.process_time()
    stored = sim.extract_file(path, ["f"])
    spent = time.process_time() - start
    assert spent < 4, spent          # 13 s of CPU as found, 0.4 s now
    assert [f.name for f in stored.functions] == ["f"]
    assert "too long to compare: aa, ab" in stored.note


def test_a_name_cannot_add_a_classmate_and_their_sid_to_a_submission(tmp_path):
    from autograder.config import find_course
    from autograder.course.exports import Student, discover
    from tests.conftest import ROOT
    from tests.test_redteam_round72 import FIXTURES, SLUG, _gradescope_class, copied
    course = find_course(ROOT)
    names = sim.compared_names(course, SLUG)
    export = _gradescope_class(tmp_path / "export", [
        ("submission_1", "Carol Jones", "1001", (FIXTURES / "class" / "s07_where.py").read_text()),
        ("submission_2", "Alice Smith", "1002", (FIXTURES / "class" / "s01_einsum.py").read_text()),
        ("submission_3", "Alice Smith (sid 1002), Mallory Jones", "1003", copied())])
    found = discover(export, SLUG, tmp_path / "scratch")
    stored = {e.key: sim.extract_file(e.path, names) for e in found.entries}
    out = tmp_path / "out"
    out.mkdir()
    pairs = sim.write_report(stored, course, SLUG, out, found=found)
    assert set(pairs[0].keys) == {"submission_1", "submission_3"}
    page = (out / "similarity.html").read_text()
    row = page.split('<table id="pairs">', 1)[1].split("</tr>", 2)[1]
    assert "(Alice Smith (sid 1002), Mallory" not in row, row         # read as a group of two, Alice with her sid
    assert "&#34;Alice Smith (sid 1002), Mallory Jones&#34; (sid 1003)" in row, row
    # an ordinary name is shown as before; a quote in a name cannot close the quoting
    assert Student(name="Alice Smith", sid="1002").shown == "Alice Smith (sid 1002)"
    assert Student(name='X", "Alice', email="m@x").shown == '"X\\", \\"Alice" (m@x)'


def test_a_long_helper_name_neither_hides_a_copy_nor_removes_the_class_page(tmp_path):
    from autograder.config import find_course
    from autograder.course.exports import discover
    from tests.conftest import ROOT
    from tests.test_redteam_round72 import FIXTURES, SLUG, _gradescope_class, copied, template_cells
    course = find_course(ROOT)
    long = "h" * 250
    trick = (copied() + f"\nfor {long} in [causal_mask]:\n    pass\n\n_causal_mask = causal_mask\n\n"
             f"def causal_mask(*args, **kwargs):\n    {long}\n    return _causal_mask(*args, **kwargs)\n")
    export = _gradescope_class(tmp_path / "export", [
        ("submission_1", "Carol Jones", "1001", (FIXTURES / "class" / "s07_where.py").read_text()),
        ("submission_2", "Dan Brown", "1002", copied()),
        ("submission_3", "Mallory Jones", "1003", copied())])   # its notebook replaced below
    _write_notebook(export / "submission_3" / f"{SLUG}.ipynb", [*template_cells(), trick])
    found = discover(export, SLUG, tmp_path / "scratch")
    out = tmp_path / "out"
    out.mkdir()
    warnings: list[str] = []
    pairs = sim.write_batch_similarity(found.entries, course, SLUG, out, found=found, warnings=warnings)
    assert not warnings, warnings                      # "similarity report not written: ValidationError ..."
    assert (out / "similarity.html").exists()
    scores = {tuple(sorted(p.keys)): p.score for p in pairs}
    assert scores.get(("submission_1", "submission_2"), 0) > 0.9
    assert scores.get(("submission_1", "submission_3"), 0) > 0.8, scores   # the copy itself is still compared


def test_a_line_separator_in_a_comment_does_not_hide_a_copy():
    from autograder.config import find_course
    from tests.conftest import ROOT
    from tests.test_redteam_round72 import SLUG, copied, template_cells, victim
    course = find_course(ROOT)
    names = sim.compared_names(course, SLUG)
    boilerplate = sim.class_boilerplate(course, SLUG, names)

    def score(cells: list[str]) -> float:
        docs = [sim.fingerprint(k, sim.extract(c, names), boilerplate, names) for k, c in (("a", victim()), ("b", cells))]
        pairs, _ = sim.compare(docs, 0.0)
        return pairs[0].score if pairs else 0.0

    plain = score([*template_cells(), copied()])
    assert plain > 0.9
    for separator in ("\u2028", "\x0c", "\x1e", "\x85"):
        padded = "".join(f"# note{separator}\n" for _ in range(40)) + copied()
        assert score([*template_cells(), padded]) > plain - 0.01, repr(separator)     # 0.0 as found
    # a def after `\r` line ends is still cut from its own lines
    stored = sim.extract(["a = 1\rdef f():\r    return 2\r\n# c\u2028x\x0c\ndef g():\n    return 3\n"], ["f", "g"])
    assert [(f.name, f.line, f.source) for f in stored.functions] == [
        ("f", 2, "def f():\n    return 2\n"), ("g", 5, "def g():\n    return 3\n")]
