"""AFM: a local OpenAI-compatible inference server on MLX."""

__version__ = "0.1.0"
