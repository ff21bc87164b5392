#!/usr/bin/env python3
"""Mutation fuzzer of fattn-opt and fattn-compile over the lit inputs.

    python3 scripts/fuzz.py --seconds 60                       # what scripts/test.sh runs
    python3 scripts/fuzz.py --seconds 1800 --seed 7 --out /tmp/fuzz
    python3 scripts/fuzz.py --bin build-asan/bin --seconds 600 # the sanitizer build's tools
    python3 scripts/fuzz.py --reduce /tmp/fuzz/<class>         # shrink a saved input
    python3 scripts/fuzz.py --seeds 'test/Conversion/SM90/*' --seconds 600  # some seeds only

Each run takes one chunk of a test/**/*.mlir file (split at `// -----`), mutates it (numbers to
boundary values, attribute and identifier names, types, SSA names, string values, deleted,
duplicated or swapped lines and tokens) and runs it through one of:

- `fattn-opt` without passes, its output parsed again by `fattn-opt`;
- `fattn-opt` with a pass pipeline from a RUN line or assembled from `fattn-opt --help`, options
  set to odd values, its output parsed again;
- `fattn-compile --emit ptx` for sm_80 or sm_90a with odd tile and pipeline options, each PTX
  file then assembled by ptxas for that architecture.

A failure is a crash: a signal, `LLVM ERROR`, an assertion, a stack dump, a sanitizer report,
any "internal error", a run past --timeout, printed IR that does not parse back, or PTX that
ptxas rejects. A clean diagnostic with a non-zero exit code is not a failure. Failures are
grouped into classes by a signature (the kind and the first line of the error, with numbers,
names and paths blanked); each class's first input is saved in --out as input.mlir with cmd.sh
(the command that reproduces it) and output.txt, and summary.txt lists every class.
Cases are a pure function of (--seed, case number), so a seed reproduces a run.
Exit status: 1 if a class is not matched by the allowlist (scripts/fuzz-allowlist.txt), else 0.
"""
from __future__ import annotations

import argparse
import fnmatch
import hashlib
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Tuple

REPO = Path(__file__).resolve().parents[1]

BOUNDARY_INTS = ["0", "-1", "1", "2", "3", "7", "8", "15", "16", "31", "32", "63", "64", "65",
                 "96", "127", "128", "129", "192", "224", "255", "256", "257", "512", "1000",
                 "4096", "65535", "65536", "2147483647", "2147483648", "-2147483648",
                 "4294967295", "4294967296", "9223372036854775807", "9223372036854775808",
                 "-9223372036854775808", "18446744073709551616", "99999999999999999999999999"]
BOUNDARY_FLOATS = ["0.0", "-0.0", "1.0", "-1.0", "0.5", "1.0e-45", "3.4e38", "1.0e39",
                   "-1.0e39", "1.0e308", "0x7FC00000", "0x7F800000", "0xFF800000"]
TYPES = ["f32", "f16", "bf16", "f64", "f8E4M3FN", "f8E5M2", "i1", "i8", "i32", "i64", "index"]
ODD_STRINGS = ["", "k", "_", "a-b", "1k", "k.x", "k$", "a b", "%k", "__fattn", "fattn_smem",
               "x" * 300, "transposed_wgmma_e4m3_k32", "kernel", "main", "\\22"]
ODD_INTS = ["0", "-1", "1", "2", "3", "5", "7", "16", "24", "32", "48", "64", "80", "96", "112",
            "128", "160", "176", "192", "224", "232", "240", "256", "257", "512", "100000",
            "2147483647", "2147483648", "9223372036854775807", "9223372036854775808",
            "99999999999999999999", "abc", ""]
ODD_BOOLS = ["true", "false", "1", "0", "maybe", ""]
# fattn-compile's own options (tools/fattn-compile).
COMPILE_INT_OPTIONS = ["--block-m", "--block-n", "--stages"]
COMPILE_FLAG_OPTIONS = ["--short-seqs", "--linear-exp2", "--linear-exp2=false"]

CRASH_MARKERS = [
    ("sanitizer", re.compile(r"ERROR: (AddressSanitizer|LeakSanitizer|MemorySanitizer): .*")),
    ("sanitizer", re.compile(r"runtime error: .*")),
    ("llvm-error", re.compile(r"LLVM ERROR: .*")),
    ("assertion", re.compile(r"Assertion .* failed.*")),
    ("internal-error", re.compile(r".*internal error.*", re.IGNORECASE)),
    ("crash", re.compile(r"PLEASE submit a bug report.*")),
    ("crash", re.compile(r"Stack dump:.*")),
]


class Case(NamedTuple):
    index: int
    target: str          # "parse", "opt" or "compile"
    args: List[str]      # tool options (without the input and -o)
    text: str            # the mutated input
    origin: str          # seed file, for the report


class Finding(NamedTuple):
    kind: str
    signature: str
    output: str          # the failing step's stderr (and stdout where useful)
    commands: List[str]  # shell commands that reproduce it, run in the case's folder


# ---------------------------------------------------------------------------------------------
# Seeds: the lit inputs and the passes their RUN lines name.

def strip_comments(text: str) -> str:
    return "\n".join(l for l in text.splitlines() if not l.lstrip().startswith("//")) + "\n"


def run_lines(text: str) -> List[str]:
    """The RUN lines of a lit test, continuation lines joined."""
    lines, cur = [], ""
    for l in text.splitlines():
        m = re.match(r"\s*(//|#)\s*RUN:(.*)", l)
        if not m:
            continue
        cur += m.group(2).strip()
        if cur.endswith("\\"):
            cur = cur[:-1] + " "
            continue
        lines.append(cur)
        cur = ""
    return lines


def opt_passes_of(run: str) -> Optional[List[str]]:
    """The pass options of a `fattn-opt %s ...` RUN line, or None."""
    m = re.search(r"(?:^|\s)fattn-opt\s+%s\s+([^|]*)", run)
    if not m:
        return None
    try:
        tokens = shlex.split(m.group(1))
    except ValueError:
        return None
    keep, skip = [], False
    for t in tokens:
        if skip:
            skip = False
            continue
        if t == "-o":
            skip = True
            continue
        if not t.startswith("-") or t.startswith(("-o", "-verify-diagnostics", "-split-input-file",
                                                  "--dump-pass-pipeline", "--mlir-print", "2>")):
            continue
        keep.append(t)
    return keep or None


def compile_options_of(run: str) -> Optional[List[str]]:
    m = re.search(r"fattn-compile\s+%s\s+([^|;&]*)", run)
    if not m:
        return None
    try:
        tokens = shlex.split(m.group(1))
    except ValueError:
        return None
    keep, skip = [], False
    for i, t in enumerate(tokens):
        if skip:
            skip = False
            continue
        if t in ("-o", "--arch", "--emit"):
            skip = True
            continue
        if t.startswith(("-o", "--arch", "--emit", "-v", "2>")) or not t.startswith("-"):
            continue
        if t in COMPILE_INT_OPTIONS and i + 1 < len(tokens):
            t, skip = "%s=%s" % (t, tokens[i + 1]), True
        keep.append(t)
    return keep


class Corpus:
    def __init__(self, test_dir: Path, opt_help: str, seeds: Optional[List[str]] = None):
        self.chunks: List[Tuple[str, str]] = []    # (origin, text)
        self.invalid_chunks: List[Tuple[str, str]] = []
        self.attention_chunks: List[Tuple[str, str]] = []
        self.pipelines: List[List[str]] = []
        self.compile_options: List[List[str]] = [[]]
        for path in sorted(test_dir.rglob("*.mlir")):
            raw = path.read_text(errors="replace")
            rel = str(path.relative_to(REPO))
            if seeds and not any(fnmatch.fnmatch(rel, g) for g in seeds):
                continue
            for run in run_lines(raw):
                p = opt_passes_of(run)
                if p and p not in self.pipelines:
                    self.pipelines.append(p)
                c = compile_options_of(run)
                if c is not None and c not in self.compile_options:
                    self.compile_options.append(c)
            for chunk in re.split(r"^// -----.*$", raw, flags=re.M):
                body = strip_comments(chunk)
                if not body.strip():
                    continue
                # Inputs written to fail (verifier tests) are mutated less often.
                chunks = self.invalid_chunks if "expected-error" in chunk else self.chunks
                chunks.append((rel, body))
                if "fattn.attention" in body and "func.func" in body and chunks is self.chunks:
                    self.attention_chunks.append((rel, body))
        text = "\n".join(t for _, t in self.chunks + self.invalid_chunks)
        self.identifiers = sorted(set(re.findall(r"\b([a-z_][a-z0-9_]*)\s*=", text)))
        self.typed_attributes = sorted(set(
            re.findall(r"\b([a-z_]+) = -?[0-9.e+-]+ : (i64|i32|f32)", text))) or [("x", "i64")]
        self.ops = sorted(set(re.findall(r"\b(fattn\.[a-z_0-9]+)", text)))
        self.lines = [l for _, t in self.chunks + self.invalid_chunks for l in t.splitlines()
                      if l.strip()]
        self.passes = parse_pass_help(opt_help)


def parse_pass_help(help_text: str) -> Dict[str, Dict[str, str]]:
    """fattn's passes and pipelines from `fattn-opt --help`: name -> {option: kind}."""
    passes: Dict[str, Dict[str, str]] = {}
    current = None
    for line in help_text.splitlines():
        m = re.match(r"^      --((?:convert-)?fattn[a-z0-9-]*)\s", line)
        if m:
            current = m.group(1)
            passes[current] = {}
            continue
        m = re.match(r"^        --([a-z0-9-]+)(=<(\w+)>)?\s", line)
        if m and current:
            passes[current][m.group(1)] = m.group(3) or "bool"
            continue
        if not line.startswith("        "):
            current = None
    return passes


# ---------------------------------------------------------------------------------------------
# Mutations.

def replace_span(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


def mutate_number(rng: random.Random, text: str, corpus: Corpus) -> str:
    matches = list(re.finditer(r"(?<![%#\w.])-?\d+(\.\d+)?([eE][-+]?\d+)?", text))
    if not matches:
        return text
    m = rng.choice(matches)
    pool = BOUNDARY_FLOATS if m.group(1) or m.group(2) else BOUNDARY_INTS
    if rng.random() < 0.15:
        pool = BOUNDARY_INTS + BOUNDARY_FLOATS
    return replace_span(text, m.start(), m.end(), rng.choice(pool))


def mutate_shape(rng: random.Random, text: str, corpus: Corpus) -> str:
    """One dimension of a memref type changed in every occurrence of that type."""
    types = sorted(set(re.findall(r"memref<[^<>]*(?:<[^<>]*>[^<>]*)*>", text)))
    if not types:
        return text
    old = rng.choice(types)
    dims = list(re.finditer(r"(?<=[<x])(\d+|\?)(?=x)", old))
    if not dims:
        return text
    d = rng.choice(dims)
    value = rng.choice(BOUNDARY_INTS[:30] + ["?"])
    if value.startswith("-"):
        value = value[1:]
    return text.replace(old, old[:d.start()] + value + old[d.end():])


def mutate_attribute(rng: random.Random, text: str, corpus: Corpus) -> str:
    """An integer or float attribute of an op set to a boundary value, or added to a dict."""
    matches = list(re.finditer(r"\b([a-z_]+) = (-?[0-9.e+-]+) : (i64|i32|f32)", text))
    if matches and rng.random() < 0.7:
        m = rng.choice(matches)
        pool = BOUNDARY_FLOATS if m.group(3) == "f32" else BOUNDARY_INTS
        return replace_span(text, m.start(2), m.end(2), rng.choice(pool))
    dicts = list(re.finditer(r"(fattn\.[a-z_]+\b[^\n]*?\{)([a-z_])", text))
    if not dicts:
        return text
    m = rng.choice(dicts)
    name, kind = rng.choice(corpus.typed_attributes)
    pool = BOUNDARY_FLOATS if kind == "f32" else BOUNDARY_INTS
    return replace_span(text, m.end(1), m.end(1), "%s = %s : %s, " % (name, rng.choice(pool), kind))


def mutate_identifier(rng: random.Random, text: str, corpus: Corpus) -> str:
    matches = list(re.finditer(r"\b([a-z_][a-z0-9_]*)(\s*=)", text))
    if not matches or not corpus.identifiers:
        return text
    m = rng.choice(matches)
    return replace_span(text, m.start(1), m.end(1), rng.choice(corpus.identifiers))


def mutate_op_name(rng: random.Random, text: str, corpus: Corpus) -> str:
    matches = list(re.finditer(r"\bfattn\.[a-z_0-9]+", text))
    if not matches or not corpus.ops:
        return text
    m = rng.choice(matches)
    return replace_span(text, m.start(), m.end(), rng.choice(corpus.ops))


def mutate_type(rng: random.Random, text: str, corpus: Corpus) -> str:
    matches = list(re.finditer(r"\b(f32|f16|bf16|f64|f8E4M3FN|f8E5M2|i1|i8|i32|i64|index)\b", text))
    if not matches:
        return text
    m = rng.choice(matches)
    if rng.random() < 0.5:  # every occurrence, so the input stays consistent
        return re.sub(r"\b%s\b" % re.escape(m.group(1)), rng.choice(TYPES), text)
    return replace_span(text, m.start(), m.end(), rng.choice(TYPES))


def mutate_ssa(rng: random.Random, text: str, corpus: Corpus) -> str:
    matches = list(re.finditer(r"%[A-Za-z_0-9#]+", text))
    if len(matches) < 2:
        return text
    m = rng.choice(matches)
    return replace_span(text, m.start(), m.end(), rng.choice(matches).group(0))


def mutate_string(rng: random.Random, text: str, corpus: Corpus) -> str:
    matches = list(re.finditer(r'"[^"\n]*"|@[A-Za-z_0-9$.]+', text))
    if not matches:
        return text
    m = rng.choice(matches)
    s = rng.choice(ODD_STRINGS)
    new = ('@"%s"' % s if rng.random() < 0.7 else "@" + (s or "x")) if m.group(0).startswith("@") \
        else '"%s"' % s
    return replace_span(text, m.start(), m.end(), new)


def mutate_bool(rng: random.Random, text: str, corpus: Corpus) -> str:
    matches = list(re.finditer(r"\b(true|false)\b", text))
    if not matches:
        return text
    m = rng.choice(matches)
    return replace_span(text, m.start(), m.end(), "false" if m.group(0) == "true" else "true")


def mutate_lines(rng: random.Random, text: str, corpus: Corpus) -> str:
    lines = text.splitlines()
    if not lines:
        return text
    i = rng.randrange(len(lines))
    action = rng.randrange(4)
    if action == 0:
        del lines[i]
    elif action == 1:
        lines.insert(i, lines[i])
    elif action == 2:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    else:
        lines.insert(i, rng.choice(corpus.lines))
    return "\n".join(lines) + "\n"


def mutate_token(rng: random.Random, text: str, corpus: Corpus) -> str:
    matches = list(re.finditer(r"[A-Za-z_0-9.%#@\"]+|[{}()<>\[\],:=]", text))
    if not matches:
        return text
    m = rng.choice(matches)
    action = rng.randrange(3)
    if action == 0:
        return replace_span(text, m.start(), m.end(), "")
    if action == 1:
        return replace_span(text, m.start(), m.end(), m.group(0) + " " + m.group(0))
    return replace_span(text, m.start(), m.end(), rng.choice(matches).group(0))


MUTATORS = [(mutate_number, 4), (mutate_shape, 4), (mutate_attribute, 4), (mutate_identifier, 2), (mutate_op_name, 1), (mutate_type, 2),
            (mutate_ssa, 1), (mutate_string, 2), (mutate_bool, 1), (mutate_lines, 2),
            (mutate_token, 2)]


def mutate(rng: random.Random, text: str, corpus: Corpus) -> str:
    funcs, weights = zip(*MUTATORS)
    for _ in range(rng.choice([0, 1, 1, 1, 2, 2, 3])):
        text = rng.choices(funcs, weights)[0](rng, text, corpus)
    return text


def odd_value(rng: random.Random, kind: str) -> str:
    if kind == "bool":
        return rng.choice(ODD_BOOLS)
    if kind == "string":
        return rng.choice(ODD_STRINGS[:-3])
    return rng.choice(ODD_INTS)


def mutate_pass_option(rng: random.Random, arg: str, corpus: Corpus) -> str:
    """--pass or --pass="a=1 b=2" with one option added or set to an odd value."""
    m = re.match(r"-{1,2}([a-z0-9-]+)(=(.*))?$", arg)
    if not m or m.group(1) not in corpus.passes:
        return arg
    name, body = m.group(1), m.group(3) or ""
    body = body.strip('"')
    options = corpus.passes[name]
    items = [kv for kv in body.split() if kv]
    if options and rng.random() < 0.9:
        opt = rng.choice(sorted(options))
        items = [kv for kv in items if not kv.startswith(opt + "=")]
        items.append("%s=%s" % (opt, odd_value(rng, options[opt])))
    else:  # an option the pass does not have
        items.append(rng.choice(["nope=1", "block-m", "=3", "block-m=1=2", "{", "}"]))
    return "--%s=%s" % (name, " ".join(items))


def make_pipeline(rng: random.Random, corpus: Corpus) -> List[str]:
    if corpus.pipelines and rng.random() < 0.6:
        passes = list(rng.choice(corpus.pipelines))
    else:
        names = sorted(corpus.passes)
        passes = ["--" + rng.choice(names) for _ in range(rng.choice([1, 1, 2, 3, 4]))]
    if rng.random() < 0.6:
        i = rng.randrange(len(passes))
        passes[i] = mutate_pass_option(rng, passes[i], corpus)
    r = rng.random()
    if r < 0.04:
        passes.append(rng.choice(["--fattn-no-such-pass", "--fattn-tile=", "--fattn-tile={",
                                  "--pass-pipeline=builtin.module(fattn-tile{block-m=})",
                                  "--pass-pipeline=builtin.module(func.func(fattn-tile))",
                                  "--fattn-tile=block-m=64,block-n=64"]))
    elif r < 0.1:
        passes.append(rng.choice(["--canonicalize", "--cse", "--symbol-dce"]))
    return passes


def make_compile_options(rng: random.Random, corpus: Corpus, arch: str) -> List[str]:
    opts = list(rng.choice(corpus.compile_options))
    if arch == "sm_80":  # the tuned sm_90a options are invalid there
        opts = [o for o in opts if not o.startswith("--pipeline-options")]
    r = rng.random()
    if r < 0.3:
        opts.append("%s=%s" % (rng.choice(COMPILE_INT_OPTIONS), rng.choice(ODD_INTS)))
    elif r < 0.45:
        opts.append(rng.choice(COMPILE_FLAG_OPTIONS))
    elif r < 0.7:
        pipe = "fattn-sm90-pipeline" if arch == "sm_90a" else "fattn-sm80-pipeline"
        options = corpus.passes.get(pipe, {})
        if options:
            items = []
            for _ in range(rng.choice([1, 1, 2, 3])):
                opt = rng.choice(sorted(options))
                items.append("%s=%s" % (opt, odd_value(rng, options[opt])))
            opts.append("--pipeline-options=" + " ".join(items))
    return opts


def make_case(seed: int, index: int, corpus: Corpus) -> Case:
    rng = random.Random("%d:%d" % (seed, index))
    chunks = corpus.invalid_chunks if rng.random() < 0.15 else corpus.chunks
    r = rng.random()
    if r < 0.2:
        origin, text = rng.choice(chunks)
        return Case(index, "parse", [], mutate(rng, text, corpus), origin)
    if r < 0.65:
        origin, text = rng.choice(chunks)
        return Case(index, "opt", make_pipeline(rng, corpus), mutate(rng, text, corpus), origin)
    origin, text = rng.choice(corpus.attention_chunks)
    arch = rng.choice(["sm_80", "sm_90a"])
    args = ["--arch", arch, "--emit", "ptx"] + make_compile_options(rng, corpus, arch)
    return Case(index, "compile", args, mutate(rng, text, corpus), origin)


# ---------------------------------------------------------------------------------------------
# Running a case.

def normalize(line: str) -> str:
    line = line.strip()
    line = re.sub(r"(/[^\s:,;']+)+", "<path>", line)              # paths
    line = re.sub(r"'[^']*'|\"[^\"]*\"|`[^`]*`", "'_'", line)      # quoted names and values
    line = re.sub(r"in function \S+", "in function _", line)           # ptxas's kernel names
    line = re.sub(r"0x[0-9a-fA-F]+", "N", line)
    line = re.sub(r"\d+", "N", line)
    return line[:200]


NOT_THE_CULPRIT = re.compile(r"(llvm::sys::|llvm::report_fatal_error|llvm::llvm_unreachable|__|_start|"
                             r"abort|raise|gsignal|SignalHandler|malloc|free|calloc|realloc|"
                             r"operator new|operator delete|<unknown>|\?\?|in$)")


def top_frame(stderr: str) -> Optional[str]:
    """The innermost stack frame (LLVM's stack dump or a sanitizer's) that is not a handler."""
    for m in re.finditer(r"^\s*#\d+\s+0x[0-9a-f]+\s+(?:in\s+)?(.*?)(?:\s+\(?/\S*)?$", stderr,
                         re.M):
        name = m.group(1).replace("(anonymous namespace)", "anon").split("(")[0].strip()
        if name and not NOT_THE_CULPRIT.match(name):
            return name
    return None


def crash_signature(stderr: str) -> Optional[Tuple[str, str]]:
    for kind, pattern in CRASH_MARKERS:
        m = pattern.search(stderr)
        if m:
            line = m.group(0)
            if kind == "crash":
                line = "crash"
            if kind == "sanitizer" and line.startswith("runtime error"):
                where = re.search(r"([\w.+-]+):\d+:\d+: runtime error", stderr)
                line = (where.group(1) + ": " if where else "") + line
            if kind == "sanitizer" and line.startswith("ERROR:"):
                line = re.sub(r" on (unknown )?address.*| at pc.*", "", line)
            if kind in ("crash", "sanitizer", "assertion"):
                frame = top_frame(stderr)
                if frame:
                    line += " in " + frame
                # A crash in a parser names the op whose parser ran (LLVM's pretty stack),
                # so that an upstream parser's class is told from fattn's.
                parsers = re.findall(r"MLIR Parser: custom op parser '([\w.]+)'", stderr)
                if parsers:
                    line += " parsing " + parsers[-1]
            return kind, normalize(line)
    return None


def first_error(text: str) -> str:
    for line in text.splitlines():
        if re.search(r"error|fatal", line, re.IGNORECASE) and "aborted due to errors" not in line:
            return line
    return text.strip().splitlines()[0] if text.strip() else "(no output)"


class Runner:
    def __init__(self, bin_dir: Path, ptxas: Optional[str], timeout: float):
        self.opt = str(bin_dir / "fattn-opt")
        self.compile = str(bin_dir / "fattn-compile")
        self.ptxas = ptxas
        self.timeout = timeout
        self.lock = threading.Lock()
        # Symbolized stack traces (LLVM's and the sanitizers') give the classes their frame.
        self.env = dict(os.environ)
        self.env["PATH"] = "/usr/lib/llvm-22/bin:" + self.env.get("PATH", "")
        self.env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
        # The sanitizer build: as test/lit.cfg.py says, LLVM's allocator poisoning is not ours.
        self.env["ASAN_OPTIONS"] = ":".join(
            o for o in ("allow_user_poisoning=0", self.env.get("ASAN_OPTIONS", "")) if o)
        self.outcome: Dict[str, int] = {}
        self.last_ok: Dict[int, bool] = {}

    def _run(self, cmd: List[str], cwd: str, timeout: float):
        for attempt in range(30):
            try:
                p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   timeout=timeout, env=self.env)
                return (p.returncode, p.stdout.decode(errors="replace"),
                        p.stderr.decode(errors="replace"))
            except subprocess.TimeoutExpired:
                return None, "", ""
            except OSError:  # the tool is being relinked: wait for the build
                if attempt == 29:
                    raise
                time.sleep(2)
        raise AssertionError("unreachable")

    def _tool_failure(self, cmd: List[str], cwd: str, shown: str, timeout: float
                      ) -> Tuple[Optional[Finding], int, str]:
        rc, out, err = self._run(cmd, cwd, timeout)
        tool = os.path.basename(cmd[0])
        if rc is None:
            return Finding("timeout", "timeout in %s" % tool, "", [shown]), -1, ""
        sig = crash_signature(err)
        if sig:
            return Finding(sig[0], sig[1], err, [shown]), rc, out
        if rc < 0:
            return Finding("signal", "%s killed by signal %d" % (tool, -rc), err, [shown]), rc, out
        return None, rc, out

    def run(self, case: Case, work: str) -> Optional[Finding]:
        """The case's failure, if any; self.outcome[target] counts the clean results."""
        finding = self._run_case(case, work)
        with self.lock:
            key = "%s %s" % (case.target, "failure" if finding else
                             "ok" if self.last_ok.get(threading.get_ident()) else "diagnostic")
            self.outcome[key] = self.outcome.get(key, 0) + 1
        return finding

    def _run_case(self, case: Case, work: str) -> Optional[Finding]:
        self.last_ok[threading.get_ident()] = False
        with open(os.path.join(work, "input.mlir"), "w") as f:
            f.write(case.text)
        q = " ".join(shlex.quote(a) for a in case.args)
        if case.target in ("parse", "opt"):
            cmd = [self.opt, "input.mlir"] + case.args + ["-o", "out.mlir"]
            shown = "fattn-opt input.mlir %s -o out.mlir" % q
            finding, rc, _ = self._tool_failure(cmd, work, shown, self.timeout)
            if finding or rc != 0:
                return finding
            again = "fattn-opt out.mlir -o /dev/null"
            finding, rc, _ = self._tool_failure([self.opt, "out.mlir", "-o", os.devnull], work,
                                                again, self.timeout)
            if finding:
                return finding._replace(commands=[shown, again])
            if rc != 0:
                _, _, err = self._run([self.opt, "out.mlir", "-o", os.devnull], work, self.timeout)
                return Finding("roundtrip", "printed IR does not parse: " +
                               normalize(first_error(err)), err, [shown, again])
            self.last_ok[threading.get_ident()] = True
            return None
        # compile
        arch = case.args[case.args.index("--arch") + 1]
        cmd = [self.compile, "input.mlir"] + case.args + ["-o", "out"]
        shown = "fattn-compile input.mlir %s -o out" % q
        finding, rc, _ = self._tool_failure(cmd, work, shown, self.timeout)
        if finding or rc != 0 or not self.ptxas:
            return finding
        out = os.path.join(work, "out")
        ptx = [os.path.join(out, p) for p in sorted(os.listdir(out))] if os.path.isdir(out) \
            else [out]
        for path in ptx:
            rel = os.path.relpath(path, work)
            check = "ptxas -arch %s %s -o /dev/null" % (arch, rel)
            rc, _, err = self._run([self.ptxas, "-arch", arch, path, "-o", os.devnull], work,
                                   3 * self.timeout)
            if rc is None:
                return Finding("ptxas-timeout", "ptxas timed out", "", [shown, check])
            if rc != 0:
                return Finding("ptxas", "ptxas rejects the PTX: " + normalize(first_error(err)),
                               err, [shown, check])
        self.last_ok[threading.get_ident()] = True
        return None


# ---------------------------------------------------------------------------------------------
# The campaign.

def load_allowlist(path: Path) -> List[re.Pattern]:
    if not path.exists():
        return []
    return [re.compile(l.strip()) for l in path.read_text().splitlines()
            if l.strip() and not l.lstrip().startswith("#")]


def class_id(f: Finding) -> str:
    return "%s-%s" % (f.kind, hashlib.sha1(f.signature.encode()).hexdigest()[:8])


def save(out: Path, case: Case, f: Finding, args) -> Path:
    d = out / class_id(f)
    d.mkdir(parents=True, exist_ok=True)
    (d / "input.mlir").write_text(case.text)
    (d / "output.txt").write_text(f.output)
    tools = {"fattn-opt": str(Path(args.bin).resolve() / "fattn-opt"),
             "fattn-compile": str(Path(args.bin).resolve() / "fattn-compile"),
             "ptxas": args.ptxas or "ptxas"}
    lines = ["#!/usr/bin/env bash",
             "# %s: %s" % (f.kind, f.signature),
             "# fuzz.py --seed %d, case %d, from %s" % (args.seed, case.index, case.origin),
             'cd "$(dirname "$0")"', "set -x"]
    for c in f.commands:
        tool, rest = c.split(" ", 1)
        lines.append("%s %s" % (shlex.quote(tools.get(tool, tool)), rest))
    (d / "cmd.sh").write_text("\n".join(lines) + "\n")
    (d / "cmd.sh").chmod(0o755)
    return d


def campaign(args) -> int:
    bin_dir = Path(args.bin)
    help_text = subprocess.run([str(bin_dir / "fattn-opt"), "--help"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, check=True).stdout.decode()
    corpus = Corpus(REPO / "test", help_text, args.seeds)
    if not corpus.chunks and not corpus.invalid_chunks:
        print("fuzz: no test file matches --seeds", file=sys.stderr)
        return 2
    if not corpus.attention_chunks:  # fattn-compile's cases take them from every test
        corpus.attention_chunks = Corpus(REPO / "test", help_text).attention_chunks
    ptxas = args.ptxas if args.ptxas and os.access(args.ptxas, os.X_OK) else None
    if not ptxas:
        print("fuzz: no ptxas at %s, PTX is not assembled" % args.ptxas, file=sys.stderr)
    runner = Runner(bin_dir, ptxas, args.timeout)
    allow = load_allowlist(Path(args.allowlist))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    lock = threading.Lock()
    classes: Dict[str, dict] = {}
    counter = {"next": 0, "done": 0}
    deadline = time.monotonic() + args.seconds

    def worker():
        while True:
            with lock:
                index = counter["next"]
                if time.monotonic() >= deadline or (args.runs and index >= args.runs):
                    return
                counter["next"] += 1
            case = make_case(args.seed, index, corpus)
            with tempfile.TemporaryDirectory(prefix="fattn-fuzz-") as work:
                finding = runner.run(case, work)
            with lock:
                counter["done"] += 1
                if not finding:
                    continue
                cid = class_id(finding)
                if cid in classes:
                    classes[cid]["count"] += 1
                    continue
                allowed = any(p.search(finding.signature) for p in allow)
                d = save(out, case, finding, args)
                classes[cid] = {"count": 1, "finding": finding, "dir": d, "allowed": allowed}
                print("fuzz: %s %s: %s (case %d, %s)" % ("known" if allowed else "NEW",
                      finding.kind, finding.signature, index, d), flush=True)

    threads = [threading.Thread(target=worker) for _ in range(max(1, args.jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    new = [c for c in classes.values() if not c["allowed"]]
    summary = ["%s\t%d\t%s\t%s" % ("known" if c["allowed"] else "NEW", c["count"],
                                   c["dir"].name, c["finding"].signature)
               for c in classes.values()]
    (out / "summary.txt").write_text("".join(s + "\n" for s in summary))
    print("fuzz: outcomes: " + ", ".join("%s %d" % kv for kv in sorted(runner.outcome.items())))
    print("fuzz: %d runs (seed %d, %d s), %d failure classes, %d not in the allowlist; see %s"
          % (counter["done"], args.seed, args.seconds, len(classes), len(new), out / "summary.txt"))
    return 1 if new else 0


# ---------------------------------------------------------------------------------------------
# Reduction: delete lines (then tokens) while cmd.sh still fails with the same signature.

def reduce_class(args) -> int:
    d = Path(args.reduce)
    header = (d / "cmd.sh").read_text().splitlines()[1]
    kind, signature = header[2:].split(": ", 1)
    bin_dir = Path(args.bin)
    commands = [l for l in (d / "cmd.sh").read_text().splitlines()[5:]]
    ptxas = args.ptxas if args.ptxas and os.access(args.ptxas, os.X_OK) else None
    runner = Runner(bin_dir, ptxas, args.timeout)
    first = commands[0].split()
    target = "compile" if first[0].endswith("fattn-compile") else "opt"
    opts = shlex.split(commands[0])[2:-2]

    def fails(text: str) -> bool:
        with tempfile.TemporaryDirectory(prefix="fattn-reduce-") as work:
            f = runner.run(Case(0, target, opts, text, ""), work)
        return bool(f) and f.kind == kind and f.signature == signature

    text = (d / "input.mlir").read_text()
    if not fails(text):
        print("reduce: %s does not reproduce" % d)
        return 1
    for unit in ("line", "token"):
        changed = True
        while changed:
            changed = False
            pieces = text.splitlines(keepends=True) if unit == "line" else \
                re.findall(r"\s+|[^\s]+", text)
            i = 0
            while i < len(pieces):
                trial = "".join(pieces[:i] + pieces[i + 1:])
                if pieces[i].strip() and fails(trial):
                    pieces = pieces[:i] + pieces[i + 1:]
                    text = trial
                    changed = True
                else:
                    i += 1
    (d / "reduced.mlir").write_text(text)
    print(text, end="")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=60, help="how long to fuzz")
    ap.add_argument("--runs", type=int, default=0, help="stop after this many cases (0: no limit)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1, help="cases run at once")
    ap.add_argument("--seeds", action="append", metavar="GLOB",
                    help="mutate only the test files that match (repeatable), e.g. "
                         "'test/Conversion/SM90/*'")
    ap.add_argument("--out", default="fuzz-out", help="folder of the failure classes")
    ap.add_argument("--bin", default=str(REPO / "build" / "bin"),
                    help="folder of fattn-opt and fattn-compile (build-asan/bin: sanitizers)")
    ap.add_argument("--ptxas", default=os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"),
                                                    "bin", "ptxas"))
    ap.add_argument("--timeout", type=float, default=20, help="seconds per tool run (a hang)")
    ap.add_argument("--allowlist", default=str(REPO / "scripts" / "fuzz-allowlist.txt"))
    ap.add_argument("--reduce", metavar="CLASS_DIR",
                    help="shrink the input of a saved class to reduced.mlir, and stop")
    args = ap.parse_args()
    if args.reduce:
        return reduce_class(args)
    return campaign(args)


if __name__ == "__main__":
    sys.exit(main())
