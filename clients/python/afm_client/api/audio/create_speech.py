from http import HTTPStatus
from io import BytesIO
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.speech_request import SpeechRequest
from ...types import UNSET, File, Response, Unset


def _get_kwargs(
    *,
    body: SpeechRequest,
    x_request_id: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_request_id, Unset):
        headers["X-Request-ID"] = x_request_id

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/audio/speech",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorResponse | File | None:
    if response.status_code == 200:
        response_200 = File(payload=BytesIO(response.content))

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

    if response.status_code == 503:
        response_503 = ErrorResponse.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorResponse | File]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: SpeechRequest,
    x_request_id: str | Unset = UNSET,
) -> Response[ErrorResponse | File]:
    """Synthesize speech

     Speaks `input` with a Piper voice (`--tts-voice`; the shipped default is
    `en_US-joe-medium`, 22,050 Hz mono). `voice` names a voice of `GET /v1/audio/voices`;
    OpenAI's built-in names (`alloy`, `nova`, ...) and `default` take the server's default
    voice; another name is a 400. `speed` scales the speaking rate. `model` and
    `instructions` are accepted and not used.

    `response_format`: `wav` (16-bit PCM, the default), `pcm` (raw 16-bit little-endian mono
    at the voice's rate, named in `X-Sample-Rate`), and `mp3`, `opus` (Ogg), `aac` (ADTS),
    `flac` through FFmpeg's encoders (PyAV); a server whose PyAV lacks an encoder answers
    400 for that format. `pcm`, `mp3`, `opus` and `aac` stream: each sentence is sent as soon as
    it is synthesized and encoded (chunked transfer); `wav` and `flac`, whose headers carry
    the length, are sent whole.
    `stream_format: sse` (with `pcm`) sends `speech.audio.delta` events (base64 samples),
    then `speech.audio.done`, each named by its type; the stream then ends.

    Jobs share the speech worker with transcription (503 `server_busy` with `Retry-After`
    when its queue is full). A server without a voice validates the request, then answers
    503 `speech_unavailable`.

    Args:
        x_request_id (str | Unset):
        body (SpeechRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | File]
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
    body: SpeechRequest,
    x_request_id: str | Unset = UNSET,
) -> ErrorResponse | File | None:
    """Synthesize speech

     Speaks `input` with a Piper voice (`--tts-voice`; the shipped default is
    `en_US-joe-medium`, 22,050 Hz mono). `voice` names a voice of `GET /v1/audio/voices`;
    OpenAI's built-in names (`alloy`, `nova`, ...) and `default` take the server's default
    voice; another name is a 400. `speed` scales the speaking rate. `model` and
    `instructions` are accepted and not used.

    `response_format`: `wav` (16-bit PCM, the default), `pcm` (raw 16-bit little-endian mono
    at the voice's rate, named in `X-Sample-Rate`), and `mp3`, `opus` (Ogg), `aac` (ADTS),
    `flac` through FFmpeg's encoders (PyAV); a server whose PyAV lacks an encoder answers
    400 for that format. `pcm`, `mp3`, `opus` and `aac` stream: each sentence is sent as soon as
    it is synthesized and encoded (chunked transfer); `wav` and `flac`, whose headers carry
    the length, are sent whole.
    `stream_format: sse` (with `pcm`) sends `speech.audio.delta` events (base64 samples),
    then `speech.audio.done`, each named by its type; the stream then ends.

    Jobs share the speech worker with transcription (503 `server_busy` with `Retry-After`
    when its queue is full). A server without a voice validates the request, then answers
    503 `speech_unavailable`.

    Args:
        x_request_id (str | Unset):
        body (SpeechRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | File
    """

    return sync_detailed(
        client=client,
        body=body,
        x_request_id=x_request_id,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: SpeechRequest,
    x_request_id: str | Unset = UNSET,
) -> Response[ErrorResponse | File]:
    """Synthesize speech

     Speaks `input` with a Piper voice (`--tts-voice`; the shipped default is
    `en_US-joe-medium`, 22,050 Hz mono). `voice` names a voice of `GET /v1/audio/voices`;
    OpenAI's built-in names (`alloy`, `nova`, ...) and `default` take the server's default
    voice; another name is a 400. `speed` scales the speaking rate. `model` and
    `instructions` are accepted and not used.

    `response_format`: `wav` (16-bit PCM, the default), `pcm` (raw 16-bit little-endian mono
    at the voice's rate, named in `X-Sample-Rate`), and `mp3`, `opus` (Ogg), `aac` (ADTS),
    `flac` through FFmpeg's encoders (PyAV); a server whose PyAV lacks an encoder answers
    400 for that format. `pcm`, `mp3`, `opus` and `aac` stream: each sentence is sent as soon as
    it is synthesized and encoded (chunked transfer); `wav` and `flac`, whose headers carry
    the length, are sent whole.
    `stream_format: sse` (with `pcm`) sends `speech.audio.delta` events (base64 samples),
    then `speech.audio.done`, each named by its type; the stream then ends.

    Jobs share the speech worker with transcription (503 `server_busy` with `Retry-After`
    when its queue is full). A server without a voice validates the request, then answers
    503 `speech_unavailable`.

    Args:
        x_request_id (str | Unset):
        body (SpeechRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | File]
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
    body: SpeechRequest,
    x_request_id: str | Unset = UNSET,
) -> ErrorResponse | File | None:
    """Synthesize speech

     Speaks `input` with a Piper voice (`--tts-voice`; the shipped default is
    `en_US-joe-medium`, 22,050 Hz mono). `voice` names a voice of `GET /v1/audio/voices`;
    OpenAI's built-in names (`alloy`, `nova`, ...) and `default` take the server's default
    voice; another name is a 400. `speed` scales the speaking rate. `model` and
    `instructions` are accepted and not used.

    `response_format`: `wav` (16-bit PCM, the default), `pcm` (raw 16-bit little-endian mono
    at the voice's rate, named in `X-Sample-Rate`), and `mp3`, `opus` (Ogg), `aac` (ADTS),
    `flac` through FFmpeg's encoders (PyAV); a server whose PyAV lacks an encoder answers
    400 for that format. `pcm`, `mp3`, `opus` and `aac` stream: each sentence is sent as soon as
    it is synthesized and encoded (chunked transfer); `wav` and `flac`, whose headers carry
    the length, are sent whole.
    `stream_format: sse` (with `pcm`) sends `speech.audio.delta` events (base64 samples),
    then `speech.audio.done`, each named by its type; the stream then ends.

    Jobs share the speech worker with transcription (503 `server_busy` with `Retry-After`
    when its queue is full). A server without a voice validates the request, then answers
    503 `speech_unavailable`.

    Args:
        x_request_id (str | Unset):
        body (SpeechRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | File
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            x_request_id=x_request_id,
        )
    ).parsed
