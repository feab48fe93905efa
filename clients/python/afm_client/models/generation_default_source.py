from enum import StrEnum


class GenerationDefaultSource(StrEnum):
    FLAG = "flag"
    GENERATION_CONFIG = "generation_config"
    GGUF = "gguf"
    SERVER = "server"
    TABLE = "table"

    def __str__(self) -> str:
        return str(self.value)
