"""Build steps that setuptools' declarative configuration (pyproject.toml) cannot express:
the wheel carries the API contract, edited at `openapi/afm.yaml`, as `afm/openapi/afm.yaml`
(looked up by afm/contract.py), and the native quantized matmul `engine/_afm_qmm*.so` built
from native/afm_qmm when a C++ compiler and cmake are present (engine/qkernels_build.py; without
them one log line, and the engine uses MLX's own quantized kernels). Editable installs build
nothing here: tools/setup.sh runs `python -m engine.qkernels build` in place instead."""

import shutil
import sys
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from engine.qkernels_build import build_extension, missing_tools  # noqa: E402

CONTRACT = ROOT / "openapi" / "afm.yaml"


class BuildPyWithContract(build_py):
    """build_py, plus a copy of the contract inside the `afm` package."""

    def run(self) -> None:
        super().run()
        if not self.editable_mode:  # an editable install reads the checkout's file
            target = Path(self.build_lib) / "afm" / "openapi" / "afm.yaml"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(CONTRACT, target)
            build_extension(
                output_dir=Path(self.build_lib) / "engine",
                build_dir=Path(self.get_finalized_command("build").build_temp) / "afm_qmm",
            )

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = super().get_outputs(include_bytecode)
        if not self.editable_mode:
            outputs.append(str(Path(self.build_lib) / "afm" / "openapi" / "afm.yaml"))
            outputs += [str(p) for p in (Path(self.build_lib) / "engine").glob("_afm_qmm*")]
        return outputs


class NativeDistribution(Distribution):
    """A wheel that will carry the native extension is tagged (and laid out) per platform."""

    def has_ext_modules(self) -> bool:
        return missing_tools() is None


setup(cmdclass={"build_py": BuildPyWithContract}, distclass=NativeDistribution)
