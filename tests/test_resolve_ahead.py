"""A resolve the worker must answer also answers the names the tests will resolve next (`expect`, said
by the runner), in one round trip: each answer is what a resolve of its own would have given at that
moment, because nothing else reaches the worker in between; anything sent to it (a call) drops them,
a name asked out of order is asked afresh, and a value too large to read ahead is asked alone."""
from __future__ import annotations

import pytest
import torch

from autograder.errors import NotAnswered, StudentCodeError
from autograder.sandbox import SandboxPolicy
from autograder.sandbox.messages import RESOLVE_THEN_BYTES

from tests.conftest import course_zygote, worker_after

pytestmark = pytest.mark.sandbox

POLICY = SandboxPolicy(cell_timeout_s=5, call_timeout_s=5, submission_timeout_s=60)

CELL = """
import torch
a = 1
b = torch.arange(4.0)
answer = ...
def f(x):
    return x * 2
def bump(x):
    global a
    a = a + 1
    return x
class Loud:
    def __init__(self):
        self.__dict__ = {}
loud = Loud()
big = torch.zeros(%d, dtype=torch.float64)
""" % (RESOLVE_THEN_BYTES // 4)


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


def test_the_names_expected_next_come_in_one_round_trip(session):
    session.expect(["a", "b", "f", "missing_name", "answer"])
    sent = requests(session)
    assert session.resolve("a", "cpu") == 1
    assert torch.equal(session.resolve("b", "cpu"), torch.arange(4.0))
    f = session.resolve("f", "cpu")
    assert session.resolve("missing_name", "cpu") is None
    with pytest.raises(NotAnswered):
        session.resolve("answer", "cpu")
    assert requests(session) == sent + 1
    assert torch.equal(f(torch.ones(2)), torch.full((2,), 2.0))


def test_a_call_drops_what_was_read_ahead(session):
    session.expect(["a", "bump", "a", "b"])
    assert session.resolve("a", "cpu") == 1
    session.resolve("bump", "cpu")(torch.ones(1))
    assert session.resolve("a", "cpu") == 2   # read afresh after the call, not the 1 read ahead
    assert torch.equal(session.resolve("b", "cpu"), torch.arange(4.0))


def test_a_name_asked_out_of_order_is_asked_afresh(session):
    session.expect(["a", "b", "f"])
    session.resolve("a", "cpu")
    sent = requests(session)
    assert callable(session.resolve("f", "cpu"))          # b skipped: the read-ahead is dropped
    assert requests(session) == sent + 1
    assert torch.equal(session.resolve("b", "cpu"), torch.arange(4.0))
    assert requests(session) == sent + 2


def test_a_large_value_is_not_read_ahead(session):
    session.expect(["a", "big", "b"])
    sent = requests(session)
    assert session.resolve("a", "cpu") == 1
    big = session.resolve("big", "cpu")                 # skipped by the worker: asked alone
    assert requests(session) == sent + 2 and big.shape == (RESOLVE_THEN_BYTES // 4,)
    assert torch.equal(session.resolve("b", "cpu"), torch.arange(4.0))
    assert requests(session) == sent + 2               # b came with big's own request


def test_a_value_that_cannot_cross_fails_when_asked_only(session):
    session.expect(["a", "loud", "b"])
    assert session.resolve("a", "cpu") == 1
    with pytest.raises(StudentCodeError):
        session.resolve("loud", "cpu")
    assert torch.equal(session.resolve("b", "cpu"), torch.arange(4.0))


def test_unexpected_names_are_resolved_alone(session):
    session.expect([])
    sent = requests(session)
    assert session.resolve("a", "cpu") == 1 and requests(session) == sent + 1
    assert session._resolved_ahead == []


FORGE = """
import gc, sys
worker = next(o for o in gc.get_objects() if type(o).__name__ == "Worker")
worker.resolve_then_bytes = 1 << 40          # it no longer keeps to the limit itself
protocol = sys.modules["autograder.sandbox.protocol"]
real = protocol.frame_bytes
def padded(message):
    if message.get("index") == 1:
        message = dict(message, pad="x" * (%d))
    return real(message)
protocol.frame_bytes = padded
""" % (2 * RESOLVE_THEN_BYTES)


def test_a_worker_that_sends_an_oversized_answer_ahead_is_killed(session):
    """A compromised worker (student code that patched it) answering a name ahead with more than the
    limit: refused before it is read, and the worker is stopped."""
    from autograder.errors import ProtocolError
    assert [c.status for c in session.exec_cells([CELL, FORGE]).cells] == ["ok", "ok"]
    session.expect(["a", "b"])
    with pytest.raises(ProtocolError):
        session.resolve("a", "cpu")
    assert not session.alive()


FORGE_TURN = """
import sys
protocol = sys.modules["autograder.sandbox.protocol"]
real = protocol.frame_bytes
def forged(message):
    if message.get("index") == 1 and "kind" in message:   # a resolve's answer ahead, not a cell's event
        message = dict(message, %s)
    return real(message)
protocol.frame_bytes = forged
"""


@pytest.mark.parametrize("change", ['index=2', 'more=True'], ids=["out_of_turn", "more_replies_than_names"])
def test_a_worker_that_answers_ahead_out_of_turn_is_killed(session, change):
    """A compromised worker answering ahead under another name's index, or announcing more answers than
    names were asked: the reply is not taken for any name, and the worker is stopped."""
    from autograder.errors import ProtocolError
    assert [c.status for c in session.exec_cells([CELL, FORGE_TURN % change]).cells] == ["ok", "ok"]
    session.expect(["a", "b"])
    with pytest.raises(ProtocolError):
        session.resolve("a", "cpu")
    assert not session.alive()
