"""Red-team round 46: what this round confirmed (each test failed before its gap was closed).

- torch's own fused attention kernel under another name: `torch._scaled_dot_product_flash_attention_for_cpu`
  (also `torch.ops.aten._scaled_dot_product_flash_attention_for_cpu`) does not contain the forbidden name
  "scaled_dot_product_attention", so neither the run-time guard (`calls.ForbiddenAPIGuard`, a substring of the
  function's name) nor the static rule (`find_use(..., "scaled_dot_product_attention")`) sees it: a
  scaled_dot_product_attention that pads d_k/d_v and calls it scored 35/35.
- TorchScript compiled from a string (`torch.jit.CompilationUnit("def f(...): ... F.scaled_dot_product_attention
  ...")`): the string is not read by the static rule, and a scripted function's ops do not pass through
  Python's torch-function modes, so the run-time guard never sees the call either: 35/35 with the forbidden API
  itself. `torch.jit.CompilationUnit` loads code out of sight the way `exec` does, and is not refused.
- Names resolved from strings by standard-library functions that the static rule does not treat as getattr:
  `from operator import attrgetter as ag` / `methodcaller as mc` (the call's name is the alias), `pydoc.locate(
  "torch.softmax")`, `string.Formatter().get_field("0.softmax", [x], {})`, `typing.get_type_hints` of a string
  annotation (an eval in typing), `map(torch.__getattribute__, dir(torch))` (the bound method passed, not
  called): a stable_softmax that is torch's softmax kept test_no_builtin_softmax (35/35).
"""
from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from tests.conftest import ROOT

EXAMPLES = ROOT / "examples" / "submissions" / "sdpa-from-scratch"


def _replace_def(src: Path, name: str, code: str, dest: Path) -> Path:
    nb = nbformat.read(src, as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code" and c.source.lstrip().startswith(f"def {name}("))
    cell.source = code
    nbformat.write(nb, dest)
    return dest


def _test(r, name: str):
    return next(t for t in r.tests if t.name == name or t.name.endswith(": " + name) or t.name.endswith(name))


# --- torch's fused kernel under another name ------------------------------------------------------------------

FLASH_CPU = '''def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k, d_v = Q.shape[-1], V.shape[-1]
    D = max(d_k, d_v)
    pad = lambda t: torch.nn.functional.pad(t, (0, D - t.shape[-1]))
    lead = torch.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    Tq, Tk = Q.shape[-2], K.shape[-2]
    q = pad(Q).expand(*lead, Tq, D).reshape(1, -1, Tq, D)
    k = pad(K).expand(*lead, Tk, D).reshape(1, -1, Tk, D)
    v = pad(V).expand(*lead, Tk, D).reshape(1, -1, Tk, D)
    am = None
    if mask is not None:
        m = mask.expand(*lead, Tq, Tk).reshape(1, -1, Tq, Tk)
        am = torch.zeros(m.shape, dtype=Q.dtype).masked_fill(~m, float("-inf"))
    out = torch._scaled_dot_product_flash_attention_for_cpu(q, k, v, attn_mask=am, scale=1 / math.sqrt(d_k))[0]
    out = out.reshape(*lead, Tq, D)[..., :d_v]
    if mask is not None:
        out = torch.where(mask.expand(*lead, Tq, Tk).any(-1, keepdim=True), out, torch.zeros_like(out))
    return out
'''

JIT_SDPA = '''_cu = torch.jit.CompilationUnit(\'\'\'
def f(Q, K, V, mask: Optional[Tensor]):
    out = torch.nn.functional.scaled_dot_product_attention(Q, K, V, attn_mask=mask)
    if mask is not None:
        out = torch.where(mask.any(-1, keepdim=True), out, torch.zeros_like(out))
    return out
\'\'\')
def scaled_dot_product_attention(Q, K, V, mask=None):
    return _cu.f(Q, K, V, mask)
'''


@pytest.mark.parametrize("code", [FLASH_CPU, JIT_SDPA], ids=["flash_for_cpu", "torchscript_string"])
def test_torchs_fused_attention_is_not_full_marks(tmp_path, grader, code):
    path = _replace_def(EXAMPLES / "full_marks.ipynb", "scaled_dot_product_attention", code, tmp_path / "fused.ipynb")
    r = grader.grade(path, "sdpa-from-scratch", seed=5)
    assert r.status == "rejected" or (_test(r, "test_no_torch_sdpa_in_source").score == 0
                                      and _test(r, "test_no_torch_sdpa_at_run_time").score == 0), (r.status, r.score)
    assert r.score < r.max_score


def test_the_run_time_guard_refuses_the_fused_kernels_by_any_name():
    import torch
    from autograder.sandbox.calls import ForbiddenAPIError, ForbiddenAPIGuard
    q = torch.randn(1, 1, 4, 8)
    for fn in (torch._scaled_dot_product_flash_attention_for_cpu,
               torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default):
        with pytest.raises(ForbiddenAPIError):
            with ForbiddenAPIGuard(("scaled_dot_product_attention",)):
                fn(q, q, q)


def test_find_use_sees_the_fused_kernel_and_torchscript_strings():
    # the static rule reads the forbidden API's names as the guard does: with its kernels (calls.forbidden_names)
    from autograder.grading.source_checks import SourceUnreadable, find_use
    from autograder.sandbox.calls import forbidden_names
    for code in (FLASH_CPU, JIT_SDPA):
        try:
            use = find_use(["import math, torch\n" + code], "scaled_dot_product_attention",
                           forbidden_names(("scaled_dot_product_attention",)))
        except SourceUnreadable:
            continue    # failing closed is a fix too
        assert use is not None, code


# --- names resolved from strings by the standard library -----------------------------------------------------

SOFTMAX_BY_STRING = {
    "attrgetter_alias": 'from operator import attrgetter as ag\ndef stable_softmax(x, dim=-1):\n'
                        '    return ag("softmax")(torch)(x, dim)\n',
    "methodcaller_alias": 'from operator import methodcaller as mc\ndef stable_softmax(x, dim=-1):\n'
                          '    return mc("softmax", dim)(x)\n',
    "pydoc_locate": 'import pydoc\ndef stable_softmax(x, dim=-1):\n    return pydoc.locate("torch.softmax")(x, dim)\n',
    "formatter": 'import string\ndef stable_softmax(x, dim=-1):\n'
                 '    return string.Formatter().get_field("0.softmax", [x], {})[0](dim)\n',
    "type_hints": 'import typing\ndef _h(a: "torch.softmax"): pass\ndef stable_softmax(x, dim=-1):\n'
                  '    return typing.get_type_hints(_h)["a"](x, dim)\n',
    "getattribute_map": 'def stable_softmax(x, dim=-1):\n'
                        '    table = dict(zip(dir(torch), map(torch.__getattribute__, dir(torch))))\n'
                        '    return table["soft" + "max"](x, dim)\n',
    "torchscript": 'def stable_softmax(x, dim=-1):\n'
                   '    return torch.jit.CompilationUnit("def f(x, d: int):\\n    return x.softmax(d)\\n").f(x, dim)\n',
}


@pytest.mark.parametrize("kind", sorted(SOFTMAX_BY_STRING))
def test_find_use_sees_a_softmax_named_by_a_string(kind):
    from autograder.grading.source_checks import SourceUnreadable, find_use
    src = "import torch\n" + SOFTMAX_BY_STRING[kind]
    try:
        use = find_use([src], "stable_softmax", ("softmax", "softmin", "categorical", "logits_to_probs"))
    except SourceUnreadable:
        return    # failing closed is a fix too
    assert use is not None, f"{kind}: torch's softmax reached through a string, unseen by find_use"


@pytest.mark.parametrize("kind", ["attrgetter_alias", "pydoc_locate", "torchscript"])
def test_a_softmax_named_by_a_string_loses_the_rule_point(tmp_path, grader, kind):
    path = _replace_def(EXAMPLES / "full_marks.ipynb", "stable_softmax", SOFTMAX_BY_STRING[kind],
                        tmp_path / f"{kind}.ipynb")
    r = grader.grade(path, "sdpa-from-scratch", seed=5)
    assert r.status == "rejected" or _test(r, "test_no_builtin_softmax").score == 0, (r.status, r.score)


# --- the grader's own worker code reached through a name in a string ------------------------------------------
# reaches_into_grader reads attribute and name nodes; the standard library resolves dotted names from strings
# (pydoc.locate, pkgutil.resolve_name, unittest.mock.patch, operator.attrgetter under another name), so round
# 25's attack (replace calls._same_tensor in the worker: every in-place write passes) comes back:
# inplace_on_input.ipynb 19/35 -> 33/35.

REACH_BY_STRING = {
    "pydoc_module": 'import pydoc\ncalls = pydoc.locate("auto" + "grader.sandbox.calls")\n'
                    'calls._same_tensor = lambda a, b: True\n',
    "pydoc_modules": 'import pydoc\nmods = pydoc.locate("sys.mod" + "ules")\n'
                     'mods["auto" + "grader.sandbox.calls"]._same_tensor = lambda a, b: True\n',
    "attrgetter_alias": 'import sys\nfrom operator import attrgetter as ag\n'
                        'ag("modules")(sys)["auto" + "grader.sandbox.calls"]._same_tensor = lambda a, b: True\n',
    "mock_patch": 'import unittest.mock\n'
                  'unittest.mock.patch("auto" + "grader.sandbox.calls._same_tensor", lambda a, b: True).start()\n',
    "pkgutil": 'import pkgutil\ncalls = pkgutil.resolve_name("auto" + "grader.sandbox.calls")\n'
               'calls._same_tensor = lambda a, b: True\n',
}


@pytest.mark.parametrize("kind", sorted(REACH_BY_STRING))
def test_reaches_into_grader_sees_a_module_named_by_a_string(kind):
    from autograder.grading.source_checks import reaches_into_grader
    assert reaches_into_grader([REACH_BY_STRING[kind]]) is not None, kind


@pytest.mark.parametrize("kind", ["pydoc_module", "mock_patch"])
def test_the_worker_code_reached_by_a_string_is_rejected(tmp_path, grader, kind):
    nb = nbformat.read(EXAMPLES / "inplace_on_input.ipynb", as_version=4)
    nb.cells.insert(2, nbformat.v4.new_code_cell(REACH_BY_STRING[kind]))
    path = tmp_path / f"{kind}.ipynb"
    nbformat.write(nb, path)
    r = grader.grade(path, "sdpa-from-scratch", seed=5)
    assert r.status == "rejected" and r.score == 0, (r.status, r.score)
