"""The boundary's tensor encoder writes exactly what safetensors.torch.save writes (its own faster
path), so the reader on the other side (safetensors' own) sees no difference."""
from __future__ import annotations

import base64

import pytest
import torch
from safetensors.torch import save as st_save

from autograder.sandbox import protocol

DTYPES = [torch.float64, torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int16,
          torch.int8, torch.uint8, torch.bool, torch.complex64]
SHAPES = [(), (0,), (3, 0, 2), (1,), (7,), (2, 5, 16), (3, 1, 4, 1)]


def _tensor(dtype: torch.dtype, shape: tuple[int, ...]) -> torch.Tensor:
    g = torch.Generator().manual_seed(0)
    if dtype.is_floating_point or dtype.is_complex:
        return torch.randn(shape, generator=g).to(dtype)
    if dtype is torch.bool:
        return torch.rand(shape, generator=g) > 0.5
    return torch.randint(0, 100, shape, generator=g).to(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_bytes_are_safetensors_own(dtype):
    for shape in SHAPES:
        t = _tensor(dtype, shape)
        assert protocol._tensor_bytes(t) == st_save({"t": t.clone()}), (dtype, shape)


@pytest.mark.parametrize("dtype", DTYPES)
def test_views_and_flags_cross_as_their_values(dtype):
    t = _tensor(dtype, (4, 6))
    for view in (t.T, t[:, ::2], t[1:3], t.expand(2, 4, 6)):
        back = protocol.decode_value(protocol.encode_value(view))
        assert type(back) is torch.Tensor and back.dtype == dtype and torch.equal(back, view)
    if dtype.is_complex:
        back = protocol.decode_value(protocol.encode_value(t.conj()))
        assert torch.equal(back, t.conj().resolve_conj())


def test_a_forged_length_is_refused():
    raw = bytearray(protocol._tensor_bytes(torch.ones(3)))
    raw[-1:] = b""   # one byte short of what its header says
    with pytest.raises(protocol.ProtocolError):
        protocol.decode_value({"__tensor__": base64.b64encode(bytes(raw)).decode()})
