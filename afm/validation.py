"""Request-body validation messages that name the rule a client broke.

Connexion validates JSON bodies with JSON Schema draft 4, which ignores OpenAPI's
``discriminator``: a object that fails a ``oneOf`` by ``type`` (or ``role``) is reported as "is
not valid under any of the given schemas". :class:`DiscriminatedJSONBodyValidator` reports
instead the error of the branch the discriminator value selects (``'name' is a required
property - 'tool_choice'``), or that the value is none of the branches' (``'x' is not one of
['auto', 'any', 'tool', 'none'] - 'tool_choice.type'``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any

from connexion.datastructures import MediaTypeDict
from connexion.exceptions import BadRequestProblem
from connexion.json_schema import format_error_with_path
from connexion.validators import VALIDATOR_MAP, JSONRequestBodyValidator
from jsonschema import ValidationError
from jsonschema.exceptions import best_match, by_relevance


def _branch_values(branch: dict[str, Any], prop: str) -> list[Any]:
    """The discriminator values a ``oneOf`` branch takes (its property's enum, or its own
    branches' when it is a union)."""
    values = list((branch.get("properties") or {}).get(prop, {}).get("enum") or [])
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in branch.get(key) or []:
            values += [v for v in _branch_values(sub, prop) if v not in values]
    return values


TELLING_PROPERTIES = ("type", "role")
"""Properties that tell a union's branches apart where the contract names no discriminator
(a branch may also match every other value, as hosted tool types do)."""


_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer",
               float: "number"}


def _implied_branch(branches: list[dict[str, Any]], instance: Any
                    ) -> tuple[list[int], str | None]:
    """For a union the contract gives no discriminator, the one branch the instance is meant
    for, and the telling property when there is one: the branch of the instance's JSON type;
    the branch whose enum of a telling property holds the value (or, when the value is absent,
    the one branch that does not require it). ([], None) when none or several are."""
    kind = _JSON_TYPES.get(type(instance))
    typed = [i for i, b in enumerate(branches) if b.get("type") == kind]
    if len(typed) == 1 and sum(1 for b in branches if "type" in b) == len(branches):
        return typed, None
    if not isinstance(instance, dict):
        return [], None
    for prop in TELLING_PROPERTIES:
        told = [i for i, b in enumerate(branches) if prop in (b.get("properties") or {})]
        if not told:
            continue
        if prop in instance:
            value = instance[prop]
            chosen = [i for i in told if value in _branch_values(branches[i], prop)]
        else:
            chosen = [i for i in told if prop not in (branches[i].get("required") or [])]
        if len(chosen) == 1:
            return chosen, prop
        if not chosen and prop in instance and isinstance(instance[prop], str):
            return [], prop
    return [], None


def refine(error: ValidationError) -> ValidationError:
    """The most telling error under ``error``: through each union (a ``oneOf`` by its
    discriminator, or a union the instance's type or ``type``/``role`` tells apart), the
    selected branch's own error."""
    while error.validator in ("oneOf", "anyOf") and isinstance(error.schema, dict):
        branches = error.validator_value
        prop = (error.schema.get("discriminator") or {}).get("propertyName")
        if prop is not None and not isinstance(error.instance, dict):
            return error
        if prop is None:  # a union without a discriminator: the branch the value is meant for
            chosen, told = _implied_branch(branches, error.instance)
            if not chosen and told is not None:
                allowed = [v for b in branches for v in _branch_values(b, told)]
                if allowed:
                    return ValidationError(
                        f"{error.instance[told]!r} is not one of {allowed!r}",
                        path=deque([*error.absolute_path, told]))
            if not chosen:
                return error
        else:
            if prop not in error.instance:
                return ValidationError(f"{prop!r} is a required property",
                                       path=deque(error.absolute_path))
            value = error.instance[prop]
            chosen = [i for i, b in enumerate(branches) if value in _branch_values(b, prop)]
            if not chosen:
                allowed = [v for b in branches for v in _branch_values(b, prop)]
                return ValidationError(f"{value!r} is not one of {allowed!r}",
                                       path=deque([*error.absolute_path, prop]))
        inner = [e for e in error.context or [] if e.schema_path and
                 e.schema_path[0] == chosen[0]]
        if not inner:
            return error
        error = max(inner, key=by_relevance())  # this level's error: the loop goes deeper
    return best_match([error]) if error.context else error


def telling(errors: Iterable[ValidationError]) -> ValidationError | None:
    """The error to report among ``errors`` (jsonschema's best match, refined)."""
    error = best_match(errors)
    if error is None:
        return None
    root = error
    while root.parent is not None:
        root = root.parent
    refined = refine(root)
    return error if refined is root else refined


class DiscriminatedJSONBodyValidator(JSONRequestBodyValidator):
    """Connexion's JSON body validator, with :func:`refine`'s messages."""

    def _validate(self, body: Any) -> dict | None:
        if not self._nullable and body is None:
            raise BadRequestProblem("Request body must not be empty")
        error = telling(self._validator.iter_errors(body))
        if error is None:
            return None
        path = ValidationError("", path=error.absolute_path)
        raise BadRequestProblem(detail=f"{error.message}{format_error_with_path(path)}")


VALIDATORS = {"body": MediaTypeDict({**VALIDATOR_MAP["body"],
                                     "*/*json": DiscriminatedJSONBodyValidator})}
"""The ``validator_map`` for ``add_api``."""
