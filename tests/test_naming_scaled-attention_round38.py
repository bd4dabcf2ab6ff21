"""Naming scaled-attention's mistakes, round 38 (blind37's kinds), through the grader on notebooks built from
full_marks with one cell replaced: K re-read as (d_k, T_k) by .reshape/.view where a transpose was meant
(view_as_transpose, replayed on both results of the same call), one coordinate left out of every dot product
(dot_product_coordinate_dropped: inside the 10% band, named only when both estimates are exactly the replay of the
same generators' draws), a multiple-choice letter picked by a word search over the options' texts
(answer_by_keyword_search: the search read off the source and evaluated on the cell's own option texts), and
multi-head attention computed in float32 for float64 inputs (dtype_changed: right values, other dtype). My own
variants, not blind37's cells; each kind has a right variant of a similar shape that keeps full marks."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.heldout.harness import grade_cells
from tests.hidden_modules import load

D = load("scaled-attention", "_diagnose", "_test_scaled_r38__diagnose")

_DOC = '''    """Scaled dot-product attention. Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v).

    Returns (output, weights): output (T_q, d_v), weights (T_q, T_k) with rows summing to 1."""
'''

_VARIANCE_DOC = '''    """Sample variance of q.k (or of q.k / sqrt(d_k) when scaled=True) over n_samples pairs
    q, k ~ N(0, I_{d_k}) drawn from `generator`. Returns a Python float."""
'''

_MHA_DOC = '''    """X (T, d_model); W_* (d_model, d_model), applied as X @ W. Returns (T, d_model)."""
'''

_HEADS = '''    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out_h, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append(out_h)
'''

_Q7_TEXTS = '''{
    "A": "It returns the value of the key that equals the query exactly, like the table does",
    "B": "It only works when the keys are sorted",
    "C": "It returns the value of the best-scoring key only, so it is an argmax and has no useful gradient",
    "D": "It scores the query against every key and returns a softmax-weighted mix of all the values: a soft, "
         "differentiable version of the lookup (kernel regression with an exponential kernel)",
}'''

WRONG = {
    # --- view_as_transpose: K re-read as (d_k, T_k) ---------------------------------------------------------
    "keys_viewed_by_size": ({"attention": "def attention(Q, K, V, d_k):\n" + _DOC + '''
    scores = torch.matmul(Q, K.contiguous().view(K.size(-1), K.size(-2))) * d_k ** -0.5
    weights = torch.softmax(scores, dim=-1)
    return torch.matmul(weights, V), weights
'''}, "view_as_transpose"),
    "keys_torch_reshape_minus_one": ({"attention": "def attention(Q, K, V, d_k):\n" + _DOC + '''
    keys_t = torch.reshape(K, (d_k, -1))          # (d_k, T_k)
    weights = F.softmax(Q.mm(keys_t) / math.sqrt(d_k), dim=1)
    out = weights.mm(V)
    return out, weights
'''}, "view_as_transpose"),
    # --- dot_product_coordinate_dropped: d_k - 1 products per dot -----------------------------------------
    "dots_sum_stops_before_last": ({"dot_product_variance": "def dot_product_variance(d_k, n_samples, generator, "
                                    "scaled=False):\n" + _VARIANCE_DOC + '''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = sum(q[:, i] * k[:, i] for i in range(d_k - 1))
    if scaled:
        dots = dots / d_k ** 0.5
    return float(dots.var())
'''}, "dot_product_coordinate_dropped"),
    "dots_sliced_from_one": ({"dot_product_variance": "def dot_product_variance(d_k, n_samples, generator, "
                              "scaled=False):\n" + _VARIANCE_DOC + '''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.einsum("ni,ni->n", q[:, 1:], k[:, 1:])     # i = 1 .. d_k
    scale = math.sqrt(d_k) if scaled else 1.0
    return (dots / scale).var().item()
'''}, "dot_product_coordinate_dropped"),
    # --- answer_by_keyword_search: the first (or only) option whose text holds a word --------------------
    "q7_loop_breaks_on_first_value": ({"q7_answer": "opts = " + _Q7_TEXTS + '''
# attention mixes the values, so find the option about the value(s)
for letter, text in opts.items():
    if "value" in text.lower():
        q7_answer = letter
        break
'''}, "answer_by_keyword_search"),
    "q5_first_option_mentioning_d_k": ({"q5_answer": '''
options = ["1 (a constant)", "sqrt(d_k)", "d_k", "d_k^2"]
# the variance grows with d_k
q5_answer = next("ABCD"[i] for i, option in enumerate(options) if option.find("d_k") >= 0)
'''}, "answer_by_keyword_search"),
    "q6_any_of_two_words": ({"q6_answer": '''
choices = {"a": "A weighted average of all the rows of X, with weights softmax_j(X_i . X_j / sqrt(d_k))",
           "b": "X_i itself, since each token attends only to itself",
           "c": "The single row X_j whose dot product with X_i is largest",
           "d": "The plain (unweighted) mean of the rows of X"}
q6_answer = [k for k, v in choices.items() if any(w in v.lower() for w in ("attend", "token"))][0].upper()
'''}, "answer_by_keyword_search"),
    # --- dtype_changed: multi-head attention in float32 for float64 inputs -------------------------------
    "mha_inputs_to_float32": ({"multi_head_attention": "def multi_head_attention(X, W_Q, W_K, W_V, W_O, "
                               "n_heads):\n" + _MHA_DOC + '''
    X, W_Q, W_K, W_V, W_O = (t.to(torch.float32) for t in (X, W_Q, W_K, W_V, W_O))
''' + _HEADS + '''    return torch.cat(heads, dim=-1) @ W_O
'''}, "dtype_changed"),
    "mha_result_cast_to_float": ({"multi_head_attention": "def multi_head_attention(X, W_Q, W_K, W_V, W_O, "
                                  "n_heads):\n" + _MHA_DOC + _HEADS + '''    out = torch.cat(heads, dim=1) @ W_O
    return out.float()                            # a plain float tensor for printing
'''}, "dtype_changed"),
}

CORRECT = {
    "keys_transposed_then_viewed": {"attention": "def attention(Q, K, V, d_k):\n" + _DOC + '''
    keys_t = K.transpose(-2, -1).contiguous().view(d_k, -1)
    weights = torch.softmax(Q @ keys_t / math.sqrt(d_k), dim=-1)
    return weights @ V, weights
'''},
    "dots_one_based_loop_done_right": {"dot_product_variance": "def dot_product_variance(d_k, n_samples, "
                                       "generator, scaled=False):\n" + _VARIANCE_DOC + '''
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = torch.zeros(n_samples)
    for i in range(1, d_k + 1):                   # i = 1 .. d_k, as in the maths; Python indexes from 0
        dots += q[:, i - 1] * k[:, i - 1]
    if scaled:
        dots /= math.sqrt(d_k)
    return dots.var().item()
'''},
    "q7_search_lands_on_the_right_option": {"q7_answer": "opts = " + _Q7_TEXTS + '''
q7_answer = next(letter for letter, text in opts.items() if "softmax" in text)
'''},
    "mha_float64_inside_cast_back": {"multi_head_attention": "def multi_head_attention(X, W_Q, W_K, W_V, W_O, "
                                     "n_heads):\n" + _MHA_DOC + '''
    dtype = X.dtype
    X, W_Q, W_K, W_V, W_O = (t.double() for t in (X, W_Q, W_K, W_V, W_O))
''' + _HEADS + '''    return (torch.cat(heads, dim=-1) @ W_O).to(dtype)
'''},
}


def _graded(grader, name: str, cells: dict[str, str]):
    return grade_cells(grader, "scaled-attention", cells, f"round38_{name}")


@pytest.mark.parametrize("name", sorted(WRONG))
def test_own_wrong_variants_are_named(grader, name):
    cells, key = WRONG[name]
    outcome = _graded(grader, name, cells)
    assert outcome.score < outcome.max_score, outcome.explain()
    keys = [k for _q, _t, k, _m in outcome.failed]
    assert keys and all(k == key for k in keys), outcome.explain()


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_own_right_variants_keep_full_marks(grader, name):
    outcome = _graded(grader, name, CORRECT[name])
    assert outcome.full_marks, outcome.explain()


# --- in process: what each check leaves alone ----------------------------------------------------------------

def _sub(src: str):
    return SimpleNamespace(cells=[src], source=src)


def test_keyword_search_named_only_for_the_letter_it_gives():
    from autograder.grading.checks import Misconception
    src = "opts = " + _Q7_TEXTS + '\nq7_answer = next(l for l, t in opts.items() if "gradient" in t)\n'
    with pytest.raises(Misconception) as e:
        D.raise_if_keyword_search("q7_answer", "C", "D", _sub(src))
    assert e.value.key == "answer_by_keyword_search" and "'gradient'" in str(e.value)
    D.raise_if_keyword_search("q7_answer", "B", "D", _sub(src))       # not what the search gives
    D.raise_if_keyword_search("q7_answer", "D", "D", _sub(src))       # right: nothing to name
    # a literal letter beside the options, or a search this reader cannot evaluate: nothing
    D.raise_if_keyword_search("q7_answer", "C", "D", _sub("opts = " + _Q7_TEXTS + '\nq7_answer = "C"\n'))
    odd = "opts = " + _Q7_TEXTS + '\nq7_answer = next(l for l, t in opts.items() if len(t) > 80)\n'
    D.raise_if_keyword_search("q7_answer", "C", "D", _sub(odd))
    # no options literal anywhere: the texts are not known, nothing is named
    D.raise_if_keyword_search("q7_answer", "C", "D", _sub('q7_answer = next(l for l in "ABCD" if "gradient" in l)\n'))


def test_a_square_or_single_key_is_no_reshape_evidence():
    import torch
    g = torch.Generator().manual_seed(1)
    for shape in ((6, 6), (1, 6)):
        Q, K, V = (torch.randn(4, 6, generator=g, dtype=torch.float64), torch.randn(*shape, generator=g,
                   dtype=torch.float64), torch.randn(shape[0], 3, generator=g, dtype=torch.float64))
        right = (torch.softmax(Q @ K.T / 6 ** 0.5, -1) @ V, torch.softmax(Q @ K.T / 6 ** 0.5, -1))
        assert D.reshaped_keys_variants(Q, K, V, 6, right) == {}


def test_coordinate_dropped_needs_both_estimates_exact():
    import torch
    from autograder.grading.checks import Misconception

    def estimate(seed, drop):
        g = torch.Generator().manual_seed(seed)
        q, k = torch.randn(10_000, 12, generator=g), torch.randn(10_000, 12, generator=g)
        p = q * k
        return float((p[:, 1:] if drop else p).sum(-1).var())

    both = [(estimate(s, True), s) for s in (11, 12)]
    with pytest.raises(Misconception) as e:
        D.raise_if_coordinate_dropped(both, 12, 10_000, False)
    assert e.value.key == "dot_product_coordinate_dropped"
    D.raise_if_coordinate_dropped([both[0], (estimate(12, False), 12)], 12, 10_000, False)   # one right: nothing
    D.raise_if_coordinate_dropped([(estimate(s, False), s) for s in (11, 12)], 12, 10_000, False)


def test_a_search_that_does_not_set_the_answer_is_not_read():
    src = ("opts = " + _Q7_TEXTS + '\nabout_gradients = [l for l, t in opts.items() if "gradient" in t]\n'
           'q7_answer = sorted(opts)[2]\n')
    D.raise_if_keyword_search("q7_answer", "C", "D", _sub(src))
    fed = ("opts = " + _Q7_TEXTS + '\nhits = [l for l, t in opts.items() if "gradient" in t]\nq7_answer = hits[0]\n')
    with pytest.raises(AssertionError) as e:
        D.raise_if_keyword_search("q7_answer", "C", "D", _sub(fed))
    assert getattr(e.value, "key", None) == "answer_by_keyword_search"
