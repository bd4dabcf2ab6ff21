"""Similar submissions (autograder.course.similarity): a class of 20 solutions written independently, one pair
that copied with renamed variables and rewritten comments, one pair that copied only a helper; hostile
code and names; bounded extraction; the settings; shards merged like one batch."""
from __future__ import annotations

import csv
import importlib.util
import io
import json
import os
import re
import shutil
import time
from pathlib import Path
from types import ModuleType

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from autograder.course import similarity as sim
from autograder.config import find_course
from autograder.errors import ConfigError
from tests.conftest import FIXTURE_COURSE, ROOT

SLUG = "sdpa-from-scratch"
FIXTURES = ROOT / "tests" / "fixtures" / "similarity"
DEMO_CLASS = ROOT / "examples" / "exports" / "similarity-class"
GRADED = ("stable_softmax", "causal_mask", "scaled_dot_product_attention")
COPIED = ("copied_from_s07", "s07_where")
HELPER = ("helper_from_s13", "s13_helpers")
HOSTILE = "</script><img src=x onerror=alert(1)>"


def load_class_generator() -> ModuleType:
    """examples/exports/similarity-class/make_class.py, which builds make demo's class from these fixtures
    (a script in a folder that is no package, so loaded from its path)."""
    spec = importlib.util.spec_from_file_location("make_class", DEMO_CLASS / "make_class.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def as_notebook(source: str) -> dict:
    """The student template with each stub replaced by the student's function of that name; the
    student's other code (helpers, imports) goes into the first stub's cell, above it."""
    template = json.loads((ROOT / "student_template" / f"{SLUG}.ipynb").read_text())
    return load_class_generator().as_notebook(source, template)


@pytest.fixture(scope="module")
def course():
    return find_course(ROOT)


@pytest.fixture(scope="module")
def class_dir(tmp_path_factory) -> Path:
    where = tmp_path_factory.mktemp("class")
    for path in [*sorted((FIXTURES / "class").glob("*.py")), *sorted(FIXTURES.glob("*.py"))]:
        (where / f"{path.stem}.ipynb").write_text(json.dumps(as_notebook(path.read_text())))
    return where


@pytest.fixture(scope="module")
def stored(class_dir, course) -> dict[str, sim.StoredSubmission]:
    names = sim.compared_names(course, SLUG)
    return {p.stem: sim.extract_file(p, names) for p in sorted(class_dir.glob("*.ipynb"))}


@pytest.fixture(scope="module")
def report(stored, course, tmp_path_factory) -> tuple[list[sim.Pair], Path]:
    out = tmp_path_factory.mktemp("out")
    return sim.write_report(stored, course, SLUG, out), out


def independent(key: str) -> bool:
    return re.fullmatch(r"s\d\d_\w+", key) is not None


def score_of(pairs: list[sim.Pair], a: str, b: str) -> float:
    return next((p.score for p in pairs if set(p.keys) == {a, b}), 0.0)



# --- the class ------------------------------------------------------------------------------------------
def test_the_class_is_twenty_independent_solutions_and_two_copies(stored):
    assert sum(map(independent, stored)) == 20 and len(stored) == 22
    for key, s in stored.items():
        assert [f.name for f in s.functions][:3] == list(GRADED), key
    # the helpers a graded function calls come with it (they are the student's code too)
    assert {f.name for f in stored["s13_helpers"].functions} >= {"_block", "_pairwise_scores"}
    assert {f.name for f in stored["helper_from_s13"].functions} >= {"_hide"}


@pytest.fixture(scope="module")
def all_pairs(stored, course) -> list[sim.Pair]:
    """Every pair with anything in common, however little (floor 0)."""
    names = sim.compared_names(course, SLUG)
    boilerplate = sim.class_boilerplate(course, SLUG, names)
    return sim.compare([sim.fingerprint(k, s, boilerplate, names) for k, s in sorted(stored.items())], 0.0)[0]


def test_the_copied_pair_ranks_first_the_helper_pair_next_and_no_independent_pair_reaches_the_threshold(
        report, all_pairs, course):
    settings = course.settings(SLUG).similarity
    pairs, _ = report
    assert set(pairs[0].keys) == set(COPIED) and set(all_pairs[0].keys) == set(COPIED)
    copied, helper = score_of(all_pairs, *COPIED), score_of(all_pairs, *HELPER)
    others = [p.score for p in all_pairs if set(p.keys) not in (set(COPIED), set(HELPER))]
    assert len(others) > 50  # honest solutions do share idioms: the scores are not all zero
    # measured: copied 0.963 (0.979 before round 72 hashed names by where they were last used), the helper alone 0.318, the
    # two closest independent solutions 0.157 (0.165)
    assert copied >= 0.9
    assert max(others) < helper < settings.threshold <= copied, (copied, helper, max(others))
    # listed: only the two pairs that copied (every other pair is below the floor); flagged: the copy
    assert [set(p.keys) for p in pairs] == [set(COPIED), set(HELPER)]
    assert max(others) < settings.floor <= helper


def test_renamed_variables_rewritten_comments_and_layout_change_no_token():
    original = (
        "def attend(Q, K, V, mask=None):\n"
        '    """Docstring."""\n'
        "    width = Q.shape[-1]  # the head's width\n"
        "    raw = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(width)\n"
        "    return F.softmax(raw, dim=-1) @ V\n")
    renamed = (
        "def attend(q, k, v, m=None):\n"
        "    # scores first\n"
        "    'a string on a line of its own is a comment'\n"
        "    d = q.shape[ -1 ]\n"
        "    s = torch.matmul(q,\n"
        "                     k.transpose(-2, -1)) / math.sqrt(d)   # scaled\n"
        "    return torch.nn.functional.softmax(s, dim=-1) @ v\n")
    imports = {"torch": "torch", "math": "math", "F": "torch.nn.functional"}
    a, b = sim.normalise(original, imports, ["attend"]), sim.normalise(renamed, imports, ["attend"])
    assert a.text == b.text and len(a.text) > 30
    # what a solution does still counts: another API, another product
    for change in ("torch.matmul(Q, K.mT)", "torch.bmm(Q, K.transpose(-2, -1))"):
        changed = sim.normalise(original.replace("torch.matmul(Q, K.transpose(-2, -1))", change), imports, ["attend"])
        assert changed.text != a.text
    # a name keeps its place: swapping which variable is used where is a change (not for boilerplate)
    swapped = sim.normalise(original.replace("torch.matmul(Q, K.", "torch.matmul(K, Q."), imports, ["attend"])
    assert swapped.text != a.text and swapped.blind == a.blind


def test_what_everyone_is_given_or_taught_is_not_compared(course, tmp_path):
    names = sim.compared_names(course, SLUG)
    template = json.loads((ROOT / "student_template" / f"{SLUG}.ipynb").read_text())
    master = json.loads((ROOT / "assignments" / SLUG / f"{SLUG}.ipynb").read_text())

    def cells(nb: dict) -> list[str]:
        return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]

    # the lesson's recipe, word for word (the master notebook's solution), under the student's own names
    follower = [c.replace("scores", "logits").replace("weights", "probs") for c in cells(master)]
    stored = {"stubs_only": sim.extract(cells(template), names), "stubs_again": sim.extract(cells(template), names),
              "lesson_a": sim.extract(cells(master), names), "lesson_b": sim.extract(follower, names)}
    boilerplate = sim.class_boilerplate(course, SLUG, names)
    docs = [sim.fingerprint(k, s, boilerplate, names) for k, s in stored.items()]
    assert all(d.n > 30 and d.own_count == 0 for d in docs), [(d.key, d.own_count) for d in docs]
    assert sim.compare(docs, 0.0)[0] == []
    sim.write_report(stored, course, SLUG, tmp_path)
    html = (tmp_path / "similarity.html").read_text()
    assert html.count("all of its compared code is what every student is given or taught") == 4
    assert (tmp_path / "similarity.csv").read_text() == "a,b,score,flagged\n"


# --- the outputs ----------------------------------------------------------------------------------------
def test_csv_lists_each_pair_above_the_floor_once_best_first(report, course):
    pairs, out = report
    settings = course.settings(SLUG).similarity
    with open(out / "similarity.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["a", "b", "score", "flagged"]
    body = rows[1:]
    assert body and [(r[0], r[1]) for r in body] == [p.keys for p in pairs]
    scores = [float(r[2]) for r in body]
    assert scores == sorted(scores, reverse=True) and all(settings.floor <= x <= 1 for x in scores)
    assert [r[3] for r in body] == ["yes" if x >= settings.threshold else "no" for x in scores]
    assert body[0][3] == "yes" and body[1][3] == "no"


def test_the_page_runs_nothing_loads_nothing_and_shows_student_text_escaped(report):
    _pairs, out = report
    html = (out / "similarity.html").read_text()
    assert "default-src 'none'" in html and "form-action 'none'" in html
    assert "<script" not in html.lower() and "<img" not in html.lower()
    assert "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;" in html  # the copied code's string, shown
    assert "\u202e" not in html and '<span class="ctl">\\u202e</span>' in html  # bidi shown as an escape
    links = re.findall(r'(?:href|src)="([^"]*)"', html)
    assert links and all(link.startswith("#pair-") for link in links)
    # each listed pair opens a side-by-side view with the shared passages marked
    for rank in (1, 2):
        section = html.split(f'id="pair-{rank}"', 1)[1].split('id="pair-', 1)[0]
        assert section.count("<div><b>") == 2 and "<mark>" in section
    view = html.split('id="pair-1"', 1)[1]
    assert "return jj &lt;=" in view and "return grid_j &lt;=" in view  # (which tokens winnowing marks: its hashes')


def test_hostile_names_and_code_are_inert_in_the_page_and_the_csv(course, tmp_path):
    code = ("def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            f"    note = {HOSTILE!r}  # \u202e\u2066 comment\n"
            "    w = torch.einsum('...qd,...kd->...qk', Q * 3.5, K).exp()\n"
            "    w = w / w.sum(-1, keepdims=True) + note.count('x') * 0\n"
            "    return torch.einsum('...qk,...kd->...qd', w, V).flip(0).neg()\n")
    evil = ['=HYPERLINK("http://x")\u202e.ipynb', f"{HOSTILE}\u202egnp.ipynb"]
    stored = {key: sim.extract([code], list(GRADED)) for key in evil}
    pairs = sim.write_report(stored, course, SLUG, tmp_path)
    assert len(pairs) == 1 and pairs[0].score == 1.0
    html = (tmp_path / "similarity.html").read_text()
    text = (tmp_path / "similarity.csv").read_text()
    for invisible in ("\u202e", "\u2066"):
        assert invisible not in html and invisible not in text
    for tag in ("<img", "<script", "</script"):
        assert tag not in html.lower()
    assert html.count("&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;") >= 3  # in a name and in the code
    rows = list(csv.reader(io.StringIO(text)))
    assert any(cell.startswith("'=HYPERLINK") for cell in rows[1][:2])  # a formula stays text


# --- hostile sources --------------------------------------------------------------------------------------
def test_hostile_sources_never_stop_or_stall_it(course, tmp_path):
    fine = "def causal_mask(T_q, T_k=None):\n    return torch.ones(T_q, T_k or T_q).tril().bool()\n"
    cells = [
        "def scaled_dot_product_attention(Q, K, V, mask=None):\n    return (((\n",    # not Python
        "x = " + "(" * 100_000 + ")" * 100_000,                                     # too deep to parse
        "y = a" + "+a" * 200_000,                                                   # too deep to build
        "def stable_softmax(x, dim=-1):\n" + "    x = x + 1\n" * 20_000,            # too long to compare
        "\0def f():\n    pass\n",                                                   # a NUL byte
        "s = '\ud800'\n" + fine,                                                    # not text (a lone surrogate)
        "\n".join(f"def h{i}():\n    return h{i + 1}()" for i in range(3000)),     # a chain of 3000 helpers
        "def scaled_dot_product_attention(Q, K, V, mask=None):\n    return h0()\n",
    ]
    started = time.monotonic()
    got = sim.extract(cells, list(GRADED))
    assert time.monotonic() - started < 20
    assert [f.name for f in got.functions][:2] == ["causal_mask", "scaled_dot_product_attention"]
    assert len(got.functions) == sim.MAX_FUNCTIONS
    assert "not valid Python" in got.note and "too long to compare: stable_softmax" in got.note
    assert all("\ud800" not in f.source for f in got.functions)
    # what was kept is written and read back, and compared like any other submission
    (tmp_path / "similarity.json").write_text(sim.dump_stored(SLUG, {"hostile": got}))
    back, why = sim.read_stored(tmp_path / "similarity.json", SLUG)
    assert why == "" and back == {"hostile": got}
    sim.write_report({"hostile": got, "twin": got}, course, SLUG, tmp_path)
    assert "hostile,twin," in (tmp_path / "similarity.csv").read_text()
    # a file that is not a notebook compares nothing and says so
    (tmp_path / "broken.ipynb").write_text("{ not json")
    broken = sim.extract_file(tmp_path / "broken.ipynb", list(GRADED))
    assert broken.functions == [] and "not readable" in broken.note
    for source in cells:
        sim.normalise(source, {}, GRADED)  # tokens, or none: never an exception


# --- settings -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("block, key", [
    ("{threshold: 1.5}", "assignments.toy.similarity.threshold"),
    ("{threshold: 0}", "assignments.toy.similarity.threshold"),
    ("{threshold: 0.3, floor: 0.6}", "assignments.toy.similarity"),
    ("{functions: [attend, 'not a name']}", "assignments.toy.similarity.functions"),
    ("{functions: [class]}", "assignments.toy.similarity.functions"),
    ("{treshold: 0.5}", "assignments.toy.similarity.treshold"),
])
def test_settings_are_validated_with_the_key_named(tmp_path, block, key):
    text = (FIXTURE_COURSE / "grading.yml").read_text().replace(
        '    title: "toy attention"\n', f'    title: "toy attention"\n    similarity: {block}\n')
    assert "similarity:" in text
    (tmp_path / "grading.yml").write_text(text)
    with pytest.raises(ConfigError) as e:
        find_course(tmp_path)
    assert f"bad value at '{key}'" in str(e.value)


def test_similarity_settings_are_not_part_of_the_grading_fingerprint():
    from autograder.course.fingerprint import grading_fingerprint
    from autograder.config import Course
    course = find_course(FIXTURE_COURSE)
    tuned = course.config.model_copy(deep=True)
    tuned.assignments["toy"].similarity.threshold = 0.9
    tuned.assignments["toy"].similarity.functions = ["attend"]
    assert grading_fingerprint(Course(course.root, tuned), "toy") == grading_fingerprint(course, "toy")
    assert sim.compared_names(Course(course.root, tuned), "toy") == ["attend"]
    assert sim.compared_names(course, "toy") == ["attend", "answer"]  # every name the hidden tests take


# --- across shards ------------------------------------------------------------------------------------------
def test_shards_merged_compare_the_whole_class_and_a_damaged_shard_is_named(stored, report, course, tmp_path):
    _pairs, whole = report
    (whole / "similarity.json").write_text(sim.dump_stored(SLUG, stored))
    keys = sorted(stored)
    shards = []
    for k in (1, 2, 3):
        folder = tmp_path / f"shard-{k}"
        folder.mkdir()
        mine = [key for i, key in enumerate(keys) if i % 3 == k - 1]
        (folder / "similarity.json").write_text(sim.dump_stored(SLUG, {key: stored[key] for key in mine}))
        shards.append((folder, mine, f"shard {k}/3 ({folder})"))
    merged = tmp_path / "merged"
    merged.mkdir()
    notes: list[str] = []
    sim.merge_similarity(shards, course, SLUG, merged, warnings=notes)
    assert notes == []
    assert (merged / "similarity.csv").read_text() == (whole / "similarity.csv").read_text()
    assert sim.read_stored(merged / "similarity.json", SLUG)[0] == stored

    # a shard's file that is not what a batch writes: named once, its submissions left out, the rest compared
    bad = shards[0][0] / "similarity.json"
    forged = {"format": sim.STORED_FORMAT, "assignment": SLUG,
              "submissions": {"x": {"functions": [{"name": "os.system", "source": "", "cell": 0, "line": 1}]}}}
    for damage, why in [
        (lambda: bad.write_text("{ not json"), "not one a batch writes"),
        (lambda: bad.write_text(json.dumps(forged)), "not one a batch writes"),
        (lambda: bad.write_text(sim.dump_stored("toy", {})), "of another assignment"),
        (lambda: (bad.unlink(), os.symlink(whole / "similarity.json", bad)), "symbolic link"),
        (lambda: bad.unlink(), "has no similarity.json"),
    ]:
        if bad.is_symlink() or bad.exists():
            bad.unlink()
        bad.write_text("{}")
        damage()
        notes = []
        pairs = sim.merge_similarity(shards, course, SLUG, merged, warnings=notes)
        assert len(notes) == 1 and why in notes[0] and "shard 1/3" in notes[0], notes
        assert f"its {len(shards[0][1])} submissions are not compared" in notes[0]
        html = (merged / "similarity.html").read_text()
        assert "shard 1/3" in html and why in html
        left = set(shards[0][1])
        assert all(not (set(p.keys) & left) for p in pairs)
        assert len(sim.read_stored(merged / "similarity.json", SLUG)[0] or {}) == len(keys) - len(left)


TOY_ATTEND = {
    "mine": ("def attend(Q, K, V):\n"
             "    # keys as columns\n"
             "    kt = K.transpose(0, 1).contiguous()\n"
             "    logits = (Q @ kt) * Q.shape[-1] ** -0.5\n"
             "    logits = logits - logits.amax(dim=1, keepdim=True)\n"
             "    expd = logits.exp()\n"
             "    return (expd / expd.sum(dim=1, keepdim=True)) @ V\n"),
    "copy": ("def attend(q, k, v):\n"
             "    kk = k.transpose(0, 1).contiguous()   # transpose\n"
             "    z = (q @ kk) * q.shape[-1] ** -0.5\n"
             "    # subtract the max\n"
             "    z = z - z.amax(dim=1, keepdim=True)\n"
             "    ez = z.exp()\n"
             "    return (ez / ez.sum(dim=1, keepdim=True)) @ v\n"),
    "other": ("def attend(Q, K, V):\n"
              "    w = torch.einsum('id,jd->ij', Q, K).div(math.sqrt(Q.size(1)))\n"
              "    return torch.einsum('ij,jd->id', torch.softmax(w, 1), V)\n"),
    "loops": ("def attend(Q, K, V):\n"
              "    rows = []\n"
              "    for q in Q:\n"
              "        s = torch.stack([torch.dot(q, k) for k in K]) / math.sqrt(len(q))\n"
              "        rows.append(torch.softmax(s, 0) @ V)\n"
              "    return torch.stack(rows)\n"),
}


def test_batch_and_merge_write_it_and_merged_shards_say_what_one_batch_says(toy_grader, tmp_path):
    from autograder.course.batch import run_batch, shard_of
    from autograder.course.merge import merge
    subs = tmp_path / "class"
    subs.mkdir()
    for name, code in TOY_ATTEND.items():
        nb = new_notebook(cells=[new_code_cell("import torch, math"), new_code_cell(code), new_code_cell("answer = 'B'")])
        nbformat.write(nb, subs / f"{name}.ipynb")
    shutil.copy(ROOT / "tests" / "fixtures" / "submissions" / "good.ipynb", subs / "good.ipynb")
    whole = tmp_path / "whole"
    results = run_batch(subs, "toy", whole, jobs=2, grader=toy_grader, seed=7)
    assert len(results) == 5
    with open(whole / "similarity.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert rows and {rows[0]["a"], rows[0]["b"]} == {"copy.ipynb", "mine.ipynb"} and rows[0]["flagged"] == "yes"
    assert all(r["flagged"] == "no" for r in rows[1:])
    assert "mine.ipynb" in (whole / "similarity.html").read_text()
    n = 2
    assert {shard_of(p.name, n) for p in subs.iterdir()} == {1, 2}  # both shards hold part of the class
    dirs = []
    for k in range(1, n + 1):
        dirs.append(tmp_path / f"shard-{k}")
        run_batch(subs, "toy", dirs[-1], jobs=2, grader=toy_grader, seed=7, shard=(k, n))
    merged = tmp_path / "merged"
    merge(dirs, merged, toy_grader.course)
    assert (merged / "similarity.csv").read_text() == (whole / "similarity.csv").read_text()
    assert (merged / "similarity.json").read_text() == (whole / "similarity.json").read_text()


def test_a_passage_most_of_a_large_class_shares_matches_nobody(course):
    """As MOSS's -m: what more than common_limit(n) submissions share is the class's boilerplate (an
    idiom the lesson did not write down), counted in each score's total but matched by no pair."""
    idiom = ("def _rowwise(t):\n"
             "    lo = t.min(dim=-1, keepdim=True).values\n"
             "    hi = t.max(dim=-1, keepdim=True).values\n"
             "    return (t - lo) / (hi - lo).clamp_min(1e-6) * 0.5 + t.flip(-1).cumsum(-1) * 0.25\n")
    own = [f"    z = torch.{op}(x * {i}.5, {i % 3}) - x.roll({i}, 0) * {i + 2}\n    return _rowwise(z)\n"
           for i, op in enumerate(["sin", "cos", "tanh", "sigmoid", "relu", "exp", "log1p", "erf", "atan", "sinh",
                                   "cosh", "expm1", "sqrt", "abs", "neg", "sign"])]
    names = ["stable_softmax"]
    boilerplate = sim.class_boilerplate(course, SLUG, names)

    def docs(n: int) -> list[sim.Document]:
        return [sim.fingerprint(f"s{i}", sim.extract([idiom + "def stable_softmax(x, dim=-1):\n" + own[i]], names),
                                boilerplate, names) for i in range(n)]

    few, many = docs(sim.COMMON_MIN), docs(sim.common_limit(16) + 1)
    assert len(many) == 11 <= len(own)
    shared_by_few, left_few = sim.compare(few, 0.0)
    assert left_few == 0 and len(shared_by_few) == 45 and min(p.score for p in shared_by_few) > 0.3
    shared_by_many, left_many = sim.compare(many, 0.0)
    assert left_many > 0 and shared_by_many == []


# --- make demo's class ------------------------------------------------------------------------------------
def test_the_demo_class_is_this_class_and_flags_only_the_copied_pair(course, tmp_path):
    """examples/exports/similarity-class/notebooks is what make_class.py makes from these fixtures (so the
    demo cannot drift from what is tested here), and its report, read from the committed notebooks as
    batch reads them, flags the copied pair alone."""
    made = load_class_generator().notebooks()
    committed = {p.name: p.read_text(encoding="utf-8") for p in (DEMO_CLASS / "notebooks").iterdir()}
    assert sorted(made) == sorted(committed) and len(made) == 22
    assert [name for name in made if made[name] != committed[name]] == [], "run make_class.py again"
    names = sim.compared_names(course, SLUG)
    stored = {p.stem: sim.extract_file(p, names) for p in sorted((DEMO_CLASS / "notebooks").glob("*.ipynb"))}
    pairs = sim.write_report(stored, course, SLUG, tmp_path)
    with open(tmp_path / "similarity.csv", newline="") as fh:
        flagged = [{r["a"], r["b"]} for r in csv.DictReader(fh) if r["flagged"] == "yes"]
    assert flagged == [set(COPIED)] and set(pairs[0].keys) == set(COPIED)


def test_a_file_the_reader_trips_on_is_a_note_not_the_end_of_the_report(tmp_path, monkeypatch):
    """Red-team round 24: a notebook that made intake raise something other than SubmissionError (a
    5,000-digit number, a lone surrogate) stopped the similarity report for the whole class. Intake now
    refuses those in words (tests/test_intake.py); whatever else a reader trips on stays that file's note."""
    from autograder.grading import intake

    def trips(*_args, **_kwargs):
        raise ValueError("an error intake never meant to raise")
    monkeypatch.setattr(intake, "read_submission", trips)
    stored = sim.extract_file(tmp_path / "any.ipynb", ["attend"])
    assert not stored.functions and "not readable" in stored.note and "ValueError" in stored.note
