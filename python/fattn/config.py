"""Kernel configurations: what one compiled kernel computes, and its cache key."""
from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
import re
import struct
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Tuple

DTYPES = ("f16", "bf16", "e4m3")
# FP8 kernels read e4m3 Q, K, V and write a bf16 output.
OUT_DTYPES = {"f16": "f16", "bf16": "bf16", "e4m3": "bf16"}
DESCALE_RANKS = (0, 2, 3)
# V handed over as [batch, heads_kv, head_dim_v, keys], keys permuted within every 16
# as the sm_90a e4m3 P V wgmma reads them (docs/KERNEL-ABI.md, "value_layout");
# fattn.transpose_value_fp8 makes it.
VALUE_LAYOUT_SM90 = "transposed_wgmma_e4m3_k32"
VALUE_LAYOUTS = (VALUE_LAYOUT_SM90,)

# (rank, block) of the q, k and v descales; block is 0 unless rank is 3.
DescaleForm = Tuple[Tuple[int, int], Tuple[int, int], Tuple[int, int]]

# What a kernel may be tuned for besides the default (long sequences): its
# description's meta "tuned_for", fattn-compile --short-seqs. The tuning
# changes speed, never results; flash_attn_func picks it with
# short_seqs_tuning below, by the compiler's tables (tuning_tables).
TUNINGS = ("short_seqs",)
# fattn-compile --print-tuning, kept in the package for machines without
# fattn-compile (tests/test_cpu_tuning_file.py and the lit test
# Pipelines/print-tuning.test fail when it differs from the compiler's).
TUNING_FILE = Path(__file__).with_name("tuning.json")

# Hopper pipeline kernels (sm_90a) are used by default on sm_90 devices
# (fattn-compile --arch sm_90a); FATTN_ARCH=sm_80 picks the Ampere kernels.
HOPPER_KERNELS_AVAILABLE = True


# Kernels take sizes, windows and descale blocks as 32-bit integers.
INT32_MAX = 2 ** 31 - 1
_ARCH = re.compile(r"sm_[0-9]{2,}[a-z]?")


def to_f32(x: float) -> float:
    """Rounds to the nearest float32, so that keys and attributes are exact."""
    return struct.unpack("<f", struct.pack("<f", float(x)))[0]


def check_arch(arch) -> str:
    """An arch name such as 'sm_80' or 'sm_90a' (it becomes part of file names)."""
    if not (isinstance(arch, str) and _ARCH.fullmatch(arch)):
        raise ValueError(f"arch must look like 'sm_80' or 'sm_90a', got {arch!r}")
    return arch


def check_flag(name: str, value) -> bool:
    """A bool argument: True/False, 0/1 or a numpy bool. Anything else is a
    TypeError: a string such as "False" would be truthy."""
    if isinstance(value, bool) or (isinstance(value, int) and value in (0, 1)) or \
            type(value).__name__ == "bool_":
        return bool(value)
    raise TypeError(f"{name} must be a bool, got {value!r}")


def _real(name: str, value) -> float:
    if isinstance(value, (bool, str, bytes)):
        raise TypeError(f"{name} must be a number, got {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError, RuntimeError):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}") from None


def _f32_or_none(x: float) -> Optional[float]:
    try:
        return to_f32(x)
    except OverflowError:
        return None


def check_scale(value) -> float:
    """softmax_scale: a positive number, finite and non-zero in float32 (the
    kernels' type); returns it rounded to float32."""
    x = _real("softmax_scale", value)
    f = _f32_or_none(x) if math.isfinite(x) and x > 0 else None
    if f is None or f == 0.0:
        raise ValueError(f"softmax_scale must be a positive finite number (in float32), got "
                         f"{value!r}")
    return f


def check_softcap(value) -> float:
    """softcap: 0 (none) or a positive number, finite and non-zero in float32;
    returns it rounded to float32."""
    x = _real("softcap", value)
    f = _f32_or_none(x) if math.isfinite(x) and x >= 0 else None
    if f is None or (x > 0 and f == 0.0):
        raise ValueError(f"softcap must be a finite number >= 0 (non-zero in float32 unless 0), "
                         f"got {value!r}")
    return f


def check_window(name: str, value) -> int:
    """One side of a window: an int (negative or None: unbounded, -1) at most INT32_MAX."""
    if value is None:
        return -1
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int (-1: unbounded), got {value!r}")
    if value > INT32_MAX:
        raise ValueError(f"{name} must be at most 2**31 - 1 (or -1: unbounded), got {value}")
    return -1 if value < 0 else int(value)


def f32_bits(x: float) -> str:
    return struct.pack("<f", float(x))[::-1].hex()


def descale_code(form: DescaleForm) -> str:
    """"q3b128k3b128v2": rank per tensor, with the block of a rank-3 one."""
    return "".join(f"{t}{r}" + (f"b{b}" if r == 3 else "") for t, (r, b) in zip("qkv", form))


_DESCALE_CODE = re.compile(r"q(\d+)(?:b(\d+))?k(\d+)(?:b(\d+))?v(\d+)(?:b(\d+))?")


def canonical_descale(descale) -> Optional[DescaleForm]:
    """The canonical form of a descale spec: None (no descale operands), a code
    ("q0k0v0", "q3b128k3b128v2"), a description's {"q": {"rank": 3, "block": 128},
    ...} or three (rank, block) pairs. Raises ValueError on anything else."""
    if descale is None:
        return None
    if isinstance(descale, str):
        m = _DESCALE_CODE.fullmatch(descale)
        if not m:
            raise ValueError(f"descale code must look like 'q0k2v3b128', got {descale!r}")
        g = m.groups()
        pairs = [(int(g[i]), int(g[i + 1] or 0)) for i in (0, 2, 4)]
    elif isinstance(descale, Mapping):
        if set(descale) != {"q", "k", "v"}:
            raise ValueError(f"descale must have the keys q, k, v, got {sorted(descale)}")
        pairs = []
        for t in "qkv":
            entry = descale[t]
            if not isinstance(entry, Mapping) or not set(entry) <= {"rank", "block"}:
                raise ValueError(f"descale[{t!r}] must be {{'rank': R[, 'block': B]}}, "
                                 f"got {entry!r}")
            pairs.append((entry.get("rank"), entry.get("block", 0)))
    else:
        try:
            pairs = [tuple(p) for p in descale]
        except TypeError:
            raise ValueError(f"descale must be three (rank, block) pairs, got {descale!r}") \
                from None
        if len(pairs) != 3 or any(len(p) != 2 for p in pairs):
            raise ValueError(f"descale must be three (rank, block) pairs, got {descale!r}")
    out = []
    for t, (rank, block) in zip("qkv", pairs):
        if isinstance(rank, bool) or not isinstance(rank, int) or rank not in DESCALE_RANKS:
            raise ValueError(f"the {t} descale rank must be 0, 2 or 3, got {rank!r}")
        if isinstance(block, bool) or not isinstance(block, int):
            raise ValueError(f"the {t} descale block must be an int, got {block!r}")
        if rank == 3 and block <= 0:
            raise ValueError(f"a per-block (rank 3) {t} descale needs a positive block, "
                             f"got {block}")
        if block > INT32_MAX:
            raise ValueError(f"the {t} descale block must be at most 2**31 - 1, got {block}")
        if rank != 3 and block != 0:
            raise ValueError(f"the {t} descale has rank {rank}: a block ({block}) is only for "
                             "rank 3")
        out.append((rank, block))
    (_, bk), (_, bv) = out[1], out[2]
    if bk and bv and bk != bv:
        raise ValueError(f"per-block k and v descales share one block (descale_block_kv), got "
                         f"{bk} and {bv}")
    return tuple(out)


def check_value_layout(value_layout: Optional[str], dtype: str) -> None:
    """None, or VALUE_LAYOUT_SM90 with dtype "e4m3"; raises ValueError otherwise."""
    if value_layout is None:
        return
    if not isinstance(value_layout, str) or value_layout not in VALUE_LAYOUTS:
        raise ValueError(f"value_layout must be None or one of {VALUE_LAYOUTS}, got "
                         f"{value_layout!r}")
    if dtype != "e4m3":
        raise ValueError(f"value_layout {value_layout!r} is only for dtype 'e4m3', got "
                         f"{dtype!r}")


# The softcap of a runtime-scalars KernelConfig that has one: a placeholder
# (the kernel's value comes with each launch) that makes the .mlir carry a
# softcap for fattn-compile --runtime-scalars to turn into a parameter.
RUNTIME_SOFTCAP = 1.0


@dataclass(frozen=True)
class KernelConfig:
    """One fattn.attention configuration, canonical (build with `make`).

    window_left/window_right: -1 is unbounded; `causal` implies window_right = 0
    (FlashAttention-2 semantics, aligned bottom-right). softcap 0 is no softcap.
    scale and softcap are float32 values. dtype "e4m3" is FP8 Q, K, V with a
    bf16 output; `descale` then says how the kernel reads the q, k, v descale
    factors: ((rank, block), ...) as canonical_descale, None for none.
    value_layout (e4m3 only): None for V as [batch, heads_kv, seq_k, head_dim_v],
    VALUE_LAYOUT_SM90 for V pre-transposed by transpose_value_fp8.
    tuned_for: None (the default kernel) or one of TUNINGS: the same results
    from a kernel tuned for other sizes, kept apart in a library by its key.
    runtime_scalars: the kernel takes the scale and, when it has one, the
    softcap at each launch (fattn-compile --runtime-scalars; the
    description's "runtime_scalars"), so one kernel serves every value: scale
    is then the default 1/sqrt(head_dim_qk) and softcap RUNTIME_SOFTCAP or 0
    (whether the kernel applies a softcap), and the key holds neither value.
    """

    arch: str
    dtype: str
    head_dim_qk: int
    head_dim_v: int
    causal: bool
    window_left: int
    window_right: int
    softcap: float
    scale: float
    has_lse: bool
    descale: Optional[DescaleForm] = None
    value_layout: Optional[str] = None
    tuned_for: Optional[str] = None
    runtime_scalars: bool = False

    @staticmethod
    def make(arch: str, dtype: str, head_dim_qk: int, head_dim_v: int | None = None,
             causal: bool = False, window_left: int = -1, window_right: int = -1,
             softcap: float = 0.0, scale: float | None = None,
             has_lse: bool = False, descale=None,
             value_layout: Optional[str] = None,
             tuned_for: Optional[str] = None,
             runtime_scalars: bool = False) -> "KernelConfig":
        if not isinstance(dtype, str) or dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {DTYPES}, got {dtype!r}")
        descale = canonical_descale(descale)
        if descale is not None and dtype != "e4m3":
            raise ValueError(f"descale factors are only for dtype 'e4m3', got {dtype!r}")
        check_value_layout(value_layout, dtype)
        if tuned_for is not None and (not isinstance(tuned_for, str) or tuned_for not in TUNINGS):
            raise ValueError(f"tuned_for must be None or one of {TUNINGS}, got {tuned_for!r}")
        check_arch(arch)
        head_dim_v = head_dim_qk if head_dim_v is None else head_dim_v
        for name, d in (("head_dim_qk", head_dim_qk), ("head_dim_v", head_dim_v)):
            if isinstance(d, bool) or not isinstance(d, int) or d < 1 or d > 1024:
                raise ValueError(f"{name} must be an integer in [1, 1024], got {d!r}")
        causal, has_lse = check_flag("causal", causal), check_flag("has_lse", has_lse)
        wl = check_window("window_left", window_left)
        wr = check_window("window_right", window_right)
        if causal:
            wr = 0
        elif wr == 0:
            causal = True  # the same mask: one kernel for both spellings
        scale = check_scale(1.0 / math.sqrt(head_dim_qk) if scale is None else scale)
        softcap = check_softcap(softcap)
        runtime_scalars = check_flag("runtime_scalars", runtime_scalars)
        if runtime_scalars:  # the values come with each launch
            scale = check_scale(1.0 / math.sqrt(head_dim_qk))
            softcap = RUNTIME_SOFTCAP if softcap > 0 else 0.0
        return KernelConfig(arch, dtype, int(head_dim_qk), int(head_dim_v), causal, wl, wr,
                            softcap, scale, has_lse, descale, value_layout, tuned_for,
                            runtime_scalars)

    @property
    def out_dtype(self) -> str:
        return OUT_DTYPES[self.dtype]

    @property
    def key(self) -> str:
        """A file-name-safe, exact key: scale and softcap by their float32 bits,
        or, with runtime scalars, only whether there is a softcap."""
        mask = "causal" if self.causal else "full"
        if self.runtime_scalars:
            scalars = "-rt-softcap" if self.softcap > 0 else "-rt"
        else:
            scalars = f"-sc{f32_bits(self.softcap)}-s{f32_bits(self.scale)}"
        return (f"{self.arch}-{self.dtype}-d{self.head_dim_qk}x{self.head_dim_v}-{mask}"
                f"-wl{self.window_left}-wr{self.window_right}{scalars}"
                f"-{'lse' if self.has_lse else 'nolse'}"
                + (f"-ds{descale_code(self.descale)}" if self.descale is not None else "")
                + ("-vt" if self.value_layout is not None else "")
                + (f"-{self.tuned_for}" if self.tuned_for is not None else ""))

    def descale_json(self) -> Optional[Dict[str, Any]]:
        """The descale form as a description's "descale" key (KERNEL-ABI.md)."""
        if self.descale is None:
            return None
        return {t: ({"rank": r, "block": b} if r == 3 else {"rank": r})
                for t, (r, b) in zip("qkv", self.descale)}

    def to_json(self) -> Dict[str, Any]:
        d = asdict(self)
        # Configurations without descales (or value layout) keep the exact form older
        # indexes hold.
        if self.descale is None:
            del d["descale"]
        else:
            d["descale"] = self.descale_json()
        if self.value_layout is None:
            del d["value_layout"]
        if self.tuned_for is None:
            del d["tuned_for"]
        if not self.runtime_scalars:
            del d["runtime_scalars"]
        return d

    @staticmethod
    def from_json(d: Mapping[str, Any]) -> "KernelConfig":
        return KernelConfig.make(d["arch"], d["dtype"], d["head_dim_qk"], d["head_dim_v"],
                                 d["causal"], d["window_left"], d["window_right"], d["softcap"],
                                 d["scale"], d["has_lse"], d.get("descale"),
                                 d.get("value_layout"), d.get("tuned_for"),
                                 d.get("runtime_scalars", False))

    @staticmethod
    def from_description(desc: Mapping[str, Any]) -> "KernelConfig":
        """The configuration a kernel description (KERNEL-ABI.md) says it computes."""
        if not isinstance(desc, Mapping):
            raise TypeError(f"a kernel description is a JSON object, got {type(desc).__name__}")
        out_dtype = desc.get("out_dtype", desc["dtype"])
        if desc["dtype"] in OUT_DTYPES and out_dtype != OUT_DTYPES[desc["dtype"]]:
            raise ValueError(f"out_dtype {out_dtype!r} is not fattn's for dtype "
                             f"{desc['dtype']!r} ({OUT_DTYPES[desc['dtype']]!r})")
        runtime = desc.get("runtime_scalars", [])
        if not isinstance(runtime, list):
            raise TypeError(f"a description's runtime_scalars is a JSON list, got "
                            f"{type(runtime).__name__}")
        softcap = RUNTIME_SOFTCAP if "softcap" in runtime else desc["softcap"]
        return KernelConfig.make(desc["arch"], desc["dtype"], desc["head_dim_qk"],
                                 desc["head_dim_v"], desc["causal"], desc["window_left"],
                                 desc["window_right"], softcap, desc["scale"],
                                 desc["has_lse"], desc.get("descale"),
                                 desc.get("value_layout"), _tuned_for(desc), bool(runtime))


def _tuned_for(desc: Mapping[str, Any]) -> Optional[str]:
    meta = desc.get("meta")
    if meta is None:
        return None
    if not isinstance(meta, Mapping):
        raise TypeError(f"a description's meta is a JSON object, got {type(meta).__name__}")
    return meta.get("tuned_for")


@functools.lru_cache(maxsize=None)
def tuning_tables() -> Mapping[str, Any]:
    """fattn-compile's tables that pick a kernel for a configuration, by arch
    (TUNING_FILE, docs/SCHEDULING.md): "short_seqs", the configurations with
    a short-sequence kernel and the longest sequence that runs it,
    "descale_routes", the descales that run on another kernel, and
    "head_dims", the head dims each arch compiles (head_dim_rule)."""
    with open(TUNING_FILE, encoding="utf-8") as f:
        tables = json.load(f)
    if tables.get("version") != 1:
        raise ValueError(f"{TUNING_FILE}: version {tables.get('version')!r}, expected 1")
    return tables


def head_dim_rule(arch: str, dtype: str) -> Optional[Mapping[str, Any]]:
    """The compiler's rule for the head dims of `arch`'s kernels with Q, K, V
    of `dtype` (tuning_tables' "head_dims"; include/fattn/Dialect/FAttn/Utils/
    HeadDims.h): {"granule": G, "min": m, "max": M} (every multiple of G from m,
    G where absent, up to M), "value_may_differ", and where V's head dim may
    differ, "narrow": {"head_dim": n, "other_max": o} (a head dim of at most n
    only with one of at most o). None where `arch` has no such kernel."""
    rows = tuning_tables().get(arch, {}).get("head_dims", [])
    return next((row for row in rows if dtype in row["dtypes"]), None)


def _takes(rule: Mapping[str, Any], head_dim: int) -> bool:
    smallest = rule.get("min", rule["granule"])
    return head_dim % rule["granule"] == 0 and smallest <= head_dim <= rule["max"]


def _head_dims_text(rule: Mapping[str, Any]) -> str:
    smallest = rule.get("min", rule["granule"])
    start = f" from {smallest}" if smallest > rule["granule"] else ""
    return f"multiples of {rule['granule']}{start} up to {rule['max']}"


def check_head_dims(config: KernelConfig) -> None:
    """Raises ValueError where fattn-compile builds no kernel for `config`'s
    head dims on its arch (head_dim_rule), naming the head dim, the arch and
    the head dims it takes. An arch that the compiler's tables do not name is
    left to the compiler, which names the archs it compiles for."""
    arch, dtype = config.arch, config.dtype
    if "head_dims" not in tuning_tables().get(arch, {}):
        return
    rule = head_dim_rule(arch, dtype)
    if rule is None:
        takes = sorted({t for row in tuning_tables()[arch]["head_dims"] for t in row["dtypes"]})
        raise ValueError(f"{arch} has no {dtype} kernels (it takes {', '.join(takes)})")
    d, dv = config.head_dim_qk, config.head_dim_v
    if not _takes(rule, d):
        raise ValueError(f"head_dim {d} is not supported on {arch} with {dtype} inputs: "
                         f"{arch} takes head dims {_head_dims_text(rule)}")
    if dv != d and not rule["value_may_differ"]:
        raise ValueError(f"head_dim_v {dv} differs from head_dim {d}: {arch} takes V's head "
                         f"dim equal to Q's and K's with {dtype} inputs")
    if dv != d and not _takes(rule, dv):
        raise ValueError(f"head_dim_v {dv} is not supported on {arch} with {dtype} inputs: "
                         f"{arch} takes head dims {_head_dims_text(rule)}")
    narrow = rule.get("narrow")
    if narrow and min(d, dv) <= narrow["head_dim"] and max(d, dv) > narrow["other_max"]:
        raise ValueError(f"head_dim {d} with head_dim_v {dv} is not supported on {arch} with "
                         f"{dtype} inputs: {arch} takes a head dim of {narrow['head_dim']} or "
                         f"less only with one of at most {narrow['other_max']}")


def _descale_ranks(config: KernelConfig) -> Tuple[int, int, int]:
    """The q, k, v descale ranks, -1 where the kernel takes none."""
    if config.descale is None:
        return (-1, -1, -1)
    return tuple(rank for rank, _ in config.descale)


def _mask(config: KernelConfig) -> str:
    if config.window_left < 0 and config.window_right < 0:
        return "none"
    return "causal" if config.window_left < 0 and config.window_right == 0 else "window"


def matches(when: Mapping[str, Any], config: KernelConfig) -> bool:
    """Whether `config` is one of the configurations of a table row's "when"
    (every key must hold; Tuning.h's TuningCondition). The tables speak of one
    head dim for Q, K and V."""
    if config.head_dim_v != config.head_dim_qk:
        return False
    ranks = _descale_ranks(config)
    facts = {
        "dtypes": lambda v: config.dtype in v,
        "head_dim": lambda v: v[0] <= config.head_dim_qk <= v[1],
        "mask": lambda v: _mask(config) == v,
        "softcap": lambda v: (config.softcap > 0) == v,
        "lse": lambda v: config.has_lse == v,
        "value_transposed": lambda v: (config.value_layout is not None) == v,
        "kv_per_block_descales": lambda v: (3 in ranks[1:]) == v,
        "max_per_tensor_descales": lambda v: sum(r <= 0 for r in ranks) <= v,
        "descale_ranks": lambda v: list(ranks) == list(v),
    }
    for key, value in when.items():
        if key not in facts:
            raise ValueError(f"{TUNING_FILE}: unknown condition {key!r} (a newer fattn-compile's?)")
        if not facts[key](value):
            return False
    return True


def _short_seqs_row(config: KernelConfig) -> Optional[Mapping[str, Any]]:
    if config.tuned_for is not None:
        return None
    rows = tuning_tables().get(config.arch, {}).get("short_seqs", [])
    return next((row for row in rows if matches(row["when"], config)), None)


def has_short_seqs_kernel(config: KernelConfig) -> bool:
    """Whether fattn-compile --short-seqs builds a different kernel for
    `config` (a row of the compiler's short-sequence table, tuning_tables;
    tests/test_cpu_short_seqs_rule.py checks the rows against fattn-compile's
    PTX with and without --short-seqs)."""
    return _short_seqs_row(config) is not None


def short_seqs_max(config: KernelConfig) -> int:
    """The longest sequence (queries or keys) that runs `config`'s short-sequence
    kernel (its row's "max_seq"; 0 without one)."""
    row = _short_seqs_row(config)
    return row["max_seq"] if row is not None else 0


def runtime_scalars_wanted() -> bool:
    """Whether flash_attn_func and build_library's presets use the kernels that
    take the scale and the softcap at each launch, one kernel for every value
    (FATTN_RUNTIME_SCALARS=1, read when a call's configuration is first
    checked), or the kernels that compile them in, one per value (the default;
    docs/PERF.md compares them)."""
    return os.environ.get("FATTN_RUNTIME_SCALARS") == "1"


def short_seqs_tuning(config: KernelConfig, seq_q: int, seq_k: int) -> KernelConfig:
    """The kernel to run for these lengths: the short-sequence tuning where
    fattn-compile --short-seqs builds a different kernel
    (has_short_seqs_kernel) and both lengths are at most short_seqs_max, else
    `config` as it is. FATTN_SHORT_SEQS=0 keeps the default kernels."""
    if os.environ.get("FATTN_SHORT_SEQS") == "0":
        return config
    if has_short_seqs_kernel(config) and max(seq_q, seq_k) <= short_seqs_max(config):
        return dataclasses.replace(config, tuned_for="short_seqs")
    return config


def per_head_routing(config: KernelConfig) -> Optional[KernelConfig]:
    """The kernel of other descales that takes `config`'s (each factor passed
    as a stride-0 view: per-tensor descales as [batch, heads_kv] ones), or None
    to run `config`'s own kernel: the compiler's "descale_routes"
    (tuning_tables), where the other kernel writes the same output bit for bit
    and measured faster (sm_90a FP8 head dim 128 without a mask: the
    per-(batch, head) kernel, 1-5%; docs/PERF.md, 2026-12-01).
    FATTN_PER_TENSOR_KERNELS=1 keeps the per-tensor kernels."""
    if os.environ.get("FATTN_PER_TENSOR_KERNELS") == "1":
        return None
    for route in tuning_tables().get(config.arch, {}).get("descale_routes", []):
        if matches(route["when"], config):
            descale = canonical_descale([(rank, 0) for rank in route["descale_ranks"]])
            return dataclasses.replace(config, descale=descale)
    return None


def default_arch(capability: tuple) -> str:
    """The pipeline for a device of this compute capability (FATTN_ARCH overrides)."""
    env = os.environ.get("FATTN_ARCH")
    if env:
        return env
    hopper = HOPPER_KERNELS_AVAILABLE or os.environ.get("FATTN_ENABLE_SM90") == "1"
    if tuple(capability) == (9, 0) and hopper:
        return "sm_90a"
    return "sm_80"
