from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.messages_error_response import MessagesErrorResponse
from ...models.messages_message import MessagesMessage
from ...models.messages_request import MessagesRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: MessagesRequest,
    beta: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
    x_api_key: str | Unset = UNSET,
    anthropic_version: str | Unset = UNSET,
    anthropic_beta: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_request_id, Unset):
        headers["X-Request-ID"] = x_request_id

    if not isinstance(x_api_key, Unset):
        headers["x-api-key"] = x_api_key

    if not isinstance(anthropic_version, Unset):
        headers["anthropic-version"] = anthropic_version

    if not isinstance(anthropic_beta, Unset):
        headers["anthropic-beta"] = anthropic_beta

    params: dict[str, Any] = {}

    params["beta"] = beta

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/messages",
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> MessagesErrorResponse | MessagesMessage | None:
    if response.status_code == 200:
        response_200 = MessagesMessage.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = MessagesErrorResponse.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = MessagesErrorResponse.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = MessagesErrorResponse.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = MessagesErrorResponse.from_dict(response.json())

        return response_413

    if response.status_code == 500:
        response_500 = MessagesErrorResponse.from_dict(response.json())

        return response_500

    if response.status_code == 503:
        response_503 = MessagesErrorResponse.from_dict(response.json())

        return response_503

    if response.status_code == 529:
        response_529 = MessagesErrorResponse.from_dict(response.json())

        return response_529

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[MessagesErrorResponse | MessagesMessage]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: MessagesRequest,
    beta: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
    x_api_key: str | Unset = UNSET,
    anthropic_version: str | Unset = UNSET,
    anthropic_beta: str | Unset = UNSET,
) -> Response[MessagesErrorResponse | MessagesMessage]:
    """Create a message (Anthropic Messages API)

     Anthropic's Messages API over the same engine, grammar, tool and reasoning parsing as chat
    completions, for the `anthropic` SDKs and Claude Code (`ANTHROPIC_BASE_URL`). Returns a
    `message` object, or with `stream: true` a `text/event-stream` of named events
    (`event: <type>` then `data: <json>`): `message_start`, `ping`, then per content block
    `content_block_start`, `content_block_delta` (`thinking_delta`, `text_delta`,
    `input_json_delta`) and `content_block_stop`, then `message_delta` (stop reason and
    usage) and `message_stop`. There is no `[DONE]`. A failure after the stream began
    arrives as an `error` event, which ends the stream.

    Request: content blocks `text`, `tool_use`, `tool_result` (string or text-block content,
    `is_error`) and `thinking` / `redacted_thinking` sent back by clients; `image`,
    `document` and server-tool blocks get 400 naming the type. A `system` turn inside
    `messages` is rendered as a system turn in place (templates that take only a leading
    system prompt get it appended there, reported in `X-AFM-Warnings`). Server tools (a
    `type` other than `custom`, such as `web_search_20250305`) are left out of the prompt and
    reported in `X-AFM-Warnings`; tools with `defer_loading` stay out of the prompt until a
    `tool_reference` block in a `tool_result` names them. `cache_control` is accepted and
    ignored (the prefix cache works on its own). `thinking` `enabled`, `adaptive` and
    `between_tools` turn the model's reasoning on (`budget_tokens` is not enforced),
    `disabled` turns it off; absent, the server default applies; `display: omitted` returns
    thinking blocks with empty text and the reasoning sealed in `signature`, which this
    server reads back on the next turn. `output_config.effort` maps to the template's
    reasoning effort as `reasoning_effort` does in chat. `context_management.edits`:
    `clear_thinking_20251015` drops thinking blocks from all but the last `keep` assistant
    turns (`keep: all` keeps every one); other edits are accepted and reported in
    `X-AFM-Warnings` as not applied. `tool_choice` `any` and `tool` are enforced by the
    grammar engine, as `required` and named choices are in chat. `model` resolves as for
    chat completions (the response names what ran). `?beta=true` is accepted.

    Usage: `input_tokens` counts the prompt tokens computed for this request,
    `cache_read_input_tokens` those reused from the prefix cache (their sum is the prompt
    length, which `/v1/messages/count_tokens` returns); `cache_creation_input_tokens` is 0.

    Errors on `/v1/messages*` use Anthropic's envelope `{"type": "error", "error": {"type",
    "message"}, "request_id"}`: 400 `invalid_request_error`, 404 `not_found_error`, 413
    `request_too_large`, 500 `api_error`, and 529 `overloaded_error` with `Retry-After`
    when no slot frees within `--queue-timeout`. `x-api-key`, `anthropic-version` and
    `anthropic-beta` are accepted and ignored.

    Args:
        beta (str | Unset):
        x_request_id (str | Unset):
        x_api_key (str | Unset):
        anthropic_version (str | Unset):
        anthropic_beta (str | Unset):
        body (MessagesRequest): An Anthropic Messages request. Unknown fields (`service_tier`,
            `container`, ...) are
            accepted and ignored.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MessagesErrorResponse | MessagesMessage]
    """

    kwargs = _get_kwargs(
        body=body,
        beta=beta,
        x_request_id=x_request_id,
        x_api_key=x_api_key,
        anthropic_version=anthropic_version,
        anthropic_beta=anthropic_beta,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: MessagesRequest,
    beta: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
    x_api_key: str | Unset = UNSET,
    anthropic_version: str | Unset = UNSET,
    anthropic_beta: str | Unset = UNSET,
) -> MessagesErrorResponse | MessagesMessage | None:
    """Create a message (Anthropic Messages API)

     Anthropic's Messages API over the same engine, grammar, tool and reasoning parsing as chat
    completions, for the `anthropic` SDKs and Claude Code (`ANTHROPIC_BASE_URL`). Returns a
    `message` object, or with `stream: true` a `text/event-stream` of named events
    (`event: <type>` then `data: <json>`): `message_start`, `ping`, then per content block
    `content_block_start`, `content_block_delta` (`thinking_delta`, `text_delta`,
    `input_json_delta`) and `content_block_stop`, then `message_delta` (stop reason and
    usage) and `message_stop`. There is no `[DONE]`. A failure after the stream began
    arrives as an `error` event, which ends the stream.

    Request: content blocks `text`, `tool_use`, `tool_result` (string or text-block content,
    `is_error`) and `thinking` / `redacted_thinking` sent back by clients; `image`,
    `document` and server-tool blocks get 400 naming the type. A `system` turn inside
    `messages` is rendered as a system turn in place (templates that take only a leading
    system prompt get it appended there, reported in `X-AFM-Warnings`). Server tools (a
    `type` other than `custom`, such as `web_search_20250305`) are left out of the prompt and
    reported in `X-AFM-Warnings`; tools with `defer_loading` stay out of the prompt until a
    `tool_reference` block in a `tool_result` names them. `cache_control` is accepted and
    ignored (the prefix cache works on its own). `thinking` `enabled`, `adaptive` and
    `between_tools` turn the model's reasoning on (`budget_tokens` is not enforced),
    `disabled` turns it off; absent, the server default applies; `display: omitted` returns
    thinking blocks with empty text and the reasoning sealed in `signature`, which this
    server reads back on the next turn. `output_config.effort` maps to the template's
    reasoning effort as `reasoning_effort` does in chat. `context_management.edits`:
    `clear_thinking_20251015` drops thinking blocks from all but the last `keep` assistant
    turns (`keep: all` keeps every one); other edits are accepted and reported in
    `X-AFM-Warnings` as not applied. `tool_choice` `any` and `tool` are enforced by the
    grammar engine, as `required` and named choices are in chat. `model` resolves as for
    chat completions (the response names what ran). `?beta=true` is accepted.

    Usage: `input_tokens` counts the prompt tokens computed for this request,
    `cache_read_input_tokens` those reused from the prefix cache (their sum is the prompt
    length, which `/v1/messages/count_tokens` returns); `cache_creation_input_tokens` is 0.

    Errors on `/v1/messages*` use Anthropic's envelope `{"type": "error", "error": {"type",
    "message"}, "request_id"}`: 400 `invalid_request_error`, 404 `not_found_error`, 413
    `request_too_large`, 500 `api_error`, and 529 `overloaded_error` with `Retry-After`
    when no slot frees within `--queue-timeout`. `x-api-key`, `anthropic-version` and
    `anthropic-beta` are accepted and ignored.

    Args:
        beta (str | Unset):
        x_request_id (str | Unset):
        x_api_key (str | Unset):
        anthropic_version (str | Unset):
        anthropic_beta (str | Unset):
        body (MessagesRequest): An Anthropic Messages request. Unknown fields (`service_tier`,
            `container`, ...) are
            accepted and ignored.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MessagesErrorResponse | MessagesMessage
    """

    return sync_detailed(
        client=client,
        body=body,
        beta=beta,
        x_request_id=x_request_id,
        x_api_key=x_api_key,
        anthropic_version=anthropic_version,
        anthropic_beta=anthropic_beta,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: MessagesRequest,
    beta: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
    x_api_key: str | Unset = UNSET,
    anthropic_version: str | Unset = UNSET,
    anthropic_beta: str | Unset = UNSET,
) -> Response[MessagesErrorResponse | MessagesMessage]:
    """Create a message (Anthropic Messages API)

     Anthropic's Messages API over the same engine, grammar, tool and reasoning parsing as chat
    completions, for the `anthropic` SDKs and Claude Code (`ANTHROPIC_BASE_URL`). Returns a
    `message` object, or with `stream: true` a `text/event-stream` of named events
    (`event: <type>` then `data: <json>`): `message_start`, `ping`, then per content block
    `content_block_start`, `content_block_delta` (`thinking_delta`, `text_delta`,
    `input_json_delta`) and `content_block_stop`, then `message_delta` (stop reason and
    usage) and `message_stop`. There is no `[DONE]`. A failure after the stream began
    arrives as an `error` event, which ends the stream.

    Request: content blocks `text`, `tool_use`, `tool_result` (string or text-block content,
    `is_error`) and `thinking` / `redacted_thinking` sent back by clients; `image`,
    `document` and server-tool blocks get 400 naming the type. A `system` turn inside
    `messages` is rendered as a system turn in place (templates that take only a leading
    system prompt get it appended there, reported in `X-AFM-Warnings`). Server tools (a
    `type` other than `custom`, such as `web_search_20250305`) are left out of the prompt and
    reported in `X-AFM-Warnings`; tools with `defer_loading` stay out of the prompt until a
    `tool_reference` block in a `tool_result` names them. `cache_control` is accepted and
    ignored (the prefix cache works on its own). `thinking` `enabled`, `adaptive` and
    `between_tools` turn the model's reasoning on (`budget_tokens` is not enforced),
    `disabled` turns it off; absent, the server default applies; `display: omitted` returns
    thinking blocks with empty text and the reasoning sealed in `signature`, which this
    server reads back on the next turn. `output_config.effort` maps to the template's
    reasoning effort as `reasoning_effort` does in chat. `context_management.edits`:
    `clear_thinking_20251015` drops thinking blocks from all but the last `keep` assistant
    turns (`keep: all` keeps every one); other edits are accepted and reported in
    `X-AFM-Warnings` as not applied. `tool_choice` `any` and `tool` are enforced by the
    grammar engine, as `required` and named choices are in chat. `model` resolves as for
    chat completions (the response names what ran). `?beta=true` is accepted.

    Usage: `input_tokens` counts the prompt tokens computed for this request,
    `cache_read_input_tokens` those reused from the prefix cache (their sum is the prompt
    length, which `/v1/messages/count_tokens` returns); `cache_creation_input_tokens` is 0.

    Errors on `/v1/messages*` use Anthropic's envelope `{"type": "error", "error": {"type",
    "message"}, "request_id"}`: 400 `invalid_request_error`, 404 `not_found_error`, 413
    `request_too_large`, 500 `api_error`, and 529 `overloaded_error` with `Retry-After`
    when no slot frees within `--queue-timeout`. `x-api-key`, `anthropic-version` and
    `anthropic-beta` are accepted and ignored.

    Args:
        beta (str | Unset):
        x_request_id (str | Unset):
        x_api_key (str | Unset):
        anthropic_version (str | Unset):
        anthropic_beta (str | Unset):
        body (MessagesRequest): An Anthropic Messages request. Unknown fields (`service_tier`,
            `container`, ...) are
            accepted and ignored.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MessagesErrorResponse | MessagesMessage]
    """

    kwargs = _get_kwargs(
        body=body,
        beta=beta,
        x_request_id=x_request_id,
        x_api_key=x_api_key,
        anthropic_version=anthropic_version,
        anthropic_beta=anthropic_beta,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: MessagesRequest,
    beta: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
    x_api_key: str | Unset = UNSET,
    anthropic_version: str | Unset = UNSET,
    anthropic_beta: str | Unset = UNSET,
) -> MessagesErrorResponse | MessagesMessage | None:
    """Create a message (Anthropic Messages API)

     Anthropic's Messages API over the same engine, grammar, tool and reasoning parsing as chat
    completions, for the `anthropic` SDKs and Claude Code (`ANTHROPIC_BASE_URL`). Returns a
    `message` object, or with `stream: true` a `text/event-stream` of named events
    (`event: <type>` then `data: <json>`): `message_start`, `ping`, then per content block
    `content_block_start`, `content_block_delta` (`thinking_delta`, `text_delta`,
    `input_json_delta`) and `content_block_stop`, then `message_delta` (stop reason and
    usage) and `message_stop`. There is no `[DONE]`. A failure after the stream began
    arrives as an `error` event, which ends the stream.

    Request: content blocks `text`, `tool_use`, `tool_result` (string or text-block content,
    `is_error`) and `thinking` / `redacted_thinking` sent back by clients; `image`,
    `document` and server-tool blocks get 400 naming the type. A `system` turn inside
    `messages` is rendered as a system turn in place (templates that take only a leading
    system prompt get it appended there, reported in `X-AFM-Warnings`). Server tools (a
    `type` other than `custom`, such as `web_search_20250305`) are left out of the prompt and
    reported in `X-AFM-Warnings`; tools with `defer_loading` stay out of the prompt until a
    `tool_reference` block in a `tool_result` names them. `cache_control` is accepted and
    ignored (the prefix cache works on its own). `thinking` `enabled`, `adaptive` and
    `between_tools` turn the model's reasoning on (`budget_tokens` is not enforced),
    `disabled` turns it off; absent, the server default applies; `display: omitted` returns
    thinking blocks with empty text and the reasoning sealed in `signature`, which this
    server reads back on the next turn. `output_config.effort` maps to the template's
    reasoning effort as `reasoning_effort` does in chat. `context_management.edits`:
    `clear_thinking_20251015` drops thinking blocks from all but the last `keep` assistant
    turns (`keep: all` keeps every one); other edits are accepted and reported in
    `X-AFM-Warnings` as not applied. `tool_choice` `any` and `tool` are enforced by the
    grammar engine, as `required` and named choices are in chat. `model` resolves as for
    chat completions (the response names what ran). `?beta=true` is accepted.

    Usage: `input_tokens` counts the prompt tokens computed for this request,
    `cache_read_input_tokens` those reused from the prefix cache (their sum is the prompt
    length, which `/v1/messages/count_tokens` returns); `cache_creation_input_tokens` is 0.

    Errors on `/v1/messages*` use Anthropic's envelope `{"type": "error", "error": {"type",
    "message"}, "request_id"}`: 400 `invalid_request_error`, 404 `not_found_error`, 413
    `request_too_large`, 500 `api_error`, and 529 `overloaded_error` with `Retry-After`
    when no slot frees within `--queue-timeout`. `x-api-key`, `anthropic-version` and
    `anthropic-beta` are accepted and ignored.

    Args:
        beta (str | Unset):
        x_request_id (str | Unset):
        x_api_key (str | Unset):
        anthropic_version (str | Unset):
        anthropic_beta (str | Unset):
        body (MessagesRequest): An Anthropic Messages request. Unknown fields (`service_tier`,
            `container`, ...) are
            accepted and ignored.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MessagesErrorResponse | MessagesMessage
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            beta=beta,
            x_request_id=x_request_id,
            x_api_key=x_api_key,
            anthropic_version=anthropic_version,
            anthropic_beta=anthropic_beta,
        )
    ).parsed
