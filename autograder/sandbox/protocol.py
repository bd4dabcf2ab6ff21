"""The message format both sides of the sandbox boundary share: length-prefixed JSON frames whose
values are plain data. Tensors travel as safetensors bytes (a format with no code in it), numpy arrays
as tensors marked `numpy`. Nothing is ever unpickled. Every frame from the worker is untrusted:
size-capped before it is read, depth- and count-capped while it is decoded, and rebuilt as plain
`torch.Tensor` / builtins, so subclasses and objects with lying `__eq__` cannot cross."""
from __future__ import annotations

import base64
import itertools
import json
import math
import re
import socket
import struct
import sys
import time
import types
from typing import Any

from functools import lru_cache

from autograder.errors import ProtocolError, WorkerCrashed, WorkerTimeout

HEADER = struct.Struct(">Q")
# Taken when this module is imported (in the zygote, before any student code): a cell that replaces json.dumps or
# json.loads afterwards does not change how the worker's frames are written or read (red-team round 47 rewrote a
# refused call's reply into an ok one that way). A store into json's attributes is also refused before the notebook
# runs (source_checks); this is the layer behind it for the spellings that check cannot see.
_DUMPS, _LOADS = json.dumps, json.loads
MAX_DEPTH = 32
MAX_ITEMS = 100_000
# tensors in one value: each costs the grader ~10 us to rebuild, so a reply of 99,000 empty tensors (10 MB)
# cost it 1 s of CPU per call and a whole grade 37 s (red-team round 26); an answer holds a few, a list of
# heads a few dozen
MAX_TENSORS = 1_000
# strings in a NumPy array of text (an answer left as array(['C'])): each counts as one value. Each string is
# cut at MAX_STRING_IN_ARRAY characters: NumPy pads every string of an array to the longest, so one long string
# among 10,000 would make the grader's copy count times its length (a 1 MB string: 40 GB)
MAX_STRING_ARRAY = 10_000
MAX_STRING_IN_ARRAY = 1_000
# NumPy scalars that cross as themselves (protocol.encode_value): every numeric kind but float64
_NUMPY_SCALARS = frozenset({"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                            "float16", "float32"})
# Checked on a frame's bytes before json.loads builds anything. decode_value accepts at most MAX_ITEMS
# values, and each costs at most 3 counted characters (a tensor with `numpy`: `{` `,` and its
# separator), so no frame decode_value would accept is refused; the envelope gets the slack.
MAX_FRAME_ITEMS = 3 * MAX_ITEMS + 1000


class EncodeError(TypeError):
    pass


# torch is imported on first use, not at import: the grader launches the sandbox zygote before it
# pays for `import torch` itself, so the two imports overlap.
def _tensor_bytes(t: Any) -> bytes:
    """The safetensors bytes of the value `t` denotes. safetensors writes a tensor's storage, so
    everything that makes the logical value differ from it is resolved first: the conjugate and
    negative bits of lazy views (`x.conj()`, `torch._neg_view(x)`), zero tensors, sparse layouts,
    strides and storage offsets. The copy is a fresh, dense, contiguous CPU tensor."""
    import torch
    from safetensors.torch import save as st_save
    value = t.detach()
    if value.layout != torch.strided:
        value = value.to_dense()
    value = value.as_subclass(torch.Tensor)
    if value.dtype not in _allowed_dtypes():
        raise EncodeError(f"a tensor of dtype {value.dtype} cannot cross the sandbox boundary")
    value = value.resolve_conj().resolve_neg()
    plain = torch.empty(tuple(value.shape), dtype=value.dtype, device="cpu")
    plain.copy_(value)  # logical copy: reads through strides, offsets and view flags
    code = _safetensors_codes().get(plain.dtype)
    if code is None or sys.byteorder != "little":
        return st_save({"t": plain})
    # What st_save writes, byte for byte (tests/test_protocol_codec.py), without its checks for
    # tensors sharing storage (`plain` is fresh: 65 us a tensor down to 8). The reader is unchanged.
    data = plain.reshape(-1).view(torch.uint8).numpy().tobytes()
    header = _DUMPS({"t": {"dtype": code, "shape": list(plain.shape), "data_offsets": [0, len(data)]}},
                        separators=(",", ":")).encode()
    header += b" " * (-len(header) % 8)
    return _SAFETENSORS_HEADER.pack(len(header)) + header + data


_SAFETENSORS_HEADER = struct.Struct("<Q")


@lru_cache(maxsize=1)
def _safetensors_codes() -> dict[Any, str]:
    import torch
    return {torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
            torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8", torch.uint8: "U8",
            torch.bool: "BOOL", torch.complex64: "C64"}


MAX_PLAIN_INT_BITS = 10_000     # about 3000 decimal digits: an int crosses as JSON's own number up to this
MAX_INT_BITS = 1 << 16          # and as hexadecimal digits up to this (16,384 of them); past it, refused
_BIGINT = re.compile(r"-?[0-9a-f]{1,%d}" % (MAX_INT_BITS // 4 + 1))


def encode_value(value: Any, depth: int = 0, *, layout: bool = False) -> Any:
    """Python value -> JSON-able tree. Raises EncodeError for anything that is not plain data.

    `layout` (the grader's arguments only): a non-contiguous tensor also carries its layout, so that
    the student's function receives a transposed view, a strided slice or an expanded (stride-0)
    tensor as the hidden test built it (see `_layout`)."""
    import torch
    if depth > MAX_DEPTH:
        raise EncodeError("value is nested too deeply")
    if value is None or type(value) in (bool, str):
        return value
    if type(value) is int:
        if value.bit_length() <= MAX_PLAIN_INT_BITS:
            return value
        if value.bit_length() > MAX_INT_BITS:
            raise EncodeError(f"an int of {value.bit_length()} bits cannot cross the sandbox boundary (at most "
                              f"{MAX_INT_BITS})")
        # JSON's decimal digits are refused past sys.int_max_str_digits (4300): hexadecimal, linear both ways
        # (red-team round 54: a 4933-digit count killed the worker, and the right answers read with it)
        return {"__bigint__": format(value, "x")}
    if type(value) is float:
        return value if math.isfinite(value) else {"__float__": repr(value)}
    if isinstance(value, torch.dtype):
        name = str(value).removeprefix("torch.")
        if getattr(torch, name, None) not in _allowed_dtypes():
            raise EncodeError(f"dtype {value} cannot cross the sandbox boundary")
        return {"__dtype__": name}
    if isinstance(value, torch.device):
        return {"__device__": value.type}
    if isinstance(value, torch.Generator) and value.device.type == "cpu":
        # Hidden tests may hand the student's function a seeded generator (grader -> worker only).
        return {"__generator__": encode_value(value.get_state(), depth + 1)}
    if isinstance(value, torch.Tensor):
        if layout and value.layout == torch.strided and not value.is_contiguous():
            return _with_layout(value)
        return {"__tensor__": base64.b64encode(_tensor_bytes(value)).decode("ascii")}
    import numpy as np  # a dependency, and torch's own
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            raise EncodeError("numpy arrays of Python objects cannot be returned")
        if value.dtype.kind == "U":
            # an array of text (`arr[arr == "C"]` leaves array(['C'])): the strings themselves, so the grader
            # can say what the answer is, not that it could not be read
            if value.size > MAX_STRING_ARRAY or value.dtype.itemsize > 4 * MAX_STRING_IN_ARRAY:
                raise EncodeError(f"a numpy array of more than {MAX_STRING_ARRAY} strings, or of strings longer "
                                  f"than {MAX_STRING_IN_ARRAY} characters, cannot be returned")
            return {"__strarray__": [str(v) for v in value.reshape(-1).tolist()], "shape": list(value.shape)}
        # ascontiguousarray gives a 0-d array one axis (shape (1,)): its shape is put back, so `.numpy()` of a 0-d
        # tensor arrives as what it is
        t = torch.from_numpy(np.ascontiguousarray(value).reshape(value.shape))
        return {"__tensor__": base64.b64encode(_tensor_bytes(t)).decode("ascii"), "numpy": True}
    if isinstance(value, np.generic):
        # a NumPy scalar crosses as what it is where Python's own type would say otherwise: an np.int64 is
        # not an int, an np.float32 not a float (a notebook that asks for an int sees the difference, so
        # the grader must). np.float64 is a float and crosses as one.
        name = value.dtype.name
        if type(value) is np.float64 or name not in _NUMPY_SCALARS:
            return encode_value(value.item(), depth + 1)
        return {"__npscalar__": encode_value(value.item(), depth + 1), "dtype": name}
    if isinstance(value, (list, tuple)):
        items = [encode_value(v, depth + 1, layout=layout) for v in value]
        return {"__tuple__": items} if isinstance(value, tuple) else items
    if type(value) in (set, frozenset):
        # an answer in braces ({"A"} is a set): its members, when they are plain scalars, so the grader can say
        # what the answer holds; in an order of their own (a set has none), the same each run
        if not all(v is None or type(v) in (bool, int, float, str) for v in value):
            raise EncodeError("only sets of numbers and strings can be returned")
        # an int is ordered by its value: its repr raises past 4300 digits (red-team round 86: a set holding 10 ** 5000
        # made encoding raise ValueError, and the grader showed Python's words for it)
        items = sorted(value, key=lambda v: (type(v).__name__, v if type(v) is int else repr(v)))
        return {"__set__": [encode_value(v, depth + 1) for v in items], "frozen": type(value) is frozenset}
    if isinstance(value, dict):
        if not all(type(k) is str for k in value):
            raise EncodeError("only dicts with string keys can be returned" + _keys_note(value))
        return {"__dict__": {k: encode_value(v, depth + 1, layout=layout) for k, v in value.items()}}
    raise EncodeError(f"a value of type {type(value).__name__} cannot cross the sandbox boundary"
                      + _callable_note(value) + _enum_note(value))


def _enum_note(value: Any) -> str:
    """" (an Enum member)" for a member of an Enum class (`Choice.C` where the letter "C" is asked), so the grader
    can say so (checks.callable_not_called); read from the class's method resolution order, no student code run."""
    import enum
    try:
        return " (an Enum member)" if enum.Enum in type.__dict__["__mro__"].__get__(type(value)) else ""
    except Exception:  # noqa: BLE001 - an odd class: no note
        return ""


def _keys_note(value: dict[Any, Any]) -> str:
    """The keys of a dict refused for them, in the error (" (keys: 4, 16, 64)"), so the grader can tell a
    table keyed by its d's from another: numbers and None shown (up to 12, bounded), other keys by type."""
    keys = list(itertools.islice(value, 13))   # not a copy of every key of a huge dict
    if all(k is None or (type(k) in (int, float, bool) and not abs(k) >= 1e15) for k in keys):
        return f" (keys: {', '.join(repr(k) for k in keys[:12])}{', ...' if len(keys) > 12 else ''})"
    names = sorted({type(k).__name__[:40] for k in keys if type(k) is not str})
    return f" (keys of type {', '.join(names[:4])})"


# A function or method object met where a value is encoded is named in the error ("`item`, not called"),
# so the grader can tell the student which call lost its parentheses (checks.callable_not_called). Only
# the message changes: nothing callable ever crosses. The name is read from the exact built-in types
# alone (their __name__ is a C slot or a plain attribute: no student code runs), kept to an identifier.
_NOTE = " (the function or method object `{}` itself, not called)"


def _callable_note(value: Any) -> str:
    func = value.__func__ if type(value) is types.MethodType else value
    if type(func) not in (types.FunctionType, types.BuiltinFunctionType, types.MethodWrapperType,
                          types.MethodDescriptorType, types.WrapperDescriptorType):
        return ""
    name = func.__name__
    if type(name) is not str or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,60}|<lambda>", name):
        return ""
    return _NOTE.format(name)


# --- layouts: the grader's non-contiguous arguments arrive non-contiguous ----------------------------
# Hidden tests pass transposed views, strided slices and expanded tensors on purpose (code that calls
# .view on them, or writes into them, breaks). The values still travel as a dense tensor; "expand"
# lists the dims of size > 1 with stride 0 (sent once, expanded again), "stride" the strides of the
# rest (rebuilt with torch.empty_strided). Only decode_value(..., from_grader=True), the worker
# reading the grader's arguments, rebuilds them; a reply never carries a layout.
MAX_LAYOUT_SLACK = 4096   # elements of storage a rebuilt layout may use beyond 8 x its element count


def _storage_extent(shape: Any, stride: Any) -> int:
    return 1 + sum((n - 1) * s for n, s in zip(shape, stride) if n > 0)


def _non_overlapping(shape: Any, stride: Any) -> bool:
    """No two indices share an element (each stride clears the span of the smaller ones)."""
    span = 0
    for s, n in sorted((s, n) for n, s in zip(shape, stride) if n > 1):
        if s <= span:
            return False
        span += (n - 1) * s
    return True


def _with_layout(t: Any) -> dict[str, Any]:
    shape, stride = list(t.shape), list(t.stride())
    expand = [i for i, (n, s) in enumerate(zip(shape, stride)) if n > 1 and s == 0]
    base = t
    for i in expand:
        base = base.narrow(i, 0, 1)
    tree: dict[str, Any] = {"__tensor__": base64.b64encode(_tensor_bytes(base)).decode("ascii")}
    if expand:
        tree["expand"] = shape
    b_stride = [s if n > 1 else 1 for n, s in zip(base.shape, base.stride())]
    if (not base.is_contiguous() and _non_overlapping(base.shape, b_stride) and base.numel() > 0
            and _storage_extent(base.shape, b_stride) <= 8 * base.numel() + MAX_LAYOUT_SLACK):
        tree["stride"] = b_stride
    return tree


def _rebuild_layout(t: Any, tree: dict[str, Any]) -> Any:
    import torch
    stride, expand = tree.get("stride"), tree.get("expand")
    if stride is not None:
        if (type(stride) is not list or len(stride) != t.dim()
                or not all(type(s) is int and 0 < s < 2 ** 40 for s in stride)
                or not _non_overlapping(t.shape, stride)
                or _storage_extent(t.shape, stride) > 8 * t.numel() + MAX_LAYOUT_SLACK):
            raise ProtocolError("argument has a malformed layout")
        strided = torch.empty_strided(tuple(t.shape), tuple(stride), dtype=t.dtype, device="cpu")   # as _decode_tensor
        strided.copy_(t)
        t = strided
    if expand is not None:
        if (type(expand) is not list or len(expand) != t.dim()
                or not all(type(n) is int and (m == n or m == 1) and 0 <= n < 2 ** 31 for n, m in zip(expand, t.shape))):
            raise ProtocolError("argument has a malformed layout")
        t = t.expand(*expand)
    return t


class _Counter:
    def __init__(self) -> None:
        self.n = 0
        self.tensors = 0

    def tick(self) -> None:
        self.n += 1
        if self.n > MAX_ITEMS:
            raise ProtocolError("reply has too many items")

    def tensor(self) -> None:
        self.tensors += 1
        if self.tensors > MAX_TENSORS:
            raise ProtocolError(f"reply holds more than {MAX_TENSORS} tensors")


@lru_cache(maxsize=1)
def _allowed_dtypes() -> frozenset:
    import torch
    return frozenset({torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.bool,
                      torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8,
                      torch.complex64, torch.complex128})


def decode_value(tree: Any, depth: int = 0, counter: _Counter | None = None,
                 from_grader: bool = False) -> Any:
    """JSON tree from the worker -> plain Python/torch values. Raises ProtocolError on anything odd.

    `from_grader` is for the worker decoding the grader's arguments (generators, and tensors
    with a layout: see `_with_layout`); replies never carry one."""
    import torch
    counter = counter or _Counter()
    counter.tick()
    if depth > MAX_DEPTH:
        raise ProtocolError("reply is nested too deeply")
    if tree is None or type(tree) in (bool, int, float, str):
        return tree
    if type(tree) is list:
        return [decode_value(v, depth + 1, counter, from_grader) for v in tree]
    if type(tree) is dict and set(tree) == {"__bigint__"}:
        digits = tree["__bigint__"]
        if type(digits) is not str or not _BIGINT.fullmatch(digits):
            raise ProtocolError("a large int that is not one")
        return int(digits, 16)
    if type(tree) is dict:
        if set(tree) <= {"__tensor__", "numpy"} and "__tensor__" in tree:
            counter.tensor()
            return _decode_tensor(tree)
        if from_grader and set(tree) <= {"__tensor__", "stride", "expand"} and "__tensor__" in tree:
            counter.tensor()
            return _rebuild_layout(_decode_tensor({"__tensor__": tree["__tensor__"]}), tree)
        if set(tree) == {"__tuple__"} and type(tree["__tuple__"]) is list:
            return tuple(decode_value(v, depth + 1, counter, from_grader) for v in tree["__tuple__"])
        if (set(tree) == {"__set__", "frozen"} and type(tree["__set__"]) is list
                and type(tree["frozen"]) is bool):
            members = [decode_value(v, depth + 1, counter, from_grader) for v in tree["__set__"]]
            if all(v is None or type(v) in (bool, int, float, str) for v in members):
                return (frozenset if tree["frozen"] else set)(members)
        if set(tree) == {"__dict__"} and type(tree["__dict__"]) is dict:
            return {str(k): decode_value(v, depth + 1, counter, from_grader)
                    for k, v in tree["__dict__"].items()}
        if from_grader and set(tree) == {"__generator__"}:
            gen = torch.Generator()
            gen.set_state(_decode_tensor(tree["__generator__"]))
            return gen
        if set(tree) == {"__dtype__"} and type(tree["__dtype__"]) is str:
            dtype = getattr(torch, tree["__dtype__"], None)
            if dtype in _allowed_dtypes():
                return dtype
        if set(tree) == {"__device__"} and tree["__device__"] in ("cpu", "cuda"):
            return torch.device(tree["__device__"])
        if set(tree) == {"__float__"} and tree["__float__"] in ("nan", "inf", "-inf"):
            return float(tree["__float__"])
        if (set(tree) == {"__strarray__", "shape"} and type(tree["__strarray__"]) is list
                and type(tree["shape"]) is list and len(tree["shape"]) <= 8
                and all(type(n) is int and 0 <= n <= MAX_STRING_ARRAY for n in tree["shape"])
                and len(tree["__strarray__"]) <= MAX_STRING_ARRAY
                and math.prod(tree["shape"]) == len(tree["__strarray__"])
                and all(type(v) is str and len(v) <= MAX_STRING_IN_ARRAY for v in tree["__strarray__"])):
            for _ in tree["__strarray__"]:
                counter.tick()
            import numpy as np
            return np.array(tree["__strarray__"], dtype=np.str_).reshape(tree["shape"])
        # the name's type first: a list or dict is unhashable, and `in` a frozenset raised TypeError, not ProtocolError
        # (red-team round 113: a forged reply failed each test with Python's "unhashable type: 'list'")
        if set(tree) == {"__npscalar__", "dtype"} and type(tree["dtype"]) is str and tree["dtype"] in _NUMPY_SCALARS:
            inner = tree["__npscalar__"]
            if isinstance(inner, dict) and set(inner) == {"__float__"}:
                inner = decode_value(inner, depth + 1, counter, from_grader)
            if type(inner) in (bool, int, float):
                import numpy as np
                try:
                    # a finite float past float16's or float32's range is one no worker's value holds: refused, where it
                    # became inf with a RuntimeWarning on the grader's stderr (round 113)
                    with np.errstate(over="raise"):
                        return np.dtype(tree["dtype"]).type(inner)
                except (OverflowError, ValueError, TypeError, FloatingPointError):
                    raise ProtocolError("reply holds a NumPy scalar out of its range") from None
    raise ProtocolError("reply contains a value of unknown form")


def _decode_tensor(tree: dict) -> Any:
    import torch
    from safetensors.torch import load as st_load
    try:
        raw = base64.b64decode(tree["__tensor__"], validate=True)
        loaded = st_load(raw)
    except Exception as e:  # noqa: BLE001 - any malformed bytes are the worker's fault
        raise ProtocolError(f"reply has a malformed tensor ({type(e).__name__})") from None
    if set(loaded) != {"t"}:
        raise ProtocolError("reply has a malformed tensor")
    t = loaded["t"]
    if t.dtype not in _allowed_dtypes():
        raise ProtocolError(f"reply has a tensor of unsupported dtype {t.dtype}")
    # on the CPU whatever default device a cell set (the worker decodes the grader's arguments: red-team round 83)
    plain = torch.empty(t.shape, dtype=t.dtype, device="cpu")
    plain.copy_(t)  # a fresh, plain tensor that owns its memory
    if tree.get("numpy") is True:
        if plain.dtype == torch.bfloat16:   # NumPy has no bfloat16: no worker's array is one (`.numpy()` raised TypeError)
            raise ProtocolError("reply has a NumPy array of a dtype NumPy lacks")
        return plain.numpy()
    return plain


# --- framing -----------------------------------------------------------------------------------
def frame_bytes(message: dict[str, Any]) -> bytes:
    """The bytes `send_frame` writes for `message`: its length header, then its JSON."""
    body = _DUMPS(message, allow_nan=False, separators=(",", ":")).encode("utf-8")
    return HEADER.pack(len(body)) + body


def send_frame(sock: socket.socket, message: dict[str, Any]) -> None:
    sock.sendall(frame_bytes(message))


def _recv_exact(sock: socket.socket, n: int, deadline: float | None, timeout: float | None,
                what: str) -> bytes:
    chunks, got = [], 0
    while got < n:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise WorkerTimeout(what, timeout or 0.0)
            sock.settimeout(left)
        else:
            sock.settimeout(None)
        try:
            chunk = sock.recv(min(n - got, 1 << 20))
        except socket.timeout:
            continue
        except OSError as e:
            raise WorkerCrashed(f"connection lost ({e.strerror or e})") from None
        if not chunk:
            raise WorkerCrashed("the worker exited")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def recv_frame(sock: socket.socket, *, max_bytes: int, timeout: float | None = None,
               what: str = "the call") -> dict[str, Any]:
    """Read one frame. The size is checked before the body is read; the body must be a JSON object."""
    deadline = time.monotonic() + timeout if timeout is not None else None
    (size,) = HEADER.unpack(_recv_exact(sock, HEADER.size, deadline, timeout, what))
    if size > max_bytes:
        raise ProtocolError(f"a reply of {size} bytes exceeds the {max_bytes}-byte limit")
    body = _recv_exact(sock, size, deadline, timeout, what)
    return parse_frame(body)


def parse_frame(body: bytes) -> dict[str, Any]:
    """A frame's body -> its JSON object. The number of values is bounded on the bytes first, so a
    reply of millions of tiny items is refused before json.loads spends memory on it."""
    if json_item_bound(body, MAX_FRAME_ITEMS) > MAX_FRAME_ITEMS:
        raise ProtocolError(f"reply has too many items (more than {MAX_FRAME_ITEMS})")
    try:
        message = _LOADS(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ProtocolError("reply is not valid JSON") from None
    if type(message) is not dict:
        raise ProtocolError("reply is not a JSON object")
    return message


def json_item_bound(raw: bytes, limit: int) -> int:
    """An upper bound on the number of values json.loads(raw) would build (keys aside) before it
    returns or fails, computed without parsing: every value but the first follows a `,`, `[` or `{`
    outside a string. Linear time, no allocation in the common case: characters inside strings are
    skipped only when the quick count (them included) exceeds `limit`, and any result above `limit`
    may be returned as soon as the bound is known to exceed it."""
    quick = raw.count(b",") + raw.count(b"[") + raw.count(b"{")
    if quick <= limit:
        return quick
    # Strings may hold those characters. Escapes first: `\\` pairs, then `\"`, so that every `"`
    # left delimits a string (exactly so for any valid prefix, which is all json.loads builds from).
    clean = raw.replace(b"\\\\", b"").replace(b'\\"', b"") if b"\\" in raw else raw
    count = strings = pos = 0
    while True:
        quote = clean.find(b'"', pos)
        end = len(clean) if quote < 0 else quote
        count += clean.count(b",", pos, end) + clean.count(b"[", pos, end) + clean.count(b"{", pos, end)
        if count > limit or quote < 0:
            return count
        strings += 1
        if strings > 2 * limit + 2:  # valid JSON has at most 2 strings (key, value) per counted character
            return limit + 1
        close = clean.find(b'"', quote + 1)
        if close < 0:
            return count
        pos = close + 1
