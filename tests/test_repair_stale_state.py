"""Issue 21, a cache that goes stale named as one (repair._stale_state). A graded function, or a helper it calls,
that keeps something between calls keyed by less than its inputs (a shape, a dtype, a flag) answers a later call of
the same shape with what an earlier call left there. Before, the one-edit search found no edit that holds from a
fresh start (round 63 stopped it from saying one that only steers the cache), and the student read "does not match"
or the symptom's key (blind63's fused [W_Q | W_K | W_V] cached by shape: told `uniform_weights` by a probe that met
the zero weights an earlier call had cached). Now an unedited copy with that state started afresh at every call is
run on the calls the tests checked: where it answers each as the reference does, the state is said, with where it
is written.

Spellings of my own, not blind63's cells."""
from __future__ import annotations

from typing import Any, Callable

import pytest
import torch

from autograder.grading.pyparse import parse
from autograder.grading.repair import STATE_KEY, _fresh_each_call, _kept_state, name_by_one_edit, same_answer
from tests.test_repair import _inputs, _Namespace, _report


def _weights(Q: torch.Tensor, K: torch.Tensor) -> torch.Tensor:
    return torch.softmax(Q @ K.transpose(-2, -1) / Q.shape[-1] ** 0.5, dim=-1)


def _attend(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor) -> torch.Tensor:
    return _weights(Q, K) @ V


def _named(cell: str, name: str, reference: Callable[..., Any], calls: list[tuple[Any, ...]],
           first_probe: bool = False) -> list[Any]:
    """Each call its own test; with `first_probe`, the first two calls are one test whose first call is right."""
    space = _Namespace(cell)
    reports = []
    statuses: dict[tuple[str, str], bool] = {}
    for k, inputs in enumerate(calls):
        test = ("q1", "t0" if first_probe and k < 2 else f"t{k}")
        space.recorded.test = test
        try:
            answer = space.ns[name](*inputs)
        except Exception as e:  # noqa: BLE001 - recorded as the proxy would
            answer = e
        space.recorded.add(name, inputs, {}, answer)
        right = not isinstance(answer, BaseException) and same_answer(answer, reference(*inputs))
        statuses[test] = statuses.get(test, True) and right
    for (q, t), right in statuses.items():
        reports.append(_report(q, t, status="passed" if right else "failed",
                               key="uniform_weights" if first_probe and t == "t0" and not right else None))
    return name_by_one_edit(reports, space, {name: reference}, [space.cell])


STALE: dict[str, tuple[str, str, Callable[..., Any], str, str]] = {
    # (the cell, the graded function, the reference, the name kept, who keeps it: "" the function itself)
    "weights cached by the scores' shape": (
        "import torch\n"
        "_W_BY_SHAPE = {}\n"
        "\n"
        "def weights(Q, K):\n"
        "    key = (Q.shape[-2], K.shape[-2])\n"
        "    if key not in _W_BY_SHAPE:\n"
        "        s = Q @ K.transpose(-2, -1) / Q.shape[-1] ** 0.5\n"
        "        _W_BY_SHAPE[key] = torch.softmax(s, dim=-1)\n"
        "    return _W_BY_SHAPE[key]\n"
        "\n"
        "_demo = weights(torch.zeros(3, 4, dtype=torch.float64), torch.zeros(5, 4, dtype=torch.float64))\n",
        "weights", _weights, "_W_BY_SHAPE", ""),
    "a global remembered at the first call": (
        "import torch\n"
        "_first_K = None\n"
        "\n"
        "def weights(Q, K):\n"
        "    global _first_K\n"
        "    if _first_K is None or _first_K.shape != K.shape:\n"
        "        _first_K = K.clone()\n"
        "    return torch.softmax(Q @ _first_K.transpose(-2, -1) / Q.shape[-1] ** 0.5, dim=-1)\n"
        "\n"
        "_demo = weights(torch.ones(3, 4, dtype=torch.float64), torch.ones(5, 4, dtype=torch.float64))\n",
        "weights", _weights, "_first_K", ""),
    "a helper's list used as a one-entry memo": (
        "import torch\n"
        "_memo = []\n"
        "\n"
        "def probs(S):\n"
        "    if not _memo or _memo[0][0] != tuple(S.shape):\n"
        "        _memo[:] = [(tuple(S.shape), torch.softmax(S, dim=-1))]\n"
        "    return _memo[0][1]\n"
        "\n"
        "def attend(Q, K, V):\n"
        "    return probs(Q @ K.transpose(-2, -1) / Q.shape[-1] ** 0.5) @ V\n"
        "\n"
        "_demo = attend(*[torch.ones(2, 4, dtype=torch.float64)] * 3)\n",
        "attend", _attend, "_memo", "probs"),
}


@pytest.mark.parametrize("spelling", sorted(STALE))
def test_a_cache_keyed_by_less_than_its_inputs_is_named_as_state(spelling: str) -> None:
    cell, name, reference, state, holder = STALE[spelling]
    three = name == "attend"
    calls = [_inputs((3, 4), (5, 4), *([(5, 2)] if three else []), seed=s) for s in (1, 2, 3)]
    if three:
        calls = [_inputs((2, 4), (2, 4), (2, 4), seed=s) for s in (1, 2)] + [_inputs((3, 4), (5, 4), (5, 2), seed=3)]
    out = _named(cell, name, reference, calls)
    failed = [r for r in out if r.status == "failed"]
    assert failed, spelling
    for r in failed:
        said = r.message.split("\n", 1)[0]
        assert r.misconception == STATE_KEY, (spelling, r.misconception, said)
        assert f"keeps state between calls in `{state}`" in said, said
        assert "started afresh at every call" in said and "in place of" not in said, said
        assert (f"calls `{holder}`, which keeps" in said) == bool(holder), said


def test_a_probe_after_a_right_first_call_is_told_the_state_not_its_symptom() -> None:
    """A test whose first call came out right and whose second (a probe on other numbers of the same shape) met the
    cache: its symptom key (an effect key) gives way to the state, where the state explains the function."""
    cell, name, reference, state, _ = STALE["weights cached by the scores' shape"]
    # t0: the demo's shape again, first on zeros (what the demo cached: right), then a probe on other numbers
    zeros = (torch.zeros(3, 4, dtype=torch.float64), torch.zeros(5, 4, dtype=torch.float64))
    calls = [zeros, _inputs((3, 4), (5, 4), seed=4), _inputs((3, 4), (5, 4), seed=5)]
    out = _named(cell, name, reference, calls, first_probe=True)
    told = {r.name: r for r in out if r.status == "failed"}
    assert set(told) == {"t0", "t2"}, told
    assert told["t0"].misconception == STATE_KEY, told["t0"]
    assert f"keeps state between calls in `{state}`" in told["t0"].message


def test_a_slip_beside_a_cache_keyed_by_every_input_is_no_state() -> None:
    """A cache keyed by the inputs' values is harmless: the slip (the scale multiplied) is what is wrong, and a copy
    with the cache fresh at every call is as wrong, so the state is not said."""
    cell = ("import torch\n"
            "_SEEN = {}\n"
            "\n"
            "def weights(Q, K):\n"
            "    key = (Q.shape, K.shape, float(Q.sum()), float(K.sum()))\n"
            "    if key not in _SEEN:\n"
            "        _SEEN[key] = torch.softmax(Q @ K.transpose(-2, -1) * Q.shape[-1] ** 0.5, dim=-1)\n"
            "    return _SEEN[key]\n")
    out = _named(cell, "weights", _weights, [_inputs((3, 4), (5, 4), seed=s) for s in (6, 7)])
    failed = [r for r in out if r.status == "failed"]
    assert failed and all(r.misconception != STATE_KEY for r in failed), [(r.misconception, r.message) for r in failed]
    assert all("keeps state" not in r.message for r in failed), failed[0].message


def test_the_fresh_copy_starts_each_kept_name_inside_the_call() -> None:
    cells = ["_buf = None\n_log = []\n",
             "def f(x):\n"
             "    \"\"\"doc\"\"\"\n"
             "    global _buf, other\n"
             "    _log.append(x)\n"
             "    if _buf is None:\n"
             "        _buf = x\n"
             "    other = 1\n"
             "    return _buf\n"]
    fn = parse(cells[1]).body[0]
    kept, _ = _kept_state(fn, cells)
    source = _fresh_each_call(fn, kept, "_ag_copy")
    assert source is not None
    space: dict[str, Any] = {}
    exec(source, space)      # noqa: S102 - the test's own code
    assert space["_ag_copy"](1) == 1 and space["_ag_copy"](2) == 2     # no call sees the one before
    assert "global other" in source and "_buf = None" in source and "_log = []" in source
    # a nested def naming a kept name would read the module's, not the fresh one: no copy is made
    nested = parse("def g(x):\n    _log.append(x)\n    return lambda: _log\n").body[0]
    assert _fresh_each_call(nested, _kept_state(nested, ["_log = []\n"])[0], "_ag_copy") is None
