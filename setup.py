"""Build step that setuptools' declarative configuration (pyproject.toml) cannot express:
the wheel carries the API contract, edited at `openapi/afm.yaml`, as `afm/openapi/afm.yaml`
(looked up by afm/contract.py)."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

CONTRACT = Path(__file__).resolve().parent / "openapi" / "afm.yaml"


class BuildPyWithContract(build_py):
    """build_py, plus a copy of the contract inside the `afm` package."""

    def run(self) -> None:
        super().run()
        if not self.editable_mode:  # an editable install reads the checkout's file
            target = Path(self.build_lib) / "afm" / "openapi" / "afm.yaml"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(CONTRACT, target)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = super().get_outputs(include_bytecode)
        if not self.editable_mode:
            outputs.append(str(Path(self.build_lib) / "afm" / "openapi" / "afm.yaml"))
        return outputs


setup(cmdclass={"build_py": BuildPyWithContract})
