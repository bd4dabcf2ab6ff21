"""Ints past JSON's decimal limit cross the sandbox as hexadecimal, both ways, and nothing else passes for one
(red-team round 54: a 4933-digit answer killed the worker)."""
from __future__ import annotations

import pytest

from autograder.errors import ProtocolError
from autograder.sandbox import protocol


@pytest.mark.parametrize("value", [0, -5, 10 ** 2999, (1024 * 64) ** 1024, -(10 ** 5000), 1 << 60000],
                         ids=["zero", "negative", "3000 digits", "4933 digits", "minus 5001 digits", "60000 bits"])
def test_ints_round_trip_through_a_frame(value):
    frame = protocol.frame_bytes({"id": 1, "value": protocol.encode_value([value, (value,)])})
    message = protocol.parse_frame(frame[protocol.HEADER.size:])
    assert protocol.decode_value(message["value"]) == [value, (value,)]


def test_an_int_past_the_bound_is_refused_by_name():
    with pytest.raises(protocol.EncodeError, match="bits cannot cross"):
        protocol.encode_value(1 << (protocol.MAX_INT_BITS + 1))


@pytest.mark.parametrize("forged", [{"__bigint__": "xyz"}, {"__bigint__": 12}, {"__bigint__": "1" * 20000},
                                    {"__bigint__": "-"}, {"__bigint__": "ff", "extra": 1}],
                         ids=["not hex", "not text", "too long", "sign only", "another key"])
def test_a_forged_large_int_is_a_protocol_error(forged):
    with pytest.raises(ProtocolError):
        protocol.decode_value(forged)
