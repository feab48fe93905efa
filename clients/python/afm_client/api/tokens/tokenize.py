from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.tokenize_messages_request import TokenizeMessagesRequest
from ...models.tokenize_prompt_request import TokenizePromptRequest
from ...models.tokenize_response import TokenizeResponse
from ...models.tokenize_text_request import TokenizeTextRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: TokenizeMessagesRequest | TokenizePromptRequest | TokenizeTextRequest,
    x_request_id: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_request_id, Unset):
        headers["X-Request-ID"] = x_request_id

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/tokenize",
    }

    if isinstance(body, TokenizeTextRequest):
        _kwargs["json"] = body.to_dict()
    elif isinstance(body, TokenizePromptRequest):
        _kwargs["json"] = body.to_dict()
    else:
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | TokenizeResponse | None:
    if response.status_code == 200:
        response_200 = TokenizeResponse.from_dict(response.json())

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

    if response.status_code == 422:
        response_422 = ErrorResponse.from_dict(response.json())

        return response_422

    if response.status_code == 500:
        response_500 = ErrorResponse.from_dict(response.json())

        return response_500

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorResponse | TokenizeResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: TokenizeMessagesRequest | TokenizePromptRequest | TokenizeTextRequest,
    x_request_id: str | Unset = UNSET,
) -> Response[ErrorResponse | TokenizeResponse]:
    """Tokenize text or chat messages

     vLLM style. Exactly one of `text`, `prompt` or `messages`; `messages` renders the chat
    template first (with the generation prompt unless `add_generation_prompt` is false), so
    `count` equals the `prompt_tokens` a chat request with the same messages reports.

    Args:
        x_request_id (str | Unset):
        body (TokenizeMessagesRequest | TokenizePromptRequest | TokenizeTextRequest): Exactly one
            of `text`, `prompt` or `messages`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | TokenizeResponse]
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
    body: TokenizeMessagesRequest | TokenizePromptRequest | TokenizeTextRequest,
    x_request_id: str | Unset = UNSET,
) -> ErrorResponse | TokenizeResponse | None:
    """Tokenize text or chat messages

     vLLM style. Exactly one of `text`, `prompt` or `messages`; `messages` renders the chat
    template first (with the generation prompt unless `add_generation_prompt` is false), so
    `count` equals the `prompt_tokens` a chat request with the same messages reports.

    Args:
        x_request_id (str | Unset):
        body (TokenizeMessagesRequest | TokenizePromptRequest | TokenizeTextRequest): Exactly one
            of `text`, `prompt` or `messages`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | TokenizeResponse
    """

    return sync_detailed(
        client=client,
        body=body,
        x_request_id=x_request_id,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: TokenizeMessagesRequest | TokenizePromptRequest | TokenizeTextRequest,
    x_request_id: str | Unset = UNSET,
) -> Response[ErrorResponse | TokenizeResponse]:
    """Tokenize text or chat messages

     vLLM style. Exactly one of `text`, `prompt` or `messages`; `messages` renders the chat
    template first (with the generation prompt unless `add_generation_prompt` is false), so
    `count` equals the `prompt_tokens` a chat request with the same messages reports.

    Args:
        x_request_id (str | Unset):
        body (TokenizeMessagesRequest | TokenizePromptRequest | TokenizeTextRequest): Exactly one
            of `text`, `prompt` or `messages`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | TokenizeResponse]
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
    body: TokenizeMessagesRequest | TokenizePromptRequest | TokenizeTextRequest,
    x_request_id: str | Unset = UNSET,
) -> ErrorResponse | TokenizeResponse | None:
    """Tokenize text or chat messages

     vLLM style. Exactly one of `text`, `prompt` or `messages`; `messages` renders the chat
    template first (with the generation prompt unless `add_generation_prompt` is false), so
    `count` equals the `prompt_tokens` a chat request with the same messages reports.

    Args:
        x_request_id (str | Unset):
        body (TokenizeMessagesRequest | TokenizePromptRequest | TokenizeTextRequest): Exactly one
            of `text`, `prompt` or `messages`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | TokenizeResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            x_request_id=x_request_id,
        )
    ).parsed
