"""Builds the fattn package: python/fattn, with the runtime library that
lib/Runtime's CMake builds installed inside it as fattn/_lib/libfattn_runtime.so
(where fattn._runtime looks first after FATTN_RUNTIME_LIB).

    pip install --no-build-isolation .

Needs cmake (3.20+) and the CUDA toolkit (cuda.h and libcuda.so's stub; CMake's
FindCUDAToolkit looks in CUDAToolkit_ROOT, CUDA_PATH, nvcc on PATH and
/usr/local/cuda). FATTN_CMAKE_ARGS adds arguments to the CMake configure step,
e.g. FATTN_CMAKE_ARGS="-DCUDAToolkit_ROOT=/opt/cuda". Metadata: pyproject.toml.
"""
import os
import shlex
import shutil
import subprocess
from pathlib import Path

from setuptools import Command, Distribution, setup
from setuptools.command.build_py import build_py

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70: the wheel package's
    from wheel.bdist_wheel import bdist_wheel

ROOT = Path(__file__).resolve().parent
RUNTIME_SOURCE = ROOT / "lib" / "Runtime"
RUNTIME_LIB = "libfattn_runtime.so"
# setuptools' own build folder; build/ is the CMake build of the compiler.
BUILD_BASE = "build-python"


class BuildRuntime(Command):
    """Configures lib/Runtime with CMake and builds libfattn_runtime.so into
    the package's _lib folder."""

    description = "build libfattn_runtime.so (lib/Runtime) with CMake"
    user_options = []

    def initialize_options(self):
        self.build_temp = None
        self.build_lib = None
        self.editable_mode = False

    def finalize_options(self):
        self.set_undefined_options("build", ("build_temp", "build_temp"),
                                   ("build_lib", "build_lib"))

    def run(self):
        cmake = shutil.which("cmake")
        if cmake is None:
            raise SystemExit("fattn: cmake not found on PATH (Debian: apt-get install cmake)")
        build_dir = Path(self.build_temp).resolve() / "runtime"
        configure = [cmake, "-S", str(RUNTIME_SOURCE), "-B", str(build_dir),
                     "-DCMAKE_BUILD_TYPE=Release",
                     # libfattn_runtime.so needs the CUDA toolkit: fail at configure time.
                     "-DCMAKE_REQUIRE_FIND_PACKAGE_CUDAToolkit=ON"]
        if shutil.which("ninja") and not (build_dir / "CMakeCache.txt").is_file():
            configure += ["-G", "Ninja"]
        configure += shlex.split(os.environ.get("FATTN_CMAKE_ARGS", ""))
        try:
            subprocess.run(configure, check=True)
        except subprocess.CalledProcessError:
            raise SystemExit(
                "fattn: configuring lib/Runtime failed (above). The runtime needs the CUDA "
                "toolkit's cuda.h and libcuda.so stub: install it (e.g. in /usr/local/cuda) or "
                "point CMake at it with FATTN_CMAKE_ARGS=-DCUDAToolkit_ROOT=DIR") from None
        subprocess.run([cmake, "--build", str(build_dir), "--target", "fattn_runtime",
                        "--parallel", str(os.cpu_count() or 1)], check=True)
        built = build_dir / "lib" / RUNTIME_LIB
        if not built.is_file():
            raise SystemExit(f"fattn: the CMake build did not produce {built}")
        package = (ROOT / "python" if self.editable_mode else Path(self.build_lib)) / "fattn"
        target = package / "_lib"
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built, target / RUNTIME_LIB)
        self.announce(f"fattn: {target / RUNTIME_LIB}", level=2)

    def get_outputs(self):
        return [str(Path(self.build_lib) / "fattn" / "_lib" / RUNTIME_LIB)]


class BuildPyWithRuntime(build_py):
    """The Python sources, then the runtime library beside them."""

    def run(self):
        # build_lib outlives builds: a file left there by an earlier one (a kernel
        # library removed since) would go into the wheel.
        shutil.rmtree(Path(self.build_lib) / "fattn", ignore_errors=True)
        super().run()
        runtime = self.get_finalized_command("build_runtime")
        runtime.editable_mode = getattr(self, "editable_mode", False)
        self.run_command("build_runtime")

    def get_outputs(self, include_bytecode=True):
        return (super().get_outputs(include_bytecode)
                + self.get_finalized_command("build_runtime").get_outputs())


class PlatformDistribution(Distribution):
    """Holds a shared library: installed as platform-specific (platlib)."""

    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    """A wheel for one platform (it holds a shared library) but any Python 3:
    the library is loaded with ctypes, not as an extension module."""

    def get_tag(self):
        _, _, platform = super().get_tag()
        return "py3", "none", platform


setup(
    distclass=PlatformDistribution,
    cmdclass={"build_runtime": BuildRuntime, "build_py": BuildPyWithRuntime,
              "bdist_wheel": PlatformWheel},
    options={"build": {"build_base": BUILD_BASE}},
)
