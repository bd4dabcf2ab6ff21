"""Naming scaled-attention's mistakes, round 48 (blind46's two q4 variants no test caught, the kinds):

- a NaN guard applied to the entropy AFTER the row sum (torch.nan_to_num(H), H[H != H] = 0, torch.where(isnan(H),
  0, H)): right where one probability takes all the mass, 0 on a row whose mass is shared by tied largest logits
  while the rest underflow (ln 2). test_entropy_saturated_rows now has such a row; the failure is
  entropy_nan_guard_after_sum when the answer equals that replay on the same logits;
- the entropy's size-one axes dropped (H.squeeze(), torch.squeeze(H), a keepdim sum squeezed with no dim):
  test_entropy_random_logits now asks for (3, 1, 6) logits, entropy_size_one_axes_dropped when the values are
  right and only the size-one axes are gone.

My own variants, not blind46's cells; right neighbours (the per-term guard written three ways, a keepdim sum
squeezed on its own axis) keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import grade_cells

_TABLE = '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    """One dict per d: {"d", "raw_std", "scaled_std", "H_raw", "H_scaled"}."""
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''


def _cell(body: str) -> dict[str, str]:
    return {"softmax_entropy": "def softmax_entropy(logits):\n" + body + _TABLE}


WRONG = {
    "nan_to_num_after_sum": (_cell('''\
    probs = torch.softmax(logits, dim=-1)
    H = -(probs * probs.log()).sum(-1)
    return torch.nan_to_num(H)                 # 0 * log 0 is nan: make it 0
'''), "entropy_nan_guard_after_sum"),
    "nan_mask_assigned_after_sum": (_cell('''\
    p = F.softmax(logits, dim=-1)
    ent = -torch.sum(p * torch.log(p), dim=-1)
    ent[ent != ent] = 0.0                      # nan != nan
    return ent
'''), "entropy_nan_guard_after_sum"),
    "where_isnan_after_sum": (_cell('''\
    p = logits.softmax(-1)
    h = (-p * torch.log(p)).sum(-1)
    return torch.where(torch.isnan(h), torch.zeros_like(h), h)
'''), "entropy_nan_guard_after_sum"),
    "squeeze_everything": (_cell('''\
    logp = torch.log_softmax(logits, dim=-1)
    return (-(logp.exp() * logp).sum(dim=-1)).squeeze()
'''), "entropy_size_one_axes_dropped"),
    "torch_squeeze_of_keepdim_sum": (_cell('''\
    p = torch.softmax(logits, -1)
    H = -(p * torch.log(p + 1e-12)).sum(-1, keepdim=True)
    return torch.squeeze(H)
'''), "entropy_size_one_axes_dropped"),
}

CORRECT = {
    "entr_per_term": _cell('''\
    return torch.special.entr(torch.softmax(logits, dim=-1)).sum(dim=-1)
'''),
    "xlogy_per_term": _cell('''\
    p = torch.softmax(logits, dim=-1)
    return -torch.xlogy(p, p).sum(dim=-1)
'''),
    "nan_to_num_per_term": _cell('''\
    p = torch.softmax(logits, dim=-1)
    return -torch.nan_to_num(p * torch.log(p)).sum(dim=-1)   # each 0 * log 0 term is 0
'''),
    "keepdim_then_squeeze_own_axis": _cell('''\
    logp = F.log_softmax(logits, dim=-1)
    return -(logp.exp() * logp).sum(dim=-1, keepdim=True).squeeze(-1)
'''),
}


@pytest.mark.parametrize("name", sorted(WRONG))
def test_own_wrong_variants_are_named(grader, name):
    cells, key = WRONG[name]
    outcome = grade_cells(grader, "scaled-attention", cells, f"round48_{name}")
    assert outcome.score < outcome.max_score, outcome.explain()
    keys = [k for _q, _t, k, _m in outcome.failed]
    assert keys and all(k == key for k in keys), outcome.explain()
    assert {q for q, _t, _k, _m in outcome.failed} == {"q4"}, outcome.explain()


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_own_right_variants_keep_full_marks(grader, name):
    outcome = grade_cells(grader, "scaled-attention", CORRECT[name], f"round48_{name}")
    assert outcome.score == outcome.max_score, outcome.explain()
