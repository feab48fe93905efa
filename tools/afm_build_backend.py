"""In-tree PEP 517 backend: setuptools, plus what a wheel build needs to compile the native
quantized matmul (engine/_afm_qmm, see setup.py). Editable installs and sdists need nothing more,
so `pip install -e .` stays as fast as before (tools/setup.sh builds the extension in place)."""

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403

# The extension links against libmlx, so it is built with the very MLX the package pins.
NATIVE_BUILD_REQUIRES = [
    "nanobind==3.1.0",
    "mlx[cpu]==0.32.4; sys_platform == 'linux'",
    "mlx==0.32.4; sys_platform == 'darwin'",
]


def get_requires_for_build_wheel(config_settings=None):  # noqa: D103
    return _setuptools.get_requires_for_build_wheel(config_settings) + NATIVE_BUILD_REQUIRES
