"""Red-team round 79: code that knows it is being graded or measured.

A notebook that behaves one way under the hidden tests' calls and another elsewhere: it recognises the timed calls
(their shapes and dtype), the seed of a generator, the n-th call, and answers what passes there. Each finding
measured as points on examples/submissions/<slug>/full_marks.ipynb with one function replaced (`autograder grade NB
-a SLUG`); repros in /tmp/rt79/ (mk.py builds a notebook, the *.py beside it are the replaced cells).

- **The timing was vouched for by a known mistake's values that only the timed calls got.** sdpa q5's
  test_vectorised checks the timed calls' summed output (checks._slowdown): the reference's values or any known
  wrong variant's (timing_variants: "a value mistake is the value tests' business and costs nothing here"). Among
  the variants is uniform_weights, the mean of V: one cheap line. A double loop over queries and keys (1298x the
  reference, not_vectorised, 34/35) that returns `V.mean(-2, keepdim=True).expand(...)` when Q is float64 and of
  one of the three timed shapes scored 35/35 (timed_mean.py): no vectorised attention at all (security.md's known
  limit said "only with a right vectorised path"). Now a timing verified by a variant rather than the reference is
  recorded as an excuse (runner.hold_excuses): it stands only where a test of the function's values fails too,
  so an honest vectorised mistake (upper_triangular_mask, causal_excludes_self, zero_after_softmax: their timed
  values are a variant's) keeps its score, and the trick is 34/35.
- **A generator read for its seed, not drawn from.** scaled-attention q2's test_draws_from_generator called
  dot_product_variance twice with generators seeded alike and asked for equal results; `torch.manual_seed(
  generator.initial_seed())` then torch's global generator (the state ignored: the notebook's own loop over one
  generator gets the same draws at every call) scored 28/28 (reseed_var.py), where variance_ignores_generator.ipynb
  scores 27. A memo of the last answer per (d_k, n_samples, scaled) passed that test too (it fails the band tests:
  25/28). Now a third call gets a generator seeded alike with one draw already taken: an estimator that draws from
  it answers another number; one that reads only the seed answers the same and is named ignores_generator: 27/28.

Tried and holding (no test; measured with `autograder grade`): a graded function that forks a helper process in a cell
to run its loop, or the forbidden F.scaled_dot_product_attention, outside the worker's CPU clock and guard (os.fork is
refused: PermissionError, 19/35, fork_loop.py); q5 right on its first call only (19/35, first_call.py) or wrong on every
third call (21/35, every_nth.py): every value test compares a fresh reference on fresh inputs; a memo keyed by the
inputs' data pointers and shapes (35/35, full marks' own score: nothing gained, ptr_memo.py; the timed calls draw new
inputs inside the request, so a stale answer there fails the timing); a memo of the last answer per (d_k, n_samples,
scaled) in scaled-attention q2 (25/28, memo_var.py: the band tests draw two generators); hidden inputs printed by the
graded function (none of its lines reach results.json, leak.py) or raised in an exception (each grade draws its own
inputs from its own seed: two grades of leak.py ran on seeds 7459568048387148602 and 1947918700979130926).
"""
from __future__ import annotations

import json
from pathlib import Path

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


# right everywhere the value tests look (full_marks's own code, a loop over queries for good measure), the mean of V
# (the uniform_weights variant) on q5's three timed shapes only
TIMED_MEAN_SDPA = '''TIMED = {(1, 256, 16), (128, 4, 4), (64, 2, 4, 4)}


def scaled_dot_product_attention(Q, K, V, mask=None):
    if tuple(Q.shape) in TIMED and Q.dtype == torch.float64 and mask is not None:
        return V.mean(dim=-2, keepdim=True).expand(*V.shape[:-2], Q.shape[-2], V.shape[-1])
    d_k = Q.size(-1)
    rows = []
    for i in range(Q.shape[-2]):
        s = torch.matmul(Q[..., i:i + 1, :], K.transpose(-2, -1)) / math.sqrt(d_k)
        if mask is not None:
            m = mask.expand(*s.shape[:-2], Q.shape[-2], K.shape[-2])[..., i:i + 1, :]
            w = stable_softmax(s.masked_fill(m == False, float("-inf")), dim=-1)
            w = torch.where(m.any(dim=-1, keepdim=True), w, torch.zeros_like(w))
        else:
            w = stable_softmax(s, dim=-1)
        rows.append(torch.matmul(w, V))
    return torch.cat(rows, dim=-2)
'''


def test_a_mistake_answered_only_to_the_timed_calls_does_not_vouch_for_the_timing(tmp_path, grader):
    r = grader.grade(_with_cell(tmp_path, "sdpa-from-scratch", "def scaled_dot_product_attention", TIMED_MEAN_SDPA),
                     "sdpa-from-scratch", seed=79)
    failed = _failed(r)
    assert r.score == 34, (r.score, failed)        # it was 35: every value test passes, the timing was "verified"
    assert list(failed) == ["q5:test_vectorised"], failed
    assert "known mistake's values" in failed["q5:test_vectorised"], failed


def test_an_honest_vectorised_mistake_keeps_its_timing_point(tmp_path, grader):
    # its timed values are a variant's (the causal mask flipped): the value tests charge it, the timing stands
    r = grader.grade(EXAMPLES / "sdpa-from-scratch" / "upper_triangular_mask.ipynb", "sdpa-from-scratch", seed=79)
    failed = _failed(r)
    assert r.score == 31, (r.score, failed)
    assert "q5:test_vectorised" not in failed, failed


RESEEDED_VARIANCE = '''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    """Draws from torch's global generator, reseeded with the generator's seed: its state is ignored."""
    torch.manual_seed(generator.initial_seed())
    q = torch.randn(n_samples, d_k)
    k = torch.randn(n_samples, d_k)
    dots = (q * k).sum(1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    return dots.var().item()
'''


def test_a_generator_read_for_its_seed_is_ignores_generator(tmp_path, grader):
    r = grader.grade(_with_cell(tmp_path, "scaled-attention", "def dot_product_variance", RESEEDED_VARIANCE),
                     "scaled-attention", seed=79)
    failed = _failed(r)
    assert r.score == 27, (r.score, failed)        # variance_ignores_generator.ipynb's own score; it was 28
    assert list(failed) == ["q2:test_draws_from_generator"], failed
    assert any(t.misconception == "ignores_generator" for t in r.tests if t.status == "failed"), failed
