"""afm.heap: what a load leaves alive is frozen out of the collector's walks, and an unload
makes it collectable again."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from afm import heap


class Node:
    """A node of a reference cycle (only the cyclic collector frees one)."""

    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> Node:
    a, b = Node(), Node()
    a.other, b.other = b, a
    return a


@pytest.fixture(autouse=True)
def unfrozen() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()
    gc.collect()


def test_settle_collects_load_garbage_and_freezes_the_survivors() -> None:
    dropped = weakref.ref(cycle())  # garbage a load left behind
    kept = cycle()  # what the loaded model holds
    heap.settle()
    assert dropped() is None
    assert gc.get_freeze_count() > 0
    assert kept.other is not None and kept.other.other is kept
    # a full collection no longer walks the frozen objects
    walked = len(gc.get_objects())
    assert walked < gc.get_freeze_count()


def test_a_frozen_model_is_freed_only_after_release() -> None:
    model = cycle()
    gone = weakref.ref(model)
    heap.settle()
    del model  # the model is unloaded: its objects are a cycle nobody refers to
    gc.collect()
    assert gone() is not None  # frozen: no collection frees it
    heap.release()
    assert gone() is None
    assert gc.get_freeze_count() > 0  # what is still alive is frozen again
