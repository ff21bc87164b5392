"""Compiling a KernelConfig with the fattn-compile tool (needs a machine with MLIR)."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import warnings
from pathlib import Path
from typing import Optional

from ._paths import SOURCE_TREE
from .config import KernelConfig
from .mlir_gen import attention_mlir


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


def compile_kernel(config: KernelConfig, out_dir: Path, compiler: Optional[str] = None,
                   timeout: float = 600) -> Path:
    """Writes the .mlir, runs fattn-compile into `out_dir` (which must be empty
    or missing) and returns out_dir. The .mlir stays beside the kernel for
    reproduction: fattn-compile out_dir/kernel.mlir --arch ..."""
    compiler = compiler or find_compiler()
    if compiler is None:
        raise CompileError("fattn-compile not found (set FATTN_COMPILE, put it on PATH, or "
                           "build it into build/bin)")
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="fattn-src-") as src:
        mlir = Path(src) / "kernel.mlir"
        mlir.write_text(attention_mlir(config))
        cmd = [compiler, str(mlir), "--arch", config.arch, "--emit", "json", "-o", str(out_dir)]
        if config.tuned_for == "short_seqs":
            cmd.append("--short-seqs")
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise CompileError(f"{' '.join(cmd)} timed out after {timeout} s") from None
        if proc.returncode != 0:
            raise CompileError(f"{' '.join(cmd)} failed with exit code {proc.returncode}:\n"
                               f"{proc.stderr.strip() or proc.stdout.strip()}\n"
                               f"--- input ---\n{mlir.read_text()}")
        shutil.copy(mlir, out_dir / "kernel.mlir.src")
    for line in proc.stderr.splitlines():
        if "warning:" in line:
            warnings.warn(f"{config.key}: {line.strip()}", CompileWarning, stacklevel=2)
    return out_dir
