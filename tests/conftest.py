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
