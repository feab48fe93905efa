from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.completion import Completion
from ...models.completion_request import CompletionRequest
from ...models.error_response import ErrorResponse
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: CompletionRequest,
    x_request_id: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_request_id, Unset):
        headers["X-Request-ID"] = x_request_id

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/completions",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Completion | ErrorResponse | None:
    if response.status_code == 200:
        response_200 = Completion.from_dict(response.json())

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
) -> Response[Completion | ErrorResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: CompletionRequest,
    x_request_id: str | Unset = UNSET,
) -> Response[Completion | ErrorResponse]:
    """Create a text completion

     Raw prompt completion: a string prompt or a list of token ids, the same sampling fields
    as chat, `ignore_eos`, `stream` with the same SSE rules and `logprobs` (an integer, legacy
    style). `echo: true`, `n` > 1 and `best_of` > 1 are rejected with 400.

    Args:
        x_request_id (str | Unset):
        body (CompletionRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Completion | ErrorResponse]
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
    body: CompletionRequest,
    x_request_id: str | Unset = UNSET,
) -> Completion | ErrorResponse | None:
    """Create a text completion

     Raw prompt completion: a string prompt or a list of token ids, the same sampling fields
    as chat, `ignore_eos`, `stream` with the same SSE rules and `logprobs` (an integer, legacy
    style). `echo: true`, `n` > 1 and `best_of` > 1 are rejected with 400.

    Args:
        x_request_id (str | Unset):
        body (CompletionRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Completion | ErrorResponse
    """

    return sync_detailed(
        client=client,
        body=body,
        x_request_id=x_request_id,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: CompletionRequest,
    x_request_id: str | Unset = UNSET,
) -> Response[Completion | ErrorResponse]:
    """Create a text completion

     Raw prompt completion: a string prompt or a list of token ids, the same sampling fields
    as chat, `ignore_eos`, `stream` with the same SSE rules and `logprobs` (an integer, legacy
    style). `echo: true`, `n` > 1 and `best_of` > 1 are rejected with 400.

    Args:
        x_request_id (str | Unset):
        body (CompletionRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Completion | ErrorResponse]
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
    body: CompletionRequest,
    x_request_id: str | Unset = UNSET,
) -> Completion | ErrorResponse | None:
    """Create a text completion

     Raw prompt completion: a string prompt or a list of token ids, the same sampling fields
    as chat, `ignore_eos`, `stream` with the same SSE rules and `logprobs` (an integer, legacy
    style). `echo: true`, `n` > 1 and `best_of` > 1 are rejected with 400.

    Args:
        x_request_id (str | Unset):
        body (CompletionRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Completion | ErrorResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            x_request_id=x_request_id,
        )
    ).parsed
