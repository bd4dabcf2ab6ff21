"""find_use after red-team round 65: `torch.load(path, weights_only=True)` no longer fails the rules closed (its
unpickler builds tensors and plain containers, no code); every other spelling of a load, and torch.serialization
(whose add_safe_globals widens what a weights-only load builds, a function among them), still does."""
from __future__ import annotations

import pytest

from autograder.grading.source_checks import SourceUnreadable, find_use

NAMES = ("softmax", "softmin", "categorical", "logits_to_probs", "multinomial")
HEAD = "import torch\nimport torch.nn.functional as F"
CLEAN = ("def stable_softmax(x, dim=-1):\n    e = torch.exp(x - x.amax(dim=dim, keepdim=True))\n"
         "    return e / e.sum(dim=dim, keepdim=True)")


def outcome(cells, func="stable_softmax"):
    try:
        return "found" if find_use(list(cells), func, NAMES) is not None else "clean"
    except SourceUnreadable:
        return "closed"


@pytest.mark.parametrize("load", [
    "state = torch.load('ckpt.pt', weights_only=True)",
    "state = torch.load('ckpt.pt', map_location='cpu', weights_only=True)\nprint(state['w'].shape)",
])
def test_a_weights_only_load_is_clean(load):
    assert outcome([HEAD, CLEAN, "torch.save({'w': torch.ones(2)}, 'ckpt.pt')\n" + load]) == "clean"


@pytest.mark.parametrize("attack", [
    "f = torch.load('f.pt')",                                                    # no weights_only
    "f = torch.load('f.pt', weights_only=False)",
    "kw = {'weights_only': False}\nf = torch.load('f.pt', **kw)",
    "w = True\nf = torch.load('f.pt', weights_only=w)",                         # not a literal
    "L = torch.load\nf = L('f.pt', weights_only=True)",                         # handed on uncalled
    "torch.serialization.add_safe_globals([F.softmax])\nf = torch.load('f.pt', weights_only=True)['f']",
    "from torch.serialization import add_safe_globals\nadd_safe_globals([F.softmax])\n"
    "f = torch.load('f.pt', weights_only=True)['f']",
    "with torch.serialization.safe_globals([F.softmax]):\n    f = torch.load('f.pt', weights_only=True)['f']",
])
def test_every_other_load_and_the_allow_list_fail_closed(attack):
    graded = "def stable_softmax(x, dim=-1):\n    return f(x, dim=dim)"
    assert outcome([HEAD, attack, graded]) in ("closed", "found"), attack
