"""Vision operations (Apple Vision): createOcr.

Off macOS the request is validated (a decodable base64 image), then answered with 503
``vision_unavailable``.
"""

from __future__ import annotations

import base64
import binascii
import platform
from typing import Any

from afm.errors import InvalidRequest, ServiceUnavailable
from generated.models import OcrRequest


def _decode_image(image: str) -> bytes:
    data = image.split(",", 1)[1] if image.startswith("data:") and "," in image else image
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise InvalidRequest("'image' must be a data URL or base64 image", param="image") from exc
    if not raw:
        raise InvalidRequest("'image' is empty", param="image")
    return raw


async def create_ocr(body: dict[str, Any]) -> None:
    _decode_image(OcrRequest.model_validate(body).image)
    raise ServiceUnavailable(
        f"Apple Vision is not available on this host ({platform.system()}); run AFM on macOS "
        "for OCR", type="vision_unavailable", code="vision_unavailable")
