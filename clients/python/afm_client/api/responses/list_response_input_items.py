from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.list_response_input_items_order import ListResponseInputItemsOrder
from ...models.response_input_item_list import ResponseInputItemList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    response_id: str,
    *,
    after: str | Unset = UNSET,
    limit: int | Unset = 20,
    order: ListResponseInputItemsOrder | Unset = ListResponseInputItemsOrder.DESC,
    include: list[str] | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["after"] = after

    params["limit"] = limit

    json_order: str | Unset = UNSET
    if not isinstance(order, Unset):
        json_order = order.value

    params["order"] = json_order

    json_include: list[str] | Unset = UNSET
    if not isinstance(include, Unset):
        json_include = include

    params["include"] = json_include

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/responses/{response_id}/input_items".format(
            response_id=quote(str(response_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | ResponseInputItemList | None:
    if response.status_code == 200:
        response_200 = ResponseInputItemList.from_dict(response.json())

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
) -> Response[ErrorResponse | ResponseInputItemList]:
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
    after: str | Unset = UNSET,
    limit: int | Unset = 20,
    order: ListResponseInputItemsOrder | Unset = ListResponseInputItemsOrder.DESC,
    include: list[str] | Unset = UNSET,
) -> Response[ErrorResponse | ResponseInputItemList]:
    """List a response's input items

     The items the response was created with (not those of earlier responses), paginated with `after`,
    `limit` and `order` (`desc` by default).

    Args:
        response_id (str):
        after (str | Unset):
        limit (int | Unset):  Default: 20.
        order (ListResponseInputItemsOrder | Unset):  Default: ListResponseInputItemsOrder.DESC.
        include (list[str] | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | ResponseInputItemList]
    """

    kwargs = _get_kwargs(
        response_id=response_id,
        after=after,
        limit=limit,
        order=order,
        include=include,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    response_id: str,
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    limit: int | Unset = 20,
    order: ListResponseInputItemsOrder | Unset = ListResponseInputItemsOrder.DESC,
    include: list[str] | Unset = UNSET,
) -> ErrorResponse | ResponseInputItemList | None:
    """List a response's input items

     The items the response was created with (not those of earlier responses), paginated with `after`,
    `limit` and `order` (`desc` by default).

    Args:
        response_id (str):
        after (str | Unset):
        limit (int | Unset):  Default: 20.
        order (ListResponseInputItemsOrder | Unset):  Default: ListResponseInputItemsOrder.DESC.
        include (list[str] | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | ResponseInputItemList
    """

    return sync_detailed(
        response_id=response_id,
        client=client,
        after=after,
        limit=limit,
        order=order,
        include=include,
    ).parsed


async def asyncio_detailed(
    response_id: str,
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    limit: int | Unset = 20,
    order: ListResponseInputItemsOrder | Unset = ListResponseInputItemsOrder.DESC,
    include: list[str] | Unset = UNSET,
) -> Response[ErrorResponse | ResponseInputItemList]:
    """List a response's input items

     The items the response was created with (not those of earlier responses), paginated with `after`,
    `limit` and `order` (`desc` by default).

    Args:
        response_id (str):
        after (str | Unset):
        limit (int | Unset):  Default: 20.
        order (ListResponseInputItemsOrder | Unset):  Default: ListResponseInputItemsOrder.DESC.
        include (list[str] | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | ResponseInputItemList]
    """

    kwargs = _get_kwargs(
        response_id=response_id,
        after=after,
        limit=limit,
        order=order,
        include=include,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    response_id: str,
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    limit: int | Unset = 20,
    order: ListResponseInputItemsOrder | Unset = ListResponseInputItemsOrder.DESC,
    include: list[str] | Unset = UNSET,
) -> ErrorResponse | ResponseInputItemList | None:
    """List a response's input items

     The items the response was created with (not those of earlier responses), paginated with `after`,
    `limit` and `order` (`desc` by default).

    Args:
        response_id (str):
        after (str | Unset):
        limit (int | Unset):  Default: 20.
        order (ListResponseInputItemsOrder | Unset):  Default: ListResponseInputItemsOrder.DESC.
        include (list[str] | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | ResponseInputItemList
    """

    return (
        await asyncio_detailed(
            response_id=response_id,
            client=client,
            after=after,
            limit=limit,
            order=order,
            include=include,
        )
    ).parsed
