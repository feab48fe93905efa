"""Run llama.cpp's own ``convert_hf_to_gguf.py`` on a project-built model.

The project's models use a byte-level BPE tokenizer trained here, whose pre-tokenizer hash
llama.cpp does not know; the converter then refuses the model. The weights convert as they are;
this wrapper only names the pre-tokenizer ``qwen2`` (a byte-level BPE like ours) so the
benchmark can compare servers on the same weights. Usage::

    python tools/bench_lib/gguf_convert.py LLAMA_CPP_DIR MODEL_DIR --outtype f32 --outfile X
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path


def main() -> None:
    llama = Path(sys.argv[1])
    sys.path[:0] = [str(llama), str(llama / "gguf-py")]
    from conversion import base  # llama.cpp's converter package

    base.TextModel.get_vocab_base_pre = lambda self, tokenizer: "qwen2"  # type: ignore[method-assign]
    sys.argv = [str(llama / "convert_hf_to_gguf.py"), *sys.argv[2:]]
    runpy.run_path(sys.argv[0], run_name="__main__")


if __name__ == "__main__":
    main()
