"""The kernel cache: configuration -> loaded kernel, from a library or compiled."""
from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path
from typing import Dict, List, Optional

from . import compiler
from ._runtime import Kernel
from .config import KernelConfig, short_seqs_tuning
from .library import KernelLibrary

_DEFAULT_DIR = Path(__file__).resolve().parent / "_kernels"
_kernel_dir: Optional[Path] = None
_cache: Dict[KernelConfig, Kernel] = {}
_lock = threading.Lock()


class KernelNotFoundError(LookupError):
    """No kernel for a configuration in the library, and no compiler to make one."""


def set_kernel_dir(path: os.PathLike | str | None) -> None:
    """Sets the kernel library folder (None: back to FATTN_KERNEL_DIR or the default)."""
    global _kernel_dir
    with _lock:
        _kernel_dir = Path(path) if path is not None else None
        _cache.clear()


def kernel_dir() -> Path:
    if _kernel_dir is not None:
        return _kernel_dir
    env = os.environ.get("FATTN_KERNEL_DIR")
    return Path(env) if env else _DEFAULT_DIR


def _cache_dir() -> Path:
    """Where kernels compiled on first use go when the library folder is read-only."""
    env = os.environ.get("FATTN_CACHE_DIR")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "fattn" / "kernels"


def search_libraries() -> List[KernelLibrary]:
    return [KernelLibrary(kernel_dir()), KernelLibrary(_cache_dir())]


def _writable_library() -> KernelLibrary:
    d = kernel_dir()
    try:
        d.mkdir(parents=True, exist_ok=True)
        if os.access(d, os.W_OK):
            return KernelLibrary(d)
    except OSError:
        pass
    return KernelLibrary(_cache_dir())


def get_kernel(config: KernelConfig, compile_if_missing: bool = True) -> Kernel:
    with _lock:
        kernel = _cache.get(config)
        if kernel is not None:
            return kernel
        for library in search_libraries():
            path = library.find(config)
            if path is not None:
                kernel = Kernel(path)
                break
        else:
            kernel = _compile_locked(config) if compile_if_missing else None
        if kernel is None:
            raise KernelNotFoundError(_missing_message(config))
        _cache[config] = kernel
        return kernel


def get_kernel_for_lengths(config: KernelConfig, seq_q: int, seq_k: int) -> Kernel:
    """The kernel to run `config` at these lengths: the one tuned for them
    (config.short_seqs_tuning) where there is one, else the default one. A
    tuned kernel that no library holds and no fattn-compile can build (a
    library built before that tuning existed) falls back to the default
    kernel: the same results, the default schedule."""
    tuned = short_seqs_tuning(config, seq_q, seq_k)
    if tuned == config:
        return get_kernel(config)
    try:
        return get_kernel(tuned)
    except KernelNotFoundError:
        return get_kernel(config)


def _missing_message(config: KernelConfig) -> str:
    return (f"no fattn kernel for {config.key} in "
            f"{', '.join(str(lib.directory) for lib in search_libraries())}, and fattn-compile "
            "is not available to build it (set FATTN_COMPILE, or build a library ahead of time "
            "with `python -m fattn.build_library` on a machine with MLIR and point "
            "FATTN_KERNEL_DIR at it)")


def _compile_locked(config: KernelConfig) -> Optional[Kernel]:
    tool = compiler.find_compiler()
    if tool is None:
        return None
    library = _writable_library()
    with tempfile.TemporaryDirectory(prefix="fattn-build-") as tmp:
        compiler.compile_kernel(config, Path(tmp) / "out", tool)
        path = library.add(config, Path(tmp) / "out")
    return Kernel(path)
