from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_COURSE = ROOT / "tests" / "fixtures" / "course"
FIXTURE_SUBS = ROOT / "tests" / "fixtures" / "submissions"


@contextmanager
def course_zygote() -> Iterator[Any]:
    """A sandbox zygote at the rlimits level whose workers cannot see the fixture course's hidden tests, reference or
    grading.yml: what the protocol tests (resolve, call-ahead, beside a request) call into."""
    from autograder.results import Isolation
    from autograder.sandbox import Zygote
    zygote = Zygote(Isolation.rlimits, hide=[str(FIXTURE_COURSE / "assignments"), str(FIXTURE_COURSE / "reference"),
                                             str(FIXTURE_COURSE / "grading.yml")])
    zygote.start()
    try:
        yield zygote
    finally:
        zygote.close()


@contextmanager
def worker_after(zygote: Any, policy: Any, cells: Sequence[str]) -> Iterator[Any]:
    """A worker of `zygote` under `policy` whose `cells` all ran without an error; closed after."""
    session = zygote.spawn(policy)
    try:
        assert [c.status for c in session.exec_cells(list(cells)).cells] == ["ok"] * len(cells)
        yield session
    finally:
        session.close()


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
# make test runs pytest-xdist with `--dist loadgroup --no-loadscope-reorder`: each unit of work goes to the
# next free worker, in the order below, so the longest start first and none waits alone at the end. (With
# `--dist load` a worker got a chunk of ~150 consecutive tests: the three author checks and all class batches
# landed on one worker, 490 s of a 530 s run.) Patterns are ordered by their measured time, longest first.
LONG_FIRST = ("test_author_check.py::test_every_assignment_passes_its_authors_check[sdpa-from-scratch]",
              "test_redteam_class.py::test_attacker_gains_nothing", "test_redteam_class.py::test_victims_beside",
              "test_redteam_class.py::test_every_victim", "test_redteam_class.py::test_nothing_outlives",
              "test_author_check.py::test_every_assignment_passes_its_authors_check",
              "test_shard.py::test_three_shards", "test_lateness.py::test_batch_shards_merge",
              "test_class_exports.py::", "test_redteam.py::test_all_hostile", "test_batch.py::test_kill_9",
              "test_trusted_imports.py::", "test_disk_faults.py::test_disk_fills_mid_batch",
              "test_container_level.py::test_grades_at", "test_gradescope.py::test_real_assignment",
              "test_public_checks.py::", "test_redteam.py::test_hostile_submission_gains_nothing")
# where the workers tell the scheduler which tests form a group (set by the controller, inherited by workers)
GROUPS_FILE = "AUTOGRADER_TEST_GROUPS"


def _rank(item: pytest.Item) -> int:
    return next((i for i, long in enumerate(LONG_FIRST) if long in item.nodeid), len(LONG_FIRST))


def _shared_fixture_group(item: pytest.Item) -> str | None:
    """Tests that share a module- or class-scoped fixture form one group per module (its shared fixtures are
    often built from each other) and per parameter of such a fixture, so that pytest-xdist runs them on one
    worker and the fixture (a class batch, a warm grader) is built once."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    callspec = getattr(item, "callspec", None)
    shared, params = False, []
    for name in info.names_closure:
        defs = info.name2fixturedefs.get(name)
        if defs and defs[-1].scope in ("module", "class", "package"):
            shared = True
            # a module may keep its parameters on one worker (SERIAL_PARAMS): its fixtures load the machine
            # so much that two at once push honest students past their time limits
            serial = getattr(getattr(item, "module", None), "SERIAL_PARAMS", False)   # a pytest.Item may have no module
            if callspec is not None and name in callspec.params and not serial:
                params.append(f"{name}-{callspec.params[name]}")
    return ":".join([Path(str(item.fspath)).stem, *sorted(params)]) if shared else None


def pytest_configure(config):
    if getattr(config, "workerinput", None) is None and config.getoption("dist", "no") == "loadgroup":
        fd, path = tempfile.mkstemp(prefix="autograder-test-groups-", suffix=".json")
        os.close(fd)
        os.environ[GROUPS_FILE] = path   # the workers start after this and inherit it


def pytest_unconfigure(config):
    if getattr(config, "workerinput", None) is None and os.environ.get(GROUPS_FILE):
        Path(os.environ.pop(GROUPS_FILE)).unlink(missing_ok=True)


def pytest_collection_modifyitems(config, items):
    groups = {}
    for item in items:
        if (SANDBOX_FIXTURES & set(getattr(item, "fixturenames", ()))
                or Path(str(item.fspath)).stem in SANDBOX_MODULES):
            item.add_marker(pytest.mark.sandbox)
        groups[item.nodeid] = _shared_fixture_group(item)
    # a group starts where its longest test would, its tests kept together (also without xdist, so that a
    # parametrised module fixture is not built again for each test function)
    group_rank: dict[str, int] = {}
    for item in items:
        group = groups[item.nodeid]
        if group is not None:
            group_rank[group] = min(group_rank.get(group, len(LONG_FIRST)), _rank(item))
    items.sort(key=lambda item: group_rank.get(groups[item.nodeid] or "", _rank(item)))
    path = os.environ.get(GROUPS_FILE)
    if path and getattr(config, "workerinput", None) is not None:
        # every worker collects the same tests; each writes the same map, atomically
        tmp = f"{path}.{config.workerinput['workerid']}"
        Path(tmp).write_text(json.dumps({nodeid: g for nodeid, g in groups.items() if g}))
        os.replace(tmp, path)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """`--dist loadgroup`, done here: pytest-xdist 3.8 groups by an `@group` suffix it writes into the
    nodeid, which pytest 9.2's structured node ids ignore, so its groups never formed. Scheduled like
    loadgroup: one unit per group, every other test a unit of its own, handed to the next free worker in
    collection order (conftest's, longest first)."""
    if config.getoption("dist", "no") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SharedFixtureScheduling(LoadScopeScheduling):
        groups: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self.groups is None:   # first asked once every worker has collected (and written the map)
                path = os.environ.get(GROUPS_FILE)
                text = Path(path).read_text() if path else ""
                self.groups = json.loads(text) if text else {}
            group = self.groups.get(nodeid)
            return f"group:{group}" if group else nodeid

    return SharedFixtureScheduling(config, log)
