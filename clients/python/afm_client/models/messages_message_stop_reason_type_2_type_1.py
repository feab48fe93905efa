from enum import StrEnum


class MessagesMessageStopReasonType2Type1(StrEnum):
    END_TURN = "end_turn"
    MAX_TOKENS = "max_tokens"
    STOP_SEQUENCE = "stop_sequence"
    TOOL_USE = "tool_use"

    def __str__(self) -> str:
        return str(self.value)
