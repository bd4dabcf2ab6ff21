"""Red-team round 72: students against each other through the instructor's tools after grading (the similarity page).

Repros in /tmp/rt72/ (hide.py scores a copy of a classmate's notebook against the original with each trick). The
copy is the similarity fixture's copied_from_s07 (0.979 against s07_where; grading.yml flags from 0.5, lists from
0.2): each trick below keeps the code the notebook runs the same and hid the copy.

- **Look-alike letters.** Python reads identifiers after NFKC normalisation (PEP 3131), so `𝐭orch.𝐦atmul(...)`,
  `𝐥en(x)` and `𝐝im=-1` (MATHEMATICAL BOLD letters) run as `torch.matmul`, `len` and `dim`; `normalise` kept
  each token as written, so every attribute, builtin, import and keyword argument became another token (or a
  placeholder): 0.979 -> 0.059. Now: a name token is NFKC-normalised first, as Python does.
- **Statements joined with `;`.** `d = Q.shape[-1]; s = ...` ran as the lines it joined, but `;` was a token where
  the line's end was another: 0.979 -> 0.880 (on top of whatever else a copy does). Now: `;` is a line's end, as
  for Python.
- **The graded name bound by something other than a def.** extract read only cells holding "def" or "import", and
  followed only `name = other` and `name = wrap(other)`: the copy under other names (`my_causal_mask`, ...) with
  `causal_mask = my_causal_mask` in a cell of its own, or `= lambda *a, **k: my_...(*a, **k)`, `for causal_mask in
  [my_causal_mask]: pass`, `(causal_mask := my_causal_mask)`, or a class whose `__call__` holds the code, left the
  template's stubs as the graded functions: 0.979 -> 0.0 (the pair not listed at all). Now every cell is read, a
  class is a definition like a def, and a graded name bound by any other statement that reads a definition (or
  holds a lambda) is compared as that statement's source with the definitions it reads.
- **One dead name renumbers every name after it.** Placeholders were numbered by first use in the function, and the
  exact fingerprints hashed those numbers: `_unused = 0` as the first line of each copied function shifted every
  later local's number, 0.979 -> 0.297 (a dead line after every assignment: 0.348). Now a local name is hashed as how
  far back inside its K-token run the same name was last used (0: not in the run), a parameter by its place in the
  header: 0.969 and 0.780. Honest pairs' highest score went from 0.165 to 0.157 (tests/test_similarity.py).
- **A classmate's name on the instructor's pages.** A Gradescope export's `:name:` is the name a student gives their
  account: a copier named `Аlice Smith` (Cyrillic А) was listed on the similarity page, and in report.html's table of
  mistakes, by that name alone, as the real Alice Smith is. Now both pages show a person with their sid (else email,
  else the LMS's id): exports.Student.shown.

Measured with /tmp/rt72/hide.py, calib.py (scores before and after), holding.py (tricks that hold); the lambda-bound,
the look-alike and the plain copies each grade 24/35 (`autograder grade`: the fixture fills only q3-q5).
"""
from __future__ import annotations

import json
import re

import pytest

from autograder.config import find_course
from autograder.course import similarity as sim
from tests.conftest import ROOT

SLUG = "sdpa-from-scratch"
FIXTURES = ROOT / "tests" / "fixtures" / "similarity"
GRADED = ("causal_mask", "stable_softmax", "scaled_dot_product_attention")


@pytest.fixture(scope="module")
def setting():
    course = find_course(ROOT)
    names = sim.compared_names(course, SLUG)
    return course, names, sim.class_boilerplate(course, SLUG, names)


def template_cells() -> list[str]:
    template = json.loads((ROOT / "student_template" / f"{SLUG}.ipynb").read_text())
    return ["".join(c["source"]) for c in template["cells"] if c["cell_type"] == "code"]


def pair_score(setting, cells_a: list[str], cells_b: list[str]) -> float:
    course, names, boilerplate = setting
    docs = [sim.fingerprint(key, sim.extract(cells, names), boilerplate, names)
            for key, cells in (("a", cells_a), ("b", cells_b))]
    pairs, _ = sim.compare(docs, 0.0)
    return pairs[0].score if pairs else 0.0


def victim() -> list[str]:
    return [*template_cells(), (FIXTURES / "class" / "s07_where.py").read_text()]


def copied() -> str:
    return (FIXTURES / "copied_from_s07.py").read_text()


def test_the_plain_copy_is_flagged(setting):
    course = setting[0]
    assert pair_score(setting, victim(), [*template_cells(), copied()]) >= course.settings(SLUG).similarity.threshold


KEEP = {"def", "return", "if", "not", "is", "None", "raise", "else", "for", "in", "True", "False", *GRADED}


def look_alike(source: str) -> str:
    """Every lower-case name but keywords and the graded names with its first letter as MATHEMATICAL BOLD SMALL
    (NFKC: the same letter), strings left alone."""
    def one(m: re.Match) -> str:
        word = m.group(0)
        return word if word in KEEP else chr(0x1D41A + ord(word[0]) - ord("a")) + word[1:]
    out = []
    for part in re.split(r'("[^"\n]*")', source):
        out.append(part if part.startswith('"') else re.sub(r"\b[a-z][A-Za-z_0-9]*\b", one, part))
    return "".join(out)


def test_look_alike_letters_that_python_reads_as_the_same_name_hide_nothing(setting):
    course = setting[0]
    hidden = look_alike(copied())
    assert hidden != copied() and "\U0001d42dorch" in hidden
    compile(hidden, "copy", "exec")  # it is Python, and runs as the copy does
    score = pair_score(setting, victim(), [*template_cells(), hidden])
    assert score >= course.settings(SLUG).similarity.threshold, score


def join_lines(source: str) -> str:
    """Each simple assignment at a function's first level joined onto the one before it with `; `."""
    out: list[str] = []
    for line in source.splitlines():
        simple = re.match(r"    [a-z]\w* = ", line) is not None
        if simple and out and re.match(r"    [a-z]\w* = ", out[-1]) and not out[-1].rstrip().endswith(":"):
            out[-1] += "; " + line.strip()
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def test_statements_joined_with_semicolons_are_the_lines_they_join(setting):
    joined = join_lines(copied())
    assert joined.count(";") >= 5
    compile(joined, "copy", "exec")
    plain = pair_score(setting, victim(), [*template_cells(), copied()])
    assert pair_score(setting, victim(), [*template_cells(), joined]) == pytest.approx(plain, abs=0.02)
    # a trailing `;` changes nothing either
    assert sim.normalise("def f(x):\n    y = x;\n    return y\n", {}).text == \
        sim.normalise("def f(x):\n    y = x\n    return y\n", {}).text


def renamed() -> str:
    source = copied()
    for name in GRADED:
        source = re.sub(rf"\b{name}\b", f"my_{name}", source)
    return source


CLASS_COPY = ("class _Attention:\n    def __call__(self, Q, K, V, mask=None):\n"
              "        return my_scaled_dot_product_attention(Q, K, V, mask)\n")

BINDINGS = {
    "alias in a cell of its own": "{n} = my_{n}\n",
    "lambda": "{n} = lambda *a, **k: my_{n}(*a, **k)\n",
    "for target": "for {n} in [my_{n}]:\n    pass\n",
    "walrus": "({n} := my_{n})\n",
    "tuple target": "{n}, _unused = my_{n}, 0\n",
}


@pytest.mark.parametrize("binding", BINDINGS)
def test_a_graded_name_bound_by_another_statement_is_compared_as_what_it_is_bound_to(setting, binding):
    course = setting[0]
    cells = [*template_cells(), renamed(), "".join(BINDINGS[binding].format(n=n) for n in GRADED)]
    names = setting[1]
    got = sim.extract(cells, names)
    sources = "".join(f.source for f in got.functions)
    assert all(line in sources for line in ("jj <= ii", "m.isneginf()", "float(\"-inf\")")), sources
    assert pair_score(setting, victim(), cells) >= course.settings(SLUG).similarity.threshold


def test_a_class_whose_call_holds_the_code_is_compared(setting):
    course = setting[0]
    cells = [*template_cells(), renamed(), CLASS_COPY,
             "scaled_dot_product_attention = _Attention()\ncausal_mask = my_causal_mask\nstable_softmax = my_stable_softmax\n"]
    got = sim.extract(cells, setting[1])
    assert {"_Attention", "my_scaled_dot_product_attention"} <= {f.name for f in got.functions}
    assert pair_score(setting, victim(), cells) >= course.settings(SLUG).similarity.threshold


def test_ordinary_globals_read_by_a_graded_function_are_not_compared():
    """What the new bindings must not take in: data cells (`Q = torch.randn(...)`) and constants a function reads."""
    cells = ["import torch\nd_k = 16\nQ = torch.randn(2, 3, d_k)\n",
             "def scaled_dot_product_attention(Q, K, V, mask=None):\n    return (Q @ K.mT / d_k ** 0.5).softmax(-1) @ V\n"]
    got = sim.extract(cells, ["scaled_dot_product_attention"])
    assert [f.name for f in got.functions] == ["scaled_dot_product_attention"]


def test_a_dead_name_at_the_top_of_each_copied_function_hides_nothing(setting):
    course = setting[0]
    dead = re.sub(r'(def \w+\([^)]*\):\n)(    """[^\n]*"""\n)?', lambda m: m.group(0) + "    _unused = 0\n", copied())
    assert dead.count("_unused = 0") == 3
    compile(dead, "copy", "exec")
    score = pair_score(setting, victim(), [*template_cells(), dead])
    assert score >= course.settings(SLUG).similarity.threshold, score


def test_a_dead_line_after_every_assignment_still_leaves_the_copy_flagged(setting):
    """Measured: 0.348 as found; 0.780 with names hashed by where they were last used inside the run."""
    course = setting[0]
    lines = []
    for number, line in enumerate(copied().splitlines()):
        lines.append(line)
        m = re.match(r"(\s+)\w+(, \w+)* = ", line)
        if m and not line.rstrip().endswith(("(", ",")):
            lines.append(f"{m.group(1)}_unused{number} = {number}")
    padded = "\n".join(lines) + "\n"
    assert padded.count("_unused") >= 8
    compile(padded, "copy", "exec")
    score = pair_score(setting, victim(), [*template_cells(), padded])
    assert score >= course.settings(SLUG).similarity.threshold, score


# --- a name a student chose, on the instructor's pages ----------------------------------------------------------
def _gradescope_class(root, records: list[tuple[str, str, str, str]]):
    """A Gradescope export of sdpa notebooks: (folder, name, sid, the solution's source)."""
    from tests.test_similarity import as_notebook
    root.mkdir(parents=True)
    lines = []
    for folder, name, sid, source in records:
        lines.append(f"{folder}:\n  :submitters:\n  - :name: {name}\n    :sid: '{sid}'\n"
                     f"    :email: s{sid}@uni.example\n  :created_at: 2024-03-08 23:00:00.000000000 -05:00\n")
        (root / folder).mkdir()
        (root / folder / f"{SLUG}.ipynb").write_text(json.dumps(as_notebook(source)))
    (root / "submission_metadata.yml").write_text("".join(lines))
    return root


def test_a_classmates_name_taken_by_a_copier_does_not_put_the_classmate_on_the_similarity_page(setting, tmp_path):
    """Gradescope's `:name:` is the name a student gives their account. Mallory names herself `Alice Smith` (a
    classmate's name, here with a Cyrillic А, which no normalisation folds) and copies Carol: the page listed the
    flagged pair as `submission_3 (Аlice Smith)` and `submission_1 (Carol Jones)`, the real Alice's submission
    beside it as `submission_2 (Alice Smith)`: nothing on the page told the two apart. Measured: the labels on the
    page were the names alone. Now a person's label carries who the export says they are (sid, else email)."""
    from autograder.course.exports import discover
    course = setting[0]
    export = _gradescope_class(tmp_path / "export", [
        ("submission_1", "Carol Jones", "1001", (FIXTURES / "class" / "s07_where.py").read_text()),
        ("submission_2", "Alice Smith", "1002", (FIXTURES / "class" / "s01_einsum.py").read_text()),
        ("submission_3", "\u0410lice Smith", "1003", copied())])
    found = discover(export, SLUG, tmp_path / "scratch")
    stored = {e.key: sim.extract_file(e.path, setting[1]) for e in found.entries}
    out = tmp_path / "out"
    out.mkdir()
    pairs = sim.write_report(stored, course, SLUG, out, found=found)
    assert set(pairs[0].keys) == {"submission_1", "submission_3"}
    page = (out / "similarity.html").read_text()
    row = page.split('<table id="pairs">', 1)[1].split("</tr>", 2)[1]
    assert "1003" in row and "1001" in row and "1002" not in row, row


def test_report_html_tells_a_classmate_from_one_who_took_their_name():
    """report.html's table of mistakes listed each person by name alone (`Alice Smith (3)` twice, the copier's
    mistake on the real Alice's name): the same label as the similarity page now."""
    from autograder.course.exports import Student
    from autograder.course.report import class_diagnosis
    from tests.test_diagnosis import report, submission
    results = [submission([report("q1", "t0", misconception="divide_by_dk", text="dividing by d_k")], key=key)
               for key in ("submission_2", "submission_3")]
    people = {"submission_2": [Student(name="Alice Smith", sid="1002")],
              "submission_3": [Student(name="\u0410lice Smith", sid="1003")]}
    mistakes, _ = class_diagnosis(results, people)
    labels = [label for label, _key, _lost in mistakes["divide_by_dk"][3]]
    assert labels == ["Alice Smith (sid 1002)", "\u0410lice Smith (sid 1003)"]
    assert Student(name="Bob", email="b@x").shown == "Bob (b@x)" and Student(name="Bob").shown == "Bob"
