"""bench/plot_perf.py without a GPU: the PNGs of bench_fwd.py JSON files, their panels
and lines, repeated runs at their median, byte-identical output. Skipped without
matplotlib (Debian: python3-matplotlib)."""
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
import bench_fwd  # noqa: E402
import plot_perf  # noqa: E402
from bench_fwd import Case  # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def row(case, dtype, tflops, why=None):
    r = bench_fwd.new_row(case, dtype)
    r["tflops"].update(tflops)
    r["why"].update(why or {})
    return bench_fwd.add_ratios(r)


def meta(dtype="bf16", **kw):
    m = dict(dtype=dtype, warmup=100, rep=200, interleave=True, fp8_descale="head",
             fp8_v_layout="transposed", fa3=None, arch=None, argv=[],
             date="2026-12-02 01:30 UTC", device="NVIDIA H200")
    m.update(kw)
    return m


def grid(d, n, causal):
    h = bench_fwd.HEAD_WIDTH // d
    return Case(d, n, bench_fwd.TOKENS // n, h, h, causal)


# Cells of docs/PERF.md's sm_90a bf16 table (2026-12-02, first process): fattn, cuDNN, FA2.
BF16 = [(64, 2048, False, 490, 445, 283), (64, 2048, True, 399, 378, 250),
        (64, 4096, False, 509, 451, 284), (64, 4096, True, 441, 404, 263),
        (128, 2048, False, 669, 604, 309), (128, 2048, True, 552, 478, 261),
        (128, 4096, False, 701, 626, 315), (128, 4096, True, 616, 530, 280)]


@pytest.fixture
def runs(tmp_path):
    """Files in bench_fwd.py's format, written by its writer: a bf16 grid and GQA run
    (FA3 from issue 40's Llama-3-8B row), the same grid again, an fp8 run and an
    sm_80 run."""
    cells = [row(grid(d, n, c), "bf16", {"fattn": f, "cuDNN": cu, "FA2": fa2})
             for d, n, c, f, cu, fa2 in BF16]
    cells[1]["tflops"].update(FA2="ERR", cuDNN="WRONG")
    llama = [row(Case(128, n, 16384 // n, 32, 8, True, "Llama-3-8B"), "bf16",
                 {"fattn": f, "FA3": fa3, "cuDNN": "ERR"}) for n, f, fa3 in
             ((4096, 606, 672), (8192, 633, 701))]
    files = {name: tmp_path / f"{name}.json" for name in ("bf16", "bf16b", "fp8", "sm80")}
    bench_fwd.write_json(files["bf16"], meta(), cells + llama)
    again = [row(grid(d, n, c), "bf16", {"fattn": f + 10, "cuDNN": cu, "FA2": fa2})
             for d, n, c, f, cu, fa2 in BF16]
    again[1]["tflops"]["cuDNN"] = "WRONG"
    bench_fwd.write_json(files["bf16b"], meta(date="2026-12-02 02:00 UTC"), again)
    # FP8 V^T, per-head descales (docs/PERF.md, 2026-12-02); FA3 does not run head dim 64.
    fp8 = [row(grid(128, n, False), "fp8", {"fattn_vt": f}) for n, f in
           ((4096, 1134), (8192, 1161), (16384, 1207))]
    fp8.append(row(grid(64, 4096, False), "fp8", {"fattn_vt": "missing", "FA3": "—"},
                   why={"FA3": bench_fwd.fa3_unsupported(grid(64, 4096, False), "fp8")}))
    bench_fwd.write_json(files["fp8"], meta("fp8"), fp8)
    # sm_80 (docs/PERF.md, 2026-11-29): fattn against FA2.
    bench_fwd.write_json(files["sm80"], meta(arch="sm_80"),
                         [row(grid(64, 2048, False), "bf16", {"fattn": 328.1, "FA2": 299.8})])
    return files


def lines_of(ax):
    return {l.get_label(): (list(l.get_xdata()), list(l.get_ydata())) for l in ax.get_lines()}


def visible(fig):
    return [ax for ax in fig.axes if ax.get_visible()]


def test_one_figure_per_dtype_and_table(runs):
    figs = plot_perf.figures(plot_perf.load_runs([str(p) for p in runs.values()]))
    assert sorted(figs) == ["bf16-forward-sm_80.png", "bf16-forward.png", "bf16-gqa.png",
                            "fp8-forward.png"]

    forward = figs["bf16-forward.png"]
    assert [ax.get_title() for ax in visible(forward)] == [
        "head dim 64", "head dim 128", "head dim 64, causal", "head dim 128, causal"]
    assert "NVIDIA H200, 2026-12-02" in forward._suptitle.get_text()
    assert "2 runs (median)" in forward._suptitle.get_text()
    d128 = lines_of(visible(forward)[1])
    assert list(d128) == ["fattn", "cuDNN", "FA2"]
    # The two runs' fattn (669 and 679) at their median; the peers as measured.
    assert d128["fattn"] == ([2048, 4096], [674.0, 706.0])
    assert d128["cuDNN"] == ([2048, 4096], [604, 626])
    assert [t.get_text() for t in visible(forward)[1].get_xticklabels()] == ["2k", "4k"]
    # A cell no run has a number for is a gap in that line; one that a run lacks
    # takes the other run's number.
    causal64 = lines_of(visible(forward)[2])
    assert causal64["cuDNN"][1][0] != causal64["cuDNN"][1][0]
    assert causal64["cuDNN"][1][1] == 404
    assert causal64["FA2"][1] == [250, 263]
    # One y axis from 0 for every panel.
    assert {ax.get_ylim() for ax in visible(forward)} == {(0, 706 * 1.08)}

    gqa = figs["bf16-gqa.png"]
    (panel,) = visible(gqa)
    assert panel.get_title() == "Llama-3-8B (32/8 heads), causal"
    assert lines_of(panel) == {"fattn": ([4096, 8192], [606, 633]),
                               "FA3": ([4096, 8192], [672, 701])}

    fp8 = figs["fp8-forward.png"]
    assert [ax.get_title() for ax in visible(fp8)] == ["head dim 64", "head dim 128"]
    assert lines_of(visible(fp8)[0]) == {}
    assert [t.get_text() for t in visible(fp8)[0].texts] == ["no contender measured"]
    assert lines_of(visible(fp8)[1]) == {
        "fattn fp8 V^T": ([4096, 8192, 16384], [1134, 1161, 1207])}
    assert "e4m3" in fp8._suptitle.get_text()

    assert "sm_80" in figs["bf16-forward-sm_80.png"]._suptitle.get_text()
    legend_texts = [t.get_text() for t in forward.legends[0].get_texts()]
    assert legend_texts == ["fattn", "cuDNN", "FA2"]


def test_command_writes_the_same_pngs_twice(runs, tmp_path):
    script = str(BENCH / "plot_perf.py")
    inputs = [str(runs["bf16"]), str(runs["fp8"])]
    out = []
    for folder in ("a", "b"):
        res = subprocess.run([sys.executable, script, "--json", *inputs, "--out",
                              str(tmp_path / folder)], capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
        assert res.stdout.split() == [str(tmp_path / folder / n) for n in
                                      ("bf16-forward.png", "bf16-gqa.png", "fp8-forward.png")]
        out.append({p.name: p.read_bytes() for p in (tmp_path / folder).iterdir()})
    assert out[0] == out[1]
    assert all(b.startswith(PNG_SIGNATURE) for b in out[0].values())
    # Two rows of two panels are wider and taller than one panel.
    width, height = (int.from_bytes(out[0]["bf16-forward.png"][o:o + 4], "big") for o in (16, 20))
    gwidth, gheight = (int.from_bytes(out[0]["bf16-gqa.png"][o:o + 4], "big") for o in (16, 20))
    assert width > gwidth and height > gheight
    assert b"Matplotlib" not in out[0]["bf16-forward.png"]


def test_help_and_bad_input(tmp_path):
    script = str(BENCH / "plot_perf.py")
    res = subprocess.run([sys.executable, script, "--help"], capture_output=True, text=True)
    assert res.returncode == 0 and "one PNG per" in res.stdout
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "other"}')
    res = subprocess.run([sys.executable, script, "--json", str(bad), "--out",
                          str(tmp_path / "o")], capture_output=True, text=True)
    assert res.returncode != 0 and "not a bench_fwd.py --json file" in res.stderr
    assert not (tmp_path / "o").exists()
