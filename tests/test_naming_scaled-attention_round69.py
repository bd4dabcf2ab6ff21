"""Naming scaled-attention's mistakes, round 69 (blind69's mis-named, generic and raw variants, the kinds: state kept
between calls in a list, a shape bookkeeping that fits 2-D logits only, a divisor without brackets, one head's term
counted twice, an assert on the token count).

variance_dots_kept_between_calls (q2): the dot products appended to a list made once at cell level (`all_dots = []`
above the def) and the variance taken over that list: named where the notebook's last def grows a list bound at cell
level that it never binds itself, reads it again, and two calls on generators seeded alike give different numbers;
no longer ignores_generator (the draws do come from the generator), and the scaled test is told the list, not
scaled_flag_ignored (the list, full of unscaled dots, gives about d_k). A list made inside the function, or a log
kept at cell level and never read, keeps full marks.

fixed_axes (q4, said with its cause): a row total (or max) flattened into a (rows, 1) column with .reshape(-1, 1) or
.view(-1, 1): on (B, R, T) logits torch's size mismatch has the flattened row count B * R as one size, and the same
rows as one 2-D tensor give the right entropies.

variance_count_unbracketed (q4's table, shared with sdpa-from-scratch): `squared / n - 1` for the unbiased variance;
math.sqrt of it raises "math domain error", named where the replayed biased variance of some row's raw or scaled
scores is below 1 (so that minus 1 it is negative, as the crash says) and the notebook writes `x / n - 1`.

mha_head_counted_twice (q8): the output as a sum over the heads of head_h @ W_O's block, started from head 0's term
(or the last head's) and then adding every head: a replay of that sum.

mha_assert_token_count (q8): the student's own assert tests X.shape[0] (len(X), X.size(0)) % n_heads: named where it
fails on T tokens, the same call with n_heads and 2 n_heads tokens runs and is right, and with n_heads + 1 it fails
again; an assert on d_model keeps full marks.

mha_head_rows_sliced said with its cause (the key unchanged): the heads cut with np.split / torch.chunk / .split given
no axis, whose default cuts axis 0, the tokens; a split along axis 1 keeps full marks.

My own variants, not the blind set's cells; right neighbours keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import grade_cells

KEPT = {
    "history_extended_with_tensor_dots": {"dot_product_variance": '''
history = []


def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    history.extend(dots.tolist())
    return torch.tensor(history, dtype=torch.float64).var().item()
'''},
    "collected_list_call_appended_in_loop": {"dot_product_variance": '''
collected = list()


def dot_product_variance(d_k, n_samples, generator, scaled=False):
    scale = math.sqrt(d_k) if scaled else 1.0
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    for row in (q * k).sum(dim=1):
        collected.append(row.item() / scale)
    return float(torch.tensor(collected).var())
'''},
}
KEPT_RIGHT = {
    "list_made_inside": {"dot_product_variance": '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    collected = []
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    for row in (q * k).sum(dim=1):
        collected.append(row.item() / (math.sqrt(d_k) if scaled else 1.0))
    return float(torch.tensor(collected).var())
'''},
    "log_at_cell_level_never_read": {"dot_product_variance": '''
call_log = []


def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (q * k).sum(-1)
    if scaled:
        dots = dots / math.sqrt(d_k)
    call_log.append((d_k, n_samples, scaled))
    return dots.var().item()
'''},
}


def _entropy(body: str) -> dict[str, str]:
    return {"softmax_entropy": f'''
def softmax_entropy(logits):
{body}


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({{"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}})
    return results
'''}


COLUMN = {
    "row_max_viewed_as_column": _entropy('''    top = logits.max(dim=-1).values.view(-1, 1)
    log_p = torch.log_softmax(logits - top, dim=-1)
    return -(log_p.exp() * log_p).sum(dim=-1)'''),
    "totals_reshaped_after_amax_keepdim": _entropy('''    shifted = logits - logits.amax(dim=-1, keepdim=True)
    totals = torch.sum(torch.exp(shifted), dim=-1).reshape(-1, 1)
    log_p = shifted - torch.log(totals)
    return -(log_p.exp() * log_p).sum(-1)'''),
}
COLUMN_RIGHT = {
    "totals_keepdim": _entropy('''    shifted = logits - logits.amax(dim=-1, keepdim=True)
    log_p = shifted - torch.log(torch.exp(shifted).sum(dim=-1, keepdim=True))
    return -(log_p.exp() * log_p).sum(-1)'''),
    "totals_unsqueezed": _entropy('''    shifted = logits - logits.amax(dim=-1, keepdim=True)
    log_p = shifted - torch.log(torch.exp(shifted).sum(dim=-1).unsqueeze(-1))
    return -(log_p.exp() * log_p).sum(-1)'''),
}


def _table(std: str, helper: str = "") -> dict[str, str]:
    return {"softmax_entropy": f'''
def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)
{helper}

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    out = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / math.sqrt(d)
        stds = []
        for x in (raw, scaled):
{std}
        out.append({{"d": d, "raw_std": stds[0], "scaled_std": stds[1],
                    "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}})
    return out
'''}


_HAND_STD = '''
def hand_std(values):
    mean = sum(values) / len(values)
    total = sum((v - mean) ** 2 for v in values)
    return math.sqrt(total / {divisor})
'''
UNBRACKETED = {
    "helper_divides_by_len_then_minus_one": _table("            stds.append(hand_std(x.tolist()))",
                                                   _HAND_STD.format(divisor="len(values) - 1")),
    "inline_sum_over_n_minus_one": _table("            n = x.numel()\n"
                                          "            var = ((x - x.mean()) ** 2).sum().item() / n - 1\n"
                                          "            stds.append(math.sqrt(var))"),
}
UNBRACKETED_RIGHT = {
    "helper_bracketed": _table("            stds.append(hand_std(x.tolist()))",
                               _HAND_STD.format(divisor="(len(values) - 1)")),
}


def _mha(tail: str, head: str = "") -> dict[str, str]:
    return {"multi_head_attention": f'''def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
{head}    d_k = X.shape[-1] // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = [attention(Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k],
                       V[:, h * d_k:(h + 1) * d_k], d_k)[0] for h in range(n_heads)]
{tail}
'''}


TWICE = {
    "sum_started_from_head_zero": _mha('''    out = heads[0] @ W_O[:d_k]
    for h in range(n_heads):
        out += heads[h] @ W_O[h * d_k:(h + 1) * d_k]
    return out'''),
    "sum_started_from_last_head": _mha('''    last = n_heads - 1
    acc = heads[last] @ W_O[last * d_k:]
    for h, head in enumerate(heads):
        acc = acc + head @ W_O[h * d_k:(h + 1) * d_k, :]
    return acc'''),
}
TWICE_RIGHT = {
    "sum_started_from_zeros": _mha('''    out = torch.zeros(X.shape[0], W_O.shape[1], dtype=X.dtype)
    for h in range(n_heads):
        out += heads[h] @ W_O[h * d_k:(h + 1) * d_k]
    return out'''),
}

_CAT = "    return torch.cat(heads, dim=-1) @ W_O"
TOKEN_ASSERT = {
    "assert_len_x": _mha(_CAT, head="    assert len(X) % n_heads == 0\n"),
    "assert_size_zero_with_message": _mha(_CAT, head="    assert X.size(0) % n_heads == 0, 'heads must divide the width'\n"),
}
TOKEN_ASSERT_RIGHT = {
    "assert_width": _mha(_CAT, head="    assert X.shape[1] % n_heads == 0, 'd_model must be divisible by n_heads'\n"),
}


def _split(cut: str) -> dict[str, str]:
    return {"multi_head_attention": f'''import numpy as np


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_k = X.shape[1] // n_heads
    parts = [{cut} for M in (X @ W_Q, X @ W_K, X @ W_V)]
    heads = [attention(parts[0][h], parts[1][h], parts[2][h], d_k)[0] for h in range(n_heads)]
    return torch.cat(heads, dim=1) @ W_O
'''}


SPLIT_DEFAULT_AXIS = {
    "numpy_split_no_axis": _split("[torch.from_numpy(b) for b in np.split(M.numpy(), n_heads)]"),
    "tensor_chunk_no_dim": _split("M.chunk(n_heads)"),
}
SPLIT_RIGHT = {
    "numpy_split_axis_one": _split("[torch.from_numpy(b) for b in np.split(M.numpy(), n_heads, axis=1)]"),
}


def _failed(outcome, question):
    return [(k, m) for q, _t, k, m in outcome.failed if q == question]


# each kind: its variants, the question that names it, the key, and the words every one of its messages says
KINDS = {
    "dots_kept": (KEPT, "q2", "variance_dots_kept_between_calls", ("a list made once at cell level",)),
    "column": (COLUMN, "q4", "fixed_axes", ("(rows, 1) column", "keepdim=True")),
    "unbracketed": (UNBRACKETED, "q4", "variance_count_unbracketed", ("math domain error", "- 1`")),
    "head_twice": (TWICE, "q8", "mha_head_counted_twice", ()),
    "token_assert": (TOKEN_ASSERT, "q8", "mha_assert_token_count", ("tests the number of tokens",)),
    "split_default_axis": (SPLIT_DEFAULT_AXIS, "q8", "mha_head_rows_sliced", ("by default", "axis 0, the tokens")),
}


@pytest.mark.parametrize("kind, name", [(kind, name) for kind, (cases, *_rest) in KINDS.items() for name in sorted(cases)])
def test_each_kind_is_named(grader, kind, name):
    cases, question, key, words = KINDS[kind]
    outcome = grade_cells(grader, "scaled-attention", cases[name], f"round69_{name}")
    failed = _failed(outcome, question)
    assert failed and all(k == key for k, _m in failed), outcome.explain()
    assert all(w in m for _k, m in failed for w in words), outcome.explain()


RIGHT = {**SPLIT_RIGHT, **KEPT_RIGHT, **COLUMN_RIGHT, **UNBRACKETED_RIGHT, **TWICE_RIGHT, **TOKEN_ASSERT_RIGHT}


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_own_right_variants_keep_full_marks(grader, name):
    outcome = grade_cells(grader, "scaled-attention", RIGHT[name], f"round69_{name}")
    assert outcome.full_marks, outcome.explain()
