"""Red-team round 99: text that displays as something else.

Repros in /tmp/rt99/ (names.py: a flat class through exports.discover and the gradebook writers; nb/: notebooks
graded with `autograder grade`; zalgo.py and shot.py: report.html rendered by Chromium).

- **Names with a character drawn as nothing, beside a classmate's.** text.UNSHOWN (shown names, submission keys) and
  clean's list (names in every table and CSV) held the zero-width characters U+200B-U+200F, the bidi controls and
  U+2060-U+2069, not the rest of Unicode's default-ignorable code points. Measured (names.py): beside `bob.ipynb`, the
  files `bo<U+034F>b.ipynb` (combining grapheme joiner), `bo<U+FE0F>b` (a variation selector), `bo<U+E0062>b` (a tag
  character), `bo<U+00AD>b` (soft hyphen) and `bo<U+180E>b` were each keyed and named as themselves: gradebook.csv
  showed six rows reading `bob`, `bob.ipynb` with different scores, the terminal's warnings named them alike, and
  canvas.csv wrote all six `bob` rows (round 45 leaves out only rows whose names are one once cleaned). Now the whole
  default-ignorable set is escaped in shown names and keys (`bo\\u034fb.ipynb~9ddf9919a7`) and dropped by clean, so
  the rows Canvas would match by the one name `bob` are left out with a warning, as round 45's are.
- **A diagnosis that reads as false: "`causal_mask` is not defined, and the notebook binds `causal_mask`".** A name
  spelt nearly as the asked one (source_checks.unbound_answer, difflib) was quoted as the notebook has it: with a
  Cyrillic а (`cаusal_mask`, U+0430, what a PDF or a chat window pastes) or a joiner drawn as nothing, the student read
  the grader claiming the name they see is missing. Measured: sdpa-from-scratch's full_marks with `def cаusal_mask`,
  4 points lost, that sentence in the terminal and the feedback. Now such a name is written with each character that
  is not ASCII as its code point, the first two named (`c\\u0430usal_mask` (U+0430 CYRILLIC SMALL LETTER A is not an
  ASCII character)).
- **A def Python reads as the graded name, passed over by the grader.** Python reads an identifier in NFKC, so
  `def ｓcaled_dot_product_attention` (full-width s) or `def 𝐟` binds the ASCII name; last_function_def and repair's
  last_def skipped every cell without the text `def name` before parsing, so a notebook with `def f` then a later
  `def ｆ` had the grader read the first as the notebook's last (the crash namings, helper_blame's replayed copy, the
  scaled-attention diagnoses), while the tests graded the second. Now the quick test also looks at the cell's NFKC
  form (pyparse.holds_name_text); the parse's own names decide, as before.
- **Points drawn beside another person's name.** report.html's "who (points)" cells run the names of everyone a
  mistake cost together: `<a>name</a> (points), ...`. A name in Arabic or Hebrew letters (a class folder per
  student, named by the student's own name) pulled the numbers after it into its right-to-left run: Chromium drew
  "alice (25), سارة (5), علي (30)" as "alice (25), (5) سارة ,(30) علي" (measured: arabic2.py, shot3.py), so a reader
  took سارة for 30 points. Each name is now a left-to-right isolate, `<bdi dir="ltr">`: drawn as written.

Tried and holding (no test): bidi overrides and isolates, U+2028/U+2029/U+0085 in names, answers and exception text
(escaped, or a space in a CSV name); a key of 110 stacked combining marks in report.html (Chromium draws them in one
place: no row covered); full-width letters and digits in graded answers (round 86); names normalising alike in canvas.csv
(NFKC, case: left out, round 45); a forbidden API behind a full-width def or attribute (find_use reads the AST, whose
names are NFKC); wide and zero-width characters in the terminal's tables (rich measures cells).
"""
from __future__ import annotations

import csv
import json
import re
import shutil
import unicodedata

import pytest

from autograder.course.exports import discover
from autograder.course.gradebook import write_canvas_csv, write_gradebook
from autograder.grading.repair import last_def
from autograder.grading.source_checks import last_function_def
from autograder.text import clean, shown_name
from tests.conftest import FIXTURE_SUBS, ROOT
from tests.test_lateness import result

# each drawn as nothing by browsers, spreadsheets and most terminals (Unicode's Default_Ignorable_Code_Point)
INVISIBLE = ["\u034f", "\ufe0f", "\U000e0062", "\u00ad", "\u180e", "\u3164", "\u2065", "\U0001d173"]


def _looks(text: str) -> str:
    """What a reader sees of `text`: its default-ignorable characters drawn as nothing."""
    return "".join(c for c in text if c not in INVISIBLE and unicodedata.category(c) != "Cf")


@pytest.mark.parametrize("mark", INVISIBLE)
def test_a_name_with_an_invisible_character_is_not_shown_as_a_classmates(mark):
    name = f"bo{mark}b.ipynb"
    assert _looks(shown_name(name)) != "bob.ipynb", shown_name(name)
    assert mark not in clean(name)


def test_rows_reading_as_one_student_are_told_apart_and_kept_out_of_canvas(tmp_path):
    root = tmp_path / "class"
    root.mkdir()
    for stem in ["bob", *(f"bo{m}b" for m in INVISIBLE[:5])]:
        shutil.copy(FIXTURE_SUBS / "good.ipynb", root / f"{stem}.ipynb")
    found = discover(root, "toy", tmp_path / "scratch")
    assert len(found.entries) == 6
    shown_keys = [_looks(e.key) for e in found.entries]
    assert len(set(shown_keys)) == 6, shown_keys                # every submission reads as itself
    results = [result(e.key, 35.0 if e.key == "bob.ipynb" else 0.0, 35.0) for e in found.entries]
    write_gradebook(results, tmp_path / "gradebook.csv", found.entries)
    rows = list(csv.reader((tmp_path / "gradebook.csv").open(newline="", encoding="utf-8")))[1:]
    assert len({_looks(row[4]) for row in rows}) == 6, rows     # the submission column: no two alike
    warnings = write_canvas_csv(results, tmp_path / "canvas.csv", "Attention", found.entries)
    canvas = list(csv.reader((tmp_path / "canvas.csv").open(newline="", encoding="utf-8")))[1:]
    # Canvas matches these rows by name only: six that read `bob` would each be put on one student
    assert [_looks(row[0]) for row in canvas].count("bob") <= 1, canvas
    assert any("left out of the Canvas file" in w for w in warnings), warnings


SDPA = "sdpa-from-scratch"


@pytest.mark.parametrize("lookalike", ["c\u0430usal_mask", "causal\u034f_mask"])
def test_a_lookalike_name_is_spelt_out_in_the_diagnosis(grader, tmp_path, lookalike):
    nb = json.loads((ROOT / "examples" / "submissions" / SDPA / "full_marks.ipynb").read_text())
    for c in nb["cells"]:
        if c["cell_type"] == "code":
            c["source"] = "".join(c["source"]).replace("def causal_mask", f"def {lookalike}")
    path = tmp_path / "lookalike.ipynb"
    path.write_text(json.dumps(nb))
    r = grader.grade(path, SDPA, seed=99)
    said = [t.message for t in r.tests if t.misconception == "answer_name_misspelled" and "causal_mask" in t.message]
    assert said, [(t.name, t.message) for t in r.tests if t.status != "passed"]
    bound = re.search(r"the notebook binds `([^`]*)`", said[0])
    assert bound is not None, said[0]
    assert bound.group(1).isascii() and _looks(bound.group(1)) != "causal_mask", said[0]   # not the asked name's look
    assert "U+" in said[0], said[0]                              # the odd character named


@pytest.mark.parametrize("spelling", ["\uff46", "\U0001d41f"])    # full-width f, mathematical bold f: NFKC `f`
def test_the_def_python_binds_last_is_the_one_read(spelling):
    cells = ["def f(x):\n    return 1\n", f"def {spelling}(x):\n    return 2\n"]
    ns: dict = {}
    for cell in cells:
        exec(cell, ns)   # the notebook's own reading: the second def is `f`
    assert ns["f"](0) == 2
    found = last_function_def(cells, "f")
    assert found is not None and found.body[0].value.value == 2     # type: ignore[attr-defined]
    in_repair = last_def(cells, "f")
    assert in_repair is not None and in_repair[0] == 1


def test_each_name_in_a_who_list_is_isolated(tmp_path):
    """report.html's "who (points)" cells: a name in Arabic letters, then its points, then the next name. Measured in
    Chromium (/tmp/rt99/arabic2.py, shot3.py): drawn "alice (25), (5) سارة ,(30) علي", each number beside another
    person, before each name was isolated; now "alice (25), سارة (5), علي (30)". Here: every name link of such a cell
    sits in its own left-to-right isolate, what keeps the bidi algorithm from moving the points across it."""
    from autograder.config import find_course
    from autograder.course.report import write_report
    from tests.conftest import FIXTURE_COURSE
    root = tmp_path / "class"
    root.mkdir()
    lost = {"alice": 25, "\u0633\u0627\u0631\u0629": 5, "\u0639\u0644\u064a": 30}
    for name in lost:
        (root / name).mkdir()
        shutil.copy(FIXTURE_SUBS / "good.ipynb", root / name / "toy.ipynb")
    found = discover(root, "toy", tmp_path / "scratch")
    results = [result(e.key, 35.0 - lost[e.key], 35.0) for e in found.entries]
    page = write_report(results, find_course(FIXTURE_COURSE), "toy", tmp_path, found=found).read_text()
    cells = re.findall(r'<td class="who">(.*?)</td>', page)
    assert cells and all(name in "".join(cells) for name in lost), cells
    for cell in cells:
        entries = re.findall(r"(.{0,40}?)<a [^>]*>[^<]*</a>(.{0,8})", cell)
        assert entries, cell
        assert all(before.endswith('<bdi dir="ltr">') and after.startswith("</bdi>") for before, after in entries), cell
