from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_COURSE = ROOT / "tests" / "fixtures" / "course"
FIXTURE_SUBS = ROOT / "tests" / "fixtures" / "submissions"


def course_slugs() -> list[str]:
    """The course's assignments, in grading.yml's order: every per-assignment test takes its list from
    here, so a new assignment is tested the moment it is registered (no list of slugs in the tests)."""
    import yaml
    return list((yaml.safe_load((ROOT / "grading.yml").read_text()) or {}).get("assignments") or {})


SLUGS = course_slugs()


@pytest.fixture(scope="session")
def fixture_course():
    from autograder.config import find_course
    return find_course(FIXTURE_COURSE)


@pytest.fixture(scope="session")
def toy_grader(fixture_course):
    """One warm grader for the fixture course, shared by the engine tests."""
    from autograder.grading.grader import Grader
    with Grader(fixture_course) as g:
        yield g


@pytest.fixture(scope="session")
def course():
    from autograder.config import find_course
    return find_course(ROOT)


@pytest.fixture(scope="session")
def grader(course):
    from autograder.grading.grader import Grader
    with Grader(course) as g:
        yield g


# `make check` (the quick loop) leaves out `sandbox` tests: those that start a grader, a sandbox zygote (a
# process that imports torch and forks workers), a batch or a browser. A test is one when it uses a fixture
# that starts a grader, or when its module grades in its tests' bodies (the modules named here).
SANDBOX_FIXTURES = frozenset({"grader", "toy_grader"})
SANDBOX_MODULES = frozenset({
    "test_assign", "test_attachments", "test_author_check", "test_batch", "test_class_exports", "test_cli",
    "test_container_level", "test_cuda_policy", "test_diagnosis", "test_disk_faults", "test_gpu",
    "test_gradescope", "test_heldout", "test_hostile_examples", "test_lateness", "test_merge_refuses",
    "test_names_are_data", "test_otter_format", "test_pool", "test_public_checks", "test_redteam",
    "test_redteam_class", "test_report", "test_runaway", "test_sandbox", "test_shard", "test_shrink_budget",
    "test_startup", "test_trusted_imports",
})
# The longest tests start first, so that pytest-xdist's workers do not wait on one of them at the end.
LONG_FIRST = ("test_author_check.py::test_every_assignment_passes_its_authors_check", "test_redteam_class.py",
              "test_lateness.py::test_batch_shards_merge", "test_class_exports.py::test_shards",
              "test_class_exports.py::test_gradescope_export", "test_batch.py::test_kill_9")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if (SANDBOX_FIXTURES & set(getattr(item, "fixturenames", ()))
                or Path(str(item.fspath)).stem in SANDBOX_MODULES):
            item.add_marker(pytest.mark.sandbox)
    items.sort(key=lambda item: not any(long in item.nodeid for long in LONG_FIRST))
