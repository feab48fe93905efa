from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.file_list import FileList
from ...models.list_files_order import ListFilesOrder
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    purpose: str | Unset = UNSET,
    limit: int | Unset = 10000,
    after: str | Unset = UNSET,
    order: ListFilesOrder | Unset = ListFilesOrder.DESC,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["purpose"] = purpose

    params["limit"] = limit

    params["after"] = after

    json_order: str | Unset = UNSET
    if not isinstance(order, Unset):
        json_order = order.value

    params["order"] = json_order

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/files",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | FileList | None:
    if response.status_code == 200:
        response_200 = FileList.from_dict(response.json())

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
) -> Response[ErrorResponse | FileList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    purpose: str | Unset = UNSET,
    limit: int | Unset = 10000,
    after: str | Unset = UNSET,
    order: ListFilesOrder | Unset = ListFilesOrder.DESC,
) -> Response[ErrorResponse | FileList]:
    """List files

     Stored files, newest first unless `order=asc`.

    Args:
        purpose (str | Unset):
        limit (int | Unset):  Default: 10000.
        after (str | Unset):
        order (ListFilesOrder | Unset):  Default: ListFilesOrder.DESC.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | FileList]
    """

    kwargs = _get_kwargs(
        purpose=purpose,
        limit=limit,
        after=after,
        order=order,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    purpose: str | Unset = UNSET,
    limit: int | Unset = 10000,
    after: str | Unset = UNSET,
    order: ListFilesOrder | Unset = ListFilesOrder.DESC,
) -> ErrorResponse | FileList | None:
    """List files

     Stored files, newest first unless `order=asc`.

    Args:
        purpose (str | Unset):
        limit (int | Unset):  Default: 10000.
        after (str | Unset):
        order (ListFilesOrder | Unset):  Default: ListFilesOrder.DESC.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | FileList
    """

    return sync_detailed(
        client=client,
        purpose=purpose,
        limit=limit,
        after=after,
        order=order,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    purpose: str | Unset = UNSET,
    limit: int | Unset = 10000,
    after: str | Unset = UNSET,
    order: ListFilesOrder | Unset = ListFilesOrder.DESC,
) -> Response[ErrorResponse | FileList]:
    """List files

     Stored files, newest first unless `order=asc`.

    Args:
        purpose (str | Unset):
        limit (int | Unset):  Default: 10000.
        after (str | Unset):
        order (ListFilesOrder | Unset):  Default: ListFilesOrder.DESC.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | FileList]
    """

    kwargs = _get_kwargs(
        purpose=purpose,
        limit=limit,
        after=after,
        order=order,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    purpose: str | Unset = UNSET,
    limit: int | Unset = 10000,
    after: str | Unset = UNSET,
    order: ListFilesOrder | Unset = ListFilesOrder.DESC,
) -> ErrorResponse | FileList | None:
    """List files

     Stored files, newest first unless `order=asc`.

    Args:
        purpose (str | Unset):
        limit (int | Unset):  Default: 10000.
        after (str | Unset):
        order (ListFilesOrder | Unset):  Default: ListFilesOrder.DESC.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | FileList
    """

    return (
        await asyncio_detailed(
            client=client,
            purpose=purpose,
            limit=limit,
            after=after,
            order=order,
        )
    ).parsed
