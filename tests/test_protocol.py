import socket
import threading

import numpy as np
import pytest
import torch

from autograder import protocol
from autograder.errors import ProtocolError, WorkerCrashed, WorkerTimeout


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
    (back,) = protocol.decode_value(tree, allow_generator=True)
    assert isinstance(back, torch.Generator)
    assert torch.equal(torch.randn(3, generator=back), torch.randn(3, generator=torch.Generator().manual_seed(7)))
    with pytest.raises(ProtocolError):
        protocol.decode_value(tree)
