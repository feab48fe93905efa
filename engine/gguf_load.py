"""GGUF files as mlx-lm model folders (HTTP-free).

A ``.gguf`` file (llama.cpp's format) is converted once into a folder mlx-lm's loader reads:
``config.json`` from the file's metadata, tokenizer files (transformers builds them from the
metadata, chat template included) and ``model.safetensors``. The folder is cached under the
model cache, keyed by the file's identity and the conversion settings, and written atomically.

Tensors:

- Q4_0, Q4_1 and Q8_0 become MLX affine quantized triples (group 32, 4 or 8 bits), the very
  values of the file, so they run on AFM's native quantized kernel (``engine.qkernels``).
- Q4_K, Q5_0, Q5_1, Q5_K and Q6_K keep their codes bit for bit too (by default, mode
  ``native``; ``engine.gguf_blocks``): Q4_K as MLX 4-bit group 32 with float32 scales and
  biases (``d * sc`` is exact in float32), the 5- and 6-bit types in the native kernel's planar
  formats (group 32 and 16), listed in ``config.json`` under ``afm_planar`` for
  ``engine.model_load``.
- F32, F16 and BF16 stay as stored (the CPU weight policy casts halves to float32).
- Every other type (Q2_K, Q3_K, IQ*), and with :data:`DEQUANT_ENV` set to ``float32``, ``8bit``
  or ``4bit`` the kept types as well, is dequantized with the ``gguf`` package and then kept as
  float32 (exact; the CPU policy and the parallel BLAS matmul run it), or re-quantized to MLX
  affine ``8bit`` or ``4bit`` (group 32; at 4 bits with float16 scales and biases,
  :func:`requantize`) for the native kernel: opt-ins for comparison. One log line says what was
  done and what it costs in memory.

llama-family files store the Q and K projection rows permuted for llama.cpp's rotary layout;
they are un-permuted here (rows only, so quantized rows, scales and biases move together).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

CONVERTER_VERSION = "1"
REQUANT_VERSION = "3"
"""Bumped when the re-quantized (``8bit``/``4bit``) output changes; float32 copies keep
their cache key."""
DEQUANT_ENV = "AFM_GGUF_DEQUANT"
DEQUANT_MODES = ("native", "float32", "8bit", "4bit")
DEFAULT_DEQUANT = "native"
NATIVE_VERSION = "2"
"""Bumped when the kept-codes (``native``) output changes."""
INFO_FILE = "afm_gguf.json"
GROUP = 32

ARCHITECTURES: dict[str, tuple[str, str]] = {
    "llama": ("llama", "LlamaForCausalLM"),
    "qwen2": ("qwen2", "Qwen2ForCausalLM"),
    "qwen3": ("qwen3", "Qwen3ForCausalLM"),
    "gemma3": ("gemma3_text", "Gemma3ForCausalLM"),
}
"""GGUF ``general.architecture`` -> (mlx-lm model_type, HF architecture)."""

PERMUTED = ("llama",)
"""Architectures whose converter permuted the Q/K rows (llama.cpp's ``LlamaModel.permute``)."""

NATIVE_TYPES = ("Q4_0", "Q4_1", "Q8_0")
FLOAT_TYPES = ("F32", "F16", "BF16")

_LAYER_NAMES = {
    "attn_norm": "input_layernorm",
    "attn_q": "self_attn.q_proj",
    "attn_k": "self_attn.k_proj",
    "attn_v": "self_attn.v_proj",
    "attn_output": "self_attn.o_proj",
    "attn_q_norm": "self_attn.q_norm",
    "attn_k_norm": "self_attn.k_norm",
    "ffn_norm": "post_attention_layernorm",
    "ffn_gate": "mlp.gate_proj",
    "ffn_up": "mlp.up_proj",
    "ffn_down": "mlp.down_proj",
}
_GEMMA3_LAYER_NAMES = {
    **_LAYER_NAMES,
    "post_attention_norm": "post_attention_layernorm",
    "ffn_norm": "pre_feedforward_layernorm",
    "post_ffw_norm": "post_feedforward_layernorm",
}
_TOP_NAMES = {
    "token_embd": "model.embed_tokens",
    "output_norm": "model.norm",
    "output": "lm_head",
}


class GGUFError(ValueError):
    """A GGUF file this loader cannot serve; the message is one line saying why."""


def dequant_mode() -> str:
    """How tensor types other than Q4_0/Q4_1/Q8_0 are stored: :data:`DEQUANT_ENV` or the
    default (``native``: codes kept where the kernel has a format for them)."""
    mode = os.environ.get(DEQUANT_ENV, "").strip() or DEFAULT_DEQUANT
    if mode not in DEQUANT_MODES:
        raise GGUFError(f"{DEQUANT_ENV}={mode!r}: choose one of {', '.join(DEQUANT_MODES)}")
    return mode


# ------------------------------------------------------------------------------- metadata
@dataclass
class GGUFInfo:
    """What start-up needs to know about a GGUF file, read from its header only."""

    path: Path
    architecture: str
    metadata: dict[str, Any]
    tensor_types: dict[str, int] = field(default_factory=dict)
    """Tensor type name -> number of tensors."""


def _reader(path: Path) -> Any:
    from gguf import GGUFReader

    try:
        return GGUFReader(str(path))
    except Exception as exc:  # noqa: BLE001 - any parse failure is one line
        raise GGUFError(f"{path.name} is not a readable GGUF file ({type(exc).__name__}: "
                        f"{str(exc).strip().splitlines()[0] if str(exc).strip() else ''})"
                        ) from None


def _metadata(reader: Any) -> dict[str, Any]:
    skip = ("tokenizer.ggml.tokens", "tokenizer.ggml.scores", "tokenizer.ggml.token_type",
            "tokenizer.ggml.merges")
    out: dict[str, Any] = {}
    for key, fld in reader.fields.items():
        if key in skip or key.startswith("GGUF."):
            continue
        try:
            out[key] = fld.contents()
        except Exception:  # noqa: BLE001 - an odd field is not needed
            continue
    return out


def inspect(path: str | Path) -> GGUFInfo:
    """Read a GGUF file's header and check that this loader serves it; raises
    :class:`GGUFError` (one line) for an unsupported architecture, tensor type or layout."""
    import gguf.quants

    path = Path(path)
    reader = _reader(path)
    meta = _metadata(reader)
    arch = str(meta.get("general.architecture", ""))
    if arch not in ARCHITECTURES:
        raise GGUFError(f"{path.name} has architecture {arch or '(none)'!r}, which the GGUF "
                        f"loader does not support (supported: {', '.join(ARCHITECTURES)})")
    types: dict[str, int] = {}
    dequantizable = {t.name for t in gguf.quants._type_traits}
    for t in reader.tensors:
        name = t.tensor_type.name
        types[name] = types.get(name, 0) + 1
        if name not in NATIVE_TYPES + FLOAT_TYPES and name not in dequantizable:
            raise GGUFError(f"{path.name}: tensor {t.name} has type {name}, which the GGUF "
                            "loader cannot read")
        if t.name == "rope_freqs.weight":
            raise GGUFError(f"{path.name}: llama3-style rope scaling (rope_freqs) is not "
                            "supported by the GGUF loader")
        if len(t.shape) > 2:
            raise GGUFError(f"{path.name}: tensor {t.name} has {len(t.shape)} dimensions "
                            "(mixture-of-experts files are not supported by the GGUF loader)")
    if meta.get("split.count", 1) not in (0, 1):
        raise GGUFError(f"{path.name} is one shard of a split GGUF file; merge it first "
                        "(llama-gguf-split --merge FIRST.gguf OUT.gguf) and pass the merged file")
    return GGUFInfo(path, arch, meta, types)


def model_config(info: GGUFInfo, tensors: dict[str, Any]) -> dict[str, Any]:
    """The HF/mlx-lm ``config.json`` of a GGUF file (``tensors``: the converted names)."""
    meta, arch = info.metadata, info.architecture
    model_type, hf_arch = ARCHITECTURES[arch]

    def get(key: str, default: Any = None) -> Any:
        return meta.get(f"{arch}.{key}", default)

    hidden = int(get("embedding_length"))
    heads = int(get("attention.head_count"))
    kv_heads = int(get("attention.head_count_kv", heads))
    head_dim = int(get("attention.key_length", hidden // heads))
    embed = tensors["model.embed_tokens.weight"]
    vocab = int(embed.shape[0])
    config: dict[str, Any] = {
        "architectures": [hf_arch],
        "model_type": model_type,
        "hidden_size": hidden,
        "num_hidden_layers": int(get("block_count")),
        "intermediate_size": int(get("feed_forward_length")),
        "num_attention_heads": heads,
        "num_key_value_heads": kv_heads,
        "head_dim": head_dim,
        "rms_norm_eps": float(get("attention.layer_norm_rms_epsilon", 1e-6)),
        "rope_theta": float(get("rope.freq_base", 10000.0)),
        "max_position_embeddings": int(get("context_length", 4096)),
        "vocab_size": vocab,
        "tie_word_embeddings": "lm_head.weight" not in tensors,
    }
    if arch == "llama":
        config["attention_bias"] = "model.layers.0.self_attn.q_proj.bias" in tensors
        config["mlp_bias"] = False
    if arch == "gemma3":
        config["query_pre_attn_scalar"] = head_dim
        config["sliding_window"] = int(get("attention.sliding_window", 512))
        config["rope_local_base_freq"] = 10000.0
    scaling = get("rope.scaling.type")
    if scaling not in (None, "none"):
        factor = float(get("rope.scaling.factor", 1.0))
        if scaling != "linear":
            raise GGUFError(f"{info.path.name}: rope scaling {scaling!r} is not supported by "
                            "the GGUF loader")
        config["rope_scaling"] = {"type": "linear", "factor": factor}
    for key in ("tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id"):
        if key in meta:
            config[key.rsplit(".", 1)[1]] = int(meta[key])
    return config


# ------------------------------------------------------------------------------- tensors
def hf_name(gguf_name: str, arch: str) -> str | None:
    """The HF/mlx-lm name of a GGUF tensor (None: not a model parameter, e.g. rope tables)."""
    stem, _, suffix = gguf_name.rpartition(".")
    if stem in _TOP_NAMES:
        return f"{_TOP_NAMES[stem]}.{suffix}"
    parts = stem.split(".")
    if len(parts) == 3 and parts[0] == "blk" and parts[1].isdigit():
        table = _GEMMA3_LAYER_NAMES if arch == "gemma3" else _LAYER_NAMES
        if parts[2] in table:
            return f"model.layers.{parts[1]}.{table[parts[2]]}.{suffix}"
    return None


def unpermute(w: np.ndarray, n_heads: int) -> np.ndarray:
    """Undo llama.cpp's rotary row permutation of a Q or K projection (rows: axis 0)."""
    rows = w.shape[0]
    return (w.reshape(n_heads, rows // n_heads // 2, 2, *w.shape[1:])
            .swapaxes(1, 2).reshape(w.shape))


def _pack(q: np.ndarray, bits: int) -> np.ndarray:
    """MLX affine packing of unsigned integer codes ``q`` (rows, cols) into uint32 words."""
    q = q.astype(np.uint8)
    if bits == 4:
        q = q[..., 0::2] | (q[..., 1::2] << 4)
    return np.ascontiguousarray(q).view(np.uint32)


def native_triple(raw: np.ndarray, type_name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                            int]:
    """A Q4_0 / Q4_1 / Q8_0 tensor's raw bytes (rows, bytes per row) as the MLX affine
    ``(weight, scales, biases, bits)`` with group size 32, holding the very same values
    (float32 scales and biases: MLX dequantizes in the scales' dtype, and float16 would round
    the products)."""
    rows = raw.shape[0]
    if type_name == "Q8_0":
        blocks = raw.reshape(rows, -1, 34)
        d = blocks[..., :2].copy().view(np.float16)[..., 0].astype(np.float32)
        q = blocks[..., 2:].copy().view(np.int8).astype(np.int16) + 128
        scales, biases, bits = d, d * -128, 8
    else:
        size = 18 if type_name == "Q4_0" else 20
        blocks = raw.reshape(rows, -1, size)
        d = blocks[..., :2].copy().view(np.float16)[..., 0].astype(np.float32)
        if type_name == "Q4_0":
            biases = d * -8
            qs = blocks[..., 2:]
        else:
            biases = blocks[..., 2:4].copy().view(np.float16)[..., 0].astype(np.float32)
            qs = blocks[..., 4:]
        q = np.concatenate([qs & 0x0F, qs >> 4], axis=-1)  # ggml: low nibbles first
        scales, bits = d, 4
    q = q.reshape(rows, -1)
    return _pack(q, bits), scales, biases, bits


def requantize(data: np.ndarray, bits: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A float matrix (rows, cols) as MLX affine ``(weight, scales, biases)``, group 32, whose
    scales and biases are float16 values (stored as float32).

    Per group: the bias is the minimum rounded down to float16, the scale the range over the
    code levels rounded up to float16, so the codes cover the group; codes are rounded to
    nearest. Being float16 values, the kernels keep them as float16 (``halve_scales``): 0.625
    bytes a 4-bit weight instead of 0.75, with the same arithmetic.
    """
    rows, cols = data.shape
    g = data.astype(np.float32).reshape(rows, cols // GROUP, GROUP)
    lo, hi = g.min(axis=-1), g.max(axis=-1)
    levels = float((1 << bits) - 1)
    bias = _f16_toward(lo, down=True)
    scale = _f16_toward((hi - bias) / levels, down=False)
    safe = np.where(scale > 0, scale, 1.0)
    q = np.clip(np.rint((g - bias[..., None]) / safe[..., None]), 0, levels)
    q = np.where((scale > 0)[..., None], q, 0).reshape(rows, cols)
    return _pack(q, bits), scale, bias


def _f16_toward(x: np.ndarray, *, down: bool) -> np.ndarray:
    """``x`` rounded to a float16 value no greater (``down``) or no less than it, as float32."""
    h = x.astype(np.float16)
    wrong = h.astype(np.float32) > x if down else h.astype(np.float32) < x
    toward = np.float16(-np.inf if down else np.inf)
    h = np.where(wrong, np.nextafter(h, toward), h)
    return h.astype(np.float32)


@dataclass
class Converted:
    """The converted tensors and what was done to them."""

    tensors: dict[str, Any]
    quant_bits: dict[str, int]
    """Layer path -> bits of each quantized layer."""
    kept: int = 0
    kept_types: dict[str, int] = field(default_factory=dict)
    """Source type -> number of tensors whose codes were kept."""
    planar: dict[str, dict[str, int]] = field(default_factory=dict)
    """Layer path -> bits and group size of the layers in the planar 5/6-bit formats."""
    quant_groups: dict[str, int] = field(default_factory=dict)
    """Layer path -> group size of MLX-format quantized layers other than 32."""
    dequantized: dict[str, int] = field(default_factory=dict)
    """Source type -> number of tensors dequantized."""
    bytes: int = 0


def convert_tensors(reader: Any, info: GGUFInfo, mode: str) -> Converted:
    """Every model tensor of the file, under its HF/mlx-lm name, as MLX arrays."""
    import gguf.quants
    import mlx.core as mx

    from engine import gguf_blocks

    arch = info.architecture
    heads = int(info.metadata[f"{arch}.attention.head_count"])
    kv_heads = int(info.metadata.get(f"{arch}.attention.head_count_kv", heads))
    out = Converted({}, {})

    def put(name: str, value: np.ndarray | Any) -> None:
        arr = value if isinstance(value, mx.array) else mx.array(value)
        out.tensors[name] = arr
        out.bytes += arr.nbytes

    for t in reader.tensors:
        name = hf_name(t.name, arch)
        if name is None:
            continue
        type_name = t.tensor_type.name
        perm = 0
        if arch in PERMUTED and name.endswith(("q_proj.weight", "q_proj.bias")):
            perm = heads
        elif arch in PERMUTED and name.endswith(("k_proj.weight", "k_proj.bias")):
            perm = kv_heads
        layer = name.rsplit(".", 1)[0]
        if type_name in NATIVE_TYPES:
            w, s, b, bits = native_triple(np.asarray(t.data), type_name)
            if perm:
                w, s, b = (unpermute(a, perm) for a in (w, s, b))
            put(name, w)
            put(f"{layer}.scales", s)
            put(f"{layer}.biases", b)
            out.quant_bits[layer] = bits
            out.kept += 1
            out.kept_types[type_name] = out.kept_types.get(type_name, 0) + 1
            continue
        if type_name in gguf_blocks.KEPT_TYPES and mode == "native" and len(t.shape) == 2:
            codes = gguf_blocks.decode(np.asarray(t.data), type_name)
            q, s, b = codes.q, codes.scales, codes.biases
            if perm:
                q, s, b = (unpermute(a, perm) for a in (q, s, b))
            put(name, gguf_blocks.pack(q, codes.bits))
            put(f"{layer}.scales", s)
            put(f"{layer}.biases", b)
            if codes.bits in (5, 6):
                out.planar[layer] = {"bits": codes.bits, "group_size": codes.group}
            else:
                out.quant_bits[layer] = codes.bits
                if codes.group != GROUP:
                    out.quant_groups[layer] = codes.group
            out.kept += 1
            out.kept_types[type_name] = out.kept_types.get(type_name, 0) + 1
            continue
        if type_name in FLOAT_TYPES:
            data = np.asarray(t.data)
            if type_name == "BF16":
                data = gguf.quants.dequantize(data, t.tensor_type)
        else:
            data = gguf.quants.dequantize(np.asarray(t.data), t.tensor_type)
            out.dequantized[type_name] = out.dequantized.get(type_name, 0) + 1
        data = np.asarray(data).reshape([int(d) for d in reversed(t.shape.tolist())])
        if arch == "gemma3" and name.endswith("norm.weight"):
            data = data.astype(np.float32) - 1.0  # llama.cpp stores Gemma's (1 + w)
        if perm:
            data = unpermute(data, perm)
        if type_name not in FLOAT_TYPES and mode in ("8bit", "4bit") and data.ndim == 2 \
                and data.shape[1] % GROUP == 0:
            bits = 8 if mode == "8bit" else 4
            if bits == 4:
                w, s, b = requantize(data, bits)
            else:  # float32 scales: on the 0.5B file float16 ones cost fidelity (README)
                w, s, b = mx.quantize(mx.array(data.astype(np.float32)), group_size=GROUP,
                                      bits=bits)
            put(name, w)
            put(f"{layer}.scales", s)
            put(f"{layer}.biases", b)
            out.quant_bits[layer] = bits
            continue
        put(name, data.astype(np.float32) if type_name not in FLOAT_TYPES else data)
    return out


# ------------------------------------------------------------------------------- tokenizer
def save_tokenizer(path: Path, folder: Path, meta: dict[str, Any]) -> list[int]:
    """Tokenizer files (and chat template) from the GGUF metadata into ``folder``; returns
    the stop token ids: the file's eos plus the template's end-of-turn token."""
    from transformers import AutoTokenizer
    from transformers.utils import logging as hf_logging

    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    try:
        tok = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
    finally:
        hf_logging.set_verbosity(verbosity)
    template = meta.get("tokenizer.chat_template")
    if isinstance(template, str) and template:
        tok.chat_template = template
    tok.save_pretrained(str(folder))
    stops: list[int] = []
    eos = meta.get("tokenizer.ggml.eos_token_id")
    if eos is not None:
        stops.append(int(eos))
    vocab = tok.get_vocab()
    text = template if isinstance(template, str) else ""
    for marker in ("<|im_end|>", "<|eot_id|>", "<end_of_turn>", "<|end|>", "<|endoftext|>"):
        wanted = marker in text or marker == "<|endoftext|>"
        if wanted and marker in vocab and vocab[marker] not in stops:
            stops.append(vocab[marker])
    return stops


# ------------------------------------------------------------------------------- cache
def cache_root() -> Path:
    """Where converted folders live: ``$AFM_CACHE_DIR/gguf`` or the user cache's."""
    from modelbuilder import default_cache_dir

    return default_cache_dir() / "gguf"


def cache_key(path: Path, mode: str) -> str:
    """Identity of a file and the conversion settings: resolved path, size, mtime."""
    st = path.stat()
    version = {"float32": CONVERTER_VERSION, "native": f"{CONVERTER_VERSION}.n{NATIVE_VERSION}"
               }.get(mode, f"{CONVERTER_VERSION}.{REQUANT_VERSION}")
    payload = json.dumps([version, str(path.resolve()), st.st_size, st.st_mtime_ns, mode])
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def cached_folder(path: str | Path, mode: str | None = None) -> Path:
    """Where the converted copy of ``path`` is (or would be) cached."""
    path = Path(path)
    mode = mode or dequant_mode()
    return cache_root() / f"{path.stem}-{cache_key(path, mode)}"


def ensure_converted(path: str | Path, mode: str | None = None) -> Path:
    """The mlx-lm folder of a GGUF file: from the cache, else converted now (atomically)."""
    path = Path(path).expanduser().resolve()
    mode = mode or dequant_mode()
    target = cached_folder(path, mode)
    if (target / INFO_FILE).is_file():
        try:
            summary = json.loads((target / INFO_FILE).read_text())["summary"]
        except (OSError, ValueError, KeyError):
            summary = "converted earlier"
        log.info("GGUF %s: %s (cached in %s)", path.name, summary, target)
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        summary = convert(path, tmp, mode)
        tmp.chmod(0o755)
        try:
            tmp.rename(target)
        except OSError:  # another process finished first
            if not (target / INFO_FILE).is_file():
                raise
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    log.info("GGUF %s: %s", path.name, summary)
    return target


def convert(path: Path, folder: Path, mode: str) -> str:
    """Write the mlx-lm folder of GGUF ``path`` into ``folder``; returns the one-line summary
    (what was kept, what was dequantized, the memory it takes)."""
    import mlx.core as mx

    info = inspect(path)
    reader = _reader(path)
    conv = convert_tensors(reader, info, mode)
    config = model_config(info, conv.tensors)
    if conv.quant_bits:
        config["quantization"] = {"group_size": GROUP, "bits": 4, "mode": "affine",
                                  **{layer: {"group_size": conv.quant_groups.get(layer, GROUP),
                                             "bits": bits}
                                     for layer, bits in conv.quant_bits.items()}}
    if conv.planar:
        from engine.model_load import PLANAR_KEY

        config[PLANAR_KEY] = conv.planar
    stops = save_tokenizer(path, folder, info.metadata)
    if stops:
        config["eos_token_id"] = stops
    mx.save_safetensors(str(folder / "model.safetensors"), conv.tensors,
                        metadata={"format": "mlx"})
    (folder / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    summary = describe(conv, mode, path.stat().st_size)
    (folder / INFO_FILE).write_text(json.dumps({
        "converter_version": CONVERTER_VERSION, "source": str(path), "sha256": file_sha256(path),
        "mode": mode,
        "tensor_types": info.tensor_types, "summary": summary}, indent=2) + "\n")
    for p in folder.iterdir():
        p.chmod(0o644)
    return summary


def file_sha256(path: Path) -> str:
    """The sha256 of a file (recorded with its converted folder: ``engine.fidelity``)."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):
            digest.update(chunk)
    return digest.hexdigest()


def describe(conv: Converted, mode: str, file_bytes: int) -> str:
    """One line: native tensors kept, others dequantized and how stored, and the memory."""
    kept = ", ".join(f"{n} {k}" for k, n in sorted(conv.kept_types.items()))
    parts = [f"{conv.kept} tensors kept as stored, codes bit for bit (native kernel"
             f"{': ' + kept if kept else ''})"]
    if conv.dequantized:
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(conv.dequantized.items()))
        how = {"native": "stored as float32 (exact; no native format for these types)",
               "float32": "stored as float32 (exact)",
               "8bit": "re-quantized to MLX 8-bit group 32",
               "4bit": "re-quantized to MLX 4-bit group 32 (float16 scales)"}[mode]
        parts.append(f"{kinds} dequantized and {how} ({DEQUANT_ENV}={mode})")
    mib = 2**20
    return (f"{'; '.join(parts)}: weights {conv.bytes / mib:.0f} MiB "
            f"(the file: {file_bytes / mib:.0f} MiB)")


def single_gguf(folder: Path) -> Path | None:
    """The one ``.gguf`` file in ``folder`` (None when there is none); raises GGUFError when
    there are several."""
    found = sorted(p for p in folder.glob("*.gguf") if p.is_file())
    if len(found) > 1:
        raise GGUFError(f"{folder} holds {len(found)} .gguf files; pass one of them as --model")
    return found[0] if found else None
