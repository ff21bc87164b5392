"""Kernel libraries, the compile-on-first-use path with a stand-in compiler, and
build_library (no GPU, no torch)."""
import dataclasses
import json
import os
import stat
import sys
import textwrap
from pathlib import Path

import pytest

from fattn import build_library, kernels
from fattn.compiler import (CompileError, CompileWarning, compile_kernel, compiler_identity,
                            find_compiler)
from fattn.config import KernelConfig, runtime_scalars_wanted
from fattn.library import KernelLibrary, LibraryError


def config(**kw):
    args = dict(arch="sm_80", dtype="bf16", head_dim_qk=64, causal=True, has_lse=True)
    args.update(kw)
    return KernelConfig.make(**args)


def description(c: KernelConfig, entry="fattn_fwd_test", **override):
    d = {"version": 1, "arch": c.arch, "entry": entry, "cubin": entry + ".cubin",
         "dtype": c.dtype, "head_dim_qk": c.head_dim_qk, "head_dim_v": c.head_dim_v,
         "scale": c.scale, "causal": c.causal, "window_left": c.window_left,
         "window_right": c.window_right, "softcap": c.softcap, "has_lse": c.has_lse,
         "block_m": 128, "block_n": 64, "threads": 128, "dynamic_smem_bytes": 0,
         "grid": [["seq_q", 128], ["heads_q", 1], ["batch", 1]], "params": []}
    d.update(override)
    return d


def write_compiled(folder: Path, desc: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / (desc["entry"] + ".json")).write_text(json.dumps(desc))
    (folder / desc["cubin"]).write_bytes(b"\x7fELF fake cubin")
    return folder


# A stand-in for fattn-compile: checks the CLI, parses the .mlir's attributes the
# way a test can, and writes a description + cubin.
FAKE_COMPILER = textwrap.dedent("""\
    #!{python}
    import json, re, sys
    args = sys.argv[1:]
    if args == ["--version"]:
        print("fake fattn-compile"); sys.exit(0)
    src = args[0]
    assert args[1:3] == ["--arch", args[2]] and args[3:5] == ["--emit", "json"] and args[5] == "-o"
    out = args[6]
    text = open(src).read()
    if "FAIL" in open(src).read() or "{fail}" == "1":
        sys.stderr.write("error: fattn.attention: unsupported\\n"); sys.exit(3)
    key = re.search(r"configuration (\\S+)", text).group(1)
    cfg = json.loads(open({cfgfile!r}).read())[key]
    entry = re.search(r"func.func @(\\w+)", text).group(1)
    desc = dict(version=1, arch=args[2], entry=entry, cubin=entry + ".cubin", block_m=128,
                block_n=64, threads=128, dynamic_smem_bytes=0, grid=[["seq_q", 128]], params=[])
    desc.update(cfg)
    # A kernel tuned for short sequences says so in its meta, and only when asked;
    # so does one that takes its scale (and softcap) at launch.
    flags = args[7:]
    tuned = desc.pop("tuned_for", None)
    assert (tuned == "short_seqs") == ("--short-seqs" in flags), args
    if tuned:
        desc["meta"] = dict(tuned_for=tuned)
    runtime = desc.pop("runtime_scalars", False)
    assert runtime == ("--runtime-scalars" in flags), args
    if runtime:
        desc["runtime_scalars"] = ["scale"] + (["softcap"] if desc["softcap"] > 0 else [])
        desc["softcap"] = 0.0
    open(out + "/" + entry + ".json", "w").write(json.dumps(desc))
    open(out + "/" + entry + ".cubin", "wb").write(b"cubin")
    if "{warn}" == "1":
        sys.stderr.write("fattn-compile: warning: " + out + "/" + entry + ".ptx: ptxas spills "
                         "64 bytes of registers\\n")
""")


def fake_compiler(tmp_path: Path, configs, fail=False, warn=False) -> str:
    cfgfile = tmp_path / "fake-configs.json"
    cfgfile.write_text(json.dumps({c.key: {k: v for k, v in c.to_json().items() if k != "arch"}
                                   for c in configs}))
    tool = tmp_path / "fattn-compile"
    tool.write_text(FAKE_COMPILER.format(python=sys.executable, cfgfile=str(cfgfile),
                                         fail="1" if fail else "0",
                                         warn="1" if warn else "0"))
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    return str(tool)


def test_add_find_and_index(tmp_path):
    c = config()
    lib = KernelLibrary(tmp_path / "lib")
    assert lib.find(c) is None
    path = lib.add(c, write_compiled(tmp_path / "out", description(c)))
    assert path == tmp_path / "lib" / c.key / "fattn_fwd_test.json"
    assert lib.find(c) == path and (path.parent / "fattn_fwd_test.cubin").is_file()
    index = json.loads((tmp_path / "lib" / "index.json").read_text())
    assert index["version"] == 1
    assert index["kernels"][c.key] == {"description": f"{c.key}/fattn_fwd_test.json",
                                       "config": c.to_json()}
    # A second kernel with the same entry name does not clobber the first.
    c2 = config(causal=False)
    lib.add(c2, write_compiled(tmp_path / "out2", description(c2)))
    assert lib.find(c) == path and lib.find(c2) != path and lib.find(c2).is_file()


def test_scan_without_index_and_reindex(tmp_path):
    c = config(dtype="f16")
    lib = KernelLibrary(tmp_path)
    write_compiled(tmp_path / "anywhere", description(c))
    (tmp_path / "notes.json").write_text("[1, 2]")  # not a description: ignored
    assert lib.find(c) == tmp_path / "anywhere" / "fattn_fwd_test.json"
    assert lib.reindex() == 1
    assert c.key in json.loads((tmp_path / "index.json").read_text())["kernels"]


def test_mismatched_description_is_rejected(tmp_path):
    c = config()
    out = write_compiled(tmp_path / "out", description(c, causal=False, window_right=-1))
    with pytest.raises(LibraryError, match="causal: wanted True, description has False"):
        KernelLibrary(tmp_path / "lib").add(c, out)


def test_missing_cubin_is_rejected(tmp_path):
    c = config()
    out = write_compiled(tmp_path / "out", description(c))
    (out / "fattn_fwd_test.cubin").unlink()
    with pytest.raises(LibraryError, match="names cubin 'fattn_fwd_test.cubin'"):
        KernelLibrary(tmp_path / "lib").add(c, out)


def test_bad_index(tmp_path):
    (tmp_path / "index.json").write_text('{"kernels": []}')
    with pytest.raises(LibraryError, match="expected"):
        KernelLibrary(tmp_path).find(config())
    (tmp_path / "index.json").write_text('{"version": 1, "kernels": {"%s": '
                                         '{"description": "gone.json"}}}' % config().key)
    with pytest.raises(LibraryError, match="which does not exist"):
        KernelLibrary(tmp_path).find(config())


def test_find_compiler(clean_env, tmp_path, monkeypatch):
    assert find_compiler() in (None, str(Path(build_library.__file__).resolve().parents[2]
                                         / "build" / "bin" / "fattn-compile"))
    tool = fake_compiler(tmp_path, [])
    monkeypatch.setenv("FATTN_COMPILE", tool)
    assert find_compiler() == tool
    monkeypatch.setenv("FATTN_COMPILE", str(tmp_path / "missing"))
    with pytest.raises(CompileError, match="is not an executable file"):
        find_compiler()


def test_compile_kernel_runs_the_cli(tmp_path):
    c = config(window_left=64, softcap=30.0)
    tool = fake_compiler(tmp_path, [c])
    out = compile_kernel(c, tmp_path / "out", tool)
    desc = json.loads(next(out.glob("*.json")).read_text())
    assert KernelConfig.from_description(desc) == c
    assert "fattn.attention" in (out / "kernel.mlir.src").read_text()


def test_compile_kernel_asks_for_the_short_seqs_tuning(tmp_path):
    c = KernelConfig.make("sm_90a", "bf16", 128, causal=True, tuned_for="short_seqs")
    tool = fake_compiler(tmp_path, [c])
    out = compile_kernel(c, tmp_path / "out", tool)
    desc = json.loads(next(out.glob("*.json")).read_text())
    assert desc["meta"] == {"tuned_for": "short_seqs"}
    assert KernelConfig.from_description(desc) == c


def test_compile_failure_reports_stderr_and_input(tmp_path):
    c = config()
    tool = fake_compiler(tmp_path, [c], fail=True)
    with pytest.raises(CompileError, match=r"(?s)exit code 3:\nerror: fattn.attention: "
                                           r"unsupported.*--- input ---.*func.func"):
        compile_kernel(c, tmp_path / "out", tool)


def test_compile_warnings_reach_the_caller(tmp_path):
    c = config(runtime_scalars=runtime_scalars_wanted())  # build_library's kind
    tool = fake_compiler(tmp_path, [c], warn=True)
    with pytest.warns(CompileWarning, match=c.key + r": fattn-compile: warning: .*ptxas spills 64"):
        compile_kernel(c, tmp_path / "out", tool)
    # build_library builds the kernel, prints the warning and counts it.
    rc = build_library.main(["--configs", "dtype=bf16,head_dim=64,causal=1,lse=1", "--arch",
                             "sm_80", "-o", str(tmp_path / "lib"), "--compiler", tool])
    assert rc == 0 and KernelLibrary(tmp_path / "lib").find(c) is not None


def test_build_library_prints_compile_warnings(tmp_path, capsys):
    c = config(runtime_scalars=runtime_scalars_wanted())
    tool = fake_compiler(tmp_path, [c], warn=True)
    build_library.main(["--configs", "dtype=bf16,head_dim=64,causal=1,lse=1", "--arch", "sm_80",
                        "-o", str(tmp_path / "lib"), "--compiler", tool])
    out, err = capsys.readouterr()
    assert "ptxas spills 64 bytes" in err and "1 warning(s) above" in out


def test_compile_on_first_use_fills_the_library(clean_env, tmp_path, monkeypatch):
    c = config()
    monkeypatch.setenv("FATTN_COMPILE", fake_compiler(tmp_path, [c]))
    loaded = []
    monkeypatch.setattr(kernels, "Kernel", lambda path: loaded.append(Path(path)) or "kernel")
    assert kernels.get_kernel(c) == "kernel"
    assert loaded[0].parent.parent == clean_env / "kernels"
    assert KernelLibrary(clean_env / "kernels").find(c) == loaded[0]
    assert kernels.get_kernel(c) == "kernel" and len(loaded) == 1  # cached in memory


def test_missing_kernel_without_compiler(clean_env, monkeypatch):
    monkeypatch.setattr(kernels.compiler, "find_compiler", lambda: None)
    with pytest.raises(kernels.KernelNotFoundError, match="python -m fattn.build_library"):
        kernels.get_kernel(config())


def test_tuned_kernel_falls_back_to_the_default(monkeypatch):
    """A library built before a configuration's short-sequence kernel existed
    (and no fattn-compile): the default kernel runs instead; other misses
    still raise."""
    monkeypatch.delenv("FATTN_SHORT_SEQS", raising=False)
    base = KernelConfig.make("sm_90a", "bf16", 128, causal=True)
    present = {base: "default"}

    def lookup(c, compile_if_missing=True):
        if c not in present:
            raise kernels.KernelNotFoundError(c.key)
        return present[c]

    monkeypatch.setattr(kernels, "get_kernel", lookup)
    assert kernels.get_kernel_for_lengths(base, 1000, 1000) == "default"
    present[dataclasses.replace(base, tuned_for="short_seqs")] = "tuned"
    assert kernels.get_kernel_for_lengths(base, 1000, 1000) == "tuned"
    assert kernels.get_kernel_for_lengths(base, 8192, 8192) == "default"
    del present[base]
    with pytest.raises(kernels.KernelNotFoundError):
        kernels.get_kernel_for_lengths(base, 8192, 8192)


def test_kernel_dir_env(monkeypatch, tmp_path):
    import fattn
    fattn.set_kernel_dir(None)
    monkeypatch.setenv("FATTN_KERNEL_DIR", str(tmp_path))
    assert fattn.kernel_dir() == tmp_path
    fattn.set_kernel_dir(tmp_path / "other")
    assert fattn.kernel_dir() == tmp_path / "other"
    fattn.set_kernel_dir(None)


def test_parse_spec_expands_combinations():
    specs = build_library.parse_spec("dtype=bf16|f16,head_dim=64|128,causal=0|1,window=128:0,"
                                     "softcap=30,lse=1")
    assert len(specs) == 8
    assert specs[0] == dict(dtype="bf16", head_dim_qk=64, head_dim_v=64, causal=False,
                            window_left=128, window_right=0, softcap=30.0, has_lse=True)


@pytest.mark.parametrize("spec,message", [("dtype", "expected key=value"),
                                          ("head_dim=big", "bad value 'big' for 'head_dim'"),
                                          ("heads=8", "unknown key 'heads'"),
                                          ("window=5", "bad value '5' for 'window'")])
def test_parse_spec_errors(spec, message):
    with pytest.raises(ValueError, match=message):
        build_library.parse_spec(spec)


def test_build_library_cli(tmp_path, capsys):
    configs = build_library.make_configs(
        build_library.parse_spec("dtype=bf16|f16,head_dim=64,causal=1"), "sm_80")
    tool = fake_compiler(tmp_path, configs)
    out = tmp_path / "lib"
    argv = ["-o", str(out), "--configs", "dtype=bf16|f16,head_dim=64,causal=1", "--compiler", tool]
    assert build_library.main(argv) == 0
    assert "2 of 2 kernels" in capsys.readouterr().out
    assert all(KernelLibrary(out).find(c) for c in configs)
    assert build_library.main(argv) == 0
    assert capsys.readouterr().out.count(": present") == 2


def test_build_library_reports_failures(tmp_path, capsys):
    tool = fake_compiler(tmp_path, [], fail=True)
    assert build_library.main(["-o", str(tmp_path / "lib"), "--configs", "head_dim=64",
                               "--compiler", tool]) == 1
    assert "FAILED" in capsys.readouterr().err


def test_presets_are_valid():
    keys = [c.key for c in build_library.make_configs(
        build_library.PRESETS["gpu-tests"]() + build_library.PRESETS["bench"](), "sm_80")]
    assert len(keys) == len(set(keys)) >= 80


def upgrade(tool: str) -> None:
    """Another fattn-compile at the same path (same behaviour, another binary)."""
    with open(tool, "a") as f:
        f.write("# upgraded\n")


def test_compiler_identity(tmp_path):
    tool = fake_compiler(tmp_path, [])
    first = compiler_identity(tool)
    assert first.startswith("sha256:") and compiler_identity(tool) == first
    upgrade(tool)
    assert compiler_identity(tool) != first
    with pytest.raises(CompileError, match="cannot read fattn-compile"):
        compiler_identity(str(tmp_path / "missing"))


def test_kernel_from_another_compiler_is_built_again(clean_env, tmp_path, monkeypatch):
    """A kernel compiled on first use records its compiler; after an upgrade of
    fattn-compile it is compiled again instead of loaded."""
    c = config()
    tool = fake_compiler(tmp_path, [c])
    monkeypatch.setenv("FATTN_COMPILE", tool)
    monkeypatch.setattr(kernels, "Kernel", lambda path: "kernel")
    compiled = []
    real = kernels.compiler.compile_kernel
    monkeypatch.setattr(kernels.compiler, "compile_kernel",
                        lambda *a: compiled.append(a[0]) or real(*a))
    library = KernelLibrary(clean_env / "kernels")
    kernels.get_kernel(c)
    assert compiled == [c] and library.compiler_of(c) == compiler_identity(tool)
    kernels.set_kernel_dir(library.directory)  # drops the loaded kernels
    kernels.get_kernel(c)
    assert compiled == [c]  # the same compiler: loaded from the library
    upgrade(tool)
    kernels.set_kernel_dir(library.directory)
    kernels.get_kernel(c)
    assert compiled == [c, c] and library.compiler_of(c) == compiler_identity(tool)


def test_library_kernels_from_any_compiler_without_one(clean_env, tmp_path, monkeypatch):
    """No fattn-compile at hand (a GPU machine): a library's kernels run
    whoever built them, recorded or not."""
    c, c2 = config(), config(causal=False)
    library = KernelLibrary(clean_env / "kernels")
    library.add(c, write_compiled(tmp_path / "out", description(c)), "sha256:old")
    library.add(c2, write_compiled(tmp_path / "out2", description(c2)))
    monkeypatch.setattr(kernels.compiler, "find_compiler", lambda: None)
    monkeypatch.setattr(kernels, "Kernel", lambda path: Path(path))
    assert kernels.get_kernel(c) == library.find(c)
    assert kernels.get_kernel(c2) == library.find(c2)
    assert library.compiler_of(c) == "sha256:old" and library.compiler_of(c2) is None
    assert library.find_current(c, "sha256:new") is None and library.find_current(c, None)
    assert library.reindex() == 2 and library.compiler_of(c) == "sha256:old"


def test_compiled_on_first_use_into_the_cache_not_the_package(monkeypatch, tmp_path):
    """Without a kernel folder, kernels compiled on first use go to the cache,
    not into the package's shipped library."""
    for var in ("FATTN_KERNEL_DIR", "FATTN_COMPILE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("FATTN_CACHE_DIR", str(tmp_path / "cache"))
    kernels.set_kernel_dir(None)
    assert kernels._writable_library().directory == tmp_path / "cache"
    folders = [lib.directory for lib in kernels.search_libraries()]
    assert folders == [kernels._DEFAULT_DIR, tmp_path / "cache"]
    kernels.set_kernel_dir(tmp_path / "mine")
    try:
        assert kernels._writable_library().directory == tmp_path / "mine"
        folders = [lib.directory for lib in kernels.search_libraries()]
        assert folders == [tmp_path / "mine", kernels._DEFAULT_DIR, tmp_path / "cache"]
    finally:
        kernels.set_kernel_dir(None)


def test_build_library_in_parallel_with_progress(tmp_path, capsys):
    spec = "dtype=bf16|f16,head_dim=64|128,causal=1"
    configs = build_library.make_configs(build_library.parse_spec(spec), "sm_80")
    tool = fake_compiler(tmp_path, configs)
    argv = ["-o", str(tmp_path / "lib"), "--configs", spec, "--compiler", tool, "-j", "3"]
    assert build_library.main(argv) == 0
    out = capsys.readouterr().out
    assert sorted(line.split("]")[0] for line in out.splitlines() if line.startswith("[")) == \
        [f"[{i}/4" for i in range(1, 5)]
    assert out.count(": built in ") == 4 and "about" in out and "4 of 4 kernels" in out
    library = KernelLibrary(tmp_path / "lib")
    assert all(library.compiler_of(c) == compiler_identity(tool) for c in configs)
    # Another fattn-compile: every kernel is built again.
    upgrade(tool)
    assert build_library.main(argv) == 0
    out = capsys.readouterr().out
    assert out.count("built by another fattn-compile") == 4 and out.count(": built in ") == 4
    assert build_library.main(argv[:-2] + ["-j", "0"]) == 0
    assert capsys.readouterr().out.count(": present") == 4


def test_build_library_rejects_negative_jobs(tmp_path):
    with pytest.raises(SystemExit):
        build_library.main(["-o", str(tmp_path), "--configs", "head_dim=64", "-j", "-1"])
