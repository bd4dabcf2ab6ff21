"""Issue 12, the parts that need no GPU: CUDA cases the grader could not run are never the student's
fault; "fails only on the GPU" is a named misconception; CUDA workers are bounded and waited for;
installation picks the torch build for the machine; a Gradescope zip carries only its own reference.

The worker's side (CUDA initialised before the filter, sockets refused after) is in test_sandbox.py."""
from __future__ import annotations

import json
import subprocess
import tempfile
import threading
import time
import zipfile
from pathlib import Path

import jsonschema
import pytest

from autograder.grading.checks import describe
from autograder.config import AssignmentSettings, Course, CourseConfig, find_course
from autograder.errors import GraderError, StudentCodeError
from autograder.sandbox.gpu import CudaSlots
from autograder.grading.hidden import HiddenTestCase
from autograder.results import SubmissionResult
from autograder.results import TestReport as Report
from autograder.grading.runner import InfraUnavailable, name_gpu_only_failures, run_tests
from tests.conftest import FIXTURE_COURSE, FIXTURE_SUBS, ROOT

SCHEMA = json.loads((ROOT / "tests" / "gradescope_results.schema.json").read_text())


def report(device: str, status: str, message: str = "", question: str = "q1", name: str = "t",
           misconception: str | None = None) -> Report:
    return Report(question=question, name=name, device=device, max_score=1.0,
                      score=1.0 if status == "passed" else 0.0, status=status, message=message,
                      misconception=misconception)


# --- "fails only on the GPU", from reports alone -------------------------------------------------
MISMATCH = "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"


def test_a_case_that_passes_on_cpu_and_fails_on_cuda_names_the_device_misconception():
    out = name_gpu_only_failures([report("cpu", "passed"), report("cuda", "failed", MISMATCH,
                                                                  misconception="crash_on_mask_none")])
    cuda = out[1]
    assert cuda.misconception == "gpu_only_failure"       # replaces the accidental match
    assert cuda.message.startswith(MISMATCH) and "device=Q.device" in cuda.message
    assert out[0] == report("cpu", "passed")
    assert "CPU" in describe("gpu_only_failure") and ".numpy()" in describe("gpu_only_failure")


@pytest.mark.parametrize("message, hint", [
    ("TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor "
     "to host memory first.", ".numpy()"),
    ("TypeError: legacy constructor expects device type: cpu but device type: cuda was passed",
     "legacy constructors"),
    ("the inputs were on cuda but the output came back on another device", "device=Q.device"),
    ("the output does not match the correct result (largest abs difference 0.3)", "device=..."),
])
def test_the_hint_follows_what_the_error_says(message, hint):
    (_, cuda) = name_gpu_only_failures([report("cpu", "passed"), report("cuda", "failed", message)])
    assert cuda.misconception == "gpu_only_failure" and hint in cuda.message.split("\n", 1)[1]


@pytest.mark.parametrize("reports", [
    [report("cpu", "failed", "wrong"), report("cuda", "failed", "wrong", misconception="no_scale")],
    [report("cpu", "passed"), report("cuda", "passed")],
    [report("cpu", "passed"), report("cuda", "not_run", "not run: no CUDA")],
    [report("cpu", "passed"), report("cuda", "failed", "the worker had already stopped before this test")],
    [report("cpu", "passed", name="a"), report("cuda", "failed", MISMATCH, name="b")],
], ids=["fails-everywhere", "passes-everywhere", "not-run", "knock-on", "different-test"])
def test_nothing_else_is_called_a_gpu_only_failure(reports):
    assert name_gpu_only_failures(reports) == reports


def case(fn, points: float = 2.0, name: str = "t") -> HiddenTestCase:
    import inspect
    return HiddenTestCase(question="q1", name=name, points=points, hidden=True, func=fn,
                          params=tuple(inspect.signature(fn).parameters))


class FakeNamespace:
    """A student namespace without a sandbox: `f` works on the CPU and raises on CUDA, as a function
    that makes a CPU tensor inside would; `cuda_problem` makes CUDA unavailable for a grader reason."""

    def __init__(self, cuda_problem: str = "") -> None:
        self.cuda_problem = cuda_problem

    def alive(self) -> bool:
        return True

    def resolve(self, name: str, device: str) -> object:
        if device == "cuda" and self.cuda_problem:
            raise InfraUnavailable(self.cuda_problem)

        def f(x):
            if device == "cuda":
                raise StudentCodeError("RuntimeError", MISMATCH.split(": ", 1)[1])
            return x
        return f


def check_f(f, device):
    assert f(3) == 3


def test_run_tests_names_gpu_only_failures_in_its_reports():
    reports = run_tests([case(check_f)], FakeNamespace(), seed=1, devices=["cpu", "cuda"])
    assert [(r.device, r.status, r.misconception) for r in reports] == [
        ("cpu", "passed", None), ("cuda", "failed", "gpu_only_failure")]
    assert reports[1].score == reports[1].max_score == 0.0   # CUDA cases carry no points by default


def test_cases_the_grader_cannot_run_are_not_run_and_count_for_nothing():
    reason = "CUDA could not be initialised in the sandbox although the grader sees a GPU (Error 304)"
    for gpu_points in (False, True):
        reports = run_tests([case(check_f)], FakeNamespace(cuda_problem=reason), seed=1,
                            devices=["cpu", "cuda"], gpu_points=gpu_points)
        cpu, cuda = reports
        assert (cpu.status, cpu.score, cpu.max_score) == ("passed", 2.0, 2.0)
        assert (cuda.status, cuda.score, cuda.max_score) == ("not_run", 0.0, 0.0)
        assert cuda.infra_reason == reason and cuda.misconception is None


# --- what the instructor and the student see of a case not run ------------------------------------
def not_run_result() -> SubmissionResult:
    from autograder.grading.grader import infra_line
    tests = [report("cpu", "passed"),
             Report(question="q1", name="t", device="cuda", max_score=0, score=0, status="not_run",
                        infra_reason="CUDA could not be initialised (Error 304)",
                        message="not run: CUDA could not be initialised (Error 304)")]
    return SubmissionResult(submission="alice.ipynb", assignment="toy", score=1, max_score=1, tests=tests,
                            infra=infra_line(tests))


def test_results_json_shows_a_case_not_run_as_zero_of_zero_and_says_why_to_instructors(fixture_course):
    from autograder.course.outputs import to_gradescope
    result = not_run_result()
    assert result.infra == ("1 cuda case(s) not run, not the student's fault: "
                            "CUDA could not be initialised (Error 304)")
    data = to_gradescope(result, fixture_course.config.visibility)
    jsonschema.validate(data, SCHEMA)
    entry = data["tests"][1]
    assert (entry["status"], entry["score"], entry["max_score"]) == ("passed", 0, 0)
    assert entry["output"].startswith("Not run") and "not a problem with your code" in entry["output"]
    assert "Error 304" not in entry["output"]             # the reason is for instructors
    assert entry["extra_data"] == {"status": "not_run", "infra_reason": "CUDA could not be initialised (Error 304)"}
    assert "not_run" in entry["tags"]
    assert data["extra_data"]["infra"] == result.infra
    grader_info = next(t for t in data["tests"] if t["tags"] == ["grader"])
    assert result.infra in grader_info["output"] and grader_info["visibility"] == "hidden"
    assert data["score"] == 1


def test_a_batch_ends_with_one_line_for_grader_problems():
    from autograder.course.outputs import infra_summary
    ok = SubmissionResult(submission="bob.ipynb", assignment="toy", tests=[report("cpu", "passed")])
    assert infra_summary([ok]) is None
    line = infra_summary([not_run_result(), not_run_result(), ok])
    assert line == ("grader problem: 2 of 3 submissions had cases not run, not the students' fault: "
                    "CUDA could not be initialised (Error 304)")


def test_terminal_table_says_not_run():
    import io

    from rich.console import Console

    from autograder.course.outputs import print_table
    out = io.StringIO()
    print_table(not_run_result(), console=Console(file=out, width=160, highlight=False))
    text = out.getvalue()
    assert "not run" in text and "failed" not in text.replace("not the student", "")
    assert "grader problem" in text


def test_report_has_a_banner_and_leaves_cases_not_run_out_of_pass_rates(tmp_path, fixture_course):
    from autograder.course.report import write_report
    ok = SubmissionResult(submission="bob.ipynb", assignment="toy", score=1, max_score=1,
                          tests=[report("cpu", "passed")])
    html = write_report([not_run_result(), ok], fixture_course, "toy", tmp_path).read_text()
    assert 'id="grader-problems"' in html and "1 of 2 submissions" in html
    assert "CUDA could not be initialised (Error 304) (1 submission)" in html
    assert "q1: t [cuda]" not in html                     # not a row of the pass rates
    clean = write_report([ok], fixture_course, "toy", tmp_path).read_text()
    assert 'id="grader-problems"' not in clean


# --- the grader, for real, on a machine without a GPU ---------------------------------------------
def cuda_course(cuda_workers: int = 16) -> Course:
    base = find_course(FIXTURE_COURSE)
    limits = base.config.limits.model_copy(update={"cuda_workers": cuda_workers})
    return Course(base.root, base.config.model_copy(update={"devices": ["cpu", "cuda"], "limits": limits}))


def test_a_cuda_course_on_a_machine_without_gpu_grades_on_cpu_and_reports_nothing(monkeypatch):
    import autograder.grading.grader as grading
    monkeypatch.setattr(grading, "cuda_available", lambda: False)
    with grading.Grader(cuda_course()) as grader:
        assert grader.devices == ["cpu"] and not grader.policy("toy").cuda
        result = grader.grade(FIXTURE_SUBS / "good.ipynb", "toy", seed=3)
    assert result.score == result.max_score == 4
    assert all(t.device == "cpu" and t.status == "passed" for t in result.tests)
    assert result.infra is None and result.sandbox.cuda is None


@pytest.fixture(scope="module")
def disagreeing_grader():
    """The grader's probe says "GPU" but the worker cannot initialise CUDA (here: no GPU at all, so
    torch.cuda.init fails inside the worker). One CUDA worker at a time."""
    import torch

    import autograder.grading.grader as grading
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU: the worker would initialise CUDA")
    # The probe is patched only while this grader is made (it asks once, there): patched for the module's whole
    # life, it leaked into every grader made meanwhile by tests xdist ran between this module's, and the session's
    # grader then took this CPU machine for a GPU one and left graded calls free to start threads (round 47's
    # thread-seal tests failed in a full run only)
    mp = pytest.MonkeyPatch()
    mp.setattr(grading, "cuda_available", lambda: True)
    try:
        made = grading.Grader(cuda_course(cuda_workers=1))
    finally:
        mp.undo()
    with made as grader:
        # slots of its own: not shared with whatever else this user runs on the machine
        slots = tempfile.mkdtemp(prefix="cuda-slots-")
        grader._cuda_slots = CudaSlots(1, Path(slots) / "d")
        yield grader


def test_cuda_the_worker_could_not_initialise_is_not_run_and_never_the_students_fault(
        disagreeing_grader, capsys, fixture_course):
    from autograder.course.outputs import to_gradescope
    grader = disagreeing_grader
    assert grader.devices == ["cpu", "cuda"] and grader.policy("toy").cuda
    result = grader.grade(FIXTURE_SUBS / "good.ipynb", "toy", seed=3)
    cuda = [t for t in result.tests if t.device == "cuda"]
    assert cuda and all(t.status == "not_run" and t.score == t.max_score == 0 for t in cuda)
    assert all("CUDA could not be initialised in the sandbox" in t.infra_reason for t in cuda)
    assert not [t for t in result.tests if t.status == "failed"]
    assert result.score == result.max_score == 4 and result.misconceptions == []
    assert result.sandbox.cuda.startswith("failed: ")
    assert result.infra and result.infra.startswith(f"{len(cuda)} cuda case(s) not run, not the student's fault")
    err = capsys.readouterr().err
    assert err.count("grader problem: ") == 1 and result.infra in err
    jsonschema.validate(to_gradescope(result, fixture_course.config.visibility), SCHEMA)
    again = grader.grade(FIXTURE_SUBS / "good.ipynb", "toy", seed=4)   # said once per grader, not per grade
    assert again.infra and "grader problem" not in capsys.readouterr().err


def test_cuda_workers_never_overlap_beyond_the_limit(disagreeing_grader):
    """limits.cuda_workers = 1: the second submission's CUDA worker starts only after the first one's
    worker has exited (WorkerSession.close waits on its pidfd)."""
    grader = disagreeing_grader
    zygote = grader.zygote
    spawned, overlaps, lock = [], [], threading.Lock()
    real_spawn = zygote.spawn

    def spawn(policy):
        session = real_spawn(policy)
        with lock:
            spawned.append(session)
            overlaps.append(sum(1 for s in spawned if not s.gone))   # CUDA workers alive now
        time.sleep(0.3)  # a window in which a second CUDA worker would start if nothing held it back
        return session

    zygote.spawn = spawn
    try:
        threads = [threading.Thread(target=grader.grade, args=(FIXTURE_SUBS / "good.ipynb", "toy"))
                   for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
    finally:
        del zygote.spawn
    assert len(spawned) == 2 and overlaps == [1, 1]
    assert all(s.gone for s in spawned)


HOLD_SLOT = """import sys, time
from pathlib import Path
from autograder.sandbox.gpu import CudaSlots
slots = CudaSlots(1, Path(sys.argv[1]))
assert slots.acquire(timeout=10)
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


def test_cuda_slots_are_shared_by_grader_processes_and_freed_when_one_dies(tmp_path):
    """batch -j N runs N grader processes: the limit holds across them, and a grader that dies (here
    killed) frees its slot without anyone releasing it."""
    import sys

    from autograder.sandbox.gpu import CudaSlots
    directory = tmp_path / "slots"
    other = subprocess.Popen([sys.executable, "-c", HOLD_SLOT, str(directory), "60"], stdout=subprocess.PIPE,
                             text=True, cwd=ROOT)
    try:
        assert other.stdout.readline().strip() == "held"
        mine = CudaSlots(1, directory)
        assert mine.acquire(timeout=0.3) is False          # the other process holds the only slot
        two = CudaSlots(2, directory)
        assert two.acquire(timeout=0.3) is True            # a second slot where the limit is 2
        two.release()
        other.kill()
        other.wait(10)
        assert mine.acquire(timeout=5) is True             # freed by the kernel when it died
        mine.release()
    finally:
        other.kill()
        other.wait(10)
    assert oct(directory.stat().st_mode & 0o777) == "0o700"


def test_cuda_slots_refuse_a_directory_others_can_write(tmp_path):
    from autograder.sandbox.gpu import CudaSlots
    directory = tmp_path / "open"
    directory.mkdir(mode=0o777)
    directory.chmod(0o777)
    with pytest.raises(GraderError, match="not a private directory"):
        CudaSlots(1, directory).acquire(timeout=0)


# --- installation picks the torch build for the machine -------------------------------------------
SCRIPT = ROOT / "autograder" / "install_torch.sh"
FAKE_PIP = """#!/bin/sh
echo "$*" >> "$PIP_LOG"
case "$*" in
  *--dry-run*) echo "Would install $FAKE_PLAN"; exit 0 ;;
  *--index-url*) [ -n "${FAKE_INDEX_DOWN:-}" ] && exit 1; exit 0 ;;
  *) exit 0 ;;
esac
"""


# The venv's python beside pip: install_torch.sh asks it whether the index answers at all before pip
# uses it (where it does not, pip would retry it for every package)
FAKE_PYTHON = """#!/bin/sh
echo "python $*" >> "$PIP_LOG.probe"
[ -n "${FAKE_INDEX_DOWN:-}" ] && exit 1
exit 0
"""


def install(tmp_path, gpu: bool, **env: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    # nvidia-smi as on a machine with a GPU, or as on one whose NVIDIA tools find none: ahead of any
    # real one on PATH, so the test means the same on a GPU machine (where /usr/bin holds nvidia-smi)
    smi = ("#!/bin/sh\necho 'GPU 0: NVIDIA H200 (UUID: GPU-0)'\n" if gpu
           else "#!/bin/sh\necho 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.'\nexit 9\n")
    for name, text in [("pip", FAKE_PIP), ("python", FAKE_PYTHON), ("nvidia-smi", smi)]:
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    log = tmp_path / "pip.log"
    log.unlink(missing_ok=True)
    full_env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "PIP_LOG": str(log),
                "FAKE_PLAN": "torch-2.13.0+cpu sympy-1.14.0", **env}
    proc = subprocess.run(["sh", str(SCRIPT), str(bin_dir / "pip"), "torch==2.13.0"], env=full_env,
                          capture_output=True, text=True, timeout=60)
    return proc, log.read_text().splitlines() if log.exists() else []


def test_without_a_gpu_torch_comes_from_the_cpu_index(tmp_path):
    proc, calls = install(tmp_path, gpu=False)
    assert proc.returncode == 0, proc.stderr
    assert len(calls) == 1 and "--index-url https://download.pytorch.org/whl/cpu" in calls[0]
    assert "CPU build" in proc.stdout


def test_without_a_gpu_an_unreachable_cpu_index_never_falls_back_to_the_cuda_build(tmp_path):
    proc, calls = install(tmp_path, gpu=False, FAKE_INDEX_DOWN="1",
                          FAKE_PLAN="torch-2.13.0 nvidia-cublas-13.1.0 nvidia-cudnn-cu13-9.13 triton-3.6.0")
    assert proc.returncode == 1
    assert "TORCH_INDEX_URL" in proc.stderr and "no GPU" in proc.stderr
    assert [c for c in calls if "--dry-run" not in c and "--index-url" not in c] == []  # never installed


def test_without_a_gpu_pips_own_index_is_used_when_it_offers_the_cpu_build(tmp_path):
    proc, calls = install(tmp_path, gpu=False, FAKE_INDEX_DOWN="1")
    assert proc.returncode == 0, proc.stderr
    assert calls[-1].split() == ["install", "-q", "torch==2.13.0"]
    # an index that does not answer is looked at once, never handed to pip (its retries, per package)
    assert not any("--index-url" in c for c in calls)
    assert "download.pytorch.org/whl/cpu/" in (tmp_path / "pip.log.probe").read_text()
    assert "from pip's own index" in proc.stdout


def test_with_a_gpu_torch_is_the_default_cuda_build_unless_overridden(tmp_path):
    proc, calls = install(tmp_path, gpu=True)
    assert proc.returncode == 0 and calls == ["install -q torch==2.13.0"]
    proc, calls = install(tmp_path, gpu=True, TORCH="cpu")
    assert proc.returncode == 0 and "--index-url https://download.pytorch.org/whl/cpu" in calls[0]
    proc, calls = install(tmp_path, gpu=False, TORCH="cuda", TORCH_INDEX_URL="https://example.invalid/cu126")
    assert proc.returncode == 0 and calls == ["install -q torch==2.13.0 --index-url https://example.invalid/cu126"]
    proc, _ = install(tmp_path, gpu=False, TORCH="rocm")
    assert proc.returncode == 2


# --- the Gradescope zip carries only its own assignment's reference -------------------------------
def test_zip_carries_only_the_reference_its_hidden_tests_import(tmp_path, course):
    from autograder.course.gradescope import build_zip
    z = zipfile.ZipFile(build_zip(course, "sdpa-from-scratch", tmp_path / "a.zip"))
    refs = sorted(n for n in z.namelist() if n.startswith("course/reference/"))
    assert refs == ["course/reference/__init__.py", "course/reference/sdpa_from_scratch.py"]
    setup = z.read("setup.sh").decode()
    assert "install_torch.sh" in setup and "package/autograder/install_torch.sh" in z.namelist()


def tiny_course(tmp_path: Path, hidden: str, refs: dict[str, str]) -> Course:
    (tmp_path / "assignments" / "a" / "hidden").mkdir(parents=True)
    (tmp_path / "assignments" / "a" / "hidden" / "q1.py").write_text(hidden)
    (tmp_path / "reference").mkdir()
    (tmp_path / "reference" / "__init__.py").write_text("")
    for name, text in refs.items():
        (tmp_path / "reference" / f"{name}.py").write_text(text)
    return Course(tmp_path, CourseConfig(assignments={"a": AssignmentSettings()}))


@pytest.mark.parametrize("hidden, expected", [
    ("import reference.alpha as ref\n", ["__init__.py", "alpha.py", "common.py"]),
    ("from reference.beta import f\n", ["__init__.py", "beta.py"]),
    ("from reference import beta, gamma\n", ["__init__.py", "beta.py", "gamma.py"]),
    ("import reference\n", ["__init__.py", "alpha.py", "beta.py", "common.py", "gamma.py"]),
])
def test_reference_files_follow_imports(tmp_path, hidden, expected):
    from autograder.course.gradescope import reference_files
    course = tiny_course(tmp_path, hidden, {"alpha": "from . import common\n", "beta": "", "common": "",
                                            "gamma": "from .beta import f\n"})
    assert [p.name for p in reference_files(course, "a")] == expected


def test_a_missing_reference_module_is_an_error_when_the_zip_is_built(tmp_path):
    from autograder.course.gradescope import reference_files
    course = tiny_course(tmp_path, "from reference import nowhere\n", {})
    with pytest.raises(GraderError, match="reference.nowhere"):
        reference_files(course, "a")



def test_the_gpu_checks_notebook_is_right_on_the_cpu(grader, tmp_path):
    """tests/test_gpu.py grades a notebook that creates a CPU tensor inside its function and expects
    it to lose exactly its CUDA cases. Its premise, checkable here: on the CPU it loses nothing."""
    from tests.test_gpu import cpu_tensor_notebook
    result = grader.grade(cpu_tensor_notebook(tmp_path), "sdpa-from-scratch", seed=3)
    assert result.score == result.max_score and not result.misconceptions
