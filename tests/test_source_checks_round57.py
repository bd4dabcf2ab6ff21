"""Red-team round 57: what the static rules (sdpa q3 test_no_builtin_softmax, q5 test_no_torch_sdpa_in_source) now
allow, and the attacks on each relaxation. source_checks.find_use no longer fails closed on `gc.collect()`,
`SimpleNamespace(...)` or `"Q" in globals()`, and no longer follows a first try that a later unconditional top-level
`def` of the same name replaced for good; every way to use those forms to hide torch.softmax or
F.scaled_dot_product_attention below must still be found or fail closed (SourceUnreadable)."""
from __future__ import annotations

import nbformat
import pytest

from autograder.grading.source_checks import SourceUnreadable, find_use
from tests.conftest import ROOT

SOFTMAX = ("softmax", "softmin")
SDPA = "scaled_dot_product_attention"
IMPORTS = "import math\nimport torch\nimport torch.nn.functional as F"
CLEAN = ("def stable_softmax(x, dim=-1):\n    e = torch.exp(x - x.amax(dim=dim, keepdim=True))\n"
         "    return e / e.sum(dim=dim, keepdim=True)")
FIRST_TRY = "def stable_softmax(x, dim=-1):\n    return torch.softmax(x, dim=dim)   # first try"
CLEAN_SDPA = ("def scaled_dot_product_attention(Q, K, V, mask=None):\n"
              "    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1))\n    return stable_softmax(s) @ V")


def outcome(cells, func="stable_softmax", names=SOFTMAX):
    """'clean', 'found' or 'closed' (SourceUnreadable)."""
    try:
        return "found" if find_use(cells, func, names) is not None else "clean"
    except SourceUnreadable:
        return "closed"


# ---------------------------------------------------------------------------------------------------
# what is allowed now (honest lines)
# ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "import gc\ngc.collect()",
    "import gc as g\ng.collect(); g.disable(); g.enable(); print(g.isenabled(), g.get_count())",
    "from gc import collect\ncollect()",
    "from types import SimpleNamespace\ncfg = SimpleNamespace(d_k=8, T=5)\nprint(cfg.d_k)",
    "import types\ncfg = types.SimpleNamespace(d_k=8)",
    "if 'Q' not in globals():\n    print('run the data cell first')",
    "print('Q' in globals(), 'K' in locals(), 'V' in vars())",
    "def f():\n    return 'x' in globals()",
    "import gc\ndef stable_softmax(x, dim=-1):\n    gc.collect()\n    return x.exp() / x.exp().sum(dim, True)",
])
def test_honest_dynamic_lines_leave_the_rule_readable(line):
    assert outcome([IMPORTS, line, CLEAN, CLEAN_SDPA]) == "clean"
    assert outcome([IMPORTS, line, CLEAN, CLEAN_SDPA], SDPA, SDPA) == "clean"


def test_a_namespace_the_graded_function_reads_is_followed():
    ns = "from types import SimpleNamespace\ncfg = SimpleNamespace(scale=2.0)"
    graded = ("def stable_softmax(x, dim=-1):\n    e = torch.exp(x * cfg.scale - (x * cfg.scale).amax(dim, True))\n"
              "    return e / e.sum(dim, True)")
    assert outcome([IMPORTS, ns, graded]) == "clean"


@pytest.mark.parametrize("between", [
    "",
    "# a comment only\n",
    "grader_note = 'q3'",                                           # other names, any statement
    "def scaled_dot_product_attention(Q, K, V, mask=None):\n"    # a body's call resolves the name when called,
    "    return stable_softmax(Q @ K.transpose(-2, -1)) @ V",      # and this one is not called before the rewrite
    "if 'stable_softmax' in globals():\n    print('defined')",     # membership hands out nothing
])
def test_a_superseded_first_try_is_not_followed(between):
    cells = [IMPORTS, FIRST_TRY] + ([between] if between else []) + [CLEAN, CLEAN_SDPA]
    assert outcome(cells) == "clean"


def test_superseded_in_the_same_cell_and_for_a_helper():
    assert outcome([IMPORTS, FIRST_TRY + "\n\n\n" + CLEAN]) == "clean"
    helper_try = "def _norm(x, dim):\n    return F.softmax(x, dim)"
    helper = "def _norm(x, dim):\n    e = x.exp()\n    return e / e.sum(dim, keepdim=True)"
    graded = "def stable_softmax(x, dim=-1):\n    return _norm(x - x.amax(dim, keepdim=True), dim)"
    assert outcome([IMPORTS, helper_try, helper, graded]) == "clean"
    # annotated with builtins, a docstring and a plain def before it in its cell: it still runs for sure
    annotated = ('"""Question 3."""\ndef _unused(a, b=2):\n    return a\n'
                 "def stable_softmax(x, dim: int = -1) -> 'torch.Tensor':\n    return x.exp() / x.exp().sum(dim, True)")
    assert outcome([IMPORTS, FIRST_TRY, annotated]) == "clean"


# ---------------------------------------------------------------------------------------------------
# gc: only calls of its harmless functions
# ---------------------------------------------------------------------------------------------------

GC_ATTACKS = {
    # the forbidden binding is simply followed, gc.collect() or not
    "collect_then_rebind": ([IMPORTS, CLEAN, "import gc\ngc.collect()\nstable_softmax = torch.softmax"], "found"),
    "alias_reaches": ([IMPORTS, CLEAN, "import gc as g\nr = g.get_referrers(stable_softmax)"], "closed"),
    "from_import_reaches": ([IMPORTS, CLEAN, "from gc import get_referrers\nr = get_referrers(F)"], "closed"),
    "mixed_from_import": ([IMPORTS, CLEAN, "from gc import collect, get_objects"], "closed"),
    "star": ([IMPORTS, CLEAN, "from gc import *\ncollect()"], "closed"),
    "computed_getattr": ([IMPORTS, CLEAN, "import gc\nf = getattr(gc, 'get_' + 'referrers')"], "closed"),
    "module_aliased": ([IMPORTS, CLEAN, "import gc\ng = gc\nobjs = g.get_objects()"], "closed"),
    "module_passed": ([IMPORTS, CLEAN, "import gc\nimport operator\nf = operator.attrgetter('get_objects')(gc)"],
                      "closed"),
    "function_not_called": ([IMPORTS, CLEAN, "import gc\nc = gc.collect\nmod = c.__self__"], "closed"),
    "imported_not_called": ([IMPORTS, CLEAN, "from gc import collect\nmod = collect.__self__"], "closed"),
    "class_attribute": ([IMPORTS, CLEAN, "class A:\n    import gc\nobjs = A.gc.get_objects()"], "closed"),
    "garbage_list": ([IMPORTS, CLEAN, "import gc\ngc.set_debug(gc.DEBUG_SAVEALL)\nx = gc.garbage"], "closed"),
    "callbacks": ([IMPORTS, CLEAN, "import gc\ngc.callbacks.append(print)"], "closed"),
    "submodule_spelling": ([IMPORTS, CLEAN, "import gc.x"], "closed"),
    "graded_function_passes_gc": ([IMPORTS, "import gc", "def stable_softmax(x, dim=-1):\n    h = gc\n"
                                   "    return x.exp() / x.exp().sum(dim, True)"], "closed"),
}


@pytest.mark.parametrize("kind", sorted(GC_ATTACKS))
def test_gc_attacks(kind):
    cells, expected = GC_ATTACKS[kind]
    assert outcome(cells) == expected


# ---------------------------------------------------------------------------------------------------
# types: SimpleNamespace, called, and nothing else
# ---------------------------------------------------------------------------------------------------

NS = "from types import SimpleNamespace as S"
TYPES_ATTACKS = {
    "keywords_are_walked": ([IMPORTS, NS, "ns = S(my_norm=F.softmax)",
                             "def stable_softmax(x, dim=-1):\n    return ns.my_norm(x, dim)"], "found"),
    "computed_keywords_are_walked": ([IMPORTS, NS, "d = {'my_' + 'norm': F.softmax}\nns = S(**d)",
                                      "def stable_softmax(x, dim=-1):\n    return ns.my_norm(x, dim)"], "found"),
    "init_on_a_module": ([IMPORTS, NS, "S.__init__(F, my_norm=torch.softmax)",
                          "def stable_softmax(x, dim=-1):\n    return F.my_norm(x, dim)"], "closed"),
    "class_aliased": ([IMPORTS, NS, "T = S\nT.__init__(F, my_norm=torch.softmax)",
                       "def stable_softmax(x, dim=-1):\n    return F.my_norm(x, dim)"], "closed"),
    "subclassed": ([IMPORTS, NS, "class K(S):\n    pass", "k = K()",
                    "def stable_softmax(x, dim=-1):\n    return x.exp() / x.exp().sum(dim, True)"], "closed"),
    # SimpleNamespace's __reduce__ hands out the instance's own dict
    "reduce_hands_out_the_dict": ([IMPORTS, NS, "ns = S()\nns.__reduce__()[2]['my_norm'] = F.softmax",
                                   "def stable_softmax(x, dim=-1):\n    return ns.my_norm(x, dim)"], "closed"),
    "reduce_ex": ([IMPORTS, NS, "ns = S()\nns.__reduce_ex__(2)[2]['my_norm'] = F.softmax",
                   "def stable_softmax(x, dim=-1):\n    return ns.my_norm(x, dim)"], "closed"),
    "vars_of_the_instance": ([IMPORTS, NS, "ns = S()\nvars(ns)['my_norm'] = F.softmax",
                              "def stable_softmax(x, dim=-1):\n    return ns.my_norm(x, dim)"], "closed"),
    "function_type": ([IMPORTS, CLEAN, "import types\nf = types.FunctionType(stable_softmax.__code__, {})"], "closed"),
    "code_type": ([IMPORTS, CLEAN, "from types import CodeType"], "closed"),
    "method_type": ([IMPORTS, CLEAN, "from types import SimpleNamespace, MethodType"], "closed"),
    "module_type": ([IMPORTS, CLEAN, "import types\nm = types.ModuleType('torch')"], "closed"),
    "new_class": ([IMPORTS, CLEAN, "import types\nC = types.new_class('C')"], "closed"),
    "getattr_on_the_module": ([IMPORTS, CLEAN, "import types\nS = getattr(types, 'Simple' + 'Namespace')"],
                              "closed"),
    "module_passed": ([IMPORTS, CLEAN, "import types\nt = types\nf = t.FunctionType"], "closed"),
}


@pytest.mark.parametrize("kind", sorted(TYPES_ATTACKS))
def test_types_attacks(kind):
    cells, expected = TYPES_ATTACKS[kind]
    assert outcome(cells) == expected


# ---------------------------------------------------------------------------------------------------
# globals() / locals() / vars(): a membership test only
# ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "'x' in globals() or globals().update(stable_softmax=torch.softmax)",
    "if 'x' not in globals():\n    globals()['stable_softmax'] = torch.softmax",
    "globals().setdefault('stable_softmax', torch.softmax)",
    "g = globals()\ng['stable_softmax'] = torch.softmax",
    "d = {}\nok = 'x' in globals() in [d]",                 # chained: the dict is handed to the list's __contains__
    "ok = globals() in [1]",
    "f = globals().get('stable_' + 'softmax')",
    "ks = globals().keys()\nm = ks.mapping",
    "print(globals())",
    "def ns():\n    return globals()",
    "vars(F)['my_norm'] = torch.softmax",
    "vars()['stable_softmax'] = torch.softmax",
    "locals()['stable_softmax'] = torch.softmax",
    "ok = 'x' in globals(1)",
    "g = globals",
])
def test_namespace_attacks_fail_closed(line):
    assert outcome([IMPORTS, CLEAN, line]) == "closed"


# ---------------------------------------------------------------------------------------------------
# setattr(self, ...): left closed
# ---------------------------------------------------------------------------------------------------

CONFIG = ("class Config:\n    def __init__(self, **kw):\n        for k, v in kw.items():\n"
          "            setattr(self, k, v)\n\ncfg = Config(d_k=8, T=5)")


@pytest.mark.parametrize("extra", [
    "",                                                           # the honest Config: still closed (see the report)
    "Config.__init__(F, my_norm=torch.softmax)",                  # a module as self
    "Config.__init__(torch.nn.functional, my_norm=torch.softmax)",
    "type(cfg).__init__(F, my_norm=torch.softmax)",
    "class Sub(type(cfg)):\n    def again(self, **kw):\n        super().__init__(**kw)\ns = Sub()\n"
    "def g(o):\n    o.again(my_norm=F.softmax)\ng(s)",               # __init__ re-run on an instance it keeps
])
def test_setattr_on_self_stays_closed(extra):
    graded = "def stable_softmax(x, dim=-1):\n    return cfg.my_norm(x, dim) if hasattr(cfg, 'my_norm') else x"
    assert outcome([IMPORTS, CONFIG, extra, graded]) == "closed"


# ---------------------------------------------------------------------------------------------------
# superseded definitions: every way to keep the first try alive is still followed
# ---------------------------------------------------------------------------------------------------

SUPERSEDED_ATTACKS = {
    "captured_by_alias": [FIRST_TRY, "old = stable_softmax",
                          "def stable_softmax(x, dim=-1):\n    return old(x, dim)"],
    "captured_by_alias_unused": [FIRST_TRY, "old = stable_softmax", CLEAN],
    "captured_by_decorator": [FIRST_TRY, "def wrap(f):\n    g = stable_softmax\n    return lambda x, dim=-1: g(x, dim)",
                              "@wrap\n" + CLEAN],
    "decorator_naming_it": [FIRST_TRY, "import functools",
                            "@functools.wraps(stable_softmax)\n" + CLEAN],
    "captured_by_default": [FIRST_TRY, "def helper(x, dim, f=stable_softmax):\n    return f(x, dim)",
                            "def stable_softmax(x, dim=-1):\n    return helper(x, dim)"],
    "captured_by_partial": [FIRST_TRY, "import functools\nsm = functools.partial(stable_softmax, dim=-1)",
                            "def stable_softmax(x, dim=-1):\n    return sm(x)"],
    "captured_by_lambda": [FIRST_TRY, "h = lambda x, d: stable_softmax(x, d)",
                           "def stable_softmax(x, dim=-1):\n    return h(x, dim) if False else x"],
    "captured_in_a_list": [FIRST_TRY, "fns = [stable_softmax]",
                           "def stable_softmax(x, dim=-1):\n    return fns[0](x, dim)"],
    "captured_by_closure": [FIRST_TRY, "def make():\n    f = stable_softmax\n    return lambda x, d: f(x, d)\nmk = make()",
                            "def stable_softmax(x, dim=-1):\n    return mk(x, dim)"],
    "captured_by_a_call_before": [FIRST_TRY, "def grab():\n    global cap\n    cap = stable_softmax\ngrab()",
                                  "def stable_softmax(x, dim=-1):\n    return cap(x, dim)"],
    "captured_by_a_thread": [FIRST_TRY, "import threading\ndef grab():\n    global cap\n    cap = stable_softmax\n"
                             "threading.Timer(0, grab).start()",
                             "def stable_softmax(x, dim=-1):\n    return cap(x, dim)"],
    "captured_in_a_class_body": [FIRST_TRY, "class K:\n    f = stable_softmax",
                                 "def stable_softmax(x, dim=-1):\n    return K.f(x, dim)"],
    "called_at_the_top_level": [FIRST_TRY, "print(stable_softmax(torch.randn(3)))", CLEAN],
    "later_def_under_if": [FIRST_TRY, "if True:\n" + "\n".join("    " + line for line in CLEAN.splitlines())],
    "later_def_in_try": [FIRST_TRY, "try:\n" + "\n".join("    " + line for line in CLEAN.splitlines())
                         + "\nexcept Exception:\n    pass"],
    "cell_raises_before_it": [FIRST_TRY, "1 / 0\n" + CLEAN],
    "cell_may_raise_before_it": [FIRST_TRY, "torch.nope()\n" + CLEAN],
    "its_default_may_raise": [FIRST_TRY, "def stable_softmax(x, dim=DIM_UNBOUND):\n    return x"],
    "its_annotation_may_raise": [FIRST_TRY, "torch = None", "def stable_softmax(x: torch.Tensor, dim=-1):\n    return x"],
    "rebound_builtin_annotation": [FIRST_TRY, "int = None",
                                   "def stable_softmax(x, dim: int.nope = -1):\n    return x"],
    "decorated_first_try": ["REG = []\ndef register(f):\n    REG.append(f)\n    return f",
                            "@register\n" + FIRST_TRY, "def stable_softmax(x, dim=-1):\n    return REG[0](x, dim)"],
    "first_try_default_calls": ["def stash(v):\n    return v",
                                "def stable_softmax(x, dim=-1, _f=stash(torch.softmax)):\n    return x", CLEAN],
    "first_try_assigned": ["stable_softmax = torch.softmax", CLEAN],
    "global_store_runs_later": [CLEAN, "def later():\n    global stable_softmax\n    stable_softmax = torch.softmax",
                                "def stable_softmax(x, dim=-1):\n    return x\nlater()"],
    "rebound_after_the_def": [FIRST_TRY, CLEAN, "stable_softmax = torch.softmax"],
    "conditional_rebinding_after": [CLEAN, "if True:\n    stable_softmax = F.softmax"],
    "unparsed_cell_between": [FIRST_TRY, "def broken(:", CLEAN],
    "mutated_before": [FIRST_TRY, "stable_softmax.keep = stable_softmax", CLEAN],
}


@pytest.mark.parametrize("kind", sorted(SUPERSEDED_ATTACKS))
def test_superseded_attacks_are_still_followed(kind):
    cells = [IMPORTS] + SUPERSEDED_ATTACKS[kind]
    assert outcome(cells) in ("found", "closed"), f"{kind}: the first try's torch.softmax went unseen"


def test_sdpa_first_try_captured_is_found():
    first = (f"def {SDPA}(Q, K, V, mask=None):\n    return F.{SDPA}(Q, K, V, attn_mask=mask)")
    later = f"def {SDPA}(Q, K, V, mask=None):\n    return mine(Q, K, V, mask)"
    assert outcome([IMPORTS, CLEAN, first, f"mine = {SDPA}", later], SDPA, SDPA) == "found"
    assert outcome([IMPORTS, CLEAN, first, CLEAN_SDPA], SDPA, SDPA) == "clean"


# ---------------------------------------------------------------------------------------------------
# through the grader (one full grade each)
# ---------------------------------------------------------------------------------------------------

EXAMPLES = ROOT / "examples" / "submissions"


def _with_cells_before(tmp_path, first_line, sources, name):
    nb = nbformat.read(EXAMPLES / "sdpa-from-scratch" / "full_marks.ipynb", as_version=4)
    at = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.source.startswith(first_line))
    for source in reversed(sources):
        nb.cells.insert(at, nbformat.v4.new_code_cell(source))
    path = tmp_path / f"{name}.ipynb"
    nbformat.write(nb, path)
    return path


def test_a_captured_first_try_loses_the_rule_point(tmp_path, grader):
    # the graded stable_softmax (full_marks' own) calls nothing; this one keeps the first try as `old` and the
    # rewrite below it is swapped for one that calls it
    path = _with_cells_before(tmp_path, "def stable_softmax(", [
        FIRST_TRY, "old = stable_softmax",
        "def stable_softmax(x, dim=-1):\n    return old(x, dim)"], "captured")
    nb = nbformat.read(path, as_version=4)
    nb.cells = [c for c in nb.cells if not (c.cell_type == "code" and c.source.startswith('def stable_softmax(x, dim=-1):\n    """'))]
    nbformat.write(nb, path)
    r = grader.grade(path, "sdpa-from-scratch", seed=57)
    lost = {f"{t.question}:{t.name}" for t in r.tests if t.score < t.max_score and t.max_score > 0}
    assert "q3:test_no_builtin_softmax" in lost, lost


def test_gc_collect_beside_a_forbidden_rebinding_loses_the_rule_point(tmp_path, grader):
    path = _with_cells_before(tmp_path, "grader.check(\"q3\")",
                              ["import gc\ngc.collect()\nstable_softmax = torch.softmax"], "gc_rebind")
    r = grader.grade(path, "sdpa-from-scratch", seed=57)
    lost = {f"{t.question}:{t.name}" for t in r.tests if t.score < t.max_score and t.max_score > 0}
    assert "q3:test_no_builtin_softmax" in lost, lost
