"""find_use follows values stored THROUGH A PARAMETER OR A LOCAL (red-team round 59): each attack stores F.softmax
into an object by a route no global binding shows, and the rule must find it (or fail closed); honest notebooks that
store numbers, shapes and tensors inside functions must still pass."""
from __future__ import annotations

import pytest

from autograder.grading.source_checks import SourceUnreadable, find_use

HEAD = "import torch\nimport torch.nn.functional as F\n"
NAMES = ("softmax", "softmin", "categorical", "logits_to_probs", "multinomial")

ATTACKS = {
    "dict_item": "def put(o):\n    o['f'] = F.softmax\n\nbox = {}\nput(box)\n\n"
                 "def stable_softmax(x, dim=-1):\n    return box['f'](x, dim=dim)\n",
    "two_calls_deep": "def put(o, f):\n    o['f'] = f\n\ndef outer(o, f):\n    put(o, f)\n\nbox = {}\nouter(box, F.softmax)\n\n"
                      "def stable_softmax(x, dim=-1):\n    return box['f'](x, dim=dim)\n",
    "list_then_index": "def reg(lst, v):\n    lst.append(v)\n\nops = []\nreg(ops, F.softmax)\n\n"
                       "def stable_softmax(x, dim=-1):\n    return ops[-1](x, dim=dim)\n",
    "insert_extend": "def reg(lst, v):\n    lst.insert(0, v)\n    lst.extend([v])\n\nops = []\nreg(ops, F.softmax)\n\n"
                     "def stable_softmax(x, dim=-1):\n    return ops[0](x, dim=dim)\n",
    "setdefault_update": "def reg(d, v):\n    d.setdefault('g', v)\n    d.update(f=v)\n\nops = {}\nreg(ops, F.softmax)\n\n"
                         "def stable_softmax(x, dim=-1):\n    return ops['f'](x, dim=dim)\n",
    "set_add": "def reg(s, v):\n    s.add(v)\n\nops = set()\nreg(ops, F.softmax)\n\n"
               "def stable_softmax(x, dim=-1):\n    return next(iter(ops))(x, dim=dim)\n",
    "dunder_setitem": "def reg(d, v):\n    d.__setitem__('f', v)\n\nops = {}\nreg(ops, F.softmax)\n\n"
                      "def stable_softmax(x, dim=-1):\n    return ops['f'](x, dim=dim)\n",
    "aug_assign_list": "def reg(lst, v):\n    lst += [v]\n\nops = []\nreg(ops, F.softmax)\n\n"
                       "def stable_softmax(x, dim=-1):\n    return ops[0](x, dim=dim)\n",
    "instance_method": "class C:\n    def set(self, f):\n        self.f = f\n\ndef g(o):\n    o.set(F.softmax)\n\n"
                       "c = C()\ng(c)\n\ndef stable_softmax(x, dim=-1):\n    return c.f(x, dim=dim)\n",
    "init_registry": "registry = []\nclass C:\n    def __init__(self, f):\n        self.f = f\n        registry.append(self)\n\n"
                     "C(F.softmax)\n\ndef stable_softmax(x, dim=-1):\n    return registry[0].f(x, dim=dim)\n",
    "class_attribute": "class C:\n    pass\n\ndef put(o, f):\n    o.f = f\n\nput(C, F.softmax)\n\n"
                       "def stable_softmax(x, dim=-1):\n    return C.f(x, dim=dim)\n",
    "classmethod_cls": "class C:\n    @classmethod\n    def register(cls, f):\n        cls.op = f\n\nC.register(F.softmax)\n\n"
                       "def stable_softmax(x, dim=-1):\n    return C.op(x, dim=dim)\n",
    "tensor_class_attribute": "def put(o, f):\n    o.my_op = f\n\nput(torch.Tensor, F.softmax)\n\n"
                              "def stable_softmax(x, dim=-1):\n    return x.my_op(dim=dim)\n",
    "global_via_param": "def put(f):\n    global G\n    G = f\n\nput(F.softmax)\n\n"
                        "def stable_softmax(x, dim=-1):\n    return G(x, dim=dim)\n",
    "helper_fills_in_loop": "def fill(d, pairs):\n    for k, v in pairs:\n        d[k] = v\n\nops = {}\n"
                            "fill(ops, [('a', torch.exp), ('f', F.softmax)])\n\n"
                            "def stable_softmax(x, dim=-1):\n    return ops['f'](x, dim=dim)\n",
    "default_container": "def reg(v=None, _store=[]):\n    if v is not None:\n        _store.append(v)\n    return _store\n\n"
                         "reg(F.softmax)\n\ndef stable_softmax(x, dim=-1):\n    return reg()[0](x, dim=dim)\n",
    "closure_nonlocal_list": "def make():\n    ops = []\n    def add(v):\n        ops.append(v)\n    def first():\n"
                             "        return ops[0]\n    return add, first\n\nadd, first = make()\nadd(F.softmax)\n\n"
                             "def stable_softmax(x, dim=-1):\n    return first()(x, dim=dim)\n",
    "closure_rebinds": "def make():\n    op = None\n    def setter(v):\n        nonlocal op\n        op = v\n    def getter():\n"
                       "        return op\n    return setter, getter\n\nsetter, getter = make()\nsetter(F.softmax)\n\n"
                       "def stable_softmax(x, dim=-1):\n    return getter()(x, dim=dim)\n",
    "aliased_storer": "def put(o, f):\n    o['f'] = f\n\np = put\nbox = {}\np(box, F.softmax)\n\n"
                      "def stable_softmax(x, dim=-1):\n    return box['f'](x, dim=dim)\n",
    "storer_handed_to_map": "def put(o, f):\n    o['f'] = f\n\nbox = {}\nlist(map(put, [box], [F.softmax]))\n\n"
                            "def stable_softmax(x, dim=-1):\n    return box['f'](x, dim=dim)\n",
    "partial_storer": "import functools\ndef put(o, f):\n    o['f'] = f\n\nbox = {}\nfunctools.partial(put, box)(F.softmax)\n\n"
                      "def stable_softmax(x, dim=-1):\n    return box['f'](x, dim=dim)\n",
    "storing_lambda": "put = lambda o, f: o.append(f)\nops = []\nput(ops, F.softmax)\n\n"
                      "def stable_softmax(x, dim=-1):\n    return ops[0](x, dim=dim)\n",
    "subclass_init": "class Base:\n    def __init__(self, f):\n        self.f = f\n\nclass Sub(Base):\n    pass\n\n"
                     "s = Sub(F.softmax)\n\ndef stable_softmax(x, dim=-1):\n    return s.f(x, dim=dim)\n",
    "read_through_helper": "def put(o):\n    o['f'] = F.softmax\n\ndef get(o):\n    return o['f']\n\nbox = {}\nput(box)\n\n"
                           "def stable_softmax(x, dim=-1):\n    return get(box)(x, dim=dim)\n",
    "operator_dunder": "class C:\n    def __add__(self, other):\n        self.f = other\n        return self\n\nc = C()\n"
                       "c + F.softmax\n\ndef stable_softmax(x, dim=-1):\n    return c.f(x, dim=dim)\n",
}

HONEST = {
    "shapes_list": "shapes = []\ndef record(lst, t):\n    lst.append(tuple(t.shape))\n\nrecord(shapes, torch.randn(2, 3))\n"
                   "ref = torch.softmax(torch.randn(2, 3), dim=-1)\n\n"
                   "def stable_softmax(x, dim=-1):\n    shifted = x - x.max(dim=dim, keepdim=True).values\n"
                   "    e = torch.exp(shifted)\n    return e / e.sum(dim=dim, keepdim=True)\n",
    "config_object": "class Config:\n    def __init__(self, d_k, eps):\n        self.d_k = d_k\n        self.eps = eps\n\n"
                     "cfg = Config(8, 1e-9)\n\n"
                     "def stable_softmax(x, dim=-1):\n    shifted = x - x.max(dim=dim, keepdim=True).values\n"
                     "    e = torch.exp(shifted)\n    return e / (e.sum(dim=dim, keepdim=True) + cfg.eps)\n",
    "tensor_cache": "_cache = {}\ndef cached_exp(x):\n    key = (tuple(x.shape), x.dtype)\n    out = torch.exp(x)\n"
                    "    _cache[key] = out\n    return out\n\n"
                    "def stable_softmax(x, dim=-1):\n    e = cached_exp(x - x.max(dim=dim, keepdim=True).values)\n"
                    "    return e / e.sum(dim=dim, keepdim=True)\n",
    "results_dict_checks": "def check(results, name, got, want):\n    results[name] = (got - want).abs().max().item()\n\n"
                           "def stable_softmax(x, dim=-1):\n    shifted = x - x.max(dim=dim, keepdim=True).values\n"
                           "    e = torch.exp(shifted)\n    return e / e.sum(dim=dim, keepdim=True)\n\n"
                           "NEG_INF = float('-inf')\nresults = {}\nx = torch.randn(3, 4)\n"
                           "check(results, 'softmax', stable_softmax(x), torch.softmax(x, dim=-1))\n",
}


def _found(code: str) -> bool:
    try:
        return find_use([HEAD, code], "stable_softmax", NAMES) is not None
    except SourceUnreadable:
        return True


@pytest.mark.parametrize("kind", sorted(ATTACKS))
def test_a_value_stored_through_a_parameter_or_local_is_found(kind):
    assert _found(ATTACKS[kind]), kind


@pytest.mark.parametrize("kind", sorted(HONEST))
def test_honest_stores_inside_functions_pass(kind):
    assert find_use([HEAD, HONEST[kind]], "stable_softmax", NAMES) is None, kind


def test_the_use_names_the_route():
    use = find_use([HEAD, ATTACKS["dict_item"]], "stable_softmax", NAMES)
    assert use is not None and "softmax" in use.what and "stored through a parameter" in use.describe()
