from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.chat_completion import ChatCompletion
from ...models.chat_completion_request import ChatCompletionRequest
from ...models.create_chat_completion_xafm_profile import CreateChatCompletionXAFMProfile
from ...models.error_response import ErrorResponse
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: ChatCompletionRequest,
    x_request_id: str | Unset = UNSET,
    x_afm_profile: CreateChatCompletionXAFMProfile | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_request_id, Unset):
        headers["X-Request-ID"] = x_request_id

    if not isinstance(x_afm_profile, Unset):
        headers["X-AFM-Profile"] = str(x_afm_profile)

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/chat/completions",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ChatCompletion | ErrorResponse | None:
    if response.status_code == 200:
        response_200 = ChatCompletion.from_dict(response.json())

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
) -> Response[ChatCompletion | ErrorResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: ChatCompletionRequest,
    x_request_id: str | Unset = UNSET,
    x_afm_profile: CreateChatCompletionXAFMProfile | Unset = UNSET,
) -> Response[ChatCompletion | ErrorResponse]:
    """Create a chat completion

     The primary surface. Returns a `chat.completion` object, or with `stream: true` a
    `text/event-stream` of `chat.completion.chunk` events ending with `data: [DONE]`.

    Streams: the first delta carries `role`; one id for the whole stream; a finish chunk;
    then, unless `stream_options.include_usage` is false, a usage chunk with `choices: []`;
    with `X-AFM-Profile` an `afm_profile` event; then `[DONE]`. An error after the stream began
    arrives as an assistant content chunk marked as an error (`finish_reason: "error"`), then
    `[DONE]`. A cancelled request ends with `finish_reason: "cancelled"`.

    Precedence: `max_tokens` wins over `max_completion_tokens`; `repetition_penalty` wins
    over `repeat_penalty`; request sampling values win over server flags; the request's
    `response_format` wins over `--guided-json`; `stop` merges CLI values first, then the
    request's, de-duplicated; `reasoning_effort` is inserted into `chat_template_kwargs`,
    where an explicit `enable_thinking: false` stays authoritative.

    Args:
        x_request_id (str | Unset):
        x_afm_profile (CreateChatCompletionXAFMProfile | Unset):
        body (ChatCompletionRequest): Unknown fields are accepted and ignored, as OpenAI clients
            send fields a server may not know.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ChatCompletion | ErrorResponse]
    """

    kwargs = _get_kwargs(
        body=body,
        x_request_id=x_request_id,
        x_afm_profile=x_afm_profile,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: ChatCompletionRequest,
    x_request_id: str | Unset = UNSET,
    x_afm_profile: CreateChatCompletionXAFMProfile | Unset = UNSET,
) -> ChatCompletion | ErrorResponse | None:
    """Create a chat completion

     The primary surface. Returns a `chat.completion` object, or with `stream: true` a
    `text/event-stream` of `chat.completion.chunk` events ending with `data: [DONE]`.

    Streams: the first delta carries `role`; one id for the whole stream; a finish chunk;
    then, unless `stream_options.include_usage` is false, a usage chunk with `choices: []`;
    with `X-AFM-Profile` an `afm_profile` event; then `[DONE]`. An error after the stream began
    arrives as an assistant content chunk marked as an error (`finish_reason: "error"`), then
    `[DONE]`. A cancelled request ends with `finish_reason: "cancelled"`.

    Precedence: `max_tokens` wins over `max_completion_tokens`; `repetition_penalty` wins
    over `repeat_penalty`; request sampling values win over server flags; the request's
    `response_format` wins over `--guided-json`; `stop` merges CLI values first, then the
    request's, de-duplicated; `reasoning_effort` is inserted into `chat_template_kwargs`,
    where an explicit `enable_thinking: false` stays authoritative.

    Args:
        x_request_id (str | Unset):
        x_afm_profile (CreateChatCompletionXAFMProfile | Unset):
        body (ChatCompletionRequest): Unknown fields are accepted and ignored, as OpenAI clients
            send fields a server may not know.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ChatCompletion | ErrorResponse
    """

    return sync_detailed(
        client=client,
        body=body,
        x_request_id=x_request_id,
        x_afm_profile=x_afm_profile,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: ChatCompletionRequest,
    x_request_id: str | Unset = UNSET,
    x_afm_profile: CreateChatCompletionXAFMProfile | Unset = UNSET,
) -> Response[ChatCompletion | ErrorResponse]:
    """Create a chat completion

     The primary surface. Returns a `chat.completion` object, or with `stream: true` a
    `text/event-stream` of `chat.completion.chunk` events ending with `data: [DONE]`.

    Streams: the first delta carries `role`; one id for the whole stream; a finish chunk;
    then, unless `stream_options.include_usage` is false, a usage chunk with `choices: []`;
    with `X-AFM-Profile` an `afm_profile` event; then `[DONE]`. An error after the stream began
    arrives as an assistant content chunk marked as an error (`finish_reason: "error"`), then
    `[DONE]`. A cancelled request ends with `finish_reason: "cancelled"`.

    Precedence: `max_tokens` wins over `max_completion_tokens`; `repetition_penalty` wins
    over `repeat_penalty`; request sampling values win over server flags; the request's
    `response_format` wins over `--guided-json`; `stop` merges CLI values first, then the
    request's, de-duplicated; `reasoning_effort` is inserted into `chat_template_kwargs`,
    where an explicit `enable_thinking: false` stays authoritative.

    Args:
        x_request_id (str | Unset):
        x_afm_profile (CreateChatCompletionXAFMProfile | Unset):
        body (ChatCompletionRequest): Unknown fields are accepted and ignored, as OpenAI clients
            send fields a server may not know.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ChatCompletion | ErrorResponse]
    """

    kwargs = _get_kwargs(
        body=body,
        x_request_id=x_request_id,
        x_afm_profile=x_afm_profile,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: ChatCompletionRequest,
    x_request_id: str | Unset = UNSET,
    x_afm_profile: CreateChatCompletionXAFMProfile | Unset = UNSET,
) -> ChatCompletion | ErrorResponse | None:
    """Create a chat completion

     The primary surface. Returns a `chat.completion` object, or with `stream: true` a
    `text/event-stream` of `chat.completion.chunk` events ending with `data: [DONE]`.

    Streams: the first delta carries `role`; one id for the whole stream; a finish chunk;
    then, unless `stream_options.include_usage` is false, a usage chunk with `choices: []`;
    with `X-AFM-Profile` an `afm_profile` event; then `[DONE]`. An error after the stream began
    arrives as an assistant content chunk marked as an error (`finish_reason: "error"`), then
    `[DONE]`. A cancelled request ends with `finish_reason: "cancelled"`.

    Precedence: `max_tokens` wins over `max_completion_tokens`; `repetition_penalty` wins
    over `repeat_penalty`; request sampling values win over server flags; the request's
    `response_format` wins over `--guided-json`; `stop` merges CLI values first, then the
    request's, de-duplicated; `reasoning_effort` is inserted into `chat_template_kwargs`,
    where an explicit `enable_thinking: false` stays authoritative.

    Args:
        x_request_id (str | Unset):
        x_afm_profile (CreateChatCompletionXAFMProfile | Unset):
        body (ChatCompletionRequest): Unknown fields are accepted and ignored, as OpenAI clients
            send fields a server may not know.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ChatCompletion | ErrorResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            x_request_id=x_request_id,
            x_afm_profile=x_afm_profile,
        )
    ).parsed
