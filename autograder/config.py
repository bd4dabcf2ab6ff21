"""grading.yml: each setting declared once, with its type, default and help; validated on load with an
error that names the bad key."""
from __future__ import annotations

import keyword
import os
import re
from pathlib import Path
from typing import Iterable, Literal, Optional, Sequence

import yaml
from pydantic import (BaseModel, ConfigDict, Field, NonNegativeFloat, ValidationError, ValidationInfo, field_validator,
                      model_validator)

from autograder.errors import AssignmentNotFound, ConfigError
from autograder.latepolicy import LatePolicy, not_a_yaml_bool, policy_problem

Device = Literal["cpu", "cuda"]
Vis = Literal["hidden", "after_due_date", "after_published", "visible"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @field_validator("*", mode="before")
    @classmethod
    def _not_a_yaml_bool(cls, value: object, info: ValidationInfo) -> object:
        return not_a_yaml_bool(cls, value, info.field_name)


class Limits(_Strict):
    cell_timeout_s: float = Field(30, gt=0, description="wall-clock limit for one notebook cell")
    call_timeout_s: float = Field(30, gt=0, description="wall-clock limit for one call into student code")
    shrink_test_s: float = Field(2, ge=0, description=(
        "seconds the search for a failed case's smallest failing input may spend, its calls into student "
        "code included (a call still running then is interrupted: shrinking ends, the outcome stays)"))
    shrink_submission_s: float = Field(10, ge=0, description=(
        "seconds all such searches of one submission may spend together (0: no smallest inputs)"))
    repair_submission_s: float = Field(3, ge=0, description=(
        "CPU seconds the search for one-edit fixes of a submission's unnamed failures may spend, the grader's "
        "and the worker's together, so that a busy machine reaches the same fixes (autograder/grading/repair.py; "
        "0: no search; the wall clock bounds it at 4x)"))
    submission_timeout_s: float = Field(300, gt=0, description="wall-clock limit for one whole submission")
    check_cpu_s: float = Field(30, ge=0, description=(
        "CPU seconds one hidden test's own work in the trusted grader process may spend: its checks and diagnoses "
        "of what the student's code gave it, not its calls into that code (they run in the worker). Past it the "
        "test fails with a note (a value built to make a check slow); 0: no budget"))
    memory_mb: int = Field(3072, ge=512, description="RLIMIT_DATA of the worker, MiB")
    tmp_mb: int = Field(512, ge=1, description="the worker's private /tmp (its scratch dir), MiB")
    shm_mb: int = Field(64, ge=1, description="the worker's private /dev/shm, MiB")
    output_kb: int = Field(256, ge=1, description="captured stdout/stderr per submission, KiB")
    upload_mb: int = Field(128, ge=1, description=(
        "largest submission file read at all, outputs included, MiB (while it is parsed the grader holds about 2.5x this)"))
    notebook_mb: int = Field(20, ge=1, description=(
        "largest notebook once its outputs are stripped, MiB: outputs are never graded, so a big plot "
        "or a long printout does not count; nor do images attached to written answers (attachment_mb, attachments_mb)"))
    attachment_mb: float = Field(8, gt=0, description=(
        "largest image attached to a written answer (a pasted photo of a proof), MiB of decoded image: "
        "a larger one is named on the report and feedback page, not shown; the submission is graded as usual"))
    attachments_mb: float = Field(16, gt=0, description=(
        "all images attached to one submission's written answers together, MiB decoded (in notebook "
        "order; the ones past it are named, not shown). report.html embeds every shown image, so it "
        "grows by up to 1.34x this per submission"))
    max_reply_mb: int = Field(64, ge=1, description="largest single reply accepted from the worker, MiB")
    cuda_workers: int = Field(16, ge=1, description=(
        "CUDA workers alive at once on this machine, across all grader processes of this user (batch "
        "-j above it waits for a slot). A CUDA worker holds its context from start to exit, ~0.6 GB "
        "resident plus its device memory"))


class VisibilitySettings(_Strict):
    hidden_tests: Vis = Field("after_published", description="when students see hidden test results")
    show_total: bool = Field(True, description="whether students see their total score")
    isolation: Vis = Field("hidden", description="who sees which sandbox ran (hidden: instructors only)")


class SimilaritySettings(_Strict):
    """The similar-submissions report (autograder.course.similarity): advice to read, never a score."""
    threshold: float = Field(0.5, gt=0, le=1, description=(
        "a pair scoring this or more is flagged: the share of the two submissions' own code (template, "
        "reference and the master notebook's code left out) that lies in passages they share, when each shares "
        "at least 30 tokens of its own (a one-line answer is not flagged)"))
    floor: float = Field(0.2, ge=0, le=1, description=(
        "pairs scoring less, or sharing fewer than 15 of their own tokens, are left out of similarity.csv and "
        "similarity.html"))
    functions: list[str] = Field(default_factory=list, max_length=200, description=(
        "the functions compared, with the helpers they call; empty: every name the hidden tests take "
        "that a notebook defines as a function"))

    @field_validator("functions")
    @classmethod
    def _identifiers(cls, names: list[str]) -> list[str]:
        for name in names:
            if not name.isidentifier() or keyword.iskeyword(name):
                raise ValueError(f"'{name[:80]}' is not a Python function name")
        return names

    @model_validator(mode="after")
    def _floor_below_threshold(self) -> "SimilaritySettings":
        if self.floor > self.threshold:
            raise ValueError(f"floor ({self.floor:g}) is above threshold ({self.threshold:g}): "
                             "a flagged pair would not be listed")
        return self


class AssignmentSettings(_Strict):
    title: str = ""
    forbidden_apis: list[str] = Field(default_factory=list,
                                      description="torch functions that raise when called from graded code")
    manual: list[str] = Field(default_factory=list,
                              description="names of hand-graded questions, in notebook order")
    manual_points: dict[str, NonNegativeFloat] = Field(
        default_factory=dict, description="points of each hand-graded question (a name in `manual`); "
                                          "the maximum score includes them")
    visible_tests: list[str] = Field(
        default_factory=list, description="tests students see before grades are published: a question "
                                          "(`q1`) or one test (`q5:test_float32_no_mask`)")
    similarity: SimilaritySettings = Field(default_factory=SimilaritySettings, description=(
        "the similar-submissions report's threshold, floor and functions: no part of the grading fingerprint"))
    late_policy: Optional[LatePolicy] = Field(None, description=(
        "this assignment's late policy: its due time, and any key of the course's late_policy to override "
        "(autograder.course.lateness). Applied to totals after scoring: no part of the grading fingerprint"))


class CourseConfig(_Strict):
    course: str = "course"
    limits: Limits = Field(default_factory=Limits)
    devices: list[Device] = Field(default_factory=lambda: list[Device](["cpu"]))
    gpu_points: bool = Field(False, description="whether CUDA cases carry points")
    visibility: VisibilitySettings = Field(default_factory=VisibilitySettings)
    late_policy: Optional[LatePolicy] = Field(None, description=(
        "the course's late policy (grace, penalty per day, cap, zero after): each assignment adds its due "
        "time and may override any key (autograder.course.lateness)"))
    assignments: dict[str, AssignmentSettings] = Field(default_factory=dict)

    @field_validator("devices")
    @classmethod
    def _cpu_once(cls, devices: list[Device]) -> list[Device]:
        # A test that takes `device` runs once per entry and earns its points on cpu: without cpu a right notebook
        # lost every such test's points on a machine without a GPU (17/35), and a repeated entry paid them twice
        # (53/35), each without a word (red-team round 91)
        if "cpu" not in devices:
            raise ValueError(f"{list(devices)} leaves out cpu: the tests that take a device earn their points on cpu "
                             "(cuda is added where the machine has a GPU), so write [cpu] or [cpu, cuda]")
        repeated = sorted({d for d in devices if devices.count(d) > 1})
        if repeated:
            raise ValueError(f"{', '.join(repeated)} is listed twice: each entry runs the tests that take a device once "
                             "more, and a cpu run earns their points again; write [cpu] or [cpu, cuda]")
        return devices


# a hidden test that takes gradients, in the grader or in the worker ("autograder" is not one). No \b: with
# it the scan of a course's hidden files took 18 ms on the start-up path, without it 2 ms
_TAKES_GRADIENTS = re.compile(r"autograd(?!er)|call_with_grad|\.backward\(")


class Course:
    """A course directory: grading.yml, assignments/, reference/."""

    def __init__(self, root: Path, config: CourseConfig) -> None:
        self.root = root
        self.config = config

    def assignment_dir(self, slug: str) -> Path:
        if slug not in self.config.assignments:
            known = ", ".join(self.config.assignments) or "none"  # in grading.yml's order, as -a's help
            raise AssignmentNotFound(f"unknown assignment '{slug}' (grading.yml lists: {known})")
        path = self.root / "assignments" / slug
        if not (path / "hidden").is_dir():
            raise AssignmentNotFound(f"assignment '{slug}' has no hidden tests at {path / 'hidden'}")
        return path

    def settings(self, slug: str) -> AssignmentSettings:
        self.assignment_dir(slug)
        return self.config.assignments[slug]

    def takes_gradients(self, slugs: Optional[Iterable[str]] = None) -> bool:
        """Whether a hidden test file of these assignments (None: any of the course's) takes gradients
        (`torch.autograd`, a worker's `call_with_grad`, `.backward(`): where workers run as another uid,
        the sandbox zygote then imports up front what torch.autograd.grad given a grad_output imports on
        its first call (sympy, about 0.4 s of its CPU), so that a student's own `backward(gradient)`
        works even where the interpreter's tree is unreadable to that uid (worker.GRADIENT_PRELOAD).
        Every worker of a zygote gets it or none does: a result never depends on its place in a batch.
        The grader's own gradients never need it (sandbox.calls.vector_jacobian_product). A file that
        cannot be read counts as one that does (the import is only time)."""
        for slug in self.config.assignments if slugs is None else slugs:
            hidden = self.root / "assignments" / slug / "hidden"
            try:
                if any(_TAKES_GRADIENTS.search(f.read_text(errors="replace")) for f in sorted(hidden.glob("*.py"))):
                    return True
            except OSError:
                return True
        return False

    @property
    def secret_paths(self) -> list[Path]:
        """What the sandbox must never see."""
        return [self.root / "assignments", self.root / "reference", self.root / "grading.yml",
                self.root / "tests", self.root / "examples"]


def load_config(path: Path) -> CourseConfig:
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as e:
        raise ConfigError(f"cannot read {path}: {e.strerror}") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"{path} is not valid YAML: {str(e).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must be a mapping of settings")
    try:
        config = CourseConfig.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        key = ".".join(str(p) for p in err["loc"]) or "(top level)"
        raise ConfigError.from_validation(str(path), key, err["msg"]) from None
    late = policy_problem(config)  # a due time is placed with its assignment's and the course's keys together
    if late is not None:
        raise ConfigError.from_validation(str(path), *late)
    return config


def find_course(start: Optional[Path] = None, students: Sequence[Path] = ()) -> Course:
    """The course root: $AUTOGRADER_COURSE, else the nearest directory upward holding grading.yml.
    `students`: folders whose files are the students' (the graded notebook's folder, the class). A
    course found by walking up may not be one of them or lie inside one: a student's folder holding
    grading.yml and assignments/ would otherwise choose the hidden tests, and run its own Python in
    the grader, when a TA grades from inside it."""
    env = os.environ.get("AUTOGRADER_COURSE")
    candidates = [Path(env)] if env else [p for p in [(start or Path.cwd()).resolve(),
                                                      *(start or Path.cwd()).resolve().parents]]
    for root in candidates:
        if (root / "grading.yml").is_file():
            if not env:
                for folder in students:
                    folder = Path(folder).resolve()
                    if root == folder or folder in root.parents:
                        raise ConfigError(f"the grading.yml found from the working directory ({root}) is in the "
                                          f"students' folder {folder}: set AUTOGRADER_COURSE to the course")
            return Course(root, load_config(root / "grading.yml"))
    raise ConfigError("no grading.yml found (run inside a course directory or set AUTOGRADER_COURSE)")
