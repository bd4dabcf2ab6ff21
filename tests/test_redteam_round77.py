"""Red-team round 77: points without the work.

A wrong or empty notebook that gains points through the grader's allowances for honest students and its naming
code. Each finding measured as points on examples/submissions/<slug>/ notebooks (`autograder grade NB -a SLUG`,
expected scores in expected.yml); repros in /tmp/rt77/.

- **A built-in fused attention no rule names.** torch.nn.attention.flex_attention computes softmax(QK^T/sqrt(d)) V;
  the worker runs with TORCHDYNAMO_DISABLE (round 65), so it runs eagerly, as a higher-order op the forbidden-API
  guard sees by the name `flex_attention`, which neither the guard nor the static rule (calls.KERNELS_OF) refused.
  sdpa-from-scratch full_marks with q5 written as flex_attention (plus a score_mod for the mask): 33/35, where
  calls_torch_sdpa.ipynb (F.scaled_dot_product_attention itself) gets 19. Fix: `flex_attention` (and CUDA's
  `varlen_attn`) are kernels of scaled_dot_product_attention: 19/35, named forbidden_api.
- **A built-in softmax behind a loss.** The gradient of F.cross_entropy(x, t, reduction="sum") with respect to x is
  softmax(x) - one_hot(t): a stable_softmax written as that gradient plus the one-hot passed q3's
  test_no_builtin_softmax (builtin_softmax.ipynb loses that point: 34/35). Fix: KERNELS_OF["softmax"] names
  `cross_entropy` / `CrossEntropy`, so every static rule that forbids a softmax forbids them too.
- **The vectorisation rule excused a crash that nothing charges.** sdpa's check_vectorised skips a timed case the
  function crashes on, as the value tests' charge; but the long case (T = 256) is longer than any value test (at most
  128). loop_over_rows.ipynb (34/35, not_vectorised) with `if Q.shape[-2] > 200: raise ValueError(...)` scored 35/35:
  a loop with no vectorised path at all (security.md's known limit claimed "only with a right vectorised path").
  Fix: assert_vectorised records each crash as an excuse (runner.hold_excuses): the rule's pass stands only where a
  test of the function's values fails too; else it fails saying the timed calls raised (34/35).
- **Excuses in hidden tests that were never recorded.** scaled-attention's q4 table and q8 multi-head tests pass a
  crash of the student's composite when probes of the earlier answer (softmax_entropy, attention) find it wrong, and
  `return`ed without the record that charged_in_parts keeps. A softmax_entropy wrong only on the probe's own
  tensor (a float for [0.3, -1.2, 2.5, 0.0, 0.7]) with `entropy_table` = `(1.0).item()`, and an attention
  returning (weights, output) only for q8's head shapes with `multi_head_attention` raising ValueError, each
  scored 28/28 (the honest stubs: 25 and 23). Fix: `checks.charged_elsewhere` records such an excuse; under the
  runner it stands only where a test of the blamed answer fails too: 25/28 and 23/28.
"""
from __future__ import annotations

import json
from pathlib import Path

from autograder.grading.checks import ChargeRecord, charged_elsewhere, charges_recorded
from autograder.sandbox.calls import KERNELS_OF, forbidden_names
from tests.conftest import ROOT

EXAMPLES = ROOT / "examples" / "submissions"


def _with_cell(tmp_path: Path, slug: str, defines: str, source: str, name: str = "nb") -> Path:
    """full_marks.ipynb of `slug` with the code cell that holds `defines` replaced by `source`."""
    nb = json.loads((EXAMPLES / slug / "full_marks.ipynb").read_text())
    hits = [c for c in nb["cells"] if c["cell_type"] == "code" and defines in "".join(c["source"])]
    assert len(hits) == 1, defines
    hits[0]["source"] = source
    path = tmp_path / f"{name}.ipynb"
    path.write_text(json.dumps(nb))
    return path


def _failed(result) -> dict[str, str]:
    return {f"{t.question}:{t.name}": t.message for t in result.tests if t.status == "failed"}


FLEX_SDPA = '''from torch.nn.attention.flex_attention import flex_attention

def scaled_dot_product_attention(Q, K, V, mask=None):
    lead = torch.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    Tq, Tk = Q.shape[-2], K.shape[-2]
    q = Q.expand(*lead, *Q.shape[-2:]).reshape(1, -1, Tq, Q.shape[-1])
    k = K.expand(*lead, *K.shape[-2:]).reshape(1, -1, Tk, K.shape[-1])
    v = V.expand(*lead, *V.shape[-2:]).reshape(1, -1, Tk, V.shape[-1])
    if mask is None:
        out = flex_attention(q, k, v)
    else:
        m = mask.expand(*lead, Tq, Tk).reshape(-1, Tq, Tk)
        def score_mod(score, b, h, qi, ki):
            return torch.where(m[h, qi, ki], score, -float("inf"))
        out = flex_attention(q, k, v, score_mod=score_mod)
        out = torch.where(m.any(-1, keepdim=True).unsqueeze(0), out, torch.zeros((), dtype=out.dtype))
    return out.reshape(*lead, Tq, V.shape[-1])
'''


def test_flex_attention_is_a_kernel_of_sdpa():
    assert "flex_attention" in forbidden_names(["scaled_dot_product_attention"])
    assert {"cross_entropy", "crossentropy"} <= set(KERNELS_OF["softmax"])


def test_flex_attention_in_q5_earns_what_sdpa_itself_earns(tmp_path, grader):
    r = grader.grade(_with_cell(tmp_path, "sdpa-from-scratch", "def scaled_dot_product_attention", FLEX_SDPA),
                     "sdpa-from-scratch", seed=77)
    failed = _failed(r)
    # calls_torch_sdpa.ipynb's 19: every q5 value test refused at run time (it was 33/35)
    assert r.score == 19, (r.score, failed)
    assert any("flex_attention" in m for m in failed.values()), failed


CROSS_ENTROPY_SOFTMAX = '''def stable_softmax(x, dim=-1):
    """Softmax of x along `dim`."""
    moved = x.movedim(dim, -1)
    flat = moved.reshape(-1, moved.shape[-1]).to(torch.float64).detach().requires_grad_(True)
    target = flat.detach().argmax(-1)
    with torch.enable_grad():
        loss = F.cross_entropy(flat, target, reduction="sum")
        (g,) = torch.autograd.grad(loss, flat)
    probs = g + F.one_hot(target, flat.shape[-1]).to(g.dtype)
    return probs.reshape(moved.shape).movedim(-1, dim).to(x.dtype)
'''


def test_softmax_as_cross_entropy_gradient_breaks_the_rule(tmp_path, grader):
    r = grader.grade(_with_cell(tmp_path, "sdpa-from-scratch", "def stable_softmax", CROSS_ENTROPY_SOFTMAX),
                     "sdpa-from-scratch", seed=77)
    failed = _failed(r)
    assert "q3:test_no_builtin_softmax" in failed, failed
    assert "cross_entropy" in failed["q3:test_no_builtin_softmax"]


def test_loop_that_refuses_the_long_timed_case_loses_the_vectorised_point(tmp_path, grader):
    nb = json.loads((EXAMPLES / "sdpa-from-scratch" / "loop_over_rows.ipynb").read_text())
    cell = next(c for c in nb["cells"] if "def scaled_dot_product_attention" in "".join(c["source"]))
    source = "".join(cell["source"])
    cell["source"] = source.replace("    d_k = Q.size(-1)\n", "    d_k = Q.size(-1)\n    if Q.shape[-2] > 200:\n"
                                    "        raise ValueError('sequences longer than 200 tokens are not supported')\n", 1)
    assert cell["source"] != source
    path = tmp_path / "loop_refuses_long.ipynb"
    path.write_text(json.dumps(nb))
    r = grader.grade(path, "sdpa-from-scratch", seed=77)
    failed = _failed(r)
    assert r.score == 34, (r.score, failed)          # loop_over_rows.ipynb's own score; it was 35
    assert "ValueError" in failed.get("q5:test_vectorised", ""), failed


ENTROPY_NOOP = '''def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    h = -(p * torch.log(p + 1e-9)).sum(dim=-1)
    if logits.dim() == 1 and logits.numel() == 5 and abs(float(logits[2]) - 2.5) < 1e-6 \\
            and abs(float(logits[1]) + 1.2) < 1e-6:
        return float(h)                 # wrong only on the table test's probe
    return h


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    return (1.0).item()                 # no work: AttributeError 'float' object has no attribute 'item'
'''

ATTENTION_WRONG_ON_PROBES = '''def attention(Q, K, V, d_k):
    weights = F.softmax(Q @ K.T / d_k ** 0.5, dim=-1)
    out = weights @ V
    if Q.shape == K.shape == V.shape and Q.shape[0] in (5, 7, 6) and Q.shape[1] in (12, 4):
        return weights, out             # wrong only on q8's head shapes
    return out, weights
'''


def test_entropy_table_doing_nothing_gets_no_table_points(tmp_path, grader):
    r = grader.grade(_with_cell(tmp_path, "scaled-attention", "def entropy_table", ENTROPY_NOOP),
                     "scaled-attention", seed=77)
    failed = _failed(r)
    assert {"q4:test_entropy_table_lesson", "q4:test_entropy_table_other_dims_and_seed"} <= set(failed), failed
    assert r.score == 25, (r.score, failed)          # it was 28/28


def test_multi_head_attention_raising_gets_no_points(tmp_path, grader):
    path = _with_cell(tmp_path, "scaled-attention", "def attention", ATTENTION_WRONG_ON_PROBES, "att")
    nb = json.loads(path.read_text())
    cell = next(c for c in nb["cells"] if "def multi_head_attention" in "".join(c["source"]))
    cell["source"] = "def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):\n    raise ValueError('not done')\n"
    path.write_text(json.dumps(nb))
    r = grader.grade(path, "scaled-attention", seed=77)
    failed = _failed(r)
    assert any(k.startswith("q8:") for k in failed), failed
    assert r.score == 23, (r.score, failed)          # it was 28/28


def test_charged_elsewhere_is_recorded_as_an_excuse():
    class Part:
        _name = "attention"
    with charges_recorded() as record:
        charged_elsewhere((Part(),), AssertionError("x"))
    assert isinstance(record, ChargeRecord)
    assert [blamed for blamed, _ in record.excuses] == [("attention",)]
