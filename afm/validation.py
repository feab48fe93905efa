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
from jsonschema.exceptions import best_match


def _branch_values(branch: dict[str, Any], prop: str) -> list[Any]:
    """The discriminator values a ``oneOf`` branch takes (its property's enum, or its own
    branches' when it is a union)."""
    values = list((branch.get("properties") or {}).get(prop, {}).get("enum") or [])
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in branch.get(key) or []:
            values += [v for v in _branch_values(sub, prop) if v not in values]
    return values


def refine(error: ValidationError) -> ValidationError:
    """The most telling error under ``error``: through each discriminated ``oneOf``, the
    selected branch's own error."""
    while error.validator == "oneOf" and isinstance(error.schema, dict):
        prop = (error.schema.get("discriminator") or {}).get("propertyName")
        if prop is None or not isinstance(error.instance, dict):
            return error
        if prop not in error.instance:
            return ValidationError(f"{prop!r} is a required property",
                                   path=deque(error.absolute_path))
        value = error.instance[prop]
        branches = error.validator_value
        chosen = [i for i, b in enumerate(branches) if value in _branch_values(b, prop)]
        if not chosen:
            allowed = [v for b in branches for v in _branch_values(b, prop)]
            return ValidationError(f"{value!r} is not one of {allowed!r}",
                                   path=deque([*error.absolute_path, prop]))
        inner = [e for e in error.context or [] if e.schema_path and
                 e.schema_path[0] == chosen[0]]
        if not inner:
            return error
        error = best_match(inner)
    return error


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
