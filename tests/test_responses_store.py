"""afm.storage.ResponseStore on a real data directory: whole writes, input-item pages,
conditional status changes (a cancel is never overwritten), delete, and background responses
left unfinished by a dead process marked failed when the store opens again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from afm.storage import Store
from serving.store import Conflict, Missing


def obj(rid: str, status: str = "completed", background: bool = False) -> dict[str, Any]:
    return {"id": rid, "object": "response", "created_at": 1, "status": status,
            "background": background, "model": "m", "output": [], "error": None}


ITEMS = [{"id": f"msg_{i}", "type": "message", "role": "user",
          "content": [{"type": "input_text", "text": str(i)}]} for i in range(5)]


def test_create_get_items_delete(tmp_path: Path) -> None:
    with Store(tmp_path) as store:
        store.responses.create(obj("resp_a"), ITEMS, '{"turn": 1}')
        assert store.responses.get("resp_a")["status"] == "completed"
        assert store.responses.turn("resp_a") == '{"turn": 1}'
        page, more = store.responses.input_items("resp_a", limit=2, order="asc")
        assert [i["id"] for i in page] == ["msg_0", "msg_1"] and more
        page, more = store.responses.input_items("resp_a", limit=10, after="msg_1", order="asc")
        assert [i["id"] for i in page] == ["msg_2", "msg_3", "msg_4"] and not more
        page, _ = store.responses.input_items("resp_a", limit=2)
        assert [i["id"] for i in page] == ["msg_4", "msg_3"]
        with pytest.raises(Missing):
            store.responses.input_items("resp_a", after="msg_x")
        store.responses.delete("resp_a")
        for call in (lambda: store.responses.get("resp_a"),
                     lambda: store.responses.delete("resp_a"),
                     lambda: store.responses.turn("resp_a")):
            with pytest.raises(Missing):
                call()


def test_background_transitions_and_cancel(tmp_path: Path) -> None:
    with Store(tmp_path) as store:
        store.responses.create(obj("resp_b", "queued", True), ITEMS[:1], None)
        with pytest.raises(Conflict):  # no continuation yet
            store.responses.turn("resp_b")
        assert store.responses.update("resp_b", ("queued",), obj("resp_b", "in_progress", True))
        cancelled, changed = store.responses.cancel("resp_b")
        assert changed and cancelled["status"] == "cancelled"
        # the worker's late completion does not overwrite the cancel
        assert not store.responses.update("resp_b", ("in_progress",), obj("resp_b"), "{}")
        assert store.responses.get("resp_b")["status"] == "cancelled"
        again, changed = store.responses.cancel("resp_b")
        assert not changed and again["status"] == "cancelled"
        store.responses.create(obj("resp_c"), ITEMS[:1], None)
        with pytest.raises(Conflict):
            store.responses.cancel("resp_c")


def test_unfinished_background_responses_fail_on_reopen(tmp_path: Path) -> None:
    with Store(tmp_path) as store:
        store.responses.create(obj("resp_q", "queued", True), ITEMS[:1], None)
        store.responses.create(obj("resp_r", "in_progress", True), ITEMS[:1], None)
        store.responses.create(obj("resp_d", "completed", True), ITEMS[:1], "{}")
    with Store(tmp_path) as store:
        for rid in ("resp_q", "resp_r"):
            failed = store.responses.get(rid)
            assert failed["status"] == "failed" and failed["error"]["code"] == "server_error"
        assert store.responses.get("resp_d")["status"] == "completed"
