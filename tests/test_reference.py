"""Each oracle against an independent implementation: torch's own SDPA, softmax, log_softmax and
nn.MultiheadAttention (STYLE.md: test each reference function against torch's own ops). The oracles
are plain torch (no import of the grader), and every wrong variant differs from the oracle on the
shapes the hidden tests use, or it could never be named."""
from __future__ import annotations

import ast
import math
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from reference import attention_pipeline as pipe
from reference import scaled_attention as scaled
from reference import sdpa_from_scratch as sdpa

ROOT = Path(__file__).resolve().parent.parent


def _g(seed=0):
    return torch.Generator().manual_seed(seed)


@pytest.mark.parametrize("path", sorted((ROOT / "reference").glob("*.py")), ids=lambda p: p.name)
def test_references_do_not_import_the_grader(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
        assert not any(n.split(".")[0] == "autograder" for n in names), f"{path.name} imports {names}"


@pytest.mark.parametrize("shape_q,shape_k,d_v", [((2, 5, 12), (2, 7, 12), 3), ((2, 3, 4, 16), (2, 3, 4, 16), 16),
                                                  ((6, 8), (9, 8), 5)])
@pytest.mark.parametrize("masked", [False, True])
def test_sdpa_oracle_is_torch_sdpa(shape_q, shape_k, d_v, masked):
    g = _g(1)
    Q = torch.randn(shape_q, generator=g, dtype=torch.float64)
    K = torch.randn(shape_k, generator=g, dtype=torch.float64)
    V = torch.randn(shape_k[:-1] + (d_v,), generator=g, dtype=torch.float64)
    mask = None
    if masked:
        mask = torch.rand(shape_q[:-1] + (shape_k[-2],), generator=g) < 0.6
        mask[..., 0] = True                     # torch's SDPA gives NaN where every key is masked
    want = F.scaled_dot_product_attention(Q, K, V, attn_mask=mask)
    torch.testing.assert_close(sdpa.scaled_dot_product_attention(Q, K, V, mask), want, rtol=1e-12, atol=1e-12)


def test_sdpa_oracle_causal_is_is_causal_and_fully_masked_rows_are_zero():
    g = _g(2)
    Q, K, V = (torch.randn(2, 5, 8, generator=g, dtype=torch.float64) for _ in range(3))
    want = F.scaled_dot_product_attention(Q, K, V, is_causal=True)
    torch.testing.assert_close(sdpa.scaled_dot_product_attention(Q, K, V, sdpa.causal_mask(5)), want)
    for T_q, T_k in ((3, 7), (7, 3)):          # top-left aligned, like is_causal
        Qr, Kr, Vr = (torch.randn(1, T, 4, generator=g, dtype=torch.float64) for T in (T_q, T_k, T_k))
        want = F.scaled_dot_product_attention(Qr, Kr, Vr, is_causal=True)
        torch.testing.assert_close(sdpa.scaled_dot_product_attention(Qr, Kr, Vr, sdpa.causal_mask(T_q, T_k)), want)
    dead = torch.ones(5, 5, dtype=torch.bool)
    dead[2] = False
    out = sdpa.scaled_dot_product_attention(Q, K, V, dead)
    assert bool((out[:, 2] == 0).all()) and torch.isfinite(out).all()


def test_stable_softmax_is_torch_softmax():
    x = torch.randn(3, 4, 5, generator=_g(3), dtype=torch.float64) * 5
    for dim in (0, 1, -1):
        torch.testing.assert_close(sdpa.stable_softmax(x, dim), torch.softmax(x, dim), rtol=1e-12, atol=1e-15)
    h = (x * 400).to(torch.float16)
    torch.testing.assert_close(sdpa.stable_softmax(h, -1).double(), torch.softmax(h.double(), -1), rtol=0, atol=1e-3)


def test_sdpa_variants_differ_from_the_oracle_where_the_tests_can_show_them():
    g = _g(4)
    Q, K = (torch.randn(3, 7, 16, generator=g) for _ in range(2))
    K = torch.randn(3, 9, 16, generator=g)
    V = torch.randn(3, 9, 10, generator=g)
    right = sdpa.scaled_dot_product_attention(Q, K, V)
    for key, out in sdpa.wrong_variants(Q, K, V).items():
        assert out.shape != right.shape or not torch.allclose(out.double(), right.double(), rtol=1e-5, atol=1e-5,
                                                              equal_nan=True), key


def test_pipeline_oracle_against_torch():
    g = _g(5)
    X = torch.randn(2, 6, 7, generator=g, dtype=torch.float64)
    W_Q, W_K = (torch.randn(7, 12, generator=g, dtype=torch.float64) for _ in range(2))
    W_V = torch.randn(7, 5, generator=g, dtype=torch.float64)
    O, A = pipe.self_attention(X, W_Q, W_K, W_V)
    want = F.scaled_dot_product_attention(X @ W_Q, X @ W_K, X @ W_V, is_causal=True)
    torch.testing.assert_close(O, want)
    O2, _ = pipe.self_attention(X, W_Q, W_K, W_V, parts=dict(pipe.STAGES))   # the hook changes nothing
    torch.testing.assert_close(O2, O, rtol=0, atol=0)
    Y = torch.randn(2, 9, 7, generator=g, dtype=torch.float64)
    Oc, _ = pipe.cross_attention(X, Y, W_Q, W_K, W_V)
    torch.testing.assert_close(Oc, F.scaled_dot_product_attention(X @ W_Q, Y @ W_K, Y @ W_V))
    # entropy in bits with 0 log 0 = 0; 2 ** H of a uniform prefix row is its length
    H = pipe.row_entropy_bits(A)
    torch.testing.assert_close(H, -(A * torch.log2(A.clamp_min(1e-300))).sum(-1))
    torch.testing.assert_close(pipe.effective_tokens(pipe.prefix_average_matrix(5)),
                               torch.arange(1, 6, dtype=torch.float64))
    M = pipe.causal_additive_mask(4, torch.float16)
    assert torch.isfinite(M).all() and M.min() == torch.finfo(torch.float16).min


def test_scaled_attention_oracle_against_torch():
    g = _g(6)
    Q, K, V = (torch.randn(n, d, generator=g, dtype=torch.float64) for n, d in ((5, 12), (7, 12), (7, 9)))
    out, w = scaled.attention(Q, K, V, 12)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(Q[None], K[None], V[None])[0])
    torch.testing.assert_close(w.sum(-1), torch.ones(5, dtype=torch.float64))
    logits = torch.randn(4, 6, generator=g, dtype=torch.float64) * 3
    p = torch.softmax(logits, -1)
    torch.testing.assert_close(scaled.softmax_entropy(logits), -(p * torch.log(p)).sum(-1))
    X = torch.randn(5, 36, generator=g, dtype=torch.float64)
    Ws = [torch.randn(36, 36, generator=g, dtype=torch.float64) / 6 for _ in range(4)]
    torch.testing.assert_close(scaled.multi_head_attention(X, *Ws, 3), scaled.torch_mha(X, *Ws, 3))
    per_head = scaled.multi_head_attention(X, *Ws, 3, per_head=scaled.attention)   # the hook changes nothing
    torch.testing.assert_close(per_head, scaled.multi_head_attention(X, *Ws, 3))
    # Var(q.k) = d_k and Var(q.k / sqrt(d_k)) = 1, within the tests' 10% band
    assert abs(scaled.dot_product_variance(64, 10_000, _g(7)) / 64 - 1) < 0.1
    assert abs(scaled.dot_product_variance(64, 10_000, _g(8), scaled=True) - 1) < 0.1
    assert math.isclose(scaled.entropy_table()[0]["d"], 4)


def test_grader_side_tables_leave_the_global_generator_alone():
    # `autograder check` grades two submissions at a time in one process, and torch's global generator is
    # shared by its threads: an oracle that reseeded it (torch.manual_seed) for the lesson's entropy table drew
    # another thread's numbers now and then, and full_marks.ipynb lost q4's 2 points in 1 check of 3 (12-06)
    from tests.hidden_modules import load

    D = load("scaled-attention", "_diagnose", "scaled_diagnose_global_generator")
    dims, seed = (4, 16, 64, 256), 3
    torch.manual_seed(seed)
    global_stream = []
    for d in dims:      # the lesson's own code: reseed, then q before k
        torch.manual_seed(seed)
        q, k = torch.randn(1, d), torch.randn(5, d)
        global_stream.append((q @ k.T)[0])
    want = torch.tensor([[r.std().item(), (r / d ** 0.5).std().item()] for r, d in zip(global_stream, dims)])
    torch.manual_seed(99)
    before = torch.get_rng_state()
    table = scaled.entropy_table(dims, seed)
    D.table_one_score(dims, seed)
    D._low_precision_tables(dims, seed, torch.float16)
    assert torch.equal(torch.get_rng_state(), before)
    got = torch.tensor([[row["raw_std"], row["scaled_std"]] for row in table])
    assert torch.equal(got, want)                       # the same numbers as torch.manual_seed(seed) gives


def test_candidate_tables_say_nothing_on_the_terminal_for_one_entry():
    # `autograder check scaled-attention` printed torch's "std(): degrees of freedom is <= 0" warning (a candidate
    # table's unbiased std of d = 1's single query entry): a candidate row that cannot be defined is NaN, silently
    import warnings

    from tests.hidden_modules import load

    D = load("scaled-attention", "_diagnose", "scaled_diagnose_one_entry_std")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = D.table_input_stds((1, 4), 3, "q")
    assert math.isnan(float(table[0, 1])) and math.isfinite(float(table[1, 1]))


def test_own_std_replays_say_nothing_for_one_key():
    # sdpa's replay of scores divided by their own std, per query row, on a call with one key: torch's unbiased std of
    # one entry warned "degrees of freedom is <= 0" into pytest's summary; such a replay is simply not made (None)
    import warnings

    import torch

    from tests.hidden_modules import load

    D = load("sdpa-from-scratch", "_diagnose", "sdpa_diagnose_one_key_std")
    Q, K, V = (torch.randn(2, 3, 4, dtype=torch.float64), torch.randn(2, 1, 4, dtype=torch.float64),
               torch.randn(2, 1, 5, dtype=torch.float64))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert D.sdpa_divided_by_own_std(-1)(Q, K, V) is None
        assert D.sdpa_divided_by_own_std(-1, 0)(Q, K, V) is not None     # a biased std of one entry is 0: defined
        assert D.sdpa_divided_by_own_std((-2, -1))(Q, K, V) is not None  # three entries per matrix
