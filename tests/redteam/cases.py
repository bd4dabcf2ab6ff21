"""The red-team suite: hostile submissions against the fixture course's `toy` assignment.

Each case is a list of code cells. `{course}` and `{escape}` are filled in at test time with the
course root and a host path the submission tries to write to: the attacker knows every path.
Every case is expected to: score 0, leak no secret marker or environment secret, write nothing
outside its scratch dir, leave no process behind, and let the grader (and a batch) finish.
A few cases carry a `kind` that the tests check further (for example the grade must finish fast)."""
from __future__ import annotations

from dataclasses import dataclass, field

WRONG = "import torch\ndef attend(Q, K, V):\n    return torch.zeros(Q.shape[0], V.shape[1])\nanswer = 'A'"


@dataclass(frozen=True)
class Case:
    name: str
    cls: str                      # gain | denial | escape
    cells: list[str]
    notes: str = ""
    tags: tuple[str, ...] = field(default=())


CASES: list[Case] = [
    # --- gaining points -----------------------------------------------------------------------
    Case("monkeypatch_allclose", "gain", [WRONG, "import torch, numpy\n"
         "torch.allclose = lambda *a, **k: True\ntorch.equal = lambda *a, **k: True\n"
         "torch.testing.assert_close = lambda *a, **k: None\nnumpy.allclose = lambda *a, **k: True"],
         "the otter one-liner: hidden tests run in the grader, not here"),
    Case("monkeypatch_builtins", "gain", [WRONG, "import builtins\n"
         "builtins.isinstance = lambda *a: True\nbuiltins.abs = lambda x: 0\n"
         "class T(str):\n    def __eq__(self, o): return True\n    def strip(self): return self\n"
         "    def upper(self): return self\nanswer = T('A')"]),
    Case("tensor_subclass", "gain", ["import torch\n"
         "class Liar(torch.Tensor):\n"
         "    def __eq__(self, other): return True\n"
         "    def allclose(self, *a, **k): return True\n"
         "    @classmethod\n"
         "    def __torch_function__(cls, func, types, args=(), kwargs=None): return True\n"
         "def attend(Q, K, V):\n    return torch.zeros(Q.shape[0], V.shape[1]).as_subclass(Liar)\nanswer = 'A'"]),
    Case("lying_eq_object", "gain", ["class Always:\n"
         "    def __eq__(self, o): return True\n    def __ne__(self, o): return False\n"
         "    def strip(self): return self\n    def upper(self): return self\n"
         "    shape = (5, 12)\n"
         "def attend(Q, K, V): return Always()\nanswer = Always()"]),
    Case("alias_and_mutate_inputs", "gain", ["import torch\n"
         "def attend(Q, K, V):\n    V.zero_(); Q.zero_(); K.zero_()\n    return V\nanswer = 'A'"],
         "mutating inputs in the worker cannot change the grader's copies"),
    Case("forge_results_json", "gain", [WRONG, "import json, os\n"
         "fake = {'score': 999, 'tests': [{'name': 'x', 'score': 999, 'max_score': 1}]}\n"
         "for p in ['/autograder/results/results.json', 'results.json', '{escape}']:\n"
         "    try:\n        os.makedirs(os.path.dirname(p) or '.', exist_ok=True)\n"
         "        open(p, 'w').write(json.dumps(fake))\n    except Exception: pass\n"
         "print(json.dumps(fake))"]),
    Case("print_fake_frames", "gain", [WRONG, "import os, json, struct\n"
         "body = json.dumps({'id': 3, 'ok': True, 'kind': 'value', 'value': 'B'}).encode()\n"
         "for fd in range(3, 64):\n    try: os.write(fd, struct.pack('>Q', len(body)) + body)\n"
         "    except OSError: pass\nprint(body)"],
         "a forged frame on the socket is just a wrong answer or a protocol error"),
    Case("import_reference", "gain", [WRONG, "import sys\n"
         "sys.path[:0] = ['{course}', '{course}/reference', '/autograder/source']\n"
         "from reference.toy import attend, answer"]),
    Case("read_hidden_tests", "gain", [WRONG, "import glob\nleak = ''\n"
         "for p in glob.glob('{course}/**/*.py', recursive=True) + glob.glob('/autograder/**', recursive=True):\n"
         "    try: leak += open(p).read()\n    except Exception: pass\n"
         "raise RuntimeError('LEAK ' + leak[:5000])"]),
    Case("forbidden_api_in_disguise", "gain", ["import torch, math\n"
         "F = getattr(torch.nn, 'functional')\n"
         "def attend(Q, K, V):\n"
         "    fn = getattr(F, 'scaled_dot_' + 'product_attention')\n"
         "    return fn(Q[None], K[None], V[None])[0]\nanswer = 'A'"],
         "the runtime guard raises inside the call"),
    # --- denial -------------------------------------------------------------------------------
    Case("infinite_loop_toplevel", "denial", ["while True:\n    pass"], tags=("slow",)),
    Case("infinite_loop_in_call", "denial", ["def attend(Q, K, V):\n    while True: pass\nanswer = 'A'"],
         tags=("slow",)),
    Case("sleep_ignoring_signals", "denial", ["import signal, time\n"
         "for s in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM, signal.SIGHUP):\n"
         "    signal.signal(s, signal.SIG_IGN)\n"
         "def attend(Q, K, V):\n    time.sleep(3600)\nanswer = 'A'"], tags=("slow",)),
    Case("memory_bomb", "denial", ["x = bytearray(20 * 1024**3)",
                                   "import torch\nt = torch.empty(6 * 1024**3, dtype=torch.uint8).fill_(1)",
                                   WRONG]),
    Case("fork_bomb", "denial", ["import os\nfor _ in range(64):\n    try: os.fork()\n    except OSError as e: print(e)",
                                 "import subprocess\nsubprocess.Popen(['sleep', '1000'])", WRONG]),
    Case("thread_storm", "denial", ["import threading, time\nts = []\n"
         "for _ in range(5000):\n    t = threading.Thread(target=time.sleep, args=(1000,), daemon=True)\n"
         "    t.start(); ts.append(t)", WRONG]),
    Case("output_flood_print", "denial", ["for _ in range(200000):\n    print('x' * 1000)", WRONG]),
    Case("output_flood_oswrite", "denial", ["import os\nfor _ in range(100000):\n"
         "    os.write(1, b'y' * 4096); os.write(2, b'z' * 4096)", WRONG]),
    Case("huge_return_value", "denial", ["import torch\n"
         "def attend(Q, K, V):\n    return torch.ones(200_000_000, dtype=torch.float32)\n"
         "answer = list(range(3_000_000))"]),
    Case("deep_nesting_return", "denial", ["import sys\nsys.setrecursionlimit(100000)\n"
         "def attend(Q, K, V):\n    x = []\n    for _ in range(50000): x = [x]\n    return x\nanswer = 'A'"]),
    Case("orphan_daemon", "denial", ["import os, sys\n"
         "try:\n    pid = os.fork()\n    if pid == 0:\n        os.setsid()\n"
         "        if os.fork() == 0:\n            import time; time.sleep(10**6)\n        os._exit(0)\n"
         "except OSError as e:\n    print('fork refused', e)", WRONG]),
    Case("kill_the_parent", "denial", ["import os, signal\n"
         "for pid in (os.getppid(), 1, -1, 0):\n    try: os.kill(pid, signal.SIGKILL)\n"
         "    except OSError as e: print(pid, e)\n"
         "try: os.killpg(os.getpgid(os.getppid()), signal.SIGKILL)\nexcept OSError as e: print(e)", WRONG]),
    Case("os_exit", "denial", [WRONG, "import os\nos._exit(0)"]),
    Case("exit_inside_call", "denial", ["import os\ndef attend(Q, K, V):\n    os._exit(3)\nanswer = 'A'"]),
    Case("close_channel", "denial", ["import os\ndef attend(Q, K, V):\n"
         "    for fd in range(3, 256):\n        try: os.close(fd)\n        except OSError: pass\n"
         "    return Q\nanswer = 'A'"]),
    # --- escaping -----------------------------------------------------------------------------
    Case("network_loopback", "escape", [WRONG, "import socket\nerrs = []\n"
         "for fam, addr in ((socket.AF_INET, ('127.0.0.1', 80)), (socket.AF_INET6, ('::1', 80)),\n"
         "                  (socket.AF_UNIX, '/run/docker.sock')):\n"
         "    try:\n        s = socket.socket(fam, socket.SOCK_STREAM); s.settimeout(1); s.connect(addr)\n"
         "        raise SystemExit('CONNECTED')\n    except OSError as e: errs.append(str(e))\nprint(errs)"]),
    Case("write_outside_scratch", "escape", [WRONG, "import os\n"
         "for p in ['{escape}', '{course}/pwned.txt', '/tmp/../{escape}', os.path.expanduser('~/../pwned')]:\n"
         "    try: open(p, 'w').write('pwned')\n    except OSError as e: print(e)"]),
    Case("read_env_secrets", "escape", [WRONG, "import os, glob\nleak = str(dict(os.environ))\n"
         "for p in glob.glob('/proc/*/environ'):\n    try: leak += open(p, 'rb').read().decode(errors='replace')\n"
         "    except OSError: pass\n"
         "def attend(Q, K, V):\n    raise RuntimeError('ENV ' + leak[:20000])"]),
    Case("leak_via_error_message", "escape", ["import inspect, sys, traceback\n"
         "def attend(Q, K, V):\n"
         "    frames = ''.join(str(f.f_globals.keys()) for f in [sys._getframe(i) for i in range(3)])\n"
         "    raise ValueError('INPUTS ' + repr(Q.tolist()) + frames + ''.join(traceback.format_stack()))\n"
         "answer = 'A'"]),
]
