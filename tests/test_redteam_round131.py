"""Red-team round 131: naming round 69's new source reads and replays (4e8f91f) attacked as a student and as a class.

Repros in /tmp/rt131/ (sdpa1.py, scaled1.py, scaled2.py, pipe1.py, pipe_cpu.py, old_pipe_time.py, scaled_cpu.py,
cpu1.py, cpu2.py; h.py grades a variant):

- **A debug counter anywhere in the notebook was read as the cost's kept total.** sdpa's _kept_state (q8,
  count_kept_between_calls) read every def of every cell, so `global n_calls; n_calls += 1` in stable_softmax beside
  a `cost_ratio = 5` typed as a number (34/35) was told "your function's `n_calls += 1` adds to a total that outlives
  the call"; the round's own test has the same 5 with no such source as the plain fact. Now only the defs that the
  cells storing cost_ratio or score_madds call (and those they call, at most 20) are read, from the notebook's one
  cached parse.
- **A count's own per-call totals were read as kept between calls.** The same read took a name as outliving the
  call unless a plain assignment, for or comprehension bound it: a `tally: dict = {'n': 0}` (annotated), a
  `with ... as box`, a `nonlocal total` of a closure the counting def makes on each call and a global the def sets
  to 0 first (`global _total; _total = 0`), each with right counts
  and `cost_ratio = (madds(2T) + old) // old`, were named count_kept_between_calls (34/35 each). Any binding of
  the def now makes the name the call's (parameters, imports, nested defs, nonlocal), a global the def's body
  assigns is set back on each call, and an item's base must be bound at a cell's top level.
- **A `step = 1` counted up in its own loop was read as the answer's counter.** sdpa's _start_at_one (q8,
  count_started_at_one) took any `x = 1` that an `x += ...` of the cell adds to: `step = 1; while step < 3: step +=
  1` beside `attn_entries = T8 * T8 + 1` (the class token's slip) was told "your cell's `step = 1` starts the
  counter at 1". Now x must be the answer itself or a name the answer is assigned from.
- **A log list read by index was told it mixes every call's dots in.** scaled-attention's _kept_list
  (variance_dots_kept_between_calls, q2's scaled test and the generator test) took any read of a cell-level list
  the function appends to: `history.append(dots.var().item()); return history[-1]` with the global RNG and dots /
  d_k (26/28) was told variance_dots_kept_between_calls twice, in place of divide_by_dk and ignores_generator. Now
  the list must be read whole (passed to a call, iterated), never only an entry, a slice (`log[-n:]`, this call's
  own), its len or a method of it, and a list the function empties (`.clear()`, `del x[:]`) is not kept.
- **A wrong project_qkv calling 400 names cost a minute of the grader's CPU.** attention-pipeline's
  mutable_default_in_calls (q01, mutable_default_keeps_results; asked on each of q01's wrong outputs, 4 times a
  grade) looked up each name the def calls with last_function_def, which parses again every cell holding the text
  `def name` (under 4,000 characters): `project_qkv` returning constants, with 400 calls `aa1(); aa11(); ...` in a
  branch that never runs, beside 20 cells whose comment holds `def aa1111 def ab1111 ...` (83,000 characters in
  all) took 62 s of the grader's CPU per grade (18 s a read; pipe_cpu.py, old_pipe_time.py), 2.5 s without the
  padding. The defs are now read once from the notebook's cached parse (source_checks._parsed): 1.3 s per grade.
- **A math.log(0) was told it was an unbracketed variance.** scaled-attention's table_std_unbracketed_crash (q4,
  variance_count_unbracketed) took any ValueError "math domain error" of entropy_table as math.sqrt of a negative
  and quoted the notebook's first `x / n - 1` of any def: an entropy by hand over a float16 softmax (math.log of
  an entry that underflowed to 0) beside `def relative_position(i, n): return i / n - 1` (25/28) was told "whose
  math.sqrt raises; your code has `i / n - 1`" on both table tests (scaled2.py). Now the traceback's innermost
  notebook frame must be a line whose sqrt takes the `x / n - 1`, inline or through a name its def binds from it.

Held (tried, no change): terminal text in a kept-state quote (an ESC in a dict key: made inert by the report),
nadaraya_watson's query-shaped-buffer read beside another slip (one_edit_fix named it), the hand-elimination read on
a 90-deep nest of loops of 340,000 characters (0.2 s) and 6,000 sibling loops (0.4 s), the count-kept read on 200
defs of 423,000 characters (1.1 s before, 0.1 s once the notebook's parse is cached; 2.0 s when the read is the
first to parse), the dots-kept replay (guarded by two seeded calls that differ), the dots-kept read beside 24
cells of 19,000 characters (454,000 in all: 3.0 s of the grader's CPU for the whole grade against 1.5 s for the
3,000-character notebook; its 40-cell parse now runs only where the def reads a kept list whole).
"""
from __future__ import annotations

import types

import pytest

from tests.heldout.harness import grade_cells
from tests.hidden_modules import load

Q8 = "T8 = 1024\nd_k8 = 64\n"
RATIO_FIVE = "cost_ratio = (madds(2 * T8, d_k8) + score_madds) // score_madds\n"
SDPA = load("sdpa-from-scratch", "_diagnose", "_rt131_sdpa_diagnose")


def _q8_said(cells: list[str], got: int, name: str = "cost_ratio") -> tuple[str | None, str]:
    sub = types.SimpleNamespace(cells=cells)
    try:
        if name == "cost_ratio":
            SDPA.name_count_kept_between_calls(got, sub)
        else:
            SDPA.name_count_started_at_one(got, name, sub)
    except AssertionError as m:
        return getattr(m, "key", None), str(m)
    raise AssertionError("nothing said")


def test_a_debug_counter_elsewhere_is_not_the_costs_kept_total(grader):
    softmax = ("n_calls = 0\ndef stable_softmax(x, dim=-1):\n    global n_calls\n    n_calls += 1\n"
               "    shifted = x - x.max(dim=dim, keepdim=True).values\n    exps = torch.exp(shifted)\n"
               "    return exps / exps.sum(dim=dim, keepdim=True)\n")
    outcome = grade_cells(grader, "sdpa-from-scratch", {
        "stable_softmax": softmax,
        "attn_entries": Q8 + "attn_entries = T8 * T8\nscore_madds = T8 * T8 * d_k8\ncost_ratio = 5\n"}, "rt131_debug")
    assert [(q, k) for q, _t, k, _m in outcome.failed] == [("q8", None)], outcome.explain()


@pytest.mark.parametrize("body", [
    "    tally: dict = {'n': 0}\n    for q in range(T):\n        tally['n'] += T * d\n    return tally['n']\n",
    "    total = 0\n    def add(n):\n        nonlocal total\n        total += n\n    for q in range(T):\n"
    "        add(T * d)\n    return total\n",
    "    import contextlib\n    with contextlib.nullcontext([0]) as box:\n        for q in range(T):\n"
    "            box[0] += T * d\n        return box[0]\n",
    "    global _total\n    _total = 0\n    for q in range(T):\n        _total += T * d\n    return _total\n",
], ids=["annotated", "nonlocal", "with", "global_reset"])
def test_a_counts_own_totals_are_not_kept_between_calls(body):
    cell = Q8 + "attn_entries = T8 * T8\ndef madds(T, d):\n" + body + "score_madds = madds(T8, d_k8)\n" + RATIO_FIVE
    key, said = _q8_said([cell], 5)
    assert key is None and "5 is (1 + 4)" in said, said


def test_kept_totals_are_still_named():
    kept = (Q8 + "attn_entries = T8 * T8\ntally = {'madds': 0}\n", "def cost(T, d):\n    for q in range(T):\n"
            "        tally['madds'] += T * d\n    return tally['madds']\n",
            "score_madds = cost(T8, d_k8)\ncost_ratio = cost(2 * T8, d_k8) // score_madds\n")
    assert _q8_said(["".join(kept)], 5)[0] == "count_kept_between_calls"
    assert _q8_said(list(kept), 5)[0] == "count_kept_between_calls"     # the dict, the def and the call apart
    helper = (Q8 + "attn_entries = T8 * T8\n_total = 0\ndef add(n):\n    global _total\n    _total += n\n"
              "def madds(T, d):\n    for q in range(T):\n        add(T * d)\n    return _total\n"
              "score_madds = madds(T8, d_k8)\ncost_ratio = madds(2 * T8, d_k8) // score_madds\n")
    assert _q8_said([helper], 5)[0] == "count_kept_between_calls"     # a helper the counting def calls


def test_a_counter_of_its_own_loop_is_not_the_answers():
    cell = Q8 + "step = 1\nwhile step < 3:\n    step += 1\nattn_entries = T8 * T8 + 1\nscore_madds = 1\n"
    key, said = _q8_said([cell], SDPA.ref.attn_entries + 1, "attn_entries")
    assert key is None and "one more than" in said, said
    fed = Q8 + "count = 1\nfor i in range(T8):\n    for j in range(T8):\n        count = count + 1\nattn_entries = count\n"
    assert _q8_said([fed], SDPA.ref.attn_entries + 1, "attn_entries")[0] == "count_started_at_one"


def test_a_log_read_by_index_is_not_a_list_of_kept_dots(grader):
    fn = ("history = []\ndef dot_product_variance(d_k, n_samples, generator, scaled=False):\n"
          "    q = torch.randn(n_samples, d_k)\n    k = torch.randn(n_samples, d_k)\n    dots = (q * k).sum(1)\n"
          "    if scaled:\n        dots = dots / d_k\n    history.append(dots.var().item())\n    return history[-1]\n")
    outcome = grade_cells(grader, "scaled-attention", {"dot_product_variance": fn}, "rt131_log")
    keys = {k for _q, _t, k, _m in outcome.failed}
    assert keys == {"divide_by_dk", "ignores_generator"}, outcome.explain()


@pytest.mark.parametrize("reads, kept", [
    ("    return torch.tensor(all_dots).var().item()\n", True),
    ("    return float(np.var(all_dots))\n", True),
    ("    return torch.tensor(all_dots[-n_samples:]).var().item()\n", False),
    ("    out = torch.tensor(all_dots).var().item()\n    all_dots.clear()\n    return out\n", False),
], ids=["whole", "np", "slice", "cleared"])
def test_kept_dots_are_a_whole_list_read(reads, kept):
    D = load("scaled-attention", "_diagnose", "_rt131_scaled_diagnose")
    fn = ("def dot_product_variance(d_k, n_samples, generator, scaled=False):\n"
          "    q = torch.randn(n_samples, d_k, generator=generator)\n"
          "    k = torch.randn(n_samples, d_k, generator=generator)\n"
          "    all_dots.extend(((q * k).sum(1) / (d_k ** 0.5 if scaled else 1)).tolist())\n" + reads)
    found = D._kept_list(types.SimpleNamespace(cells=["import numpy as np\nall_dots = []\n", fn]))
    assert (found is not None) == kept, found


def _helper_names() -> list[str]:
    import itertools
    import string
    stems = ["".join(p) for p in itertools.product(string.ascii_lowercase, repeat=2)][:100]
    return [s + "1" * k for s in stems for k in range(1, 5)], stems


def test_project_qkv_calling_400_names_is_read_once(monkeypatch):
    import time
    D = load("attention-pipeline", "_diagnose", "_rt131_pipeline_diagnose")
    names, stems = _helper_names()
    project = ("def project_qkv(X, W_Q, W_K, W_V):\n    if X is None:\n        " + "; ".join(f"{n}()" for n in names)
               + "\n    return CQ, CQ, CQ\n")
    dense = "".join(f"    x{j} = (a + b) * (c - d) / (e + f) - g[h] ** 2\n" for j in range(55))
    pad = "if False:\n    # " + " ".join(f"def {s}1111" for s in stems) + "\n" + dense
    cells = [project] + [pad] * 20 + [f"def {names[-1]}(x, seen=[]):\n    return x\n"]
    monkeypatch.setattr(D, "current_submission", lambda: types.SimpleNamespace(cells=cells))
    start = time.process_time()
    found = D.mutable_default_in_calls("project_qkv")
    spent = time.process_time() - start
    assert found == (names[-1], "seen", "[]"), found     # the last helper's default is still found
    assert spent < 3.0, f"{spent:.1f} s of the grader's CPU (18 s before)"


ENTROPY_LOG_ZERO = '''def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def _entropy_by_hand(x):
    p = torch.softmax(x.half(), dim=-1).float().tolist()
    return -sum(v * math.log(v) for v in p)


def relative_position(i, n):
    return i / n - 1


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": _entropy_by_hand(raw), "H_scaled": _entropy_by_hand(scaled)})
    return results
'''


def test_a_log_of_zero_is_not_an_unbracketed_variance(grader):
    outcome = grade_cells(grader, "scaled-attention", {"softmax_entropy": ENTROPY_LOG_ZERO}, "rt131_log_zero")
    q4 = [(k, m) for q, _t, k, m in outcome.failed if q == "q4"]
    assert q4 and all(k is None and "math domain error" in m for k, m in q4), outcome.explain()
