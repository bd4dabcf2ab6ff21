"""find_use after red-team round 60: a superseding def in a cell that parses but never compiles, match capture patterns,
finalizers and hooks (code no name of the graded function leads to), and library functions that store one argument into
another. Each attack must be found (or fail closed); each honest notebook must stay clean."""
from __future__ import annotations

import time

import nbformat
import pytest

from autograder.grading import source_checks
from autograder.grading.source_checks import SourceUnreadable, find_use
from tests.conftest import ROOT

NAMES = ("softmax", "softmin", "categorical", "logits_to_probs", "multinomial")
HEAD = "import torch\nimport torch.nn.functional as F"
CLEAN = ("def stable_softmax(x, dim=-1):\n    e = torch.exp(x - x.amax(dim=dim, keepdim=True))\n"
         "    return e / e.sum(dim=dim, keepdim=True)")
FIRST_TRY = "def stable_softmax(x, dim=-1):\n    return torch.softmax(x, dim=dim)"


def outcome(cells, func="stable_softmax"):
    try:
        return "found" if find_use(list(cells), func, NAMES) is not None else "clean"
    except SourceUnreadable:
        return "closed"


# --- 1. a superseding def whose cell never compiles ---------------------------------------------------------------

NEVER_COMPILES = {
    "stray_return": CLEAN + "\n\nreturn",
    "stray_continue": CLEAN + "\ncontinue",
    "top_level_yield": CLEAN + "\nyield 1",
    "top_level_await": CLEAN + "\nawait x",
    "async_for_at_top": CLEAN + "\nasync for a in b:\n    pass",
    "global_after_use": "def g():\n    print(y)\n    global y\n\n" + CLEAN,
    "late_future": CLEAN + "\nfrom __future__ import annotations",
    "duplicate_keyword": CLEAN + "\nprint(end='', end='')",
    "star_assignment": CLEAN + "\n*a = [1]",
    "import_star_in_def": CLEAN + "\ndef g():\n    from math import *",
    "return_in_class": CLEAN + "\nclass C:\n    return 1",
}


@pytest.mark.parametrize("kind", sorted(NEVER_COMPILES))
def test_a_rewrite_in_a_cell_that_never_compiles_supersedes_nothing(kind):
    source = NEVER_COMPILES[kind]
    with pytest.raises(SyntaxError):
        compile(source, "<cell>", "exec")
    assert outcome([HEAD, FIRST_TRY, source]) in ("found", "closed")


def test_a_rewrite_in_a_cell_that_warns_supersedes_nothing():
    # a notebook that made warnings errors (`warnings.simplefilter("error")`) has the worker's compile of a cell that
    # warns raise: the rewrite never ran
    warns = CLEAN + "\nassert (1, 'always true')"
    cells = [HEAD + "\nimport warnings\nwarnings.simplefilter('error')", FIRST_TRY, warns]
    assert outcome(cells) in ("found", "closed")


def test_a_first_try_that_did_not_parse_and_its_fix_stay_clean():
    broken = "def stable_softmax(x, dim=-1):\n    return torch.softmax(x, dim=dim"      # never ran
    assert outcome([HEAD, broken, CLEAN]) == "clean"


def test_a_compiling_rewrite_still_supersedes_the_first_try():
    assert outcome([HEAD, FIRST_TRY, CLEAN]) == "clean"
    assert outcome([HEAD, FIRST_TRY, "# fixed: no torch.softmax\n" + CLEAN + "\n\nprint(stable_softmax(torch.ones(3)))"]
                   ) == "clean"


def test_a_cell_that_does_not_compile_elsewhere_leaves_the_rewrite_superseding():
    plot = "import math\nfor i in range(3):\n    print(i)\nreturn   # a leftover"
    assert outcome([HEAD, FIRST_TRY, plot, CLEAN]) == "clean"


def test_a_clean_cell_that_does_not_compile_is_still_read():
    # the bindings of a cell that does not compile here are still followed (this interpreter may not be the worker's)
    leftover = "def stable_softmax(x, dim=-1):\n    return F.softmax(x, dim)\nreturn"
    assert outcome([HEAD, CLEAN, leftover]) in ("found", "closed")


# --- 2. match capture patterns ------------------------------------------------------------------------------------

@pytest.mark.parametrize("match", [
    "match F.softmax:\n    case stable_softmax:\n        pass",
    "match [1, F.softmax]:\n    case [1, *stable_softmax]:\n        pass",
    "match {'f': F.softmax}:\n    case {**stable_softmax}:\n        pass",
    "match (F.softmax, 1):\n    case (stable_softmax, 1) | (1, stable_softmax):\n        pass",
    "match F.softmax:\n    case str():\n        pass\n    case _ as stable_softmax:\n        pass",
    "def rebind():\n    global stable_softmax\n    match F.softmax:\n        case stable_softmax:\n            pass\n\nrebind()",
    "if True:\n    match F.softmax:\n        case stable_softmax:\n            pass",
])
def test_a_capture_pattern_binding_the_graded_name(match):
    assert outcome([HEAD, CLEAN, match]) in ("found", "closed")


def test_a_capture_pattern_binding_a_global_the_graded_function_reads():
    graded = "def stable_softmax(x, dim=-1):\n    return OPS[0](x, dim)"
    assert outcome([HEAD, "OPS = [torch.exp]", graded, "match [F.softmax]:\n    case OPS:\n        pass"]) in (
        "found", "closed")


def test_a_capture_pattern_before_a_rewrite_keeps_the_earlier_bindings():
    # a match binding is not a def: it keeps every earlier binding of the name (_superseded)
    cells = [HEAD, FIRST_TRY, "match 1:\n    case stable_softmax:\n        pass", CLEAN]
    assert outcome(cells) == "found"


def test_a_match_on_a_string_in_a_helper_is_clean():
    helper = ("def _reduce(x, dim, how):\n    match how:\n        case 'sum':\n            return x.sum(dim, keepdim=True)\n"
              "        case 'max':\n            return x.amax(dim, keepdim=True)\n        case other:\n"
              "            raise ValueError(other)")
    graded = ("def stable_softmax(x, dim=-1):\n    e = torch.exp(x - _reduce(x, dim, 'max'))\n"
              "    return e / _reduce(e, dim, 'sum')")
    top = "match 'demo':\n    case name:\n        print(name)"
    assert outcome([HEAD, helper, graded, top]) == "clean"


# --- 3. finalizers and hooks ------------------------------------------------------------------------------------

QUEUE = "_jobs = []\n"
GRADED_QUEUES = ("def stable_softmax(x, dim=-1):\n    out = torch.empty_like(x)\n    _jobs.append((x, out, dim))\n"
                 "    junk = [[] for _ in range(5000)]\n    return out\n")
# the finalizer computes into the queued buffer with no store the pool sees (torch.Tensor.copy_ unbound, out=)
FILL = "        for x, out, dim in _jobs:\n            torch.Tensor.copy_(out, torch.softmax(x, dim))\n"

FINALIZERS = {
    "__del__": "class _S:\n    def __init__(self):\n        self.me = self\n    def __del__(self):\n" + FILL + "_S()\n",
    "__del__assigned": "class _S:\n    pass\n\ndef _fin(self):\n" + FILL.replace("        ", "    ", 1).replace(
        "            ", "        ") + "\n_S.__del__ = _fin\n",
    "__del__lambda": ("class _S:\n    __del__ = lambda self: [torch.Tensor.copy_(o, torch.softmax(x, d)) "
                      "for x, o, d in _jobs]\n"),
    "generator_finally": ("def _gen():\n    try:\n        yield\n    finally:\n"
                          "        for x, out, dim in _jobs:\n            torch.Tensor.copy_(out, torch.softmax(x, dim))\n"
                          "_g = _gen()\nnext(_g)\n"),
    "weakref_finalize": ("import weakref\nclass _T:\n    pass\n\ndef _cb():\n" + FILL.replace("        ", "    ", 1)
                         .replace("            ", "        ") + "\nweakref.finalize(_T(), _cb)\n"),
    "weakref_ref_callback": ("from weakref import ref as _r\nclass _T:\n    pass\n\n_keep = _r(_T(), "
                             "lambda w: [torch.Tensor.copy_(o, torch.softmax(x, d)) for x, o, d in _jobs])\n"),
    "audit_hook": ("import sys\nsys.addaudithook(lambda ev, args: [torch.Tensor.copy_(o, torch.softmax(x, d)) "
                   "for x, o, d in _jobs])\n"),
    "breakpointhook": ("import sys\nsys.breakpointhook = lambda: [torch.Tensor.copy_(o, torch.softmax(x, d)) "
                       "for x, o, d in _jobs]\n"),
    "signal_handler": ("import signal\nsignal.signal(signal.SIGALRM, lambda s, f: [torch.Tensor.copy_(o, "
                       "torch.softmax(x, d)) for x, o, d in _jobs])\n"),
    "module_forward_hook": ("torch.nn.modules.module.register_module_forward_hook(lambda m, i, o: [torch.Tensor.copy_("
                            "b, torch.softmax(x, d)) for x, b, d in _jobs])\n"),
    "dispatch_mode": ("class _M(torch.utils._python_dispatch.TorchDispatchMode):\n"
                      "    def __torch_dispatch__(self, func, types, args=(), kwargs=None):\n"
                      "        return torch.ops.aten._softmax(args[0], -1, False)\n"),
    "hook_in_a_function": ("def _setup():\n    import sys\n    sys.breakpointhook = lambda: [torch.Tensor.copy_(o, "
                           "torch.softmax(x, d)) for x, o, d in _jobs]\n\n_setup()\n"),
}


@pytest.mark.parametrize("kind", sorted(FINALIZERS))
def test_a_finalizer_or_hook_is_walked_from_the_graded_function(kind):
    assert outcome([HEAD, QUEUE + FINALIZERS[kind], GRADED_QUEUES]) in ("found", "closed"), kind


@pytest.mark.parametrize("cell", [
    "import weakref\nr = weakref.finalize",
    "import weakref as w\nm = w",
    "import sys\nhooks = sys.meta_path",
    "C = type('C', (), {'__del__': lambda self: None})",
    "C = type('C', (), dict(__del__=lambda self: None))",
])
def test_a_registrar_handed_on_uncalled_fails_closed(cell):
    assert outcome([HEAD, cell, CLEAN]) == "closed"


def test_a_finalizer_use_is_named_as_such():
    use = find_use([HEAD, QUEUE + FINALIZERS["__del__"], GRADED_QUEUES], "stable_softmax", NAMES)
    assert use is not None and "finalizer" in use.describe()


def test_classes_generators_and_module_settings_without_finalizers_stay_clean():
    cells = [HEAD + "\nimport sys\nimport signal",
             "class Buffer:\n    def __init__(self, n):\n        self.data = [0.0] * n\n    def __len__(self):\n"
             "        return len(self.data)\n",
             "def batches(xs, n):\n    for i in range(0, len(xs), n):\n        yield xs[i:i + n]\n",
             "torch.backends.cudnn.deterministic = True\nsys.path.append('..')\nprint(sys.version_info >= (3, 8))\n"
             "print(signal.SIGINT)",
             "x = torch.randn(4, 9)\nassert torch.allclose(stable_softmax(x), torch.softmax(x, dim=-1))",
             CLEAN]
    assert outcome(cells) == "clean"


def test_the_graded_functions_own_use_is_reported_before_a_finalizers():
    cells = [HEAD, QUEUE + FINALIZERS["__del__"], FIRST_TRY]
    use = find_use(cells, "stable_softmax", NAMES)
    assert use is not None and "finalizer" not in use.describe()


# --- 4. library functions that store into their arguments --------------------------------------------------------

GRADED_READS_BOX = "def stable_softmax(x, dim=-1):\n    return box['f'](x, dim=dim)"
GRADED_READS_OPS = "def stable_softmax(x, dim=-1):\n    return ops[0](x, dim=dim)"
LIBRARY_STORES = {
    "operator_setitem": ("import operator\nbox = {}\noperator.setitem(box, 'f', F.softmax)", GRADED_READS_BOX),
    "operator_setitem_imported": ("from operator import setitem as put\nbox = {}\nput(box, 'f', F.softmax)",
                                  GRADED_READS_BOX),
    "operator_iadd": ("import operator\nops = []\nops2 = operator.iadd(ops, [F.softmax])", GRADED_READS_OPS),
    "heappush": ("import heapq\nops = []\nheapq.heappush(ops, F.softmax)", GRADED_READS_OPS),
    "bisect_insort": ("import bisect\nops = []\nbisect.insort(ops, F.softmax)", GRADED_READS_OPS),
    "list_append_unbound": ("ops = []\nlist.append(ops, F.softmax)", GRADED_READS_OPS),
    "dict_setitem_unbound": ("box = {}\ndict.__setitem__(box, 'f', F.softmax)", GRADED_READS_BOX),
    "dict_update_unbound": ("box = {}\ndict.update(box, f=F.softmax)", GRADED_READS_BOX),
    "deque_append_unbound": ("import collections\nops = collections.deque()\ncollections.deque.append(ops, F.softmax)",
                             GRADED_READS_OPS),
    "map_setitem": ("import operator\nbox = {}\nlist(map(operator.setitem, [box], ['f'], [F.softmax]))",
                    GRADED_READS_BOX),
    "in_a_function": ("def fill(o):\n    list.append(o, F.softmax)\n\nops = []\nfill(ops)", GRADED_READS_OPS),
}


@pytest.mark.parametrize("kind", sorted(LIBRARY_STORES))
def test_a_library_function_that_stores_its_argument(kind):
    setup, graded = LIBRARY_STORES[kind]
    assert outcome([HEAD, setup, graded]) in ("found", "closed"), kind


def test_heapq_and_lists_of_numbers_stay_clean():
    cells = [HEAD + "\nimport heapq\nimport operator",
             "sizes = []\nfor n in (5, 1, 3):\n    heapq.heappush(sizes, n)\nlist.append(sizes, 7)\n"
             "total = operator.add(1, 2)",
             "def stable_softmax(x, dim=-1):\n    e = torch.exp(x - x.amax(dim=dim, keepdim=True))\n"
             "    return e / e.sum(dim=dim, keepdim=True) * (len(sizes) > 0)"]
    assert outcome(cells) == "clean"


# --- examples and cost ----------------------------------------------------------------------------------------------

EXAMPLES = ROOT / "examples" / "submissions"


def _cells(path):
    nb = nbformat.read(path, as_version=4)
    return [c.source for c in nb.cells if c.cell_type == "code"]


def test_no_example_notebook_has_implicit_code():
    for path in sorted(EXAMPLES.glob("*/*.ipynb")):
        nb = source_checks._Notebook(_cells(path))
        assert not nb.dynamic, (path.name, nb.dynamic)
        assert all(not isinstance(v, (source_checks.ast.FunctionDef, source_checks.ast.AsyncFunctionDef))
                   for v, _ch in nb.implicit), path.name


def test_find_use_on_full_marks_stays_cheap():
    cells = _cells(EXAMPLES / "sdpa-from-scratch" / "full_marks.ipynb")
    spent = []
    for _ in range(5):
        source_checks._parsed.cache_clear()
        start = time.process_time()
        assert find_use(cells, "stable_softmax", NAMES) is None
        spent.append(time.process_time() - start)
    assert min(spent) < 0.05, spent
