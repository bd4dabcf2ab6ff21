"""Red-team round 113: a worker that lies.

The student's code takes the worker over (HOSTILE_CELL below: it finds the worker object and wraps its socket, so
every frame the worker sends passes through a `forge(message)` of the test's, which may rewrite it, drop it, split it
into pieces or send several frames in its place). `hostile` runs it as the first cell of every exec of a whole grade:
the source checks a real notebook meets are stepped past, as a takeover by a spelling they cannot see would. Repros in
/tmp/rt113/ (harness.py, battery.py, a1.py-a4.py: 23 forgeries graded against sdpa-from-scratch, attention-pipeline and
scaled-attention).

Held (the tests below keep six of them): replies sent twice, replies sent before their request (ids guessed ahead), a
frame written a byte at a time, a cell event inside a call's reply, a header claiming 2^64 bytes, `true` for an id, a
bare NaN for a value: each graded at or below the honest notebook, without a grader error. A worker that stops reading
a request of 550 KB (a4.py) held the grader's send until the socket's leftover timeout ran out (30 s, whatever the
call's limit): the send now ends at the request's own limit (the last test, added by the lead). Tensors
whose declared dtype, shape or length disagree with their bytes (safetensors refuses them), a BOOL byte of 2 (rebuilt
as 1), an unlisted dtype (U16, F8): ProtocolError.

- **A NumPy scalar's dtype that is not a string raised TypeError in the grader.** decode_value tested
  `tree["dtype"] in _NUMPY_SCALARS` (a frozenset) before its type: a forged `{"__npscalar__": 1, "dtype": []}` made
  Python's TypeError, not the boundary's ProtocolError, and every test that called the function failed with
  "TypeError: unhashable type: 'list'" (measured: sdpa-from-scratch's full_marks.ipynb, 11/35, each q3-q5 test that
  words). Now the dtype's type is checked first: "reply contains a value of unknown form", as for any malformed value.
- **Two more values no worker sends, found by fuzzing decode_value with trees of its own keys** (/tmp/rt113/fuzz_decode.py,
  200,000 trees a seed): a bfloat16 tensor marked `numpy` (NumPy has no bfloat16) raised TypeError ("Got unsupported
  ScalarType BFloat16") the same way, and a float16 or float32 NumPy scalar holding a finite number past its range
  (2**70, 1e308) became inf with a RuntimeWarning on the grader's stderr. Both are ProtocolError now (an honest worker
  encodes a NumPy array of a dtype NumPy has, and a NumPy scalar's own value, in range or inf). Mutated frames through
  parse_frame then decode_value (300,000): no other exception than ProtocolError.
"""
from __future__ import annotations

import pytest

from autograder.errors import ProtocolError
from autograder.sandbox import protocol
from autograder.sandbox import session as session_module

from tests.conftest import ROOT

FULL_MARKS = ROOT / "examples" / "submissions" / "sdpa-from-scratch" / "full_marks.ipynb"

# Runs inside the worker before the notebook's cells: the worker's socket, wrapped. `forge` (the test's) receives
# each message the worker would send and returns None (send it as it is) or the raw bytes to send instead.
HOSTILE_CELL = r'''
import gc as _gc, json as _json, struct as _struct
def frame(m, raw=None):
    body = raw if raw is not None else _json.dumps(m).encode()
    return _struct.pack(">Q", len(body)) + body
%s
def _take_over():
    worker = [o for o in _gc.get_objects() if type(o).__name__ == "Worker" and hasattr(o, "sock")][0]
    if getattr(worker, "_hostile", False):
        return
    worker._hostile = True
    real = worker.sock
    class Sock:
        def __getattr__(self, name):
            return getattr(real, name)
        def sendall(self, data):
            size = _struct.unpack(">Q", data[:8])[0]
            out = forge(_json.loads(data[8:8 + size]))
            if out is None:
                return real.sendall(data)
            for chunk in out:
                real.sendall(chunk)
    worker.sock = Sock()
_take_over()
'''
MARK = "\nimport gc as _gc, json as _json"


@pytest.fixture
def hostile(monkeypatch):
    """hostile(forge_source): every worker of the grades that follow runs HOSTILE_CELL first (a restarted worker
    re-runs it with the cells); the cell reports the grade sees are the notebook's own."""
    real = session_module.WorkerSession.exec_cells

    def install(forge_source: str) -> None:
        def exec_cells(self, cells, cell_timeout_s=None, meanwhile=None):  # type: ignore[no-untyped-def]
            if getattr(self, "_hostile", False) or (cells and cells[0].startswith(MARK)):
                return real(self, cells, cell_timeout_s, meanwhile)
            self._hostile = True
            outcome = real(self, [HOSTILE_CELL % forge_source] + list(cells), cell_timeout_s, meanwhile)
            outcome.cells = [c.model_copy(update={"index": c.index - 1}) for c in outcome.cells[1:]]
            self.cells = [HOSTILE_CELL % forge_source] + list(cells)
            return outcome
        monkeypatch.setattr(session_module.WorkerSession, "exec_cells", exec_cells)
    return install


def _test(result, name):  # type: ignore[no-untyped-def]
    return next(t for t in result.tests if t.name == name)


def test_a_numpy_scalar_whose_dtype_is_not_a_name_is_a_protocol_error():
    for dtype in ([], {}, [["float32"]]):
        with pytest.raises(ProtocolError):
            protocol.decode_value({"__npscalar__": 1, "dtype": dtype})
    assert protocol.decode_value({"__npscalar__": 1, "dtype": "int8"}) == 1


def test_values_no_worker_sends_are_protocol_errors_not_python_ones():
    import base64
    import warnings

    import numpy as np
    import torch
    bf16 = {"__tensor__": base64.b64encode(protocol._tensor_bytes(torch.ones(2, dtype=torch.bfloat16))).decode()}
    assert protocol.decode_value(bf16).dtype == torch.bfloat16           # as a tensor it is a value like any other
    with pytest.raises(ProtocolError):
        protocol.decode_value(dict(bf16, numpy=True))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for dtype, big in (("float16", 2 ** 70), ("float16", 1e308), ("float32", 1e308)):
            with pytest.raises(ProtocolError):
                protocol.decode_value({"__npscalar__": big, "dtype": dtype})
        # what an honest worker sends of them still crosses: in range, or inf and NaN as themselves
        assert protocol.decode_value({"__npscalar__": 65504.0, "dtype": "float16"}) == np.float16(65504)
        assert np.isinf(protocol.decode_value({"__npscalar__": {"__float__": "inf"}, "dtype": "float16"}))


FORGED_SCALAR = '''
def forge(m):
    if m.get("ok") is True and "devices" in m:
        m["value"] = {"__npscalar__": 1, "dtype": []}
        return [frame(m)]
'''


def test_a_forged_numpy_scalar_fails_as_a_broken_reply_not_as_python(grader, hostile):
    hostile(FORGED_SCALAR)
    result = grader.grade(FULL_MARKS, "sdpa-from-scratch", seed=5)
    assert result.status == "graded"
    message = _test(result, "test_float32_no_mask").message
    assert "unhashable" not in message and "TypeError" not in message, message
    assert "unknown form" in message, message
    assert result.score < 35


HELD = {
    "replies_sent_twice": '''
def forge(m):
    if "id" in m:
        return [frame(m), frame(m)]
''',
    "answers_before_asked": '''
def forge(m):
    if "id" in m and "output" in m:
        return [frame(m)] + [frame({"id": m["id"] + k, "ok": True, "kind": "callable", "value": None}) for k in range(1, 6)]
''',
    "event_inside_a_call": '''
def forge(m):
    if "devices" in m:
        return [frame({"event": "cell_end", "index": 0, "status": "ok", "error": "", "duration_s": 0}), frame(m)]
''',
    "header_of_2_to_the_64": '''
def forge(m):
    if "devices" in m:
        return [b"\\xff" * 8]
''',
    "bare_nan_for_each_value": '''
def forge(m):
    if "devices" in m:
        return [frame(None, frame(m)[8:].replace(b'"value":', b'"value":NaN,"x":', 1))]
''',
}


@pytest.mark.parametrize("forgery", sorted(HELD))
def test_a_lying_worker_earns_nothing_and_breaks_nothing(grader, hostile, forgery):
    hostile(HELD[forgery])
    result = grader.grade(FULL_MARKS, "sdpa-from-scratch", seed=5)
    assert result.status == "graded", result.message
    assert result.score < 35, result.score
    assert _test(result, "test_float32_no_mask").score == 0


SPLIT = '''
def forge(m):
    f = frame(m)
    return [f[i:i + 1] for i in range(min(len(f), 40))] + [f[40:]]
'''


def test_a_reply_written_a_byte_at_a_time_is_read_whole(grader, hostile):
    hostile(SPLIT)
    result = grader.grade(FULL_MARKS, "sdpa-from-scratch", seed=5)
    assert result.status == "graded" and result.score == 35, result.score


def test_a_worker_that_stops_reading_a_request_is_dropped_within_the_calls_own_limit():
    """The send of a request had no deadline of its own: the socket kept the last read's leftover timeout (up to 30 s),
    so a worker that stopped reading a large request held the grader that long whatever the call's limit (a search's
    calls have 2 s). Now the send ends at the request's limit and the worker is killed as one that stopped reading."""
    import socket
    import time

    from autograder.errors import WorkerCrashed
    grader_end, worker_end = socket.socketpair()
    try:
        # the session's state without its start (no ready message, no pid: kill signals nothing)
        session = object.__new__(session_module.WorkerSession)
        session.sock, session.policy, session._dead, session._next_id = grader_end, session_module.SandboxPolicy(), False, 0
        session.pid, session.pidfd, session.death_reason, session._ahead, session._resolved_ahead = 0, None, "", [], []
        grader_end.settimeout(60)              # what a last read's leftover timeout may be
        started = time.monotonic()
        with pytest.raises(WorkerCrashed, match="stopped reading"):
            session._send("call", 1.0, name="f", args=["x" * (16 << 20)])   # the worker never reads it
        assert time.monotonic() - started < 10
        assert session._dead
    finally:
        worker_end.close()
