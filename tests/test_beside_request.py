"""The grader's own work done while the worker answers a request (issue 20: at `-j1` the grader and its worker
took turns on one core each). `beside_next_request` runs trusted work between sending the next request and reading
its reply: the reply read is still that request's, the work's value or error comes back where it is asked for, and
nothing runs beside a request that was never sent."""
from __future__ import annotations

import time

import pytest
import torch

from autograder.errors import StudentCodeError
from autograder.sandbox import SandboxPolicy
from autograder.sandbox.session import beside_next_request

from tests.conftest import course_zygote, worker_after

POLICY = SandboxPolicy(submission_timeout_s=60, call_timeout_s=20)
CELL = """
import time, torch
def slow_double(x):
    time.sleep(0.4)
    return x * 2
def broken(x):
    raise ValueError("three rows")
"""


@pytest.fixture(scope="module")
def zygote():
    with course_zygote() as z:
        yield z


@pytest.fixture
def session(zygote):
    with worker_after(zygote, POLICY, [CELL]) as s:
        yield s


@pytest.mark.sandbox
def test_the_work_runs_while_the_worker_computes_and_the_reply_is_the_calls(session):
    f = session.resolve("slow_double", "cpu")
    seen = {}

    def work():
        seen["sent"] = session._next_id         # the call's request is out ...
        seen["reply waiting"] = session._readable(0)   # ... and its reply not yet there: the worker still sleeps
        return torch.arange(3.0) + 10
    before = session._next_id
    with beside_next_request(work) as aside:
        out = f(torch.ones(2))
    assert seen == {"sent": before + 1, "reply waiting": False}
    assert torch.equal(out, torch.full((2,), 2.0))
    assert torch.equal(aside.value, torch.arange(3.0) + 10)
    assert torch.equal(f(torch.ones(1)), torch.full((1,), 2.0))   # the next request reads its own reply


@pytest.mark.sandbox
def test_an_error_in_the_work_comes_where_its_value_is_asked_for_and_the_protocol_stays_in_step(session):
    f, broken = session.resolve("slow_double", "cpu"), session.resolve("broken", "cpu")

    def work():
        raise RuntimeError("the reference refused")
    with beside_next_request(work) as aside:
        assert torch.equal(f(torch.ones(2)), torch.full((2,), 2.0))
    with pytest.raises(RuntimeError, match="the reference refused"):
        _ = aside.value
    with beside_next_request(lambda: 7) as aside:   # beside a call that raises: the work is done all the same
        with pytest.raises(StudentCodeError, match="three rows"):
            broken(torch.ones(1))
    assert aside.value == 7
    assert torch.equal(f(torch.ones(3)), torch.full((3,), 2.0))


@pytest.mark.sandbox
def test_only_the_first_request_runs_it_and_without_one_it_runs_when_asked(session):
    f = session.resolve("slow_double", "cpu")
    runs = []
    with beside_next_request(lambda: runs.append(time.monotonic()) or len(runs)) as aside:
        f(torch.ones(1))
        f(torch.ones(1))
    assert len(runs) == 1 and aside.value == 1
    with beside_next_request(lambda: runs.append(time.monotonic()) or len(runs)) as unused:
        pass
    assert len(runs) == 1                # nothing sent: nothing ran
    assert unused.value == 2 and len(runs) == 2
    assert unused.value == 2 and len(runs) == 2    # once
