"""sdpa-from-scratch, naming round 63 (after blind63, an optimisation that changed the result): a causal mask built
once at the size of the first call, kept between calls (a global, a dict, a function attribute) and only sliced
after is mask_built_once_first_call, named where the answer is the causal mask of a smaller size and a second call
larger than both lengths gives the same capped mask (a fixed block_size buffer stays fixed_size_mask's); a mask
written in place (tril_, triu_) into an expanded row is inplace_on_expanded, replayed with torch itself at the
answer's size where the cell expands and writes in place (q4, and q6 through causal_mask(3)); q1's shapes with the
query axis 1 where T_q = 10 is asked, one KV-cache decoding step, are one_query_decoding_shape; q8's attn_entries
equal to one FlashAttention tile, BLOCK_M x BLOCK_N with both sides written in the cell, is entries_of_one_tile
(a side 64, d_k's width too, only where an identifier says block or tile). Each kind is graded through the sandbox
on variants of its own, with correct neighbours at full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import graded_as

HEAD = "def causal_mask(T_q, T_k=None):\n    T_k = T_q if T_k is None else T_k\n"


def _mask(body, before=""):
    return {"causal_mask": before + HEAD + body}


def _shapes(weights="(4, 10, 10)", out="(4, 10, 128)", before=""):
    return {"weights_shape": f"{before}weights_shape = {weights}\nout_shape = {out}\n"}


def _entries(entries, before=""):
    return {"attn_entries": f"{before}attn_entries = {entries}\nscore_madds = 1024 * 1024 * 64\ncost_ratio = 4\n"}


WRONG = {
    "mask_built_once_first_call": (("q4",), "keeps between calls", [
        _mask("    global _M\n"
              "    if _M is None:\n"
              "        _M = torch.tril(torch.ones(T_q, T_k)).bool()\n"
              "    return _M[:T_q, :T_k]\n", before="_M = None\n\n\n"),
        _mask("    if 'tri' not in _cache:\n"
              "        _cache['tri'] = torch.ones(T_q, T_k, dtype=torch.bool).tril()\n"
              "    return _cache['tri'][:T_q, :T_k]\n", before="_cache = {}\n\n\n"),
        _mask("    if not hasattr(causal_mask, 'buf'):\n"
              "        causal_mask.buf = torch.ones(T_q, T_k).tril() > 0\n"
              "    return causal_mask.buf[:T_q][:, :T_k]\n"),
    ]),
    "inplace_on_expanded": (("q4", "q6"), "made by expand", [
        _mask("    return torch.ones(T_k, dtype=torch.bool).expand(T_q, -1).tril_()\n"),
        _mask("    m = torch.broadcast_to(torch.ones(1, T_k, dtype=torch.bool), (T_q, T_k))\n"
              "    return ~m.triu_(1)\n"),
        _mask("    row = torch.ones(1, T_k)\n"
              "    return row.expand(T_q, T_k).tril_() > 0\n"),
    ]),
    "one_query_decoding_shape": (("q1",), "one query where there are 10", [
        _shapes(weights="(4, 1, 10)", out="(4, 1, 128)"),
        _shapes(weights="tuple((_q @ _k.transpose(1, 2)).shape)", out="(_q.shape[0], _q.shape[1], 128)",
                before="_q, _k = torch.empty(4, 1, 64), torch.empty(4, 10, 64)    # the newest token's query\n"),
    ]),
    "entries_of_one_tile": (("q8",), "one tile", [
        _entries("BLOCK_M * BLOCK_N", before="BLOCK_M, BLOCK_N = 128, 64\n"),
        _entries("128 ** 2"),
        _entries("Br * Bc", before="Br = Bc = 64\n"),
    ]),
}

CORRECT = [
    _mask("    global _M\n"
          "    if _M is None or _M.shape[0] < T_q or _M.shape[1] < T_k:\n"
          "        _M = torch.ones(T_q, T_k, dtype=torch.bool).tril()\n"
          "    return _M[:T_q, :T_k]\n", before="_M = None\n\n\n"),
    _mask("    return torch.ones(1, T_k, dtype=torch.bool).expand(T_q, T_k).clone().tril_()\n"),
    _mask("    return torch.ones(1, T_k, dtype=torch.bool).repeat(T_q, 1).tril_()\n"),
    _shapes(weights="(_q.shape[0], _q.shape[1], _k.shape[1])", out="(4, _q.shape[1], 128)",
            before="_q, _k = torch.empty(4, 10, 64), torch.empty(4, 10, 64)\n"),
    _entries("(T // BLOCK) ** 2 * BLOCK * BLOCK", before="T, BLOCK = 1024, 128\n"),
]

# wrong, but not these mistakes: left to other keys or generic (never named from the value alone)
UNNAMED = {
    "mask_built_once_first_call": [_mask("    return _BUF[:T_q, :T_k]\n",
                                         before="_BUF = torch.ones(16, 16, dtype=torch.bool).tril()\n\n\n")],
    "one_query_decoding_shape": [_shapes(weights="(4, 10, 1)", out="(4, 10, 128)")],
    "entries_of_one_tile": [_entries("64 * 64"), _entries("128 * 128 // 2")],
}


_graded = graded_as("sdpa-from-scratch", "round63")


@pytest.mark.parametrize("key, where, words, cells", [(k, w, s, c) for k, (w, s, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_w, _s, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, key, where, words, cells):
    outcome = _graded(grader, cells)
    assert outcome.status == "graded" and outcome.failed, outcome.explain()
    named = [(q, m) for q, _t, k, m in outcome.failed if k == key]
    assert named and all(q in where for q, _m in named), outcome.explain()
    assert all(words in m for _q, m in named), outcome.explain()
    # no other catalogued key on any failure: the dependency's one_edit_fix or nothing (a generic message)
    assert all(k in (key, None, "one_edit_fix") for _q, _t, k, _m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("key, cells", [(k, c) for k, cs in UNNAMED.items() for c in cs],
                         ids=[f"{k}-{i}" for k, cs in UNNAMED.items() for i in range(len(cs))])
def test_look_alikes_are_not_named_so(grader, key, cells):
    outcome = _graded(grader, cells)
    assert outcome.status == "graded" and outcome.failed, outcome.explain()
    assert key not in [k for _q, _t, k, _m in outcome.failed], outcome.explain()


@pytest.mark.parametrize("cells", CORRECT, ids=[f"{next(iter(c))}-{i}" for i, c in enumerate(CORRECT)])
def test_correct_neighbours_keep_full_marks(grader, cells):
    outcome = _graded(grader, cells)
    assert outcome.full_marks, outcome.explain()
