from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.count_tokens_request import CountTokensRequest
from ...models.count_tokens_response import CountTokensResponse
from ...models.error_response import ErrorResponse
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: CountTokensRequest,
    x_request_id: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_request_id, Unset):
        headers["X-Request-ID"] = x_request_id

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/count_tokens",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> CountTokensResponse | ErrorResponse | None:
    if response.status_code == 200:
        response_200 = CountTokensResponse.from_dict(response.json())

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
) -> Response[CountTokensResponse | ErrorResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: CountTokensRequest,
    x_request_id: str | Unset = UNSET,
) -> Response[CountTokensResponse | ErrorResponse]:
    """Count prompt tokens

     Anthropic style preflight count. With `messages` the chat template is rendered exactly as
    for a chat request, so `input_tokens` equals that request's `usage.prompt_tokens`.

    Args:
        x_request_id (str | Unset):
        body (CountTokensRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CountTokensResponse | ErrorResponse]
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
    body: CountTokensRequest,
    x_request_id: str | Unset = UNSET,
) -> CountTokensResponse | ErrorResponse | None:
    """Count prompt tokens

     Anthropic style preflight count. With `messages` the chat template is rendered exactly as
    for a chat request, so `input_tokens` equals that request's `usage.prompt_tokens`.

    Args:
        x_request_id (str | Unset):
        body (CountTokensRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CountTokensResponse | ErrorResponse
    """

    return sync_detailed(
        client=client,
        body=body,
        x_request_id=x_request_id,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: CountTokensRequest,
    x_request_id: str | Unset = UNSET,
) -> Response[CountTokensResponse | ErrorResponse]:
    """Count prompt tokens

     Anthropic style preflight count. With `messages` the chat template is rendered exactly as
    for a chat request, so `input_tokens` equals that request's `usage.prompt_tokens`.

    Args:
        x_request_id (str | Unset):
        body (CountTokensRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CountTokensResponse | ErrorResponse]
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
    body: CountTokensRequest,
    x_request_id: str | Unset = UNSET,
) -> CountTokensResponse | ErrorResponse | None:
    """Count prompt tokens

     Anthropic style preflight count. With `messages` the chat template is rendered exactly as
    for a chat request, so `input_tokens` equals that request's `usage.prompt_tokens`.

    Args:
        x_request_id (str | Unset):
        body (CountTokensRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CountTokensResponse | ErrorResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            x_request_id=x_request_id,
        )
    ).parsed
