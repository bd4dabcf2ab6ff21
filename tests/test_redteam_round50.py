"""Red-team round 50 (each test fails before its gap is closed).

- The one-edit search builds every candidate edit of the function before it takes the first MAX_CANDIDATES
  (`repair._ordered` materialises all of `_replacements`), and one kind, `_name_swapped_together`, yields a
  deep copy of the whole statement for every (variable read twice in it, other variable of the function) pair.
  One statement that reads each of N variables twice (`va,va,vb,vb,...`, the N bound on one line before it) is
  N * N deep copies of an O(N) statement: cubic in N, all held in memory at once, in the trusted grader process,
  in one uninterruptible step (the search's SearchClock is only read between steps). Measured on this machine
  (`repair._own_edits`, /tmp/rt50/swap2.py): N = 50 (554 characters) 2.4 s; N = 100 (1,155 characters) 16 s,
  0.9 GB; N = 150 (1,755 characters) 54 s, 2.4 GB; the function's limit is MAX_SOURCE_CHARS = 6000 characters
  (N ~ 400: hours, and more memory than the machine has). The search runs after every score is decided, on any
  failed test no catalogued mistake names: a notebook whose stable_softmax is one such function with a wrong
  answer holds `autograder grade` (and a batch's grader process) for that long, and the check_cpu_s budget does
  not cover it (/tmp/rt50/swap_150.ipynb, /tmp/rt50/make_swap_nb.py).
"""
from __future__ import annotations

import subprocess
import sys
import textwrap

import nbformat

from tests.conftest import ROOT
from tests.own_memory import OWN_PEAK_MB

LIMIT_S = 20


def _finishes(code: str, limit_s: float = LIMIT_S) -> str:
    """Run `code` in a fresh interpreter from the repository root; its stdout,
    or a failure when it runs past `limit_s`."""
    try:
        done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True,
                              text=True, timeout=limit_s)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"still running after {limit_s} s: the one-edit search's edits grow without bound") from None
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _swapped_names_function(n: int) -> str:
    names = [f"v{i}" for i in range(n)]
    return ("def stable_softmax(x, dim=-1):\n"
            f"    {','.join(names)} = [0] * {n}\n"
            f"    {','.join(f'{v},{v}' for v in names)}\n"
            "    shifted = x - x.max(dim=dim, keepdim=True).values\n"
            "    exps = torch.exp(shifted)\n"
            "    return exps / exps.sum(dim=dim, keepdim=True) + 1e-3 * shifted.sin()\n")


def test_the_edits_of_a_short_function_are_made_in_bounded_time_and_memory():
    # 140 variables, each read twice in one statement: ~1,700 characters (under MAX_SOURCE_CHARS = 6000); about a
    # minute and 2 GB now, for at most MAX_CANDIDATES (800) edits kept
    out = _finishes(OWN_PEAK_MB + textwrap.dedent(f"""
        import time
        from autograder.grading import repair
        src = {_swapped_names_function(140)!r}
        assert len(src) < repair.MAX_SOURCE_CHARS
        start = time.process_time()
        found = repair._own_edits([src], "stable_softmax", "_c_", repair.MAX_CANDIDATES)
        print(len(found[1]) if found else 0, round(time.process_time() - start, 2),
              round(own_peak_mb()))
    """))
    edits, cpu_s, rss_mb = out.split()
    assert 0 < int(edits) <= 800
    assert float(cpu_s) < 5, f"{cpu_s} s of the grader's CPU to list one function's edits"
    assert int(rss_mb) < 1024, f"{rss_mb} MB held to list one function's edits"


def test_a_notebook_whose_wrong_function_reads_many_variables_twice_grades_in_seconds(tmp_path):
    # the whole path: `autograder grade` on full_marks with a wrong stable_softmax of that shape (150 variables)
    nb = nbformat.read(ROOT / "examples" / "submissions" / "sdpa-from-scratch" / "full_marks.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code" and c.source.startswith("def stable_softmax"))
    cell.source = _swapped_names_function(150)
    path = tmp_path / "swapped_names.ipynb"
    nbformat.write(nb, path)
    try:
        done = subprocess.run([str(ROOT / ".venv" / "bin" / "autograder"), "grade", str(path), "-a",
                               "sdpa-from-scratch", "--seed", "1"], cwd=ROOT, capture_output=True, text=True,
                              timeout=LIMIT_S + 10)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"autograder grade still running after {LIMIT_S + 10} s") from None
    assert "Score: " in done.stdout, done.stdout[-1500:] + done.stderr[-1500:]


# --- Gradescope: a zip made by macOS Finder ------------------------------------------------------------------------
# Finder's "Compress" puts an AppleDouble file beside every file (`__MACOSX/._hw.ipynb`: a few hundred bytes of
# resource fork, not a notebook). `batch` skips such names (exports._hidden: dot-files, __MACOSX) and grades hw.ipynb;
# on Gradescope `gradescope.find_notebook` counts `._hw.ipynb` as a second notebook, so a student who named their
# notebook anything but the slug is told "found several notebooks (._hw.ipynb, hw.ipynb) ... submit just one" and
# gets 0, whether Gradescope unpacked the zip (a folder) or the zip is in the submission as it is
# (/tmp/rt50/gs_macos/, /tmp/rt50/gs_maczip/).

def _finder_zip_files(folder):
    import shutil
    shutil.copy(ROOT / "examples" / "submissions" / "sdpa-from-scratch" / "full_marks.ipynb", folder / "my_attention.ipynb")
    (folder / "__MACOSX").mkdir()
    (folder / "__MACOSX" / "._my_attention.ipynb").write_bytes(b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        ")


def test_gradescope_ignores_finders_resource_forks_in_an_unpacked_zip(tmp_path):
    from autograder.course.gradescope import find_notebook
    submission, scratch = tmp_path / "submission", tmp_path / "scratch"
    submission.mkdir(), scratch.mkdir()
    _finder_zip_files(submission)
    notebook, problem = find_notebook(submission, "sdpa-from-scratch", scratch)
    assert notebook is not None and notebook.name == "my_attention.ipynb", problem


def test_gradescope_ignores_finders_resource_forks_inside_a_zip(tmp_path):
    import zipfile

    from autograder.course.gradescope import find_notebook
    made, submission, scratch = tmp_path / "made", tmp_path / "submission", tmp_path / "scratch"
    for d in (made, submission, scratch):
        d.mkdir()
    _finder_zip_files(made)
    with zipfile.ZipFile(submission / "hw.zip", "w") as z:
        for p in sorted(made.rglob("*")):
            if p.is_file():
                z.write(p, p.relative_to(made).as_posix())
    notebook, problem = find_notebook(submission, "sdpa-from-scratch", scratch)
    assert notebook is not None and notebook.name == "my_attention.ipynb", problem
