import socket
import threading

import numpy as np
import pytest
import torch

from autograder.sandbox import protocol
from autograder.errors import ProtocolError, WorkerCrashed, WorkerTimeout
from tests.own_memory import OWN_PEAK_MB


def roundtrip(value):
    return protocol.decode_value(protocol.encode_value(value))


def test_dtypes_and_devices_roundtrip():
    assert roundtrip([torch.float16, torch.bfloat16, torch.device("cpu")]) == [torch.float16, torch.bfloat16,
                                                                                torch.device("cpu")]
    with pytest.raises(ProtocolError):
        protocol.decode_value({"__dtype__": "Tensor"})


def test_plain_values_roundtrip():
    value = {"a": [1, 2.5, None, True, "s"], "t": (1, 2), "nan": float("nan")}
    back = roundtrip(value)
    assert back["a"] == [1, 2.5, None, True, "s"] and back["t"] == (1, 2)
    assert back["nan"] != back["nan"]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.bool])
def test_tensors_roundtrip_as_plain_tensors(dtype):
    t = torch.randn(3, 4).to(dtype)
    back = roundtrip(t)
    assert type(back) is torch.Tensor and back.dtype == dtype and torch.equal(back, t)


def test_subclass_arrives_as_plain_tensor():
    class Liar(torch.Tensor):
        def __eq__(self, other):
            return True
    t = torch.zeros(2).as_subclass(Liar)
    back = roundtrip(t)
    assert type(back) is torch.Tensor
    assert not torch.equal(back, torch.ones(2))


def test_numpy_arrays_come_back_as_numpy():
    back = roundtrip(np.arange(6.0).reshape(2, 3))
    assert isinstance(back, np.ndarray) and back.shape == (2, 3)


def test_a_zero_dim_numpy_array_keeps_its_shape():
    """`.numpy()` of a 0-d tensor (blind41's dot_product_variance): np.ascontiguousarray gave it one axis, and the
    student read "a NumPy array of shape (1,)", not what they returned."""
    back = roundtrip(np.array(2.5))
    assert isinstance(back, np.ndarray) and back.shape == () and float(back) == 2.5


@pytest.mark.parametrize("bad", [object(), {1: 2}, np.array([object()]), lambda: 1])
def test_non_plain_values_are_refused(bad):
    with pytest.raises(protocol.EncodeError):
        protocol.encode_value(bad)


@pytest.mark.parametrize("tree", [{"__tensor__": "not base64!"}, {"__tensor__": "aGVsbG8="},
                                  {"evil": 1}, {"__float__": "1e9999"}, {"__tuple__": "x"}])
def test_malformed_replies_are_protocol_errors(tree):
    with pytest.raises(ProtocolError):
        protocol.decode_value(tree)


def test_deep_nesting_is_refused():
    tree: list = []
    for _ in range(100):
        tree = [tree]
    with pytest.raises(ProtocolError):
        protocol.decode_value(tree)


def test_oversized_frame_is_refused_before_reading_it():
    a, b = socket.socketpair()
    a.sendall(protocol.HEADER.pack(1 << 40))
    with pytest.raises(ProtocolError):
        protocol.recv_frame(b, max_bytes=1 << 20, timeout=2)


def test_slow_frame_times_out_and_eof_is_a_crash():
    a, b = socket.socketpair()
    a.sendall(protocol.HEADER.pack(10) + b"{")
    with pytest.raises(WorkerTimeout):
        protocol.recv_frame(b, max_bytes=1 << 20, timeout=0.3)
    a.close()
    with pytest.raises(WorkerCrashed):
        protocol.recv_frame(b, max_bytes=1 << 20, timeout=1)


@pytest.mark.parametrize("body", [b"[" * 200000 + b"]" * 200000, b"[1, 2]", b"\xff\xfe"])
def test_frame_that_is_not_a_json_object_is_refused(body):
    a, b = socket.socketpair()
    sender = threading.Thread(target=a.sendall, args=(protocol.HEADER.pack(len(body)) + body,))
    sender.start()
    with pytest.raises(ProtocolError):
        protocol.recv_frame(b, max_bytes=1 << 22, timeout=5)
    sender.join()


def test_generators_cross_into_the_worker_but_never_back():
    g = torch.Generator().manual_seed(7)
    tree = protocol.encode_value([g])
    (back,) = protocol.decode_value(tree, from_grader=True)
    assert isinstance(back, torch.Generator)
    assert torch.equal(torch.randn(3, generator=back), torch.randn(3, generator=torch.Generator().manual_seed(7)))
    with pytest.raises(ProtocolError):
        protocol.decode_value(tree)


# --- a tensor crosses as the value it denotes, not as its storage --------------------------------
def _views():
    t = torch.arange(12.0).reshape(3, 4)
    z = torch.complex(t, -2 * t)
    return [
        ("neg view", torch._neg_view(t), -t),
        ("conj view", z.conj(), torch.complex(t, 2 * t)),
        ("neg of conj", torch._neg_view(z.conj()), torch.complex(-t, -2 * t)),
        ("transpose", t.t(), t.t().clone()),
        ("step slice", t[:, ::2], t[:, ::2].clone()),
        ("negative offset slice", t[1:, 1:3], t[1:, 1:3].clone()),
        ("expand", torch.arange(3.0).expand(4, 3), torch.arange(3.0).repeat(4, 1)),
        ("as_strided", torch.arange(10.0).as_strided((3, 3), (1, 2), 1),
         torch.tensor([[1.0, 3, 5], [2, 4, 6], [3, 5, 7]])),
        ("zero tensor", torch._efficientzerotensor(2, 3), torch.zeros(2, 3)),
        ("sparse", torch.eye(3).to_sparse(), torch.eye(3)),
    ]


@pytest.mark.parametrize("name,view,expected", _views(), ids=[v[0] for v in _views()])
def test_views_cross_with_their_logical_value(name, view, expected):
    back = roundtrip(view)
    assert type(back) is torch.Tensor and back.dtype == expected.dtype
    assert torch.equal(back, expected), name
    assert not back.is_conj() and not back.is_neg() and not back._is_zerotensor()
    assert back.is_contiguous() and back.storage_offset() == 0
    assert back.untyped_storage().nbytes() == back.numel() * back.element_size()


def test_decoded_tensor_never_carries_view_flags():
    # Decoding rebuilds every tensor into fresh memory; whatever the bytes, no flag survives.
    t = torch.randn(4, 6, dtype=torch.complex64)
    for sent in (t.conj(), torch._neg_view(t.real), t[::2, 1::3]):
        back = protocol.decode_value({"__tensor__": protocol.encode_value(sent)["__tensor__"]})
        assert not back.is_conj() and not back.is_neg() and back.is_contiguous()
        assert torch.equal(back, sent.resolve_conj().resolve_neg())


def test_numpy_views_cross_with_their_logical_value():
    a = np.arange(12.0).reshape(3, 4)
    back = roundtrip(a[::-1, ::2])
    assert isinstance(back, np.ndarray) and np.array_equal(back, a[::-1, ::2])


def test_unsupported_tensor_dtype_is_an_encode_error_not_a_broken_frame():
    with pytest.raises(protocol.EncodeError):
        protocol.encode_value(torch.zeros(2, dtype=torch.float8_e4m3fn))


# --- the item count is bounded on the bytes, before json.loads ----------------------------------
def _frame_bound(body: bytes, limit: int) -> int:
    return protocol.json_item_bound(body, limit)


@pytest.mark.parametrize("body", [
    b'{"a":"x\\"[,{","b":[1,2]}',        # escaped quote inside a string
    b'{"a":"x\\\\","b":[1,2],"c":"[[["}',  # escaped backslash closes the string
    b'{"a":"\\\\\\"{{{","b":[1,2]}',     # \\ then \" inside one string
])
def test_item_bound_skips_strings_exactly(body):
    import json
    outside = 4 if b'"c"' not in body else 5
    quick = body.count(b",") + body.count(b"[") + body.count(b"{")
    assert quick > outside  # the strings hold structural characters, so the exact path runs
    assert protocol.json_item_bound(body, outside) == outside
    assert protocol.json_item_bound(body, outside - 1) > outside - 1
    json.loads(body)  # and the bodies are valid JSON


def test_legitimate_replies_pass_the_item_bound():
    big = {"id": 1, "ok": True, "value": protocol.encode_value(
        [torch.randn(1024, 1024), list(range(5000)), {"k%d" % i: float(i) for i in range(3000)},
         np.zeros((64, 64)), "text, with [brackets] and {braces}, " * 120_000])}
    import json
    body = json.dumps(big, separators=(",", ":")).encode()
    assert len(body) > 4_000_000
    back = protocol.decode_value(protocol.parse_frame(body)["value"])
    assert torch.equal(back[0], protocol.decode_value(big["value"])[0]) and back[1] == list(range(5000))


def test_largest_reply_decode_accepts_also_passes_the_frame_bound():
    # MAX_ITEMS values of the most expensive kind (numpy tensors, 3 counted characters each).
    arr = protocol.encode_value(np.zeros(1))
    import json
    body = ('{"id":1,"ok":true,"value":[' + ",".join([json.dumps(arr, separators=(",", ":"))]
                                                     * (protocol.MAX_ITEMS - 1)) + "]}").encode()
    message = protocol.parse_frame(body)  # decoding 100k tensors is slow; one is enough to check
    assert len(message["value"]) == protocol.MAX_ITEMS - 1 and message["value"][-1] == arr
    assert protocol.json_item_bound(body, protocol.MAX_FRAME_ITEMS) > 3 * (protocol.MAX_ITEMS - 1)


@pytest.mark.parametrize("body", [
    b'{"v":[' + b"{}," * 400_000 + b"{}]}",
    b'{"v":[' + b"0," * 400_000 + b"0]}",
    b'{"v":[' + b'"",' * 400_000 + b'""]}',
    b'{"v":[' + b'{"k":[]},' * 200_000 + b"1]}",
    b'[' * 400_000,  # not even valid: refused before json.loads tries
])
def test_many_item_frames_are_refused_before_parsing(body):
    with pytest.raises(ProtocolError, match="too many items"):
        protocol.parse_frame(body)


def test_60mb_many_item_frame_is_refused_with_little_memory():
    # A subprocess, so its own peak (tests/own_memory.py) measures only this: json.loads of this frame needed ~1.4 GB.
    import subprocess
    import sys
    code = OWN_PEAK_MB + r'''
import socket, threading
from autograder.sandbox import protocol
from autograder.errors import ProtocolError
body = b'{"v":[' + b"{}," * 19_999_999 + b'{}]}'
frame = protocol.HEADER.pack(len(body)) + body
del body
a, b = socket.socketpair()
sender = threading.Thread(target=a.sendall, args=(frame,), daemon=True)
before = own_peak_mb()
sender.start()
try:
    protocol.recv_frame(b, max_bytes=64 << 20, timeout=60)
    print("ACCEPTED")
except ProtocolError as e:
    print("REFUSED", e)
print("GROWTH_MB", int(own_peak_mb() - before))
'''
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "REFUSED" in out.stdout and "too many items" in out.stdout, out.stdout + out.stderr
    growth = int(out.stdout.split("GROWTH_MB")[1])
    assert growth < 400, f"receiving the frame grew the process by {growth} MB"
