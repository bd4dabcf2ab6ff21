from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_COURSE = ROOT / "tests" / "fixtures" / "course"
FIXTURE_SUBS = ROOT / "tests" / "fixtures" / "submissions"


@pytest.fixture(scope="session")
def fixture_course():
    from autograder.config import find_course
    return find_course(FIXTURE_COURSE)


@pytest.fixture(scope="session")
def toy_grader(fixture_course):
    """One warm grader for the fixture course, shared by the engine tests."""
    from autograder.grading import Grader
    with Grader(fixture_course) as g:
        yield g


@pytest.fixture(scope="session")
def course():
    from autograder.config import find_course
    return find_course(ROOT)


@pytest.fixture(scope="session")
def grader(course):
    from autograder.grading import Grader
    with Grader(course) as g:
        yield g
