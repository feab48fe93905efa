"""The Python heap of a long-running server, kept out of the cyclic collector's way.

A loaded model leaves ~300k long-lived Python objects (modules, tokenizer tables, the web
stack). Python's collector walks every tracked object on each full collection, and the objects
a request makes trigger one every few hundred tokens: 200 ms on SmolLM2's server, a stall in one
stream's tokens of ~25 decode steps. After each load the survivors are frozen (``gc.freeze``:
moved to a generation no collection walks), so collections walk only what was made since. A
model's unload unfreezes them first, or what the model held in reference cycles would never be
freed.
"""

from __future__ import annotations

import gc


def settle() -> None:
    """After a load: collect what loading left as garbage, then freeze every survivor."""
    gc.collect()
    gc.freeze()


def release() -> None:
    """After an unload: make the frozen objects collectable again, collect the unloaded
    model's garbage, and freeze what is still alive."""
    gc.unfreeze()
    settle()
