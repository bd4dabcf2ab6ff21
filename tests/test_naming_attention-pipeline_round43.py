"""attention-pipeline, naming round 43 (blind42's kinds): row_entropy_bits renormalising A along another axis than its
rows (A / A.sum(dim=0), scipy.stats.entropy's default axis; or dim=-2, each matrix's columns), its log 0 guarded, is
entropy_renormalised_other_axis on both q10 tests, never zero_log_zero_nan: that key now needs the output to be the
unguarded 0 * log 0 replayed (NaN exactly on the rows with a zero weight, right elsewhere); Q, K, V squeezed
(.squeeze() on the projections or on X) lose the size-1 axis of a batch of one sequence, a case added inside
test_project_batched_float32 (its points unchanged), and are size_one_axis_dropped there; q11's answers as floats
holding the right number (8.0 from an average, float(...)) are float_for_int, as the notebook asks for integers. Each
kind: two wrong variants of my own or more, a correct one at full marks, and a near miss that keeps another name."""
from __future__ import annotations

import pytest

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_named, graded_as


ENT, PROJ = "row_entropy_bits", "project_qkv"


_graded = graded_as("attention-pipeline", "round43")


# --- q10: renormalised along another axis, and the unguarded 0 * log 0 ----------------------------------------------

def _entropy(body: str) -> dict[str, str]:
    return {ENT: "import math\n\n\ndef row_entropy_bits(A):\n" + body
            + "\n\ndef effective_tokens(A):\n    return 2.0 ** row_entropy_bits(A)\n"}


@pytest.mark.parametrize("body", [
    # axis 0 kept, xlogy: NaN where a whole batch column is masked (xlogy(NaN, NaN) is NaN)
    "    P = A / A.sum(0, keepdim=True)\n    return -torch.special.xlogy(P, P).sum(-1) / math.log(2)\n",
    # the division guarded (0 / 1e-12 = 0): no NaN, the values of the batch-renormalised rows
    "    P = A / A.sum(dim=0).clamp_min(1e-12)\n    return -(P * torch.log2(P.clamp_min(1e-300))).sum(-1)\n",
    # each matrix's columns (dim=-2), log 0 guarded
    "    P = A / A.sum(dim=-2, keepdim=True)\n    return -torch.where(P > 0, P * torch.log2(P), 0.0).sum(-1)\n",
])
def test_renormalised_other_axis_is_named(grader: Grader, body: str) -> None:
    assert_named(_graded(grader, _entropy(body)), "entropy_renormalised_other_axis", {"q10"}, tests=2)


@pytest.mark.parametrize("body", [
    "    return -(A * torch.log2(A)).sum(-1)\n",
    "    return -(A * torch.log(A)).sum(dim=-1) / math.log(2)\n",
])
def test_unguarded_zero_log_zero_keeps_its_name(grader: Grader, body: str) -> None:
    assert_named(_graded(grader, _entropy(body)), "zero_log_zero_nan", {"q10"}, tests=2)


@pytest.mark.parametrize("body", [
    # renormalised along the rows, as scipy does with axis=-1: the rows already sum to 1, so nothing changes
    "    P = A / A.sum(dim=-1, keepdim=True)\n    return -torch.special.xlogy(P, P).sum(-1) / math.log(2)\n",
    "    return torch.special.entr(A).sum(-1) / math.log(2)\n",
])
def test_row_renormalised_entropy_keeps_full_marks(grader: Grader, body: str) -> None:
    assert_full_marks(_graded(grader, _entropy(body)))


# --- q01: projections squeezed ----------------------------------------------------------------------------------------

HEAD = "def project_qkv(X, W_Q, W_K, W_V):\n"


@pytest.mark.parametrize("body", [
    "    X = X.squeeze()\n    return X @ W_Q, X @ W_K, X @ W_V\n",
    "    return tuple(torch.squeeze(torch.matmul(X, W)) for W in (W_Q, W_K, W_V))\n",
    "    return tuple((X @ W).squeeze(1) for W in (W_Q, W_K, W_V))\n",
])
def test_squeezed_projections_are_named(grader: Grader, body: str) -> None:
    assert_named(_graded(grader, {PROJ: HEAD + body}), "size_one_axis_dropped", {"q01"}, tests=1)


def test_squeeze_of_an_added_axis_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {PROJ: HEAD + "    return tuple((X.unsqueeze(-2) @ W).squeeze(-2) for W in (W_Q, W_K, W_V))\n"}))


def test_flattened_rows_keep_their_own_name(grader: Grader) -> None:
    outcome = _graded(grader, {PROJ: HEAD + "    Xf = X.reshape(-1, X.shape[-1])\n    return Xf @ W_Q, Xf @ W_K, "
                                            "Xf @ W_V\n"})
    assert {k for *_, k, _ in outcome.failed} == {"batched_input_unsupported"}, outcome.failed
