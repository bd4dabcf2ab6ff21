"""Red-team round 51 (each test fails before its gap is closed).

- Points for code that computes nothing (scaled-attention q2): `dot_product_variance` is checked only for landing in
  a 10% band around the textbook value (d_k unscaled, 1 scaled), for differing between two generators, for being
  the same for two generators seeded alike, and for not being an exact replay of a catalogued mistake. A function
  that draws no q or k at all and returns the textbook value jittered by one draw of the generator
  (`d_k * (1 + 0.02 * randn(generator))`) passes all three tests (4 points): the notebook scored 28 / 28
  (/tmp/rt51/fake_variance.ipynb). A sample variance of n = 10000 draws has a spread of about 1.5% of d_k, so the
  band alone cannot tell an estimate from a constant with noise; only a replay of the generator's draws can.
- The similarity report reads only `def` statements at a cell's top level. A classmate's functions copied, their
  variables renamed and every def indented under `if True:` score full marks and are not compared at all; with
  the template's stubs defined at top level in an earlier cell as decoys, the copy is not even listed under
  "Not compared" (/tmp/rt51/sim/dave_decoy.ipynb against /tmp/rt51/sim/alice.ipynb: no pair; the renamed copy
  without the wrapper scores 0.99, flagged).
"""
from __future__ import annotations


import nbformat

from autograder.course import similarity as sim
from tests.conftest import ROOT

EXAMPLES = ROOT / "examples" / "submissions"

FAKE_VARIANCE = '''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Not an estimate: the textbook answer, jittered by one draw of the generator so it looks sampled."""
    target = 1.0 if scaled else float(d_k)
    return target * (1.0 + 0.02 * torch.randn((), generator=generator, dtype=torch.float64).item())
'''


def test_a_variance_that_draws_no_pairs_earns_no_points(tmp_path, grader):
    nb = nbformat.read(EXAMPLES / "scaled-attention" / "full_marks.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code" and c.source.startswith("def dot_product_variance"))
    cell.source = FAKE_VARIANCE
    path = tmp_path / "fake_variance.ipynb"
    nbformat.write(nb, path)
    r = grader.grade(path, "scaled-attention", seed=51)
    q2 = {t.name: t.score for t in r.tests if t.question == "q2"}
    earned = {name: score for name, score in q2.items()
              if name in ("test_unscaled_variance_is_d_k", "test_scaled_variance_is_one") and score > 0}
    assert not earned, f"a dot_product_variance that computes no dot product earned {earned} (total {r.score})"


# --- similarity -------------------------------------------------------------------------------------------
SOFTMAX = '''def stable_softmax(x, dim=-1):
    peak = torch.amax(x, dim=dim, keepdim=True)
    peak = torch.where(torch.isfinite(peak), peak, torch.zeros_like(peak))
    raised = torch.exp(x - peak)
    total = torch.sum(raised, dim=dim, keepdim=True)
    return raised / total
'''
MASK = '''def causal_mask(T_q, T_k=None):
    T_k = T_q if T_k is None else T_k
    grid = torch.ones(T_q, T_k, dtype=torch.bool)
    return torch.tril(grid, diagonal=0)
'''
SDPA = '''def scaled_dot_product_attention(Q, K, V, mask=None):
    width = Q.shape[-1]
    logits = torch.einsum("...qd,...kd->...qk", Q, K) * (1.0 / math.sqrt(width))
    if mask is None:
        probs = stable_softmax(logits, dim=-1)
        return torch.einsum("...qk,...kd->...qd", probs, V)
    logits = logits.masked_fill(torch.logical_not(mask), float("-inf"))
    probs = stable_softmax(logits, dim=-1)
    alive = torch.any(mask, dim=-1, keepdim=True)
    probs = torch.where(alive, probs, torch.zeros_like(probs))
    return torch.einsum("...qk,...kd->...qd", probs, V)
'''
STUBS = ("def stable_softmax(x, dim=-1):\n    raise NotImplementedError\n\n"
         "def causal_mask(T_q, T_k=None):\n    raise NotImplementedError\n\n"
         "def scaled_dot_product_attention(Q, K, V, mask=None):\n    raise NotImplementedError\n")


def _renamed(src: str) -> str:
    for old, new in (("peak", "m"), ("raised", "e"), ("total", "z"), ("grid", "g"), ("width", "d"),
                     ("logits", "s"), ("probs", "w"), ("alive", "ok")):
        src = src.replace(old, new)
    return src


def _under_if_true(src: str) -> str:
    return "if True:\n" + "".join(f"    {line}\n" for line in src.splitlines())


def _cells(*sources: str) -> list[str]:
    return ["import math\nimport torch\n", *sources]


def _scores(course, tmp_path, stored) -> dict[frozenset, float]:
    pairs = sim.write_report(stored, course, "sdpa-from-scratch", tmp_path)
    return {frozenset(p.keys): p.score for p in pairs}


def test_a_copy_whose_defs_sit_under_an_if_is_still_compared(course, tmp_path):
    names = sim.compared_names(course, "sdpa-from-scratch")
    original = _cells(SOFTMAX, MASK, SDPA)
    plain_copy = _cells(*(_renamed(s) for s in (SOFTMAX, MASK, SDPA)))
    hidden_copy = _cells(STUBS, *(_under_if_true(_renamed(s)) for s in (SOFTMAX, MASK, SDPA)))
    # the wrapped copy runs: the last binding of each name is the wrapped def, not the stub
    ns: dict = {}
    for code in hidden_copy:
        exec(compile(code, "<cell>", "exec"), ns)   # noqa: S102 - the test's own fixed code
    assert ns["causal_mask"](3).tolist() == [[True, False, False], [True, True, False], [True, True, True]]
    stored = {"alice": sim.extract(original, names), "bob": sim.extract(plain_copy, names),
              "dave": sim.extract(hidden_copy, names)}
    scores = _scores(course, tmp_path, stored)
    threshold = course.settings("sdpa-from-scratch").similarity.threshold
    assert scores.get(frozenset({"alice", "bob"}), 0) >= threshold          # the control: renamed copy found
    got = scores.get(frozenset({"alice", "dave"}), 0.0)
    assert got >= threshold, (f"the same copy with its defs under `if True:` (and stubs above as decoys) scores "
                              f"{got} against the original: {stored['dave'].note or 'compared the stubs'}")
