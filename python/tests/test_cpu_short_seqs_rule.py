"""config.has_short_seqs_kernel against fattn-compile itself (no GPU, no torch).

The Python package cannot ask the compiler at run time which configurations
fattn-compile --short-seqs builds a different kernel for: it reads the rows of
the compiler's short-sequence table (fattn-compile --print-tuning, kept in
fattn/tuning.json). This test holds those rows, as config.has_short_seqs_kernel
reads them, to the kernels themselves: for configurations on both sides of
every condition of the rows, the PTX of `fattn-compile --short-seqs` differs
from the default kernel's exactly where a row says there is a tuned kernel.
Skipped without a built fattn-compile.
"""
import subprocess

import pytest

from fattn.compiler import find_compiler
from fattn.config import VALUE_LAYOUT_SM90, KernelConfig, has_short_seqs_kernel
from fattn.mlir_gen import attention_mlir

VT = VALUE_LAYOUT_SM90


def sm90(**kw):
    args = dict(arch="sm_90a", dtype="bf16", head_dim_qk=128, causal=True)
    args.update(kw)
    return KernelConfig.make(**args)


def fp8(**kw):
    args = dict(dtype="e4m3", causal=False, descale="q2k2v2", value_layout=VT)
    args.update(kw)
    return sm90(**args)


# Each condition of the rows, met and missed (Tuning.h's shortSeqsRules:
# causal128, causal64, unmasked128 and fp8).
CONFIGS = [
    sm90(),                                    # 16-bit causal head dim 128: tuned
    sm90(dtype="f16", has_lse=True),
    sm90(head_dim_qk=112),                     # 97-128
    sm90(causal=False),                        # no mask: tuned (128-key tiles)
    sm90(causal=False, head_dim_qk=112, dtype="f16", has_lse=True),
    sm90(causal=False, softcap=30.0),
    sm90(causal=False, window_left=64, window_right=32),
    sm90(causal=False, head_dim_qk=96),
    sm90(softcap=30.0),
    sm90(window_left=64, window_right=0),
    sm90(head_dim_qk=96),                      # below 97
    sm90(head_dim_qk=256),
    sm90(head_dim_qk=64),                      # up to 64, causal: tuned
    sm90(head_dim_qk=32, dtype="f16", has_lse=True),
    sm90(head_dim_qk=80),                      # 65-96
    sm90(head_dim_qk=64, causal=False),
    sm90(head_dim_qk=64, softcap=30.0),
    sm90(head_dim_qk=64, window_left=64, window_right=0),
    fp8(),                                     # FP8 V^T per head: tuned
    fp8(descale="q0k2v2"),                     # one per-tensor factor
    fp8(descale="q2k2v0"),
    fp8(descale="q3b128k2v2"),                 # Q per block
    fp8(descale="q0k0v2"),                     # two per tensor: spills
    fp8(descale="q0k0v0"),
    fp8(descale="q2k3b128v2"),                 # K per block: other tiles
    fp8(descale="q2k2v3b128"),                 # V per block: other tiles
    fp8(value_layout=None),                    # V by rows
    fp8(causal=True),
    fp8(has_lse=True),
    fp8(head_dim_qk=256),
]


def compile_ptx(compiler, mlir, out, short):
    cmd = [compiler, str(mlir), "--arch", "sm_90a", "--emit", "ptx", "-o", str(out)]
    if short:
        cmd.append("--short-seqs")
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return out.read_text()


@pytest.mark.parametrize("config", CONFIGS, ids=[c.key for c in CONFIGS])
def test_rule_matches_fattn_compile(config, tmp_path):
    compiler = find_compiler()
    if compiler is None:
        pytest.skip("needs fattn-compile (FATTN_COMPILE, PATH or build/bin)")
    mlir = tmp_path / "kernel.mlir"
    mlir.write_text(attention_mlir(config))
    default = compile_ptx(compiler, mlir, tmp_path / "default.ptx", short=False)
    tuned = compile_ptx(compiler, mlir, tmp_path / "short.ptx", short=True)
    assert (tuned != default) == has_short_seqs_kernel(config), (
        f"config.has_short_seqs_kernel says {has_short_seqs_kernel(config)}, "
        f"fattn-compile --short-seqs {'changes' if tuned != default else 'keeps'} the kernel")
