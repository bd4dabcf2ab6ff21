"""After blind65 (the engine, issue 21): a function that reads a notebook global in the place of its own name (a
parameter renamed in the signature only, a loop variable renamed where the body still reads the old one, a result
renamed where it is computed but not where it is appended, a `d_k = Q.shape[-1]` line commented out so a trial's
global sets the scale) is reads_global_not_parameter in every assignment (autograder/grading/global_reads.py), its
message naming the global, where the notebook sets it, and the name of the function's own it stands for. Own
spellings, graded through the sandbox; right code beside the same globals, or reading a constant, keeps full marks."""
from __future__ import annotations

import pytest

from autograder.grading.checks import MISCONCEPTIONS
from autograder.grading.global_reads import KEY, finding, related
from autograder.grading.grader import Grader
from tests.heldout.harness import Outcome, assert_full_marks, assert_named, grade_cells

DEMO = ("\n\nX = torch.eye(6, dtype=torch.float64)[[0, 1, 2, 3, 1]]\nW_Q = torch.ones(6, 4, dtype=torch.float64)\n"
        "W_K = torch.ones(6, 4, dtype=torch.float64)\nW_V = torch.eye(6, 4, dtype=torch.float64)\n")


def _named(outcome: Outcome, question: str, glob: str) -> None:
    """Named in `question` only, each message quoting the global."""
    failed = assert_named(outcome, KEY, question)
    assert all(f"`{glob}`" in m for _, _, _, m in failed), outcome.explain()


# --- attention-pipeline

@pytest.mark.parametrize(("cell", "question", "glob"), [
    ({"project_qkv": "def project_qkv(X, W_Q, W_K, w_v):\n    return X @ W_Q, X @ W_K, X @ W_V\n" + DEMO},
     "q01", "W_V"),
    ({"scaled_scores": "d_k = 16\n\n\ndef scaled_scores(Q, K):\n    # d_k = K.size(-1)\n"
                       "    return (Q @ K.transpose(-2, -1)) / d_k ** 0.5\n"}, "q02", "d_k"),
    ({"nadaraya_watson": "def nadaraya_watson(q, K, Vals):\n    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))\n"
                         "    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()\n\n\n"
                         "V = torch.randn(5, 4, dtype=torch.float64)\n"}, "q08", "V"),
])
def test_attention_pipeline_global_reads_are_named(grader: Grader, cell: dict[str, str], question: str,
                                                   glob: str) -> None:
    _named(grade_cells(grader, "attention-pipeline", cell, "global"), question, glob)


@pytest.mark.parametrize("cell", [
    {"project_qkv": "def project_qkv(X, W_Q, W_K, W_V):\n    return X @ W_Q, X @ W_K, X @ W_V\n" + DEMO},
    {"scaled_scores": "_ROOT = 0.5\n\n\ndef scaled_scores(Q, K):\n    d_k = Q.shape[-1]\n"
                      "    return Q @ K.transpose(-2, -1) / d_k ** _ROOT\n"},
])
def test_attention_pipeline_right_code_beside_globals_keeps_full_marks(grader: Grader, cell: dict[str, str]) -> None:
    assert_full_marks(grade_cells(grader, "attention-pipeline", cell, "right"))


# --- scaled-attention

ENTROPY = '''def softmax_entropy(logits):
    p = F.softmax(logits, dim=-1)
    return -(p * torch.log(p + 1e-9)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    results = []
    for {loop} in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, {loop}); k = torch.randn(5, {loop})
        raw = (q @ k.T)[0]
        scaled = raw / {scale}**0.5
        results.append({{"d": {scale}, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()}})
    return results
'''
MHA = '''{head}def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_model = X.shape[1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        {result}, _ = attention(Q[:, cols], K[:, cols], V[:, cols], d_k)
        heads.append({appended})
    return torch.cat(heads, dim={dim}) @ W_O
'''


@pytest.mark.parametrize(("cell", "question", "glob"), [
    ({"entropy_table": ENTROPY.format(loop="D", scale="d")}, "q4", "d"),
    ({"entropy_table": ENTROPY.format(loop="d_", scale="d")}, "q4", "d"),
    ({"multi_head_attention": MHA.format(head="", result="out_h", appended="out", dim=1)}, "q8", "out"),
])
def test_scaled_attention_global_reads_are_named(grader: Grader, cell: dict[str, str], question: str,
                                                 glob: str) -> None:
    _named(grade_cells(grader, "scaled-attention", cell, "global"), question, glob)


@pytest.mark.parametrize("cell", [
    {"entropy_table": ENTROPY.format(loop="D", scale="D")},
    {"multi_head_attention": MHA.format(head="CAT_DIM = 1\n\n\n", result="out_h", appended="out_h", dim="CAT_DIM")},
])
def test_scaled_attention_right_code_beside_globals_keeps_full_marks(grader: Grader, cell: dict[str, str]) -> None:
    assert_full_marks(grade_cells(grader, "scaled-attention", cell, "right"))


# --- sdpa-from-scratch

SDPA = '''{head}def scaled_dot_product_attention(Q, K, {v}, mask=None):
    {dk}
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, {fill})
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    {tail}
'''


@pytest.mark.parametrize(("cell", "glob"), [
    ({"scaled_dot_product_attention": SDPA.format(
        head="V = torch.randn(2, 4, 9, 24)\n\n\n", v="v", dk="d_k = Q.size(-1)", fill='float("-inf")',
        tail="return torch.matmul(weights, V)")}, "V"),
    ({"scaled_dot_product_attention": SDPA.format(
        head="", v="V", dk="d_k = Q.size(-1)", fill='float("-inf")',
        tail="out = torch.matmul(weights, V)\n    return output\n\n\n"
             "_Qd, _Kd, _Vd = torch.randn(1, 3, 4), torch.randn(1, 5, 4), torch.randn(1, 5, 2)\n"
             "output = torch.softmax(_Qd @ _Kd.transpose(-2, -1) / 2, dim=-1) @ _Vd\n")}, "output"),
])
def test_sdpa_global_reads_are_named(grader: Grader, cell: dict[str, str], glob: str) -> None:
    _named(grade_cells(grader, "sdpa-from-scratch", cell, "global"), "q5", glob)


def test_sdpa_right_code_reading_a_constant_keeps_full_marks(grader: Grader) -> None:
    cell = {"scaled_dot_product_attention": SDPA.format(
        head='NEG_INF = float("-inf")\nd_k = 16\n\n\n', v="V", dk="d_k = Q.size(-1)", fill="NEG_INF",
        tail="return torch.matmul(weights, V)")}
    assert_full_marks(grade_cells(grader, "sdpa-from-scratch", cell, "right"))


# --- the rule's parts, without a grader

@pytest.mark.parametrize(("own", "glob", "is_related"), [
    ("W_v", "W_V", True), ("vals", "V", True), ("dim", "d", True), ("head_out", "out", True), ("V", "Vc", True),
    ("d_model", "d", False), ("head", "d", False), ("X", "X", False), ("mask", "NEG_INF", False),
])
def test_related(own: str, glob: str, is_related: bool) -> None:
    assert related(own, glob) is is_related


def test_a_constant_or_a_helper_is_read_as_meant() -> None:
    cells = ["import torch\nNEG_INF = -1e9\nTABLE = [1, 2, 3]\n",
             "def helper(x):\n    return x + 1\n",
             "def f(x, mask):\n    return helper(x).masked_fill(mask, NEG_INF) * TABLE[0]\n"]
    assert finding(cells, "f") is None


def test_an_unread_parameter_beside_an_unrelated_global_is_not_named() -> None:
    cells = ["import torch\nscale = 2.0\n", "def f(x, y):\n    return x * scale\n"]
    assert finding(cells, "f") is None


def test_the_message_quotes_the_binding_and_the_unread_name() -> None:
    cells = ["import torch\n", "def project(X, W_v):\n    return X @ W_V\n\nW_V = torch.randn(6, 4)\n"]
    said = finding(cells, "project")
    assert said is not None and "`W_v` is never read" in said and "`W_V = torch.randn(6, 4)`" in said
    assert "In[2]" in said


def test_a_long_notebook_costs_little() -> None:
    import time
    filler = "".join(f"v{i} = torch.zeros({i % 7 + 1})\n" for i in range(18_000))   # about 450 KB
    cells = ["import torch\n" + filler, "def project(X, W_v):\n    return X @ W_V\n\nW_V = torch.randn(6, 4)\n"]
    start = time.process_time()
    assert finding(cells, "project") is not None
    assert time.process_time() - start < 5.0


def test_the_engine_and_the_catalogues_agree() -> None:
    import importlib.util
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    for slug in ("attention-pipeline", "scaled-attention", "sdpa-from-scratch"):
        spec = importlib.util.spec_from_file_location(f"_m65_{slug}", root / "assignments" / slug / "hidden"
                                                      / "_misconceptions.py")
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        for value in vars(mod).values():
            if isinstance(value, dict) and KEY in value:
                assert value[KEY] == MISCONCEPTIONS[KEY], slug


def test_a_helper_of_the_graded_function_is_read_too() -> None:
    cells = ["import torch\n", "def project(X, W_v):\n    return X @ W_V\n\nW_V = torch.randn(6, 4)\n",
             "def attend(X, W):\n    return project(X, W).softmax(-1)\n"]
    said = finding(cells, "attend")
    assert said is not None and said.startswith("in `project`, a helper `attend` calls, `W_v` is never read")


def test_the_worker_reads_of_globals_share_one_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    # review: a notebook whose graded function leaves forty names unread beside forty "data" globals the worker holds
    # as functions had each global asked for in turn, GLOBAL_READ_S (2 s) apiece: the pass's reads now share one budget
    import time
    from types import SimpleNamespace

    from autograder.grading import runner
    from autograder.results import TestReport
    n = 40
    cell = ("def f(" + ", ".join(f"Vals{i}" for i in range(n)) + "):\n    return "
            + " + ".join(f"vals{i}" for i in range(n)) + "\n\n\n" + "\n".join(f"vals{i} = make()" for i in range(n)))
    asked: list[str] = []

    def slow_resolve(name: str, device: str) -> object:
        asked.append(name)
        time.sleep(0.2)
        return len                      # a function in the worker: not data, so the next global is asked for
    namespace = SimpleNamespace(resolve=slow_resolve, session=SimpleNamespace(deadline=time.monotonic() + 60))
    monkeypatch.setattr(runner, "GLOBAL_READS_S", 0.5)
    report = TestReport(question="q1", name="test_f", status="failed", score=0.0, max_score=1.0, message="wrong")
    test = SimpleNamespace(question="q1", name="test_f", student_names=["f"])
    start = time.monotonic()
    runner._global_reads([report], [test], namespace, SimpleNamespace(cells=[cell]), ["cpu"])  # type: ignore[arg-type]
    assert len(asked) <= 4 and time.monotonic() - start < 2.0, (len(asked), asked[:5])
