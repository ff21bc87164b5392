"""The kernel cache: configuration -> loaded kernel, from a library or compiled.

Where a fattn-compile is at hand, a library's kernel counts only if that
fattn-compile built it (the index records its identity,
compiler.compiler_identity); any other is built again, so an upgraded compiler
never runs kernels that an older one compiled. Without one, every library
kernel counts (a library shipped with the wheel, carried to a GPU machine)."""
from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path
from typing import Dict, List, Optional, Union

from . import compiler
from ._paths import PACKAGE_DIR
from ._runtime import GradKernel, Kernel
from .config import KernelConfig, short_seqs_tuning
from .grad_config import AnyConfig, GradKernelConfig
from .library import KernelLibrary

# A kernel library shipped inside the package (docs/PACKAGING.md); read-only.
_DEFAULT_DIR = PACKAGE_DIR / "_kernels"
_kernel_dir: Optional[Path] = None
_cache: Dict[AnyConfig, Union[Kernel, GradKernel]] = {}
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
    """The kernel folder, the package's own library (when the kernel folder is
    another), then the cache of kernels compiled on first use."""
    folders = list(dict.fromkeys([kernel_dir(), _DEFAULT_DIR, _cache_dir()]))
    return [KernelLibrary(d) for d in folders]


def _writable_library() -> KernelLibrary:
    """Where a kernel compiled on first use goes: the kernel folder set by
    set_kernel_dir or FATTN_KERNEL_DIR if writable, else the cache."""
    d = kernel_dir()
    if d != _DEFAULT_DIR:
        try:
            d.mkdir(parents=True, exist_ok=True)
            if os.access(d, os.W_OK):
                return KernelLibrary(d)
        except OSError:
            pass
    return KernelLibrary(_cache_dir())


def _load(config: AnyConfig, path: Path) -> Union[Kernel, GradKernel]:
    """The runtime's handle of a forward (Kernel) or backward (GradKernel) kernel."""
    return GradKernel(path) if isinstance(config, GradKernelConfig) else Kernel(path)


def get_kernel(config: AnyConfig, compile_if_missing: bool = True) -> Union[Kernel, GradKernel]:
    with _lock:
        kernel = _cache.get(config)
        if kernel is not None:
            return kernel
        tool = compiler.find_compiler()
        identity = compiler.compiler_identity(tool) if tool is not None else None
        for library in search_libraries():
            path = library.find_current(config, identity)
            if path is not None:
                kernel = _load(config, path)
                break
        else:
            kernel = _compile_locked(config, tool, identity) \
                if compile_if_missing and tool is not None else None
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


def _missing_message(config: AnyConfig) -> str:
    return (f"no fattn kernel for {config.key} in "
            f"{', '.join(str(lib.directory) for lib in search_libraries())}, and fattn-compile "
            "is not available to build it (set FATTN_COMPILE, or build a library ahead of time "
            "with `python -m fattn.build_library` on a machine with MLIR and point "
            "FATTN_KERNEL_DIR at it)")


def _compile_locked(config: AnyConfig, tool: str, identity: str) -> Union[Kernel, GradKernel]:
    library = _writable_library()
    with tempfile.TemporaryDirectory(prefix="fattn-build-") as tmp:
        compiler.compile_kernel(config, Path(tmp) / "out", tool)
        path = library.add(config, Path(tmp) / "out", identity)
    return _load(config, path)
