"""Question 1: the shape contract (Q, K (4, 10, 64), V (4, 10, 128))."""
import importlib.util
import re
from pathlib import Path

import torch
from otter.test_files import test_case

from autograder.grading.checks import Misconception, describe, expect_shape, register_misconceptions
from reference import sdpa_from_scratch as ref

OK_FORMAT = False
name = "q1"
register_misconceptions(__file__)


def _diagnose():
    """hidden/_diagnose.py, beside this file (the hidden folder is no package)."""
    path = Path(__file__).with_name("_diagnose.py")
    spec = importlib.util.spec_from_file_location(f"{__name__}_diagnose", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


diag = _diagnose()
INPUTS = {"Q": (4, 10, 64), "K": (4, 10, 64), "V": (4, 10, 128)}


def _raise_if_batch_folded(got, right, what):
    """The batch multiplied into the first axis after it, (B * T_q, ...) with the batch axis gone, as after a
    reshape(-1, ...) for a 2-D product: B * T = 40 is no other size or product of this question's shapes."""
    if len(right) == 3 and tuple(got) == (right[0] * right[1], right[0] * right[2]) and right[0] > 1:
        # (B T_q, B T_k): the batch's sequences read as one long one (blind31); 40 x 40 is no other shape here
        raise Misconception("batch_as_one_sequence", f"{what} is {got}: {right[0]} x {right[1]} queries by "
                            f"{right[0]} x {right[2]} keys, where it should be {right}: "
                            + describe("batch_as_one_sequence"))
    if len(right) == 3 and tuple(got) == (right[0], right[1], right[0] * right[2]) and right[0] > 1:
        # naming round 60: the (B T, B T) product viewed back to (B, T_q, B T_k): 40 keys per query
        raise Misconception("batch_as_one_sequence", f"{what} is {got}: each query scored against the {right[0]} x "
                            f"{right[2]} keys of every sequence, where it should be {right}: "
                            + describe("batch_as_one_sequence"))
    if len(got) == len(right) - 1 and got[0] == right[0] * right[1] and tuple(got[1:]) == tuple(right[2:]):
        raise Misconception("batch_folded_into_rows", f"{what} is {got}: {right[0]} x {right[1]} = {got[0]} rows "
                            f"and no batch axis, where it should be {right}: " + describe("batch_folded_into_rows"))


def _raise_if_batch_repeated(got, right, what):
    """The right shape with the batch size written a second time after it ((4, 10, 4, 10): Q's and K's leading
    shapes glued together); the batch size 4 is no other size of this question's shapes."""
    extra = [i for i in range(1, len(got)) if len(got) == len(right) + 1 and got[i] == right[0]
             and tuple(got[:i]) + tuple(got[i + 1:]) == tuple(right)]
    if extra:
        raise Misconception("batch_axis_repeated", f"{what} is {got}: the right shape {right} with the batch size "
                            f"{right[0]} repeated at axis {extra[0]}: " + describe("batch_axis_repeated"))


# a shape as text: "(4, 10, 10)", "[4, 10, 10]", "torch.Size([4, 10, 10])", "4x10x10", "4 x 10 x 10"; parsed by
# this pattern only (never eval'd), once its whitespace is one space at most between tokens: student text, so no
# two optional runs of the same characters meet (a run of `\s*`s backtracked for hours on "1" and 3000 spaces,
# red-team round 48), and a string longer than any shape's spelling is not read at all
_SHAPE_TEXT = re.compile(r"(?:torch\.Size\( ?)?[(\[]? ?(\d+(?: ?[,x×*] ?\d+)*) ?,? ?[)\]]? ?\)?")
_SHAPE_TEXT_CHARS = 200


def _raise_if_string(value, right, what):
    """shape_as_string when `value` is a string that spells the right tuple; a string that spells another
    tuple is not named (two mistakes): the message says both."""
    if type(value) is not str:
        return
    if len(value) > _SHAPE_TEXT_CHARS:
        return
    found = _SHAPE_TEXT.fullmatch(" ".join(value.split()))
    if found is None:
        return
    spelled = tuple(int(n) for n in re.split(r" ?[,x×*] ?", found.group(1)))
    if spelled == tuple(right):
        raise Misconception("shape_as_string", f"{what} is the string {value!r}, which spells the right shape: "
                            + describe("shape_as_string"))
    raise AssertionError(f"{what} is the string {value!r}: a shape is a tuple of Python ints, and read as one, "
                         f"{spelled} is not the right shape either")


_raise_if_entry_count = diag.name_entry_count        # 400 for (4, 10, 10) (moved to _diagnose.py, round55)
_raise_if_batch_none = diag.name_batch_axis_none     # (None, 10, 10) (moved to _diagnose.py, round47)

def _raise_if_dict(value, right, what):
    """round40 (blind39): a dict of named axes ({"batch": 4, "queries": 10, "keys": 10}, as einops or named tensors
    write a shape) where a tuple of ints is asked: shape_as_dict_of_axes when its sizes, in order, are the right
    shape; other sizes are two mistakes, said without a name (the tuple they make is said too)."""
    if not isinstance(value, dict) or not value:
        return
    sizes = list(value.values())
    if not all(type(n) is int for n in sizes):
        return
    named = ", ".join(f"{str(k)[:20]!r}: {n}" for k, n in list(value.items())[:6])
    if tuple(sizes) == tuple(right):
        raise Misconception("shape_as_dict_of_axes", f"{what} is a dict of named axes ({{{named}}}), not a tuple; its "
                            f"sizes in order, {tuple(sizes)}, are the right shape: " + describe("shape_as_dict_of_axes"))
    raise AssertionError(f"{what} is a dict of named axes ({{{named}}}), not a tuple of ints; and its sizes in order, "
                         f"{tuple(sizes)}, are not the right shape either")


def _raise_if_wrapped(value, right, what):
    """A 1-tuple or 1-list holding a shape (a trailing comma: `weights_shape = (4, 10, 10),`):
    answer_in_one_more_container when the shape inside is the right one, else said in words."""
    if type(value) not in (tuple, list) or len(value) != 1 or type(value[0]) not in (tuple, list, torch.Size):
        return
    inner = value[0]
    if not all(type(n) is int for n in inner):
        return
    if tuple(inner) == tuple(right):
        raise Misconception("answer_in_one_more_container", f"{what} is {value!r}, a 1-{type(value).__name__} "
                            f"holding the right shape {tuple(right)}: " + describe("answer_in_one_more_container"))
    raise AssertionError(f"{what} is {value!r}, a 1-{type(value).__name__} holding the shape {tuple(inner)} (a "
                         f"trailing comma?); drop the outer container, and {tuple(inner)} is not the right shape "
                         "either")


def _raise_if_implicit_einsum(got, right, what, submission, operands):
    """round43 (blind42): the shape of one batch entry where the cell that assigns `what` has an einsum without
    '->' whose terms share their first letter (the batch): replayed with those subscripts on zeros of the
    question's shapes (`operands`: tuples of shapes, one per term), named batch_dim_dropped with the reason when
    the replay gives `got`. Else nothing (name_shape names the shape alone)."""
    if len(right) < 3 or tuple(got) != tuple(right[1:]):
        return
    for spec in diag.implicit_einsum_specs(submission, what):
        n_terms = spec.count(",") + 1
        for shapes in operands:
            if len(shapes) != n_terms:
                continue
            zeros = [torch.zeros(s) for s in shapes]
            try:
                replay = tuple(torch.einsum(spec, *zeros).shape)
                fixed = diag.explicit_einsum_output(spec)
                explicit = tuple(torch.einsum(f"{spec}->{fixed}", *zeros).shape)
            except (RuntimeError, ValueError, IndexError):
                continue
            if replay != tuple(got):
                continue
            fix = f": write '{spec}->{fixed}'" if explicit == tuple(right) else ": write the output after '->'"
            raise Misconception("batch_dim_dropped", f"{what} is {tuple(got)}, the shape of one batch entry: your "
                                f"einsum '{spec}' has no '->', and in that implicit mode every letter that appears "
                                f"twice is summed away, the batch letter '{spec.strip()[0]}' too{fix}; "
                                + describe("batch_dim_dropped"))


@test_case(points=1, hidden=True)
def test_weights_shape(weights_shape, submission=None):
    _raise_if_string(weights_shape, ref.weights_shape, "weights_shape")
    _raise_if_dict(weights_shape, ref.weights_shape, "weights_shape")
    _raise_if_wrapped(weights_shape, ref.weights_shape, "weights_shape")
    diag.zero_dim_entries(weights_shape, ref.weights_shape, "weights_shape")    # sizes as 0-d tensors (blind35)
    diag.sliced_size_entries(weights_shape, ref.weights_shape, "weights_shape")     # round54: K.shape[1:2] for K.shape[1]
    _raise_if_entry_count(weights_shape, ref.weights_shape, "weights_shape")
    _raise_if_batch_none(weights_shape, ref.weights_shape, "weights_shape")
    got = expect_shape(weights_shape, "weights_shape")
    diag.name_shape_reads(got, ref.weights_shape, "weights_shape", submission)    # round55: y = x, then y[i] = ...; round76
    if got == ref.out_shape:
        raise Misconception("weights_as_output", "weights_shape is the shape of the output, not of the "
                            "weight matrix: the weights have one entry per (query, key) pair")
    _raise_if_batch_folded(got, ref.weights_shape, "weights_shape")
    _raise_if_batch_repeated(got, ref.weights_shape, "weights_shape")
    _raise_if_implicit_einsum(got, ref.weights_shape, "weights_shape", submission,
                              [(INPUTS["Q"], INPUTS["K"])])
    diag.name_cosine_similarity_probe(got, submission, INPUTS["Q"])     # round61: its default dim=1 reduced
    diag.name_shape(got, ref.weights_shape, "weights_shape", INPUTS, submission)
    widths = {INPUTS["Q"][-1], INPUTS["V"][-1]}             # d_k = 64, d_v = 128: neither is T = 10
    if len(got) == 3 and got[0] == ref.weights_shape[0] and set(got[1:]) <= widths:
        # Q^T K (a d_k x d_k covariance / projection-like matrix): the feature widths where the tokens go
        raise Misconception("weights_sized_by_features", f"weights_shape is {got}: its last two axes are feature "
                            "widths (d_k, d_v), not sequence lengths: " + describe("weights_sized_by_features"))
    B, T = INPUTS["Q"][:2]                                  # 4 and 10: (T, B, B) is no other reading
    if got == (T, B, B):
        # naming32: axis 0 read as the sequence (nn.MultiheadAttention's (L, N, E)): N = 10 matrices of L x L = 4 x 4
        raise Misconception("sequence_first_layout", f"weights_shape is {got}: {T} matrices of {B} x {B}, as if the "
                            f"inputs {INPUTS['Q']} were (tokens, batch, features): " + describe("sequence_first_layout"))
    if len(ref.weights_shape) == 3 and got == (ref.weights_shape[0], ref.weights_shape[1] * ref.weights_shape[2]):
        # round41 (blind40): (4, 100), the T_q x T_k pairs counted along one axis; 100 is no other size here
        raise Misconception("query_key_axes_flattened", f"weights_shape is {got}: {ref.weights_shape[1]} x "
                            f"{ref.weights_shape[2]} = {got[1]} (query, key) pairs on one axis, where the weights keep "
                            f"queries and keys on two, {ref.weights_shape}: " + describe("query_key_axes_flattened"))
    diag.name_entry_from_other_axis(got, ref.weights_shape, ("the batch size", "the number of queries T_q",
                                                             "the number of keys T_k"), "weights_shape", INPUTS)
    diag.name_example_shape(got, ref.weights_shape, "weights_shape")      # round51: the notebook's example's
    diag.name_probe_key_count(got, ref.weights_shape, "weights_shape", submission, widths)   # round65: T_k = 12 left
    if got != ref.weights_shape:
        raise AssertionError(f"weights_shape is {got}, not the shape of the attention-weight matrix: "
                             "it has one entry per (query, key) pair")


@test_case(points=1, hidden=True)
def test_out_shape(out_shape, submission=None):
    _raise_if_string(out_shape, ref.out_shape, "out_shape")
    _raise_if_dict(out_shape, ref.out_shape, "out_shape")
    _raise_if_wrapped(out_shape, ref.out_shape, "out_shape")
    diag.zero_dim_entries(out_shape, ref.out_shape, "out_shape")
    diag.sliced_size_entries(out_shape, ref.out_shape, "out_shape")     # round54: K.shape[1:2] for K.shape[1]
    _raise_if_entry_count(out_shape, ref.out_shape, "out_shape")
    _raise_if_batch_none(out_shape, ref.out_shape, "out_shape")
    got = expect_shape(out_shape, "out_shape")
    diag.name_shape_reads(got, ref.out_shape, "out_shape", submission)       # round55: y = x, then y[i] = ...; round76: [2 - 1]
    if got == ref.weights_shape:
        # round44 (blind43): (4, 10, 10) is the weights' shape by its entries only; a last entry len(x[i]) (x[i]'s
        # rows, T_k = 10, one level short of the width) is the reason; a len() elsewhere in the tuple is said unnamed
        short = diag.len_one_level_short(submission, "out_shape")
        if short is not None:
            raise Misconception("len_counts_rows_not_width", f"out_shape is {got}: its last entry, {short}, is "
                                f"{got[-1]}, the number of rows (keys) of one value matrix, where it should be "
                                f"d_v = {ref.out_shape[-1]}: " + describe("len_counts_rows_not_width"))
        if diag.len_in_answer(submission, "out_shape"):
            raise AssertionError(f"out_shape is {got}: its last entry should be d_v = {ref.out_shape[-1]}, the width "
                                 "of V (V.shape[-1]); check what each len() in it counts (len counts a tensor's first "
                                 "axis)")
        raise Misconception("weights_as_output", "out_shape is the shape of the weight matrix, "
                            "not of the output: the weights still multiply V")
    if len(got) == 3 and got[:2] == ref.out_shape[:2] and got[2] == 64:
        diag.name_output_after_projection(got, ref.out_shape, submission)     # naming round 86: a model width
        raise Misconception("output_width_dk", "out_shape takes its last dimension from d_k; the output width comes "
                            "from V" + diag.helper_slots_crossed(submission, "out_shape"))
    diag.name_key_axis_kept(got, ref.out_shape, INPUTS["K"][-2], "out_shape")
    diag.name_shape_unpacked_width_first(got, "out_shape", INPUTS, submission)     # round72: `*b, d, T = q_shape`
    if got == ref.out_shape[:1] + (INPUTS["K"][-1], INPUTS["V"][-1]):      # (B, d_k, d_v): K^T V or Q^T V (blind30)
        raise Misconception("output_as_features_product", f"out_shape is {got}: "
                            + describe("output_as_features_product"))
    # V's shape is the output's here (T_k = T_q): only a shape that is wrong can be an input's
    _raise_if_batch_folded(got, ref.out_shape, "out_shape")
    _raise_if_batch_repeated(got, ref.out_shape, "out_shape")
    _raise_if_implicit_einsum(got, ref.out_shape, "out_shape", submission,
                              [(ref.weights_shape, INPUTS["V"]), (INPUTS["Q"], INPUTS["K"], INPUTS["V"])])
    diag.name_shape(got, ref.out_shape, "out_shape", INPUTS, submission)
    diag.name_entry_from_other_axis(got, ref.out_shape, ("the batch size", "the number of queries T_q",
                                                         "the value width d_v"), "out_shape", INPUTS)
    diag.name_example_shape(got, ref.out_shape, "out_shape")              # round51: the notebook's example's
    if got != ref.out_shape:
        raise AssertionError(f"out_shape is {got}, not the shape of the attention output")


def _cell_crashed(missing, resolve, crash="", submission=None):
    """weights_shape or out_shape undefined because the cell's shape probe crashed: named when the crash is
    what Q @ K, or Q @ K.T, gives on zeros of the question's shapes (the probe a student writes), or what the
    cell's permute with axes counted from 1 gives on them (round56)."""
    if missing in ("weights_shape", "out_shape"):
        diag.name_scores_crash(missing, crash, INPUTS["Q"], INPUTS["K"])
        diag.name_one_based_permute_crash(missing, crash, INPUTS.values(), submission)


test_weights_shape.test_func.on_missing = _cell_crashed
test_out_shape.test_func.on_missing = _cell_crashed
