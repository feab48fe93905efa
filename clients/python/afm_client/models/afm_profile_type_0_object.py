from enum import StrEnum


class AfmProfileType0Object(StrEnum):
    AFM_PROFILE = "afm_profile"

    def __str__(self) -> str:
        return str(self.value)
