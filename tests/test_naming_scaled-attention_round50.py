"""Naming scaled-attention's mistakes, round 50 (blind50's q2_dots_buffer_from_python_int_list_truncates, the kind):
each dot product made a whole number (an integer buffer such as torch.tensor([0] * n) or torch.zeros(n,
dtype=torch.long) that the float dots are copied into, int(...) of each one, .long()): the variance is that of the
truncated numbers, about 0.8 d_k (0.48 scaled). dots_made_integers is named only when a failed estimate equals, to
float32 rounding, the variance of the same generator's dot products so rounded (toward 0, down or to the nearest;
before or after the division by sqrt(d_k)), replayed on a generator seeded as the student's, and no other replayed
mistake gives it. My own variants, not blind50's cell; float buffers of the same shapes keep full marks.

Older kinds (blind27, blind29, blind18, blind20): a pair scored by q + k summed (dots_coordinates_added) or by the
distance |q - k| or |q - k|^2 (dots_squared_distance), each named from the same replay on the student's generator (the
polarization identity, q.k from two squared norms, keeps full marks); entropy_table whose declared default dims or seed
is not the notebook's is default_argument_wrong (the engine's key) when the lesson's call without arguments fails and
a second call passing the notebook's default explicitly gives the lesson's table."""
from __future__ import annotations

import math

import pytest
import torch

from autograder.grading.checks import Misconception
from tests.heldout.harness import grade_cells
from tests.hidden_modules import load

D = load("scaled-attention", "_diagnose", "_test_scaled_r50__diagnose")

_HEAD = '''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
'''


def _cell(body: str) -> dict[str, str]:
    return {"dot_product_variance": _HEAD + body}


WRONG = {
    # a long buffer filled with the raw dots, divided afterwards: truncated BEFORE the scale
    "long_zeros_buffer_scaled_after": _cell('''\
    dots = torch.zeros(n_samples, dtype=torch.long)
    dots[:] = (q * k).sum(dim=1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.float().var().item()
'''),
    # int() of every (scaled) dot product in a list comprehension
    "int_of_each_dot_in_a_list": _cell('''\
    scale = math.sqrt(d_k) if scaled else 1.0
    dots = [int(x) for x in ((q * k).sum(-1) / scale).tolist()]
    return torch.tensor(dots, dtype=torch.float32).var().item()
'''),
    # one pair per loop step (vectors of d_k < 16 are drawn otherwise than in a batch), int() of each dot
    "int_of_each_dot_drawn_per_sample": {"dot_product_variance": '''import statistics


def dot_product_variance(d_k, n_samples, generator, scaled=False):
    dots = []
    for _ in range(n_samples):
        q = torch.randn(d_k, generator=generator)
        k = torch.randn(d_k, generator=generator)
        dots.append(int(torch.dot(q, k) / math.sqrt(d_k)) if scaled else int(torch.dot(q, k)))
    return float(statistics.variance(dots))
'''},
    # .long() on the dot products, cast back for the variance
    "long_cast_of_dots": _cell('''\
    dots = torch.einsum("nd,nd->n", q, k)
    if scaled:
        dots = dots / d_k ** 0.5
    return dots.long().double().var().item()
'''),
}

# blind27/blind29's kinds: another score of each pair than q.k (replayed on the same generator)
PAIR_SCORES = {
    "coordinates_summed_separately": (_cell('''\
    dots = q.sum(dim=-1) + k.sum(dim=-1)            # sum over the coordinates of q and k
    if scaled:
        dots = dots / d_k ** 0.5
    return dots.var().item()
'''), "dots_coordinates_added"),
    "torch_sum_of_q_plus_k": (_cell('''\
    scale = math.sqrt(d_k) if scaled else 1.0
    return float(torch.var(torch.sum(q + k, dim=1) / scale))
'''), "dots_coordinates_added"),
    "negative_squared_distance": (_cell('''\
    scores = -(q - k).pow(2).sum(-1)                # closer pairs score higher
    if scaled:
        scores = scores / math.sqrt(d_k)
    return scores.var().item()
'''), "dots_squared_distance"),
    "euclidean_distance_norm": (_cell('''\
    scores = torch.linalg.vector_norm(q - k, dim=1)
    return (scores / (math.sqrt(d_k) if scaled else 1.0)).var().item()
'''), "dots_squared_distance"),
}

CORRECT = {
    "polarization_identity": _cell('''\
    dots = (((q + k) ** 2).sum(-1) - ((q - k) ** 2).sum(-1)) / 4     # q.k from two squared norms
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''),
    "float_zeros_buffer": _cell('''\
    dots = torch.zeros(n_samples)                  # float32 slots
    dots[:] = (q * k).sum(dim=1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''),
    "float_of_each_dot_drawn_per_sample": {"dot_product_variance": '''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    dots = torch.empty(n_samples)
    for i in range(n_samples):
        q = torch.randn(d_k, generator=generator)
        k = torch.randn(d_k, generator=generator)
        dots[i] = torch.dot(q, k) / (math.sqrt(d_k) if scaled else 1.0)
    return dots.var().item()
'''},
    "python_float_list_buffer": _cell('''\
    dots = torch.tensor([0.0] * n_samples)          # floats, not ints
    raw = (q * k).sum(dim=1)
    dots[:] = raw / math.sqrt(d_k) if scaled else raw
    return dots.var().item()
'''),
    "float_of_each_dot_in_a_list": _cell('''\
    scale = math.sqrt(d_k) if scaled else 1.0
    dots = [float(x) for x in ((q * k).sum(-1) / scale).tolist()]
    return torch.tensor(dots).var().item()
'''),
}

_ENTROPY = '''def softmax_entropy(logits):
    """Entropy in nats of softmax(logits) over the last dim: shape logits.shape[:-1]."""
    log_p = F.log_softmax(logits, dim=-1)
    return -(log_p.exp() * log_p).sum(dim=-1)


'''

_TABLE_BODY = '''
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q, k = torch.randn(1, d), torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / math.sqrt(d)
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''


def _table(signature: str, first: str = "") -> dict[str, str]:
    return {"softmax_entropy": _ENTROPY + signature + _TABLE_BODY.replace("    rows = []\n", first + "    rows = []\n")}


# blind18/blind20's kind: entropy_table declares another default than the notebook's (dims, seed or both)
TABLE_DEFAULTS = {
    "default_seed_one": (_table("def entropy_table(dims=(4, 16, 64, 256), seed=1):"), "without seed=0"),
    "default_dims_without_4": (_table("def entropy_table(dims=(16, 64, 256), seed=0):"),
                               "without dims=(4, 16, 64, 256)"),
    "both_defaults_other": (_table("def entropy_table(dims=[4, 16, 64, 256, 1024], seed=1234):"),
                            "without dims=(4, 16, 64, 256), seed=0"),
}

TABLE_RIGHT = {
    "dims_none_filled_in": _table("def entropy_table(dims=None, seed=0):",
                                  "    dims = (4, 16, 64, 256) if dims is None else dims\n"),
    "dims_default_as_list": _table("def entropy_table(dims=[4, 16, 64, 256], seed=0):"),
}

_Q2_TESTS = {"test_unscaled_variance_is_d_k", "test_scaled_variance_is_one"}


@pytest.mark.parametrize("name", sorted(WRONG))
def test_own_wrong_variants_are_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", WRONG[name], f"round50_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    keys = [k for _q, _t, k, _m in outcome.failed]
    assert keys and all(k == "dots_made_integers" for k in keys), outcome.explain()
    assert {q for q, _t, _k, _m in outcome.failed} == {"q2"}, outcome.explain()
    assert {t.split(":")[-1] for _q, t, _k, _m in outcome.failed} <= _Q2_TESTS, outcome.explain()
    assert all(m.startswith("each dot product was made a whole number") for _q, _t, _k, m in outcome.failed), \
        outcome.explain()


@pytest.mark.parametrize("name", sorted(PAIR_SCORES))
def test_other_pair_scores_are_named(grader, name):
    cells, key = PAIR_SCORES[name]
    outcome = grade_cells(grader, "scaled-attention", cells, f"round50_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    keys = [k for _q, _t, k, _m in outcome.failed]
    assert keys and all(k == key for k in keys), outcome.explain()
    assert {q for q, _t, _k, _m in outcome.failed} == {"q2"}, outcome.explain()
    assert all("the same generator gives when" in m for _q, _t, _k, m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("name", sorted(TABLE_DEFAULTS))
def test_table_default_other_than_the_notebooks_is_named(grader, name):
    cells, said = TABLE_DEFAULTS[name]
    outcome = grade_cells(grader, "scaled-attention", cells, f"round50_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    assert [(q, t.split(":")[-1], k) for q, t, k, _m in outcome.failed] == \
        [("q4", "test_entropy_table_lesson", "default_argument_wrong")], outcome.explain()
    assert said in outcome.failed[0][3], outcome.explain()


@pytest.mark.parametrize("name", sorted({**CORRECT, **TABLE_RIGHT}))
def test_own_right_variants_keep_full_marks(grader, name):
    outcome = grade_cells(grader, "scaled-attention", {**CORRECT, **TABLE_RIGHT}[name], f"round50_{name}")
    assert outcome.full_marks, outcome.explain()


# --- the check alone --------------------------------------------------------------------------------------------

N = 10_000


def _variance(rounding, before=False, biased=False):
    def fn(d_k, n, generator, scaled=False):
        q = torch.randn(n, d_k, generator=generator)
        k = torch.randn(n, d_k, generator=generator)
        s = math.sqrt(d_k) if scaled else 1.0
        dots = rounding((q * k).sum(dim=1)) / s if before else rounding((q * k).sum(dim=1) / s)
        return float(dots.var(unbiased=not biased))
    return fn


def _named(fn, d_k, scaled, seed=50):
    v = fn(d_k, N, torch.Generator().manual_seed(seed), scaled=scaled)
    try:
        D.raise_if_dots_made_integers(d_k, N, seed, scaled, v)
    except Misconception as m:
        return m
    return None


@pytest.mark.parametrize("scaled", [False, True])
@pytest.mark.parametrize(("rounding", "said"), [(torch.trunc, "toward 0"), (torch.floor, "rounded down"),
                                                (torch.round, "to the nearest")])
def test_each_rounding_is_named_and_said(rounding, said, scaled):
    """Every rounding (and both places of the scale, the biased variance too) is named, and the message says which
    one matched; an estimate that is inside the band (rounding down adds only about 1/12) is never asked: the q2
    tests call the check on a failed estimate only."""
    for before in (False, True) if scaled else (False,):
        for biased in (False, True):
            m = _named(_variance(rounding, before, biased), 12, scaled)
            assert m is not None and m.key == "dots_made_integers"
            assert said in str(m)
            if scaled:
                assert ("before the division" if before else "after the division") in str(m)


@pytest.mark.parametrize("scaled", [False, True])
def test_right_and_other_mistakes_are_not_named(scaled):
    """The right estimate, the absolute value of the dots, a dropped coordinate and the draws scaled by 0.9 (about
    the truncated variance at d_k = 64) are not named: only the integer replay is."""
    assert _named(_variance(lambda x: x), 12, scaled) is None
    assert _named(_variance(torch.abs), 12, scaled) is None
    assert _named(_variance(lambda x: x * math.sqrt(0.9)), 64, scaled) is None

    def dropped(d_k, n, generator, scaled=False):
        q = torch.randn(n, d_k, generator=generator)
        k = torch.randn(n, d_k, generator=generator)
        return float(((q * k)[:, 1:].sum(dim=1) / (math.sqrt(d_k) if scaled else 1.0)).var())

    assert _named(dropped, 12, scaled) is None
    # a truncated estimate of OTHER draws (another seed) is about the same number but not the replay
    v = _variance(torch.trunc)(12, N, torch.Generator().manual_seed(51), scaled=scaled)
    D.raise_if_dots_made_integers(12, N, 50, scaled, v)


@pytest.mark.parametrize("d_k", [12, 64])
def test_new_replays_coincide_with_no_other_q2_replay(d_k):
    """On q2's d_k the integer and pair-score replays are farther than q2's replay tolerance (2e-5 relative) from the right draws'
    variance and from every other replayed mistake, so the check's one-key condition holds on these seeds (a
    coincidence on some seed would leave both unnamed, never name the wrong one)."""
    for seed in (7, 50):
        for scaled in (False, True):
            right, wrong = D.variance_variants_replayed(d_k, N, seed, scaled)
            mine = {k: v for k, v in wrong.items() if D.replay_key(k) in ("dots_made_integers", "dots_coordinates_added",
                                                                          "dots_squared_distance")}
            assert len(mine) == (48 if scaled else 24) + 6
            others = [v for k, v in wrong.items() if k not in mine]
            for v in mine.values():
                assert all(abs(v / r - 1) > 2e-5 for r in right)
                assert all(abs(v / o - 1) > 2e-5 for o in others if o == o)
