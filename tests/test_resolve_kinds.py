"""A name resolved once is not asked for again while no student code has run, and every request that
runs student code (a call, a timing, a failing call) brings the names' kinds as they are after it:
a function that rebinds, deletes or un-answers a name is seen at the next resolve."""
from __future__ import annotations

import pytest
import torch

from autograder.errors import NotAnswered, StudentCodeError
from autograder.sandbox import SandboxPolicy

from tests.conftest import course_zygote, worker_after

pytestmark = pytest.mark.sandbox

POLICY = SandboxPolicy(cell_timeout_s=5, call_timeout_s=5, submission_timeout_s=60)

CELL = """
import torch
def g(x):
    return x + 1
def f(x):
    return x * 2
def rebind(x):
    global f
    f = 7
    return x
def unanswer(x):
    global g
    g = ...
    return x
def delete(x):
    global g
    del g
    return x
def rebind_then_fail(x):
    global f
    f = "a value"
    raise ValueError("no")
"""


@pytest.fixture(scope="module")
def zygote():
    with course_zygote() as z:
        yield z


@pytest.fixture
def session(zygote):
    with worker_after(zygote, POLICY, [CELL]) as s:
        yield s


def requests(session) -> int:
    return session._next_id


def test_a_function_resolved_again_costs_no_round_trip(session):
    f = session.resolve("f", "cpu")
    assert torch.equal(f(torch.ones(2)), torch.full((2,), 2.0))
    sent = requests(session)
    again = session.resolve("f", "cpu")
    assert requests(session) == sent
    assert torch.equal(again(torch.ones(2)), torch.full((2,), 2.0))
    assert session.resolve("undefined", "cpu") is None and session.resolve("undefined", "cpu") is None


def test_a_name_rebound_by_a_call_is_seen(session):
    f = session.resolve("f", "cpu")
    session.resolve("rebind", "cpu")(torch.ones(1))
    assert session.resolve("f", "cpu") == 7   # a value now, read afresh
    assert callable(f)


def test_a_name_unanswered_or_deleted_by_a_call_is_seen(session):
    session.resolve("g", "cpu")
    session.resolve("unanswer", "cpu")(torch.ones(1))
    with pytest.raises(NotAnswered):
        session.resolve("g", "cpu")
    session.resolve("delete", "cpu")(torch.ones(1))
    assert session.resolve("g", "cpu") is None


def test_a_failing_call_still_reports_what_it_rebound(session):
    session.resolve("f", "cpu")
    with pytest.raises(StudentCodeError):
        session.resolve("rebind_then_fail", "cpu")(torch.ones(1))
    assert session.resolve("f", "cpu") == "a value"


def test_forged_kinds_teach_nothing(session):
    session.resolve("f", "cpu")
    session._learn_kinds({"f": "callable", "never_asked": "callable"})
    assert session._kinds == {}
    session._learn_kinds({"f": "anything"})
    assert session._kinds == {}
    session._learn_kinds(["f"])
    assert session._kinds == {}
    session._learn_kinds({"f": "missing"})
    assert session.resolve("f", "cpu") is None   # what the worker said: no more than a lying resolve


def test_a_stopped_worker_is_not_resolved_from_memory(session):
    session.resolve("f", "cpu")
    session.resolve("g", "cpu")(torch.ones(1))
    session.kill("test")
    from autograder.errors import WorkerCrashed
    with pytest.raises(WorkerCrashed):
        session.resolve("f", "cpu")
