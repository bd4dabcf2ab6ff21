"""Issue 21, blind66 (right in the middle, wrong at the edges): a function right on ordinary inputs and wrong where an
axis the question allows to be 1 is 1 (a shortcut branch for one query that drops the mask, a bare `.squeeze()`, an
`if T_q == 1` returning another mask) was told "does not match" or a raw crash at first sight. The engine now tries
the failing call again with each length-1 axis made 2 long (the values kept, one more entry drawn) and each size of
1 made 2; where the student's function is then right, the failure is named `length_one_handled_differently`, with the
line that handles the length of 1 (autograder/grading/length_one.py). A mistake in the general code stays wrong on
the widened input and is not named so.

Spellings of my own, not blind66's cells."""
from __future__ import annotations

import math
from typing import Any, Callable

import pytest
import torch

from autograder.grading.length_one import KEY, name_length_one, widened
from autograder.grading.namespaces import RecordedCall
from autograder.grading.checks import describe
from tests.test_repair import _report


def _attention(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    return torch.softmax(s, dim=-1) @ V


def _causal_mask(T_q: int, T_k: int) -> torch.Tensor:
    return torch.ones(T_q, T_k, dtype=torch.bool).tril()


def _draw(*shapes: tuple[int, ...], seed: int = 0) -> tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(*s, generator=g, dtype=torch.float64) for s in shapes)


ONE_QUERY = (*_draw((1, 4), (5, 4), (5, 3), seed=1), torch.tensor([[True, False, True, True, False]]))

# a batch of one with a padding mask broadcast over four queries: widening every length-1 axis made the mask (2, 2, 5)
# beside four queries, which the reference refuses; the mask is then left as it is (it broadcasts over the new entry)
PADDED_BATCH_OF_ONE = (*_draw((1, 4, 8), (1, 5, 8), (1, 5, 3), seed=2), torch.tensor([[[True, True, False, True, False]]]))

CELLS: dict[str, tuple[str, str, Callable[..., Any], tuple[Any, ...], str | None]] = {
    "a bare squeeze of the inputs, a batch of one with a padding mask": (
        "import math, torch\n"
        "def attention(Q, K, V, mask=None):\n"
        "    Q, K, V = Q.squeeze(), K.squeeze(), V.squeeze()\n"
        "    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n"
        "    if mask is not None:\n"
        "        s = s.masked_fill(~mask.squeeze(), float('-inf'))\n"
        "    return torch.softmax(s, dim=-1) @ V\n",
        "attention", _attention, PADDED_BATCH_OF_ONE, "Q, K, V = Q.squeeze(), K.squeeze(), V.squeeze()"),
    # (the cell, the function, the reference, the failing call's arguments, the line said (None: not named))
    "a one-query shortcut that drops the mask": (
        "import math, torch\n"
        "def attention(Q, K, V, mask=None):\n"
        "    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n"
        "    if Q.shape[-2] == 1:\n"
        "        return torch.softmax(s, dim=-1) @ V\n"
        "    if mask is not None:\n"
        "        s = s.masked_fill(~mask, float('-inf'))\n"
        "    return torch.softmax(s, dim=-1) @ V\n",
        "attention", _attention, ONE_QUERY, "if Q.shape[-2] == 1:"),
    "a bare squeeze of the output": (
        "import math, torch\n"
        "def attention(Q, K, V, mask=None):\n"
        "    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n"
        "    if mask is not None:\n"
        "        s = s.masked_fill(~mask, float('-inf'))\n"
        "    out = torch.softmax(s, dim=-1) @ V\n"
        "    return out.squeeze()\n",
        "attention", _attention, ONE_QUERY, "return out.squeeze()"),
    "a mask of ones for a single query": (
        "import torch\n"
        "def causal_mask(T_q, T_k):\n"
        "    if T_q < 2:\n"
        "        return torch.ones(1, T_k, dtype=torch.bool)\n"
        "    return torch.ones(T_q, T_k, dtype=torch.bool).tril()\n",
        "causal_mask", _causal_mask, (1, 6), "if T_q < 2:"),
    # the general code is wrong: as wrong on the widened input, so not named so
    "no scale, whatever the length": (
        "import torch\n"
        "def attention(Q, K, V, mask=None):\n"
        "    s = Q @ K.transpose(-2, -1)\n"
        "    if mask is not None:\n"
        "        s = s.masked_fill(~mask, float('-inf'))\n"
        "    return torch.softmax(s, dim=-1) @ V\n",
        "attention", _attention, ONE_QUERY, None),
    # the softmax over the queries: with one query every weight is 1; with two DRAWN queries it is still wrong (two
    # copied rows would not tell it either, but a drawn one is no degenerate input in any case)
    "softmax over the queries": (
        "import math, torch\n"
        "def attention(Q, K, V, mask=None):\n"
        "    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n"
        "    if mask is not None:\n"
        "        s = s.masked_fill(~mask, float('-inf'))\n"
        "    return torch.nan_to_num(torch.softmax(s, dim=-2)) @ V\n",
        "attention", _attention, ONE_QUERY, None),
}


def _run(cell: str, name: str, reference: Callable[..., Any], args: tuple[Any, ...]) -> list[Any]:
    space: dict[str, Any] = {}
    exec(cell, space)      # noqa: S102 - the test's own code
    copies = tuple(a.clone() if isinstance(a, torch.Tensor) else a for a in args)
    try:
        answer = space[name](*copies)
    except Exception as e:  # noqa: BLE001 - recorded as the proxy would
        answer = e
    calls = [RecordedCall(("q1", "t0"), name, args, {}, answer)]

    def call_student(fn: str, a: tuple[Any, ...], k: dict[str, Any]) -> Any:
        return space[fn](*a, **k)
    return name_length_one([_report("q1", "t0")], calls, {name: reference}, ["", cell], call_student, lambda: True)


@pytest.mark.parametrize("spelling", sorted(CELLS))
def test_a_length_of_one_handled_otherwise_is_named_and_a_general_mistake_is_not(spelling: str) -> None:
    cell, name, reference, args, line = CELLS[spelling]
    (r,) = _run(cell, name, reference, args)
    if line is None:
        assert r.misconception is None, (spelling, r.message)
        return
    said = r.message.split("\n", 1)[0]
    assert r.misconception == KEY, (spelling, said)
    assert f"`{line}`" in said and "made 2" in said, said
    assert describe(KEY) and "length-1 axis" in describe(KEY)


def test_what_is_widened() -> None:
    Q, K, V, mask = ONE_QUERY
    made = widened((Q, K, V, mask), {}, _attention)
    assert made is not None
    args, kwargs, said = made
    assert [tuple(a.shape) for a in args] == [(2, 4), (5, 4), (5, 3), (2, 5)]
    assert torch.equal(args[0][:1], Q) and not torch.equal(args[0][1], Q[0])   # kept, and one row drawn
    assert said == ["`Q` of shape (1, 4)", "`mask` of shape (1, 5)"]
    # an axis argument of 1 is no size: nothing else has length 1, so nothing is widened
    x = torch.randn(3, 4, 5, dtype=torch.float64)
    assert widened((x,), {"dim": 1}, lambda x, dim=-1: torch.softmax(x, dim)) is None
    # an argument kept as it is (the padding mask beside four queries)
    Qb, Kb, Vb, pad = PADDED_BATCH_OF_ONE
    kept = widened((Qb, Kb, Vb, pad), {}, _attention, keep=frozenset({3}))
    assert kept is not None and [tuple(a.shape) for a in kept[0]] == [(2, 4, 8), (2, 5, 8), (2, 5, 3), (1, 1, 5)]
    assert kept[0][3] is pad and "`mask` of shape (1, 1, 5)" not in kept[2]
    # integer tensors (indices) and generators are not widened
    assert widened((torch.zeros(1, 3, dtype=torch.long),), {}, lambda t: t) is None
    assert widened((torch.Generator(),), {"T": 1}, lambda g, T: T) is None
