"""ctypes bindings of libfattn_runtime.so (include/fattn-c/Runtime.h)."""
from __future__ import annotations

import ctypes
import os
import threading
from pathlib import Path
from typing import Optional, Sequence, Tuple

from ._paths import PACKAGE_DIR, SOURCE_TREE

LIB_NAME = "libfattn_runtime.so"
ABI_VERSION = 1

DTYPE_CODES = {"f16": 0, "bf16": 1, "f32": 2, "e4m3": 3, "e5m2": 4}


class FAttnRuntimeError(RuntimeError):
    """A failure reported by the fattn runtime (its status and message)."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class TensorDesc(ctypes.Structure):
    _fields_ = [("data", ctypes.c_uint64), ("rank", ctypes.c_int32), ("dtype", ctypes.c_int32),
                ("sizes", ctypes.c_int64 * 4), ("strides", ctypes.c_int64 * 4)]

    @staticmethod
    def make(data: int, dtype: str, sizes: Sequence[int], strides: Sequence[int]) -> "TensorDesc":
        t = TensorDesc()
        t.data = data
        t.rank = len(sizes)
        t.dtype = DTYPE_CODES[dtype]
        for i, (n, s) in enumerate(zip(sizes, strides)):
            t.sizes[i] = n
            t.strides[i] = s
        return t


class LaunchConfig(ctypes.Structure):
    _fields_ = [("grid", ctypes.c_uint32 * 3), ("block", ctypes.c_uint32 * 3),
                ("cluster", ctypes.c_uint32 * 3), ("dynamic_smem_bytes", ctypes.c_uint32),
                ("empty", ctypes.c_int32)]


class Scalars(ctypes.Structure):
    """fattnScalars: a launch's scale and softcap."""
    _fields_ = [("scale", ctypes.c_double), ("softcap", ctypes.c_double)]


def library_candidates() -> list:
    """FATTN_RUNTIME_LIB, else the package's _lib (where `pip install` puts it),
    else, in a source checkout, its build folders."""
    env = os.environ.get("FATTN_RUNTIME_LIB")
    if env:
        return [Path(env)]
    candidates = [PACKAGE_DIR / "_lib" / LIB_NAME]
    if SOURCE_TREE is not None:
        candidates += [SOURCE_TREE / "build" / "lib" / LIB_NAME,
                       SOURCE_TREE / "build-runtime" / "lib" / LIB_NAME]
    return candidates


_lib: Optional[ctypes.CDLL] = None
_lib_lock = threading.Lock()


def load_library() -> ctypes.CDLL:
    global _lib
    with _lib_lock:
        if _lib is not None:
            return _lib
        candidates = library_candidates()
        path = next((p for p in candidates if p.is_file()), None)
        if path is None:
            raise FileNotFoundError(
                f"{LIB_NAME} not found; looked at {', '.join(map(str, candidates))}. Install "
                "the package with `pip install --no-build-isolation .` from a fattn checkout, "
                "or build it with `cmake -G Ninja -S lib/Runtime -B build-runtime && ninja -C "
                "build-runtime` and set FATTN_RUNTIME_LIB")
        lib = ctypes.CDLL(str(path))
        lib.fattnGetLastError.restype = ctypes.c_char_p
        lib.fattnRuntimeAbiVersion.restype = ctypes.c_int32
        lib.fattnKernelLoadFile.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
        lib.fattnKernelLoadData.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                            ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]
        lib.fattnKernelDestroy.argtypes = [ctypes.c_void_p]
        lib.fattnKernelDestroy.restype = None
        lib.fattnKernelEntry.argtypes = [ctypes.c_void_p]
        lib.fattnKernelEntry.restype = ctypes.c_char_p
        lib.fattnKernelGetLaunchConfig.argtypes = [ctypes.c_void_p, ctypes.POINTER(TensorDesc),
                                                   ctypes.c_int32, ctypes.c_uint32,
                                                   ctypes.POINTER(LaunchConfig)]
        lib.fattnKernelLaunch.argtypes = [ctypes.c_void_p, ctypes.POINTER(TensorDesc),
                                          ctypes.c_int32, ctypes.c_void_p]
        lib.fattnKernelGetTailPairs.argtypes = [ctypes.c_void_p, ctypes.POINTER(TensorDesc),
                                                ctypes.c_int32, ctypes.c_uint32,
                                                ctypes.POINTER(ctypes.c_uint32)]
        lib.fattnKernelLaunchWithScalars.argtypes = [
            ctypes.c_void_p, ctypes.POINTER(TensorDesc), ctypes.c_int32,
            ctypes.POINTER(Scalars), ctypes.c_void_p]
        lib.fattnKernelRuntimeScalars.argtypes = [ctypes.c_void_p]
        lib.fattnKernelRuntimeScalars.restype = ctypes.c_int32
        for f in ("fattnKernelLoadFile", "fattnKernelLoadData", "fattnKernelGetLaunchConfig",
                  "fattnKernelGetTailPairs", "fattnKernelLaunch",
                  "fattnKernelLaunchWithScalars"):
            getattr(lib, f).restype = ctypes.c_int
        if hasattr(lib, "fattnGradKernelLaunch"):
            _bind_grad(lib)
        lib.fattn_path = str(path)
        version = lib.fattnRuntimeAbiVersion()
        if version != ABI_VERSION:
            raise ImportError(f"{path} has runtime ABI version {version}, this package needs "
                              f"{ABI_VERSION}")
        _lib = lib
        return lib


def _bind_grad(lib: ctypes.CDLL) -> None:
    """The backward's entry points (fattnGradKernel*)."""
    handle_out = ctypes.POINTER(ctypes.c_void_p)
    lib.fattnGradKernelLoadFile.argtypes = [ctypes.c_char_p, handle_out]
    lib.fattnGradKernelLoadData.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                            ctypes.c_size_t, handle_out]
    lib.fattnGradKernelDestroy.argtypes = [ctypes.c_void_p]
    lib.fattnGradKernelDestroy.restype = None
    lib.fattnGradKernelWorkspaceBytes.argtypes = [ctypes.c_void_p, ctypes.POINTER(TensorDesc),
                                                  ctypes.c_int32,
                                                  ctypes.POINTER(ctypes.c_uint64)]
    lib.fattnGradKernelLaunch.argtypes = [ctypes.c_void_p, ctypes.POINTER(TensorDesc),
                                          ctypes.c_int32, ctypes.c_uint64, ctypes.c_uint64,
                                          ctypes.c_void_p]
    for f in ("fattnGradKernelLoadFile", "fattnGradKernelLoadData",
              "fattnGradKernelWorkspaceBytes", "fattnGradKernelLaunch"):
        getattr(lib, f).restype = ctypes.c_int


def _check(lib: ctypes.CDLL, status: int) -> None:
    if status != 0:
        raise FAttnRuntimeError(status, lib.fattnGetLastError().decode(errors="replace"))


class Kernel:
    """One loaded kernel; the module is loaded per device on first launch."""

    def __init__(self, description_path: os.PathLike | str):
        path = str(description_path).encode()
        self._load(lambda lib, out: lib.fattnKernelLoadFile(path, out), Path(description_path))

    @classmethod
    def from_data(cls, description: str, image: bytes, name: str = "<data>") -> "Kernel":
        """A kernel from a description's JSON text and its cubin's bytes."""
        self = cls.__new__(cls)
        text = description.encode()
        self._load(lambda lib, out: lib.fattnKernelLoadData(text, len(text), image, len(image),
                                                            out), Path(name))
        return self

    def _load(self, load, path: Path) -> None:
        """Takes the handle that load(lib, handle pointer) returns a status for."""
        self._lib = load_library()
        handle = ctypes.c_void_p()
        _check(self._lib, load(self._lib, ctypes.byref(handle)))
        self._handle = handle
        self.path = path
        self.entry = self._lib.fattnKernelEntry(handle).decode()

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle:
            self._lib.fattnKernelDestroy(handle)
            self._handle = None

    @staticmethod
    def _array(tensors: Sequence[TensorDesc]):
        return (TensorDesc * len(tensors))(*tensors), len(tensors)

    def launch_config(self, tensors: Sequence[TensorDesc], num_sms: int = 132) -> Tuple:
        arr, n = self._array(tensors)
        cfg = LaunchConfig()
        _check(self._lib, self._lib.fattnKernelGetLaunchConfig(self._handle, arr, n, num_sms,
                                                               ctypes.byref(cfg)))
        return tuple(cfg.grid), tuple(cfg.block), tuple(cfg.cluster), cfg.dynamic_smem_bytes

    def tail_pairs(self, tensors: Sequence[TensorDesc], num_sms: int = 132) -> int:
        """The "tail_pairs" parameter a launch passes (0 if the kernel has none)."""
        arr, n = self._array(tensors)
        out = ctypes.c_uint32()
        _check(self._lib, self._lib.fattnKernelGetTailPairs(self._handle, arr, n, num_sms,
                                                            ctypes.byref(out)))
        return out.value

    def launch(self, tensors: Sequence[TensorDesc], stream: int,
               scalars: Optional[Tuple[float, float]] = None) -> None:
        """Launches on `stream`; `scalars` = (scale, softcap) for a kernel that
        takes them at run time (runtime_scalars), None for the description's."""
        arr, n = self._array(tensors)
        if scalars is None:
            status = self._lib.fattnKernelLaunch(self._handle, arr, n,
                                                 ctypes.c_void_p(stream or None))
        else:
            values = Scalars(float(scalars[0]), float(scalars[1]))
            status = self._lib.fattnKernelLaunchWithScalars(
                self._handle, arr, n, ctypes.byref(values), ctypes.c_void_p(stream or None))
        _check(self._lib, status)

    @property
    def runtime_scalars(self) -> int:
        """Bit 0: the kernel takes the scale at launch; bit 1: the softcap."""
        return int(self._lib.fattnKernelRuntimeScalars(self._handle))


class GradKernel:
    """The kernels of one backward description ("kind": "attention_grad"),
    launched in order by fattnGradKernelLaunch; loaded per device on first launch."""

    def __init__(self, description_path: os.PathLike | str):
        self._lib = load_library()
        if not hasattr(self._lib, "fattnGradKernelLaunch"):
            raise FAttnRuntimeError(1, f"{self._lib.fattn_path} has no backward entry points "
                                       "(fattnGradKernelLaunch): rebuild the runtime")
        handle = ctypes.c_void_p()
        _check(self._lib, self._lib.fattnGradKernelLoadFile(str(description_path).encode(),
                                                            ctypes.byref(handle)))
        self._handle = handle
        self.path = Path(description_path)

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle:
            self._lib.fattnGradKernelDestroy(handle)
            self._handle = None

    def workspace_bytes(self, tensors: Sequence[TensorDesc]) -> int:
        """The bytes of the f32 workspaces a launch with these nine tensors needs."""
        arr, n = Kernel._array(tensors)
        out = ctypes.c_uint64()
        _check(self._lib, self._lib.fattnGradKernelWorkspaceBytes(self._handle, arr, n,
                                                                  ctypes.byref(out)))
        return out.value

    def launch(self, tensors: Sequence[TensorDesc], workspace: int, workspace_bytes: int,
               stream: int) -> None:
        """Launches the kernels on `stream` with q, k, v, o, do, lse, dq, dk, dv and
        a workspace of `workspace_bytes` at device address `workspace` (0: the
        runtime's own, cached per device and stream)."""
        arr, n = Kernel._array(tensors)
        _check(self._lib, self._lib.fattnGradKernelLaunch(self._handle, arr, n, workspace,
                                                          workspace_bytes,
                                                          ctypes.c_void_p(stream or None)))
