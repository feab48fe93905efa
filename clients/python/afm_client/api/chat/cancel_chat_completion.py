from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.chat_completion_cancellation import ChatCompletionCancellation
from ...models.error_response import ErrorResponse
from ...types import Response


def _get_kwargs(
    request_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/chat/completions/{request_id}/cancel".format(
            request_id=quote(str(request_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ChatCompletionCancellation | ErrorResponse | None:
    if response.status_code == 200:
        response_200 = ChatCompletionCancellation.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = ErrorResponse.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = ErrorResponse.from_dict(response.json())

        return response_404

    if response.status_code == 500:
        response_500 = ErrorResponse.from_dict(response.json())

        return response_500

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ChatCompletionCancellation | ErrorResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    request_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[ChatCompletionCancellation | ErrorResponse]:
    """Cancel an in-flight chat completion

     Cancels a request by the `X-Request-ID` it was sent with (not its `chatcmpl-` id). The
    cancelled request ends with `finish_reason: "cancelled"`. 404 when no such request is in
    flight (it may already be complete).

    Args:
        request_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ChatCompletionCancellation | ErrorResponse]
    """

    kwargs = _get_kwargs(
        request_id=request_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    request_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> ChatCompletionCancellation | ErrorResponse | None:
    """Cancel an in-flight chat completion

     Cancels a request by the `X-Request-ID` it was sent with (not its `chatcmpl-` id). The
    cancelled request ends with `finish_reason: "cancelled"`. 404 when no such request is in
    flight (it may already be complete).

    Args:
        request_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ChatCompletionCancellation | ErrorResponse
    """

    return sync_detailed(
        request_id=request_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    request_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[ChatCompletionCancellation | ErrorResponse]:
    """Cancel an in-flight chat completion

     Cancels a request by the `X-Request-ID` it was sent with (not its `chatcmpl-` id). The
    cancelled request ends with `finish_reason: "cancelled"`. 404 when no such request is in
    flight (it may already be complete).

    Args:
        request_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ChatCompletionCancellation | ErrorResponse]
    """

    kwargs = _get_kwargs(
        request_id=request_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    request_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> ChatCompletionCancellation | ErrorResponse | None:
    """Cancel an in-flight chat completion

     Cancels a request by the `X-Request-ID` it was sent with (not its `chatcmpl-` id). The
    cancelled request ends with `finish_reason: "cancelled"`. 404 when no such request is in
    flight (it may already be complete).

    Args:
        request_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ChatCompletionCancellation | ErrorResponse
    """

    return (
        await asyncio_detailed(
            request_id=request_id,
            client=client,
        )
    ).parsed
