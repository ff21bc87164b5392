"""Random valid cases over the kernels of a kernel library: each case names the
library kernel that must run, its shapes and layouts, the environment that
makes flash_attn_func pick that kernel, and its input seed.

scripts/gpu_stress.py runs thousands of them, scripts/gpu_sanitizer.py one
small case per kernel under compute-sanitizer, test_gpu_properties.py those
that hypothesis draws. Listing kernels and drawing cases need neither torch nor
a GPU (the scripts' --dry-run). A case runs through the checks of the GPU tests,
with their float64 reference and bounds: test_gpu_attention.run_case for 16-bit
kernels, test_gpu_fp8.check_case and check_accuracy for FP8.
"""
from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple

from fattn.config import (KernelConfig, descale_code, has_short_seqs_kernel, per_head_routing,
                          short_seqs_max, short_seqs_tuning, to_f32)
from fattn.kernels import search_libraries

LAYOUTS = ("bshd", "bhsd", "strided")  # gpu_support.make_bshd's
OUT_LAYOUTS = ("bshd", "bhsd")
FP8_MIN_ROWS = 128  # test_gpu_fp8: its per-row median bound wants this many output rows
ENV_KEYS = ("FATTN_ARCH", "FATTN_SHORT_SEQS", "FATTN_PER_TENSOR_KERNELS", "FATTN_TEST_SEED")


# ---------------------------------------------------------------------------
# The library's kernels
# ---------------------------------------------------------------------------

def library_kernels() -> Dict[KernelConfig, Path]:
    """Every kernel of the kernel libraries (FATTN_KERNEL_DIR, then the cache
    folder; the first holding a configuration wins): configuration -> description."""
    found: Dict[KernelConfig, Path] = {}
    for library in search_libraries():
        for key, rel in library.entries().items():
            path = library.directory / rel
            config = KernelConfig.from_description(json.loads(path.read_text()))
            if config.key != key:
                raise ValueError(f"{library.directory}: {key} holds a kernel for {config.key}")
            found.setdefault(config, path)
    return found


def runnable(config: KernelConfig, capability: Optional[Tuple[int, int]]) -> bool:
    """Whether a device of this compute capability runs the kernel (None: any):
    sm_90a cubins on sm_90 only, sm_80 kernels on sm_80 and later (newer devices
    through the description's PTX)."""
    if capability is None:
        return True
    if config.arch == "sm_90a":
        return tuple(capability) == (9, 0)
    m = re.fullmatch(r"sm_(\d+)(\d)[a-z]?", config.arch)
    return bool(m) and tuple(capability) >= (int(m.group(1)), int(m.group(2)))


def fp8_quantize_args(form) -> Tuple[dict, dict, dict, dict]:
    """test_gpu_fp8.FORMS's entry for a descale form: quantize_fp8's arguments for
    q, k and v, and flash_attn_func's blocks."""
    def args(rank, block):
        return {0: {}, 2: {"per": "head"}, 3: {"block": block}}[rank]
    (rq, bq), (rk, bk), (rv, bv) = form
    blocks = {}
    if rq == 3:
        blocks["descale_block_q"] = bq
    if 3 in (rk, rv):
        blocks["descale_block_kv"] = bk or bv
    return args(rq, bq), args(rk, bk), args(rv, bv), blocks


def why_not_covered(config: KernelConfig) -> Optional[str]:
    """None for a kernel that cases can reach through flash_attn_func, else why not."""
    if config.dtype != "e4m3":
        return None
    if config.window_left >= 0 or config.softcap or config.has_lse:
        return "FP8 with a window, softcap or LSE: test_gpu_fp8 has no check for it"
    if config.head_dim_v != config.head_dim_qk or config.descale is None:
        return "FP8 with two head dims or without descales"
    if config.scale != to_f32(1 / config.head_dim_qk ** 0.5):
        return "FP8 with a custom scale: test_gpu_fp8 checks the default one"
    return None


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Case:
    kernel: KernelConfig  # the library kernel this case runs
    b: int
    hq: int
    hk: int
    sq: int
    sk: int
    layout: str = "bshd"  # 16-bit q, k, v (gpu_support.make_bshd)
    out_layout: str = "bshd"  # 16-bit out
    padded_vt: bool = False  # FP8 V^T as a view into a larger buffer
    seed: int = 1  # FATTN_TEST_SEED: the inputs

    @property
    def call_config(self) -> KernelConfig:
        """The configuration flash_attn_func is asked for."""
        return dataclasses.replace(self.kernel, tuned_for=None)

    def env(self) -> Dict[str, Optional[str]]:
        """The environment that makes flash_attn_func pick `kernel` (None: unset)."""
        call = self.call_config
        env = {"FATTN_ARCH": call.arch, "FATTN_TEST_SEED": str(self.seed),
               "FATTN_SHORT_SEQS": None, "FATTN_PER_TENSOR_KERNELS": None}
        if self.kernel.tuned_for is None and has_short_seqs_kernel(call):
            env["FATTN_SHORT_SEQS"] = "0"
        with environment({"FATTN_PER_TENSOR_KERNELS": None}):
            if per_head_routing(call) is not None:
                env["FATTN_PER_TENSOR_KERNELS"] = "1"
        return env

    def selected(self) -> KernelConfig:
        """The kernel flash_attn_func selects for this case (interface._select_kernel
        with every kernel present), which must be `kernel`."""
        with environment(self.env()):
            routed = per_head_routing(self.call_config) or self.call_config
            return short_seqs_tuning(routed, self.sq, self.sk)

    def describe(self) -> str:
        shape = f"b={self.b} hq={self.hq} hk={self.hk} sq={self.sq} sk={self.sk}"
        if self.kernel.dtype == "e4m3":
            extra = " padded V^T" if self.padded_vt else ""
        else:
            extra = f" layout={self.layout} out={self.out_layout}"
        return f"{self.kernel.key} {shape}{extra} seed={self.seed}"


@contextlib.contextmanager
def environment(values: Dict[str, Optional[str]]) -> Iterator[None]:
    """os.environ with `values` set (None: unset), restored afterwards."""
    saved = {k: os.environ.get(k) for k in values}
    try:
        for k, v in values.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _length(rng: random.Random, longest: int) -> int:
    """Mostly lengths that are no multiple of any tile, a few long ones."""
    r = rng.random()
    n = (rng.randint(1, 16) if r < 0.15 else rng.randint(17, 300) if r < 0.6 else
         rng.randint(301, 700) if r < 0.9 else rng.randint(701, 1100))
    return min(n, longest)


def constrain(case: Case) -> Case:
    """The case made valid for its kernel: lengths a tuned kernel runs at, and
    enough output rows for the FP8 checks' per-row median."""
    if case.kernel.tuned_for is not None:
        longest = short_seqs_max(case.call_config)
        case = dataclasses.replace(case, sq=min(case.sq, longest), sk=min(case.sk, longest))
    if case.kernel.dtype == "e4m3":
        b, hq = case.b, case.hq
        while b * case.sq * hq < FP8_MIN_ROWS:
            if hq * 2 <= 32:
                hq *= 2
            else:
                b *= 2
        case = dataclasses.replace(case, b=b, hq=hq)
    return case


def random_case(rng: random.Random, kernel: KernelConfig) -> Case:
    """A random valid case of `kernel`: sizes mostly off the tiles, GQA/MQA, the
    layouts of the GPU tests."""
    hk = rng.choice([1, 1, 2, 3, 4])
    hq = hk * rng.choice([g for g in (1, 2, 3, 4, 8) if hk * g <= 16])
    longest = 1100
    case = Case(kernel, b=rng.choice([1, 1, 2, 3]), hq=hq, hk=hk, sq=_length(rng, longest),
                sk=_length(rng, longest), layout=rng.choice(LAYOUTS),
                out_layout=rng.choice(OUT_LAYOUTS), padded_vt=rng.random() < 0.3,
                seed=rng.randrange(1, 2 ** 31))
    return constrain(case)


def small_case(kernel: KernelConfig, index: int = 0) -> Case:
    """One small case for compute-sanitizer: GQA, lengths that end inside a tile
    in both directions, rows that see no key under a causal mask (sq > sk)."""
    sq, sk = (301, 203) if kernel.causal else (203, 301)
    case = Case(kernel, b=1, hq=4, hk=2, sq=sq, sk=sk, layout=LAYOUTS[index % 3],
                out_layout=OUT_LAYOUTS[index % 2], padded_vt=index % 2 == 1,
                seed=1 + index)
    return constrain(case)


def targets(capability: Optional[Tuple[int, int]], archs: Optional[List[str]] = None,
            only: Optional[str] = None):
    """(the library's kernels that cases reach, {key: why the others are left out})."""
    reached, left_out = [], {}
    for config in sorted(library_kernels(), key=lambda c: c.key):
        if only and not re.search(only, config.key):
            continue
        why = why_not_covered(config)
        if why is None and archs and config.arch not in archs:
            why = f"arch {config.arch} not asked for"
        if why is None and not runnable(config, capability):
            why = f"does not run on a device of compute capability {capability}"
        if why is None:
            reached.append(config)
        else:
            left_out[config.key] = why
    return reached, left_out


# ---------------------------------------------------------------------------
# Running a case (torch, a GPU)
# ---------------------------------------------------------------------------

@contextlib.contextmanager
def recorded_launches() -> Iterator[List[str]]:
    """The description paths of the kernels launched inside the block."""
    from fattn._runtime import Kernel
    launched: List[str] = []
    original = Kernel.launch

    def launch(self, tensors, stream, scalars=None):
        launched.append(str(self.path))
        return original(self, tensors, stream, scalars)
    Kernel.launch = launch
    try:
        yield launched
    finally:
        Kernel.launch = original


def run(case: Case, description: Optional[Path] = None) -> None:
    """Runs `case` through the GPU tests' checks (AssertionError on a wrong result;
    pytest's skip exception when no kernel can be had). With `description`
    (the kernel's path in the library), also asserts that this kernel ran."""
    kernel = case.kernel
    with environment(case.env()), recorded_launches() as launched:
        if kernel.dtype != "e4m3":
            from test_gpu_attention import run_case
            default_scale = to_f32(1 / kernel.head_dim_qk ** 0.5)
            run_case(dtype=kernel.dtype, d=kernel.head_dim_qk, dv=kernel.head_dim_v, b=case.b,
                     hq=case.hq, hk=case.hk, sq=case.sq, sk=case.sk, causal=kernel.causal,
                     window=(kernel.window_left, kernel.window_right), softcap=kernel.softcap,
                     scale=None if kernel.scale == default_scale else kernel.scale,
                     lse=kernel.has_lse, layout=case.layout, out_layout=case.out_layout)
        else:
            _run_fp8(case)
    if description is not None:
        assert str(description) in launched, \
            f"{kernel.key} did not run; launched {launched or 'nothing'}"


def _run_fp8(case: Case) -> None:
    import test_gpu_fp8 as fp8
    import fattn
    kernel = case.kernel
    form = descale_code(kernel.descale)
    fp8.FORMS.setdefault(form, fp8_quantize_args(kernel.descale))
    if kernel.value_layout is None:
        fp8.check_case(b=case.b, sq=case.sq, sk=case.sk, hq=case.hq, hk=case.hk,
                       d=kernel.head_dim_qk, causal=kernel.causal, form=form)
        return
    gen = fp8.new_generator()
    qkv = fp8.varied_qkv(case.b, case.sq, case.sk, case.hq, case.hk, kernel.head_dim_qk, gen)
    q8, k8, v8, kw, deq = fp8.quantize(*qkv, form)
    vt = fattn.transpose_value_fp8(v8)
    if case.padded_vt:
        vt = fp8.padded_vt(vt)
    o, config = fp8.launch_fp8(q8, k8, vt, kw, kernel.causal, v_layout=kernel.value_layout)
    fp8.check_accuracy(o, deq, config)
