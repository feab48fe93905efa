"""GGUF block types as the native kernel's affine codes, bit for bit (HTTP-free, numpy only).

Every block type here is affine within a sub-block, ``w = scale * q + bias`` with integer
codes ``q``, so its codes are kept exactly as stored and only the per-sub-block scale and
bias are spelled out (float32: ``d * sc`` is a float16 times a 6- or 8-bit integer, exact in
float32, not always in float16):

========  =====  =====  ==========================  ===========================
type      bits   group  scale                       bias
========  =====  =====  ==========================  ===========================
Q4_K      4      32     d * sc_j (6-bit sc_j)       -dmin * m_j (6-bit m_j)
Q5_0      5      32     d                           -16 d
Q5_1      5      32     d                           m
Q5_K      5      32     d * sc_j                    -dmin * m_j
Q6_K      6      16     d * sc_j (int8 sc_j)        -32 d * sc_j
========  =====  =====  ==========================  ===========================

4-bit codes are packed as MLX packs them (code k in bits 4 (k % 8) of uint32 word k / 8);
5- and 6-bit codes in the kernel's planar layout (``native/afm_qmm/qmm_api.h``): the low
nibbles as at 4 bits, then a plane of high bits. :func:`dequantize` reads any of them back
(tests, and layers run without the native extension).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

QK_K = 256

KEPT_TYPES: dict[str, tuple[int, int]] = {
    "Q4_K": (4, 32),
    "Q5_0": (5, 32),
    "Q5_1": (5, 32),
    "Q5_K": (5, 32),
    "Q6_K": (6, 16),
}
"""GGUF type name -> (bits, group size) of the kernel format its codes are kept in."""

_BLOCK_BYTES = {"Q4_K": 144, "Q5_0": 22, "Q5_1": 24, "Q5_K": 176, "Q6_K": 210}
_BLOCK_VALUES = {"Q4_K": QK_K, "Q5_0": 32, "Q5_1": 32, "Q5_K": QK_K, "Q6_K": QK_K}


@dataclass
class Codes:
    """A tensor's integer codes with one scale and bias per group (float32)."""

    q: np.ndarray  # uint8 [rows, cols]
    scales: np.ndarray  # float32 [rows, cols / group]
    biases: np.ndarray  # float32 [rows, cols / group]
    bits: int
    group: int


def _f16(raw: np.ndarray) -> np.ndarray:
    """Two-byte columns (last axis 2) as float32 values of their float16 bit patterns."""
    return np.ascontiguousarray(raw).view(np.float16)[..., 0].astype(np.float32)


def _k_scales(packed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Q4_K/Q5_K's 12 bytes a super-block -> eight 6-bit scales and eight 6-bit mins.

    Bytes 0-3 hold scales 0-3 (low 6 bits) and the top 2 bits of scales 4-7; bytes 4-7 the same
    for the mins; bytes 8-11 the low 4 bits of scales 4-7 (low nibble) and mins 4-7 (high).
    """
    b = packed.reshape(*packed.shape[:-1], 3, 4)
    lo, mid, top = b[..., 0, :], b[..., 1, :], b[..., 2, :]
    sc = np.concatenate([lo & 0x3F, (top & 0x0F) | ((lo >> 6) << 4)], axis=-1)
    mn = np.concatenate([mid & 0x3F, (top >> 4) | ((mid >> 6) << 4)], axis=-1)
    return sc, mn


def _nibbles32(qs: np.ndarray) -> np.ndarray:
    """32 bytes -> 64 codes: the 32 low nibbles, then the 32 high ones (ggml's K-quant order)."""
    return np.concatenate([qs & 0x0F, qs >> 4], axis=-1)


def decode(raw: np.ndarray, type_name: str) -> Codes:
    """The codes, scales and biases of a GGUF tensor's raw bytes ``[rows, bytes per row]``."""
    bits, group = KEPT_TYPES[type_name]
    rows = raw.shape[0]
    blocks = np.ascontiguousarray(raw, dtype=np.uint8).reshape(rows, -1, _BLOCK_BYTES[type_name])
    if type_name in ("Q5_0", "Q5_1"):
        d = _f16(blocks[..., 0:2])
        at = 2 if type_name == "Q5_0" else 4
        bias = d * -16.0 if type_name == "Q5_0" else _f16(blocks[..., 2:4])
        qh = np.ascontiguousarray(blocks[..., at:at + 4]).view(np.uint32)  # [rows, nb, 1]
        high = ((qh >> np.arange(32, dtype=np.uint32)) & 1).astype(np.uint8)  # value j: bit j
        q = _nibbles16(blocks[..., at + 4:at + 20]) | (high << 4)
        return _codes(q, d, bias, bits, group)
    if type_name in ("Q4_K", "Q5_K"):
        d, dmin = _f16(blocks[..., 0:2]), _f16(blocks[..., 2:4])
        sc, mn = _k_scales(blocks[..., 4:16])
        scale = d[..., None] * sc.astype(np.float32)  # [rows, nb, 8]
        bias = -(dmin[..., None] * mn.astype(np.float32))
        if type_name == "Q4_K":
            qs = blocks[..., 16:144].reshape(rows, -1, 4, 32)
            q = _nibbles32(qs)  # [rows, nb, 4, 64]: sub-blocks 2i (low) and 2i + 1 (high)
        else:
            qh = blocks[..., 16:48]  # [rows, nb, 32]: bit 2i / 2i + 1 of byte l -> sub-block
            qs = blocks[..., 48:176].reshape(rows, -1, 4, 32)
            shifts = np.arange(8, dtype=np.uint8).reshape(4, 2, 1)
            high = (qh[..., None, None, :] >> shifts) & 1  # [rows, nb, 4, 2, 32]
            q = _nibbles32(qs) | (high.reshape(rows, -1, 4, 64) << 4)
        return _codes(q, scale, bias, bits, group)
    # Q6_K: ql[128], qh[64], int8 scales[16], d; two halves of 128 values each
    ql = blocks[..., 0:128].reshape(rows, -1, 2, 2, 32)  # [.., half, first/second 32 bytes, l]
    qh = blocks[..., 128:192].reshape(rows, -1, 2, 1, 32)
    sc = np.ascontiguousarray(blocks[..., 192:208]).view(np.int8).astype(np.float32)
    d = _f16(blocks[..., 208:210])
    low = np.stack([ql[..., 0, :] & 0x0F, ql[..., 1, :] & 0x0F,
                    ql[..., 0, :] >> 4, ql[..., 1, :] >> 4], axis=-2)  # [rows, nb, 2, 4, 32]
    high = (qh >> np.array([0, 2, 4, 6], dtype=np.uint8).reshape(4, 1)) & 3
    q = low | (high << 4)
    scale = d[..., None] * sc  # [rows, nb, 16]
    return _codes(q, scale, scale * -32.0, bits, group)


def _nibbles16(qs: np.ndarray) -> np.ndarray:
    """Q5_0/Q5_1's 16 bytes -> 32 low nibbles: values 0-15 low, 16-31 high."""
    return np.concatenate([qs & 0x0F, qs >> 4], axis=-1)


def _codes(q: np.ndarray, scale: np.ndarray, bias: np.ndarray, bits: int, group: int) -> Codes:
    rows = q.shape[0]
    return Codes(q.reshape(rows, -1).astype(np.uint8),
                 np.ascontiguousarray(scale.reshape(rows, -1), dtype=np.float32),
                 np.ascontiguousarray(bias.reshape(rows, -1), dtype=np.float32), bits, group)


# ------------------------------------------------------------------------------- packing
def pack(q: np.ndarray, bits: int) -> np.ndarray:
    """Codes ``[rows, cols]`` as the kernel's uint32 words ``[rows, cols * bits / 32]``:
    MLX's packing at 4 and 8 bits, the planar layout at 5 and 6."""
    q = np.ascontiguousarray(q, dtype=np.uint8)
    rows, cols = q.shape
    if bits == 8:
        return q.view(np.uint32)
    low = (q[:, 0::2] & 0x0F) | ((q[:, 1::2] & 0x0F) << 4)  # [rows, cols / 2]
    if bits == 4:
        return np.ascontiguousarray(low).view(np.uint32)
    high = (q >> 4).reshape(rows, cols // 8, 8).astype(np.uint16)
    if bits == 5:
        plane = ((high & 1) << np.arange(8, dtype=np.uint16)).sum(axis=-1).astype(np.uint8)
    elif bits == 6:
        plane16 = ((high & 3) << (2 * np.arange(8, dtype=np.uint16))).sum(axis=-1)
        plane = plane16.astype("<u2").view(np.uint8).reshape(rows, -1)
    else:
        raise ValueError(f"no packing for {bits} bits")
    return np.ascontiguousarray(np.concatenate([low, plane], axis=1)).view(np.uint32)


def unpack(w: np.ndarray, bits: int) -> np.ndarray:
    """The codes ``[rows, cols]`` (uint8) of words made by :func:`pack`."""
    b = np.ascontiguousarray(w).view(np.uint8)
    rows = b.shape[0]
    if bits == 8:
        return b.copy()
    cols = b.shape[1] * 8 // bits
    low = np.stack([b[:, :cols // 2] & 0x0F, b[:, :cols // 2] >> 4], axis=-1).reshape(rows, cols)
    if bits == 4:
        return low
    plane = b[:, cols // 2:]
    if bits == 5:
        high = (plane[..., None] >> np.arange(8, dtype=np.uint8)) & 1
    else:
        p16 = np.ascontiguousarray(plane).view("<u2")
        high = ((p16[..., None] >> (2 * np.arange(8, dtype=np.uint16))) & 3).astype(np.uint8)
    return low | (high.reshape(rows, cols) << 4)


def dequantize(w: np.ndarray, scales: np.ndarray, biases: np.ndarray, group: int,
               bits: int) -> np.ndarray:
    """Float32 weights ``[rows, cols]`` of a packed layer (``scale * q + bias`` per group)."""
    q = unpack(w, bits).astype(np.float32)
    rows, cols = q.shape
    g = q.reshape(rows, cols // group, group)
    s = np.asarray(scales, dtype=np.float32)[..., None]
    b = np.asarray(biases, dtype=np.float32)[..., None]
    return (g * s + b).reshape(rows, cols)
