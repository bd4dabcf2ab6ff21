"""attention-pipeline, naming round 74 (blind74's kinds: NumPy habits; blind75's: slips of the hand).

q11: rank_S_lesson = 5 where the answer cell counts S's singular values by length (len(np.linalg.svd(S)[1]),
svdvals(S).numel(), "the number of singular values"): min(T_q, T_k) = 5 whatever S is. Before: generic (the
hermitian / T message). Now rank_counts_all_singular_values, by the value and a bounded read of that cell. A count
of a comparison (len(s > tol)) is not this kind.

q14: 'c' from scores written keys first (np.dot(K, Q.T), K @ Q.T, matmul(K, Q.transpose(...))): named
cross_roles_swapped, MIS-NAMED (Q stays X's, K Y's). Now scores_transposed, by a bounded read of the answer cell;
a cell that says only "keys first" keeps cross_roles_swapped.

q03 / q14: a letter typed beside a comment that describes the right option alone (b and d mirrored; a prime in
option d overlooked): named by the letter's option (entropy_negative, cross_output_from_keys), MIS-NAMED (the
student's comment says otherwise). Now letter_contradicts_comment, by the answer cell's comments; an ambiguous
comment, or one that states the letter's own option, keeps the option's key.

q10 / q13: float64 out of float32 inputs because the def makes a NumPy array in float64 (np.zeros without dtype=,
dtype=float, .astype(float)) and turns it back with torch.from_numpy / torch.tensor: dtype_changed / dtype_mix,
named before (borderline: the cause unsaid). Now the key kept and the line said, by a bounded read of the def; the
same NumPy line cast back to the input's dtype keeps full marks.

q05: the masked scores bound to a name nothing reads (`score = S + M`, then softmax(S)): mask_ignored, named before
(borderline: where the mask is lost unsaid). Now the line said, by a bounded read of the def.

q08: the scale written outside exp(...) (exp(K @ q) / sqrt(d_k)): no_scale, named before (borderline: the paren
unsaid). Now the line said, by a bounded read of the def; the scale inside the exp keeps full marks. And V
transposed, then summed over axis 0 (now V's value axis): nw_sum_wrong_axis, named before (borderline: its dims are
V's own layout); now the transposed operand and the sum said; the same product summed over the last axis is right.

q03: a wrong letter from an experiment with uniform [0, 1) draws (torch.rand, np.random.rand): the option's key,
named before (borderline: what misled the experiment unsaid). Now the draw said, by a bounded read of the answer
cell; an experiment with randn says nothing of the kind.
"""
from __future__ import annotations

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_full_marks, assert_named, failed_keys, graded_as

SCALE_ANS = "ans_scale"
SHAPES_ANS = "ans_cross_shapes"
RANK = "max_rank_S"   # the q11 cell (also defines rank_S_lesson)
ENT = "row_entropy_bits"
CROSS = "cross_attention"
WEIGHTS = "attention_weights"
NW = "nadaraya_watson"
EFFECTIVE = "\n\ndef effective_tokens(A):\n    return 2.0 ** row_entropy_bits(A)\n"

_graded = graded_as("attention-pipeline", "round74")


# --- q11: every singular value counted ----------------------------------------------------------------------------

def test_rank_as_len_of_svdvals_is_named(grader: Grader) -> None:
    cell = "max_rank_S = 8\nrank_S_lesson = 5   # len(torch.linalg.svdvals(S_lesson))\n"
    assert_named(_graded(grader, {RANK: cell}), "rank_counts_all_singular_values", "q11", tests=1)


def test_rank_as_numel_of_svd_values_is_named(grader: Grader) -> None:
    cell = "max_rank_S = 8\n# I took torch.linalg.svd(S).S.numel() for the rank\nrank_S_lesson = 5\n"
    assert_named(_graded(grader, {RANK: cell}), "rank_counts_all_singular_values", "q11", tests=1)


def test_rank_said_as_number_of_singular_values_is_named(grader: Grader) -> None:
    cell = "max_rank_S = 8\nrank_S_lesson = 5   # the rank is the number of singular values of S\n"
    assert_named(_graded(grader, {RANK: cell}), "rank_counts_all_singular_values", "q11", tests=1)


def test_len_of_a_comparison_is_not_counted_as_every_singular_value(grader: Grader) -> None:
    cell = "max_rank_S = 8\nrank_S_lesson = 5   # len(torch.linalg.svdvals(S) > 1e-6)\n"
    assert "rank_counts_all_singular_values" not in failed_keys(_graded(grader, {RANK: cell}))


def test_rank_without_svd_count_is_not_named_so(grader: Grader) -> None:
    cell = "max_rank_S = 8\nrank_S_lesson = 5   # five tokens\n"
    assert "rank_counts_all_singular_values" not in failed_keys(_graded(grader, {RANK: cell}))


def test_nonzero_singular_values_counted_keeps_full_marks(grader: Grader) -> None:
    cell = "max_rank_S = 8\nrank_S_lesson = 2   # the number of non-zero singular values of S (len of svdvals > tol)\n"
    assert_full_marks(_graded(grader, {RANK: cell}))


# --- q14: scores written keys first --------------------------------------------------------------------------------

def test_keys_first_matmul_answer_c_is_scores_transposed(grader: Grader) -> None:
    cell = "# S = K @ Q.T gives one row per key, so S is T' x T\nans_cross_shapes = \"c\"\n"
    assert_named(_graded(grader, {SHAPES_ANS: cell}), "scores_transposed", "q14", tests=1)


def test_keys_first_torch_matmul_answer_c_is_scores_transposed(grader: Grader) -> None:
    cell = "ans_cross_shapes = \"c\"   # torch.matmul(K, Q.transpose(-2, -1)): T' x T scores, O is T' x d_v\n"
    assert_named(_graded(grader, {SHAPES_ANS: cell}), "scores_transposed", "q14", tests=1)


def test_keys_first_said_without_a_product_keeps_roles_swapped(grader: Grader) -> None:
    cell = "# keys first, as Flux lays them out: S is T' x T\nans_cross_shapes = \"c\"\n"
    assert_named(_graded(grader, {SHAPES_ANS: cell}), "cross_roles_swapped", "q14", tests=1)


def test_queries_first_product_answer_b_keeps_full_marks(grader: Grader) -> None:
    cell = "# S = Q @ K.T: one row per query, T x T'; O = A @ V is T x d_v\nans_cross_shapes = \"b\"\n"
    assert_full_marks(_graded(grader, {SHAPES_ANS: cell}))


# --- q03 / q14: the letter typed is not the option the comment describes -------------------------------------------

def test_scale_comment_one_hot_letter_d_is_named(grader: Grader) -> None:
    cell = "ans_scale = \"d\"   # each row puts nearly all of its weight on one key\n"
    assert_named(_graded(grader, {SCALE_ANS: cell}), "letter_contradicts_comment", "q03", tests=1)


def test_scale_comment_saturates_letter_a_is_named(grader: Grader) -> None:
    cell = "# without the scale the softmax saturates: near one-hot rows\nans_scale = \"a\"\n"
    assert_named(_graded(grader, {SCALE_ANS: cell}), "letter_contradicts_comment", "q03", tests=1)


def test_scale_comment_of_the_letters_own_option_keeps_its_key(grader: Grader) -> None:
    cell = "ans_scale = \"d\"   # the entropies turn negative\n"
    assert_named(_graded(grader, {SCALE_ANS: cell}), "entropy_negative", "q03", tests=1)


def test_scale_comment_naming_two_options_keeps_the_letters_key(grader: Grader) -> None:
    cell = "ans_scale = \"a\"   # not one-hot: the rows get flatter\n"
    assert_named(_graded(grader, {SCALE_ANS: cell}), "scale_direction_reversed", "q03", tests=1)


def test_scale_right_letter_with_comment_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {SCALE_ANS: "ans_scale = \"b\"   # rows collapse onto one key\n"}))


def test_shapes_comment_of_b_letter_c_is_named(grader: Grader) -> None:
    cell = "ans_cross_shapes = \"c\"   # S: T × T', O: T × d_v\n"
    assert_named(_graded(grader, {SHAPES_ANS: cell}), "letter_contradicts_comment", "q14", tests=1)


def test_shapes_comment_in_words_letter_a_is_named(grader: Grader) -> None:
    cell = "# S is T by T' and O gets one row per query\nans_cross_shapes = \"a\"\n"
    assert_named(_graded(grader, {SHAPES_ANS: cell}), "letter_contradicts_comment", "q14", tests=1)


def test_shapes_comment_of_the_letters_own_option_keeps_its_key(grader: Grader) -> None:
    cell = "ans_cross_shapes = \"d\"   # S is T x T', O has one row per key: T' x d_v\n"
    assert_named(_graded(grader, {SHAPES_ANS: cell}), "cross_output_from_keys", "q14", tests=1)


def test_shapes_right_letter_with_comment_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {SHAPES_ANS: "ans_cross_shapes = \"b\"   # S is T x T', O one row per query\n"}))


# --- q10 / q13: a NumPy float64 array made in the def ---------------------------------------------------------------

def _numpy_said(outcome, key: str, question: str) -> None:
    failed = assert_named(outcome, key, question)
    assert any("makes a float64 array" in message for _, _, _, message in failed), outcome.explain()


def test_entropy_through_astype_float_says_numpy_float64(grader: Grader) -> None:
    cell = ("import numpy as np\n\n\ndef row_entropy_bits(A):\n    a = A.detach().cpu().numpy().astype(float)\n"
            "    logs = np.where(a > 0, np.log2(np.where(a > 0, a, 1.0)), 0.0)\n"
            "    return torch.from_numpy(-(a * logs).sum(axis=-1))\n" + EFFECTIVE)
    _numpy_said(_graded(grader, {ENT: cell}), "dtype_changed", "q10")


def test_entropy_into_np_zeros_buffer_says_numpy_float64(grader: Grader) -> None:
    cell = ("import numpy as np\n\n\ndef row_entropy_bits(A):\n    a = A.detach().cpu().numpy()\n"
            "    H = np.zeros(a.shape[:-1])\n    for idx in np.ndindex(*a.shape[:-1]):\n        p = a[idx][a[idx] > 0]\n"
            "        H[idx] = -(p * np.log2(p)).sum()\n    return torch.from_numpy(H)\n" + EFFECTIVE)
    _numpy_said(_graded(grader, {ENT: cell}), "dtype_changed", "q10")


def test_entropy_numpy_buffer_in_the_inputs_dtype_keeps_full_marks(grader: Grader) -> None:
    cell = ("import numpy as np\n\n\ndef row_entropy_bits(A):\n    a = A.detach().cpu().numpy()\n"
            "    logs = np.log2(a, out=np.zeros(a.shape, dtype=a.dtype), where=a > 0)\n"
            "    return torch.from_numpy(-(a * logs).sum(axis=-1)).to(A.device)\n" + EFFECTIVE)
    assert_full_marks(_graded(grader, {ENT: cell}))


def _cross(mask_line: str) -> str:
    return ("import numpy as np\n\n\ndef cross_attention(X, Y, W_Q, W_K, W_V, M=None):\n"
            "    Q, K, V = X @ W_Q, Y @ W_K, Y @ W_V\n    if M is not None:\n        " + mask_line + "\n"
            "    A = attention_weights(scaled_scores(Q, K), M)\n    return A @ V, A\n")


def test_cross_mask_through_np_array_float64_says_numpy_float64(grader: Grader) -> None:
    cell = _cross("M = torch.tensor(np.array(M.cpu(), dtype=np.float64))")
    _numpy_said(_graded(grader, {CROSS: cell}), "dtype_mix", "q13")


def test_cross_mask_through_astype_float_says_numpy_float64(grader: Grader) -> None:
    cell = _cross("M = torch.as_tensor(np.asarray(M.cpu()).astype(float))")
    _numpy_said(_graded(grader, {CROSS: cell}), "dtype_mix", "q13")


def test_cross_mask_through_numpy_cast_back_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {CROSS: _cross("M = torch.from_numpy(np.asarray(M.cpu(), dtype=float)).to(X.dtype)")}))


# --- q05: the masked scores bound to a name nothing reads -----------------------------------------------------------

def _said_in(outcome, key: str, question: str, words: str) -> None:
    failed = assert_named(outcome, key, question)
    assert any(words in message for _, _, _, message in failed), outcome.explain()


def test_masked_scores_in_an_unused_conditional_name_is_said(grader: Grader) -> None:
    cell = "def attention_weights(S, M=None):\n    masked = S if M is None else S + M\n    return torch.softmax(S, dim=-1)\n"
    _said_in(_graded(grader, {WEIGHTS: cell}), "mask_ignored", "q05", "nothing reads `masked`")


def test_masked_scores_in_an_unused_branch_name_is_said(grader: Grader) -> None:
    cell = ("def attention_weights(S, M=None):\n    x = S.clone()\n    if M is not None:\n        y = x + M\n"
            "    return torch.softmax(x - x.amax(dim=-1, keepdim=True), dim=-1)\n")
    _said_in(_graded(grader, {WEIGHTS: cell}), "mask_ignored", "q05", "nothing reads `y`")


def test_mask_never_added_keeps_the_plain_message(grader: Grader) -> None:
    failed = assert_named(_graded(grader, {WEIGHTS: "def attention_weights(S, M=None):\n    return torch.softmax(S, dim=-1)\n"}),
                          "mask_ignored", "q05")
    assert not any("computes the masked scores" in message for _, _, _, message in failed)


def test_masked_scores_name_read_keeps_full_marks(grader: Grader) -> None:
    cell = "def attention_weights(S, M=None):\n    score = S if M is None else S + M\n    return torch.softmax(score, dim=-1)\n"
    assert_full_marks(_graded(grader, {WEIGHTS: cell}))


# --- q08: the scale outside the exponent -----------------------------------------------------------------------------

def test_kernel_times_inverse_root_is_said(grader: Grader) -> None:
    cell = ("def nadaraya_watson(q, K, V):\n    kappa = torch.exp(K @ q) * q.shape[-1] ** -0.5\n"
            "    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()\n")
    _said_in(_graded(grader, {NW: cell}), "no_scale", "q08", "closes before the scale")


def test_softmax_divided_by_root_is_said(grader: Grader) -> None:
    cell = ("def nadaraya_watson(q, K, V):\n    w = torch.softmax(K @ q, dim=0) / K.shape[-1] ** 0.5\n"
            "    return (w[:, None] * V).sum(dim=0) / w.sum()\n")
    _said_in(_graded(grader, {NW: cell}), "no_scale", "q08", "closes before the scale")


def test_scale_inside_the_exponent_keeps_full_marks(grader: Grader) -> None:
    cell = ("def nadaraya_watson(q, K, V):\n    kappa = torch.exp(K @ q / q.shape[-1] ** 0.5)\n"
            "    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()\n")
    assert_full_marks(_graded(grader, {NW: cell}))


def test_sum_over_axis_zero_of_a_transposed_name_is_said(grader: Grader) -> None:
    cell = ("def nadaraya_watson(q, K, V):\n    kappa = torch.exp(K @ q / q.shape[-1] ** 0.5)\n    Vt = V.transpose(0, 1)\n"
            "    return (Vt * kappa).sum(dim=0) / kappa.sum()\n")
    _said_in(_graded(grader, {NW: cell}), "nw_sum_wrong_axis", "q08", "axis 0 is V's value axis")


def test_sum_over_axis_zero_of_an_mt_product_is_said(grader: Grader) -> None:
    cell = ("def nadaraya_watson(q, K, V):\n    kappa = torch.exp(K @ q / q.shape[-1] ** 0.5)\n"
            "    return (V.mT * kappa).sum(0) / kappa.sum()\n")
    _said_in(_graded(grader, {NW: cell}), "nw_sum_wrong_axis", "q08", "axis 0 is V's value axis")


def test_transposed_product_summed_over_the_last_axis_keeps_full_marks(grader: Grader) -> None:
    cell = ("def nadaraya_watson(q, K, V):\n    kappa = torch.exp(K @ q / q.shape[-1] ** 0.5)\n"
            "    return (V.T * kappa).sum(dim=-1) / kappa.sum()\n")
    assert_full_marks(_graded(grader, {NW: cell}))


# --- q03: an experiment with uniform [0, 1) draws -------------------------------------------------------------------

def test_numpy_rand_experiment_is_said(grader: Grader) -> None:
    cell = "# K = np.random.rand(10, 512): the scores all came out near 128, so the rows flatten\nans_scale = \"a\"\n"
    _said_in(_graded(grader, {SCALE_ANS: cell}), "scale_direction_reversed", "q03", "draws uniformly on [0, 1)")


def test_torch_rand_experiment_is_said(grader: Grader) -> None:
    cell = "ans_scale = \"c\"   # with x = torch.rand(6, 512) the weights did not change\n"
    _said_in(_graded(grader, {SCALE_ANS: cell}), "softmax_scale_invariant", "q03", "draws uniformly on [0, 1)")


def test_randn_experiment_is_not_said_uniform(grader: Grader) -> None:
    failed = assert_named(_graded(grader, {SCALE_ANS: "# q = torch.randn(512): flatter rows\nans_scale = \"a\"\n"}),
                          "scale_direction_reversed", "q03")
    assert not any("uniformly" in message for _, _, _, message in failed)


def test_randn_experiment_right_letter_keeps_full_marks(grader: Grader) -> None:
    assert_full_marks(_graded(grader, {SCALE_ANS: "# x = torch.randn(6, 512): rows go one-hot\nans_scale = \"b\"\n"}))
