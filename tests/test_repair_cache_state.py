"""Issue 21, a one-edit fix must be true (naming round 63): the one-edit search runs its copies in the student's
worker after the notebook ran, so a module-level name the function keeps between calls (`global _buf` built on the
first call, `_cache[key] = ...`) holds what the notebook's own calls left there. blind63's `if _causal_buffer is None:`
made `is not None` (and the same for a fused `_W_QKV` weight) was right on every recorded call only because an earlier
call had filled the cache; from the top the function never builds it (None[:T_q, :T_k]). Each fix of such a function
is now run again with that state fresh (autograder/grading/repair.py: _state_steered); where none holds, the student
reads that the function keeps state between calls (state_kept_between_calls), never the false edit.

Spellings of my own, not blind63's cells."""
from __future__ import annotations

from typing import Any, Callable

import pytest
import torch

from autograder.grading.grader import Grader
from autograder.grading.repair import KEY, STATE_KEY, Edit, _kept_state, _mentions, name_by_one_edit, same_answer
from autograder.grading.pyparse import parse
from tests.heldout.harness import grade_cells
from tests.test_repair import _inputs, _Namespace, _report


def _mask(T_q: int, T_k: int) -> torch.Tensor:
    return torch.ones(T_q, T_k, dtype=torch.bool).tril()


def _scores(Q: torch.Tensor, K: torch.Tensor) -> torch.Tensor:
    return Q @ K.T / Q.shape[-1] ** 0.5


def _project(X: torch.Tensor, W_Q: torch.Tensor, W_K: torch.Tensor) -> torch.Tensor:
    return torch.cat([X @ W_Q, X @ W_K], dim=1)


def _masked(Q: torch.Tensor, K: torch.Tensor, M: torch.Tensor) -> torch.Tensor:
    return (Q @ K.T / Q.shape[-1] ** 0.5).masked_fill(M == 0, float("-inf"))


# a cache filled on the notebook's own first call (the cell's demo at its bottom), then reused:
# (the cell, the function, the reference, the tests' calls, the cached name)
CACHED: dict[str, tuple[str, str, Callable[..., Any], list[tuple[Any, ...]], str]] = {
    "global None-check of a mask": (
        "_tri = None\n"
        "\n"
        "def causal_mask(T_q, T_k):\n"
        "    global _tri\n"
        "    if _tri is None:\n"
        "        _tri = torch.ones(T_q, T_k, dtype=torch.bool).tril()\n"
        "    return _tri[:T_q, :T_k]\n"
        "\n"
        "_demo = causal_mask(6, 9)\n",
        "causal_mask", _mask, [(11, 11), (9, 6), (4, 12)], "_tri"),
    "dict keyed by too little": (
        "_SCORES = {}\n"
        "\n"
        "def scaled_scores(Q, K):\n"
        "    d_k = Q.shape[-1]\n"
        "    S = _SCORES.get(d_k)\n"
        "    if S is None:\n"
        "        S = _SCORES[d_k] = Q @ K.T / d_k ** 0.5\n"
        "    return S\n"
        "\n"
        "_demo = scaled_scores(torch.ones(2, 4, dtype=torch.float64), torch.ones(3, 4, dtype=torch.float64))\n",
        "scaled_scores", _scores, [_inputs((2, 4), (3, 4), seed=1), _inputs((2, 4), (3, 4), seed=2)], "_SCORES"),
    "fused weight cached at the first call": (
        "_W_QK = None\n"
        "\n"
        "def project(X, W_Q, W_K):\n"
        "    global _W_QK\n"
        "    if _W_QK is None:\n"
        "        _W_QK = torch.cat([W_Q, W_K], dim=1)\n"
        "    return X @ _W_QK\n"
        "\n"
        "_demo = project(*[torch.ones(4, 4, dtype=torch.float64)] * 3)\n",
        "project", _project, [_inputs((5, 4), (4, 4), (4, 4), seed=3), _inputs((3, 4), (4, 4), (4, 4), seed=4)],
        "_W_QK"),
}


# `_SCORES.get(d_k)` made `.get(Q)` (or `.get(K)`) also gives every call's answer from a fresh dict (a tensor is never
# a key there, so each call computes its own): true edits, but two of them, told apart by nothing; the flipped
# `S is None` (right only on the notebook's own state) is dropped, and what is left says nothing (None) or the state
UNTOLD_APART = {"dict keyed by too little"}


def _named(cell: str, name: str, reference: Callable[..., Any], calls: list[tuple[Any, ...]]) -> list[Any]:
    space = _Namespace(cell)
    reports = []
    for k, inputs in enumerate(calls):
        test = ("q1", f"t{k}")
        space.recorded.test = test
        try:
            answer = space.ns[name](*inputs)
        except Exception as e:  # noqa: BLE001 - recorded as the proxy would
            answer = e
        space.recorded.add(name, inputs, {}, answer)
        right = not isinstance(answer, BaseException) and same_answer(answer, reference(*inputs))
        reports.append(_report(*test, status="passed" if right else "failed"))
    return name_by_one_edit(reports, space, {name: reference}, [space.cell])


@pytest.mark.parametrize("spelling", sorted(CACHED))
def test_an_edit_that_only_steers_a_cache_is_not_said_and_the_state_is(spelling: str) -> None:
    cell, name, reference, calls, state = CACHED[spelling]
    out = _named(cell, name, reference, calls)
    failed = [r for r in out if r.status == "failed"]
    assert failed, spelling
    for r in failed:
        said = r.message.split("\n", 1)[0]
        assert "S is not None" not in said, said          # the flipped check: right only on the notebook's state
        if spelling in UNTOLD_APART and r.misconception is None:
            continue
        assert r.misconception == STATE_KEY, (spelling, r.misconception, said)
        assert "in place of" not in said and "is not None" not in said and " in `" in said, said
        assert f"keeps state between calls in `{state}`" in said, said
        assert "Build it on every call, or key it by every input it depends on" in said, said


def test_a_genuine_slip_beside_a_harmless_cache_still_gets_its_edit() -> None:
    cell = ("_SCALES = {}\n"
            "\n"
            "def masked(Q, K, M):\n"
            "    d_k = Q.shape[-1]\n"
            "    if d_k not in _SCALES:\n"
            "        _SCALES[d_k] = 1.0 / d_k ** 0.5\n"
            "    S = (Q @ K.T) * _SCALES[d_k]\n"
            "    return S.masked_fill(M == 1, float('-inf'))\n"
            "\n"
            "_demo = masked(torch.ones(2, 4), torch.ones(3, 4), torch.ones(2, 3))\n")
    g = torch.Generator().manual_seed(5)
    calls = [(*_inputs((3, 4), (5, 4), seed=6), torch.randint(0, 2, (3, 5), generator=g)),
             (*_inputs((2, 8), (4, 8), seed=7), torch.randint(0, 2, (2, 4), generator=g))]
    for _, _, M in calls:
        M[:, 0] = 1        # every query sees key 0 (no row all -inf)
    out = _named(cell, "masked", _masked, calls)
    failed = [r for r in out if r.status == "failed"]
    assert failed and all(r.misconception == KEY for r in failed), [(r.misconception, r.message) for r in failed]
    said = failed[0].message.split("\n", 1)[0]
    assert "in place of" in said and "M == 1" in said, said


def test_the_state_a_function_writes() -> None:
    cells = ["import torch\n_buf = None\n_memo = {}\n_log = []\n_t = torch.zeros(3)\n",
             "def f(x, y):\n"
             "    global _buf\n"
             "    _memo[x] = y\n"
             "    _log.append(x)\n"
             "    _t[0] = 1\n"
             "    torch.manual_seed(0)\n"
             "    out = []\n"
             "    out.append(y)\n"
             "    _buf = x\n"
             "    return torch.cat(out)\n"]
    fn = parse(cells[1]).body[0]
    kept, first = _kept_state(fn, cells)
    # a module-level tensor changed in place is state whose start is no literal (""): an edit reading it is refused
    assert kept == {"_memo": "{}", "_log": "[]", "_t": "", "_buf": "None"}, kept
    assert first == {"_memo": 3, "_log": 4, "_t": 5, "_buf": 9}, first
    assert _mentions(Edit(line=2, before="_t[0]", after="_t[1]", source=""), ["_t"])
    assert not _mentions(Edit(line=2, before="self._t", after="x", source=""), ["_t"])


# whole notebooks: sdpa-from-scratch's causal_mask cell
MASK_HEAD = ("import torch\n"
             "\n"
             "_MASKS = {}\n"
             "\n"
             "def causal_mask(T_q, T_k=None):\n"
             "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j, i.e. j <= i.\"\"\"\n"
             "    if T_k is None:\n"
             "        T_k = T_q\n")


@pytest.mark.parametrize("body", [
    # a triangle kept in a global from the first call, sliced after (the notebook's own causal_mask(4, 7) fills it)
    ("_TRI = None\n"
     "\n"
     "def causal_mask(T_q, T_k=None):\n"
     "    global _TRI\n"
     "    T_k = T_q if T_k is None else T_k\n"
     "    if _TRI is None:\n"
     "        _TRI = torch.tril(torch.ones(T_q, T_k)).bool()\n"
     "    return _TRI[:T_q, :T_k].clone()\n"),
    # a dict keyed by the query length alone
    MASK_HEAD + ("    if T_q not in _MASKS:\n"
                 "        _MASKS[T_q] = torch.ones(T_q, T_k, dtype=torch.bool).tril()\n"
                 "    return _MASKS[T_q]\n"),
])
def test_a_mask_kept_between_calls_is_not_told_a_false_edit(grader: Grader, body: str) -> None:
    cell = "import torch\n\n" + body + "\nprint(causal_mask(4, 7))\n" if "_TRI" in body else body
    outcome = grade_cells(grader, "sdpa-from-scratch", {"causal_mask": cell}, "round63")
    assert outcome.score < outcome.max_score and outcome.failed, outcome.failed
    for _q, _t, key, message in outcome.failed:
        said = message.split("\n", 1)[0]
        assert key != KEY or ("_TRI" not in said and "_MASKS" not in said), said
    if "_TRI" in body:      # named: by the state (repair) or the catalogue's own key for a mask built once
        assert all(key in (STATE_KEY, "mask_built_once_first_call") for q, _t, key, _m in outcome.failed
                   if q == "q4"), outcome.failed


FUSED = '''
_CACHE = {}                                              # the fused projection weight, kept under "qkv"


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
    d_model = X.shape[1]
    d_k = d_model // n_heads
    W = _CACHE.get("qkv")
    if W is None:
        W = _CACHE["qkv"] = torch.cat([W_Q, W_K, W_V], dim=1)
    Q, K, V = (X @ W).chunk(3, dim=1)
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
    return torch.cat(heads, dim=1) @ W_O
'''


def test_a_fused_weight_kept_in_a_dict_is_told_the_state_not_a_flipped_check(grader: Grader) -> None:
    outcome = grade_cells(grader, "scaled-attention", {"multi_head_attention": FUSED}, "round63")
    q8 = [f for f in outcome.failed if f[0] == "q8"]
    assert q8 and outcome.score < outcome.max_score, outcome.failed
    for _q, _t, key, message in q8:
        said = message.split("\n", 1)[0]
        assert "W is not None" not in said, said
        assert key == STATE_KEY and "keeps state between calls in `_CACHE`" in said, (key, said)


def test_a_fused_weight_built_on_every_call_keeps_full_marks(grader: Grader) -> None:
    cell = FUSED.replace('    W = _CACHE.get("qkv")\n    if W is None:\n        W = _CACHE["qkv"] = ',
                         '    W = _CACHE["qkv"] = ')
    assert "_CACHE.get" not in cell
    outcome = grade_cells(grader, "scaled-attention", {"multi_head_attention": cell}, "round63")
    assert outcome.full_marks, outcome.failed


def test_a_mask_cached_by_every_input_keeps_full_marks(grader: Grader) -> None:
    cell = MASK_HEAD + ("    if (T_q, T_k) not in _MASKS:\n"
                        "        _MASKS[(T_q, T_k)] = torch.ones(T_q, T_k, dtype=torch.bool).tril()\n"
                        "    return _MASKS[(T_q, T_k)].clone()\n")
    outcome = grade_cells(grader, "sdpa-from-scratch", {"causal_mask": cell}, "round63")
    assert outcome.full_marks, outcome.failed
