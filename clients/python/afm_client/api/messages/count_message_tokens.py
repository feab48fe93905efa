from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.messages_count_tokens_request import MessagesCountTokensRequest
from ...models.messages_count_tokens_response import MessagesCountTokensResponse
from ...models.messages_error_response import MessagesErrorResponse
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: MessagesCountTokensRequest,
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
        "url": "/v1/messages/count_tokens",
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> MessagesCountTokensResponse | MessagesErrorResponse | None:
    if response.status_code == 200:
        response_200 = MessagesCountTokensResponse.from_dict(response.json())

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

    if response.status_code == 422:
        response_422 = MessagesErrorResponse.from_dict(response.json())

        return response_422

    if response.status_code == 500:
        response_500 = MessagesErrorResponse.from_dict(response.json())

        return response_500

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[MessagesCountTokensResponse | MessagesErrorResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: MessagesCountTokensRequest,
    beta: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
    x_api_key: str | Unset = UNSET,
    anthropic_version: str | Unset = UNSET,
    anthropic_beta: str | Unset = UNSET,
) -> Response[MessagesCountTokensResponse | MessagesErrorResponse]:
    """Count a message request's input tokens

     Renders the request exactly as `createMessage` does (system, messages, tools unless
    `tool_choice` is `none`, `thinking`), so `input_tokens` equals the prompt length of that
    request: its `usage.input_tokens` plus `usage.cache_read_input_tokens`.

    Args:
        beta (str | Unset):
        x_request_id (str | Unset):
        x_api_key (str | Unset):
        anthropic_version (str | Unset):
        anthropic_beta (str | Unset):
        body (MessagesCountTokensRequest): The prompt-shaping fields of a Messages request.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MessagesCountTokensResponse | MessagesErrorResponse]
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
    body: MessagesCountTokensRequest,
    beta: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
    x_api_key: str | Unset = UNSET,
    anthropic_version: str | Unset = UNSET,
    anthropic_beta: str | Unset = UNSET,
) -> MessagesCountTokensResponse | MessagesErrorResponse | None:
    """Count a message request's input tokens

     Renders the request exactly as `createMessage` does (system, messages, tools unless
    `tool_choice` is `none`, `thinking`), so `input_tokens` equals the prompt length of that
    request: its `usage.input_tokens` plus `usage.cache_read_input_tokens`.

    Args:
        beta (str | Unset):
        x_request_id (str | Unset):
        x_api_key (str | Unset):
        anthropic_version (str | Unset):
        anthropic_beta (str | Unset):
        body (MessagesCountTokensRequest): The prompt-shaping fields of a Messages request.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MessagesCountTokensResponse | MessagesErrorResponse
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
    body: MessagesCountTokensRequest,
    beta: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
    x_api_key: str | Unset = UNSET,
    anthropic_version: str | Unset = UNSET,
    anthropic_beta: str | Unset = UNSET,
) -> Response[MessagesCountTokensResponse | MessagesErrorResponse]:
    """Count a message request's input tokens

     Renders the request exactly as `createMessage` does (system, messages, tools unless
    `tool_choice` is `none`, `thinking`), so `input_tokens` equals the prompt length of that
    request: its `usage.input_tokens` plus `usage.cache_read_input_tokens`.

    Args:
        beta (str | Unset):
        x_request_id (str | Unset):
        x_api_key (str | Unset):
        anthropic_version (str | Unset):
        anthropic_beta (str | Unset):
        body (MessagesCountTokensRequest): The prompt-shaping fields of a Messages request.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MessagesCountTokensResponse | MessagesErrorResponse]
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
    body: MessagesCountTokensRequest,
    beta: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
    x_api_key: str | Unset = UNSET,
    anthropic_version: str | Unset = UNSET,
    anthropic_beta: str | Unset = UNSET,
) -> MessagesCountTokensResponse | MessagesErrorResponse | None:
    """Count a message request's input tokens

     Renders the request exactly as `createMessage` does (system, messages, tools unless
    `tool_choice` is `none`, `thinking`), so `input_tokens` equals the prompt length of that
    request: its `usage.input_tokens` plus `usage.cache_read_input_tokens`.

    Args:
        beta (str | Unset):
        x_request_id (str | Unset):
        x_api_key (str | Unset):
        anthropic_version (str | Unset):
        anthropic_beta (str | Unset):
        body (MessagesCountTokensRequest): The prompt-shaping fields of a Messages request.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MessagesCountTokensResponse | MessagesErrorResponse
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
