#!/usr/bin/env python3
"""The PTX corpus: a hash of the normalized PTX of every kernel fattn ships or tests.

    python3 scripts/ptx_corpus.py check            # compare with test/PTXCorpus/corpus.sha256
    python3 scripts/ptx_corpus.py update           # rewrite it (after a change meant to alter PTX)
    python3 scripts/ptx_corpus.py check --save D   # also keep every kernel's PTX in D (to diff)

The corpus holds every kernel of the library presets (`gpu-tests` on sm_80 and sm_90a, `bench`
and `fp8` on sm_90a, with the kernels tuned for short sequences that build_library adds) and
every kernel that a lit test compiles to PTX (each RUN line's `fattn-compile` options, and the
`fattn-opt` pipelines of the tests that run gpu-module-to-binary). A change
to the back ends that keeps every hash is a refactor that cannot have changed a kernel; one that
changes a hash is measured on the GPU before it lands (docs/TESTING.md).

Normalization drops PTX comments (the generator's banner), so only the instructions, directives
and names count. Runs on the CPU: PTX needs no GPU and no ptxas.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, NamedTuple

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

from fattn.build_library import make_configs  # noqa: E402
from fattn.mlir_gen import attention_mlir  # noqa: E402
from fattn.presets import PRESETS  # noqa: E402

class Tools(NamedTuple):
    compile: str  # fattn-compile
    opt: str  # fattn-opt
    mlir_opt: str


CORPUS = REPO / "test" / "PTXCorpus" / "corpus.sha256"
# (preset, default arch) pairs of the kernel libraries.
LIBRARY_PRESETS = (("gpu-tests", "sm_80"), ("gpu-tests", "sm_90a"), ("bench", "sm_90a"),
                   ("fp8", "sm_90a"))


class Job(NamedTuple):
    """One fattn-compile run (kernels named `<name>/<entry>`), or one fattn-opt pipeline
    whose module goes through gpu-module-to-binary (`opt`: one kernel, `<name>`)."""
    name: str
    source: str  # MLIR text, or "" when `path` is the input
    path: str
    options: List[str]
    opt: bool = False


def library_jobs() -> List[Job]:
    jobs = []
    for preset, arch in LIBRARY_PRESETS:
        for config in make_configs(PRESETS[preset](), arch):
            options = ["--arch", config.arch]
            if config.tuned_for == "short_seqs":
                options.append("--short-seqs")
            jobs.append(Job(f"library/{config.key}", attention_mlir(config), "", options))
    return list({j.name: j for j in jobs}.values())


# Options of a RUN line that say where the output goes or what else to print: the corpus
# compiles every RUN line to PTX in a folder of its own.
_DROPPED_WITH_VALUE = {"-o", "--emit"}
_DROPPED = {"-v"}


def lit_jobs() -> List[Job]:
    """One job per distinct `fattn-compile %s ...` RUN line that is expected to succeed."""
    jobs: Dict[str, Job] = {}
    for path in sorted((REPO / "test").rglob("*.mlir")):
        rel = path.relative_to(REPO).as_posix()
        runs, pending = [], ""
        for line in path.read_text().splitlines():
            m = re.match(r"\s*//\s*RUN:(.*)", line)
            if not m:
                continue
            pending += m.group(1)
            if pending.rstrip().endswith("\\"):
                pending = pending.rstrip()[:-1]
                continue
            runs.append(pending)
            pending = ""
        # A file whose RUN lines take a module to PTX: its fattn-opt pipelines count.
        binary = any("gpu-module-to-binary" in run for run in runs)
        for run in runs:
            for command in run.split("&&"):
                words = shlex.split(command.split("|")[0].split("2>")[0])
                if len(words) < 2 or words[0] not in ("fattn-compile", "fattn-opt") \
                        or words[1] != "%s":
                    continue
                if words[0] == "fattn-opt":
                    if binary and "-o" in words:
                        options = words[2:words.index("-o")]
                        name = f"lit/{rel}/fattn-opt " + " ".join(options)
                        jobs[name] = Job(name, "", str(path), options, opt=True)
                    continue
                options, i = [], 2
                while i < len(words):
                    w = words[i]
                    if w in _DROPPED_WITH_VALUE:
                        i += 2
                        continue
                    if w not in _DROPPED and not w.startswith("--emit=") and "%t" not in w:
                        options.append(w)
                    i += 1
                name = f"lit/{rel}" + ("/" + " ".join(options) if options else "")
                jobs[name] = Job(name, "", str(path), options)
    return list(jobs.values())


def normalize(ptx: str) -> str:
    lines = [line.rstrip() for line in ptx.splitlines()]
    return "\n".join(line for line in lines if line and not line.lstrip().startswith("//"))


MLIR_OPT_ARGS = ["--convert-nvvm-to-llvm", "--reconcile-unrealized-casts",
                 "--gpu-module-to-binary=format=isa"]


def binary_ptx(text: str) -> str:
    """The PTX of the first gpu.binary in `text` (mlir-opt's escaped string)."""
    match = re.search(r'assembly = "((?:[^"\\]|\\.)*)"', text, re.S)
    if not match:
        raise ValueError("no gpu.binary assembly")
    escaped, out, i = match.group(1), bytearray(), 0
    simple = {"\\": b"\\", '"': b'"', "n": b"\n", "t": b"\t"}
    while i < len(escaped):
        if escaped[i] != "\\":
            out += escaped[i].encode()
            i += 1
        elif escaped[i + 1] in simple:
            out += simple[escaped[i + 1]]
            i += 2
        else:  # \XX: a hex-escaped byte
            out.append(int(escaped[i + 1:i + 3], 16))
            i += 3
    return bytes(out).rstrip(b"\0").decode()


def run_opt_job(job: Job, tools: Tools) -> Dict[str, str]:
    proc = subprocess.run([tools.opt, job.path, *job.options], capture_output=True, text=True)
    if proc.returncode == 0:
        proc = subprocess.run([tools.mlir_opt, "-", *MLIR_OPT_ARGS], input=proc.stdout,
                              capture_output=True, text=True)
    if proc.returncode != 0:
        return {job.name: "error: " + (proc.stderr.strip().splitlines() or ["?"])[-1]}
    return {job.name: binary_ptx(proc.stdout)}


def run_job(job: Job, tools: Tools) -> Dict[str, str]:
    """Compiles one job; returns {corpus name: normalized PTX}, or {name: "error: ..."}."""
    if job.opt:
        return run_opt_job(job, tools)
    compiler = tools.compile
    with tempfile.TemporaryDirectory(prefix="fattn-corpus-") as tmp:
        source = job.path
        if job.source:
            source = os.path.join(tmp, "kernel.mlir")
            Path(source).write_text(job.source)
        out = os.path.join(tmp, "out")
        cmd = [compiler, source, "--emit", "ptx", "-o", out, *job.options]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            return {job.name: "error: " + (proc.stderr.strip().splitlines() or ["?"])[-1]}
        # One kernel goes to the file `out`, several into the folder `out`.
        files = sorted(Path(out).glob("*.ptx")) if os.path.isdir(out) else [Path(out)]
        kernels = {}
        for ptx in files:
            text = ptx.read_text()
            entry = re.search(r"\.entry\s+(\w+)", text)
            kernels[f"{job.name}/{entry.group(1) if entry else ptx.stem}"] = text
        return kernels


def compute(tools: Tools, jobs_n: int, save: Path | None) -> Dict[str, str]:
    """{corpus name: sha256 of the normalized PTX, or "error: ..."}."""
    jobs = library_jobs() + lit_jobs()
    result: Dict[str, str] = {}
    with concurrent.futures.ThreadPoolExecutor(jobs_n) as pool:
        futures = [pool.submit(run_job, job, tools) for job in jobs]
        for future in concurrent.futures.as_completed(futures):
            for name, ptx in future.result().items():
                if ptx.startswith("error: "):
                    result[name] = ptx
                    continue
                text = normalize(ptx)
                result[name] = hashlib.sha256(text.encode()).hexdigest()
                if save is not None:
                    target = save / (re.sub(r"[^A-Za-z0-9._=-]+", "_", name) + ".ptx")
                    target.write_text(text + "\n")
    return dict(sorted(result.items()))


def read_corpus() -> Dict[str, str]:
    corpus = {}
    for line in CORPUS.read_text().splitlines():
        digest, _, name = line.partition("  ")
        corpus[name] = digest
    return corpus


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mode", choices=("check", "update"))
    p.add_argument("--bin", type=Path, default=REPO / "build" / "bin",
                   help="the folder of fattn-compile and fattn-opt (default: build/bin)")
    p.add_argument("--mlir-opt", default="/usr/lib/llvm-22/bin/mlir-opt")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--save", type=Path, help="also write each kernel's normalized PTX here")
    args = p.parse_args(argv)
    if args.save is not None:
        args.save.mkdir(parents=True, exist_ok=True)
    tools = Tools(str(args.bin / "fattn-compile"), str(args.bin / "fattn-opt"), args.mlir_opt)
    got = compute(tools, args.jobs, args.save)
    errors = {n: h for n, h in got.items() if h.startswith("error")}
    for name, message in errors.items():
        print(f"{name}: {message}", file=sys.stderr)
    if errors:
        return 1
    if args.mode == "update":
        CORPUS.parent.mkdir(parents=True, exist_ok=True)
        CORPUS.write_text("".join(f"{h}  {n}\n" for n, h in got.items()))
        print(f"{len(got)} kernels written to {CORPUS.relative_to(REPO)}")
        return 0
    want = read_corpus()
    changed = [n for n in want if n in got and got[n] != want[n]]
    missing = [n for n in want if n not in got]
    added = [n for n in got if n not in want]
    for title, names in (("changed", changed), ("no longer built", missing),
                         ("not in the corpus", added)):
        for name in names:
            print(f"{title}: {name}")
    if changed or missing or added:
        print(f"PTX corpus: {len(changed)} changed, {len(missing)} no longer built, "
              f"{len(added)} new, of {len(want)} kernels. If meant, measure the change on the "
              "GPU (docs/TESTING.md), then: python3 scripts/ptx_corpus.py update")
        return 1
    print(f"PTX corpus: all {len(want)} kernels identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
