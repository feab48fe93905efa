from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.deleted_response import DeletedResponse
from ...models.error_response import ErrorResponse
from ...types import Response


def _get_kwargs(
    response_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/v1/responses/{response_id}".format(
            response_id=quote(str(response_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> DeletedResponse | ErrorResponse | None:
    if response.status_code == 200:
        response_200 = DeletedResponse.from_dict(response.json())

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

    if response.status_code == 500:
        response_500 = ErrorResponse.from_dict(response.json())

        return response_500

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[DeletedResponse | ErrorResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    response_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[DeletedResponse | ErrorResponse]:
    """Delete a stored response

     Removes the response and its input items; a running background response is cancelled first. 404 for
    unknown ids.

    Args:
        response_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeletedResponse | ErrorResponse]
    """

    kwargs = _get_kwargs(
        response_id=response_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    response_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> DeletedResponse | ErrorResponse | None:
    """Delete a stored response

     Removes the response and its input items; a running background response is cancelled first. 404 for
    unknown ids.

    Args:
        response_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeletedResponse | ErrorResponse
    """

    return sync_detailed(
        response_id=response_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    response_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[DeletedResponse | ErrorResponse]:
    """Delete a stored response

     Removes the response and its input items; a running background response is cancelled first. 404 for
    unknown ids.

    Args:
        response_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeletedResponse | ErrorResponse]
    """

    kwargs = _get_kwargs(
        response_id=response_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    response_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> DeletedResponse | ErrorResponse | None:
    """Delete a stored response

     Removes the response and its input items; a running background response is cancelled first. 404 for
    unknown ids.

    Args:
        response_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeletedResponse | ErrorResponse
    """

    return (
        await asyncio_detailed(
            response_id=response_id,
            client=client,
        )
    ).parsed
