"""Shrinking's calls made ahead (issue 20): the candidates a search will probably try next go to the
worker in one request (`call_ahead`), and the search then takes their answers one by one. The search
and its result are the same as without; a wrong guess costs only calls, never an answer to another
input; each call's answer is its own; the request is bounded in count and ends by the search's
deadline."""
from __future__ import annotations

import time

import pytest
import torch

from autograder.errors import StudentCodeError
from autograder.grading import shrink
from autograder.grading.shrink import AttentionInput, Failure, ShrinkBudget, current_budget
from autograder.sandbox import SandboxPolicy
from autograder.sandbox.messages import MAX_AHEAD
from autograder.sandbox.session import optional_calls

from tests.conftest import course_zygote, worker_after


def _input() -> AttentionInput:
    g = torch.Generator().manual_seed(0)
    return AttentionInput(torch.randn(2, 3, 7, 12, generator=g), torch.randn(2, 3, 9, 12, generator=g),
                          torch.randn(2, 3, 9, 10, generator=g))


RULES = {   # does an input of these sizes (batch0, batch1, T_q, T_k, d_k, d_v) fail?
    "divide_by_dk": lambda s: s[4] >= 2 and s[3] >= 2,
    "erratic": lambda s: (s[2] * s[3] + s[5]) % 3 == 0,
    "batch_or_dv": lambda s: s[0] >= 2 or s[5] >= 5,
    "always": lambda s: True,
}


def _search(rule, ahead: bool, max_calls: int | None = None):
    """The search on a pure-Python `attempt`; with `ahead`, a stand-in for the worker that answers
    the planned calls, and a count of the round trips the search would have made."""
    planned: set[int] = set()
    trips = {"n": 0, "calls made": 0}

    def attempt(inp):
        if id(inp) in planned:
            planned.discard(id(inp))
        else:
            trips["n"] += 1
        return Failure.value(torch.zeros(1), torch.ones(1)) if rule(shrink.sizes(inp)) else None

    def make_ahead(inputs, stop_after_s):
        planned.clear()
        planned.update(id(i) for i in inputs)
        trips["n"] += 1
        trips["calls made"] += len(inputs)
        return len(inputs), False

    with current_budget(ShrinkBudget(per_test_s=60, per_submission_s=60)):
        found = shrink.shrink(_input(), Failure.value(torch.zeros(1), torch.ones(1)), attempt,
                              max_calls=max_calls, ahead=make_ahead if ahead else None)
    return found, trips


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("max_calls", [None, 7])
def test_the_search_finds_the_same_input_with_fewer_round_trips(rule, max_calls):
    plain, plain_trips = _search(RULES[rule], ahead=False, max_calls=max_calls)
    fast, fast_trips = _search(RULES[rule], ahead=True, max_calls=max_calls)
    assert shrink.sizes(fast.input) == shrink.sizes(plain.input)
    assert (fast.calls, fast.stopped, fast.failure.how) == (plain.calls, plain.stopped, plain.failure.how)
    assert plain_trips["n"] == plain.calls
    # a request answers at least the call it was made for: never more round trips; fewer unless the
    # verdicts follow no pattern the guess can see
    assert fast_trips["n"] <= plain_trips["n"]
    if plain.calls >= 6 and rule != "erratic":
        assert fast_trips["n"] < plain_trips["n"], (fast_trips, plain_trips)
    # what a wrong guess costs is bounded: the search's own calls plus AHEAD_SPARE
    assert fast_trips["calls made"] <= plain.calls + shrink.AHEAD_SPARE


def test_divide_by_dk_needs_a_third_of_the_round_trips():
    plain, plain_trips = _search(RULES["divide_by_dk"], ahead=False)
    fast, fast_trips = _search(RULES["divide_by_dk"], ahead=True)
    assert shrink.sizes(fast.input) == shrink.sizes(plain.input) == (1, 1, 1, 2, 2, 1)
    assert fast_trips["n"] * 3 <= plain_trips["n"] + 2, (fast_trips, plain_trips)


# --- through a real worker ------------------------------------------------------------------------

POLICY = SandboxPolicy(cell_timeout_s=5, call_timeout_s=5, submission_timeout_s=120)

CELL = """
import time, torch
calls = []
def f(x):
    calls.append(x.shape[0])
    if x.shape[0] == 3:
        raise ValueError(f"three rows ({len(calls)} calls so far)")
    if x.shape[0] == 5:
        time.sleep(60)
    return x * 2
def g(x):
    return x + 1
def count():
    return len(calls)
def h(x):
    global h
    h = "no longer a function"
    return x
"""


@pytest.fixture(scope="module")
def zygote():
    with course_zygote() as z:
        yield z


@pytest.fixture
def session(zygote):
    with worker_after(zygote, POLICY, [CELL]) as s:
        yield s


def _requests(session) -> int:
    return session._next_id


@pytest.mark.sandbox
def test_each_answer_is_its_own_and_is_taken_without_a_round_trip(session):
    f = session.resolve("f", "cpu")
    xs = [torch.ones(n) for n in (1, 2, 3, 4)]
    with optional_calls(time.monotonic() + 30):
        made, lost = f.call_ahead([((x,), {}) for x in xs], stop_after_s=30)
        assert (made, lost) == (4, False)
        before = _requests(session)
        assert torch.equal(f(xs[0]), xs[0] * 2)
        assert torch.equal(f(xs[1]), xs[1] * 2)
        with pytest.raises(StudentCodeError, match="three rows"):
            f(xs[2])
        assert torch.equal(f(xs[3]), xs[3] * 2)
        assert _requests(session) == before   # all four from the one request
        # an equal tensor that is not the one planned is a new call
        assert torch.equal(f(torch.ones(4)), torch.ones(4) * 2)
        assert _requests(session) == before + 1
    assert session.resolve("count", "cpu")() == 5


@pytest.mark.sandbox
def test_anything_sent_first_drops_the_answers_made_ahead(session):
    f, g = session.resolve("f", "cpu"), session.resolve("g", "cpu")
    x, y = torch.ones(1), torch.ones(2)
    with optional_calls(time.monotonic() + 30):
        assert f.call_ahead([((x,), {}), ((y,), {})], stop_after_s=30) == (2, False)
        g(x)
        before = _requests(session)
        f(y)
        assert _requests(session) == before + 1


@pytest.mark.sandbox
def test_a_call_that_hangs_ends_the_request_at_the_deadline_and_keeps_the_answers_before_it(session):
    f = session.resolve("f", "cpu")
    xs = [torch.ones(n) for n in (1, 2, 5, 4)]
    start = time.monotonic()
    with optional_calls(start + 1.5):
        made, lost = f.call_ahead([((x,), {}) for x in xs], stop_after_s=30)
        assert time.monotonic() - start < 4
        assert (made, lost) == (2, True)
        assert torch.equal(f(xs[1]), xs[1] * 2)   # answered before the hang, so kept
    assert not session.alive() and session.lost_to_optional


@pytest.mark.sandbox
def test_the_worker_stops_after_the_time_it_was_given(session):
    f = session.resolve("f", "cpu")
    with optional_calls(time.monotonic() + 30):
        made, _lost = f.call_ahead([((torch.ones(n),), {}) for n in (1, 2, 4)], stop_after_s=0)
    assert made == 1
    assert session.resolve("count", "cpu")() == 1


@pytest.mark.sandbox
def test_only_inside_optional_calls_and_never_more_than_max_ahead(session):
    f = session.resolve("f", "cpu")
    assert f.call_ahead([((torch.ones(1),), {})], stop_after_s=30) == (0, False)
    with optional_calls(time.monotonic() + 30):
        made, _ = f.call_ahead([((torch.ones(1),), {})] * (MAX_AHEAD + 5), stop_after_s=30)
    assert made == MAX_AHEAD
    # the worker itself refuses a longer request
    rid = session._send("call_ahead", 5.0, name="f", device="cpu", stop_after_s=30.0,
                        calls=[{"args": [], "kwargs": {"__dict__": {}}}] * (MAX_AHEAD + 1))
    reply = session._recv(5, "calling f")
    assert reply["id"] == rid and reply["ok"] is False and reply["error"]["type"] == "ProtocolError"
    assert reply["more"] is False


@pytest.mark.sandbox
def test_a_call_that_rebinds_the_name_is_seen_by_the_next_call(session):
    h = session.resolve("h", "cpu")
    x, y = torch.ones(1), torch.ones(2)
    with optional_calls(time.monotonic() + 30):
        assert h.call_ahead([((x,), {}), ((y,), {})], stop_after_s=30) == (2, False)
        assert torch.equal(h(x), x)
        with pytest.raises(StudentCodeError):
            h(y)   # as a second call of its own would: h is a string now
