"""Red-team round 142: naming round 82's new reads (3131077) attacked as a student and as a class. Repros in /tmp/rt142/
(r.py ROOT SLUG CASEFILE [CASE...] grades a case file's cells: s1.py sdpa-from-scratch's, p1.py attention-pipeline's;
/tmp/rt142-base is 3131077, /tmp/rt142-prev its parent).

- **A default refilled on every call was read as kept between calls (sdpa-from-scratch q5).**
  _mutable_default_filled took any fill of a mutable default from a width for a fill kept from the first call: a
  debug record overwritten on every call (`last['d_k'] = Q.shape[-1]`, read back in an assert) or a log appended on
  every call and read at [-1] (this call's width), beside a typed-in `/ math.sqrt(8)` or `/ 2.0`, were told
  mutable_default_kept_between_calls in 16 q5 tests each, quoting that line ("your function's default is filled and
  read back on every call": it holds this call's width; s1.py A_overwritten_record, A2_log_latest). A fill is kept
  now only where a later call cannot redo it: setdefault, a fill under a test of the default itself (`if not cache:`,
  `if "d" not in opts:`; not `if stats is not None:`, always true of a {} default), or a list grown every call read
  from its start ([0]): scale_constant.
- **Any line of the trace's cells was read for the fixed 8 (sdpa-from-scratch q6).** _trace_precedence_key took a
  `/ 8` anywhere in the cells: `blog_scores = Q3 @ K3.T / 8  # the blog's version, for comparison` or a helper
  `def _blog(q, k): return q @ k.T / 8` never called, beside the real slip `scores3 = Q3 @ K3.T / (2 *
  Q3.shape[-1])`, were told trace_divided_by_fixed_8 in 3 q6 tests quoting the comparison line (s1.py
  B_blog_demo_line, B2_demo_in_other_def). Only what the trace's names hold is read now (each cell's last binding
  of scores3 / weights3 / out3 / weights3_causal and the cell's defs those bindings call, _trace_bindings):
  one_edit_fix points at the `2 * Q3.shape[-1]`.
- **A heads name rebound by other than `=` was still the paper's 8 heads (sdpa-from-scratch q8).**
  name_entries_times_eight tracked only plain assignments: `h = 8` then `h //= 8  # one head`, `for h in [1]:` or
  `with ... as h:`, before `attn_entries = T * T * h * 8` (float64's 8 bytes), was told entries_all_heads (r: s1.py
  C_h_aug_rebound, C2_h_for_rebound, C3_h_in_with); and a draft `attn_entries = h * T * T` rebound by the bytes line
  was quoted though the count is the last line. Every other binding at the cell's level (augmented, annotated, for,
  with, walrus, import, del) now forgets the 8 (_cell_level_rebinds, 20,000 nodes), and only the last binding of
  attn_entries is read: count_in_bytes.
- **A default the body throws away was quoted as the frozen scale (attention-pipeline q08, q02).** _frozen_default
  took `bandwidth=math.sqrt(D_K)` though the body's first line is `bandwidth = 4.0  # tuned by hand`: told
  scale_default_frozen in 3 q08 tests ("your nadaraya_watson takes it from the default `bandwidth=math.sqrt(D_K)`":
  it takes the 4.0; p1.py F2_default_rebound). A parameter the body binds to something that does not read it is not
  read for its default now (_replaced_in_body): the plain fact, as before round 82.
- **The mutable-default read walked a big def again in every q5 test (sdpa-from-scratch, the trusted process).**
  _mutable_default_filled runs in name_scale_constant, once for each of q5's 16 failing tests, and parsed-then-walked
  the def each time: a 220 KB def (2,500 `if not cache: cache.setdefault(i, Q.shape[-1] + ...)` beside a fixed
  `/ 4.0`) cost 1.7 s of grader CPU a call; the grade took 21 s against 6.5-10 s before round 82 (t1.py T_big,
  bench1.py). The answer is kept for the last notebook read (keyed by its cells' text, so nothing carries over to
  another notebook): 7.7-9.2 s, and the guard read (ifs testing the default) is one walk with the flag carried down.

Held (tried, no change): right notebooks keep full marks (every round-82 read runs only after a failure: the mutable
default after scale_constant's two-d_k replay, the trace's 8 after weights divided by 8, the heads after 8 T^2, the
fixed scale after a constant factor at three head sizes, the buffer after a size crash); a global d_k read inside
scaled_scores / nadaraya_watson (`/ math.sqrt(D_K)`, `d_k = 16` at top level) is scale_hard_coded, whose text names
"read from a global" (before round 82 it was the plain fact); `bandwidth = bandwidth * 0 + 4.0` (reads the
default) keeps scale_default_frozen; scaled default_mask_hides_every_key and pipeline mask_sized_once are confirmed
by a second call (an all-True mask, n - 1 / n + 1 tokens) that a different cause fails; quoted student text is cut
to 60-100 characters and the engine escapes control characters (round 140's d_caret_inject.py).
"""
from __future__ import annotations

import time
import types

import pytest

from tests.heldout.harness import failed_keys, graded_as
from tests.hidden_modules import load

SDPA_D = load("sdpa-from-scratch", "_diagnose", "_rt142_sdpa_diagnose")

_sdpa = graded_as("sdpa-from-scratch", "redteam142")
_pipe = graded_as("attention-pipeline", "redteam142")


def _attention(params: str, lines: str) -> dict[str, str]:
    """sdpa's attention with parameters `params` whose scores `s` are `lines` (masking, empty rows zeroed, w @ V)."""
    return {"scaled_dot_product_attention": (
        f"def scaled_dot_product_attention({params}):\n" + lines +
        "    if mask is not None:\n        s = s.masked_fill(~mask, float('-inf'))\n"
        "    w = stable_softmax(s, dim=-1)\n"
        "    if mask is not None:\n        w = w.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)\n"
        "    return w @ V\n")}


def _trace(lines: str) -> dict[str, str]:
    """Question 6's cell: `lines` (which bind scores3), then the right weights, output and causal weights."""
    return {"scores3": lines + "weights3 = stable_softmax(scores3, dim=-1)\nout3 = weights3 @ V3\n"
            "weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float('-inf')), dim=-1)\n"}


@pytest.mark.parametrize("params, lines", [
    ("Q, K, V, mask=None, last={}", "    last['d_k'] = Q.shape[-1]   # for debugging\n    assert last['d_k'] > 0\n"
                                   "    s = Q @ K.transpose(-2, -1) / math.sqrt(8)\n"),
    ("Q, K, V, mask=None, seen=[]", "    seen.append(Q.shape[-1])\n    assert seen[-1] == Q.shape[-1]\n"
                                   "    s = Q @ K.transpose(-2, -1) / 2.0\n"),
    ("Q, K, V, mask=None, stats={}", "    if stats is not None:\n        stats['d_k'] = Q.shape[-1]\n"
                                    "    assert stats['d_k'] > 0\n    s = Q @ K.transpose(-2, -1) / math.sqrt(8)\n"),
], ids=["record_overwritten_every_call", "log_read_at_its_end", "record_under_an_is_not_none_test"])
def test_a_default_refilled_every_call_is_not_kept_between_calls(grader, params, lines):
    keys = failed_keys(_sdpa(grader, _attention(params, lines)))
    assert "mutable_default_kept_between_calls" not in keys and "scale_constant" in keys, keys


@pytest.mark.parametrize("lines", [
    "scores3 = Q3 @ K3.T / (2 * Q3.shape[-1])\n"
    "blog_scores = Q3 @ K3.T / 8   # the blog's d_k = 64 version, for comparison only\n",
    "def _blog(q, k):\n    return q @ k.T / 8\nscores3 = Q3 @ K3.T / (2 * Q3.shape[-1])\n",
], ids=["comparison_line", "helper_never_called"])
def test_an_8_the_trace_does_not_use_is_not_read(grader, lines):
    keys = failed_keys(_sdpa(grader, _trace(lines)))
    assert "trace_divided_by_fixed_8" not in keys, keys


@pytest.mark.parametrize("entries", [
    "h = 8\nh //= 8  # one head\nT = 1024\nattn_entries = T * T * h * 8\n",
    "h = 8\nfor h in [1]:\n    pass\nT = 1024\nattn_entries = T * T * h * 8\n",
    "h = 8\nimport contextlib\nwith contextlib.nullcontext(1) as h:\n    pass\nT = 1024\n"
    "attn_entries = T * T * h * 8\n",
    "h = 8\nT = 1024\nattn_entries = h * T * T\nattn_entries = T * T * 8   # float64 bytes\n",
], ids=["augmented", "for_target", "with_target", "draft_rebound"])
def test_heads_rebound_or_a_draft_is_not_all_heads(grader, entries):
    keys = failed_keys(_sdpa(grader, {"attn_entries": entries + "score_madds = 1024 * 1024 * 64\ncost_ratio = 4\n"}))
    assert "entries_all_heads" not in keys and "count_in_bytes" in keys, keys


def test_a_default_the_body_replaces_is_not_the_frozen_scale(grader):
    cell = ("D_K = 16\n\ndef nadaraya_watson(q, K, V, bandwidth=math.sqrt(D_K)):\n    bandwidth = 4.0  # tuned by hand\n"
            "    kappa = torch.exp(K @ q / bandwidth)\n    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()\n")
    keys = failed_keys(_pipe(grader, {"nadaraya_watson": cell}))
    assert "scale_default_frozen" not in keys, keys


# found by the scan of every blind set after round 82 (3131077): scale_hard_coded took the place of the engine's closer
# names of the same symptom, which act only on a failure that names nothing (blind65's and blind76's q02)
@pytest.mark.parametrize("cell, key", [
    ("class _Once:\n    factor = None\n\n\ndef scaled_scores(Q, K):\n    if _Once.factor is None:\n"
     "        _Once.factor = Q.shape[-1] ** -0.5\n    return Q @ K.transpose(-2, -1) * _Once.factor\n",
     "state_kept_between_calls"),
    ("d_k = 4\n\n\ndef scaled_scores(Q, K):\n    # d_k = Q.shape[-1]\n    return Q @ K.transpose(-2, -1) / d_k ** 0.5\n",
     "reads_global_not_parameter"),
])
def test_a_fixed_factor_the_engine_names_closer_is_left_to_it(grader, cell, key):
    keys = failed_keys(_pipe(grader, {"scaled_scores": cell}))
    assert "scale_hard_coded" not in keys and key in keys, keys


def test_the_mutable_default_read_walks_a_notebook_once():
    # name_scale_constant runs in each of q5's 16 failing tests: the read is worked out once per notebook
    body = "".join(f"    if not cache:\n        cache.setdefault({i}, Q.shape[-1] + Q.shape[-1] + Q.shape[-1])\n"
                   for i in range(2500))
    cell = "def scaled_dot_product_attention(Q, K, V, mask=None, cache={}):\n" + body + "    return Q @ K.mT / 4.0\n"
    sub = types.SimpleNamespace(cells=["import math\n", cell])
    start = time.process_time()
    assert SDPA_D._mutable_default_filled(sub) is None
    first = time.process_time() - start
    start = time.process_time()
    for _ in range(8):
        assert SDPA_D._mutable_default_filled(types.SimpleNamespace(cells=["import math\n", cell])) is None
    again = time.process_time() - start
    assert again < first, (first, again)     # 8 x the first before (1.7 s each)


class _SwappedAfterFirstRead(list):
    """The memo as another thread leaves it: the first read sees the notebook asked about, every later read a
    classmate's entry (what a grade beside this one writes between two reads)."""

    def __init__(self, own, other):
        super().__init__([own])
        self.other, self.reads = other, 0

    def __getitem__(self, i):
        self.reads += 1
        return super().__getitem__(i) if self.reads == 1 else self.other


def test_the_memo_never_answers_with_a_classmates_entry(monkeypatch):
    cell = ("def scaled_dot_product_attention(Q, K, V, mask=None, opts={}):\n"
            "    opts.setdefault('divisor', math.sqrt(Q.shape[-1]))\n    return Q @ K.mT / opts['divisor']\n")
    sub = types.SimpleNamespace(cells=["import math\n", cell])
    own = SDPA_D._mutable_default_read(sub)
    assert own is not None
    memo = _SwappedAfterFirstRead((tuple(sub.cells), own), (("a classmate's cell",), "a classmate's line"))
    monkeypatch.setattr(SDPA_D, "_FILLED_MEMO", memo)
    assert SDPA_D._mutable_default_filled(sub) == own
