"""attention-pipeline, naming round 44 (blind43's kinds): qkv_param_count keeping state between calls (a list or dict
default argument that every call extends, a module-level list every call appends to) gives a different count when called
twice with the same arguments, and is param_count_state_between_calls on the q12 tests, never the W_O reading
(a wrong default or a stateless wrong W_O gives the same count twice and keeps its other name). Three wrong variants
of my own, two correct ones at full marks (a None default, a memo of right counts), two near misses."""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_named, failed_keys, graded_as


PARAMS = "qkv_param_count"


_graded = graded_as("attention-pipeline", "round44")


# --- q12: state kept between calls ---------------------------------------------------------------------------------

@pytest.mark.parametrize("source", [
    # a dict default caching the running total per flag
    "def qkv_param_count(d_model, d_k, d_v, with_output=False, _seen={'n': 0}):\n"
    "    _seen['n'] += d_model * (2 * d_k + d_v) + (d_v * d_model if with_output else 0)\n"
    "    return _seen['n']\n",
    # a list default extended with each matrix's count, summed
    "def qkv_param_count(d_model, d_k, d_v, with_output=False, counts=[]):\n"
    "    counts.extend([d_model * d_k, d_model * d_k, d_model * d_v])\n"
    "    if with_output:\n        counts.append(d_v * d_model)\n"
    "    return sum(counts)\n",
    # a module-level list every call appends its shapes to
    "_SHAPES = []\n\n\ndef qkv_param_count(d_model, d_k, d_v, with_output=False):\n"
    "    _SHAPES.append((d_model, d_k))\n    _SHAPES.append((d_model, d_k))\n    _SHAPES.append((d_model, d_v))\n"
    "    if with_output:\n        _SHAPES.append((d_v, d_model))\n"
    "    return sum(r * c for r, c in _SHAPES)\n",
])
def test_state_between_calls_is_named(grader: Grader, source: str) -> None:
    assert_named(_graded(grader, {PARAMS: source}), "param_count_state_between_calls", {"q12"})


def test_list_built_inside_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {PARAMS: "def qkv_param_count(d_model, d_k, d_v, with_output=False, shapes=None):\n"
                                               "    shapes = [] if shapes is None else list(shapes)\n"
                                               "    shapes += [(d_model, d_k), (d_model, d_k), (d_model, d_v)]\n"
                                               "    if with_output:\n        shapes.append((d_v, d_model))\n"
                                               "    return sum(r * c for r, c in shapes)\n"}))


def test_cached_right_count_keeps_full_marks(grader: Grader) -> None:
    # state that does not change the answer (a memo of right counts) is no mistake
    assert_full_marks(_graded(grader, {PARAMS: "def qkv_param_count(d_model, d_k, d_v, with_output=False, _memo={}):\n"
                                               "    key = (d_model, d_k, d_v, with_output)\n"
                                               "    if key not in _memo:\n"
                                               "        _memo[key] = d_model * (2 * d_k + d_v) + (d_v * d_model if with_output else 0)\n"
                                               "    return _memo[key]\n"}))


def test_wrong_default_is_not_state(grader: Grader) -> None:
    # with_output=True by default: the same wrong count on every call, never the state key
    keys = failed_keys(_graded(grader, {PARAMS: "def qkv_param_count(d_model, d_k, d_v, with_output=True):\n"
                                                "    return d_model * (2 * d_k + d_v) + (d_v * d_model if with_output else 0)\n"}))
    assert "param_count_state_between_calls" not in keys, keys


def test_stateless_wrong_wo_is_not_state(grader: Grader) -> None:
    # W_O sized d_k x d_k, the same on every call: its own key, not the state one
    keys = failed_keys(_graded(grader, {PARAMS: "def qkv_param_count(d_model, d_k, d_v, with_output=False):\n"
                                                "    return d_model * (2 * d_k + d_v) + (d_k * d_k if with_output else 0)\n"}))
    assert "param_count_state_between_calls" not in keys, keys
