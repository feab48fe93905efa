from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_file_request import CreateFileRequest
from ...models.error_response import ErrorResponse
from ...models.file_object import FileObject
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: CreateFileRequest,
    x_request_id: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_request_id, Unset):
        headers["X-Request-ID"] = x_request_id

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/files",
    }

    _kwargs["files"] = body.to_multipart()

    headers["Content-Type"] = "multipart/form-data; boundary=+++"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | FileObject | None:
    if response.status_code == 200:
        response_200 = FileObject.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorResponse.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorResponse.from_dict(response.json())

        return response_401

    if response.status_code == 413:
        response_413 = ErrorResponse.from_dict(response.json())

        return response_413

    if response.status_code == 500:
        response_500 = ErrorResponse.from_dict(response.json())

        return response_500

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorResponse | FileObject]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: CreateFileRequest,
    x_request_id: str | Unset = UNSET,
) -> Response[ErrorResponse | FileObject]:
    """Upload a file

     Multipart upload of a batch input file (`purpose=batch`; other purposes get 400). Stored
    durably on disk; ids are `file-...`. Over the configured size limit -> 413.

    Args:
        x_request_id (str | Unset):
        body (CreateFileRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | FileObject]
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
    body: CreateFileRequest,
    x_request_id: str | Unset = UNSET,
) -> ErrorResponse | FileObject | None:
    """Upload a file

     Multipart upload of a batch input file (`purpose=batch`; other purposes get 400). Stored
    durably on disk; ids are `file-...`. Over the configured size limit -> 413.

    Args:
        x_request_id (str | Unset):
        body (CreateFileRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | FileObject
    """

    return sync_detailed(
        client=client,
        body=body,
        x_request_id=x_request_id,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: CreateFileRequest,
    x_request_id: str | Unset = UNSET,
) -> Response[ErrorResponse | FileObject]:
    """Upload a file

     Multipart upload of a batch input file (`purpose=batch`; other purposes get 400). Stored
    durably on disk; ids are `file-...`. Over the configured size limit -> 413.

    Args:
        x_request_id (str | Unset):
        body (CreateFileRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | FileObject]
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
    body: CreateFileRequest,
    x_request_id: str | Unset = UNSET,
) -> ErrorResponse | FileObject | None:
    """Upload a file

     Multipart upload of a batch input file (`purpose=batch`; other purposes get 400). Stored
    durably on disk; ids are `file-...`. Over the configured size limit -> 413.

    Args:
        x_request_id (str | Unset):
        body (CreateFileRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | FileObject
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            x_request_id=x_request_id,
        )
    ).parsed
