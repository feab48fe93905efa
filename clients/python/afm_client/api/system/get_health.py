from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.health import Health
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/health",
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorResponse | Health | None:
    if response.status_code == 200:
        response_200 = Health.from_dict(response.json())

        return response_200

    if response.status_code == 500:
        response_500 = ErrorResponse.from_dict(response.json())

        return response_500

    if response.status_code == 503:
        response_503 = Health.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorResponse | Health]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[ErrorResponse | Health]:
    """Server health

     Liveness and backend availability. 200 while the process serves HTTP, except:
    while it drains to stop (after SIGTERM or Ctrl-C, for up to `--shutdown-timeout`
    seconds) it answers 503 with `status: draining` and `Retry-After`, so a load balancer
    stops sending; and a sharded server (started by `mlx.launch`, see `sharding`) whose
    group has failed (a rank died or stopped answering) answers 503 from then until rank 0
    exits (about a second) with `status: unavailable`, `sharding.status: failed` and
    `Retry-After`; every rank must then be restarted.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | Health]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
) -> ErrorResponse | Health | None:
    """Server health

     Liveness and backend availability. 200 while the process serves HTTP, except:
    while it drains to stop (after SIGTERM or Ctrl-C, for up to `--shutdown-timeout`
    seconds) it answers 503 with `status: draining` and `Retry-After`, so a load balancer
    stops sending; and a sharded server (started by `mlx.launch`, see `sharding`) whose
    group has failed (a rank died or stopped answering) answers 503 from then until rank 0
    exits (about a second) with `status: unavailable`, `sharding.status: failed` and
    `Retry-After`; every rank must then be restarted.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | Health
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[ErrorResponse | Health]:
    """Server health

     Liveness and backend availability. 200 while the process serves HTTP, except:
    while it drains to stop (after SIGTERM or Ctrl-C, for up to `--shutdown-timeout`
    seconds) it answers 503 with `status: draining` and `Retry-After`, so a load balancer
    stops sending; and a sharded server (started by `mlx.launch`, see `sharding`) whose
    group has failed (a rank died or stopped answering) answers 503 from then until rank 0
    exits (about a second) with `status: unavailable`, `sharding.status: failed` and
    `Retry-After`; every rank must then be restarted.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | Health]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
) -> ErrorResponse | Health | None:
    """Server health

     Liveness and backend availability. 200 while the process serves HTTP, except:
    while it drains to stop (after SIGTERM or Ctrl-C, for up to `--shutdown-timeout`
    seconds) it answers 503 with `status: draining` and `Retry-After`, so a load balancer
    stops sending; and a sharded server (started by `mlx.launch`, see `sharding`) whose
    group has failed (a rank died or stopped answering) answers 503 from then until rank 0
    exits (about a second) with `status: unavailable`, `sharding.status: failed` and
    `Retry-After`; every rank must then be restarted.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | Health
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
