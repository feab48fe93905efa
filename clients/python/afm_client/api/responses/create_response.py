from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_response_request import CreateResponseRequest
from ...models.error_response import ErrorResponse
from ...models.response_object import ResponseObject
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: CreateResponseRequest,
    x_request_id: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_request_id, Unset):
        headers["X-Request-ID"] = x_request_id

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/responses",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | ResponseObject | None:
    if response.status_code == 200:
        response_200 = ResponseObject.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorResponse.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorResponse.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = ErrorResponse.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = ErrorResponse.from_dict(response.json())

        return response_413

    if response.status_code == 500:
        response_500 = ErrorResponse.from_dict(response.json())

        return response_500

    if response.status_code == 503:
        response_503 = ErrorResponse.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorResponse | ResponseObject]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: CreateResponseRequest,
    x_request_id: str | Unset = UNSET,
) -> Response[ErrorResponse | ResponseObject]:
    """Create a model response

     OpenAI's Responses API on the same engine as chat completions. `input` is a string or a
    list of items (`message`, `function_call`, `function_call_output`, `reasoning`);
    `previous_response_id` continues a stored response's conversation (its input and output
    items), reusing the prefix cache so only the new tokens are prefilled. Responses are
    stored durably unless `store` is false. `text.format` (`json_object`, `json_schema`) and
    function tools are enforced by the grammar engine as in chat completions.

    With `stream: true` the reply is a `text/event-stream` of typed events, each with an
    increasing `sequence_number`: `response.created`, `response.in_progress`, output items
    (`response.output_item.added`, content parts, text / reasoning / function-call argument
    deltas and their `.done` events, `response.output_item.done`), then one of
    `response.completed`, `response.incomplete` or `response.failed`; a failure after the
    stream began is an `error` event. The stream ends with `data: [DONE]`.

    With `background: true` (needs `store`) the reply is the `queued` response at once; poll
    `GET /v1/responses/{response_id}` and cancel with `POST .../cancel`.

    Tools: `function` tools, and `namespace` tools whose function tools the model sees as
    `<namespace>.<name>` (a call to one comes back as a `function_call` with `name` and
    `namespace`, as OpenAI returns it). Other tool types (hosted tools such as web_search,
    file_search, code_interpreter, computer use, mcp, image generation, and tools with a
    built-in format such as custom, shell, local_shell, apply_patch) are left out of the
    prompt and reported in `X-AFM-Warnings` and the access log; a `tool_choice` naming one
    gets 400. Image or file input parts get 400 naming the type.

    With `store: false` and `include: ["reasoning.encrypted_content"]`, reasoning items carry
    `encrypted_content`: the reasoning text sealed with a key kept in the data directory
    (base64 with an HMAC). Sent back as input, it is verified and read; a value this server
    cannot verify is left out and reported in `X-AFM-Warnings`.

    Args:
        x_request_id (str | Unset):
        body (CreateResponseRequest): A Responses API request. Unknown fields are accepted and
            ignored, as OpenAI clients send
            fields a server may not know. Sampling values win over server flags, as in chat.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | ResponseObject]
    """

    kwargs = _get_kwargs(
        body=body,
        x_request_id=x_request_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: CreateResponseRequest,
    x_request_id: str | Unset = UNSET,
) -> ErrorResponse | ResponseObject | None:
    """Create a model response

     OpenAI's Responses API on the same engine as chat completions. `input` is a string or a
    list of items (`message`, `function_call`, `function_call_output`, `reasoning`);
    `previous_response_id` continues a stored response's conversation (its input and output
    items), reusing the prefix cache so only the new tokens are prefilled. Responses are
    stored durably unless `store` is false. `text.format` (`json_object`, `json_schema`) and
    function tools are enforced by the grammar engine as in chat completions.

    With `stream: true` the reply is a `text/event-stream` of typed events, each with an
    increasing `sequence_number`: `response.created`, `response.in_progress`, output items
    (`response.output_item.added`, content parts, text / reasoning / function-call argument
    deltas and their `.done` events, `response.output_item.done`), then one of
    `response.completed`, `response.incomplete` or `response.failed`; a failure after the
    stream began is an `error` event. The stream ends with `data: [DONE]`.

    With `background: true` (needs `store`) the reply is the `queued` response at once; poll
    `GET /v1/responses/{response_id}` and cancel with `POST .../cancel`.

    Tools: `function` tools, and `namespace` tools whose function tools the model sees as
    `<namespace>.<name>` (a call to one comes back as a `function_call` with `name` and
    `namespace`, as OpenAI returns it). Other tool types (hosted tools such as web_search,
    file_search, code_interpreter, computer use, mcp, image generation, and tools with a
    built-in format such as custom, shell, local_shell, apply_patch) are left out of the
    prompt and reported in `X-AFM-Warnings` and the access log; a `tool_choice` naming one
    gets 400. Image or file input parts get 400 naming the type.

    With `store: false` and `include: ["reasoning.encrypted_content"]`, reasoning items carry
    `encrypted_content`: the reasoning text sealed with a key kept in the data directory
    (base64 with an HMAC). Sent back as input, it is verified and read; a value this server
    cannot verify is left out and reported in `X-AFM-Warnings`.

    Args:
        x_request_id (str | Unset):
        body (CreateResponseRequest): A Responses API request. Unknown fields are accepted and
            ignored, as OpenAI clients send
            fields a server may not know. Sampling values win over server flags, as in chat.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | ResponseObject
    """

    return sync_detailed(
        client=client,
        body=body,
        x_request_id=x_request_id,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: CreateResponseRequest,
    x_request_id: str | Unset = UNSET,
) -> Response[ErrorResponse | ResponseObject]:
    """Create a model response

     OpenAI's Responses API on the same engine as chat completions. `input` is a string or a
    list of items (`message`, `function_call`, `function_call_output`, `reasoning`);
    `previous_response_id` continues a stored response's conversation (its input and output
    items), reusing the prefix cache so only the new tokens are prefilled. Responses are
    stored durably unless `store` is false. `text.format` (`json_object`, `json_schema`) and
    function tools are enforced by the grammar engine as in chat completions.

    With `stream: true` the reply is a `text/event-stream` of typed events, each with an
    increasing `sequence_number`: `response.created`, `response.in_progress`, output items
    (`response.output_item.added`, content parts, text / reasoning / function-call argument
    deltas and their `.done` events, `response.output_item.done`), then one of
    `response.completed`, `response.incomplete` or `response.failed`; a failure after the
    stream began is an `error` event. The stream ends with `data: [DONE]`.

    With `background: true` (needs `store`) the reply is the `queued` response at once; poll
    `GET /v1/responses/{response_id}` and cancel with `POST .../cancel`.

    Tools: `function` tools, and `namespace` tools whose function tools the model sees as
    `<namespace>.<name>` (a call to one comes back as a `function_call` with `name` and
    `namespace`, as OpenAI returns it). Other tool types (hosted tools such as web_search,
    file_search, code_interpreter, computer use, mcp, image generation, and tools with a
    built-in format such as custom, shell, local_shell, apply_patch) are left out of the
    prompt and reported in `X-AFM-Warnings` and the access log; a `tool_choice` naming one
    gets 400. Image or file input parts get 400 naming the type.

    With `store: false` and `include: ["reasoning.encrypted_content"]`, reasoning items carry
    `encrypted_content`: the reasoning text sealed with a key kept in the data directory
    (base64 with an HMAC). Sent back as input, it is verified and read; a value this server
    cannot verify is left out and reported in `X-AFM-Warnings`.

    Args:
        x_request_id (str | Unset):
        body (CreateResponseRequest): A Responses API request. Unknown fields are accepted and
            ignored, as OpenAI clients send
            fields a server may not know. Sampling values win over server flags, as in chat.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | ResponseObject]
    """

    kwargs = _get_kwargs(
        body=body,
        x_request_id=x_request_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: CreateResponseRequest,
    x_request_id: str | Unset = UNSET,
) -> ErrorResponse | ResponseObject | None:
    """Create a model response

     OpenAI's Responses API on the same engine as chat completions. `input` is a string or a
    list of items (`message`, `function_call`, `function_call_output`, `reasoning`);
    `previous_response_id` continues a stored response's conversation (its input and output
    items), reusing the prefix cache so only the new tokens are prefilled. Responses are
    stored durably unless `store` is false. `text.format` (`json_object`, `json_schema`) and
    function tools are enforced by the grammar engine as in chat completions.

    With `stream: true` the reply is a `text/event-stream` of typed events, each with an
    increasing `sequence_number`: `response.created`, `response.in_progress`, output items
    (`response.output_item.added`, content parts, text / reasoning / function-call argument
    deltas and their `.done` events, `response.output_item.done`), then one of
    `response.completed`, `response.incomplete` or `response.failed`; a failure after the
    stream began is an `error` event. The stream ends with `data: [DONE]`.

    With `background: true` (needs `store`) the reply is the `queued` response at once; poll
    `GET /v1/responses/{response_id}` and cancel with `POST .../cancel`.

    Tools: `function` tools, and `namespace` tools whose function tools the model sees as
    `<namespace>.<name>` (a call to one comes back as a `function_call` with `name` and
    `namespace`, as OpenAI returns it). Other tool types (hosted tools such as web_search,
    file_search, code_interpreter, computer use, mcp, image generation, and tools with a
    built-in format such as custom, shell, local_shell, apply_patch) are left out of the
    prompt and reported in `X-AFM-Warnings` and the access log; a `tool_choice` naming one
    gets 400. Image or file input parts get 400 naming the type.

    With `store: false` and `include: ["reasoning.encrypted_content"]`, reasoning items carry
    `encrypted_content`: the reasoning text sealed with a key kept in the data directory
    (base64 with an HMAC). Sent back as input, it is verified and read; a value this server
    cannot verify is left out and reported in `X-AFM-Warnings`.

    Args:
        x_request_id (str | Unset):
        body (CreateResponseRequest): A Responses API request. Unknown fields are accepted and
            ignored, as OpenAI clients send
            fields a server may not know. Sampling values win over server flags, as in chat.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | ResponseObject
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            x_request_id=x_request_id,
        )
    ).parsed
