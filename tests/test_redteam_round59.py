"""Red-team round 59 (each test fails before its gap is closed): a graded function that computes with a FORBIDDEN
API and keeps the rule points (sdpa-from-scratch q3 test_no_builtin_softmax: static rule only, `softmax` is not in
grading.yml's forbidden_apis; q5 test_no_torch_sdpa_in_source + test_no_torch_sdpa_at_run_time: static rule and the
worker's ForbiddenAPIGuard). Repros: /tmp/rt59/*.ipynb (built by /tmp/rt59/make.py from full_marks.ipynb).

- `find_use` does not follow a value stored THROUGH A FUNCTION PARAMETER: `def put(o): o['f'] = F.softmax`,
  `put(box)`, `stable_softmax` returning `box['f'](x, dim=dim)` (also `o.set(F.softmax)` on an instance, `put(C,
  F.softmax)` setting a class attribute, `lst.append(v)` in a helper). `_bind_targets` and the `ops.append(f)`
  mutation binding only record stores whose root is a GLOBAL name, so a store whose root is a parameter binds
  nothing, and the walk from stable_softmax never reaches `put`. q3: 35/35 (rule point kept; there is no run-time
  layer for softmax). The same store of F.scaled_dot_product_attention is caught at run time (q5: 19/35).
- torch hands out its own functions and ops from registries the rule never names: `torch.overrides.
  get_overridable_functions()` searched for `__name__ == 'softmax'`, `torch._decomp.decomposition_table` searched
  by `str(op)` (a string constant is never read by the rule). q3: 35/35.
- BOTH layers: the OpOverload `aten._scaled_dot_product_flash_attention_for_cpu`, picked from
  `torch._decomp.decomposition_table` by `'flash' in str(o)`, called with `.redispatch(DispatchKeySet(CPU) |
  DispatchKeySet(AutogradCPU), q, k, v, ...)`: `OpOverload.redispatch` goes to `_handle.redispatch_boxed`, straight
  into the C++ dispatcher, past the TorchFunctionMode guard (which sees Python-level calls only), and no attribute
  the static rule reads names the kernel. q5's output is torch's fused flash kernel: 35/35 (both rule points kept).
  The same with `aten._softmax`: q3 35/35.
- `torch.distributions.Multinomial(logits=x).probs` is softmax (Categorical inside), and "multinomial" is not in
  q3's list (softmax, softmin, categorical, logits_to_probs): the rule point is kept.
"""
from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from tests.conftest import ROOT

FULL_MARKS = ROOT / "examples" / "submissions" / "sdpa-from-scratch" / "full_marks.ipynb"
SOFTMAX_NAMES = ("softmax", "softmin", "categorical", "logits_to_probs", "multinomial")    # q3's test_no_builtin_softmax
HEAD = "import torch\nimport torch.nn.functional as F\n"

# --- the static rule alone (find_use), fast ----------------------------------------------------------------------

PARAMETER_STORES = {
    "dict_item": ("def put(o):\n    o['f'] = F.softmax\n\nbox = {}\nput(box)\n\n"
                  "def stable_softmax(x, dim=-1):\n    return box['f'](x, dim=dim)\n"),
    "instance_method": ("class C:\n    def set(self, f):\n        self.f = f\n\ndef g(o):\n    o.set(F.softmax)\n\n"
                        "c = C()\ng(c)\n\ndef stable_softmax(x, dim=-1):\n    return c.f(x, dim=dim)\n"),
    "class_attribute": ("class C:\n    pass\n\ndef put(o, f):\n    o.f = f\n\nput(C, F.softmax)\n\n"
                        "def stable_softmax(x, dim=-1):\n    return C.f(x, dim=dim)\n"),
    "list_append": ("def reg(lst, v):\n    lst.append(v)\n\nops = []\nreg(ops, F.softmax)\n\n"
                    "def stable_softmax(x, dim=-1):\n    return ops[0](x, dim=dim)\n"),
}

HANDED_OUT_BY_TORCH = {
    "overridable_functions": ("_f = [f for fs in torch.overrides.get_overridable_functions().values() for f in fs\n"
                              "      if getattr(f, '__name__', '') == 'softmax'][0]\n\n"
                              "def stable_softmax(x, dim=-1):\n    return _f(x, dim)\n"),
    "decomposition_table": ("import torch._decomp\n"
                            "_op = [o for o in torch._decomp.decomposition_table if str(o) == 'aten._softmax.default'][0]\n\n"
                            "def stable_softmax(x, dim=-1):\n    return _op(x, dim, False)\n"),
    "multinomial": ("def stable_softmax(x, dim=-1):\n"
                    "    return torch.distributions.Multinomial(logits=x, validate_args=False).probs\n"),
}


def _rule_holds(cells: list[str]) -> bool:
    """True when the static rule lets stable_softmax pass (no use found, and the source was readable)."""
    from autograder.grading.source_checks import SourceUnreadable, find_use
    try:
        return find_use(cells, "stable_softmax", SOFTMAX_NAMES) is None
    except SourceUnreadable:
        return False


@pytest.mark.parametrize("kind", sorted(PARAMETER_STORES))
def test_static_rule_follows_a_value_stored_through_a_parameter(kind):
    assert not _rule_holds([HEAD, PARAMETER_STORES[kind]]), f"{kind}: F.softmax stored through a parameter passed"


@pytest.mark.parametrize("kind", sorted(HANDED_OUT_BY_TORCH))
def test_static_rule_sees_a_softmax_torch_hands_out(kind):
    assert not _rule_holds([HEAD, HANDED_OUT_BY_TORCH[kind]]), f"{kind}: a softmax handed out by torch passed"


# --- graded: the rule points ----------------------------------------------------------------------------------

KEYS = ("_keys = torch._C.DispatchKeySet(torch._C.DispatchKey.CPU) | "
        "torch._C.DispatchKeySet(torch._C.DispatchKey.AutogradCPU)\n")

REDISPATCH_SOFTMAX = (KEYS + "_op = [o for o in torch._decomp.decomposition_table if str(o) == 'aten._softmax.default'][0]\n\n"
                      "def stable_softmax(x, dim=-1):\n    return _op.redispatch(_keys, x, dim, False)\n")

# torch's CPU flash-attention kernel (the fused SDPA), padded to one head size, run past the guard with .redispatch
REDISPATCH_SDPA = (
    KEYS + "_op = [o for o in torch._decomp.decomposition_table if 'flash' in str(o)][0]\n\n"
    "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
    "    T_q, T_k, d, d_v = Q.shape[-2], K.shape[-2], Q.shape[-1], V.shape[-1]\n"
    "    w = max(d, d_v)\n"
    "    lead = torch.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])\n"
    "    pad = lambda t, n: torch.cat([t, t.new_zeros(*t.shape[:-1], w - t.shape[-1])], -1).reshape(-1, 1, n, w)\n"
    "    q = pad(Q.expand(*lead, T_q, d), T_q)\n"
    "    k = pad(K.expand(*lead, T_k, d), T_k)\n"
    "    v = pad(V.expand(*lead, T_k, d_v), T_k)\n"
    "    bias = None\n"
    "    if mask is not None:\n"
    "        full = mask.expand(*lead, T_q, T_k).reshape(-1, 1, T_q, T_k)\n"
    "        bias = torch.zeros(full.shape, dtype=Q.dtype).masked_fill(~full, float('-inf'))\n"
    "    out = _op.redispatch(_keys, q, k, v, 0.0, False, attn_mask=bias, scale=d ** -0.5)[0]\n"
    "    out = out[..., :d_v].reshape(*lead, T_q, d_v)\n"
    "    if mask is not None:\n"
    "        has_key = mask.expand(*lead, T_q, T_k).any(dim=-1, keepdim=True)\n"
    "        out = torch.where(has_key, out, torch.zeros_like(out))\n"
    "    return out\n")


def _notebook(tmp_path: Path, name: str, *, softmax: str | None = None, sdpa: str | None = None) -> Path:
    """full_marks.ipynb with stable_softmax's and/or scaled_dot_product_attention's cell replaced."""
    nb = nbformat.read(FULL_MARKS, as_version=4)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if "import torch.nn.functional as F" in cell.source:
            cell.source += "\nimport torch._decomp\n"
        elif softmax is not None and cell.source.startswith("def stable_softmax("):
            cell.source = softmax
        elif sdpa is not None and cell.source.startswith("def scaled_dot_product_attention("):
            cell.source = sdpa
    path = tmp_path / f"{name}.ipynb"
    nbformat.write(nb, path)
    return path


def _scores(result, question: str) -> dict[str, float]:
    return {t.name: t.score for t in result.tests if t.question == question}


@pytest.mark.parametrize("kind", ["param_store", "redispatch", "multinomial"])
def test_q3_rule_point_lost_by_a_forbidden_softmax(tmp_path, grader, kind):
    code = {"param_store": HEAD + PARAMETER_STORES["dict_item"], "redispatch": REDISPATCH_SOFTMAX,
            "multinomial": ("def stable_softmax(x, dim=-1):\n"
                            "    p = torch.distributions.Multinomial(logits=x.movedim(dim, -1).double(),"
                            " validate_args=False).probs\n    return p.to(x.dtype).movedim(-1, dim)\n")}[kind]
    r = grader.grade(_notebook(tmp_path, kind, softmax=code), "sdpa-from-scratch", seed=59)
    q3 = _scores(r, "q3")
    assert q3["test_no_builtin_softmax"] == 0, (kind, r.score, q3)


def test_q5_rule_points_lost_by_the_flash_kernel_redispatched(tmp_path, grader):
    r = grader.grade(_notebook(tmp_path, "redispatch_sdpa", sdpa=REDISPATCH_SDPA), "sdpa-from-scratch", seed=59)
    q5 = _scores(r, "q5")
    kept = [n for n in ("test_no_torch_sdpa_in_source", "test_no_torch_sdpa_at_run_time") if q5[n] > 0]
    assert not kept, (r.score, kept)
