"""Helpers for hidden tests. They run only in the trusted process.

Tolerances come from DESIGN.md (measured with torch 2.13.0): they pass every correct implementation
and fail every known wrong one. Failure messages say what is wrong, never what was expected on the
test's own input; a value case of an attention function may add the smallest input of its kind that
still fails, with its expected and actual output (autograder/grading/shrink.py).

The authoring kit (docs/authoring.md): validators for answers (`expect_number`, `expect_int`,
`expect_shape`, `expect_tuple`, `expect_matrix`, `expect_choice`), `call` for a call into the student's
code, `assert_matches` with named wrong variants, `assert_vectorised`, `assert_function_avoids`, and
`earned_with` for a rule test whose points wait for a value case.
Misconception texts are data: `assignments/<slug>/hidden/_misconceptions.py` holds a plain dict
`MISCONCEPTIONS = {key: text}`; a hidden file registers it with `register_misconceptions(__file__)`."""
from __future__ import annotations

import ast
import inspect
import itertools
import math
import re
import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import torch

from autograder.errors import StudentCodeError
from autograder.grading.hidden import EARNED_WITH
from autograder.sandbox.calls import vector_jacobian_product  # noqa: F401 - the kit's gradient, for hidden tests
from autograder.sandbox.session import beside_next_request  # noqa: F401 - the kit's: a reference's answer while the call runs

# (rtol, atol) per dtype
TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float64: (1e-10, 1e-10),
    torch.float32: (1e-5, 1e-5),
    torch.float16: (5e-3, 5e-3),
    torch.bfloat16: (4e-2, 2e-2),
}


class Misconception(AssertionError):
    """A failed check whose output matches a known wrong variant. `key` is counted in the report."""

    def __init__(self, key: str, message: str) -> None:
        self.key = key
        super().__init__(message)


# Texts of the keys the engine itself names (runner, sandbox guard, timing); every other key is declared
# by its assignment in hidden/_misconceptions.py and registered when its hidden tests load.
MISCONCEPTIONS: dict[str, str] = {
    "finfo_keyword": "torch.finfo(dtype=...) (or iinfo): its one parameter is positional, named type, not dtype: "
                     "torch.finfo(torch.float32).min, or torch.finfo(S.dtype).min",
    "softmax_module_given_input": "giving the scores to nn.Softmax's constructor (nn.Softmax(S, dim=-1)): nn.Softmax is a "
                                  "module, built with its dim and then called on the tensor, nn.Softmax(dim=-1)(S); "
                                  "or call torch.softmax(S, dim=-1)",
    "parameter_overwritten": "giving a parameter a new value inside the function (scaled = dots / math.sqrt(d_k), "
                             "where `scaled` was the True/False argument) and then reading it as the argument it was "
                             "(if scaled): the argument is lost, and `if` on a tensor of many values raises; give the "
                             "new value a name of its own (scaled_dots)",
    "parameter_renamed": "renaming a parameter of the notebook's fixed signature (stable_softmax(x, dim_i=-1) "
                         "where stable_softmax(x, dim=-1) is asked, output= for with_output=): every call that "
                         "passes it by its name (the grader's and your own) raises TypeError: unexpected keyword "
                         "argument; keep the parameter names the notebook gives",
    "where_missing_value": "calling torch.where with the condition and one value: it takes three, the condition, the "
                           "value where it is True and the value where it is False (torch.where(has_key, weights, "
                           "0.0), or weights.where(has_key, 0.0) with the value where True first); with the "
                           "condition alone it gives the positions where it is True",
    "maximum_for_max": "torch.maximum (or minimum) for a reduction: it is the elementwise maximum of two tensors; the "
                       "largest entry along an axis is x.amax(dim=-1, keepdim=True) or x.max(dim=-1, keepdim=True).values",
    "graded_call_starts_thread": "starting a thread inside a graded function (a ThreadPoolExecutor, threading.Thread): "
                                 "the grader runs each graded call on one thread and refuses new ones, because it "
                                 "cannot see work handed to another thread; compute in the calling thread (one "
                                 "batched tensor operation over the heads does the pool's work in one call)",
    "removed_torch_function": "calling a function torch has removed (torch.matrix_rank, torch.symeig, torch.solve, "
                              "torch.lstsq, torch.eig: tutorials older than torch 1.9): its replacement is in "
                              "torch.linalg (torch.linalg.matrix_rank, ...), as the error message says",
    "answer_letter_unquoted": "a multiple-choice answer written as a bare letter (`answer = A`): Python reads A as "
                              "a variable, which does not exist; the answer is the string \"A\"",
    "generator_returned": "a function that `yield`s its items (or returns a generator expression) where a list "
                          "or a value is asked: a generator is a recipe that runs later, not the list; collect "
                          "the items and return `list(...)` or build the list with append",
    "numpy_size_attribute": "NumPy's `.size` attribute (the number of entries) used on a tensor: in torch `.size` "
                            "is a method (`.size()` is the shape); the number of entries is `.numel()`",
    "one_edit_fix": "one small change to one line of your function makes it right on every input the tests gave "
                    "it: the message shows the line and the change (the grader found it by trying small edits of "
                    "your own code, so it says where and what, not why)",
    # naming round 65 (global_reads.py, the engine's rule; attention-pipeline's and scaled-attention's copies are the same)
    "reads_global_not_parameter": "reading a global of the notebook inside the function instead of its own "
                                  "parameter (a name the body still uses after the parameter was renamed, or a "
                                  "value a cell computed for the lesson's example): the values passed in are never "
                                  "used, so the result is right only for the one input the global was made from and "
                                  "fails or is wrong everywhere else; compute it from the parameter",
    # blind66 (length_one.py, the engine's rule): right in the middle, wrong at a length of 1
    "length_one_handled_differently": "handling a length-1 axis otherwise than a longer one (a bare `.squeeze()` that "
                                      "also drops a batch, query, key or width axis of length 1, an index `[0]`, "
                                      "`.item()`, a shortcut branch for one query, key or token): the function is "
                                      "right on ordinary inputs and wrong where an axis the question allows to be 1 "
                                      "is 1; squeeze only the axis you added, by its index, and let the general code "
                                      "handle a length of 1",
    "state_kept_between_calls": "keeping state between calls: a module-level variable the function fills on a call "
                                "(a `global` built once, a cache keyed by too little) and reuses on later calls, "
                                "which then get what was built from an earlier call's inputs; build it on every "
                                "call, or key it by every input it depends on",
    "forbidden_api": "calling an API this assignment forbids (F.scaled_dot_product_attention) instead of "
                     "implementing it",
    "not_vectorised": "Python loops over rows, queries, small blocks of keys or batch entries instead of batched tensor operations",
    "gpu_only_failure": "code that works on the CPU but fails on the GPU: tensors created inside the "
                        "function on the CPU (no device=...), host-only calls such as .numpy(), or "
                        "legacy constructors such as torch.FloatTensor",
    "nondeterministic": "a function that gives different outputs for the same input: dropout or randomness "
                        "left on (F.dropout trains by default), or a result that depends on earlier calls",
    "answer_option_number": "answering a multiple-choice question with the option's number (3 for the third "
                            "option, counted from 1 or from 0) instead of its letter as a string (\"C\")",
    "answer_copied_from_other_question": "giving one question the answer of another (q7_answer = q6_answer): each "
                                         "question has its own options, so the same letter means another choice "
                                         "there; read this question's options and give its own letter",
    "answer_value_not_letter": "answering a multiple-choice question with a value (a number, True or False, a "
                               "tuple of shapes: what an option says, or a result worked out) instead of the "
                               "letter of the option that says it, as a string such as \"B\"",
    # a multiple-choice answer in the wrong form, whatever its letter (expect_choice)
    "answer_in_container": "giving the answer (a letter, a number) inside a one-element tuple, list or set (a "
                           "trailing comma, ans = \"d\", or a count returned as `return n,`, makes the tuple "
                           "(\"d\",) or (72,); a slice, x.shape[1:], keeps a tuple; braces, {\"d\"}, a set) where "
                           "the answer is the value itself: drop the comma (or the brackets, or the braces), or index "
                           "instead of slicing (x.shape[1])",
    "enum_member_answer": "giving an Enum member (Choice.C) where a plain value is asked: the grader reads strings "
                          "and numbers, not the member; give the letter or number asked itself (Choice.C.name is the "
                          "member's name, Choice.C.value its value: whichever is the answer)",
    "fstring_prefix_missing": "writing a placeholder in braces without the f before the quotes (\"{letter}\" instead of "
                              "f\"{letter}\"): the string keeps the braces and the name, the value is never put in; "
                              "add the f, or give the value itself",
    "optional_argument_not_checked": "using an argument whose default is None (a mask, M=None) without checking it: "
                                     "the function is also called without that argument, and then `M.to(...)`, "
                                     "`M[...]` or `S + M` fails on None; test `if M is not None:` before using it "
                                     "(or give it a default that works, such as no mask at all)",
    "answer_as_option_marks": "marking each option true or false (a dict {\"a\": False, \"b\": True, ...}, as a "
                              "multiple-select form does) where one letter is asked: the question has one best "
                              "answer; give its letter alone, as a string",
    "number_of_another_type": "giving a number of another type (fractions.Fraction, decimal.Decimal, a SymPy number) "
                              "where a Python int or float is asked: the grader reads only those; convert it, int(x) "
                              "for a count or float(x) for a ratio",
    "numpy_scalar_answer": "leaving an answer as a NumPy scalar or 0-d array (numpy.int64 from np.linalg.matrix_rank "
                           "or np.sum, .numpy() of a one-element tensor) where a Python number is asked: convert it "
                           "with int(...) or float(...) (or compute it with torch and .item())",
    "numpy_array_for_shape": "giving a NumPy array (or NumPy integers) where a shape, a tuple of Python ints, is "
                             "asked: indexing a NumPy array gives an array; convert it with "
                             "tuple(int(n) for n in sizes)",
    "tuple_of_tensor_rows": "writing tuple(t) for a tensor's shape: tuple(t) lists the tensor's slices along its "
                            "first axis (its rows), not its sizes; the shape is tuple(t.shape)",
    "ragged_rows": "giving rows of different lengths (a list of each row's kept entries) where a matrix is asked: "
                   "every row of a matrix has one length; keep each position, with 0 where a weight is left out "
                   "(a masked key), and return a tensor",
    "answer_extra_characters": "writing the letter with extra characters (a full stop, quotes, the option's words: "
                               "\"C.\", \"'C'\", \"C. because ...\"): the answer must be the letter alone, as a "
                               "string such as \"B\"",
    "answer_in_words": "writing words (an option's text, a sentence) where the question asks for the option's "
                       "letter: the answer is the one letter, as a string such as \"B\"",
    "answer_annotated_not_assigned": "writing `name: \"C\"` (a colon) where `name = \"C\"` is meant: a colon makes "
                                     "a type annotation, which binds nothing, so the name stays undefined",
    "answer_compared_not_assigned": "writing `name == \"C\"` where `name = \"C\"` is meant: == compares (and, with "
                                    "the name undefined, raises NameError); one = assigns",
    "answer_r_arrow_not_assigned": "writing R's arrow `name <- \"C\"` where `name = \"C\"` is meant: Python reads "
                                   "<- as two operators, the comparison name < -\"C\", which assigns nothing (and "
                                   "raises: the name is undefined, or a string cannot be negated); one = assigns",
    "int_tensor_negative_power": "raising an integer tensor to a negative whole power (counts ** -1): "
                                 "torch.arange and torch.tensor of whole numbers without dtype= make int64, and torch "
                                 "(like NumPy) refuses integers to negative integer powers; make the tensor floating "
                                 "(torch.arange(1, T + 1, dtype=torch.float64), or .double()) or write 1.0 / counts",
    "argmax_of_bool": "taking argmax (or argmin) of a bool tensor, NumPy's idiom for the first True: torch's argmax "
                      "does not take bool input and raises; convert it first (mask.int().argmax()), and for a "
                      "multiple-choice answer assign the letter you decided as a string, name = \"B\"",
    "answer_computed_by_code": "letting code pick the letter (a probe, a check with a fallback, a search over "
                               "the options) when the code picks a wrong option: what it measures or compares is "
                               "not what the question asks (look at its sign, max against min, the sizes it uses, "
                               "the branch each outcome takes); decide the option and assign its letter as a "
                               "string, q_answer = \"<your letter>\"",
    "answer_bound_in_function": "assigning the answer inside a function: a name assigned in a def is that "
                                "function's local variable, gone when it returns (and a function never called "
                                "assigns nothing): assign it at the top level of a cell, e.g. `name = f()` with f "
                                "returning the value",
    "answer_name_misspelled": "giving an answer (a value or a function) a name spelt differently from the one "
                              "asked (q_trap_anwser for q_trap_answer): the grader reads the name exactly as the "
                              "question gives it",
    "answer_hedged": "giving several letters (\"A or D\") where one choice is asked: pick the one best answer "
                     "and give its letter alone",
    "shape_for_number": "giving several whole numbers (a shape such as (1024, 1024), or the parts of a count) where "
                        "one number is asked: give the one number (a shape's count of entries multiplies its sizes: "
                        "math.prod(shape), or t.numel())",
    "answer_invisible_character": "pasting a character no one sees with the letter (a zero-width space, a "
                                  "byte-order mark, from a web page or a document): the answer is then not "
                                  "the letter alone; retype it",
    "answer_lookalike_letter": "typing a letter from another alphabet that looks like the Latin one (Cyrillic С, "
                               "Greek Α, a full-width Ｂ: a keyboard layout or a copy from a web page): it is another "
                               "character, so no Latin letter is given; retype the letter on a Latin layout",
    "float16_precision": "computing a step in float16 (.half(), a float16 tensor, autocast) and casting the result "
                         "back: float16 keeps about 3 significant digits, so the result is rounded far past the "
                         "input's precision; compute in the input's dtype",
    "float32_precision": "computing in float32 (a float32 tensor, constant or softmax) where the input is "
                         "float64: the result is right only to about 1e-7",
    "default_argument_wrong": "declaring a default argument other than the notebook's (causal=False where the "
                              "signature says causal=True): a call that leaves the argument out gets the wrong "
                              "behaviour, although passing it explicitly is right",
    "return_missing_on_path": "computing the result on one path of the function (a branch of an if) without "
                              "returning it: that call returns None, while a call taking another path returns "
                              "its value",
    "returns_numpy_not_tensor": "returning a NumPy array (np.zeros, .numpy()) where a torch tensor is asked: "
                                "build the result with torch (torch.zeros(..., dtype=dtype)) and return it",
    "returns_list_not_tensor": "returning a Python list (of lists) where a torch tensor is asked: its values are "
                               "right, but ~, masked_fill and broadcasting need a tensor; build it with torch "
                               "(torch.tril(torch.ones(T_q, T_k, dtype=torch.bool)))",
    "keepdim_left_on": "keeping a reduced axis (keepdim=True, or a [..., None]) that the result should not have: "
                       "its values are right with one more size-1 axis than asked",
    "size_one_axes_added": "extra axes of size 1 where nothing was reduced (a (1, 1, T, T) buffer as nanoGPT "
                           "registers its causal mask, an unsqueeze or a [None] left in): its values are right with "
                           "more size-1 axes than asked; return the shape asked for",
    "size_one_axis_dropped": "dropping a size-1 axis the result should keep (a reduction without keepdim=True, or "
                             "a squeeze): its values are right with one axis fewer than asked",
    "axes_flattened": "merging axes the result should keep (.view(-1), .flatten(), .reshape(-1) or a reshape to "
                      "fewer axes): its values are right and in order, in fewer axes than asked; return the shape "
                      "asked for (a reduction along dim=-1 already leaves one value per row of each batch entry)",
    "returns_extra_values": "returning a tuple (the output and something else, such as the weights) where the "
                            "function returns the output alone",
    "answer_overwritten": "assigning the answer twice at the top level of the notebook, a later line (a first "
                          "guess or a test left below the answer) replacing the earlier one: the value graded is the "
                          "one the last line that runs sets; delete the line you do not mean",
    "list_comma_missing": "leaving out a comma between two strings in a list (`[\"A\", \"B\" \"C\", \"D\"]`): "
                          "Python joins strings written side by side into one (\"B\" \"C\" is \"BC\"), so the list "
                          "has one item fewer and every item after the join moves one place back; put the comma in",
    "answer_by_position": "picking the letter by its position (chr(ord(\"a\") + n), \"abcd\"[n], options[n]) and "
                          "landing on a wrong option: positions count from 0, so the third option is "
                          "chr(ord(\"a\") + 2) or \"abcd\"[2]; check that the count gives the option you meant, or "
                          "write its letter itself",
    "bytes_for_text": "giving bytes (b\"C\", \"C\".encode(), a file read in 'rb' mode) where a string or a number is "
                      "asked: bytes are not text, and the grader reads only str, int and float answers; write the "
                      "string itself, \"C\" (or .decode() the bytes)",
    "callable_not_called": "giving a function or method object where a value is asked: `.item`, `.numpy`, `.tolist` "
                           "or `.mean` without the parentheses, or a function's name without calling it, hands "
                           "over the function itself, not its result; add the () that call it (`.item()`)",
    # named from a crash's own words, in any test (crash_words)
    "dot_of_matrices": "calling torch.dot (or .dot) on matrices: it takes two 1-D vectors only; for a matrix "
                       "product use @ (torch.matmul), for one dot product per row (a * b).sum(dim=-1)",
    "numpy_keyword": "passing NumPy's keyword (axis=, keepdims=, ddof=) to a torch function that takes torch's (dim=, "
                     "keepdim=, correction=): F.softmax(x, dim=-1), x.var(correction=1)",
    "finfo_of_tensor": "passing a tensor to torch.finfo (or torch.iinfo): it takes a dtype, torch.finfo(x.dtype).min",
    "numpy_finfo_of_torch_dtype": "asking NumPy's np.finfo (or np.iinfo) about a torch dtype: NumPy does not know "
                                  "torch's dtypes (it sees a Python object); use torch.finfo(dtype) (torch.iinfo "
                                  "for integers)",
    "dtype_for_device": "a dtype given where the device goes (or the other way round): arguments in another order than "
                        "the function's (a helper called as f(T, device, dtype) for f(T, dtype, device)), or "
                        "device=torch.float32; pass each by its keyword, dtype=... and device=...",
    "dtype_passed_positionally": "giving torch.ones, zeros or full another positional argument after the size tuple "
                                 "(torch.ones((T_q, T_k), torch.bool)): a dtype or device goes by keyword "
                                 "(dtype=torch.bool), and every size goes in the tuple",
    "module_not_imported": "using a module the notebook never imports (np.sqrt with no `import numpy as np`, "
                           "F.softmax with no `import torch.nn.functional as F`): import it in the first cell, or "
                           "use what is imported (torch.sqrt, math.sqrt)",
    "tensor_to_number": "turning a tensor of several values into one Python number: math.sqrt, math.exp, "
                        "math.log, math.pow, float() and int() take one number; on a tensor use torch.sqrt, "
                        "torch.exp, torch.log or **, which work entry by entry",
    "bool_mask_arithmetic": "doing arithmetic on a boolean mask (1 - mask, -mask, (1 - mask) * -1e9), which torch refuses for bool "
                            "tensors: invert it with ~mask (or mask.logical_not()), and fill blocked scores with "
                            "masked_fill(~mask, float('-inf')) or torch.where",
    "method_not_called": "using a tensor method as if it were a value: `mask.logical_not` or `x.float` without the "
                         "() that call it, `x.size[-1]` for x.size(-1), or `.values` of a plain tensor (x.sum(dim) "
                         "and x.mean(dim) return a tensor; only max, min, sort and topk along a dim return a "
                         "(values, indices) pair): the expression gets the method itself; call it, or drop the "
                         ".values",
    "value_called": "calling something that is a value, not a function: `x.shape(-1)` (the shape is a tuple: "
                    "x.shape[-1], or x.size(-1)), `x.T()` (.T is already the transpose), or a tensor stored under "
                    "a function's name (softmax = softmax(x) makes the next softmax(...) call that tensor)",
    "unexpected_keyword": "passing a torch function a keyword argument it does not take (torch.tril(n, dtype=...), "
                          "x.softmax(dim=-1, keepdim=True)): check its signature; a dtype goes where the tensor is "
                          "made (torch.ones(n, n, dtype=torch.bool).tril())",
    "matmul_fixed_rank": "torch.mm (or .mm), which multiplies 2-D matrices only, given batched or multi-head "
                         "inputs: use @ or torch.matmul, which multiply the last two axes and broadcast over the "
                         "leading ones",
    "einsum_fixed_axes": "an einsum equation with one letter per axis ('rt,rt->r') given a tensor of another number "
                         "of axes: without an ellipsis einsum fixes the rank; write '...t,...t->...' (or reduce "
                         "with dim=-1) so that leading batch axes pass through",
    "einsum_letter_on_two_axes": "one einsum letter given to two axes of different lengths ('td,td->t' for "
                                 "queries against keys): einsum takes every axis with the same letter to be the same "
                                 "axis, paired entry by entry, so each distinct axis needs a letter of its own "
                                 "('qd,kd->qk')",
    "inner_pairs_last_axes": "torch.inner(a, b) for a product that sums a's last axis against b's first: inner sums "
                             "the LAST axis of both tensors (a vector against each row of b); weights times values "
                             "is w @ V (torch.matmul)",
    "float_for_int": "giving a float (math.pow, / or a float literal: 1048576.0) where a whole number, a Python "
                     "int, is asked: use ** and // on ints (1024 ** 2, not math.pow(1024, 2)), or int(...) "
                     "around the result",
    "numpy_round_trip": "taking a tensor through NumPy (.numpy(), np.* functions) inside a function torch must run "
                        "for any input: NumPy cuts the autograd graph (.numpy() refuses a tensor that requires grad), "
                        "has no bfloat16 and cannot read GPU memory; stay in torch (torch.exp, torch.matmul, ...)",
    "device_hard_coded": "putting a new tensor on the GPU by name (device=\"cuda\", .cuda()) where the inputs' "
                         "device is meant: the code fails wherever no GPU is, and the grading machine has no GPU (where "
                         "one is, it mixes devices); make new tensors with device=x.device (or torch.ones_like(x))",
    # GPU housekeeping that ran where the notebook was written (Colab, a lab's server): not a slip of the maths
    "cuda_call_without_gpu": "calling what only a GPU has (torch.cuda.synchronize, torch.cuda.Event or Stream, "
                             "torch.cuda.set_device, .pin_memory(), a CUDA generator) in code the grader runs: the "
                             "grading machine has no GPU, so the call fails here although it ran where you wrote it; "
                             "guard it with `if torch.cuda.is_available():`, or keep timing and GPU set-up out of the "
                             "graded functions and the cells that define them",
    "view_leading_ones": "viewing (or reshaping) a tensor that has a batch axis as (1, 1, ..., T_q, T_k): a view "
                         "keeps every entry, so leading 1s claim a single batch entry; use the tensor as it is (it "
                         "broadcasts), or unsqueeze only the axes it lacks",
    "numpy_method": "calling a NumPy array method on a tensor: torch's .astype(t) is .to(t), .copy() is .clone()",
    "numpy_function_in_torch": "looking up a NumPy function in torch (torch.tri, torch.expand_dims): torch has its own "
                               "names, torch.ones(T_q, T_k).tril() for np.tri, x.unsqueeze(d) for np.expand_dims; check "
                               "torch's docs for the function you mean",
    "numpy_generator_method": "drawing with NumPy's Generator methods (g.standard_normal, g.normal, g.random) from a "
                              "torch.Generator: a torch.Generator only holds the state; pass it to torch's functions, "
                              "torch.randn(n, d, generator=g)",
    "numpy_transpose_axes": "giving transpose an order of all the axes (x.transpose(1, 0, 2), NumPy's way): torch's "
                            "transpose swaps two dims, x.transpose(0, 1); an order of all the axes is x.permute(1, 0, 2)",
    "tensor_of_tensors": "giving torch.tensor a list of tensors (torch.tensor([head_0, head_1, ...])): it builds a tensor "
                         "from Python numbers; join tensors with torch.stack (a new axis) or torch.cat (along an "
                         "existing one)",
    "dtype_as_string": "giving a dtype as a string (dtype=\"bool\", NumPy's way): torch takes its dtype objects, "
                       "dtype=torch.bool, dtype=torch.float32",
    "invert_of_float_mask": "~ on a tensor of numbers (a 0/1 pattern made without dtype=torch.bool, such as "
                            "torch.tril(torch.ones(T, T))): ~ inverts a bool mask; build it with dtype=torch.bool, or "
                            "compare (mask == 0)",
    "bmm_of_matrices": "torch.bmm on tensors that are not 3-D batches: it takes (B, n, m) and (B, m, p) only; for "
                       "matrices, or any number of batch dims, use @ (torch.matmul), which broadcasts",
    "log_given_base": "giving torch.log a base (torch.log(p, 2)): it is the natural log, one argument; for bits use "
                      "torch.log2(p) (or torch.log(p) / math.log(2))",
    "size_not_int": "using a torch.Size or tuple (Q.shape[-1:], Q.shape, Q.size()) where a number is needed: "
                    "index the shape, Q.shape[-1]",
    "dtype_mix": "mixing two dtypes in one operation: a tensor made without dtype= (float32 by default) or cast "
                 "to another dtype meets the input's (float64, float16); make new tensors with the input's dtype "
                 "(torch.zeros(..., dtype=x.dtype), torch.tensor(c, dtype=x.dtype)) or cast with .to(x.dtype)",
    "view_on_noncontiguous": "calling .view on an input that may not be contiguous (a transposed, sliced or "
                             "expanded tensor): use .reshape, or call .contiguous() first",
    "reduction_dim_missing": "calling a reduction without the dim it must reduce (x.max(keepdim=True), e.sum(keepdim="
                             "True), torch.logsumexp(x)): keepdim keeps the axis that dim names, so name it: "
                             "x.max(dim=-1, keepdim=True)",
    "where_condition_not_bool": "giving torch.where a condition that is not boolean: its first argument must be the bool "
                                "mask, torch.where(mask, x, y); the arguments are in another order, or the mask is a "
                                "float 0/1 tensor (use mask.bool() or mask > 0)",
    "masked_fill_tensor_value": "giving masked_fill a whole tensor as its value: x.masked_fill(mask, value) fills with "
                                "one number (or a 0-d tensor); to take each entry from another tensor use "
                                "torch.where(mask, other, x)",
    "math_lacks_function": "calling a function that Python's math module does not have (math.rsqrt, math.softmax, "
                           "math.tril): it is torch's, and works on tensors: torch.rsqrt(x)",
    "tensor_as_dim": "passing a tensor where an axis number is asked (dim=...): two arguments in each other's place "
                     "(x.max(dim) with x and dim swapped, x.softmax(x)), or a size kept as a tensor; dim takes an int "
                     "such as -1",
    "caret_for_power": "writing a power with ^ (d_k ^ 0.5): in Python ^ is bitwise xor, which float tensors and "
                       "floats do not have (and it binds after / and *); a power is ** (d_k ** 0.5), a square root "
                       "math.sqrt(d_k)",
    "masked_fill_arguments_swapped": "giving masked_fill its value before its mask (x.masked_fill(float('-inf'), mask)): "
                                     "the mask comes first, then the value: x.masked_fill(mask, float('-inf'))",
    "iinfo_for_float": "asking torch.iinfo for the limits of a floating-point dtype: iinfo is for integer dtypes; for "
                       "float16, float32 and float64 use torch.finfo(dtype).min (or .max)",
    "generator_to_cat": "passing torch.cat (or torch.stack) a generator expression, torch.cat(h for h in heads): it "
                        "takes a list or tuple of tensors; write the brackets, torch.cat([h for h in heads], dim=-1)",
    "seed_for_manual_seed": "calling torch.seed(n) to seed the random numbers: torch.seed() takes no argument (it "
                            "picks a random seed itself); seed with torch.manual_seed(n)",
    "default_names_parameter": "giving a parameter a default that names another parameter (def causal_mask(T_q, "
                               "T_k=T_q)): a default is evaluated once, when def runs, where no parameter exists yet, so "
                               "the def itself raises NameError; default to None and set it inside the function (if T_k "
                               "is None: T_k = T_q)",
    "name_not_yet_defined": "using a global name (V, W, an answer of another question) that does not exist when this "
                            "code runs: the notebook assigns it only in a later cell, or in a cell that stopped with "
                            "an error before assigning it; compute what you need from the function's own arguments "
                            "(V.shape[-1] from the V it is given), or make the cell that defines the name run first "
                            "and without error",
    "number_typo": "a number typed by hand with a slip: the right digits with two of them swapped, one changed, one "
                   "left out or one repeated; let Python compute it from the sizes (1024 * 1024 * 64) instead of "
                   "typing the digits",
    "lazy_iterator_answer": "giving a lazy iterator (what filter, map, zip, reversed or a dict's .keys() return in "
                            "Python 3) where a value is asked: it holds no string or list until it is consumed; "
                            "take the value out of it (\"\".join(filter(...)) for a string, list(map(...)) for a "
                            "list, next(iter(...)) for one item)",
    "number_as_string": "a number answer written as a string, in quotes: the grader compares numbers, and a string "
                        "is not one; write the number itself without the quotes (or convert it with int(...) or "
                        "float(...))",
    "answer_lookup_missed": "an answer taken from a dict with .get(key) whose key is not in the dict: .get returns "
                            "None for a missing key without a word; write the key exactly as the dict has it (or use "
                            "d[key], which stops with a KeyError that shows the miss), or assign the letter itself",
    "answer_from_none_call": "an answer assigned the result of a call that returns None (q7_answer = print(\"D\"), "
                             "x = x.append(y), x = x.sort()): the call does its work (it prints, or changes the list in "
                             "place) and gives back None; assign the value itself, and print it on a line of its own",
    "answer_left_empty": "an answer left as the template had it (`...`, None or \"\"): write your answer in its "
                         "place, and run the cell",
    "answer_in_other_unit": "giving a number in another unit than the question's: a count in thousands or millions "
                            "(67 for 67,108,864), or a fraction as a percentage (40 for 0.4); give the number itself, "
                            "in the unit the question asks",
    "unpacked_along_wrong_axis": "splitting a tensor into a fixed number of names along an axis that does not hold that "
                                 "many parts (`q, k = pairs.unbind(dim=-1)`, `a, b = x.split(2, dim=1)`): unbind gives "
                                 "one tensor per entry of the axis it is given, and chunk and split cut the axis they "
                                 "are given (dim 0 by default) into pieces of their own count or size; name the axis "
                                 "that holds the parts (the one of length 2 for a (q, k) pair), and for split the "
                                 "size of one part",
    # the form of a list of records (one dict per item) returned where a table is asked
    "list_extended_with_dict": "adding a dict to a list with `rows += {...}` (or rows.extend(row)): a list extended "
                               "by a dict takes the dict's keys, one string each, not the dict; use "
                               "rows.append({...})",
    "record_reused": "appending one dict made once, before the loop, and updated on every pass: the list holds "
                     "the same dict again and again, so every row shows the last item's values; make a new dict "
                     "inside the loop (row = {...} before the append)",
    "torch_function_of_number": "calling a torch function (torch.sqrt, torch.exp, torch.log) on a plain Python "
                                "number such as d_k: those take tensors; use math.sqrt(d_k) (or d_k ** 0.5), "
                                "math.exp, math.log",
}


_Test = TypeVar("_Test")


def earned_with(*value_tests: str) -> Callable[[_Test], _Test]:
    """Declare a rule test's dependency: its points are earned only when each of `value_tests` passes
    too ("test_float32_no_mask" in the same question, "q5:test_float32_no_mask" in another), on the
    same device where that test runs per device, else on the CPU. A rule (no built-in in the source
    or at run time, vectorised) is also kept by code that does nothing: a function returning zeros
    calls no built-in and is fast. The runner withholds the points of a rule test that passed while
    a test it is earned with failed, and its feedback says they are earned once the function gives
    right values (runner.withhold_unearned). Goes under `@test_case(...)`; under stock otter it is an
    attribute nobody reads."""
    if not value_tests or not all(isinstance(t, str) and t.strip() for t in value_tests):
        raise TypeError("earned_with needs the names of the value tests, e.g. earned_with(\"test_float32\")")

    def mark(test: _Test) -> _Test:
        setattr(test, EARNED_WITH, tuple(t.strip() for t in value_tests))
        return test
    return mark


def register(key: str, description: str) -> None:
    MISCONCEPTIONS.setdefault(key, description)


def load_misconceptions(path: str | Path) -> dict[str, str]:
    """The plain dict of a `_misconceptions.py` file (hidden.read_misconceptions: read, never run)."""
    from autograder.grading.hidden import read_misconceptions
    return read_misconceptions(Path(path))


def register_misconceptions(test_file: str | Path) -> dict[str, str]:
    """Register the texts of `_misconceptions.py` beside a hidden test file (call with `__file__`)."""
    table = load_misconceptions(Path(test_file).with_name("_misconceptions.py"))
    for key, text in table.items():
        register(key, text)
    return table


# the words of a timing test that could not check its rule because the timed answers were wrong (and no known
# mistake gives them): runner.withhold_unearned charges such a failure to the value case that failed
TIMING_UNVERIFIED = "could not be verified: the timed calls"


def describe(key: str) -> str:
    return MISCONCEPTIONS.get(key, key.replace("_", " "))


def randn(shape: tuple[int, ...], rng: torch.Generator, dtype: torch.dtype = torch.float32,
          scale: float = 1.0) -> torch.Tensor:
    """Standard normal CPU tensor drawn from the test's generator (float64 draw, then cast)."""
    return (torch.randn(shape, generator=rng, dtype=torch.float64) * scale).to(dtype)


def broadcast_shape(*shapes: Sequence[int]) -> tuple[int, ...]:
    """torch.broadcast_shapes' answer, worked out here: torch's own imports sympy on first use (through
    torch._refs and symbolic shapes: over a second of the grader's CPU, in the first wrong grade of a process).
    Shapes that do not broadcast raise RuntimeError, as torch's does."""
    out: list[int] = []
    for i in range(max((len(s) for s in shapes), default=0)):  # from the last axis back
        sizes = {int(s[len(s) - 1 - i]) for s in shapes if len(s) > i} - {1}
        if len(sizes) > 1:
            raise RuntimeError("Shape mismatch: objects cannot be broadcast to a single shape: "
                             + ", ".join(str(tuple(s)) for s in shapes))
        out.append(sizes.pop() if sizes else 1)
    return tuple(reversed(out))


def tolerances(dtype: torch.dtype) -> tuple[float, float]:
    return TOLERANCES.get(dtype, TOLERANCES[torch.float32])


# --- answers: the validators every hidden test needs -------------------------------------------------

def not_answered(value: object) -> bool:
    """What an untouched template leaves: `x = ...`, or a stub function that returns nothing."""
    return value is None or value is Ellipsis


def _unanswered(what: str, value: object = Ellipsis) -> AssertionError:
    """The template's `...` is not answered yet; None is what a function returns when no `return` ran:
    either a stub, or code whose `return` is missing on some path (one branch computes and drops it)."""
    if value is None:
        return AssertionError(f"{what} is None: not answered yet, or a `return` is missing on some path of "
                              "your function (a branch that computes its result without returning it)")
    return AssertionError(f"{what} is not answered yet")


# --- a function or method object where a value is asked (callable_not_called) --------------------------
# The sandbox refuses to send a function or method object back (protocol.encode_value): its EncodeError
# names the object's type, and its name when it is a plain function or method. That type is the evidence:
# no value is compared, and nothing about what may cross changes.
_CALLABLE_TYPES = ("generator", "function", "builtin_function_or_method", "method", "method-wrapper", "method_descriptor",
                   "wrapper_descriptor", "partial", "cython_function_or_method")
_NOT_CROSSING = re.compile(r"EncodeError: a value of type (" + "|".join(map(re.escape, _CALLABLE_TYPES))
                           + r") cannot cross the sandbox boundary(?: \(the function or method object "
                           r"`([A-Za-z_][A-Za-z0-9_]{0,60}|<lambda>)` itself, not called\))?")


_BYTES_NOT_CROSSING = re.compile(r"EncodeError: a value of type (bytes|bytearray|memoryview) cannot cross the sandbox "
                                 r"boundary")
# numbers of types the sandbox does not carry: the standard library's exact ones and SymPy's (their type name is the
# evidence; their value stays in the worker)
_ENUM_NOT_CROSSING = re.compile(r"EncodeError: a value of type (\w{1,60}) cannot cross the sandbox boundary \(an Enum "
                                r"member\)")
_NUMBER_NOT_CROSSING = re.compile(r"EncodeError: a value of type (Fraction|Decimal|Integer|Rational|Float|One|Zero|"
                                  r"NegativeOne|Half) cannot cross the sandbox boundary")
# Python 3's lazy iterators where a value is asked (filter over a string, map, zip, a dict's keys): Python 2 gave a
# string or a list there (blind48's `filter(str.isupper, "...")` as a letter)
_LAZY_TYPES = ("filter", "map", "zip", "reversed", "enumerate", "dict_keys", "dict_values", "dict_items",
               "list_iterator", "tuple_iterator", "str_ascii_iterator", "str_iterator", "range_iterator",
               "set_iterator", "dict_keyiterator", "dict_valueiterator", "callable_iterator")
_LAZY_NOT_CROSSING = re.compile(r"EncodeError: a value of type (" + "|".join(_LAZY_TYPES)
                                + r") cannot cross the sandbox boundary")


def callable_not_called(error: BaseException | str, what: str = "your function") -> Misconception | None:
    """`callable_not_called` when `error` (a StudentCodeError, or a failure message quoting one) is the
    sandbox refusing a function or method object that the student's call returned, alone or inside its
    result (`return x.var().item`); `bytes_for_text` when it refused bytes (`"C".encode()`); None for any
    other error."""
    if isinstance(error, StudentCodeError):
        text = f"{error.exc_type}: {error.message}"
    else:
        text = str(error)
    m = _NOT_CROSSING.search(text)
    if m is None:
        raw = _BYTES_NOT_CROSSING.search(text)
        if raw is not None:     # "C".encode(), a b"C" literal: its type is the evidence (its bytes stay in the worker)
            return Misconception("bytes_for_text", f"{what.removesuffix('(...)')} is (or returns) a {raw.group(1)} "
                                 "object, not a string or a number: " + describe("bytes_for_text"))
        member = _ENUM_NOT_CROSSING.search(text)
        if member is not None:  # Choice.C: the member, not its value
            return Misconception("enum_member_answer", f"{what.removesuffix('(...)')} is (or returns) a member of the "
                                 f"Enum {member.group(1)}, not its value: " + describe("enum_member_answer"))
        number = _NUMBER_NOT_CROSSING.search(text)
        if number is not None:  # Fraction(4, 1), Decimal("4"), sympy.Integer(4): the type is the slip
            return Misconception("number_of_another_type", f"{what.removesuffix('(...)')} is (or returns) a "
                                 f"{number.group(1)}, not a Python int or float: " + describe("number_of_another_type"))
        lazy = _LAZY_NOT_CROSSING.search(text)
        if lazy is not None:    # filter(...), map(...), d.keys(): an iterator, not the string or list it yields
            return Misconception("lazy_iterator_answer", f"{what.removesuffix('(...)')} is (or returns) a "
                                 f"{lazy.group(1)} object, not a value: " + describe("lazy_iterator_answer"))
        return None
    kind, name = m.group(1), m.group(2)
    if kind == "generator":
        return Misconception("generator_returned", f"{what} returned a generator, not a value: "
                             + describe("generator_returned"))
    if name == "size" and kind == "builtin_function_or_method":
        return Misconception("numpy_size_attribute", f"{what} returned the method `size` itself: "
                             + describe("numpy_size_attribute"))
    if name == "<lambda>":
        thing, fix = "a lambda", "call it"
    elif name:
        thing, fix = f"`{name}` itself (a {kind})", f"write `{name}()` (with its arguments, if it takes any)"
    else:
        thing, fix = f"a {kind} object", "add the () that call it"
    return Misconception("callable_not_called", f"{what} returned {thing}, not a value (the sandbox refuses to "
                         f"send a function back): {fix} so that its result is returned. "
                         + describe("callable_not_called"))


def _raise_if_callable(value: object, what: str) -> None:
    """A value answer that is a function or method (`ratio = scores.var().item`): the grader's proxy
    for it is callable, where a number, a tensor or a string is asked."""
    if callable(value) and not isinstance(value, torch.Tensor):
        record = _CHARGES.get()
        if record is not None and record.submission is not None and what.isidentifier():
            from autograder.grading.source_checks import assigned_attribute, cells_of
            if assigned_attribute(cells_of(record.submission), what) == "size":
                raise Misconception("numpy_size_attribute", f"{what} is the method `size` itself (`{what} = "
                                    "<tensor>.size`): " + describe("numpy_size_attribute"))
        raise Misconception("callable_not_called", f"{what} is a function or method, not a value: "
                            + describe("callable_not_called"))


def expect_number(value: object, what: str) -> float:
    """A finite Python number (a one-element tensor is accepted and read with .item())."""
    if not_answered(value):
        raise _unanswered(what, value)
    _raise_if_callable(value, what)
    if type(value) is torch.Tensor and value.numel() == 1 and value.dtype != torch.bool:
        value = value.item()
    if isinstance(value, str) and len(value) <= 100:
        _raise_if_string_answer(value, what)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        _raise_if_number_wrapped(value, what)
        raise AssertionError(f"{what} should be a number (a Python float; use .item() on a tensor), "  # noqa: TRY004 - a failed check, shown to the student
                             f"got {type(value).__name__}")
    if isinstance(value, int) and value.bit_length() > 1000:   # float() would overflow: a grader error, not a fail
        raise AssertionError(f"{what} is a whole number of about {int(value.bit_length() * math.log10(2)) + 1} digits "
                             f"(about 2**{value.bit_length() - 1}), far too large to be right: check the formula and "
                             "how Python groups its operators")
    value = float(value)
    if not math.isfinite(value):
        raise AssertionError(f"{what} is not a finite number")
    return value


# how a one-element container is made where a bare value was meant
_CONTAINER_MADE_BY = {"tuple": " (a trailing comma makes one, and so does a slice such as x.shape[1:])",
                      "set": " (braces around a value make one)"}
_NO_MEMBER = object()


def _only_member(value: object) -> object:
    """The one member of a plain one-element tuple, list or set (its type is the slip), else _NO_MEMBER."""
    if type(value) in (tuple, list, set, frozenset) and len(value) == 1:  # type: ignore[arg-type]
        return next(iter(value))  # type: ignore[call-overload]
    return _NO_MEMBER


def _raise_if_number_wrapped(value: object, what: str) -> None:
    """A number answer in a wrapper that is the slip: a one-element tuple or list holding a number (a trailing
    comma: answer_in_container), a NumPy scalar (numpy_scalar_answer). Its type is the evidence."""
    only = _only_member(value)
    if isinstance(only, (int, float)) and not isinstance(only, bool):
        kind = type(value).__name__
        raise Misconception("answer_in_container", f"{what} is {_shown(value)}, a {kind} holding the number {_shown(only)}"
                            + _CONTAINER_MADE_BY.get(kind, "") + ": " + describe("answer_in_container"))
    if (isinstance(value, (tuple, list)) and (type(value) in (tuple, list) or isinstance(value, torch.Size))
            and 2 <= len(value) <= 8 and all(type(v) is int and v >= 0 for v in value)):
        # sizes where one number is asked (attn_entries = (1024, 1024)): a shape; a count of entries is their product
        shown = _shown(tuple(value))
        raise Misconception("shape_for_number", f"{what} is {shown}, {len(value)} whole numbers where one is asked "
                            f"(if they are a shape, its count of entries is {_int_said(math.prod(value))}): "
                            + describe("shape_for_number"))
    made = type(value)
    if made.__module__ == "numpy" and made.__name__.startswith(("int", "uint", "float")) and hasattr(value, "item"):
        raise Misconception("numpy_scalar_answer", f"{what} is a numpy.{made.__name__} ({value!r:.40}), not a Python "
                            "number: " + describe("numpy_scalar_answer"))
    array = _numeric_array(value)
    if array is not None and array.size == 1:
        # `.numpy()` of a one-element tensor, np.mean(...) kept as an array: an array, whatever it holds
        held = array.item()
        how = "a 0-d NumPy array" if array.ndim == 0 else f"a NumPy array of shape {tuple(array.shape)}"
        raise Misconception("numpy_scalar_answer", f"{what} is {how} holding {_shown(held)}, not a Python number: "
                            + describe("numpy_scalar_answer"))


def _numeric_array(value: object) -> Any:
    """`value` if it is a NumPy array of numbers (it crosses the sandbox as one: protocol.encode_value), else None."""
    if type(value).__module__ != "numpy":
        return None
    import numpy as np
    return value if isinstance(value, np.ndarray) and value.dtype.kind in "iuf" else None


def _raise_if_string_answer(value: str, what: str) -> None:
    """A number answer given as a string: empty (answer_left_empty) or a number in quotes (number_as_string)."""
    text = value.strip()
    if not text:
        raise Misconception("answer_left_empty", f"{what} is {value!r}, an empty string: " + describe("answer_left_empty"))
    try:
        number = float(text.replace("_", "").replace(",", ""))
    except ValueError:
        written = _number_written_out(text)
        if written is not None:
            how, number = written
            shown = f"{int(number)}" if number.is_integer() and abs(number) < 1e15 else f"{number:g}"
            raise Misconception("number_as_string", f"{what} is {_shown(value)}, a string holding {how}, the number "
                                f"{shown} (its value is checked once it is a number): "
                                + describe("number_as_string")) from None
        return
    if math.isfinite(number):
        raise Misconception("number_as_string", f"{what} is {value!r}, a string holding the number "
                            f"{number:g} (its value is checked once it is a number): " + describe("number_as_string"))


_NUMBER = r"(\d+(?:\.\d+)?)"
_RATIO_TEXT = re.compile(rf"^{_NUMBER}\s*(?::|/|to)\s*{_NUMBER}$", re.IGNORECASE)       # "4:1", "4 / 1", "4 to 1"
_TIMES_TEXT = re.compile(rf"^(?:[x\u00d7]\s*{_NUMBER}|{_NUMBER}\s*(?:x|\u00d7|times))$", re.IGNORECASE)  # "4x", "x4"
_POWER_TEXT = re.compile(rf"^{_NUMBER}\s*(?:\^|\*\*)\s*(\d{{1,2}})$")                         # "2^2", "2**20"


def _number_written_out(text: str) -> tuple[str, float] | None:
    """A number written as words and signs in a string, and its value: a ratio ("4:1"), a factor ("4x", "x4",
    "4 times") or a power ("2^2", "2**20"). None for anything else (a sentence, a formula with names)."""
    text = text.strip()
    if len(text) > 40:
        return None
    if (m := _RATIO_TEXT.match(text)) and float(m.group(2)) != 0:
        return f"the ratio {m.group(1)} to {m.group(2)}", float(m.group(1)) / float(m.group(2))
    if m := _TIMES_TEXT.match(text):
        return f"the factor {m.group(1) or m.group(2)}", float(m.group(1) or m.group(2))
    if m := _POWER_TEXT.match(text):
        try:
            return f"the power {m.group(1)}^{m.group(2)}", float(m.group(1)) ** int(m.group(2))
        except OverflowError:   # "9999999999^99" is past a float (red-team round 86): a string, said as one
            return None
    return None


def _cut(text: str, limit: int = 60) -> str:
    """Student text as a message quotes it: at most `limit` characters (each repr made once)."""
    return text if len(text) <= limit else text[:limit - 3] + "..."


# Python refuses int -> str past 4300 digits (sys.int_max_str_digits): a larger int, which crosses the sandbox (round 54),
# is shown by its size, never printed (red-team round 86: repr of `10 ** 5000` made the check itself raise ValueError)
_SHOWN_INT_BITS = 14_000
_SHOWN_ITEMS = 12           # a message shows 60 characters: the items past these are never seen


def _int_said(n: int) -> str:
    """An int as a message shows it: its digits, or its size where Python would refuse to print it."""
    if n.bit_length() <= _SHOWN_INT_BITS:
        return repr(n)
    return f"{'-' if n < 0 else ''}<a whole number of about {int(n.bit_length() * math.log10(2)) + 1} digits>"


def _repr_bounded(value: object, depth: int = 0) -> str:
    """repr(value) for the plain values that cross the sandbox, with every int too large to print said by its size."""
    if type(value) is int:
        return _int_said(value)
    if depth < 8 and isinstance(value, (list, tuple, set, frozenset)) and type(value) in (list, tuple, set, frozenset):
        items = [_repr_bounded(v, depth + 1) for v in itertools.islice(value, _SHOWN_ITEMS)]
        more = ", ..." if len(value) > _SHOWN_ITEMS else ("," if type(value) is tuple and len(items) == 1 else "")
        opening, closing = ("[", "]") if type(value) is list else ("(", ")") if type(value) is tuple else ("{", "}")
        return opening + ", ".join(items) + more + closing
    if depth < 8 and isinstance(value, dict) and type(value) is dict:
        pairs = itertools.islice(value.items(), _SHOWN_ITEMS)
        return "{" + ", ".join(f"{k!r}: {_repr_bounded(v, depth + 1)}" for k, v in pairs) + "}"
    try:
        return repr(value)
    except ValueError:    # an int too large to print inside a value of another kind
        return f"<a {type(value).__name__}>"


def _shown(value: object) -> str:
    try:
        return _cut(repr(value))
    except ValueError:    # it holds an int past 4300 digits (anything else that raises here is the grader's own fault)
        return _cut(_repr_bounded(value))


def expect_int(value: object, what: str) -> int:
    """A whole number (an int, a whole float, or a one-element tensor holding one)."""
    number = expect_number(value, what)
    if not number.is_integer():
        raise AssertionError(f"{what} should be a whole number (a Python int)")
    return int(number)


def raise_if_typo(got: float, right: float, what: str) -> None:
    """Name `number_typo` when a whole-number answer of 4 digits or more is the right one typed with a slip: two
    adjacent digits swapped, one digit left out or repeated, or (5 digits or more, not the last one: a formula one
    off ends there) one digit changed. Call it once the answer is known to be wrong and no formula explains it."""
    if not (float(got).is_integer() and float(right).is_integer()) or abs(right) < 1000 or got == right:
        return
    a, b = str(int(abs(got))), str(int(abs(right)))
    if (got < 0) != (right < 0):
        return
    how = ""
    if len(a) == len(b):
        differ = [i for i in range(len(a)) if a[i] != b[i]]
        if len(differ) == 2 and differ[1] == differ[0] + 1 and a[differ[0]] == b[differ[1]] and a[differ[1]] == b[differ[0]]:
            how = f"two digits swapped ({b[differ[0]]}{b[differ[1]]} typed as {a[differ[0]]}{a[differ[1]]})"
        elif len(differ) == 1 and len(b) >= 5 and differ[0] < len(b) - 1:
            how = f"one digit changed ({b[differ[0]]} typed as {a[differ[0]]})"
    elif abs(len(a) - len(b)) == 1:
        long, short = (a, b) if len(a) > len(b) else (b, a)
        if any(long[:i] + long[i + 1:] == short for i in range(len(long))):
            how = "one digit repeated" if len(a) > len(b) else "one digit left out"
    if how:
        raise Misconception("number_typo", f"{what} is {int(got):,}: the right answer, {int(right):,}, with {how}: "
                            + describe("number_typo"))


# decimal units only: a count in units of 1024 would be the count of a question's other sizes too often
_UNITS = ((10 ** 3, "thousands"), (10 ** 6, "millions"), (10 ** 9, "billions"))


def raise_if_other_unit(got: float, right: float, what: str, *, percent: bool = False) -> None:
    """Name `answer_in_other_unit` when a number answer is the right one in another unit: the count in
    thousands, millions or billions, as written (67.108864) or rounded to the decimals the
    student wrote (67, 67.1), or times such a unit; with `percent`, a fraction given as a percentage or the
    other way round. Call it once the answer is known to be wrong; nothing else is said about it here."""
    if not (math.isfinite(got) and math.isfinite(right)) or right == 0 or got == right:
        return
    text = repr(float(got))
    decimals = 0 if float(got).is_integer() else len(text.split(".")[1]) if "." in text and "e" not in text else 6
    units = [*_UNITS, *(((100, "percent"),) if percent else ())]
    for factor, unit in units:
        for scaled, how in ((right / factor, f"in {unit}"), (right * factor, f"times {factor:,}")):
            if abs(scaled) < 0.5:
                continue
            # rounded: only with two significant digits or more kept (a 2 for 2000.5 is no evidence)
            rounded = decimals <= 3 and abs(got) * 10 ** decimals >= 10 and (
                round(scaled, decimals) == got or (decimals == 0 and math.trunc(scaled) == got))   # or // 1000
            if math.isclose(got, scaled, rel_tol=1e-9) or rounded:
                said = f"{right:,.6g}" if not float(right).is_integer() else f"{int(right):,}"
                raise Misconception("answer_in_other_unit", f"{what} is {got:g}: that is the right answer, {said}, "
                                    f"{how}" + (" (rounded)" if not math.isclose(got, scaled, rel_tol=1e-9) else "")
                                    + ": " + describe("answer_in_other_unit"))


def expect_shape(value: object, what: str) -> tuple[int, ...]:
    """A shape: a tuple (or list, or torch.Size) of Python ints."""
    if not_answered(value):
        raise _unanswered(what, value)
    _raise_if_callable(value, what)
    if not isinstance(value, (tuple, list)) or not all(
            isinstance(n, int) and not isinstance(n, bool) for n in value):
        entries = list(value) if isinstance(value, (tuple, list)) and 0 < len(value) <= 8 else []
        if entries and all(type(n) is int or type(n) is float and n.is_integer() for n in entries):   # 2 * 64 / 1 is 128.0
            said = ", ".join(repr(n) if type(n) is float or abs(n) < 10 ** 18 else "a large int" for n in entries)
            raise Misconception("float_for_int", f"{what} is ({said}): a float where a shape holds whole numbers, "
                                "Python ints: " + describe("float_for_int"))
        _raise_if_shape_wrapped(value, what)
        raise AssertionError(f"{what} should be a tuple of Python ints, for example (2, 3, 4)")
    return tuple(value)


def _raise_if_shape_wrapped(value: object, what: str) -> None:
    """A shape in a form whose type is the slip: a NumPy array of ints, or NumPy integers, where Python ints are
    asked (numpy_array_for_shape); a tuple of equal-shaped tensors, tuple(t) for tuple(t.shape)
    (tuple_of_tensor_rows: the count and shape of the slices say what t's shape was)."""
    array = _numeric_array(value)
    if array is not None and array.ndim == 1 and 1 <= array.size <= 8 and array.dtype.kind in "iu":
        raise Misconception("numpy_array_for_shape", f"{what} is a NumPy array ({_shown(array.tolist())}), not a tuple "
                            "of Python ints: " + describe("numpy_array_for_shape"))
    if not isinstance(value, (tuple, list)) or not 1 <= len(value) <= 64:
        return
    if all(type(n).__module__ == "numpy" and type(n).__name__.startswith(("int", "uint")) for n in value):
        raise Misconception("numpy_array_for_shape", f"{what} holds NumPy integers ({type(value[0]).__name__}), not "
                            "Python ints: " + describe("numpy_array_for_shape"))
    if all(isinstance(n, torch.Tensor) and n.dim() >= 1 for n in value) and len({tuple(n.shape) for n in value}) == 1:
        row = tuple(value[0].shape)
        raise Misconception("tuple_of_tensor_rows", f"{what} is a {type(value).__name__} of {len(value)} tensors, each "
                            f"of shape {row}: the slices of a tensor of shape {(len(value), *row)} along its first "
                            "axis: " + describe("tuple_of_tensor_rows"))


def expect_tuple(value: object, what: str, names: Sequence[str]) -> tuple[Any, ...]:
    """A function's tuple of len(names) results, e.g. expect_tuple(out, "attention", ("output", "weights"))."""
    if not_answered(value):
        raise _unanswered(what, value)
    _raise_if_callable(value, what)
    if not isinstance(value, (tuple, list)) or len(value) != len(names):
        raise AssertionError(f"{what} should return {len(names)} values ({', '.join(names)}), "
                             f"got {type(value).__name__}")
    return tuple(value)


def raise_if_records_malformed(rows: object, items: Sequence[object], item_key: str, what: str = "the table") -> None:
    """A list of records (one dict per item of `items`, `item_key` saying which) in a form that shows its slip:
    the dicts' keys, one string each, repeated once per item (`rows += {...}`: list_extended_with_dict), or
    one row per item that are all the same dict, the last item's (a dict made before the loop and appended on
    every pass: record_reused; the items differ, so the right rows do). Anything else passes, for the
    caller's own checks."""
    if not isinstance(rows, (list, tuple)) or not rows or len(items) < 2:
        return
    if all(isinstance(r, str) for r in rows) and len(rows) % len(items) == 0:
        width = len(rows) // len(items)
        if item_key in rows[:width] and list(rows) == list(rows[:width]) * len(items):
            shown = ascii([str(r)[:30] for r in rows[:min(width, 8)]])[:200]    # student text: short, escaped
            raise Misconception("list_extended_with_dict", f"{what} is a list of {len(rows)} strings, the keys "
                                f"{shown} once per item: " + describe("list_extended_with_dict"))
    if len(rows) == len(items) and all(isinstance(r, dict) for r in rows) and len(set(map(str, items))) > 1:
        first = rows[0]
        if all(_same_value(r, first) for r in rows[1:]) and _same_value(first.get(item_key), items[-1]):
            raise Misconception("record_reused", f"{what} has {len(rows)} rows that are all the same, the last "
                                f"one's ({item_key} = {ascii(items[-1])[:40]}): " + describe("record_reused"))


def _raise_if_numbers_as_strings(value: object, what: str, limit: int = 10_000) -> None:
    """A nested list whose leaves are all strings that read as numbers ('0.2119', f"{x:.4f}"): number_as_string,
    as for one number. Its first string is shown; nothing is named where any leaf is not such a string."""
    leaves: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)) and type(item) in (list, tuple):
            if len(leaves) + len(item) > limit:
                return
            stack.extend(item)
        elif isinstance(item, str) and len(item) <= 60:
            leaves.append(item)
        else:
            return
    if not leaves:
        return
    for text in leaves:
        try:
            if not math.isfinite(float(text.strip().replace("_", ""))):
                return
        except ValueError:
            return
    first = leaves[-1]      # popped last: the first in reading order
    raise Misconception("number_as_string", f"{what} holds numbers written as strings ({first!r}, ...: "
                        f"{len(leaves)} of them; formatted with f-strings or str()): " + describe("number_as_string"))


def _raise_if_ragged(value: object, what: str, shape: tuple[int, ...]) -> None:
    """A list of rows of numbers of different lengths, as many as the matrix asked has rows, none longer than its
    rows (each row's kept entries: a causal row left one longer than the last): ragged_rows. Its lengths are the
    evidence; nothing else is read."""
    if len(shape) != 2 or not isinstance(value, (list, tuple)) or len(value) != shape[0]:
        return
    lengths = []
    for row in value:
        if not isinstance(row, (list, tuple)) or not all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                         for x in row):
            return
        lengths.append(len(row))
    if len(set(lengths)) > 1 and max(lengths) <= shape[1]:
        said = ", ".join(map(str, lengths[:8])) + (", ..." if len(lengths) > 8 else "")
        raise Misconception("ragged_rows", f"{what} is a list of {len(lengths)} rows of lengths {said}, where a "
                            f"{shape} matrix is asked: " + describe("ragged_rows"))


def expect_matrix(value: object, what: str, shape: tuple[int, ...]) -> torch.Tensor:
    """A tensor or nested list of numbers of `shape`, as a float64 tensor (NaN and inf kept, so that a
    wrong variant producing them can still be recognised)."""
    if not_answered(value):
        raise _unanswered(what, value)
    _raise_if_callable(value, what)
    try:
        t = torch.as_tensor(value, dtype=torch.float64)
    except Exception:  # noqa: BLE001 - any unreadable answer
        _raise_if_numbers_as_strings(value, what)
        _raise_if_ragged(value, what, shape)
        raise AssertionError(f"{what} should be a tensor or a nested list of numbers") from None
    if tuple(t.shape) != tuple(shape):
        raise AssertionError(f"{what} should have shape {tuple(shape)}, got {tuple(t.shape)}")
    return t


def at_most_one_letter(text: str) -> bool:
    r"""Whether `text` is one ASCII letter however it is dressed ("(D)", "d.", " c ") or no letter at all: at most one
    word character, and that one a letter of A-Z. What `re.fullmatch(r"\W*[A-Za-z]?\W*", text)` says, in one pass:
    the pattern backtracks quadratically on a long run of punctuation (a student's answer of megabytes)."""
    word = 0
    for ch in text:
        if ch.isalnum() or ch == "_":
            word += 1
            if word > 1 or not ("A" <= ch <= "Z" or "a" <= ch <= "z"):
                return False
    return True


def _raise_if_computed_not_letter(value: object, what: str, given: str) -> None:
    """A string that is no letter, which the notebook's code worked out: answer_computed_by_code with the line
    quoted. chr of a number (blind50's `q7_answer = chr(44)`, ','), the number's digits read as hex giving a letter
    (chr(0x44) is 'D'): chr reads its number as decimal, said with the letter meant."""
    if not isinstance(value, str):
        return
    from autograder.grading.source_checks import chr_of_number, computed_answer
    cells = _answer_cells(what)
    if cells is None:
        return
    found = chr_of_number(cells, what)
    if found is not None and len(value) == 1 and 0 <= found[1] < 0x110000 and chr(found[1]) == value:
        statement, number = found
        as_hex = int(str(number), 16)
        meant = chr(as_hex) if as_hex < 0x110000 else ""
        if meant.isascii() and meant.isalpha():
            raise Misconception("answer_computed_by_code", f"{what} is {given}, not a letter: the notebook has "
                                f"`{statement}`, and chr reads its number as a decimal code point: chr({number}) is "
                                f"{value!r}, while {meant!r} is chr(0x{number}) = chr({ord(meant)}); write the letter "
                                "itself as a string")
    worked = computed_answer(cells, what)
    if worked is not None:
        raise Misconception("answer_computed_by_code", f"{what} is {given}, not a letter: your code worked it out "
                            f"(`{worked}`): " + describe("answer_computed_by_code"))


def expect_choice(value: object, what: str, *, answer: str, choices: Sequence[str] = ("a", "b", "c", "d"),
                  wrong: Mapping[str, str] | None = None, hint: str = "", bare_letter_only: bool = False,
                  values_in_options: Sequence[float] = ()) -> None:
    """A multiple-choice answer: one letter, any case, parentheses and spaces ignored ("(B) " is "b"; with
    `bare_letter_only`, only spaces: a notebook whose own format check takes value.strip()).
    A wrong letter listed in `wrong` names its misconception key; `hint` is added to a wrong answer. An answer
    in the wrong form is named for its form (_raise_if_answer_form). `values_in_options`: numbers the options'
    own text shows (the 2 of O(T^2)): an answer equal to one is that value, not an option's number."""
    if not_answered(value):
        raise _unanswered(what, value)
    _raise_if_callable(value, what)
    letters = [c.lower() for c in choices]
    shown = ", ".join(f'"{c}"' for c in choices)
    if not (isinstance(value, (int, float)) and not isinstance(value, bool) and value in values_in_options):
        _raise_if_option_number(value, what, choices)
    wrong_keys = {k.lower(): v for k, v in (wrong or {}).items()}
    if (isinstance(value, str) and _PLACEHOLDER.fullmatch(value.strip())
            and value.strip()[1:-1].lower() not in letters):    # "{c}": a letter in braces, not a name
        raise Misconception("fstring_prefix_missing", f"{what} is {_cut(value.strip())!r}, the placeholder itself: "
                            + describe("fstring_prefix_missing"))
    _raise_if_answer_form(value, what, answer.lower(), letters, wrong_keys, bare_letter_only)
    if isinstance(value, str) and not value.strip().strip("()").strip():
        from autograder.grading.source_checks import computed_answer
        cells = _answer_cells(what)
        worked = computed_answer(cells, what) if cells is not None else None
        if worked is not None:
            # not left empty: the code gave "" (a lookup's default, `.get("Q15", "")`: blind46's mis-name)
            raise Misconception("answer_computed_by_code", f"{what} is {value!r}, an empty string your code worked "
                                f"out (`{worked}`), not a letter{_strip_of_prefix(cells or [], what, value)}: "
                                + describe("answer_computed_by_code"))
        raise Misconception("answer_left_empty", f"{what} is {value!r}, an empty string: " + describe("answer_left_empty"))
    _raise_if_value_not_letter(value, what)
    raise_if_answer_overwritten(value, what, answer, wrong_keys)
    if not isinstance(value, str) or value.strip().strip("()").strip().lower() not in letters:
        given = f"{_cut(value)!r}" if isinstance(value, str) else f"a {type(value).__name__}"
        _raise_if_computed_not_letter(value, what, given)
        raise AssertionError(f"{what} is {given}: it should be one letter as a string: {shown}")
    letter = value.strip().strip("()").strip().lower()
    if letter == answer.lower():
        return
    tail = f": {hint}" if hint else ""
    key = wrong_keys.get(letter)
    _raise_if_positional_letter(value, what, tail, key, answer.lower())
    _raise_if_computed_letter(value, what, tail, key)
    if key:
        raise Misconception(key, f"{what} is not the best answer: that choice reflects {describe(key)}{tail}")
    raise AssertionError(f"{what} is not the best answer{tail}")


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
# a whole answer that is one f-string placeholder never filled: "{_letter}", "{letter!r}", "{opts[2]}"
_PLACEHOLDER = re.compile(r"\{[A-Za-z_][\w.]{0,60}(?:\[[^\]{}]{0,20}\])?(?:![rsa])?(?::[^{}]{0,10})?\}")


_STRIPS = {"lstrip": "leading", "rstrip": "trailing", "strip": "leading and trailing"}


def _strip_of_prefix(cells: Sequence[str], what: str, value: object) -> str:
    """Why a letter worked out by str.lstrip / rstrip / strip of a prefix is wrong, replayed on the notebook's own
    literals (blind55's `_note = "Answered: d"; ans = _note.lstrip("Answered: ")` gives ''): the notebook's last
    module-level `what = s.lstrip("...")` where s is a string literal (or a name the same cell binds to one), its
    argument several characters; the strip, run here on those two literals, gives `value`, and removing the
    prefix itself (removeprefix / removesuffix) gives another string. Words to add to the message, or ""."""
    import ast

    from autograder.grading.pyparse import parse
    if not isinstance(value, str):
        return ""
    found: tuple[str, str, str] | None = None
    for cell in cells:
        if len(cell) > 20_000 or what not in cell:
            continue
        try:
            tree = parse(cell)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            continue
        strings = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
                   and isinstance(n.value.value, str) for t in n.targets if isinstance(t, ast.Name)}
        for n in tree.body:
            if not (isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == what for t in n.targets)):
                continue
            found = None
            call = n.value
            if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in _STRIPS
                    and len(call.args) == 1 and not call.keywords and isinstance(call.args[0], ast.Constant)
                    and isinstance(call.args[0].value, str) and 2 <= len(call.args[0].value) <= 100):
                on = call.func.value
                text = on.value if isinstance(on, ast.Constant) else strings.get(on.id) if isinstance(on, ast.Name) \
                    else None
                if isinstance(text, str) and len(text) <= 200:
                    found = (text, call.func.attr, call.args[0].value)
    if found is None:
        return ""
    text, how, chars = found
    stripped = getattr(text, how)(chars)
    meant = text.removeprefix(chars) if how != "rstrip" else text
    meant = meant.removesuffix(chars) if how != "lstrip" else meant
    if stripped != value or meant == stripped:
        return ""
    return (f": `.{how}({ascii(chars)})` removes every {_STRIPS[how]} character that is one of {ascii(chars)}, a set "
            f"of characters, not a prefix, so on {ascii(text)} it gives {ascii(stripped)}; `.removeprefix("
            f"{ascii(chars)})` takes the prefix itself off and gives {ascii(meant)}"
            if how == "lstrip" else
            f": `.{how}({ascii(chars)})` removes every {_STRIPS[how]} character that is one of {ascii(chars)}, a set "
            f"of characters, not a prefix or suffix, so on {ascii(text)} it gives {ascii(stripped)}; removing the "
            f"text itself (.removeprefix / .removesuffix) gives {ascii(meant)}")


def _answer_cells(what: str) -> list[str] | None:
    """The code cells of the submission whose test is running, where `what` is an answer's name (the source a
    letter's checks read); None outside a graded test or for a name that is an expression."""
    record = _CHARGES.get()
    if record is None or record.submission is None or not what.isidentifier():
        return None
    from autograder.grading.source_checks import cells_of
    return cells_of(record.submission)


def _raise_if_positional_letter(value: str, what: str, tail: str, key: str | None, answer: str = "") -> None:
    """answer_by_position: a wrong letter the notebook picks by its position from constants (chr(ord("a") + 3),
    "abcd"[3]: source_checks.positional_answer). What the count gave is said, and that positions count from 0; the
    option's meaning is said as the option's, not as the student's belief: a student who meant the third option and
    counted from 1 believes nothing of the fourth (blind32's and blind42's mis-names)."""
    from autograder.grading.source_checks import positional_answer
    cells = _answer_cells(what)
    _raise_if_list_comma_missing(value, what, tail, cells, answer)
    found = positional_answer(cells, what) if cells is not None else None
    if found is None:
        return
    shown, n = found
    letter = value.strip().strip("()").strip().upper()
    if n >= len(_ORDINALS) or letter != "ABCDEFGH"[n]:
        _raise_if_list_counted_from_one(value, what, tail, cells, answer)
        return          # the position read is not the letter the value holds (a fold of another kind): nothing said
    stands = f" (option {letter} stands for {describe(key)})" if key else ""
    raise Misconception("answer_by_position", f"{what} is {value.strip()!r}, the letter your code picks by its "
                        f"position (`{shown}`: position {n} counting from 0, the {_ORDINALS[n]} option), and it is "
                        f"not the best answer{stands}{tail}: " + describe("answer_by_position"))


def raise_if_answer_overwritten(value: object, what: str, answer: str, wrong: Mapping[str, str] | None = None) -> None:
    """answer_overwritten: a wrong letter written out, where the notebook set `what` to the best answer earlier and a
    later top-level line replaced it (a first guess left below the answer: blind47's sdpa q7). What the two lines
    say is shown; nothing where no earlier line held the best answer (then the last letter is the student's
    choice). Hidden tests with checks of their own before expect_choice call it first."""
    def bare(text: str) -> str:
        return text.strip().strip("()").strip()
    if not isinstance(value, str) or not answer or bare(value).lower() == answer.lower():
        return
    from autograder.grading.source_checks import overwritten_bindings
    cells = _answer_cells(what)
    earlier = overwritten_bindings(cells, what) if cells is not None else []
    first = next((shown for shown, v in earlier if bare(v).lower() == answer.lower()), None)
    if first is None:
        return
    letter = bare(value)
    key = {k.lower(): v for k, v in (wrong or {}).items()}.get(letter.lower())
    stands = f" (option {letter.upper()} stands for {describe(key)})" if key else ""
    raise Misconception("answer_overwritten", f"{what} is {value.strip()!r}: the notebook sets it twice, and the "
                        f"later line replaces the earlier `{first}`; the last assignment that runs is the one graded, "
                        f"and it is not the best answer{stands}: " + describe("answer_overwritten"))


def _raise_if_list_comma_missing(value: str, what: str, tail: str, cells: list[str] | None, answer: str) -> None:
    """list_comma_missing: a wrong letter picked by position from a list of letters in which one item is two or more
    letters in one string ("BC": `["A", "B" "C", "D"]`, two strings side by side with no comma are joined into one),
    at or before the position picked, where the list with that item split back into its letters gives the best
    answer at the same position: the missing comma moved the pick (blind47's q5). Nothing otherwise."""
    from autograder.grading.source_checks import picked_from_literal_list
    found = picked_from_literal_list(cells, what) if cells is not None else None
    if found is None or not answer:
        return
    shown, n, items = found
    letters = [item.strip() for item in items]
    joined = [i for i, item in enumerate(letters) if len(item) >= 2 and item.isalpha() and item.isascii()]
    if len(joined) != 1 or joined[0] > n or not all(len(item) == 1 for i, item in enumerate(letters) if i != joined[0]):
        return
    split = [c for item in letters for c in item]
    if not (n < len(items) and letters[n].lower() == value.strip().lower() and n < len(split)
            and split[n].lower() == answer):
        return
    run = letters[joined[0]]
    raise Misconception("list_comma_missing", f"{what} is {value.strip()!r}, the item at position {n} of a list "
                        f"whose item {run!r} is {len(run)} letters in one string (`{shown}`): with a comma between "
                        f"them, position {n} is {split[n]!r}{tail}: " + describe("list_comma_missing"))


def _raise_if_list_counted_from_one(value: str, what: str, tail: str, cells: list[str] | None, answer: str) -> None:
    """answer_by_position for a letter picked from a list of letters that is not the options in order (one's answers
    to every question, `_MC[4]`), where the item just before the one picked is the best answer: the list was counted
    from 1 (blind45's mis-name, told by the picked option's belief). Where the item before is not the answer,
    nothing is said here (the list's content may be the slip)."""
    from autograder.grading.source_checks import picked_from_literal_list
    found = picked_from_literal_list(cells, what) if cells is not None else None
    if found is None or not answer:
        return
    shown, n, items = found
    if not (0 < n < len(items) and n < len(_ORDINALS) and items[n].strip().lower() == value.strip().lower()
            and items[n - 1].strip().strip("()").strip().lower() == answer):
        return
    raise Misconception("answer_by_position", f"{what} is {value.strip()!r}, the item your code picks by its position "
                        f"from a list (`{shown}`: position {n} counting from 0, the {_ORDINALS[n]} item), and it is not "
                        f"the best answer, while the item before it (position {n - 1}) is: was the list counted from "
                        f"1?{tail}: "
                        + describe("answer_by_position"))


def _raise_if_computed_letter(value: str, what: str, tail: str, key: str | None) -> None:
    """answer_computed_by_code: a wrong letter that the notebook's code worked out (its last binding is a call, a
    condition, an if/else...: source_checks.computed_answer), read off the source of the test being run. The
    letter says what the computation picked, not what the student believes: the wrong option's belief is not
    said as the student's (a probe that measures the wrong thing told "you think attention is an argmax" was a
    mis-name), only as what the option stands for, where it has a key."""
    from autograder.grading.source_checks import computed_answer, uncalled_actions
    cells = _answer_cells(what)
    shown = computed_answer(cells, what) if cells is not None else None
    if cells is not None and shown is not None:
        letter = value.strip().strip("()").strip().upper()
        stands = f" (option {letter} stands for {describe(key)})" if key else ""
        uncalled = uncalled_actions(cells, what)        # in the cell that works the letter out
        if uncalled:
            # the probe's action named and never called (`_out.sum().backward`): what the computation missed
            raise Misconception("callable_not_called", f"{what} is {value.strip()!r}, the letter your code worked out "
                                f"(`{shown}`), and it is not the best answer{stands}: the line `{uncalled[0]}` names "
                                "the method without calling it, so it does nothing: "
                                + describe("callable_not_called"))
        raise Misconception("answer_computed_by_code", f"{what} is {value.strip()!r}, the letter your code worked "
                            f"out (`{shown}`), and it is not the best answer{stands}{tail}"
                            f"{_strip_of_prefix(cells, what, value)}: " + describe("answer_computed_by_code"))


def raise_if_answer_copied(submission: object, name: str, value: object, right: Callable[[object], bool]) -> None:
    """answer_copied_from_other_question where `name`'s value is wrong (`right` says it is not) and the notebook's
    last binding of it is another name alone (`q7_answer = q6_answer`): the copy, read off the source, is the
    slip; its letter is another question's. Nothing where the copied value happens to be right."""
    from autograder.grading.source_checks import cells_of, copied_from
    if right(value):
        return
    other = copied_from(cells_of(submission), name)
    if other is not None:
        shown, other = repr(value)[:60], other[:60]      # the student's text, cut as every answer check cuts it
        raise Misconception("answer_copied_from_other_question", f"{name} is {shown}, copied from `{other}` "
                            f"(the notebook has `{name} = {other}`): " + describe("answer_copied_from_other_question"))


def _raise_if_value_not_letter(value: object, what: str) -> None:
    """A multiple-choice answer that is a value, not text: a number (an int no option's number reads), True or
    False, a tensor, or a tuple or list of values (shapes written out). Its type is the evidence; a string, a
    container holding one letter and an option's number are said by the checks before this one."""
    import numbers
    if isinstance(value, bool):
        kind = "a truth value"
    elif isinstance(value, numbers.Number) or type(value) is torch.Tensor:
        kind = "a number" if not (type(value) is torch.Tensor and value.numel() != 1) else "a tensor"
    elif (isinstance(value, (tuple, list)) and type(value) in (tuple, list) and value
          and not all(type(v) is str and len(v.strip()) <= 1 for v in value)):
        kind = f"a {type(value).__name__} of {len(value)} value{'s' if len(value) != 1 else ''}"
    else:
        return
    shown = _shown(value)
    raise Misconception("answer_value_not_letter", f"{what} is {shown}, {kind}, not a letter: "
                        + describe("answer_value_not_letter"))


# several letters joined by words or punctuation ("A or D", "b/c", "A, B")
_HEDGE_JOINERS = re.compile(r"\b(?:or|and|maybe|either|probably)\b|[\s,/|&;+]+", re.IGNORECASE)
# one letter with punctuation, brackets or Markdown emphasis around it ("C.", "'C'", "[C]", "**A.**"), nothing else
_LETTER_IN_PUNCTUATION = re.compile(r"^\s*[(\[{<$\"'`*_]*\s*([A-Za-z])\s*[)\]}>$\"'`.:,;!*_]*\s*$")   # "C.", "(C)", "$C$" (LaTeX)
# a word naming the choice before its letter ("Option C", "Answer: B", "choice (d)"), nothing after
_LETTER_AFTER_A_LABEL = re.compile(r"^\s*(?:the\s+)?(?:option|answer|choice|letter)\s*[:#.=-]?\s*[(\[\"'`*_]*"
                                   r"\s*([A-Za-z])\s*[)\]\"'`.:,;!*_]*\s*$", re.IGNORECASE)
# an option written out: its letter, then ")", ".", ":", "-" or a bracketed gloss, then words ("C. because ...")
_LETTER_WRITTEN_OUT = re.compile(r"^\s*[(\[\"'`]*([A-Za-z])(?:[)\]\"'`.:]|\s*-|\s+\()\s*\S")
# a letter, then a comment typed inside the quotes ("d  # only when ..."): the `#` is part of the string
_LETTER_THEN_COMMENT = re.compile(r"^\s*[(\[\"'`]*([A-Za-z])[)\]\"'`.:]?\s*#")


def _raise_if_option_marks(value: object, what: str, answer: str, letters: Sequence[str]) -> None:
    """answer_as_option_marks: a dict whose keys are the options' letters and whose values are true or false marks
    (bools, 0/1), as a multiple-select form has it. The letters it marks true are said, and whether the one it marks
    is the best answer; nothing is said of why an option was marked (a mark is no reason)."""
    if type(value) is not dict or not value or len(value) > len(letters):
        return
    marks: dict[str, bool] = {}
    for k, v in value.items():
        if not (isinstance(k, str) and k.strip().strip("()").strip().lower() in letters
                and (isinstance(v, bool) or (type(v) is int and v in (0, 1)))):
            return
        marks[k.strip().strip("()").strip().lower()] = bool(v)
    chosen = sorted(k for k, v in marks.items() if v)
    if len(chosen) == 1:
        verdict = ("that is the best answer" if chosen[0] == answer else "and it is not the best answer")
        told = f"it marks {chosen[0]!r} alone ({verdict}): write {what} = {chosen[0]!r}"
    else:
        told = (f"it marks {len(chosen)} options ({', '.join(map(repr, chosen))})" if chosen
                else "it marks no option") + ", and the question asks for one letter"
    raise Misconception("answer_as_option_marks", f"{what} is a dict of true/false marks, one per option, not a "
                        f"letter; {told}: " + describe("answer_as_option_marks"))


def _raise_if_answer_form(value: object, what: str, answer: str, letters: Sequence[str], wrong: Mapping[str, str],
                          bare_letter_only: bool) -> None:
    """A multiple-choice answer whose form is the mistake: a letter in a one-element tuple or list
    (answer_in_container), several letters (answer_hedged), one letter with punctuation or the option's words
    around it (answer_extra_characters). A written-out wrong letter names that choice's key where it has one:
    the choice is the bigger mistake. A bare letter, in any case, passes on to the letter's own check."""
    _raise_if_option_marks(value, what, answer, letters)
    only = _only_member(value)
    if type(only) is str and only.strip().strip("()").strip().lower() in letters:
        kind = type(value).__name__
        shown = _shown(value)
        raise Misconception("answer_in_container", f"{what} is {shown}, a {kind} holding a letter"
                            + _CONTAINER_MADE_BY.get(kind, "") + ": " + describe("answer_in_container"))
    text_array = _text_array(value)
    if (text_array is not None and text_array.size == 1
            and str(text_array.item()).strip().strip("()").strip().lower() in letters):
        # `opts[opts == "C"]` or np.where(...) leaves array(['C']): the letter is in it, the answer is not a string
        shown = _shown(value)
        raise Misconception("answer_in_container", f"{what} is {shown}, a NumPy array holding a letter (take it "
                            f"out: {what} = str(arr.item())): " + describe("answer_in_container"))
    if not isinstance(value, str) or len(value) > 400:
        return
    bare = value.strip().lower() if bare_letter_only else value.strip().strip("()").strip().lower()
    if bare in letters:
        return
    _raise_if_lookalike(value, what, letters)
    _raise_if_invisible(value, what, letters)
    said = _HEDGE_JOINERS.sub(" ", value.replace("(", " ").replace(")", " ")).split()
    if len(said) >= 2 and all(t.lower() in letters for t in said) and len({t.lower() for t in said}) >= 2:
        raise Misconception("answer_hedged", f"{what} is {value!r}, {len({t.lower() for t in said})} letters: "
                            + describe("answer_hedged"))
    run = value.strip().lower()
    if 2 <= len(run) <= len(letters) and all(c in letters for c in run) and len(set(run)) == len(run):
        # "cd": two letters run together, as a missing comma makes them (["c" "d"] is ["cd"]) (blind46)
        raise Misconception("answer_hedged", f"{what} is {value.strip()!r}, {len(run)} letters run together (written "
                            "so, or two strings with no comma between them, which Python joins: \"c\" \"d\" is "
                            "\"cd\"): " + describe("answer_hedged"))
    short = _LETTER_IN_PUNCTUATION.match(value) or _LETTER_AFTER_A_LABEL.match(value)
    if short and short.group(1).lower() in letters:
        raise Misconception("answer_extra_characters", f"{what} is {value!r}: it has characters besides the "
                            f"letter, which seems to be {short.group(1)!r}: " + describe("answer_extra_characters"))
    comment = _LETTER_THEN_COMMENT.match(value)
    if comment and comment.group(1).lower() in letters:
        letter = comment.group(1)
        told = (f"{what} is {_cut(value.strip())!r}: a `#` comment typed inside the quotes is part of the string; "
                f"close the quotes after the letter and comment after them ({what} = {letter!r}  # ...)")
        if letter.lower() != answer:      # the letter is the bigger mistake, as for an option written out
            key = wrong.get(letter.lower())
            if key:
                raise Misconception(key, f"{told}; and {letter} is not the best answer: that choice reflects "
                                    f"{describe(key)}")
            raise AssertionError(f"{told}; and {letter} is not the best answer")
        raise Misconception("answer_extra_characters", f"{told}: " + describe("answer_extra_characters"))
    long = _LETTER_WRITTEN_OUT.match(value)
    if long is None or long.group(1).lower() not in letters:
        words = re.findall(r"[A-Za-z]+", value)
        # a one-letter word that may be the choice: any but an "a" inside a sentence (the article)
        letter_words = [w for i, w in enumerate(words) if len(w) == 1 and w.lower() in letters
                        and not (w == "a" and i > 0)]
        if len(words) >= 2 and not letter_words:
            shown = _cut(value.strip())
            raise Misconception("answer_in_words", f"{what} is {shown!r}, words and no letter: "
                                + describe("answer_in_words"))
        return
    letter = long.group(1)
    shown = _cut(value.strip())
    if letter.lower() == answer:
        raise Misconception("answer_extra_characters", f"{what} is {shown!r}: it starts with {letter}, the right "
                            f"choice, and goes on with words: " + describe("answer_extra_characters"))
    key = wrong.get(letter.lower())
    if key:
        raise Misconception(key, f"{what} is {shown!r}: it starts with {letter}, which is not the best answer: that "
                            f"choice reflects {describe(key)}; answer with one letter only")
    raise AssertionError(f"{what} is {shown!r}: it starts with {letter}, which is not the best answer; answer with "
                         "one letter only")


# letters of other alphabets drawn like a Latin A-E (Cyrillic, Greek); full-width letters fold to Latin under NFKC
_LOOKALIKES = str.maketrans("АВСЕасеΑΒΕ", "ABCEaceABE")


def _raise_if_lookalike(value: str, what: str, letters: Sequence[str]) -> None:
    """One letter that is not ASCII but reads as a choice's Latin letter: answer_lookalike_letter, with the
    character's Unicode name (the student cannot see the difference)."""
    text = value.strip().strip("()").strip()
    if len(text) != 1 or text.isascii():
        return
    latin = unicodedata.normalize("NFKC", text).translate(_LOOKALIKES)
    if latin.isascii() and latin.lower() in letters:
        name = unicodedata.name(text, "an unnamed character")
        raise Misconception("answer_lookalike_letter", f"{what} is {text!r}, which looks like {latin!r} but is "
                            f"{name} (U+{ord(text):04X}): " + describe("answer_lookalike_letter"))


def _text_array(value: object) -> Any:
    """`value` if it is a NumPy array of text (it crosses the sandbox as one: protocol.encode_value), else None."""
    import numpy as np
    return value if isinstance(value, np.ndarray) and value.dtype.kind == "U" else None


def _raise_if_invisible(value: str, what: str, letters: Sequence[str]) -> None:
    """A letter with characters no one sees pasted with it (a zero-width space, a byte-order mark, a soft
    hyphen: Unicode's format characters, which .strip() keeps): answer_invisible_character, naming each."""
    hidden = [c for c in value if unicodedata.category(c) == "Cf"]
    if not hidden:
        return
    seen = "".join(c for c in value if unicodedata.category(c) != "Cf").strip().strip("()").strip()
    if seen.lower() not in letters:
        return
    names = ", ".join(dict.fromkeys(f"{unicodedata.name(c, 'an unnamed character')} (U+{ord(c):04X})"
                                    for c in hidden))
    shown = _shown(value)
    raise Misconception("answer_invisible_character", f"{what} is {shown}: the letter {seen!r} with "
                        f"{len(hidden)} invisible character{'s' if len(hidden) != 1 else ''} ({names[:120]}): "
                        + describe("answer_invisible_character"))


def _raise_if_option_number(value: object, what: str, choices: Sequence[str]) -> None:
    """A multiple-choice answer given as the option's number (an int, or a string of digits): which letter
    it is counted from 1 and from 0 is said, the right letter is not."""
    text = value.strip().strip("()").strip() if isinstance(value, str) else None
    if isinstance(value, int) and not isinstance(value, bool):
        n = value
    elif (text is not None and text.isdecimal() and len(text) <= 40
          and text.lower() not in [c.lower() for c in choices]):
        # isdecimal, not isdigit: int() refuses a superscript or circled digit ('²', '①'), and a string past 4300 digits
        # (red-team round 86); an option's number is a few digits
        n = int(text)
    else:
        return
    read = [f"counted from {base} it is {choices[n - base]!r}" for base in (1, 0) if 0 <= n - base < len(choices)]
    if read and isinstance(value, int):
        from autograder.grading.source_checks import computed_answer
        cells = _answer_cells(what)
        worked = computed_answer(cells, what) if cells is not None else None
        if worked is not None:
            # a number the code worked out (`max(hits.values())`: a count, blind47's q7) is not known to be an
            # option's number: said as what it is, a number where a letter is asked
            raise Misconception("answer_value_not_letter", f"{what} is {value!r}, a number your code worked out "
                                f"(`{worked}`), not a letter: " + describe("answer_value_not_letter"))
    if read:
        raise Misconception("answer_option_number", f"{what} is {value!r}, an option's number ({'; '.join(read)}): "
                            + describe("answer_option_number"))


# torch's own NotImplementedError ("bitwise_xor_cpu" not implemented for 'Float', an operator with no kernel for
# this dtype or device) is a crash of written code, not a stub left as given
_TORCH_NOT_IMPLEMENTED = re.compile(r"not implemented for '|Could not run '|\baten::|not currently implemented for")


def is_stub(e: StudentCodeError) -> bool:
    """The student's function still raises NotImplementedError as a stub does (not torch's own for a dtype)."""
    return e.exc_type == "NotImplementedError" and not _TORCH_NOT_IMPLEMENTED.search(e.message or "")


def call(fn: Callable[..., Any], *args: Any, what: str = "your function", check_inputs: bool = True,
         **kwargs: Any) -> Any:
    """Call the student's function (a proxy). A stub that still raises NotImplementedError is "not
    answered yet"; a forbidden API refused by the sandbox names `forbidden_api`; any other error of
    the student's code propagates (StudentCodeError: its type and first line). A call that changed one
    of its tensor inputs in place names `inplace_on_input` (unless `check_inputs` is False: a rule
    test that checks something else)."""
    try:
        out = fn(*args, **kwargs)
    except StudentCodeError as e:
        if is_stub(e):
            raise _unanswered(what) from None
        if e.exc_type == "ForbiddenAPIError":
            raise Misconception("forbidden_api", f"{what} called an API this assignment forbids: {e.message}") from None
        raise callable_not_called(e, what) or e from None
    if check_inputs:
        raise_if_inputs_changed(fn, what)
    return out


def raise_if_inputs_changed(fn: object, what: str = "your function") -> None:
    """The proxy's last call wrote into one of its tensor inputs (the worker compares each input with a
    copy taken before the call): the caller's tensor changed, which is wrong even when the returned
    values are right (a softmax done in place on the caller's scores)."""
    changed = getattr(fn, "last_changed_inputs", None)
    if isinstance(changed, list) and changed:
        names = ", ".join(str(n) for n in changed[:4])
        raise Misconception("inplace_on_input", f"{what} modifies its input in place ({names} is not the same "
                            "after the call): the caller's tensor changes; compute a new tensor instead "
                            "(x = x - m, not x -= m; masked_fill, not masked_fill_)")


def raise_if_wrong_default(fn: Callable[..., Any], args: Sequence[Any], defaults: Mapping[str, Any],
                           right: Callable[[Any], bool], what: str = "your function") -> None:
    """Name `default_argument_wrong` when a call that left arguments to their defaults failed and a second
    call passing the notebook's defaults (`defaults`) explicitly is `right`: the signature declares another
    default (causal=False for causal=True). Call it once a check has failed; a crash of the second call
    is no evidence, and so is a second call that answers what the call without them answers (a function
    whose default is the notebook's, wrong for another reason the looser `right` lets through)."""
    from autograder.grading.repair import same_answer
    try:
        out = fn(*args, **dict(defaults))
        plain = fn(*args)
    except Exception:  # noqa: BLE001 - no second value: nothing to name
        return
    if right(out) and not same_answer(plain, out):
        given = ", ".join(f"{k}={v!r}" for k, v in defaults.items())
        raise Misconception("default_argument_wrong", f"{what} is wrong when called without {given}, and right "
                            f"when {given} is passed explicitly: its default must be {given}, as in the "
                            "notebook's signature")


def raise_if_added_parameter_wrong(fn: Callable[..., Any], args: Sequence[Any], right: Callable[[Any], bool], *,
                                   submission: object = None, func_name: str, reference: Callable[..., Any],
                                   what: str = "your function", kwargs: Mapping[str, Any] | None = None) -> None:
    """Name `default_argument_wrong` when the student's `def func_name` takes a parameter the notebook's
    (`reference`'s) signature does not, with a plain default (scale=False, dim=0, d_k=4), and a second call giving
    it another plain value (None, True, False, -1, 0, 1, or for a number one of the input tensors' sizes) is
    `right`: the tests call the function as the notebook does, so that default decides the result. Call it once
    a check has failed, before a variant's name (d_k=4 on 4-D inputs is what a scale by sqrt(Q.dim()) gives);
    crashes are no evidence."""
    from autograder.grading.source_checks import SourceUnreadable, added_parameters, cells_of
    record = _CHARGES.get()
    if submission is None:      # the test's own, held for it by the runner
        submission = record.submission if record is not None else None
    if submission is None or getattr(reference, "__name__", "") != func_name:
        return      # no notebook to read, or a reference whose signature is not the notebook's function's
    if record is not None:      # once per test: a question's own hook and check_value's may both ask
        if func_name in record.added_checked:
            return
        record.added_checked.add(func_name)
    try:
        known = inspect.signature(reference).parameters
        extra = added_parameters(cells_of(submission), func_name, known)
    except (SourceUnreadable, ValueError, TypeError, RecursionError):
        return
    # a size parameter (d_k=4) is right at one of the inputs' own sizes
    sizes = list(dict.fromkeys(n for a in args if isinstance(a, torch.Tensor) for n in a.shape))[:8]
    calls = 0       # a slow function with many added parameters must not hold the grade: 12 calls at most
    for name, default in extra[:3]:
        number = isinstance(default, (int, float)) and not isinstance(default, bool)
        if isinstance(default, float) and 0 < abs(default) < 1e-2:
            continue    # an epsilon guard (eps=1e-5): 0 may be right on this input, but it is no fix (0 * log 0)
        for value in ((0, 1, -1, *sizes, None, True, False) if number else (None, True, False, -1, 0, 1)):
            if type(value) is type(default) and value == default:
                continue
            calls += 1
            if calls > 12:
                return
            try:
                out = fn(*args, **{**(kwargs or {}), name: value})
            except Exception:  # noqa: BLE001 - no second value: nothing to name
                continue
            if right(out):
                raise Misconception("default_argument_wrong", f"{what} is wrong with the parameter the notebook's "
                                    f"{func_name} does not have, {name}={ascii(default)[:40]}, left to its default, "
                                    f"and right with {name}={value!r}: the tests call {func_name} as the notebook "
                                    "does, so give it that default or drop the parameter: " + describe(
                                        "default_argument_wrong"))


def raise_if_return_missing(got: object, others: Mapping[str, Callable[[], Any]], right: Callable[[Any], bool],
                            what: str = "your function") -> None:
    """Name `return_missing_on_path` when `got` is None and a second call taking another path (each of
    `others`: how it differs, in words -> the call) returns a value that `right` accepts: the function has
    code that computes an answer, and one path drops it. A crash or a None of the second call is no
    evidence (a stub returns None on every path)."""
    if got is not None:
        return
    for said, again in others.items():
        try:
            out = again()
        except Exception:  # noqa: BLE001 - no second value: nothing to name
            continue
        if out is not None and right(out):
            raise Misconception("return_missing_on_path", f"{what} returns None, and a call {said} returns the "
                                "right value: a `return` is missing on the path this call takes: "
                                + describe("return_missing_on_path"))


def differs_when_repeated(fn: Callable[..., Any], args: Sequence[Any], kwargs: Mapping[str, Any],
                          first: object) -> bool:
    """Whether a second call of the student's `fn` on the same inputs gives something else than `first`:
    dropout or randomness left on. Without a first value (it crashed), or when the second call crashes,
    there is nothing to compare: False (never named from a crash)."""
    if first is None:
        return False
    try:
        again = fn(*args, **dict(kwargs))
    except Exception:  # noqa: BLE001 - no second value: no evidence of randomness
        return False
    return not _same_value(first, again)


def raise_if_nondeterministic(fn: Callable[..., Any], args: Sequence[Any], kwargs: Mapping[str, Any],
                              first: object, what: str = "your function") -> None:
    """Name `nondeterministic` when a second call on the same inputs does not give `first` again; call
    it once a check has failed, so that a deterministic function costs no extra call."""
    if differs_when_repeated(fn, args, kwargs, first):
        raise Misconception("nondeterministic", f"{what} gives different outputs for the same input: "
                            + randomness_fix(_student_name(fn)))


# What a function reaches that draws at random, by the fix each needs, in the order they are told: the same
# symptom (a second call differs) is an nn.Dropout module never put in eval mode, F.dropout's training default, a
# layer built inside the function with a fresh random init, or a draw of its own (blind83, blind67: a module's
# dropout and an nn.Linear's bias were told F.dropout's fix, `training=False`, which neither call takes).
@dataclass(frozen=True)
class _RandomSource:
    kind: str                  # "module", "functional", "layer" or "draw"
    words: tuple[str, ...]     # what find_use looks for (any attribute CONTAINING one, without case)
    # the name a use must end in: a draw's `operand.grand_total` or a float `self.dropout_p` is no draw and no
    # dropout (red-team round 143); a class (nn.Dropout, nn.Linear) only where capitalised, so that F.dropout is not
    # told a module's fix, nor the deterministic F.linear a layer's
    called: re.Pattern[str]
    fix: str


_RANDOM_SOURCES = (
    _RandomSource("module", ("Dropout",), re.compile(r"\w*Dropout\w*"),
                  "an nn.Dropout module, which drops weights at random until `.eval()` is called on it: call "
                  "`.eval()` on it or leave it out"),
    _RandomSource("functional", ("dropout",), re.compile(r"(?:feature_)?(?:alpha_)?dropout(?:[123]d)?_?"),
                  "dropout, which trains by default (F.dropout's training=True): pass training=False or leave "
                  "it out"),
    _RandomSource("layer", ("Linear", "Bilinear", "Conv1d", "Conv2d", "Embedding"),
                  re.compile(r"Linear|Bilinear|Conv1d|Conv2d|Embedding"),
                  "a layer built on every call, which starts from new random weights (and bias) each time: build "
                  "it once, outside the function, or leave it out"),
    _RandomSource("draw", ("rand", "bernoulli", "multinomial", "normal_", "uniform_", "shuffle", "choice",
                           "permutation"),
                  re.compile(r"rand\w*|bernoulli_?|multinomial|normal_|uniform_|shuffle|choices?|permutation",
                             re.IGNORECASE),
                  "random numbers drawn on every call: draw them once, from a generator passed in, or leave them "
                  "out"),
)
RANDOMNESS_LEFT_ON = ("dropout or randomness left on (F.dropout trains by default: pass training=False; an "
                      "nn.Dropout module until `.eval()`; or leave it out)")


def _called_name(what: str) -> str:
    """The last name in a Use's `what` ("`torch.nn.Linear`", "`torch.rand` (imported as `r`)", "getattr(...,
    'rand')"): the attribute or function reached."""
    names = re.findall(r"[A-Za-z_]\w*", what.split(" (imported")[0].split(" (a `*`")[0])
    return names[-1] if names else ""


def _built_once(cells: Sequence[str], via: tuple[str, ...]) -> bool:
    """A layer reached through a name the notebook binds to a value (`proj = nn.Linear(4, 4)` at cell level, an
    attribute stored into): built once, when that line ran, not on every call (red-team round 143: told "build it
    once" of a layer that is). A layer in the function itself, or in a def or class it calls, is built by the call."""
    from autograder.grading.source_checks import bound_to_value
    if not via:
        return False
    return not via[-1].isidentifier() or bound_to_value(cells, via[-1])


def _dropout_modules(cells: Sequence[str], what: str, first: bool = False,
                     via: tuple[str, ...] = ()) -> list[ast.Call] | None:
    """The nn.Dropout constructions stored into the attribute a Use names (`self.dropout = nn.Dropout(p)`, called
    as `self.dropout(x)`): a module's call, told `.eval()`, not F.dropout's keyword (red-team round 143: the
    commonest module spelling was told `training=False`, which its call does not take). None: no such store.
    `first`: the first found only (is there one). `via`: the use's path; where it ends in a class that stores
    into the attribute itself, only that class's stores (red-team round 144: another class's nn.Dropout(0.5) in an
    attribute of the same name hid the rate 0 of the one called)."""
    from autograder.grading.source_checks import class_stores, imported_names, stored_values
    if not what.startswith("`") or "." not in what.split("`")[1]:
        return None
    if imported_names(cells, what.split("`")[1].split(".")[0]):
        return None     # `torch.nn.functional.dropout`, `F.dropout`: a module's function, not a stored module
    values = (class_stores(cells, via[-1], _called_name(what)) if via and via[-1].isidentifier() else None) or \
        stored_values(cells, _called_name(what))
    nodes = (n for value in values for n in itertools.islice(ast.walk(value), 2000))
    found = (n for n in itertools.islice(nodes, 20000)    # red-team round 144: every store of a name, bounded
             if isinstance(n, ast.Call) and _RANDOM_SOURCES[0].called.fullmatch(_func_name(n)))
    return list(itertools.islice(found, 1 if first else None)) or None


def _root_name(node: ast.expr) -> str:
    """The name an attribute chain starts from (`self` of `self.drop.p`), "" where it starts elsewhere (a call)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _func_name(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _constant(node: ast.AST | None) -> object:
    """A literal's value, through `-`, `+` and `not` (`training=not True`, `p=-0.0`); ... where none."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub, ast.UAdd)):
        inner = _constant(node.operand)
        if isinstance(inner, (bool, int, float)):
            return not inner if isinstance(node.op, ast.Not) else -inner if isinstance(node.op, ast.USub) else +inner
        return ...
    return node.value if isinstance(node, ast.Constant) else ...


def _off(value: object) -> bool:
    """A literal that switches a flag off: False, 0, 0.0 (`training=0`), not None (no flag: an error)."""
    return isinstance(value, (bool, int, float)) and not value


def _positional(call: ast.Call, index: int) -> ast.expr | None:
    """The call's `index`-th positional argument, where no `*args` before it hides which it is."""
    if len(call.args) <= index or any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
        return None
    return call.args[index]


def _no_dropout(call: ast.Call, flag: str = "training") -> bool:
    """A dropout call or module its own arguments show harmless: `F.dropout(x, p, training=False)` (`train=False`
    for torch.dropout, `flag`), a rate of 0."""
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    module = _func_name(call)[:1].isupper()
    rate = kw.get("p", _positional(call, 0 if module else 1))
    training = None if module else kw.get(flag, _positional(call, 2))
    return _constant(rate) in (0, 0.0) or _off(_constant(training))


def _follows_training_flag(call: ast.Call, flag: str = "training") -> bool:
    """`F.dropout(x, p, training=self.training)`: on while its module trains, off once `.eval()` is called."""
    training = {k.arg: k.value for k in call.keywords if k.arg}.get(flag, _positional(call, 2))
    return isinstance(training, ast.Attribute) and training.attr == "training"


def _torch_function(cells: Sequence[str], f: ast.expr, depth: int = 0) -> str | None:
    """The dotted torch function a callee names (`F.dropout`, `torch.dropout`, a `from torch.nn.functional import
    dropout as d`, a cell-level `drop = F.dropout`), or None where the notebook's own code may stand behind it.
    An attribute whose root is not a name bound to torch counts as its attribute's name (as before: a method of
    the notebook's own is walked through its root name all the same)."""
    from autograder.grading.source_checks import bound_values, imported_names
    if depth > 4:
        return None
    if isinstance(f, ast.Attribute):
        parts = [f.attr]
        base = f.value
        while isinstance(base, ast.Attribute):
            parts.append(base.attr)
            base = base.value
        if isinstance(base, ast.Name):
            modules = imported_names(cells, base.id)
            if modules:
                return ".".join([sorted(modules)[0], *reversed(parts)])
        return f.attr
    if isinstance(f, ast.Name):
        names = imported_names(cells, f.id)
        if names:
            torch_names = [n for n in names if n.split(".")[0] == "torch"]
            return torch_names[0] if len(torch_names) == len(names) else None
        values = bound_values(cells, f.id)
        reached = {_torch_function(cells, v, depth + 1) if isinstance(v, (ast.Name, ast.Attribute)) else None
                   for v in values}
        return reached.pop() if len(reached) == 1 else None
    return None


def _dropout_flag(function: str) -> str:
    """torch.dropout (and torch.alpha_dropout, torch.feature_dropout) take `train`, F.dropout `training`."""
    return "train" if re.fullmatch(r"torch\.(?:feature_)?(?:alpha_)?dropout_?", function) else "training"


def _functional_dropouts(cells: Sequence[str]) -> tuple[set[int], set[int]]:
    """The func nodes of the notebook's torch dropout calls whose arguments switch them off (training=False, p=0),
    for find_use's `skip`: beside a real draw they are no cause (red-team round 143 left this: the read told the
    first dropout found, not its arguments); and of those that follow a module's flag (training=self.training).
    A bare name counts only where it is torch's (imported from it, or bound at cell level to it: red-team round
    144, `drop = F.dropout` then `drop(x, 0.5, training=False)` was told beside a real draw)."""
    from autograder.grading.source_checks import notebook_calls
    functional = _RANDOM_SOURCES[1].called
    harmless: set[int] = set()
    flagged: set[int] = set()
    reaches: dict[tuple[str, str], str | None] = {}    # one read per callee's root and name, not per call
    for call in notebook_calls(cells):
        f = call.func
        if isinstance(f, ast.Attribute) and functional.fullmatch(f.attr):
            key = (_root_name(f.value), f.attr)
        elif isinstance(f, ast.Name):
            key = (f.id, "")
        else:
            continue
        if key not in reaches:
            reaches[key] = _torch_function(cells, f)
        reached = reaches[key]
        if reached is None or not functional.fullmatch(reached.rsplit(".", 1)[-1]):
            continue
        if isinstance(f, ast.Name) and reached.split(".")[0] != "torch":
            continue
        flag = _dropout_flag(reached)
        if _no_dropout(call, flag):
            harmless.add(id(f))
        elif _follows_training_flag(call, flag):
            flagged.add(id(f))
    return harmless, flagged


def _module_calls(cells: Sequence[str]) -> set[int]:
    """The func nodes of calls through an attribute that holds an nn.Dropout module (`self.dropout(x)`). One read
    per attribute name and root (red-team round 144: one per call cost 70 s on a 270 KB notebook of 1,500
    modules, each reading every store of its name)."""
    from autograder.grading.source_checks import notebook_calls
    held: dict[tuple[str, str], bool] = {}
    found: set[int] = set()
    for c in notebook_calls(cells):
        if not isinstance(c.func, ast.Attribute) or "dropout" not in c.func.attr.lower():
            continue     # find_use matches no other name, so no other needs skipping
        key = (_root_name(c.func.value), c.func.attr)
        if key not in held:
            held[key] = _dropout_modules(cells, f"`{key[0] or '_'}.{key[1]}`", first=True) is not None
        if held[key]:
            found.add(id(c.func))
    return found


def _evaluates(cells: Sequence[str]) -> bool:
    """The notebook calls `.eval()`, `.train(False)` / `.train(mode=False)`, or stores `.training = False`
    somewhere (red-team round 144: the two last were read as a module left training)."""
    from autograder.grading.source_checks import notebook_calls, stored_values
    for c in notebook_calls(cells):
        if not isinstance(c.func, ast.Attribute):
            continue
        if c.func.attr == "eval" and not c.args and not c.keywords:
            return True
        mode = c.args[0] if c.args else {k.arg: k.value for k in c.keywords}.get("mode")
        if c.func.attr == "train" and _off(_constant(mode)):
            return True
    return any(_off(_constant(v)) for v in stored_values(cells, "training"))


def _may_be_evaluated(cells: Sequence[str], modules: list[ast.Call] | None) -> bool:
    """Dropout modules all built with rate 0 (those stored where the use reads, else every one the notebook
    builds), or a notebook that puts something in eval mode somewhere: the module may draw nothing when graded,
    so a draw found elsewhere is told first."""
    from autograder.grading.source_checks import notebook_calls
    built = modules or [c for c in notebook_calls(cells) if _RANDOM_SOURCES[0].called.fullmatch(_func_name(c))]
    if built and all(_no_dropout(m) for m in built):
        return True
    return _evaluates(cells)


def _use_said(use: Any) -> str:
    """A Use's describe(), each name it quotes cut to 40 characters and its path to four steps (red-team round
    144: a 400-character class or import alias, the student's own name, was quoted whole)."""
    via = [_cut(v, 40) for v in use.via]
    if len(via) > 4:
        via = [*via[:2], "...", via[-1]]
    path = f" through {' -> '.join(v if v == '...' else f'`{v}`' for v in via)}" if via else ""
    what = re.sub(r"`([^`]{41,})`", lambda m: f"`{_cut(m.group(1), 40)}`", use.what)
    return f"`{use.function}` uses {_cut(what, 160)}{path}"


_FLAGGED_FIX = ("dropout that follows its module's `training` flag (training=self.training), on until `.eval()` is "
                "called on the module: call `.eval()` on it, pass training=False, or leave it out")
_TORCH_DROPOUT_FIX = ("dropout, which torch.dropout applies while its `train` argument is True: pass train=False or "
                      "leave it out")


def randomness_fix(function: str | None) -> str:
    """The cause and fix of a function that differs from itself on the same input, read from what the running
    notebook's `function` reaches (source_checks.find_use); the generic RANDOMNESS_LEFT_ON where the source shows
    none, or cannot be read. A dropout its arguments switch off is passed over; a dropout module the notebook may
    have put in eval mode is told only where nothing else draws."""
    from autograder.grading.source_checks import cells_of, find_use
    submission = running_submission()
    if function is None or submission is None:
        return RANDOMNESS_LEFT_ON
    deferred: str | None = None
    try:
        cells = cells_of(submission)
        harmless, flagged = _functional_dropouts(cells)
        for source in _RANDOM_SOURCES:
            # `self.dropout(x)` holding an nn.Dropout is the module's (told by its tier, or deferred), not F.dropout's
            skip = harmless | _module_calls(cells) if source.kind == "functional" else harmless
            use = find_use(cells, function, source.words, skip | flagged if source.kind == "functional" else skip)
            fix = source.fix
            if use is None and source.kind == "functional" and flagged:
                # only a dropout that follows its module's flag (training=self.training): off once in eval mode
                use = find_use(cells, function, source.words, skip)
                fix = _FLAGGED_FIX
                if use is not None and _evaluates(cells):
                    deferred = deferred or f"{_use_said(use)}: {fix}"
                    continue
            if use is None:
                continue
            dotted = use.what.split("`")[1] if use.what.startswith("`") else ""
            if source.kind == "functional" and fix is source.fix and _dropout_flag(dotted) == "train":
                fix = _TORCH_DROPOUT_FIX
            told = f"{_use_said(use)}: {fix}"
            modules = _dropout_modules(cells, use.what, via=use.via) if source.kind == "module" else None
            if modules is None and not source.called.fullmatch(_called_name(use.what)):
                continue
            if source.kind in ("layer", "draw") and _built_once(cells, use.via):   # a module built once still drops
                continue
            if source.kind == "module" and _may_be_evaluated(cells, modules):
                deferred = deferred or told
                continue
            return told
    except Exception:  # noqa: BLE001 - unreadable source shows no cause: the generic text
        pass
    return deferred or RANDOMNESS_LEFT_ON


def raise_if_other_container(got: object, expected: torch.Tensor, what: str = "the result",
                             dtype: torch.dtype | None = None, rtol: float | None = None,
                             atol: float | None = None, reduced: bool = True) -> None:
    """The right values in another container: a NumPy array where a tensor is asked
    (`returns_numpy_not_tensor`, compared whatever its dtype), or a tensor whose shape differs from
    `expected`'s only by size-1 axes (`keepdim_left_on` with more axes, `size_one_axis_dropped` with
    fewer), named only when squeezing both gives the right values. `reduced=False`: the function reduces
    no axis of its input (a mask built from T, a projection), so more size-1 axes cannot be a kept reduced
    axis: they are `size_one_axes_added` (nanoGPT's (1, 1, T, T) buffer)."""
    dtype = dtype or expected.dtype
    if type(got).__module__ == "numpy" and type(got).__name__ == "ndarray":
        try:
            t = torch.from_numpy(got).to(torch.float64)
        except (TypeError, RuntimeError):
            return
        if tuple(t.shape) == tuple(expected.shape) and _close(t, expected.to(torch.float64), dtype, rtol, atol,
                                                              equal_nan=True):
            raise Misconception("returns_numpy_not_tensor", f"{what} is a NumPy array with the right values, not a "
                                "torch tensor: " + describe("returns_numpy_not_tensor"))
        return
    # isinstance for the type checker; the exact type, so that a subclass's __len__/__iter__ never runs
    if isinstance(got, (list, tuple)) and type(got) in (list, tuple) and expected.dim() > 0 \
            and len(got) == expected.shape[0]:
        try:     # nested plain numbers only (torch.tensor refuses anything else); as large as the reply was
            t = torch.tensor(got, dtype=torch.float64)
        except (TypeError, ValueError, RuntimeError, OverflowError):
            return
        if tuple(t.shape) == tuple(expected.shape) and _close(t, expected.to(torch.float64), torch.float64, rtol,
                                                              atol, equal_nan=True):
            raise Misconception("returns_list_not_tensor", f"{what} is a Python {type(got).__name__} with the right "
                                "values, not a torch tensor: " + describe("returns_list_not_tensor"))
        return
    if type(got) is not torch.Tensor or tuple(got.shape) == tuple(expected.shape) or got.dim() == expected.dim():
        return
    squeezed = [s for s in got.shape if s != 1], [s for s in expected.shape if s != 1]
    if squeezed[0] != squeezed[1] and got.dtype == dtype:
        merged = merged_axes(tuple(got.shape), tuple(expected.shape))
        if merged and _close(got.reshape(expected.shape), expected, dtype, rtol, atol, equal_nan=True):
            groups = ", ".join(f"axes {a}-{b - 1} ({' x '.join(str(n) for n in expected.shape[a:b])})"
                               for a, b in merged)
            raise Misconception("axes_flattened", f"{what} has shape {tuple(got.shape)}, expected "
                                f"{tuple(expected.shape)}, and its values are right, in order, with {groups} merged "
                                "into one: " + describe("axes_flattened"))
    if squeezed[0] != squeezed[1] or got.dtype != dtype:
        return
    if _close(got.reshape(expected.shape), expected, dtype, rtol, atol, equal_nan=True):
        key = "keepdim_left_on" if got.dim() > expected.dim() else "size_one_axis_dropped"
        if got.dim() > expected.dim() and not reduced:
            key = "size_one_axes_added"
        where = f" with {got.dim() - expected.dim()} leading size-1 axes added" if key == "size_one_axes_added" \
            and tuple(got.shape[got.dim() - expected.dim():]) == tuple(expected.shape) else ""
        raise Misconception(key, f"{what} has shape {tuple(got.shape)}, expected {tuple(expected.shape)}, and its "
                            f"values are right{where}: " + describe(key))


def merged_axes(got: tuple[int, ...], want: tuple[int, ...]) -> list[tuple[int, int]]:
    """The runs of `want`'s axes [a, b) that `got` holds as one axis each, when `got` is exactly `want` with some
    neighbouring axes merged (a .view(-1) or .flatten()): (14,) of (2, 7) is [(0, 2)]; [] when it is not (another
    split of the same entries, or size-1 axes only dropped, which raise_if_other_container names on its own)."""
    runs: list[tuple[int, int]] = []
    i = 0
    for size in got:
        start, product = i, 1
        while i < len(want) and (product < size or i == start):
            product *= want[i]
            i += 1
        while i < len(want) and want[i] == 1 and product == size and i - start >= 1 and size != 1:
            i += 1        # trailing size-1 axes fold into the run they follow
        if product != size:
            return []
        if i - start > 1 and any(n != 1 for n in want[start:i]) and sum(n != 1 for n in want[start:i]) > 1:
            runs.append((start, i))
    return runs if i == len(want) and runs else []


def assert_plain_tensor(got: object, what: str = "the result") -> torch.Tensor:
    # Replies are rebuilt by the proxy, so a subclass cannot arrive; this check gives a clear message
    # when the student returned something that is not a tensor at all.
    if not_answered(got):
        raise _unanswered(what, got)
    if type(got) is not torch.Tensor:
        raise AssertionError(f"{what} should be a torch.Tensor, got {type(got).__name__}")
    return got


# --- values -------------------------------------------------------------------------------------------

def _tolerances(dtype: torch.dtype, rtol: float | None, atol: float | None) -> tuple[float, float]:
    """(rtol, atol): the dtype's, each replaced where given."""
    r, t = tolerances(dtype)
    return (r if rtol is None else rtol), (t if atol is None else atol)


def _close(a: torch.Tensor, b: torch.Tensor, dtype: torch.dtype, rtol: float | None = None,
           atol: float | None = None, equal_nan: bool = False) -> bool:
    if tuple(a.shape) != tuple(b.shape):
        return False
    r, t = _tolerances(dtype, rtol, atol)
    a64, b64 = a.detach().to(torch.float64), b.detach().to(torch.float64)
    return bool(torch.allclose(a64, b64, rtol=r, atol=t, equal_nan=equal_nan))


def matching_variants(got: torch.Tensor, variants: Mapping[str, torch.Tensor | None] | None,
                      dtype: torch.dtype, rtol: float | None = None, atol: float | None = None,
                      expected: torch.Tensor | None = None) -> list[str]:
    """The keys of the wrong variants `got` matches: same shape, close, NaN exactly where the variant
    has NaN. An output with no finite entry matches nothing: it holds no evidence of its own. With
    `expected` (the correct result), a variant that equals it on this input is dropped: that mistake
    does not show here, so nothing can be named after it (a float32 scale constant with d_k = 16)."""
    if not torch.isfinite(got).any():
        return []
    r, t = _tolerances(dtype, rtol, atol)
    # _close's test, with `got` and `expected` converted once: a wrong submission's diagnosis compares its
    # output with dozens of variants, and most differ from it, so the comparison with `expected` (the
    # second condition) is made only for a variant that matches
    got64 = got.detach().to(torch.float64)
    expected64 = None if expected is None else expected.detach().to(torch.float64)
    hits = []
    for key, wrong in (variants or {}).items():
        if not isinstance(wrong, torch.Tensor) or tuple(wrong.shape) != tuple(got.shape):
            continue
        wrong64 = wrong.detach().to(torch.float64)
        if not torch.allclose(got64, wrong64, rtol=r, atol=t, equal_nan=True):
            continue
        if (expected64 is not None and tuple(expected64.shape) == tuple(wrong64.shape)
                and torch.allclose(wrong64, expected64, rtol=r, atol=t, equal_nan=True)):
            continue
        hits.append(key)
    return hits


def name_from_rerun(out: object, expected: torch.Tensor, variants: Mapping[str, torch.Tensor | None] | None,
                    dtype: torch.dtype) -> str | None:
    """What a second call (on smaller or simpler inputs, after the first crashed) shows: the one mistake
    its output `out` matches, and only when `out` is not simply right (then the crash is the mistake
    itself, and no catalogued one explains it). None when nothing can be named."""
    if type(out) is not torch.Tensor or _close(out, expected, dtype, equal_nan=True):
        return None
    hits = {k.split("/")[0] for k in matching_variants(out, variants, dtype, expected=expected)}
    return hits.pop() if len(hits) == 1 else None


HALF = (torch.float16, torch.bfloat16)


def nearest_variant(got: torch.Tensor, expected: torch.Tensor,
                          variants: Mapping[str, torch.Tensor | None]) -> str | None:
    """In half precision a mistake that saturates the softmax (scores times d_k...) is rounded so
    differently from its float64 variant that no tolerance matches it; it is still named when the output
    is at least 5 times closer (mean absolute difference) to that variant than to the correct result,
    and twice closer than to any other variant."""
    g = got.detach().to(torch.float64)
    if not torch.isfinite(g).all():
        return None
    d_ref = float((g - expected.to(torch.float64)).abs().mean())
    dist = sorted((float((g - w.to(torch.float64)).abs().mean()), k) for k, w in variants.items()
                  if isinstance(w, torch.Tensor) and tuple(w.shape) == tuple(g.shape) and torch.isfinite(w).all())
    if not dist or dist[0][0] * 5 > d_ref or (len(dist) > 1 and dist[0][0] * 2 > dist[1][0]
                                               and dist[1][1].split("/")[0] != dist[0][1].split("/")[0]):
        return None
    return dist[0][1]


def raise_if_variant(got: torch.Tensor, variants: Mapping[str, torch.Tensor | None] | None, what: str,
                     dtype: torch.dtype, rtol: float | None = None, atol: float | None = None,
                     expected: torch.Tensor | None = None, nearest: bool = True) -> None:
    """Name the one wrong variant `got` matches. Two that match on this input (the test's shapes
    do not separate them) are both mentioned and neither is named. A variant called "key/detail" is
    one way of making the mistake `key` (scale_by_T/queries: dividing by sqrt(T_q)). In half
    precision, with `expected` given, a much nearer variant is named too (nearest_variant), unless
    `nearest` is False (an assignment that names half precision only from what equals a mistake's output)."""
    hits = list(dict.fromkeys(k.split("/")[0] for k in matching_variants(got, variants, dtype, rtol, atol,
                                                                           expected=expected)))
    if len(hits) == 1:
        raise Misconception(hits[0], f"{what} is wrong: it matches {describe(hits[0])}")
    if len(hits) > 1:
        raise AssertionError(f"{what} is wrong: on this input it matches each of "
                             + "; ".join(describe(k) for k in hits))
    if nearest and dtype in HALF and expected is not None and variants and tuple(got.shape) == tuple(expected.shape):
        near = nearest_variant(got, expected, variants)
        if near is not None:
            key = near.split("/")[0]
            raise Misconception(key, f"{what} is wrong: it is far closer to what {describe(key)} gives than "
                                     "to the correct result")


def what_differs(got: torch.Tensor, expected: torch.Tensor, what: str, dtype: torch.dtype,
                 rtol: float | None = None, atol: float | None = None) -> str:
    """Where and by how much `got` differs from `expected` (same shape), never the expected values."""
    r, t = tolerances(dtype)
    r, t = (r if rtol is None else rtol), (t if atol is None else atol)
    g, e = got.detach().to(torch.float64), expected.detach().to(torch.float64)
    total = e.numel()
    bad_g, bad_e = ~torch.isfinite(g), ~torch.isfinite(e)
    if (bad_g & ~bad_e).any():
        n = int((bad_g & ~bad_e).sum())
        first = tuple(int(i) for i in (bad_g & ~bad_e).nonzero()[0])
        part = triangle_of(bad_g & ~bad_e)
        return (f"{what} contains NaN or inf in {n} of {total} entries (the first at index {first}) "
                "where the correct result is finite" + (f": every one of them lies {part}" if part else ""))
    off = ~torch.isclose(g, e, rtol=r, atol=t, equal_nan=True)
    n = int(off.sum())
    diff = (g - e).abs().masked_fill(~off, 0.0).nan_to_num(0.0)
    worst = tuple(int(i) for i in (diff == diff.max()).nonzero()[0])
    size = float(e[torch.isfinite(e)].abs().mean()) if torch.isfinite(e).any() else float("nan")
    said = (f"{what} does not match the correct result in {n} of {total} entries (largest difference "
            f"{float(diff.max()):.3g} at index {worst}; the entries are about {size:.2g} in size)")
    shape = how_it_differs(g, e, r, t) or where_it_differs(off)
    return f"{said}: {shape}" if shape else said


def how_it_differs(got: torch.Tensor, expected: torch.Tensor, rtol: float, atol: float) -> str | None:
    """A whole-output pattern of a wrong result of the right shape, in words that name no expected
    value: a constant factor, the opposite sign, the last two axes swapped, each row's entries in
    another order. None when it shows none of them."""
    g, e = got.to(torch.float64), expected.to(torch.float64)
    if not (torch.isfinite(g).all() and torch.isfinite(e).all()) or g.numel() < 2:
        return None

    def close(a: torch.Tensor, b: torch.Tensor) -> bool:
        return a.shape == b.shape and bool(torch.allclose(a, b, rtol=rtol, atol=atol))

    if close(g, -e):
        return "it has the opposite sign everywhere (a sign flipped somewhere)"
    big = e.abs() > 1e-6 * max(float(e.abs().max()), 1e-300)
    if int(big.sum()) >= 2 and bool((g[~big].abs() <= atol).all()):
        ratios = g[big] / e[big]
        c = float(ratios.median())
        if math.isfinite(c) and abs(c) > 1e-12 and close(g, c * e):
            return f"it is the correct result times a constant: off by a constant factor x{c:.4g}"
    if g.dim() >= 2 and g.shape[-1] == g.shape[-2] and close(g, e.transpose(-2, -1)):
        return "it equals the correct result transposed (its last two axes swapped)"
    if g.dim() >= 2 and g.shape[-2] > 1 and close(g.sort(dim=-2).values, e.sort(dim=-2).values) \
            and not close(g.sort(dim=-1).values, e.sort(dim=-1).values):
        return "each column holds the right values in another order: rows (positions) permuted or shifted"
    if g.shape[-1] > 1 and close(g.sort(dim=-1).values, e.sort(dim=-1).values):
        return "each row holds the right values in another order (a permutation of the last axis)"
    return None


def where_it_differs(off: torch.Tensor) -> str | None:
    """Which part of the output is wrong, when only part of it is: the indices along each axis that
    hold every wrong entry (a row, a head, a position), e.g. 'all in index 2 of axis 1 (of 4)'."""
    if off.dim() == 0 or not off.any() or bool(off.all()):
        return None
    part = triangle_of(off)
    if part is not None:
        return f"the wrong entries all lie {part}, the rest is right"
    parts = []
    for axis in range(off.dim()):
        size = off.shape[axis]
        if size < 2:
            continue
        hit = off.transpose(0, axis).reshape(size, -1).any(dim=1)
        idx = [int(i) for i in hit.nonzero().flatten()]
        if len(idx) < size:
            shown = ", ".join(map(str, idx[:6])) + (", ..." if len(idx) > 6 else "")
            name = {off.dim() - 1: "the last axis", off.dim() - 2: "axis -2 (rows)"}.get(axis, f"axis {axis}")
            parts.append(f"index {shown} of {name} (size {size})")
    if not parts:
        return "wrong entries are spread over every row and column"
    return "the wrong entries all lie at " + "; ".join(parts[:3]) + ", the rest is right"


_TRIANGLES = (("above the diagonal (column > row: the part a causal mask blocks)", lambda i, j: j > i),
              ("below the diagonal (row > column)", lambda i, j: j < i),
              ("on the diagonal", lambda i, j: j == i),
              ("on or above the diagonal (column >= row)", lambda i, j: j >= i),
              ("on or below the diagonal (row >= column)", lambda i, j: j <= i))


def triangle_of(bad: torch.Tensor) -> str | None:
    """Where the flagged entries of a matrix (or a batch of them: every one alike) are exactly one triangle or the
    diagonal of the last two axes: "above the diagonal (...)". The part of an attention matrix a causal mask
    touches: a division by a masked matrix's zeros, a mask applied on the wrong side. None for any other pattern."""
    if bad.dim() < 2 or min(bad.shape[-2:]) < 2 or not bad.any():
        return None
    rows, cols = bad.shape[-2:]
    flat = bad.reshape(-1, rows, cols)
    i, j = torch.arange(rows)[:, None], torch.arange(cols)[None, :]
    for words, region_of in _TRIANGLES:
        region = region_of(i, j)
        if bool(region.any()) and not bool(region.all()) and bool((flat == region).all()):
            return words
    return None


Variants = Mapping[str, "torch.Tensor | None"]


def assert_matches(got: object, expected: torch.Tensor, *, what: str = "the output",
                   dtype: torch.dtype | None = None,
                   variants: Variants | Callable[[], Variants] | None = None,
                   rtol: float | None = None, atol: float | None = None, nearest: bool = True,
                   reduced: bool = True) -> None:
    """`got` must be a plain tensor of `expected`'s shape and dtype (or `dtype`) and close to it.

    `expected` may be computed in higher precision; it is compared in float64 with the tolerances of
    the dtype under test (or `rtol`/`atol`, justified where they are passed). On mismatch, each wrong
    variant is tried, whatever its shape (K Q^T has the transposed one): the one it matches raises
    Misconception; otherwise the message says what differs (dtype, shape, where, how much, and a
    pattern: a constant factor, a transposition, a part of the output). A tuple holding the right
    output (out, weights) is `returns_extra_values`; a float64 result right only to float32's
    precision, no catalogued variant matching, is `float32_precision`.

    `variants` may be given as a function of no arguments that returns them: it is called only when
    `got` is wrong (computing every variant was most of a right answer's grading time). `nearest=False`
    names a half-precision result only when it matches a variant, never for being merely nearer to one.
    `reduced=False`: the function reduces no axis (raise_if_other_container)."""
    def wrong() -> Variants | None:
        return variants() if callable(variants) else variants

    if isinstance(got, (tuple, list)) and got and all(type(x) is torch.Tensor for x in got):
        want = dtype or expected.dtype
        for i, part in enumerate(got):
            if part.dtype == want and (_close(part, expected, want, rtol, atol) or _near_in_half(part, expected)):
                raise Misconception("returns_extra_values", f"{what} is a tuple of {len(got)} tensors, and "
                                    f"its element {i} is the right output: return the output alone")
    if type(got) is not torch.Tensor:
        raise_if_other_container(got, expected, what, dtype, rtol, atol, reduced)
    t = assert_plain_tensor(got, what)
    dtype = dtype or expected.dtype
    if t.dtype != dtype:
        raise AssertionError(f"{what} has dtype {t.dtype}, expected {dtype} (the input's dtype)")
    if tuple(t.shape) != tuple(expected.shape):
        raise_if_variant(t, wrong(), what, dtype, rtol, atol)
        raise_if_other_container(t, expected, what, dtype, rtol, atol, reduced)   # a size-1 axis kept or dropped
        raise AssertionError(f"{what} has shape {tuple(t.shape)}, expected {tuple(expected.shape)}")
    if _close(t, expected, dtype, rtol, atol):
        return
    raise_if_variant(t, wrong(), what, dtype, rtol, atol, expected=expected, nearest=nearest)
    if dtype == torch.float64 and rtol is None and atol is None and _close(t, expected, torch.float32):
        worst = float((t.to(torch.float64) - expected.to(torch.float64)).abs().max())
        scaled = _slice_factors(t, expected)
        if scaled is not None:   # a factor per slice is systematic (an epsilon in a sum), never rounding
            axis, lo, hi = scaled
            raise AssertionError(f"{what} is the right result with each slice along axis {axis} multiplied by "
                                 f"its own factor slightly below 1 (between {lo:.9g} and {hi:.9g}): some sum "
                                 "is a little too large, e.g. a small constant added to a softmax's "
                                 "denominator, so its weights sum to slightly less than 1; divide by the sum "
                                 "alone")
        if worst > 1e-8 and not _floored(t, expected):   # an epsilon of 1e-9 or so stays below: not float32
            raise Misconception("float32_precision", f"{what} is right only to float32's precision (largest "
                                f"difference {worst:.2g}) for a float64 input: some step computes in float32 "
                                "(a float32 tensor or constant, or .float()); keep the input's dtype")
    raise_if_half_precision(t, expected, what, dtype, rtol, atol)
    raise AssertionError(what_differs(t, expected, what, dtype, rtol, atol))


def _floored(got: torch.Tensor, expected: torch.Tensor) -> bool:
    """`got` is `expected` raised to a floor f > 0 (x.clamp(min=1e-6)): every entry whose right value is below its
    smallest entry f equals f exactly. A floor, not float32 rounding (blind59's weights clamped above zero: the 1e-6
    on a blocked 0 looked like float32's precision); the caller says what differs instead."""
    g, e = got.detach().to(torch.float64), expected.detach().to(torch.float64)
    if g.numel() < 2 or not bool(torch.isfinite(g).all()):
        return False
    floor = float(g.min())
    low = e < floor * (1 - 1e-4)   # well below it: not a rounding of the smallest entry
    # a normal float32 number: float32's subnormals round coarsely enough to look floored
    return floor >= torch.finfo(torch.float32).tiny and bool(low.any()) and bool((g[low] == floor).all())


def raise_if_half_precision(got: torch.Tensor, expected: torch.Tensor, what: str, dtype: torch.dtype,
                            rtol: float | None, atol: float | None) -> None:
    """float16_precision: a float32 or float64 result, close to the right one only to float16's precision, whose
    every entry is a float16 number (what a product made in .half() and cast back gives: blind51's `weights.half() @
    V.half()`, told before as a one-edit fix of the wrong line). The entries themselves are the evidence: a result
    computed in float32 is not all float16 numbers by chance."""
    if dtype not in (torch.float32, torch.float64) or rtol is not None or atol is not None or got.numel() < 8:
        return
    finite = got[torch.isfinite(got)]
    if finite.numel() < 8 or not bool((finite.to(torch.float16).to(got.dtype) == finite).all()):
        return
    if bool((finite == finite.round()).all()):      # whole numbers are float16 numbers too: no evidence
        return
    if not _close(got, expected, torch.float16, equal_nan=True):
        return
    worst = float((got.to(torch.float64) - expected.to(torch.float64)).abs().nan_to_num(0.0).max())
    raise Misconception("float16_precision", f"{what} is right only to float16's precision (largest difference "
                        f"{worst:.2g}), and every entry is a float16 number, for a {str(dtype).removeprefix('torch.')} "
                        "input: " + describe("float16_precision"))


def _slice_factors(got: torch.Tensor, expected: torch.Tensor) -> tuple[int, float, float] | None:
    """(axis, lowest, highest) when `got` is `expected` with each slice along one axis multiplied by its
    own factor, every factor below 1 and not all equal (s / (s + eps) per softmax row): float32 rounding
    is noise per entry, never one factor per slice, and a float32 constant is one factor everywhere."""
    g, e = got.to(torch.float64), expected.to(torch.float64)
    live = e.abs() > 1e-3 * float(e.abs().max())
    if g.dim() == 0 or not bool(live.any()) or not bool(torch.isfinite(g).all()):
        return None
    ratio = torch.where(live, g / torch.where(live, e, torch.ones_like(e)), torch.nan)
    for axis in range(g.dim() - 1, -1, -1):
        if g.shape[axis] < 2:
            continue
        hi_r = ratio.nan_to_num(-math.inf).amax(dim=axis)
        lo_r = ratio.nan_to_num(math.inf).amin(dim=axis)
        seen = torch.isfinite(hi_r) & torch.isfinite(lo_r)
        if int((live.sum(dim=axis) >= 2).sum()) < 2 or not bool(seen.any()):
            continue
        f = hi_r[seen]
        if bool(((hi_r - lo_r)[seen] <= 1e-10).all()) and bool((f < 1).all()) and float(f.max() - f.min()) > 1e-10:
            return axis if axis < g.dim() - 1 else -1, float(f.min()), float(f.max())
    return None


def _near_in_half(got: torch.Tensor, expected: torch.Tensor) -> bool:
    """In half precision, near enough to be the output a correct solution gives on large scores (max
    difference <= 0.25, mean <= 0.01: sdpa-from-scratch q5's measured yardstick); never in float32/64."""
    if got.dtype not in HALF or got.shape != expected.shape or not bool(torch.isfinite(got).all()):
        return False
    d = (got.to(torch.float64) - expected.to(torch.float64)).abs()
    return bool(d.max() <= 0.25 and d.mean() <= 0.01)


def _same_value(a: Any, b: Any) -> bool:
    """Equal up to the rounding of their dtype (tensors, numbers; tuples, lists and dicts of them).
    Numbers: float32 rounding (rel 1e-6), as a float read from a float32 tensor with .item()."""
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_value(a[k], b[k]) for k in a)
    if type(a) is torch.Tensor and type(b) is torch.Tensor:
        return a.dtype == b.dtype and _close(a, b, a.dtype, equal_nan=True)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9) or (math.isnan(a) and math.isnan(b))
    return False


class ChargeRecord:
    """What charged_in_parts did during one hidden test (runner.hold_excuses reads it): whether the test
    composes earlier answers at all, and the earlier answers (student names) blamed for a failure it let
    through. An excuse is evidence from the student's own functions, which can tell the grader's
    re-run of their composition from a first call (red-team round 25: stages that answered honestly
    except on the inputs their composite had just seen earned full marks for a composite returning
    zeros); so it holds only where a test of a blamed answer that composes nothing fails too."""

    def __init__(self, submission: object = None) -> None:
        self.submission = submission      # the notebook's source, for checks that read it (added parameters)
        self.added_checked: set[str] = set()    # functions whose added parameters this test already tried
        self.composes = False
        # per excuse: the student names blamed, and what this test would have said without the excuse
        self.excuses: list[tuple[tuple[str, ...], BaseException]] = []


_CHARGES: ContextVar[ChargeRecord | None] = ContextVar("charges", default=None)


@contextmanager
def charges_recorded(submission: object = None) -> Iterator[ChargeRecord]:
    """Record charged_in_parts's excuses while one test runs (the runner wraps each test in it), and hold the
    submission's source for the checks that read it."""
    record = ChargeRecord(submission)
    token = _CHARGES.set(record)
    try:
        yield record
    finally:
        _CHARGES.reset(token)


def running_submission() -> object:
    """The notebook's source the runner holds for the test running now (charges_recorded), or None outside one: what
    the hidden tests' readers of the student's source read when no submission is passed to them."""
    record = _CHARGES.get()
    return record.submission if record is not None else None


def _student_name(part: object) -> str | None:
    name = getattr(part, "_name", None) or getattr(part, "name", None)
    return name if isinstance(name, str) else None


def _excused(parts: Sequence[object], failure: BaseException) -> None:
    record = _CHARGES.get()
    if record is not None:
        record.excuses.append((tuple(n for n in map(_student_name, parts) if n), failure))


def charged_elsewhere(parts: Sequence[object], failure: BaseException) -> None:
    """A hidden test that lets `failure` pass because the earlier answers `parts` (proxies) are wrong, by probes of
    its own rather than through charged_in_parts, records that excuse the same way: it stands only where a test of
    one of `parts` that composes nothing fails too (runner.hold_excuses). The probes run the student's functions,
    which can answer them wrong on purpose: scaled-attention's multi_head_attention raising ValueError and an
    entropy_table doing nothing scored 28/28 with stages wrong only on the probes' inputs (red-team round 77)."""
    _excused(parts, failure)


def charged_in_parts(student: Callable[[], Any], check: Callable[[Any], None], own: Callable[[], Any],
                     parts: Sequence[object] = ()) -> None:
    """One mistake, one charge. `student()` is the student's answer to a question built on earlier ones
    (self_attention on their project_qkv, scaled_scores...), `check` fails if it is wrong, and `own()`
    is the reference's composition run on the student's own earlier answers (their proxies). When the
    answer is wrong but equals `own()` (or crashes exactly as `own()` does), and `own()` itself is
    wrong, the mistake lies in the earlier answers, whose tests charge it: this one passes.
    `parts` are the proxies of those earlier answers that `own()` calls: when the answer writes into
    the caller's input (inplace_on_input) and `own()` shows one of them writing into its input, the
    write is that earlier answer's, which its own test charges: this one passes.

    Every pass of this kind is recorded (ChargeRecord): under the runner it stands only where a test of
    one of `parts` fails too, so `parts` names every earlier answer `own()` calls."""
    record = _CHARGES.get()
    if record is not None:
        record.composes = True
    try:
        got = student()
    except Misconception as m:
        if m.key == "inplace_on_input" and parts and _parts_write_inputs(own, parts):
            return _excused(parts, m)
        raise
    except StudentCodeError as e:
        try:
            own()
        except StudentCodeError as again:   # an earlier answer crashed
            if (again.exc_type, again.message) == (e.exc_type, e.message):
                return _excused(parts, e)
        except Exception as again:  # noqa: BLE001 - the composition is only evidence
            # an earlier answer's output made the composition itself fail, as it made theirs
            if (type(again).__name__, str(again).split("\n")[0]) == (e.exc_type, e.message):
                return _excused(parts, e)
        raise
    try:
        check(got)
        return
    except AssertionError as wrong:
        failure = wrong
    try:
        mine = own()
    except Exception:  # noqa: BLE001 - no evidence: the student's failure stands
        raise failure from None
    try:
        check(mine)
    except AssertionError:
        if _same_value(got, mine):
            return _excused(parts, failure)              # wrong only through an earlier answer
        # different values from the same inputs: randomness somewhere (dropout left on). In an earlier
        # answer, `own()` differs from itself too and that answer's test charges it; else it is here
        try:
            mine_again = own()
        except Exception:  # noqa: BLE001 - a composition that now crashes differs too
            return _excused(parts, failure)
        if not _same_value(mine, mine_again):
            return _excused(parts, failure)
        try:
            student_again = student()
        except Exception:  # noqa: BLE001 - a crash the first call did not have is a difference
            student_again = None
        if not _same_value(got, student_again):
            raise Misconception("nondeterministic", "your function gives different outputs for the same "
                                "input: " + RANDOMNESS_LEFT_ON) from None
    raise failure


def _parts_write_inputs(own: Callable[[], Any], parts: Sequence[object]) -> bool:
    """Whether running `own()` makes one of the proxies `parts` report an input it wrote into."""
    # each call leaves a new list: one that is not the list seen before own() is own()'s (never set it
    # here: a namespace's guard forwards reads to the proxy, and a value set on the guard would hide them)
    before = [getattr(p, "last_changed_inputs", None) for p in parts]
    try:
        own()
    except Exception:  # noqa: BLE001 - a composition that fails shows no write
        return False
    return any(isinstance(now, list) and now is not was and bool(now)
               for now, was in ((getattr(p, "last_changed_inputs", None), b) for p, b in zip(parts, before)))


def expect_no_crash(key: str, thunk: Callable[[], object]) -> object:
    """Run a proxied call; if the student's code raises, fail naming misconception `key`."""
    try:
        return thunk()
    except StudentCodeError as e:
        if e.exc_type == "ForbiddenAPIError":  # a forbidden call is not a crash of its own
            key = "forbidden_api"
        if is_stub(e):
            raise _unanswered("this function") from None
        raise Misconception(key, f"{describe(key)}: {e}") from None


# --- vectorisation ---------------------------------------------------------------------------------
# A timed student call must be neither recognisable nor cheaper than an honest one. Every timed call
# runs on inputs drawn inside the timed request from a seed the student has never seen (nothing to
# memoise or precompute: `calls.run_fresh_calls`), the sum of all the outputs comes back and must equal
# the reference's sum over the same inputs, and the yardstick is the reference run through the same
# `run_fresh_calls` in this process (same input generation, one thread like the worker). Times are CPU
# seconds (the worker's read by the grader from outside), and only their ratio is used.

InputSpecs = Sequence[tuple[tuple[int, ...], str]]   # one (shape, dtype name) per positional input

# Largest difference allowed between the MEAN of the timed outputs and the reference's mean (float64
# inputs, entries |x| < 9). It separates rounding from wrong outputs: a float64 solution is ~1e-15 off
# per entry, one that computes in float32 (a dtype mistake the value tests charge, not this one) at most
# ~6e-8 * 9 = 5e-7; one wrong output among n <= 2000 calls (entries ~0.1-1 off) moves the mean by > 5e-5.
TIMED_MEAN_ATOL = 2e-6


def _fresh_seed(rng: torch.Generator) -> int:
    return int(torch.randint(0, 2 ** 62, (1,), generator=rng))


# The yardstick (the reference's CPU seconds per call for one (reference, specs, kwargs)) is the best
# of its last YARDSTICK_SAMPLES samples (load only slows), as before, but the samples are spread over
# the submissions: the warm-up and a full best of three once per grader process, then one sample per
# use replacing the oldest, so it is never older than the last few submissions (a best of all time
# would be a quiet moment's, and inflate every ratio measured under load). A ratio near the limit is
# measured as before: a fresh yardstick, best of three, beside the student's runs.
YARDSTICK_SAMPLES = 3
# The timed outputs' sum is checked against the reference's sum over the same inputs computed in one
# call on the n input sets stacked along a new leading axis (the same draws as `run_fresh_calls`,
# stacked: `calls.fresh_batch`), when a probe once per process showed that this reference's batched
# sum equals its per-call sum on these specs to BATCHED_ATOL. A mean within TIMED_MEAN_ATOL -
# BATCHED_ATOL of the batched sum is within TIMED_MEAN_ATOL of the per-call one; anything else is
# checked the old way (per-call sums of the reference and the variants), so verdicts do not change.
BATCHED_ATOL = 1e-9


class _Yardstick:
    def __init__(self) -> None:
        self.samples: list[float] = []       # seconds per call, newest last
        self.uses = 0
        self.batched: bool | None = None     # None: not probed yet


_YARDSTICKS: dict[tuple[Any, ...], _Yardstick] = {}


def _fingerprint(value: Any) -> Any:
    if type(value) is torch.Tensor:
        import hashlib
        data = value.detach().to("cpu").contiguous()
        digest = hashlib.blake2b(data.view(torch.uint8).numpy().tobytes() if data.numel() else b"",
                                 digest_size=16).hexdigest()
        return ("tensor", tuple(value.shape), str(value.dtype), tuple(value.stride()), value.device.type, digest)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_fingerprint(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((str(k), _fingerprint(v)) for k, v in value.items())))
    return ("value", type(value).__name__, repr(value))


def _yardstick(reference: Callable[..., object], specs: InputSpecs, kwargs: dict[str, Any]) -> _Yardstick:
    key = (reference, tuple((tuple(map(int, shape)), str(dtype)) for shape, dtype in specs), _fingerprint(kwargs))
    try:
        return _YARDSTICKS.setdefault(key, _Yardstick())
    except TypeError:   # an unhashable reference: measured every time, as before
        return _Yardstick()


def _slowdown(student: Any, reference: Callable[..., object], specs: InputSpecs,
              kwargs: dict[str, Any], rng: torch.Generator, limit: float, what: str,
              variants: Sequence[Callable[..., object]], matched: list[Callable[..., object]]) -> float:
    """Student CPU time per call over the reference's, for inputs of `specs`. `matched`: the variant
    whose values verified the last timing (assert_vectorised's `verified_by`), updated here."""
    import time

    from autograder.sandbox.calls import run_fresh_batched, run_fresh_calls
    stick = _yardstick(reference, specs, kwargs)
    best_ref = [float("inf")]

    def reference_sum(seed: int, n: int) -> torch.Tensor:
        start = time.thread_time()
        total = run_fresh_calls(reference, specs, kwargs, seed, n)
        best_ref[0] = min(best_ref[0], (time.thread_time() - start) / n)
        return total

    def measure_yardstick() -> None:
        reference_sum(_fresh_seed(rng), 2)               # warm-up: one-off costs of the first calls
        stick.samples = []
        for _ in range(YARDSTICK_SAMPLES):                # yardstick: best of three (load only slows)
            best_ref[0] = float("inf")
            reference_sum(_fresh_seed(rng), 2)
            stick.samples.append(best_ref[0])
        best_ref[0] = min(stick.samples)

    if stick.batched is None:     # once per process: may the sum be batched, and is that cheaper?
        probe = _fresh_seed(rng)
        try:
            run_fresh_batched(reference, specs, kwargs, probe, 2)          # warm-up
            start = time.thread_time()
            batched = run_fresh_batched(reference, specs, kwargs, probe, 4)
            middle = time.thread_time()
            one_by_one = run_fresh_calls(reference, specs, kwargs, probe, 4)
            cheaper = time.thread_time() - middle > 1.25 * (middle - start)
            stick.batched = bool(cheaper and batched.shape == one_by_one.shape and torch.allclose(
                batched, one_by_one, rtol=0.0, atol=BATCHED_ATOL))
        except Exception:  # noqa: BLE001 - a reference that takes no leading axis: summed call by call
            stick.batched = False
    near = [False]                                        # near the limit: measured as before

    def timed(n: int) -> float:
        """Seconds per call of the student's function over n fresh calls, outputs checked."""
        seed = _fresh_seed(rng)
        # the reference's sum over the same draws (batched where that was found cheaper), made while the worker runs
        # the timed calls: the two had taken turns, and this sum costs about as much CPU as the timed calls. Not near
        # the limit: there the verdict is read from looks made with nothing of ours beside them, as before
        aside = None
        if not near[0]:
            def sums() -> torch.Tensor:
                if stick.batched:
                    return run_fresh_batched(reference, specs, kwargs, seed, n)
                return run_fresh_calls(reference, specs, kwargs, seed, n)    # not read as a yardstick sample
            with beside_next_request(sums) as aside:
                spent, total = student.time_fresh(specs, kwargs, seed=seed, repeat=n)
        else:
            spent, total = student.time_fresh(specs, kwargs, seed=seed, repeat=n)

        def same(other: torch.Tensor, atol: float = TIMED_MEAN_ATOL) -> bool:
            return (type(total) is torch.Tensor and total.shape == other.shape
                    and bool(torch.allclose(total.to(torch.float64) / n, other / n, rtol=0.0,
                                            atol=atol, equal_nan=True)))

        expected = None
        if aside is not None:
            try:
                if stick.batched:
                    if same(aside.value, TIMED_MEAN_ATOL - BATCHED_ATOL):
                        return spent / n
                else:
                    expected = aside.value
            except Exception:  # noqa: BLE001 - checked call by call below
                pass
        if expected is None:
            expected = reference_sum(seed, n)

        # a known wrong variant's values verify the timing too: the value tests charge the mistake
        def variant_sum(v: Callable[..., object]) -> torch.Tensor | None:
            try:
                return run_fresh_calls(v, specs, kwargs, seed, n)
            except Exception:  # noqa: BLE001 - a variant that does not apply to these inputs
                return None

        def verified_by(v: Callable[..., object]) -> bool:
            t = variant_sum(v)
            if t is not None and same(t):
                matched[:] = [v]
                return True
            return False

        # the variant that verified the last timed calls is tried first: the student's function does
        # not change between them, and each variant tried costs n calls in this process (a wrong
        # submission's timing cost 0.2-2 s when every variant before the right one was run each time)
        if same(expected):
            return spent / n
        shape = "x".join(map(str, specs[0][0])) if specs else "?"
        if not any(verified_by(v) for v in (*matched, *(v for v in variants if v not in matched))):
            raise AssertionError(f"the timing of {what} {TIMING_UNVERIFIED} (inputs of "
                                 f"shape {shape}) returned wrong values; the tests of its values say "
                                 "what is wrong")
        # a known mistake's values vouch for the timing only where the value tests charge that mistake: a double loop
        # that answered the mean of V (uniform_weights, one cheap line) on the timed shapes alone scored 35/35, where
        # the loop scores 34 (red-team round 79). The excuse stands only where a test of the function's values fails
        _excused([student], AssertionError(
            f"the timing of {what} {TIMING_UNVERIFIED} (inputs of shape {shape}) returned a known mistake's values, "
            "and every test of its values passes: it must compute on the timed inputs what it computes on any other"))
        return spent / n

    stick.uses += 1
    if not stick.samples:
        measure_yardstick()                               # once per process, with its warm-up
    else:
        reference_sum(_fresh_seed(rng), 2)                # one new sample replaces the oldest
        stick.samples = [*stick.samples[1 - YARDSTICK_SAMPLES:], best_ref[0]]
        best_ref[0] = min(stick.samples)
    one = timed(1)                                        # the student's warm-up, its output checked
    per_call = max(best_ref[0], 1e-6)

    def ratio(student_s: float, guess: float) -> float:
        # enough calls for about `student_s` seconds of the student's code, given a guess of the
        # slowdown; near the limit the reference's time is re-read after each run (its sum is
        # computed call by call then)
        n = max(5, min(2000, math.ceil(student_s / (guess * per_call))))
        return timed(n) / max(best_ref[0], 1e-6)

    if one >= 0.1 and one > 20 * limit * per_call:
        # hopeless (nested loops) if a second call says so too: one call's CPU time can be inflated
        # by the kernel's work on its behalf (page faults, memory reclaim under a loaded machine)
        one = min(one, timed(1))
        if one >= 0.1 and one > 20 * limit * per_call:
            return one / per_call
    # quick look, sized by the first call: ~5 ms of the student's CPU (a nanosecond clock) pass every
    # verdict well under the limit. A fail is never decided by one short look: far above the limit,
    # a look ten times longer confirms it (CI once failed a vectorised solution on one inflated 5 ms
    # look); near the limit (load only inflates) the best of three longer looks decides
    r = ratio(0.005, max(1.0, one / per_call))
    if r > 3 * limit:
        r = min(r, ratio(0.05, r))
    if 0.8 * limit <= r <= 3 * limit:
        # near the limit: a fresh yardstick, then longer looks, the best one deciding (a busy machine only
        # slows). A look clearly under the limit settles it, since another can only be lower: a vectorised
        # solution whose 5 ms look was inflated (a fresh worker's first page faults, a neighbour's burst: 2 of
        # 12 full-marks notebooks on a lightly loaded 2-core host) is settled by a ~0.05 s look, where three
        # ~0.3 s looks cost 0.9 s of its grade. Only a look that stays near the limit reaches the three
        near[0] = True
        measure_yardstick()
        per_call = max(best_ref[0], 1e-6)
        r = ratio(0.05, r)                                # the 5 ms look, read against the old yardstick, has no say
        for _ in range(3):
            if r < 0.8 * limit:
                break
            r = min(r, ratio(0.3, r))
    return r


def assert_vectorised(student: Any, reference: Callable[..., object],
                      cases: Sequence[tuple[InputSpecs, Mapping[str, Any]]], *, rng: torch.Generator,
                      limit: float = 5.0, what: str = "the function", key: str = "not_vectorised",
                      advice: str = "replace Python loops by batched tensor operations",
                      variants: Sequence[Callable[..., object]] = (),
                      verified_by: list[Callable[..., object]] | None = None) -> float:
    """Fail (Misconception `key`) if the student's function is more than `limit` times slower than
    `reference` on any of `cases`: (input specs, keyword arguments), e.g. one shape with long
    sequences (a loop over rows shows) and one with many batch entries (a loop over them shows).

    `student` is a proxy with `time_fresh`. Each timed request draws its own inputs from a new seed
    taken from `rng`; its summed output must match the reference's or that of one of `variants` (the
    known wrong versions, same signature: a value mistake is the value tests' business and costs
    nothing here), else the test fails saying the timing could not be verified. `verified_by`: a list
    kept by the caller across calls on the same student function (one case per call), holding the
    variant that verified the last timing: it is tried first next time.
    A crash of the student's code propagates (StudentCodeError), and is recorded as an excuse (runner.hold_excuses):
    a caller that skips the crashed case as the value tests' charge keeps its pass only where a test of the
    function's values fails too. Returns the worst ratio."""
    matched = [] if verified_by is None else verified_by
    threads = torch.get_num_threads()
    torch.set_num_threads(1)                           # the worker runs one thread: so does the yardstick
    worst = 0.0
    try:
        for specs, kwargs in cases:
            try:
                r = _slowdown(student, reference, specs, dict(kwargs), rng, limit, what, variants, matched)
            except StudentCodeError as e:
                # a loop over rows that raised on the long timed case only (T = 256; no value test is that long)
                # had that case skipped and passed on the short ones: 35/35 where the loop scores 34 (red-team
                # round 77). Skipping stands only where the crash is charged: some test of its values fails
                shape = "x".join(map(str, specs[0][0])) if specs else "?"
                _excused([student], AssertionError(
                    f"the timing of {what} {TIMING_UNVERIFIED} (inputs of shape {shape}) raised {e.exc_type}: "
                    f"{_cut(e.message, 100)}, and every test of its values passes: it must run on inputs of every "
                    "size, the timed ones too"))
                raise
            worst = max(worst, r)
            if worst > limit:
                break
    finally:
        torch.set_num_threads(threads)
    if worst > limit:
        raise Misconception(key, f"{what} took {worst:.0f}x the time of a vectorised version: {advice}")
    return worst


def assert_function_avoids(submission: object, func_name: str, names: str | tuple[str, ...], *,
                           key: str, rule: str) -> None:
    """Static check that `func_name`, and everything it calls, never uses `names` (`rule` says it in
    words: "a built-in softmax"). A use raises Misconception(key); a source that does not show what
    runs (exec, a function built out of sight...) fails with a message saying the rule cannot be
    verified. The run-time guard of the sandbox is the first layer where there is one; this is the
    second. With no notebook at all (the reference run in-process) there is nothing to read."""
    from autograder.grading.source_checks import SourceUnreadable, cells_of, find_use
    from autograder.sandbox.calls import forbidden_names
    cells = cells_of(submission)
    if not cells:
        return
    try:
        # a forbidden API's own kernels under other names too (calls.KERNELS_OF), as the worker's guard refuses them
        use = find_use(cells, func_name, forbidden_names((names,) if isinstance(names, str) else names))
    except SourceUnreadable as e:
        raise AssertionError(f"the grader cannot check from your source that `{func_name}` avoids "
                             f"{rule}: {e}. Define it with a plain `def` that calls only functions "
                             "defined in your notebook or in torch/math") from None
    if use is not None:
        raise Misconception(key, f"{use.describe()}, which this assignment forbids ({rule})")


# --- memory layout ------------------------------------------------------------------------------------

def layout_crash(e: StudentCodeError, tensors: Mapping[str, object], rerun: Callable[[], object]) -> AssertionError | None:
    """What a crash on inputs that are not contiguous (transposed, sliced or expanded views) reveals,
    from a second call on contiguous copies of the same values (`rerun`, which raises StudentCodeError
    if that crashes too): view_on_noncontiguous or inplace_on_input when the error says which, else a
    plain message about the layout. None when every input is contiguous or the copies crash too."""
    views = [n for n, t in tensors.items() if isinstance(t, torch.Tensor) and not t.is_contiguous()]
    if not views:
        return None
    try:
        rerun()
    except Misconception as m:
        if m.key != "inplace_on_input":
            return None
        # the copies run and are written into: the same write the view refused (named below)
    except Exception:  # noqa: BLE001 - the copies fail too (or cannot tell): nothing to name
        return None
    said = f"your code raised {e.exc_type}: {e.message}"
    where = f"{', '.join(views)} {'is' if len(views) == 1 else 'are'} not contiguous"
    if "view size is not compatible" in e.message:
        return Misconception("view_on_noncontiguous", f"{said}: {where} here, and contiguous copies of the "
                             "same values work: use .reshape, or .contiguous() before .view")
    if "written-to tensor" in e.message or "single memory location" in e.message:
        return Misconception("inplace_on_input", f"{said}: {where} here (expanded: one memory location "
                             "for many entries), and contiguous copies of the same values work: do not "
                             "write into an input")
    return AssertionError(f"{said}: {where} here (a transposed, sliced or expanded view), and on "
                          "contiguous copies of the same values it runs: do not rely on an input's "
                          "memory layout")


# --- crashes whose own words name the mistake ------------------------------------------------------------

_PAIR_RESULT = re.compile(r"torch\.return_types\.(max|min|sort|topk|mode|median|nanmedian|kthvalue|cummax|cummin"
                          r"|aminmax)\b")


def student_line(e: StudentCodeError) -> str:
    """" (in `f`, line N of its cell)": where the student's traceback last was in a notebook cell, or ""."""
    where = [f for f in e.notebook_frames() if f.function != "<module>"]
    return f" (in `{where[-1].function}`, line {where[-1].line} of its cell)" if where else ""


def tuple_as_tensor(e: StudentCodeError, said: str) -> Misconception | None:
    """reduction_tuple_as_tensor from a crash whose own words show the result of torch.max(x, dim=...) (or
    min, sort, topk, mode, median, kthvalue: a (values, indices) namedtuple) used as a tensor:
    `x - x.max(dim, keepdim=True)` is a TypeError that names torch.return_types.max; `m.unsqueeze(-1)` an
    AttributeError. Nothing else makes such an object, and a correct function never meets one: the text is
    the proof, no second call needed. `said` opens the message (what raised what). None otherwise."""
    if e.exc_type not in ("TypeError", "AttributeError"):
        return None
    found = _PAIR_RESULT.search(e.message or "")
    if found is None:
        return None
    op = found.group(1)
    pair = "(min, max)" if op == "aminmax" else "(values, indices)"
    also = "" if op == "max" else f" {op}(..., dim=...) returns a {pair} pair too:"
    return Misconception("reduction_tuple_as_tensor", f"{said}{student_line(e)}:{also} "
                         + describe("reduction_tuple_as_tensor"))
