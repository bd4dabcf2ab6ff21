"""Red-team round 49: the trusted process's memory and the size of what it writes (each test fails before its gap
is closed).

- The one-edit search's record of calls (`namespaces.CallRecord`) bounds the *arguments* it copies (MAX_BYTES per
  call, MAX_TOTAL_BYTES in all) but keeps every call's *answer*, whatever its size. A notebook whose functions
  return one 47 MB tensor (`torch.zeros(47_000_000, dtype=torch.int8)`: under max_reply_mb) made the grader
  process keep ~0.32 GB more after every sdpa-from-scratch test: 6.4 GB held when the tests ended, 8.5 GB at its
  peak (VmHWM of `autograder grade`), against a worker capped at 3 GB; and the grade ran to
  submission_timeout_s (313 s, 11 more tests lost to "did not finish within 300 s"). Two such students at -j2 are
  ~17 GB of a 23 GB machine (/tmp/rt49/big/sdpa-from-scratch_int8.ipynb, /tmp/rt49/per_test_rss.py).
- similarity.html shows each listed pair's functions in full, and every zero-width or bidi character of them as
  `<span class="ctl">\\u200b</span>` (31 bytes for one character). A string literal is one token, so colluding
  students whose compared functions carry 190,000 zero-width characters in string literals still score as
  copies of each other; 4 of them (6 pairs) made a 70 MB page, 10 of them (45 pairs) 530 MB in 47 s with the
  batch's parent at 2.2 GB; up to MAX_VIEWS = 200 pairs are shown, about 2.4 GB
  (/tmp/rt49/sim_amplify.py, /tmp/rt49/simclass/).
- The per-test CPU budget (runner.cpu_budget, round 48) raises CheckTooSlow between any two Python instructions
  outside the worker's protocol, including inside a context manager's own __enter__ or __exit__ (torch.no_grad's
  sets the grad mode, then returns; nn.init, nn.MultiheadAttention (the scaled-attention reference's torch_mha)
  and warnings.catch_warnings do the same). A check stopped there leaves the process as the half-entered
  manager set it: with a check that loops over `with torch.no_grad(): pass`, 15 of 40 stops left grad mode off,
  and the next test of the process (the same student's, or the next student's in a batch's grader process)
  that takes a gradient in the trusted process failed with "element 0 of tensors does not require grad"
  (/tmp/rt49/budget_state.py).
"""
from __future__ import annotations

import time

import torch

from tests.conftest import ROOT


def _tensor_bytes(value) -> int:
    if isinstance(value, torch.Tensor):
        return value.numel() * value.element_size()
    if isinstance(value, (list, tuple)):
        return sum(_tensor_bytes(v) for v in value)
    if isinstance(value, dict):
        return sum(_tensor_bytes(v) for v in value.values())
    return 0


def test_the_call_record_bounds_the_answers_it_keeps():
    # 60 calls with tiny arguments, each answered by a 4 MB tensor: 240 MB kept now, for a search whose record is
    # meant to hold at most MAX_TOTAL_BYTES (32 MB) of tensors; twice that is allowed here for the answers
    from autograder.grading.namespaces import CallRecord
    record = CallRecord()
    for _ in range(60):
        record.add("scaled_dot_product_attention", (torch.zeros(4), torch.zeros(4)), {}, torch.zeros(1_000_000))
    held = sum(_tensor_bytes(c.answer) for c in record.calls)
    assert held <= 2 * CallRecord.MAX_TOTAL_BYTES, f"the record holds {held >> 20} MB of answers"


def test_the_call_record_bounds_answers_inside_containers():
    # the same through a tuple (a function that returns (out, weights)): 30 x 2 x 4 MB
    from autograder.grading.namespaces import CallRecord
    record = CallRecord()
    for _ in range(30):
        record.add("attention", (torch.zeros(4),), {}, (torch.zeros(1_000_000), torch.zeros(1_000_000)))
    held = sum(_tensor_bytes(c.answer) for c in record.calls)
    assert held <= 2 * CallRecord.MAX_TOTAL_BYTES, f"the record holds {held >> 20} MB of answers"


_BLOB = "\u200b" * 38_000
_HELPERS = "".join(f"def pad{i}(x):\n    tag = '{_BLOB}'\n    return x\n\n" for i in range(5))
_GRADED = ("def stable_softmax(x, dim=-1):\n"
           "    zz = pad0(pad1(pad2(pad3(pad4(x)))))\n"
           "    qq = zz - zz.amax(dim=dim, keepdim=True).detach()\n"
           "    ee = qq.exp(); ss = ee.sum(dim=dim, keepdim=True)\n"
           "    rr = ee / ss; rr = rr * 1.0 + 0.0 - 0.0\n"
           "    return rr.contiguous().clone()\n")


def test_similarity_page_does_not_amplify_invisible_characters(tmp_path):
    # three colluders, identical code: 3 pairs, each shown side by side. The code shown is ~1.1 M characters in
    # all; the page is ~35 MB now (31 bytes per zero-width character), and grows with every pair listed.
    from autograder.config import find_course
    from autograder.course import similarity as sim
    course = find_course(ROOT)
    stored = {f"colluder{i}.ipynb": sim.extract([_HELPERS + _GRADED], ["stable_softmax"]) for i in range(3)}
    shown = sum(len(f.source) for f in stored["colluder0.ipynb"].functions)
    assert shown > 150_000   # the helpers are compared (called from a graded function)
    start = time.monotonic()
    pairs = sim.write_report(stored, course, "sdpa-from-scratch", tmp_path)
    assert len(pairs) == 3
    size = (tmp_path / "similarity.html").stat().st_size
    chars_shown = 2 * len(pairs) * shown
    assert size <= 8 * chars_shown + (1 << 20), (
        f"similarity.html is {size / 1e6:.1f} MB for {chars_shown / 1e6:.2f} M characters of code shown")
    assert time.monotonic() - start < 15


def _case(fn, name):
    from autograder.grading.hidden import HiddenTestCase

    def test_answer(answer):
        fn(answer)
    return HiddenTestCase("q1", name, 1.0, True, test_answer, params=("answer",))


def _loops_in_no_grad(_answer):
    while True:                 # a check made slow, whose loop enters and leaves a context manager
        with torch.no_grad():
            pass


def _takes_a_gradient(_answer):
    x = torch.ones(2, requires_grad=True)
    (x * 2).sum().backward()    # what a later test's reference does in the trusted process
    assert x.grad is not None


def test_a_test_stopped_by_the_cpu_budget_leaves_the_next_test_grad_mode_on():
    from autograder.grading.runner import TrustedNamespace, run_tests
    torch.set_grad_enabled(True)
    seen = []
    try:
        for seed in range(20):   # the stop lands inside no_grad's __enter__ about one time in three now
            reports = run_tests([_case(_loops_in_no_grad, "test_slow"), _case(_takes_a_gradient, "test_next")],
                                TrustedNamespace({"answer": 1}), seed=seed, check_cpu_s=0.1)
            seen.append((reports[0].status, reports[1].status, torch.is_grad_enabled()))
            torch.set_grad_enabled(True)
    finally:
        torch.set_grad_enabled(True)
    assert all(s == ("failed", "passed", True) for s in seen), [s for s in seen if s != ("failed", "passed", True)]
