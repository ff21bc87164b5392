"""Compiling a KernelConfig with the fattn-compile tool (needs a machine with MLIR)."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
import warnings
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from ._paths import SOURCE_TREE
from .grad_config import AnyConfig
from .mlir_gen import kernel_mlir


class CompileError(RuntimeError):
    pass


class CompileWarning(UserWarning):
    """A warning of fattn-compile's on a kernel it built (e.g. ptxas spills)."""


def find_compiler() -> Optional[str]:
    """FATTN_COMPILE, else fattn-compile on PATH, else a source checkout's build/bin."""
    env = os.environ.get("FATTN_COMPILE")
    if env:
        if not os.access(env, os.X_OK):
            raise CompileError(f"FATTN_COMPILE={env} is not an executable file")
        return env
    on_path = shutil.which("fattn-compile")
    if on_path:
        return on_path
    if SOURCE_TREE is None:
        return None
    local = SOURCE_TREE / "build" / "bin" / "fattn-compile"
    return str(local) if os.access(local, os.X_OK) else None


# compiler_identity's results by (real path, size, mtime): hashing the binary
# takes about 0.1 s.
_IDENTITIES: Dict[Tuple[str, int, int], str] = {}
_IDENTITIES_LOCK = threading.Lock()


def compiler_identity(compiler: str) -> str:
    """What a kernel library records of the fattn-compile that built a kernel:
    "sha256:" and the hash of its binary and of its --version output (which
    names the LLVM it runs on), so that a kernel built by another fattn-compile
    (an older build, another LLVM) is not taken for a current one."""
    path = os.path.realpath(compiler)
    try:
        st = os.stat(path)
    except OSError as e:
        raise CompileError(f"cannot read fattn-compile at {compiler}: {e}") from None
    key = (path, st.st_size, st.st_mtime_ns)
    with _IDENTITIES_LOCK:
        cached = _IDENTITIES.get(key)
    if cached is not None:
        return cached
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    try:
        version = subprocess.run([compiler, "--version"], capture_output=True, timeout=60)
        h.update(b"\0--version\0" + version.stdout)
    except (OSError, subprocess.TimeoutExpired):
        pass  # the binary's hash alone
    identity = "sha256:" + h.hexdigest()
    with _IDENTITIES_LOCK:
        _IDENTITIES[key] = identity
    return identity


def run_compiler(config: AnyConfig, out_dir: Path, compiler: str,
                 timeout: float = 600) -> List[str]:
    """compile_kernel without the warnings: returns fattn-compile's warning
    lines (safe to call from several threads at once)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="fattn-src-") as src:
        mlir = Path(src) / "kernel.mlir"
        mlir.write_text(kernel_mlir(config))
        cmd = [compiler, str(mlir), "--arch", config.arch, "--emit", "json", "-o", str(out_dir)]
        if config.tuned_for == "short_seqs":
            cmd.append("--short-seqs")
        if config.runtime_scalars:
            cmd.append("--runtime-scalars")
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise CompileError(f"{' '.join(cmd)} timed out after {timeout} s") from None
        if proc.returncode != 0:
            raise CompileError(f"{' '.join(cmd)} failed with exit code {proc.returncode}:\n"
                               f"{proc.stderr.strip() or proc.stdout.strip()}\n"
                               f"--- input ---\n{mlir.read_text()}")
        shutil.copy(mlir, out_dir / "kernel.mlir.src")
    return [f"{config.key}: {line.strip()}" for line in proc.stderr.splitlines()
            if "warning:" in line]


def compile_kernel(config: AnyConfig, out_dir: Path, compiler: Optional[str] = None,
                   timeout: float = 600) -> Path:
    """Writes the .mlir, runs fattn-compile into `out_dir` (which must be empty
    or missing) and returns out_dir; fattn-compile's warnings become
    CompileWarnings. The .mlir stays beside the kernel for reproduction:
    fattn-compile out_dir/kernel.mlir.src --arch ..."""
    compiler = compiler or find_compiler()
    if compiler is None:
        raise CompileError("fattn-compile not found (set FATTN_COMPILE, put it on PATH, or "
                           "build it into build/bin)")
    for line in run_compiler(config, out_dir, compiler, timeout):
        warnings.warn(line, CompileWarning, stacklevel=2)
    return out_dir
