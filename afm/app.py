"""The application factory: Connexion routes the contract into handlers; our ASGI middleware
wraps it for correlation ids, the access log, CORS, API keys, body limits and the `/docs` page;
error handlers turn every failure into the route's envelope (OpenAI's, or Anthropic's on the
Messages routes, decided once per request: `afm.errors.error_family`)."""

from __future__ import annotations

import functools
import json
import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import connexion
from connexion.exceptions import ProblemException
from connexion.lifecycle import ConnexionRequest, ConnexionResponse
from connexion.middleware.main import ConnexionMiddleware
from connexion.middleware.security import SecurityMiddleware
from connexion.options import SwaggerUIOptions
from connexion.resolver import Resolver
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException

from afm.context import current_request_id
from afm.contract import SPEC_PATH, load_spec
from afm.errors import ApiError, error_family, error_reply
from afm.logs import AccessLogMiddleware
from afm.middleware import (
    BodyLimitMiddleware,
    CorrelationMiddleware,
    CorsMiddleware,
    DocsIndexMiddleware,
    DrainMiddleware,
)
from afm.settings import Settings
from afm.validation import VALIDATORS
from serving.store import StoreError, api_error

if TYPE_CHECKING:
    from afm.batch_worker import Execute
    from afm.state import AppState

log = logging.getLogger("afm")


STATUS_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    405: "method_not_allowed",
    406: "invalid_request_error",
    413: "payload_too_large",
    415: "invalid_request_error",
    422: "invalid_request_error",
    501: "not_implemented",
    503: "service_unavailable",
}


HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def _path_regex(template: str, path_params: set[str]) -> re.Pattern[str]:
    """`/v1/files/{file_id}` -> a regex; `format: path` parameters may span slashes."""
    parts = re.split(r"(\{\w+\})", template)
    regex = "".join(
        (".+" if part[1:-1] in path_params else "[^/]+") if part.startswith("{")
        else re.escape(part) for part in parts)
    return re.compile(f"^{regex}$")


def path_methods(spec: dict[str, Any]) -> list[tuple[re.Pattern[str], str]]:
    """Each contract path as a regex, with the value of its `Allow` header.

    Starlette's router answers 405 with the methods of the first route that matched the path,
    but Connexion adds one route per operation, so that would name one method only."""
    out = []
    for template, item in spec.get("paths", {}).items():
        methods = [m.upper() for m in HTTP_METHODS if m in item]
        if "GET" in methods and "HEAD" not in methods:
            methods.append("HEAD")  # Starlette serves HEAD wherever it serves GET
        operations = [item, *(item[m] for m in HTTP_METHODS if m in item)]
        slashy = {p["name"] for op in operations for p in op.get("parameters", [])
                  if p.get("schema", {}).get("format") == "path"}
        out.append((_path_regex(template, slashy), ", ".join(methods)))
    return out


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


class TagResolver(Resolver):
    """operationId -> ``handlers.<first tag>.<snake_case operationId>``.

    ``createChatCompletion`` tagged Chat resolves to ``handlers.chat.create_chat_completion``.
    """

    def resolve_operation_id(self, operation: Any) -> str:
        tag = operation._operation["tags"][0].lower()
        return f"handlers.{tag}.{_snake(operation.operation_id)}"


def _error_response(request: ConnexionRequest, status: int, message: str, type: str, *,
                    code: str | None = None, param: str | None = None,
                    headers: dict[str, str] | None = None) -> ConnexionResponse:
    """An error in the envelope of the request's route."""
    status, body = error_reply(error_family(request.scope), status, message, type, code=code,
                               param=param)
    return ConnexionResponse(status_code=status, body=json.dumps(body),
                             content_type="application/json", headers=headers or {})


def api_error_handler(request: ConnexionRequest, exc: Exception) -> ConnexionResponse:
    if isinstance(exc, StoreError):  # one a handler left unmapped: its generic API error
        exc = api_error(exc)
    assert isinstance(exc, ApiError)
    if exc.status >= 500:
        log.warning("request %s failed: %s %s", current_request_id(), exc.type, exc.message)
    return _error_response(request, exc.status, exc.message, exc.type, code=exc.code,
                           param=exc.param, headers=exc.headers)


@functools.cache
def _allow_table() -> list[tuple[re.Pattern[str], str]]:
    return path_methods(load_spec())


def http_error_handler(request: ConnexionRequest, exc: Exception) -> ConnexionResponse:
    """Connexion problems (validation, 404, 405, 415) and Starlette HTTP errors."""
    status = getattr(exc, "status_code", None) or getattr(exc, "status", None) or 500
    detail = getattr(exc, "detail", None) or getattr(exc, "title", None) or str(exc)
    headers = dict(getattr(exc, "headers", None) or {})
    if status == 404 and not isinstance(exc, ProblemException):
        detail = f"No route for {request.method} {request.url.path}"
    if status == 405:
        detail = f"Method {request.method} is not allowed on {request.url.path}"
        allow = next((a for rx, a in _allow_table() if rx.match(request.url.path)), None)
        if allow:
            headers = {k: v for k, v in headers.items() if k.lower() != "allow"}
            headers["Allow"] = allow
    return _error_response(request, status, _shorten(str(detail)),
                           STATUS_TYPES.get(status, "error"),
                           param=_validation_param(status, str(detail)), headers=headers)


def _validation_param(status: int, detail: str) -> str | None:
    """The field a Connexion validation message names (`... - 'messages.0.content'`), written
    as the handlers write it (`messages[0].content`)."""
    match = re.search(r" - '([^']+)'$", detail) if status == 400 else None
    if match is None:
        return None
    return re.sub(r"\.(\d+)(?=\.|$)", r"[\1]", match.group(1))


def _shorten(message: str, limit: int = 400) -> str:
    """Validation messages quote the offending value; keep them readable when it is huge."""
    return message if len(message) <= limit else message[: limit - 1] + "…"


def unexpected_error_handler(request: ConnexionRequest, exc: Exception) -> ConnexionResponse:
    if isinstance(exc, UnicodeDecodeError):
        return _error_response(request, 400, "Request body is not valid UTF-8",
                               "invalid_request_error")
    if isinstance(exc, MultiPartException):
        return _error_response(request, 400, f"Malformed multipart body: {exc.message}",
                               "invalid_request_error")
    log.error("request %s: unexpected error", current_request_id(), exc_info=exc)
    return _error_response(request, 500, "Internal server error", "internal_error")


def create_app(settings: Settings, *, load_backends: bool = True,
               state: AppState | None = None, batch_executor: Execute | None = None) -> Any:
    """Build the ASGI application for these settings. With ``state`` (already started by
    `afm serve`, which loads before it serves) the lifespan only stops it at shutdown;
    otherwise each lifespan builds one, with ``batch_executor`` running stored batch lines
    (see :class:`afm.state.AppState`)."""
    from afm.state import AppState

    given = state

    @asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[dict[str, Any]]:
        state = given or AppState(settings, batch_executor=batch_executor)
        if load_backends and given is None:
            try:
                await state.start()
            except BaseException:
                await state.stop()  # stop the engine thread before the process exits
                raise
        try:
            yield {"afm": state}
        finally:
            await state.stop()

    app = connexion.AsyncApp(
        __name__,
        lifespan=lifespan,
        # API keys are checked by afm.auth in front of Connexion; the contract declares the
        # schemes for clients, so Connexion's own security layer is left out
        middlewares=[m for m in ConnexionMiddleware.default_middlewares
                     if m is not SecurityMiddleware],
        specification_dir=str(SPEC_PATH.parent),
        swagger_ui_options=SwaggerUIOptions(
            spec_path="/openapi.json",
            swagger_ui_path="/docs",
            swagger_ui_config={"tryItOutEnabled": True, "displayOperationId": True},
        ),
    )
    app.add_api(
        SPEC_PATH.name,
        resolver=TagResolver(),
        validate_responses=False,
        strict_validation=False,
        validator_map=VALIDATORS,
    )
    app.add_error_handler(ApiError, api_error_handler)
    app.add_error_handler(StoreError, api_error_handler)
    app.add_error_handler(ProblemException, http_error_handler)
    app.add_error_handler(HTTPException, http_error_handler)
    for status in (404, 405, 415):
        app.add_error_handler(status, http_error_handler)
    app.add_error_handler(Exception, unexpected_error_handler)
    inner: Any = DrainMiddleware(DocsIndexMiddleware(BodyLimitMiddleware(app, settings)))
    if settings.webui:
        # the chat page at `/` is HTML, not API: it stays out of the contract and is served
        # in front of Connexion, inside the correlation and CORS layers (see afm.webui)
        from afm.webui import WebUiMiddleware

        inner = WebUiMiddleware(inner)
    if settings.api_keys:
        from afm.auth import ApiKeyMiddleware

        inner = ApiKeyMiddleware(inner, settings.api_keys)
    return CorrelationMiddleware(AccessLogMiddleware(CorsMiddleware(inner)))
