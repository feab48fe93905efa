"""The 400 messages of the contract's unions (afm/validation.py) name the broken rule: the
branch a union's discriminator, the instance's JSON type, or its `type` / `role` selects gives
its own error, not "is not valid under any of the given schemas". Pure: the contract's schemas
and the validator, no server."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT

with warnings.catch_warnings():  # Connexion imports jsonschema's deprecated RefResolver
    warnings.simplefilter("ignore", DeprecationWarning)
    from connexion.json_schema import Draft4RequestValidator, resolve_refs

    from afm.validation import telling

    SCHEMAS = resolve_refs(yaml.safe_load((ROOT / "openapi" / "afm.yaml").read_text()))[
        "components"]["schemas"]
RESPONSE = {"model": "m", "input": "hi"}
MESSAGES = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}


def message_for(schema: str, body: dict[str, Any]) -> tuple[str, list[Any]] | None:
    error = telling(Draft4RequestValidator(SCHEMAS[schema]).iter_errors(body))
    return None if error is None else (error.message, list(error.absolute_path))


@pytest.mark.parametrize(("schema", "body", "message", "path"), [
    ("CreateResponseRequest", {**RESPONSE, "tool_choice": {"type": "function"}},
     "'name' is a required property", ["tool_choice"]),
    ("CreateResponseRequest", {**RESPONSE, "input": [{"type": "function_call", "name": "x"}]},
     "'call_id' is a required property", ["input", 0]),
    ("CreateResponseRequest", {**RESPONSE, "input": [{"type": "bogus"}]},
     "'bogus' is not one of ['message', 'function_call', 'function_call_output', 'reasoning']",
     ["input", 0, "type"]),
    ("CreateResponseRequest", {**RESPONSE, "input": [
        {"role": "user", "content": [{"type": "input_text"}]}]},
     "'text' is a required property", ["input", 0, "content", 0]),
    ("CreateResponseRequest", {**RESPONSE, "tools": [{"type": "function"}]},
     "'name' is a required property", ["tools", 0]),
    ("CreateResponseRequest", {**RESPONSE, "text": {"format": {"type": "json_schema",
                                                               "name": "x"}}},
     "'schema' is a required property", ["text", "format"]),
    ("MessagesRequest", {**MESSAGES, "messages": [{"role": "bogus", "content": "hi"}]},
     "'bogus' is not one of ['user', 'assistant', 'system']", ["messages", 0, "role"]),
    ("MessagesRequest", {**MESSAGES, "tools": [{"name": "x"}]},
     "'input_schema' is a required property", ["tools", 0]),
    ("MessagesRequest", {**MESSAGES, "tool_choice": {"type": "tool"}},
     "'name' is a required property", ["tool_choice"]),
])
def test_union_errors_name_the_rule(schema: str, body: dict[str, Any], message: str,
                                    path: list[Any]) -> None:
    assert message_for(schema, body) == (message, path)


def test_a_block_in_the_wrong_turn_names_what_the_turn_holds() -> None:
    body = {**MESSAGES, "messages": [{"role": "user", "content": [
        {"type": "tool_use", "id": "a", "name": "b", "input": {}}]}]}
    got = message_for("MessagesRequest", body)
    assert got is not None
    assert got[0].startswith("'tool_use' is not one of ['text', 'tool_result'")
    assert got[1] == ["messages", 0, "content", 0, "type"]


def test_valid_bodies_have_no_error() -> None:
    assert message_for("CreateResponseRequest", {**RESPONSE, "input": [
        {"role": "user", "content": "hi"},
        {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c", "output": "ok"}]}) is None
    assert message_for("MessagesRequest", {**MESSAGES, "tools": [
        {"name": "f", "input_schema": {"type": "object"}},
        {"type": "web_search_20250305", "name": "web_search"}]}) is None
