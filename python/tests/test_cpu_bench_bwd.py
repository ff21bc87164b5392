"""bench/bench_bwd.py without a GPU: options, the cells of a run, the FLOP formula, the
kernels it reads (the bench-grad preset's), the columns each cell can run, the probe's
bookkeeping (a fake process), the JSON file and the tables made from it (fake timings)."""
import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import bench_bwd  # noqa: E402
from bench_common import NOT_RUN, Case  # noqa: E402

from fattn import build_library  # noqa: E402
from fattn.presets import PRESETS  # noqa: E402


def cases(*argv):
    return bench_bwd.enumerate_cases(bench_bwd.parse_args(list(argv)))


def test_default_cells():
    rows = cases()
    grid, gqa = rows[:-1], rows[-1]
    assert len(grid) == 2 * 5 * 2
    assert all(c.b * c.n == 16384 and c.h * c.d == 2048 and c.h == c.hkv for c in grid)
    assert {c.d for c in grid} == {64, 128}
    assert [(c.d, c.n, c.causal) for c in grid[:3]] == [(64, 1024, False), (64, 1024, True),
                                                         (64, 2048, False)]
    assert (gqa.model, gqa.d, gqa.n, gqa.b, gqa.h, gqa.hkv, gqa.causal) == \
        ("Llama-3-8B", 128, 4096, 4, 32, 8, True)
    assert gqa.name == "Llama-3-8B B4 32/8 4k causal"
    assert not any(c.model for c in cases("--no-gqa"))
    quick = cases("--quick", "--causal", "1", "--no-gqa")
    assert [(c.d, c.n, c.causal) for c in quick] == [(128, 2048, True), (128, 8192, True)]


@pytest.mark.parametrize("argv", [["--dims", "256"], ["--dims", "72"], ["--dims", "a"],
                                  ["--seqs", "0"], ["--rep", "0"], ["--dtype", "fp8"]])
def test_bad_options(argv, capsys):
    with pytest.raises(SystemExit):
        bench_bwd.parse_args(argv)
    assert "error" in capsys.readouterr().err


def test_flops():
    # 2.5 x the forward's 4*B*H*N^2*D, halved when causal (issue 41's convention).
    assert bench_bwd.bwd_flops(1, 16, 16384, 128, False) == 2.5 * 4 * 16 * 16384 ** 2 * 128
    assert bench_bwd.bwd_flops(1, 16, 16384, 128, True) == 2.5 * 2 * 16 * 16384 ** 2 * 128
    llama = Case(128, 4096, 4, 32, 8, True, "Llama-3-8B")
    assert bench_bwd.case_flops(llama) == 2.5 * 2 * 4 * 32 * 4096 ** 2 * 128  # query heads
    assert bench_bwd.tflops_of(bench_bwd.case_flops(llama), 1.0) == 1374.4  # TFLOP in 1 ms


def test_kernels_read_are_the_preset():
    run = cases()
    for arch in ("sm_90a", "sm_80"):
        keys = [c.key for c in bench_bwd.kernel_configs(run, "bf16", arch)]
        assert f"{arch}-bf16-d128x128-causal-wl-1-wr0-sc00000000-s3db504f3-lse" in keys
        assert "grad-sm_80-bf16-d64-full-wl-1-wr-1-sc00000000-s3e000000" in keys
        assert "grad-sm_90a-bf16-d128-causal-wl-1-wr0-sc00000000-s3db504f3" in keys
        assert len([k for k in keys if k.startswith("grad-")]) == 8
    preset = build_library.make_configs(PRESETS["bench-grad"](), "sm_80")
    for arch in ("sm_90a", "sm_80"):
        assert set(bench_bwd.kernel_configs(run, "bf16", arch)) <= set(preset)
    assert bench_bwd.build_command(run, "bf16").endswith("--preset bench-grad")
    other = bench_bwd.build_command(cases("--dims", "96", "--causal", "1"), "f16")
    assert '--configs "dtype=f16,head_dim=96|128,causal=1,lse=1,grad=1,arch=sm_90a|sm_80"' \
        in other and other.endswith("--grad-sm90a")


def test_preset_lists_both_backwards(capsys):
    assert build_library.main(["--preset", "bench-grad", "--dry-run", "-o", "unused"]) == 0
    keys = capsys.readouterr().out.split()
    assert len(keys) == len(set(keys)) == 19
    for arch in ("sm_80", "sm_90a"):
        assert len([k for k in keys if k.startswith(f"grad-{arch}-bf16-")]) == 4
        assert len([k for k in keys if k.startswith(f"{arch}-bf16-") and "-lse" in k]) >= 4


def test_columns_each_cell_can_run():
    columns, why = bench_bwd.fattn_columns(Case(128, 4096, 4, 16, 16, True), "bf16", True)
    assert columns == {"fattn": "sm_80", "fattn_sm90a": "sm_90a"} and why == {}
    columns, why = bench_bwd.fattn_columns(Case(128, 4096, 4, 16, 16, True), "bf16", False)
    assert columns == {"fattn": "sm_80"} and "sm_90 GPUs only" in why["fattn_sm90a"]
    columns, why = bench_bwd.fattn_columns(Case(96, 4096, 4, 21, 21, False), "bf16", True)
    assert columns == {"fattn": "sm_80"} and "multiples of 64" in why["fattn_sm90a"]


def test_dry_run_needs_no_gpu(capsys):
    bench_bwd.main(["--dry-run", "--quick"])
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("5 cells, bf16, columns: fattn, fattn_sm90a, cuDNN, FA2")
    assert "bf16 d128 2k: B=8 H=16 Hkv=16 D=128 N=2048, 0.69 TFLOP per backward" in out[1]
    assert "bf16 Llama-3-8B B4 32/8 4k causal: B=4 H=32 Hkv=8 D=128 N=4096" in out[5]
    assert any(l.startswith("kernels read") for l in out)
    assert "  grad-sm_90a-bf16-d128-causal-wl-1-wr0-sc00000000-s3db504f3" in out
    assert any("--preset bench-grad" in l for l in out)
    assert out[-1].startswith("estimated run time:")


class FakeProbe:
    """subprocess.run of the probe's process: each item's lines until the item
    `fail` names (by its key), where the process crashes or, with hang, times out."""

    def __init__(self, fail=(), hang=False):
        self.fail, self.hang, self.calls = set(fail), hang, []

    def __call__(self, argv, capture_output, text, timeout):
        items = json.loads(argv[argv.index("--probe-child") + 1])
        self.calls.append([bench_bwd.item_key(i) for i in items])
        out = []
        for i, item in enumerate(items):
            out.append(f"start {i}")
            if bench_bwd.item_key(item) in self.fail:
                if self.hang:
                    raise subprocess.TimeoutExpired(argv, timeout, "\n".join(out).encode(), b"")
                return subprocess.CompletedProcess(
                    argv, 1, "\n".join(out), "Traceback\nRuntimeError: CUDA error: an illegal "
                    "memory access was encountered\n")
            out.append(f"done {i} ok")
        return subprocess.CompletedProcess(argv, 0, "\n".join(out), "")


def test_probe_leaves_out_what_crashed_or_hung(monkeypatch):
    monkeypatch.setattr(bench_bwd, "is_sm90", lambda: True)
    run = cases("--quick")  # d128 2k/8k, causal or not, and the GQA row
    args = bench_bwd.parse_args(["--quick"])
    everything = [bench_bwd.probe_key(a, c) for c in bench_bwd.probe_cases(run)
                  for a in ("sm_80", "sm_90a")]
    assert len(everything) == 6  # d128 full, causal (16/16) and causal 32/8, both archs

    fake = FakeProbe()
    monkeypatch.setattr(bench_bwd.subprocess, "run", fake)
    assert bench_bwd.probe(run, args) == {}
    assert fake.calls == [everything]

    bad = "sm_90a d128 causal 16/16"
    fake = FakeProbe(fail=[bad])
    monkeypatch.setattr(bench_bwd.subprocess, "run", fake)
    crashed = bench_bwd.probe(run, args)
    assert list(crashed) == [bad] and "illegal memory access" in crashed[bad]
    # A second process for the items after it.
    assert fake.calls == [everything, everything[everything.index(bad) + 1:]]

    fake = FakeProbe(fail=[bad], hang=True)
    monkeypatch.setattr(bench_bwd.subprocess, "run", fake)
    crashed = bench_bwd.probe(run, args)
    assert list(crashed) == [bad] and crashed[bad].startswith("hung")

    # The run's cells of that configuration (d128 2k causal, 8k causal) find it.
    assert [c.name for c in run if bench_bwd.probe_key("sm_90a", c) == bad] == \
        ["d128 2k causal", "d128 8k causal"]


def fake_row(case, tflops, rel_l2=None, why=None, reference="FA2"):
    row = bench_bwd.new_row(case, "bf16")
    row["reference"] = reference
    row["tflops"].update(tflops)
    row["rel_l2"].update(rel_l2 or {})
    row["why"].update(why or {})
    return bench_bwd.add_ratios(row)


def meta(**kw):
    m = dict(dtype="bf16", warmup=20, rep=50, interleave=True, fwd_arch=None)
    m.update(kw)
    return m


def test_json_and_tables(tmp_path, capsys):
    grid = Case(128, 8192, 2, 16, 16, True)
    full = Case(64, 1024, 16, 32, 32, False)
    llama = Case(128, 4096, 4, 32, 8, True, "Llama-3-8B")
    errs = {"dq": 4.1e-3, "dk": 3.2e-3, "dv": 2.9e-3}
    run1 = [fake_row(grid, {"FA2": 250.0, "cuDNN": 480.0, "fattn": 300.0, "fattn_sm90a": 400.0},
                     rel_l2={"fattn": errs, "fattn_sm90a": dict(errs, dq=5.0e-3)}),
            fake_row(full, {"FA2": 200.0, "cuDNN": 400.0, "fattn": 240.0,
                            "fattn_sm90a": "missing"},
                     rel_l2={"fattn": errs},
                     why={"fattn_sm90a": "no kernel grad-sm_90a-bf16-d64-full"}),
            fake_row(llama, {"FA2": 260.0, "cuDNN": 470.0, "fattn": 280.0,
                             "fattn_sm90a": NOT_RUN},
                     rel_l2={"fattn": errs},
                     why={"fattn_sm90a": "the sm_90a backward kernels run on sm_90 GPUs only",
                          "cuDNN": "K/V expanded to the query heads (no enable_gqa)"})]
    run2 = [fake_row(grid, {"FA2": 252.0, "cuDNN": 482.0, "fattn": 301.0, "fattn_sm90a": 402.0},
                     rel_l2={"fattn": errs, "fattn_sm90a": errs})]
    assert run1[0]["ratios"] == {"fattn/cuDNN": 0.625, "fattn/FA2": 1.2,
                                 "fattn_sm90a/cuDNN": round(400 / 480, 4),
                                 "fattn_sm90a/FA2": 1.6}
    assert run1[1]["ratios"] == {"fattn/cuDNN": 0.6, "fattn/FA2": 1.2}
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    bench_bwd.write_json(a, meta(), run1)
    bench_bwd.write_json(b, meta(), run2)
    data = json.loads(a.read_text())
    assert data["format"] == bench_bwd.JSON_FORMAT and len(data["cells"]) == 3
    assert data["cells"][0]["case"] == "bf16 d128 8k causal"
    assert data["cells"][0]["rel_l2"]["fattn"] == errs

    one = bench_bwd.tables_from([str(a)])
    lines = one.splitlines()
    assert lines[0].startswith("Backward, bf16, TFLOP/s = 2.5 x forward FLOPs / time (median "
                               "of 50 interleaved calls after 20 warm-up calls)")
    header = next(l for l in lines if l.startswith("| head dim"))
    assert header == ("| head dim | seqlen | causal | fattn sm_80 | fattn sm_90a | cuDNN | FA2 "
                      "| sm_80 / cuDNN | sm_80 / FA2 | sm_90a / cuDNN | sm_90a / FA2 "
                      "| max rel L2 of dQ, dK, dV vs FA2 (sm_80, sm_90a) |")
    assert "| 128 | 8k | yes | 300 | 400 | 480 | 250 | 0.625 | 1.200 | 0.833 | 1.600 " \
           "| 4.1e-03, 5.0e-03 |" in lines
    assert "| 64 | 1k | no | 240 | missing | 400 | 200 | 0.600 | 1.200 | - | - " \
           "| 4.1e-03, - |" in lines
    assert "| Llama-3-8B | 32/8 | 128 | 4 | 4k | yes | 280 | — | 470 | 260 | 0.596 | 1.077 " \
           "| - | - | 4.1e-03, - |" in lines
    assert "- fattn sm_90a: no kernel grad-sm_90a-bf16-d64-full (1 cell)" in lines
    assert "- cuDNN: K/V expanded to the query heads (no enable_gqa) (1 cell)" in lines

    two = bench_bwd.tables_from([str(a), str(b)]).splitlines()
    assert "| 128 | 8k | yes | 300 / 301 | 400 / 402 | 480 / 482 | 250 / 252 | 0.625 / 0.625 " \
           "| 1.200 / 1.194 | 0.833 / 0.834 | 1.600 / 1.595 | 4.1e-03 / 4.1e-03, " \
           "5.0e-03 / 4.1e-03 |" in two
    assert any(l.startswith("| 64 | 1k | no | 240 / - |") for l in two)

    bench_bwd.main(["--table-from", str(a)])
    assert capsys.readouterr().out.strip() == one


def test_table_from_rejects_other_files(tmp_path):
    fwd = tmp_path / "fwd.json"
    fwd.write_text(json.dumps({"format": "bench_fwd/2", "meta": {}, "cells": []}))
    with pytest.raises(SystemExit):
        bench_bwd.tables_from([str(fwd)])


# ---------------------------------------------------------------------------- --deterministic

def test_without_deterministic_nothing_changes(capsys):
    args = bench_bwd.parse_args([])
    assert args.deterministic is False
    assert bench_bwd.run_columns(False) == ("fattn", "fattn_sm90a", "cuDNN", "FA2")
    assert bench_bwd.run_columns(True) == ("fattn", "fattn_det", "fattn_sm90a",
                                           "fattn_sm90a_det", "cuDNN", "FA2")
    run = cases()
    assert not any(c.key.endswith("-det") for c in bench_bwd.kernel_configs(run, "bf16", "sm_80"))
    bench_bwd.main(["--dry-run"])
    assert "det" not in capsys.readouterr().out
    columns, _ = bench_bwd.fattn_columns(Case(128, 4096, 4, 16, 16, True), "bf16", True, False)
    assert list(columns) == ["fattn", "fattn_sm90a"]


def test_deterministic_kernels_read_and_their_build_command(capsys):
    run = cases()
    for arch in ("sm_90a", "sm_80"):
        keys = [c.key for c in bench_bwd.kernel_configs(run, "bf16", arch, deterministic=True)]
        grads = [k for k in keys if k.startswith("grad-")]
        assert len(grads) == 16 and len([k for k in grads if k.endswith("-det")]) == 8
        assert "grad-sm_80-bf16-d64-full-wl-1-wr-1-sc00000000-s3e000000-det" in keys
        assert "grad-sm_90a-bf16-d128-causal-wl-1-wr0-sc00000000-s3db504f3-det" in keys
        # Each deterministic kernel beside its twin.
        assert {k[:-len("-det")] for k in grads if k.endswith("-det")} == \
            {k for k in grads if not k.endswith("-det")}
    # The build command that dry-run prints makes every kernel the run reads.
    for argv, dtype in ([], "bf16"), (["--dims", "96", "--causal", "1"], "f16"):
        run = cases(*argv)
        command = bench_bwd.build_command(run, dtype, deterministic=True)
        assert command.endswith("--grad-deterministic")
        words = shlex.split(command)
        library_argv = words[words.index("fattn.build_library") + 1:]
        assert build_library.main(library_argv + ["--dry-run"]) == 0
        built = set(capsys.readouterr().out.split())
        for arch in ("sm_90a", "sm_80"):
            read = {c.key for c in bench_bwd.kernel_configs(run, dtype, arch, True)}
            assert read <= built, read - built
    assert bench_bwd.build_command(cases(), "bf16", True) == \
        "PYTHONPATH=python python3 -m fattn.build_library -j 2 -o DIR --preset bench-grad " \
        "--grad-deterministic"


def test_deterministic_columns_each_cell_can_run():
    grid = Case(128, 4096, 4, 16, 16, True)
    columns, why = bench_bwd.fattn_columns(grid, "bf16", True, deterministic=True)
    assert columns == {"fattn": "sm_80", "fattn_det": "sm_80", "fattn_sm90a": "sm_90a",
                       "fattn_sm90a_det": "sm_90a"} and why == {}
    assert [bench_bwd.column_kernels(c) for c in columns] == \
        [("sm_80", False), ("sm_80", True), ("sm_90a", False), ("sm_90a", True)]
    columns, why = bench_bwd.fattn_columns(grid, "bf16", False, deterministic=True)
    assert columns == {"fattn": "sm_80", "fattn_det": "sm_80"}
    assert set(why) == {"fattn_sm90a", "fattn_sm90a_det"}
    assert "sm_90 GPUs only" in why["fattn_sm90a_det"]
    columns, why = bench_bwd.fattn_columns(Case(96, 4096, 4, 21, 21, False), "bf16", True,
                                           deterministic=True)
    assert columns == {"fattn": "sm_80", "fattn_det": "sm_80"}
    assert "multiples of 64" in why["fattn_sm90a_det"]


def test_dry_run_deterministic(capsys):
    bench_bwd.main(["--dry-run", "--deterministic", "--quick"])
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ("5 cells, bf16, columns: fattn, fattn_det, fattn_sm90a, fattn_sm90a_det, "
                      "cuDNN, FA2 (fattn_sm90a, fattn_sm90a_det on sm_90 GPUs only)")
    assert "kernels read (12; forwards by sm_90a, an sm_90 GPU's default; --fwd-arch):" in out
    for arch in ("sm_80", "sm_90a"):
        for mask in ("full-wl-1-wr-1", "causal-wl-1-wr0"):
            key = f"grad-{arch}-bf16-d128-{mask}-sc00000000-s3db504f3"
            assert f"  {key}" in out and f"  {key}-det" in out
    assert any(l.endswith("--preset bench-grad --grad-deterministic  (then FATTN_KERNEL_DIR=DIR)")
               for l in out)
    assert "fattn_det 220" in out[-1] and "fattn_sm90a_det 220" in out[-1]


def test_probe_tells_deterministic_kernels_apart(monkeypatch):
    monkeypatch.setattr(bench_bwd, "is_sm90", lambda: True)
    run = cases("--quick")
    args = bench_bwd.parse_args(["--quick", "--deterministic"])
    fake = FakeProbe()
    monkeypatch.setattr(bench_bwd.subprocess, "run", fake)
    assert bench_bwd.probe(run, args) == {}
    keys = fake.calls[0]
    assert len(keys) == len(set(keys)) == 12  # 3 configurations x 2 archs x det or not
    assert keys[:4] == ["sm_80 d128 full 16/16", "sm_80 det d128 full 16/16",
                        "sm_90a d128 full 16/16", "sm_90a det d128 full 16/16"]

    bad = "sm_90a det d128 causal 16/16"
    monkeypatch.setattr(bench_bwd.subprocess, "run", FakeProbe(fail=[bad]))
    crashed = bench_bwd.probe(run, args)
    assert list(crashed) == [bad]
    causal = Case(128, 2048, 8, 16, 16, True)
    assert bench_bwd.probe_key("sm_90a", causal, True) == bad
    assert bench_bwd.probe_key("sm_90a", causal) != bad


def test_deterministic_calls(monkeypatch):
    """fattn_calls with --deterministic: each column's backward by its arch and
    determinism; one that crashed in the probe reads ERR, its twin still runs."""
    monkeypatch.setattr(bench_bwd, "is_sm90", lambda: True)
    monkeypatch.setattr(bench_bwd.fattn, "flash_attn_func",
                        lambda q, k, v, causal, return_lse, arch: ("out", "lse"))
    launched = []
    monkeypatch.setattr(bench_bwd, "fattn_backward",
                        lambda *a, arch, deterministic: launched.append((arch, deterministic)))
    case = Case(128, 2048, 8, 16, 16, True)
    crashed = {bench_bwd.probe_key("sm_90a", case, True): "crashed: illegal memory access"}
    for argv, expect in (([], ["fattn", "fattn_sm90a"]),
                         (["--deterministic"], ["fattn", "fattn_det", "fattn_sm90a"])):
        row = bench_bwd.new_row(case, "bf16")
        calls = bench_bwd.fattn_calls("q", "k", "v", "dout", case, bench_bwd.parse_args(argv),
                                      row, crashed)
        assert list(calls) == expect
        launched.clear()
        for call in calls.values():
            call()
        assert launched == [bench_bwd.column_kernels(c) for c in expect]
        if argv:
            assert row["tflops"] == {"fattn_sm90a_det": "ERR"}
            assert row["why"]["fattn_sm90a_det"].startswith("not run: in the probe, crashed")
        else:
            assert row["tflops"] == {} and row["why"] == {}


def test_deterministic_json_and_tables(tmp_path):
    grid = Case(128, 8192, 2, 16, 16, True)
    full = Case(64, 1024, 16, 32, 32, False)
    errs = {"dq": 4.1e-3, "dk": 3.2e-3, "dv": 2.9e-3}
    run = [fake_row(grid, {"FA2": 250.0, "cuDNN": 480.0, "fattn": 300.0, "fattn_det": 270.0,
                           "fattn_sm90a": 400.0, "fattn_sm90a_det": 320.0},
                    rel_l2={"fattn": errs, "fattn_det": dict(errs, dq=4.0e-3),
                            "fattn_sm90a": errs, "fattn_sm90a_det": dict(errs, dq=5.0e-3)}),
           fake_row(full, {"FA2": 200.0, "cuDNN": 400.0, "fattn": 240.0, "fattn_det": 216.0,
                           "fattn_sm90a": 300.0, "fattn_sm90a_det": "missing"},
                    rel_l2={"fattn": errs, "fattn_det": errs, "fattn_sm90a": errs},
                    why={"fattn_sm90a_det": "no kernel grad-sm_90a-bf16-d64-full-det"})]
    assert run[0]["ratios"] == {"fattn/cuDNN": 0.625, "fattn/FA2": 1.2,
                                "fattn_sm90a/cuDNN": round(400 / 480, 4), "fattn_sm90a/FA2": 1.6,
                                "fattn_det/fattn": 0.9, "fattn_sm90a_det/fattn_sm90a": 0.8,
                                "fattn_det/cuDNN": 0.5625, "fattn_det/FA2": 1.08,
                                "fattn_sm90a_det/cuDNN": round(320 / 480, 4),
                                "fattn_sm90a_det/FA2": 1.28}
    assert "fattn_sm90a_det/fattn_sm90a" not in run[1]["ratios"]
    assert run[1]["ratios"]["fattn_det/fattn"] == 0.9
    path = tmp_path / "det.json"
    bench_bwd.write_json(path, meta(), run)
    assert json.loads(path.read_text())["cells"][0]["tflops"]["fattn_sm90a_det"] == 320.0

    lines = bench_bwd.tables_from([str(path)]).splitlines()
    header = next(l for l in lines if l.startswith("| head dim"))
    assert header == ("| head dim | seqlen | causal | fattn sm_80 | fattn sm_80 det "
                      "| fattn sm_90a | fattn sm_90a det | cuDNN | FA2 "
                      "| sm_80 / cuDNN | sm_80 / FA2 | sm_90a / cuDNN | sm_90a / FA2 "
                      "| sm_80 det / sm_80 | sm_90a det / sm_90a "
                      "| sm_80 det / cuDNN | sm_80 det / FA2 | sm_90a det / cuDNN "
                      "| sm_90a det / FA2 | max rel L2 of dQ, dK, dV vs FA2 "
                      "(sm_80, sm_80 det, sm_90a, sm_90a det) |")
    assert "| 128 | 8k | yes | 300 | 270 | 400 | 320 | 480 | 250 | 0.625 | 1.200 | 0.833 " \
           "| 1.600 | 0.900 | 0.800 | 0.562 | 1.080 | 0.667 | 1.280 " \
           "| 4.1e-03, 4.0e-03, 4.1e-03, 5.0e-03 |" in lines
    assert "| 64 | 1k | no | 240 | 216 | 300 | missing | 400 | 200 | 0.600 | 1.200 | 0.750 " \
           "| 1.500 | 0.900 | - | 0.540 | 1.080 | - | - | 4.1e-03, 4.1e-03, 4.1e-03, - |" in lines
    assert "- fattn sm_90a det: no kernel grad-sm_90a-bf16-d64-full-det (1 cell)" in lines


def test_deterministic_columns_must_repeat_their_bits(monkeypatch):
    """check_column runs a deterministic column twice: two runs that differ read
    WRONG (not timed); the others run once."""
    fake = type("FakeTorch", (), {})()
    fake.cuda = type("FakeCuda", (), {"synchronize": staticmethod(lambda: None)})()
    fake.equal = lambda x, y: x == y
    monkeypatch.setattr(bench_bwd, "torch", fake)
    monkeypatch.setattr(bench_bwd, "rel_l2", lambda mine, ref: 0.0)
    case = Case(128, 2048, 8, 16, 16, True)
    for column, outputs, expect_call in (("fattn_det", [(1, 2, 3), (1, 2, 3)], True),
                                         ("fattn_sm90a_det", [(1, 2, 3), (1, 2, 4)], False),
                                         ("fattn", [(1, 2, 3), (1, 2, 4)], True)):
        row = bench_bwd.new_row(case, "bf16")
        runs = iter(outputs)
        calls = []

        def call():
            calls.append(1)
            return next(runs)
        got = bench_bwd.check_column(row, column, call, (1, 2, 3), case.name)
        assert (got is call) == expect_call
        assert len(calls) == (2 if column in bench_bwd.DETERMINISTIC_TWINS else 1)
        if not expect_call:
            assert row["tflops"][column] == "WRONG"
            assert row["why"][column] == "two runs gave different dQ, dK or dV"
