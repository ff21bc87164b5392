"""fattn/tuning.json against the compiler that it comes from (no GPU, no torch).

The package reads fattn-compile's tables that pick a kernel (which
configurations have a short-sequence kernel and up to what length, which
descales run on another kernel) and the head dims each arch compiles from
fattn/tuning.json, since the GPU machine has no fattn-compile. The file must
be exactly what the built fattn-compile prints: regenerate it with `fattn-compile --print-tuning > python/fattn/tuning.json`.
"""
import subprocess

import pytest

from fattn import config as cfg
from fattn.compiler import find_compiler
from fattn.config import KernelConfig


def test_tuning_file_is_fattn_compiles():
    compiler = find_compiler()
    if compiler is None:
        pytest.skip("needs fattn-compile (FATTN_COMPILE, PATH or build/bin)")
    proc = subprocess.run([compiler, "--print-tuning"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == cfg.TUNING_FILE.read_text(encoding="utf-8"), (
        "python/fattn/tuning.json differs from fattn-compile --print-tuning: regenerate it")


def test_every_condition_is_understood():
    tables = cfg.tuning_tables()
    config = KernelConfig.make("sm_90a", "e4m3", 128, descale="q0k0v0")
    rows = [row for arch in tables.values() if isinstance(arch, dict)
            for name, table in arch.items() if name != "head_dims" for row in table]
    assert rows
    for row in rows:
        cfg.matches(row["when"], config)  # raises on a condition it does not know


def test_unknown_condition_fails():
    config = KernelConfig.make("sm_90a", "bf16", 128)
    with pytest.raises(ValueError, match="unknown condition 'stages'"):
        cfg.matches({"stages": 2}, config)
