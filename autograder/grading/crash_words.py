"""Crashes named by what they say (issue 21): the student's own exception text, the line of their cell that
raised, and the notebook's source (read with `ast`, never run), in any test of any assignment.

`crash_words` is tried by runner.classify on every failure a test left unnamed; `crash_replayed` names a cell's
crash by the one slip that, written out on the question's own inputs, raises the same words. Every key's text is
data in checks.MISCONCEPTIONS; everything here only decides which key a crash proves. Student text is matched
and quoted escaped and cut, never executed."""
from __future__ import annotations

import ast
import math
import re
import threading
import warnings
from collections.abc import Callable, Mapping, Sequence

import torch

from autograder.errors import StudentCodeError
from autograder.grading.checks import Misconception, describe, student_line, tuple_as_tensor
from autograder.grading.pyparse import parse, unparse


# where no GPU can be used: a CPU build's words, a CUDA build's without a driver or a device. Said both for a tensor put
# on the GPU by name and for a call only a GPU answers (torch.cuda.synchronize): the line that raised tells which
_NO_GPU = re.compile(r"Torch not compiled with CUDA enabled|Found no NVIDIA driver on your system|No CUDA GPUs are available")
# a line that calls torch.cuda's housekeeping (synchronize, current_stream, get_device_name, ...) and puts no tensor there
_CUDA_ONLY_CALL = re.compile(r"^(?!.*(?:\.cuda\(|\.to\(|\bdevice\s*=|\bcuda\.\w*Tensor\b)).*\bcuda\.\w+\s*\(")
# the cell a missing answer's message quotes, and the line of it that raised: "(Cell In[10]) stopped, your code raised
# AssertionError: Torch not compiled with CUDA enabled (line 1)"
_STOPPED_AT = re.compile(r"\(Cell In\[(\d{1,6})\]\) stopped, your code raised [^\n]*\(line (\d{1,6})\)")
# (what the error says, the key it proves): each pattern is a sentence torch or Python writes only for that
# slip, so the words are the proof (no second call); checked in this order
_CRASH_WORDS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b1D tensors expected, but got \d+D and \d+D tensors"), "dot_of_matrices"),
    # torch.mm / Tensor.mm given a batched input: ATen's own words (torch.bmm's are bmm_of_matrices, below)
    (re.compile(r"(?:^|: )(?:self|mat2) must be a matrix(?:$|\n)", re.MULTILINE), "matmul_fixed_rank"),
    (re.compile(r"\beinsum\(\): the number of subscripts in the equation \(\d+\) does not match the number of "
                r"dimensions \(\d+\) for operand \d+ and no ellipsis was given"), "einsum_fixed_axes"),
    (re.compile(r"\beinsum\(\): subscript [A-Za-z] has size \d+ for operand \d+ which does not broadcast with "
                r"previously seen size \d+"), "einsum_letter_on_two_axes"),
    (re.compile(r"\binner\(\) the last dimension must match on both input tensors"), "inner_pairs_last_axes"),
    (_NO_GPU, "device_hard_coded"),
    # torch's words for a call only a GPU can answer (a CPU build's, torch 2.13: /tmp/rt88/errs.py), never for a
    # tensor put there by name: the grader has no GPU (red-team round 88)
    (re.compile(r"Cannot access accelerator device when none is available|pin_memory=True requires a CUDA or other "
                r"accelerator backend|Tried to instantiate dummy base class (?:Event|Stream|CUDAGraph)\b|torch\.cuda\."
                r"Stream requires CUDA support|PyTorch was compiled without CUDA support|module 'torch\._C' has no "
                r"attribute '_cuda_\w+'|Cannot get CUDA generator without ATen_cuda library|NVTX functions not "
                r"installed"), "cuda_call_without_gpu"),
    (re.compile(r"\bThis function was deprecated since version [\d.]+ and is now removed"), "removed_torch_function"),
    # the worker refuses new threads from the first graded call on (the forbidden-API guard watches one thread):
    # Python's own words for a thread start the kernel refused, in a graded call (red-team round 65)
    (re.compile(r"\bcan't start new thread\b"), "graded_call_starts_thread"),
    (re.compile(r'\b[if]info\(\) missing 1 required positional arguments: "type"'), "finfo_keyword"),
    (re.compile(r"\b(?:Log)?Softmax\.__init__\(\) got multiple values for argument 'dim'|unsupported operand "
                r"type\(s\) for [^:]{1,3}: '(?:Log)?Softmax' and|and '(?:Log)?Softmax'|a value of type (?:Log)?Softmax "
                r"cannot cross"), "softmax_module_given_input"),
    (re.compile(r'\b(?:maximum|minimum)\(\) missing 1 required positional arguments: "other"'), "maximum_for_max"),
    # torch.where(cond, x) without the value where False; x.where(cond) without `other` (torch.where(cond) alone is
    # valid: the positions, so "got (Tensor)" is the method's)
    (re.compile(r"\bwhere\(\) received an invalid combination of arguments - got \(Tensor(?:, (?:Tensor|float|int|bool))?\)"),
     "where_missing_value"),
    (re.compile(r"got an unexpected keyword argument '(?:axis|keepdims|ddof)'|received an invalid combination of "
                r"arguments - got \([^)]*\bddof="), "numpy_keyword"),
    (re.compile(r"\b[if]info\(\): argument 'type' \(position 1\) must be torch\.dtype, not Tensor"), "finfo_of_tensor"),
    # NumPy's own words for np.finfo / np.iinfo of an object dtype (a torch dtype passed to NumPy)
    (re.compile(r"data type <class 'numpy\.object_'> not inexact|Invalid integer data type 'O'\."),
     "numpy_finfo_of_torch_dtype"),
    (re.compile(r"argument 'device' must be torch\.device, not torch\.dtype|argument 'dtype' must be torch\.dtype, "
                r"not torch\.device"), "dtype_for_device"),
    (re.compile(r"\b(?:ones|zeros|empty|full|rand|randn)\(\) takes \d+ positional arguments? but \d+ were given"
                r"|argument 'size' failed to unpack the object at pos \d+ with error \"type must be tuple of ints,\s*"
                r"but got torch\.(?:dtype|device)\""), "dtype_passed_positionally"),
    (re.compile(r"only one element tensors can be converted to Python scalars"), "tensor_to_number"),
    # torch's (and NumPy's) words for an integer tensor to a negative whole power; argmax / argmin of a bool
    # tensor (NumPy's take bool, torch's refuse it)
    (re.compile(r"\bIntegers to negative integer powers are not allowed"), "int_tensor_negative_power"),
    (re.compile(r"\barg(?:max|min)\(\): does not support bool input"), "argmax_of_bool"),
    (re.compile(r"(?:Subtraction|Negation), the `-` operator, (?:with|on) (?:a|two) bool tensors? is not "
                r"supported"), "bool_mask_arithmetic"),
    (re.compile(r"\b(?:sqrt|rsqrt|exp|log|log2|log10|pow|tanh|sigmoid)\(\): argument 'input' \(position 1\) "
                r"must be Tensor, not (?:int|float|bool)\b"), "torch_function_of_number"),
    # a method object where a tensor is used: in an operator, as an argument of a torch function, as an index
    (re.compile(r"unsupported operand type\(s\) for [^:]+: '(?:Tensor|builtin_function_or_method|method|int|float)' "
                r"and '(?:builtin_function_or_method|method)'|unsupported operand type\(s\) for [^:]+: "
                r"'(?:builtin_function_or_method|method)' and|bad operand type for unary .: "
                r"'(?:builtin_function_or_method|method)'|received an invalid combination of arguments - got "
                r"\([^)]*\bbuiltin_function_or_method\b|must be Tensor, not (?:builtin_function_or_method|method)\b"
                r"|valid indices \(got builtin_function_or_method\)"
                r"|'(?:builtin_function_or_method|method)' object is not subscriptable"
                r"|must be real number, not (?:builtin_function_or_method|method)\b"), "method_not_called"),
    (re.compile(r"Can't call numpy\(\) on Tensor that requires grad|Got unsupported ScalarType BFloat16"
                r"|can't convert \w+(?::\d+)? device type tensor to numpy"), "numpy_round_trip"),
    (re.compile(r"'(?:torch\.Size|Tensor)' object is not callable"), "value_called"),
    (re.compile(r"'Tensor' object has no attribute '(?:astype|copy)'"), "numpy_method"),
    (re.compile(r"expected m1 and m2 to have the same dtype, but got: \S+ != \S+|expected scalar type \w+ but found "
                r"\w+|Found dtype \w+ but expected \w+|expected both vectors to have same dtype|input tensors must have the "
                r"same dtype, but got"
                # torch.allclose / isclose given two dtypes (they do not promote): "Double did not match Float"
                r"|\b(?:Double|Float|Half|BFloat16) did not match (?:Double|Float|Half|BFloat16)\b"), "dtype_mix"),
    (re.compile(r"view size is not compatible with input tensor's size and stride"), "view_on_noncontiguous"),
    (re.compile(r"\bmasked_fill_?\(\) received an invalid combination of arguments - got \((?:Tensor, )?(?:float|int|bool), "
                r"Tensor\)"), "masked_fill_arguments_swapped"),
    (re.compile(r"torch\.iinfo\(\) requires an integer input type"), "iinfo_for_float"),
    (re.compile(r"\"bitwise_xor_\w+\" not implemented for '|unsupported operand type\(s\) for \^: '(?:int|float)' and "
                r"'float'|unsupported operand type\(s\) for \^: 'float' and"), "caret_for_power"),
    (re.compile(r"\b\w+\(\) received an invalid combination of arguments - got \((?:Tensor, )?keepdim=bool(?:, )?\)"
                r"|\b(?:logsumexp|softmax|log_softmax)\(\) missing 1 required positional arguments: \"dim\""),
     "reduction_dim_missing"),
    (re.compile(r"where expected condition to be a boolean tensor, but got a tensor with dtype"), "where_condition_not_bool"),
    (re.compile(r"masked_fill_? only supports a 0-dimensional value tensor"), "masked_fill_tensor_value"),
    (re.compile(r"argument 'dim' (?:\(position \d+\) )?must be (?:int|tuple of ints), not Tensor"), "tensor_as_dim"),
    (re.compile(r"\b(?:cat|concat|concatenate|stack|hstack|vstack)\(\): argument 'tensors' \(position 1\) must be "
                r"tuple of Tensors, not generator"), "generator_to_cat"),
    (re.compile(r"(?<!\w)seed\(\) takes 0 positional arguments but \d+ (?:was|were) given"),
     "seed_for_manual_seed"),
    (re.compile(r"(?<![\w.])log\(\) takes 1 positional argument but 2 were given|(?<![\w.])log\(\) got an "
                r"unexpected keyword argument 'base'|\bTensor(?:Base)?\.log\(\) takes no arguments \(1 given\)"),
     "log_given_base"),
    (re.compile(r"argument 'dtype' (?:\(position \d+\) )?must be torch\.dtype, not str"), "dtype_as_string"),
    (re.compile(r"~ \(operator\.invert\) is only implemented on integer and Boolean-type tensors"), "invert_of_float_mask"),
    (re.compile(r"\bbatch[12] must be a 3D tensor"), "bmm_of_matrices"),
    (re.compile(r"(?<![\w.])transpose\(\) takes 2 positional arguments but [3-9] were given|(?<![\w.])transpose\(\): "
                r"argument 'dim0' \(position [12]\) must be int, not (?:tuple|list)"), "numpy_transpose_axes"),
    (re.compile(r"must be real number, not torch\.Size|must be Tensor, not torch\.Size|unsupported operand type\(s\) "
                r"for [^:]{1,3}: '(?:Tensor|int|float)' and 'torch\.Size'|unsupported operand type\(s\) for [^:]{1,3}: "
                r"'torch\.Size' and '(?:Tensor|int|float)'"), "size_not_int"),
)
# the names a notebook uses for modules, and what they are: a NameError for one the notebook never binds
_MODULE_ALIASES = {"np": "numpy", "numpy": "numpy", "F": "torch.nn.functional", "nn": "torch.nn", "torch": "torch",
                   "math": "math", "plt": "matplotlib.pyplot", "pd": "pandas", "scipy": "scipy"}
# warnings.catch_warnings swaps the process-wide filter list: two grader threads inside it at once can
# leave "ignore" in place for good. The replays take turns.
_REPLAY_LOCK = threading.Lock()
_NOT_DEFINED = re.compile(r"\bNameError: name '([A-Za-z_]\w{0,60})' is not defined")
# "f() got an unexpected keyword argument 'k'": unexpected_keyword only where f is torch's (the student's own
# functions are called by the tests with the notebook's names: a renamed parameter is another mistake)
_MATH_LACKS = re.compile(r"module 'math' has no attribute '(\w{1,40})'")
# a NumPy name looked up where torch has none: torch.tri, torch.expand_dims; x.ravel_multi..., g.standard_normal
_TORCH_LACKS = re.compile(r"module 'torch' has no attribute '(\w{1,40})'")
_TENSOR_LACKS = re.compile(r"'Tensor' object has no attribute '(\w{1,40})'")
_GENERATOR_LACKS = re.compile(r"'(?:torch\._C\.)?Generator' object has no attribute '(\w{1,40})'")


def _numpy_has(name: str, where: str) -> bool:
    """Whether NumPy's module (where="module"), ndarray or random.Generator has `name` (a public one)."""
    import numpy
    space = {"module": numpy, "ndarray": numpy.ndarray, "generator": numpy.random.Generator}[where]
    return not name.startswith("_") and hasattr(space, name)
# x.view(1, 1, T_q, T_k) of a tensor with a batch axis (blind31's mask): the leading 1s claim one batch entry
_VIEW_LEADING_ONES = re.compile(r"shape '\[((?:1, )+)(\d+(?:, \d+)*)\]' is invalid for input of size (\d+)")
_UNEXPECTED_KEYWORD = re.compile(r"\b(\w+)\(\) got an unexpected keyword argument '(\w+)'")
# torch's own parser on a keyword no overload has: "randn() received an invalid combination of arguments - got
# (int, int, gen=torch._C.Generator), but expected one of: * (tuple of ints size, *, torch.Generator generator, ...)"
_INVALID_COMBINATION = re.compile(r"\b(\w+)\(\) received an invalid combination of arguments - got \(([^)]*)\)"
                                  r"(.*)", re.S)


def _keyword_no_overload_has(text: str) -> tuple[str, str] | None:
    """(function, keyword) where torch's "invalid combination" names a keyword that none of its overloads has."""
    found = _INVALID_COMBINATION.search(text)
    if not found:
        return None
    for keyword in re.findall(r"\b(\w+)=", found.group(2)):
        if not re.search(rf"[\s*(]{re.escape(keyword)}\b(?!\.)", found.group(3)):
            return found.group(1), keyword
    return None


def _own_parameters(cells: Sequence[str], name: str) -> list[str] | None:
    """The parameter names of the notebook's last top-level `def name` (None where there is none, or where it
    takes **kwargs: then any keyword is one of its own). Student text: parsed, never run."""
    from autograder.grading.source_checks import last_function_def
    fn = last_function_def(cells, name)
    if fn is None or fn.args.kwarg:
        return None
    return [p.arg for p in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)]


def _torch_function(name: str) -> bool:
    import torch.nn.functional as F
    return any(hasattr(space, name) for space in (torch, torch.Tensor, F))


def crash_words(error: BaseException | str, cells: Sequence[str] = (), cell_errors: Mapping[int, str] | None = None,
                _depth: int = 0) -> Misconception | None:
    """A key proven by the words of the student's crash (a StudentCodeError, or a failure message quoting
    one: "your code raised RuntimeError: 1D tensors expected, ..."), whatever test met it: torch.dot on
    matrices, NumPy's keywords and methods, a whole tensor where one number is asked, arithmetic on a bool
    mask, a torch function of a Python number, a method used without its () (or .values of a plain tensor), a
    value called like a function (x.shape(-1)), a keyword a torch function does not take, two dtypes in one
    operation, .view on a non-contiguous tensor, a (values, indices) pair used as a tensor (tuple_as_tensor),
    and from the student's line that raised: an unpacking along the wrong axis (_CRASH_WITH_LINE); with the
    notebook's `cells`, a NameError for a global that the notebook does assign, at its top level, somewhere.
    The runner tries it on every failure a test left unnamed (runner.classify). None for any other error."""
    if isinstance(error, StudentCodeError):
        text, said = f"{error.exc_type}: {error.message}", str(error)
        pair = tuple_as_tensor(error, said)
    else:
        text = said = (str(error).splitlines() or [""])[0][:400]
        raised = re.search(r"raised (TypeError|AttributeError): (.*)", text)
        pair = tuple_as_tensor(StudentCodeError(raised.group(1), raised.group(2)), said) if raised else None
    if pair is not None:
        return pair
    if isinstance(error, StudentCodeError) and cells and (unchecked := _optional_none_used(error, cells)) is not None:
        return unchecked
    if isinstance(error, StudentCodeError) and (from_line := _crash_with_line(error)) is not None:
        return from_line
    if isinstance(error, StudentCodeError) and cells and (uncalled := _function_used_uncalled(error, cells)) is not None:
        return uncalled
    undefined = _NOT_DEFINED.search(text)
    if undefined and cells:
        from autograder.grading.source_checks import cells_assigning_globally
        name = undefined.group(1)
        made = cells_assigning_globally(cells, name)      # the cells whose top level binds it
        if name in _MODULE_ALIASES and not made:
            return Misconception("module_not_imported", f"{said.splitlines()[0].rstrip('. ')}: the notebook never "
                                 f"imports `{name}` ({_MODULE_ALIASES[name]}): " + describe("module_not_imported"))
        # the cell the crash was in: the last notebook frame of the traceback, or the missing answer's cell
        frames = error.notebook_frames() if isinstance(error, StudentCodeError) else []
        cell = re.search(r"\(Cell In\[(\d+)\]\) stopped", text)
        at = frames[-1].cell - 1 if frames else int(cell.group(1)) - 1 if cell else -1
        if cell is not None and (default := _default_names_parameter(cells, at, text, name)):
            return default
        # `q6_answer = A`: a choice's letter written as a name; only where that cell assigns the bare letter
        if (re.fullmatch(r"[A-Ha-h]", name) and not made and 0 <= at < len(cells)
                and re.search(rf"^\s*\w+\s*=\s*{name}\s*(?:#.*)?$", cells[at], re.MULTILINE)):
            return Misconception("answer_letter_unquoted", f"{said.splitlines()[0].rstrip('. ')}: the cell assigns the "
                                 f"bare name {name}, not the string \"{name}\": " + describe("answer_letter_unquoted"))
        # only a name made in a LATER cell: one made above whose cell stopped is that cell's own crash
        later = [i for i in made if at >= 0 and i > at]
        if later:
            return Misconception("name_not_yet_defined", f"{said.splitlines()[0].rstrip('. ')}: the notebook assigns "
                                 f"`{name}` only further down, in code cell {later[0] + 1}: "
                                 + describe("name_not_yet_defined"))
        # a name whose own cell above stopped: this crash is a knock-on of that one, named by it where it can be
        above = [i for i in made if 0 <= i < at and cell_errors and i in cell_errors]
        if above and _depth < 2 and cell_errors is not None:
            where = above[-1]
            root = crash_words(AssertionError(f"`{name}` is not defined: the cell that assigns it (Cell In[{where + 1}]) "
                                              f"stopped, your code raised {cell_errors[where]}"),
                               cells, cell_errors, _depth + 1)
            if root is not None:
                return Misconception(root.key, f"{said.splitlines()[0].rstrip('. ')}, because `{name}` is missing "
                                     f"itself: {root}")
    lacks = _MATH_LACKS.search(text)
    if lacks and _torch_function(lacks.group(1)):
        return Misconception("math_lacks_function", f"{said.splitlines()[0].rstrip('. ')}: torch.{lacks.group(1)} is "
                             "the function for tensors: " + describe("math_lacks_function"))
    lacks = _TORCH_LACKS.search(text)
    if lacks and not _torch_function(lacks.group(1)) and _numpy_has(lacks.group(1), "module"):
        return Misconception("numpy_function_in_torch", f"{said.splitlines()[0].rstrip('. ')}: {lacks.group(1)} is "
                             f"NumPy's (np.{lacks.group(1)}): " + describe("numpy_function_in_torch"))
    lacks = _TENSOR_LACKS.search(text)
    if lacks and not hasattr(torch.Tensor, lacks.group(1)) and _numpy_has(lacks.group(1), "ndarray"):
        return Misconception("numpy_method", f"{said.splitlines()[0].rstrip('. ')}: .{lacks.group(1)} is a NumPy "
                             "array's: " + describe("numpy_method"))
    lacks = _GENERATOR_LACKS.search(text)
    if lacks and _numpy_has(lacks.group(1), "generator"):
        return Misconception("numpy_generator_method", f"{said.splitlines()[0].rstrip('. ')}: .{lacks.group(1)} is a "
                             "method of NumPy's random Generator: " + describe("numpy_generator_method"))
    keyword = _UNEXPECTED_KEYWORD.search(text)
    if (keyword and keyword.group(2) not in ("axis", "keepdims") and _torch_function(keyword.group(1))
            and keyword.group(1, 2) != ("log", "base")):
        return Misconception("unexpected_keyword", f"{said.splitlines()[0].rstrip('. ')}: {keyword.group(1)} takes "
                             f"no {keyword.group(2)}=: " + describe("unexpected_keyword"))
    # a keyword the notebook's own function lacks, in the test's own call (no frame of the student's code: a call
    # from their code with a wrong keyword is a slip of that call, not of the def)
    params = (_own_parameters(cells, keyword.group(1)) if keyword and isinstance(error, StudentCodeError)
              and 'File "In[' not in error.traceback else None)
    if keyword and params is not None and keyword.group(2) not in params:
        return Misconception("parameter_renamed", f"{said.splitlines()[0].rstrip('. ')}: your `def "
                             f"{keyword.group(1)}({', '.join(params)[:80]})` has no parameter `{keyword.group(2)}`, the "
                             "name the notebook gives it: " + describe("parameter_renamed"))
    if isinstance(error, StudentCodeError) and "Boolean value of Tensor with more than one" in text and (
            overwritten := _parameter_overwritten(error, cells)) is not None:
        return Misconception("parameter_overwritten", f"{said.splitlines()[0].rstrip('. ')}: your "
                             f"`{overwritten[0]}` gives its parameter `{overwritten[1]}` a new value "
                             f"(`{overwritten[2]}`) and then reads it as the flag it was: "
                             + describe("parameter_overwritten"))
    # no GPU here, on a line of torch.cuda's housekeeping rather than a tensor put on the GPU (red-team round 88): the
    # graded call's own line, or the line of the cell that stopped; the meaning before the smallest failing input
    crashed = crash_source_line(error) if isinstance(error, StudentCodeError) else _stopped_line(text, cells)
    if _NO_GPU.search(text) and crashed and _CUDA_ONLY_CALL.search(crashed):
        first, _, rest = said.partition("\n")
        in_function = student_line(error) if isinstance(error, StudentCodeError) else ""
        shown = crashed[:100] + ("..." if len(crashed) > 100 else "")
        return Misconception("cuda_call_without_gpu", f"{first.rstrip('. ')}{in_function}, at `{ascii(shown)[1:-1]}`: "
                             + describe("cuda_call_without_gpu") + (f"\n{rest}" if rest else ""))
    for pattern, key in _CRASH_WORDS:
        if pattern.search(text):
            first, _, rest = said.partition("\n")     # torch's list of overloads after the meaning, not before
            first = re.sub(r",? but expected one of:?\s*$", "", first).rstrip(". :")
            return Misconception(key, f"{first}: {describe(key)}" + (f"\n{rest}" if rest else ""))
    ones = _VIEW_LEADING_ONES.search(text)
    if ones:
        sizes = [int(n) for n in ones.group(2).split(",")]
        size, entries = int(ones.group(3)), math.prod(sizes)
        if entries and size != entries:
            first = said.splitlines()[0].rstrip(". ")
            held = (f"{size // entries} times the {entries} entries of ({ones.group(2).strip()})"
                    if size % entries == 0 else f"{size} entries, not the {entries} of ({ones.group(2).strip()})")
            return Misconception("view_leading_ones", f"{first}: the tensor holds {held}: "
                                 + describe("view_leading_ones"))
    # after the catalogued words (NumPy's ddof= is numpy_keyword): any other keyword no overload has
    unknown = _keyword_no_overload_has(text)
    if unknown and unknown[1] not in ("axis", "keepdims") and _torch_function(unknown[0]):
        first = re.sub(r",? but expected one of:?\s*$", "", said.splitlines()[0]).rstrip(". :")
        return Misconception("unexpected_keyword", f"{first}: {unknown[0]} takes no {unknown[1]}= (torch's parser "
                             "lists what it takes): " + describe("unexpected_keyword"))
    return None


# (what the error says, what the line that raised does, the key): the words alone are not the proof, the
# student's own line is (the worker keeps each cell's lines for its tracebacks)
_CRASH_WITH_LINE: tuple[tuple[re.Pattern[str], re.Pattern[str], str], ...] = (
    (re.compile(r"^ValueError: (?:too many|not enough) values to unpack \(expected \d+"),
     re.compile(r"^[\w\s,()\[\]*]+,[\w\s,()\[\]*]*=\s*(?:torch\.)?[\w.\[\]()]*?\b(?:unbind|chunk|split|tensor_split)\("),
     "unpacked_along_wrong_axis"),
    # torch.tensor(list of tensors) says what math.sqrt(tensor) says: the line tells which
    (re.compile(r"only one element tensors can be converted to Python scalars"),
     re.compile(r"^(?!.*\b(?:math\.\w+|float|int)\().*\btorch\.(?:tensor|as_tensor|Tensor|FloatTensor|DoubleTensor)\("),
     "tensor_of_tensors"),
    # an integer tensor to a negative whole power: the line that raised quoted where it shows the power
    (re.compile(r"\bIntegers to negative integer powers are not allowed"), re.compile(r"\*\*|\bpow\("),
     "int_tensor_negative_power"),
)


def _parameter_overwritten(e: StudentCodeError, cells: Sequence[str]) -> tuple[str, str, str] | None:
    """(function, parameter, the assignment) where the line that raised reads a parameter as a truth value (`if
    scaled`, `x if scaled else y`, `not scaled`) and the function assigns that parameter a new value in its body
    (`scaled = dots / math.sqrt(d_k)`: the flag's name reused for a tensor). Student text: parsed, never run."""
    frames = [f.function for f in e.notebook_frames() if f.function != "<module>"]
    line = crash_source_line(e)
    if not frames or not line:
        return None
    from autograder.grading.source_checks import last_function_def
    fn = last_function_def(cells, frames[-1])
    if fn is None:
        return None
    for p in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs):
        read = re.search(rf"\b(?:if|elif|while|not|and|or)\s+{p.arg}\b|\b{p.arg}\s+(?:and|or)\b", line)
        stores = [n for n in ast.walk(fn) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))
                  and any(isinstance(t, ast.Name) and t.id == p.arg
                          for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))]
        if read and stores:
            return frames[-1], p.arg, unparse(stores[0])[:80]
    return None


def _default_names_parameter(cells: Sequence[str], index: int, text: str, name: str) -> Misconception | None:
    """default_names_parameter: the cell at `index` stopped with a NameError for `name` on a line of a
    top-level `def` whose default values use `name`, one of that def's own parameters (def f(T_q, T_k=T_q)):
    defaults are evaluated when def runs, where no parameter exists. Read from the cell's source, never run."""
    import ast
    line = re.search(r"\(line (\d+)\)", text)
    if line is None or not 0 <= index < len(cells):
        return None
    try:
        tree = parse(cells[index])
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    for n in tree.body:
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) or not n.lineno <= int(line.group(1)) <= n.body[0].lineno:
            continue
        a = n.args
        params = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
        defaults = [d for d in (*a.defaults, *a.kw_defaults) if d is not None]
        if name in params and any(isinstance(x, ast.Name) and x.id == name for d in defaults for x in ast.walk(d)):
            return Misconception("default_names_parameter", f"`{n.name}` was never defined: its def raised NameError: "
                                 f"name '{name}' is not defined, a default value that names the parameter `{name}`: "
                                 + describe("default_names_parameter"))
    return None


def crash_source_line(e: StudentCodeError) -> str:
    """The line of the student's cell that raised (the last notebook frame of its traceback), stripped, or
    "" where the traceback does not show it. Student text: match it, never run it."""
    lines = (e.traceback or "").splitlines()
    found = ""
    for i, line in enumerate(lines[:-1]):
        at = re.match(r'(\s*)File "In\[\d+\]", line \d+, in ', line)
        nxt = lines[i + 1]
        if at and len(nxt) - len(nxt.lstrip()) > len(at.group(1)) and not nxt.lstrip().startswith("File "):
            found = nxt.strip()     # the source line, indented under its frame (not the exception's line)
    return found[:300]


_NONE_USED = re.compile(r"'NoneType' object (?:has no attribute '\w{1,40}'|is not subscriptable|is not callable|is not "
                        r"iterable)|unsupported operand type\(s\) for [^:]{1,3}: '(?:NoneType|\w+)' and '\w+'|bad operand "
                        r"type for unary [^:]{1,3}: 'NoneType'")


def _none_test(test: ast.expr) -> tuple[str, bool] | None:
    """(name, True) for `name is not None`, (name, False) for `name is None`; None for any other test."""
    if (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name)
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None
            and isinstance(test.ops[0], (ast.Is, ast.IsNot))):
        return test.left.id, isinstance(test.ops[0], ast.IsNot)
    return None


def _none_guarded(fn: ast.FunctionDef, line: int) -> set[str]:
    """The names that an `if name is not None:` (or the else of an `if name is None:`) around line `line` of the
    cell has checked: there the name is not None, so a None met on that line is another value (blind67's q07:
    `S = S + M` under `if M is not None:`, reached with the scores' slot None). Bounded: one walk of the def."""
    out: set[str] = set()
    for n in ast.walk(fn):
        if not isinstance(n, ast.If) or (test := _none_test(n.test)) is None:
            continue
        body = n.body if test[1] else n.orelse
        if body and body[0].lineno <= line <= max(getattr(b, "end_lineno", b.lineno) or b.lineno for b in body):
            out.add(test[0])
    return out


def _optional_none_used(e: StudentCodeError, cells: Sequence[str]) -> Misconception | None:
    """optional_argument_not_checked: the crash is an operation on None (`M.to(S.dtype)`: "'NoneType' object has no
    attribute 'to'"), on a line of the student's function that uses a parameter whose default is None. The tests
    call such a function without that argument (no mask), as its signature allows; the line and the parameter are
    the proof (blind45's q13)."""
    text = f"{e.exc_type}: {e.message}"
    if e.exc_type not in ("AttributeError", "TypeError") or not _NONE_USED.search(text) or (
            "NoneType" not in text):
        return None
    where = [f.function for f in e.notebook_frames() if f.function != "<module>"]
    line = crash_source_line(e)
    if not where or not line:
        return None
    from autograder.grading.source_checks import last_function_def
    fn = last_function_def(cells, where[-1])
    if fn is None:
        return None
    positional = [*fn.args.posonlyargs, *fn.args.args]
    defaults = dict(zip([a.arg for a in positional][len(positional) - len(fn.args.defaults):], fn.args.defaults))
    defaults.update({a.arg: d for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults) if d is not None})
    guarded = _none_guarded(fn, [f.line for f in e.notebook_frames() if f.function == where[-1]][-1])
    for name, default in defaults.items():
        if (isinstance(default, ast.Constant) and default.value is None and name not in guarded
                and re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", line) and not re.search(
                    rf"\b{re.escape(name)}\s+is\s+(?:not\s+)?None\b", line)):
            shown = line[:100] + ("..." if len(line) > 100 else "")
            return Misconception("optional_argument_not_checked", f"{str(e).rstrip('. ')}{student_line(e)}, at "
                                 f"`{ascii(shown)[1:-1]}`: `{name}` defaults to None (`{where[-1]}` may be called "
                                 f"without it) and is used here as if it were given: "
                                 + describe("optional_argument_not_checked"))
    return None


# a plain Python function (the notebook's own def) where a value is used: as an operand, an argument torch parses, an
# object indexed or asked for an attribute (a method object is method_not_called's, in _CRASH_WORDS)
_FUNCTION_AS_VALUE = re.compile(r"unsupported operand type\(s\) for [^:]{1,16}: '[\w.]{1,40}' and 'function'|unsupported "
                                r"operand type\(s\) for [^:]{1,16}: 'function' and|bad operand type for unary [^:]{1,3}: "
                                r"'function'|must be (?:Tensor|real number|int|float), not function\b|'function' object "
                                r"(?:is not subscriptable|is not iterable|has no attribute '\w{1,40}')|invalid "
                                r"combination of arguments - got \([^)]{0,200}\bfunction\b")


def _function_used_uncalled(e: StudentCodeError, cells: Sequence[str]) -> Misconception | None:
    """callable_not_called from a crash whose words say a plain function met an operation that needs a value (`2.0
    ** row_entropy_bits`: "unsupported operand type(s) for ** or pow(): 'float' and 'function'"), where the line that
    raised names one of the notebook's own top-level functions without calling it (blind55's q10): the function
    itself handed on, its () left out. The line is parsed, never run; one such name, else None."""
    if e.exc_type not in ("TypeError", "AttributeError") or not _FUNCTION_AS_VALUE.search(f"{e.exc_type}: {e.message}"):
        return None
    line = crash_source_line(e)
    try:      # a compound statement's header (`if H ** f > 1:`) parses with a body after it
        tree = parse(line + " pass" if line.endswith(":") else line)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
             and id(n) not in called}
    from autograder.grading.source_checks import last_function_def
    # a local name the raising function bound to one of them (`H = row_entropy_bits`, then `2 ** H`)
    frames = [f.function for f in e.notebook_frames() if f.function != "<module>"]
    fn = last_function_def(cells, frames[-1]) if frames else None
    alias = {t.id: n.value.id for n in (ast.walk(fn) if fn is not None else ()) if isinstance(n, ast.Assign)
             and isinstance(n.value, ast.Name) for t in n.targets if isinstance(t, ast.Name)}
    own = sorted({(name, alias.get(name, name)) for name in sorted(names)[:20]       # a line's first names, bounded
                  if last_function_def(cells, alias.get(name, name)) is not None})
    if len(own) != 1:
        return None
    used, function = own[0]
    shown = line[:100] + ("..." if len(line) > 100 else "")
    what = f"`{function}` is your own function" if used == function else \
        f"`{used}` is your own function `{function}` (`{used} = {function}`, no call)"
    first = re.sub(r",? but expected one of:?\s*$", "", str(e).splitlines()[0]).rstrip(". :")
    return Misconception("callable_not_called", f"{first}{student_line(e)}, at "
                         f"`{ascii(shown)[1:-1]}`: {what}, used here without being called, so the operation gets the "
                         f"function itself, not its result; write `{function}(...)` with its arguments: "
                         + describe("callable_not_called"))


def _stopped_line(text: str, cells: Sequence[str]) -> str:
    """The line, stripped, of the cell that stopped as a missing answer's message quotes it (_STOPPED_AT), or "".
    Student text: matched, never run."""
    at = _STOPPED_AT.search(text)
    if at is None or not 0 < int(at.group(1)) <= len(cells):
        return ""
    lines = cells[int(at.group(1)) - 1].splitlines()
    return lines[int(at.group(2)) - 1].strip()[:300] if 0 < int(at.group(2)) <= len(lines) else ""


def _crash_with_line(e: StudentCodeError) -> Misconception | None:
    text, line = f"{e.exc_type}: {e.message}", crash_source_line(e)
    for words, code, key in _CRASH_WITH_LINE:
        if line and words.search(text) and code.search(line):
            shown = line[:100] + ("..." if len(line) > 100 else "")
            return Misconception(key, f"{str(e).rstrip('. ')}{student_line(e)}, at `{ascii(shown)[1:-1]}`: "
                                 + describe(key))
    return None


def crash_replayed(crash: str, replays: Mapping[str, Callable[[], object]]) -> str | None:
    """Which of `replays` (key -> a slip written out on the question's own inputs) raises the student's own
    crash: the same exception type and the same words, sizes included ("RuntimeError: Expected size for first
    two dimensions of batch2 tensor to be: [4, 64] but got: [4, 10]."; "key/form" for several forms of one
    slip). `crash` is a cell's error as the worker
    reports it ("Type: message (line n)", runner.cell_crash). The key when exactly one replay raises it (two
    slips giving one crash say nothing); None otherwise. A replay is the grader's own torch on its own
    tensors: nothing of the student's runs here."""
    # the worker's form: "Type: message (line n)", the message cut at 300 characters and possibly several lines
    whole = re.sub(r" \(line \d+\)$", "", crash.strip())
    said_by_student = whole.split("\n")[0].strip()
    if not said_by_student:
        return None
    cut = "\n" not in whole and len(whole.split(": ", 1)[-1]) >= 300    # the worker kept 300 characters
    hits = []
    for key, replay in replays.items():
        try:
            with _REPLAY_LOCK, warnings.catch_warnings():     # K.T on a 3-D tensor warns before it reverses every axis
                warnings.simplefilter("ignore")
                replay()
        except Exception as e:  # noqa: BLE001 - a replay's crash is the evidence
            said = f"{type(e).__name__}: {(str(e).splitlines() or [''])[0]}"
            if said == said_by_student or (cut and said[:len(said_by_student)] == said_by_student):
                hits.append(key.split("/")[0])     # "key/form": several forms of one slip
    return hits[0] if len(set(hits)) == 1 else None
