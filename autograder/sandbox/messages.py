"""Every message that crosses the sandbox boundary, typed once for both sides.

    grader -> worker   a Request: exec, resolve, call, call_ahead, time_fresh, exit
    worker -> grader   an Event while cells run (cell_start, cell_end), the worker's `ready`, or a
                       Reply to the request with the same id (call_ahead: one Reply per call, in
                       order, each with its `index`, the last with `more` false)
    grader -> zygote   SpawnRequest on the control socket, one socket fd attached
    zygote -> grader   ZygoteReady once, then Spawned per request

Frames and values (JSON, safetensors) are `autograder.sandbox.protocol`'s job; this module says what the
frames contain. Everything the worker sends is untrusted: readers check each field's type."""
from __future__ import annotations

from typing import Any, Literal, TypedDict

from typing_extensions import NotRequired

Op = Literal["exec", "resolve", "call", "call_ahead", "time_fresh", "exit"]
OPS: tuple[Op, ...] = ("exec", "resolve", "call", "call_ahead", "time_fresh", "exit")

# A call_ahead request carries at most this many calls, and at most this many bytes of arguments
# (the worker refuses more; the grader never sends more).
MAX_AHEAD = 12
MAX_AHEAD_BYTES = 4 << 20
# A resolve's `then` answers (ResolveRequest): each at most this many bytes; a larger one is asked alone.
RESOLVE_THEN_BYTES = 1 << 20


# --- grader -> worker ------------------------------------------------------------------------
class ExecRequest(TypedDict):
    id: int
    op: Literal["exec"]
    cells: list[str]


class ResolveRequest(TypedDict):
    """What `name` is (Reply.kind; a value's value). With `then`, the names the grader will ask for
    next, in its order: the worker answers `name` and then each of them, one Reply each (`index`,
    `more`, as call_ahead), as separate resolves would, in one round trip. A later name's reply over
    RESOLVE_THEN_BYTES is `skipped` instead, and ends the request."""
    id: int
    op: Literal["resolve"]
    name: str
    then: NotRequired[list[str]]  # at most MAX_AHEAD names


class CallRequest(TypedDict):
    id: int
    op: Literal["call"]
    name: str
    device: str
    args: Any                     # protocol.encode_value(list)
    kwargs: Any                   # protocol.encode_value(dict)
    grad_wrt: NotRequired[list[int]]
    grad_output: NotRequired[Any]


class AheadCall(TypedDict):
    args: Any                     # protocol.encode_value(list, layout=True)
    kwargs: Any                   # protocol.encode_value(dict, layout=True)


class CallAheadRequest(TypedDict):
    """Several calls of `name`, made in order before the grader needs their answers (the candidates of
    a shrinking step, autograder.grading.shrink): the worker answers each with its own Reply (`index`
    i, `more`) and starts the next only while `more`: less than `stop_after_s` has passed since the
    request arrived (a courtesy: the grader's own deadline still ends the request from outside)."""
    id: int
    op: Literal["call_ahead"]
    name: str
    device: str
    calls: list[AheadCall]
    stop_after_s: float


class TimeFreshRequest(TypedDict):
    """Call `name` `repeat` times on inputs drawn inside the worker from `seed` (calls.run_fresh_calls);
    the grader reads the worker's CPU clock around the whole request."""
    id: int
    op: Literal["time_fresh"]
    name: str
    device: str
    specs: list[tuple[list[int], str]]
    kwargs: Any
    seed: int
    repeat: int


class ExitRequest(TypedDict):
    id: int
    op: Literal["exit"]


# --- worker -> grader ------------------------------------------------------------------------
class Ready(TypedDict):
    event: Literal["ready"]
    seccomp: bool
    namespaces: list[str]         # what this worker has of its own: pid, ipc, mount, net, user
    landlock: bool                # file-system walls without mounts (the container level)
    shared_memory: Literal["denied", "allowed"]
    cuda_ready: bool              # CUDA was initialised before the filter (only asked when policy.cuda)
    cuda_error: str               # why not, when it was asked and failed ("" otherwise)
    stdlib_readable: bool         # the worker's uid can read the interpreter's standard library (False: a Python
                                  # under /root at fallback or container: modules not preloaded cannot be imported)
    scratch: str                  # its scratch dir where that is on the host's disk (no private tmpfs), else "":
                                  # the grader removes it once the worker is gone (session.remove_scratch)


class CellStart(TypedDict):
    event: Literal["cell_start"]
    index: int


class CellEnd(TypedDict):
    event: Literal["cell_end"]
    index: int
    status: Literal["ok", "error"]
    error: str
    duration_s: float


class ErrorInfo(TypedDict):
    type: str
    message: str
    traceback: str


class Reply(TypedDict):
    id: int
    ok: bool
    value: NotRequired[Any]
    error: NotRequired[ErrorInfo]
    kind: NotRequired[Literal["missing", "unanswered", "callable", "value"]]
    devices: NotRequired[list[str]]
    # on a reply to call or time_fresh (ok or not) and to exec: the kind of each name resolved so far,
    # as it is after the student's code ran (the grader resolves those again only for values)
    kinds: NotRequired[dict[str, Literal["missing", "unanswered", "callable", "value"]]]
    # on a reply to call_ahead, or to a resolve with `then`: which call or name of the request it
    # answers, and whether another follows
    index: NotRequired[int]
    more: NotRequired[bool]
    skipped: NotRequired[bool]    # a resolve's `then` name not answered here (too large): ask it alone


# --- grader <-> zygote -----------------------------------------------------------------------
CudaInit = Literal["torch", "os_standin", "os_standin_no_userns"]
CUDA_INITS: tuple[CudaInit, ...] = ("torch", "os_standin", "os_standin_no_userns")


class WorkerPolicy(TypedDict):
    """What the worker needs to lock itself down; built from grading.yml's limits by the grader (only
    the grader can send a spawn request: nothing here comes from a student)."""
    memory_mb: int
    output_kb: int
    tmp_mb: int
    shm_mb: int
    forbidden: list[str]
    # Initialise CUDA before the seccomp filter is loaded (it needs calls the filter refuses, a
    # socket among them). `cuda_init` names how, from a fixed list: "torch" (the real thing) or
    # "os_standin", which asks the OS for what CUDA's initialisation asks, for tests without a GPU
    # ("os_standin_no_userns": the same, failing inside a user namespace as CUDA did on an H200).
    cuda: bool
    cuda_init: CudaInit


class SpawnRequest(TypedDict):
    op: Literal["spawn"]
    token: str
    policy: WorkerPolicy


class ZygoteReady(TypedDict):
    event: Literal["zygote_ready"]
    uid: int


class Spawned(TypedDict):
    event: Literal["spawned"]
    token: str


def cell_filename(index: int) -> str:
    """The name the code cell at `index` (0-based, code cells only) is compiled under, as IPython
    names it after Run All on a fresh kernel, so a traceback reads like Jupyter's."""
    return f"In[{index + 1}]"


def jupyter_cell(index: int) -> str:
    """How a message names that cell: Jupyter's traceback says `Cell In[20], line 1`."""
    return f"Cell {cell_filename(index)}"
