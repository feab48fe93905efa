from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.transcription import Transcription
from ...models.transcription_request import TranscriptionRequest
from ...models.transcription_verbose import TranscriptionVerbose
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: TranscriptionRequest,
    x_request_id: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_request_id, Unset):
        headers["X-Request-ID"] = x_request_id

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/audio/transcriptions",
    }

    _kwargs["files"] = body.to_multipart()

    headers["Content-Type"] = "multipart/form-data; boundary=+++"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | Transcription | TranscriptionVerbose | None:
    if response.status_code == 200:

        def _parse_response_200(data: object) -> Transcription | TranscriptionVerbose:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                response_200_type_0 = Transcription.from_dict(data)

                return response_200_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            response_200_type_1 = TranscriptionVerbose.from_dict(data)

            return response_200_type_1

        response_200 = _parse_response_200(response.json())

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
) -> Response[ErrorResponse | Transcription | TranscriptionVerbose]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: TranscriptionRequest,
    x_request_id: str | Unset = UNSET,
) -> Response[ErrorResponse | Transcription | TranscriptionVerbose]:
    """Transcribe audio

     Transcribes the uploaded audio (any container and codec FFmpeg decodes: wav, mp3, ogg,
    flac, m4a, webm, ...) with the server's Whisper model (`--speech-model`; the shipped
    default is Whisper tiny.en). `model` may name anything: a server runs one transcription
    model. `language` is an ISO 639-1 code (a region suffix such as `en-US` is dropped);
    unknown codes, and a language other than English for an English-only model, get 400.
    `temperature` 0 (or absent) decodes greedily with Whisper's fallback to higher
    temperatures; above 0 it samples at that temperature. `prompt` conditions the first
    window.

    `response_format`: `json` (`Transcription`), `text`, `srt`, `vtt` (plain text bodies),
    `verbose_json` (`TranscriptionVerbose`, with segments, their timestamps in seconds, and
    with `timestamp_granularities[]=word` the words). `stream=true` (with `json` or `text`)
    answers `text/event-stream`: a `transcript.text.delta` event per segment as it is
    decoded, then `transcript.text.done` with the whole text; the stream then ends (no
    `[DONE]`); each event is named by its type (`event: transcript.text.delta`).

    Audio that cannot be decoded, holds no samples, or is not audio at all is a 400. Jobs run
    one at a time on the speech worker; past `--speech-queue` waiting jobs the answer is 503
    `server_busy` with `Retry-After`. A server without a transcription model (`--no-speech`,
    or the models never fetched) validates the request, then answers 503
    `speech_unavailable`.

    Args:
        x_request_id (str | Unset):
        body (TranscriptionRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | Transcription | TranscriptionVerbose]
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
    body: TranscriptionRequest,
    x_request_id: str | Unset = UNSET,
) -> ErrorResponse | Transcription | TranscriptionVerbose | None:
    """Transcribe audio

     Transcribes the uploaded audio (any container and codec FFmpeg decodes: wav, mp3, ogg,
    flac, m4a, webm, ...) with the server's Whisper model (`--speech-model`; the shipped
    default is Whisper tiny.en). `model` may name anything: a server runs one transcription
    model. `language` is an ISO 639-1 code (a region suffix such as `en-US` is dropped);
    unknown codes, and a language other than English for an English-only model, get 400.
    `temperature` 0 (or absent) decodes greedily with Whisper's fallback to higher
    temperatures; above 0 it samples at that temperature. `prompt` conditions the first
    window.

    `response_format`: `json` (`Transcription`), `text`, `srt`, `vtt` (plain text bodies),
    `verbose_json` (`TranscriptionVerbose`, with segments, their timestamps in seconds, and
    with `timestamp_granularities[]=word` the words). `stream=true` (with `json` or `text`)
    answers `text/event-stream`: a `transcript.text.delta` event per segment as it is
    decoded, then `transcript.text.done` with the whole text; the stream then ends (no
    `[DONE]`); each event is named by its type (`event: transcript.text.delta`).

    Audio that cannot be decoded, holds no samples, or is not audio at all is a 400. Jobs run
    one at a time on the speech worker; past `--speech-queue` waiting jobs the answer is 503
    `server_busy` with `Retry-After`. A server without a transcription model (`--no-speech`,
    or the models never fetched) validates the request, then answers 503
    `speech_unavailable`.

    Args:
        x_request_id (str | Unset):
        body (TranscriptionRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | Transcription | TranscriptionVerbose
    """

    return sync_detailed(
        client=client,
        body=body,
        x_request_id=x_request_id,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: TranscriptionRequest,
    x_request_id: str | Unset = UNSET,
) -> Response[ErrorResponse | Transcription | TranscriptionVerbose]:
    """Transcribe audio

     Transcribes the uploaded audio (any container and codec FFmpeg decodes: wav, mp3, ogg,
    flac, m4a, webm, ...) with the server's Whisper model (`--speech-model`; the shipped
    default is Whisper tiny.en). `model` may name anything: a server runs one transcription
    model. `language` is an ISO 639-1 code (a region suffix such as `en-US` is dropped);
    unknown codes, and a language other than English for an English-only model, get 400.
    `temperature` 0 (or absent) decodes greedily with Whisper's fallback to higher
    temperatures; above 0 it samples at that temperature. `prompt` conditions the first
    window.

    `response_format`: `json` (`Transcription`), `text`, `srt`, `vtt` (plain text bodies),
    `verbose_json` (`TranscriptionVerbose`, with segments, their timestamps in seconds, and
    with `timestamp_granularities[]=word` the words). `stream=true` (with `json` or `text`)
    answers `text/event-stream`: a `transcript.text.delta` event per segment as it is
    decoded, then `transcript.text.done` with the whole text; the stream then ends (no
    `[DONE]`); each event is named by its type (`event: transcript.text.delta`).

    Audio that cannot be decoded, holds no samples, or is not audio at all is a 400. Jobs run
    one at a time on the speech worker; past `--speech-queue` waiting jobs the answer is 503
    `server_busy` with `Retry-After`. A server without a transcription model (`--no-speech`,
    or the models never fetched) validates the request, then answers 503
    `speech_unavailable`.

    Args:
        x_request_id (str | Unset):
        body (TranscriptionRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | Transcription | TranscriptionVerbose]
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
    body: TranscriptionRequest,
    x_request_id: str | Unset = UNSET,
) -> ErrorResponse | Transcription | TranscriptionVerbose | None:
    """Transcribe audio

     Transcribes the uploaded audio (any container and codec FFmpeg decodes: wav, mp3, ogg,
    flac, m4a, webm, ...) with the server's Whisper model (`--speech-model`; the shipped
    default is Whisper tiny.en). `model` may name anything: a server runs one transcription
    model. `language` is an ISO 639-1 code (a region suffix such as `en-US` is dropped);
    unknown codes, and a language other than English for an English-only model, get 400.
    `temperature` 0 (or absent) decodes greedily with Whisper's fallback to higher
    temperatures; above 0 it samples at that temperature. `prompt` conditions the first
    window.

    `response_format`: `json` (`Transcription`), `text`, `srt`, `vtt` (plain text bodies),
    `verbose_json` (`TranscriptionVerbose`, with segments, their timestamps in seconds, and
    with `timestamp_granularities[]=word` the words). `stream=true` (with `json` or `text`)
    answers `text/event-stream`: a `transcript.text.delta` event per segment as it is
    decoded, then `transcript.text.done` with the whole text; the stream then ends (no
    `[DONE]`); each event is named by its type (`event: transcript.text.delta`).

    Audio that cannot be decoded, holds no samples, or is not audio at all is a 400. Jobs run
    one at a time on the speech worker; past `--speech-queue` waiting jobs the answer is 503
    `server_busy` with `Retry-After`. A server without a transcription model (`--no-speech`,
    or the models never fetched) validates the request, then answers 503
    `speech_unavailable`.

    Args:
        x_request_id (str | Unset):
        body (TranscriptionRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | Transcription | TranscriptionVerbose
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            x_request_id=x_request_id,
        )
    ).parsed
