"""Bot protocol v1: line-delimited JSON between the referee and every seat (protocol/README.md)."""

from .messages import (
    PROTOCOL,
    act_message,
    bye_message,
    encode,
    error_message,
    event_message,
    game_end_message,
    game_start_message,
    hello_message,
    move_json,
)
from .replies import MAX_LINE, IllegalReply, ProtocolError, decode_line, quote, read_reply

__all__ = [
    "MAX_LINE", "PROTOCOL", "ProtocolError", "act_message", "bye_message", "decode_line", "encode",
    "error_message", "event_message", "game_end_message", "game_start_message", "hello_message",
    "move_json", "read_reply", "IllegalReply", "quote",
]
