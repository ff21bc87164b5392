"""bench/bench_fwd.py without a GPU: options, the cells of a run, FlashAttention-3's
coverage, the ratios, the JSON file and the tables made from it (fake timings)."""
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import bench_fwd  # noqa: E402
from bench_fwd import Case  # noqa: E402


def cases(*argv):
    return bench_fwd.enumerate_cases(bench_fwd.parse_args(list(argv)))


def test_default_grid_is_the_anchor_table():
    grid = cases()
    assert len(grid) == 3 * 5 * 2
    assert all(c.b * c.n == 16384 and c.h * c.d == 2048 and c.h == c.hkv for c in grid)
    assert [(c.d, c.n, c.causal) for c in grid[:3]] == [(64, 1024, False), (64, 1024, True),
                                                         (64, 2048, False)]
    assert not any(c.model for c in grid)


def test_fp8_and_quick_defaults():
    fp8 = cases("--dtype", "fp8")
    assert {c.d for c in fp8} == {128, 256} and {c.n for c in fp8} == {4096, 8192, 16384}
    assert len(fp8) == 12
    quick = cases("--quick", "--causal", "1")
    assert [(c.d, c.n, c.causal) for c in quick] == [(128, 2048, True), (128, 8192, True)]


def test_gqa_presets():
    rows = cases("--gqa-only")
    assert len(rows) == 3 * 5
    assert all(c.causal and c.d == 128 for c in rows)
    llama = {c.n: c for c in rows if c.model == "Llama-3-8B"}
    assert (llama[8192].b, llama[8192].h, llama[8192].hkv) == (2, 32, 8)
    assert llama[32768].b == 1 and llama[2048].b == 8
    qwen = [c for c in rows if c.model == "Qwen2-7B"]
    assert {(c.h, c.hkv) for c in qwen} == {(28, 4)}
    both = cases("--gqa-presets", "qwen2-7b", "--gqa-seqs", "4096", "--gqa-batch", "2",
                 "--dims", "128", "--seqs", "4096")
    assert [(c.model, c.b, c.n) for c in both] == [("", 4, 4096), ("", 4, 4096),
                                                   ("Qwen2-7B", 2, 4096)]
    assert both[2].name == "Qwen2-7B B2 28/4 4k causal"


@pytest.mark.parametrize("argv", [["--gqa-presets", "llama"], ["--dims", "a,b"],
                                  ["--seqs", "0"], ["--gqa-batch", "0"], ["--rep", "0"],
                                  ["--fa3", "/nonexistent/fa3"]])
def test_bad_options(argv, capsys):
    with pytest.raises(SystemExit):
        bench_fwd.parse_args(argv)


def test_fa3_folder(tmp_path):
    (tmp_path / "fa3_load.py").write_text("")
    args = bench_fwd.parse_args(["--fa3", str(tmp_path)])
    assert args.fa3 == str(tmp_path.resolve())


def test_fa3_coverage():
    mha = Case(128, 4096, 4, 16, 16, True)
    assert bench_fwd.fa3_unsupported(mha, "bf16") is None
    assert bench_fwd.fa3_unsupported(mha, "fp8") is None
    assert bench_fwd.fa3_unsupported(Case(128, 4096, 4, 32, 8, True, "Llama-3-8B"), "bf16") is None
    assert "fp16" in bench_fwd.fa3_unsupported(mha, "f16")
    assert "64/128/256" in bench_fwd.fa3_unsupported(Case(96, 4096, 4, 21, 21, False), "bf16")
    assert "128/256" in bench_fwd.fa3_unsupported(Case(64, 4096, 4, 32, 32, False), "fp8")


def fake_row(case, dtype, tflops, rel_l2=None, why=None):
    row = bench_fwd.new_row(case, dtype)
    row["tflops"].update(tflops)
    row["rel_l2"].update(rel_l2 or {})
    row["why"].update(why or {})
    return bench_fwd.add_ratios(row)


def test_ratios_only_between_numbers():
    row = fake_row(Case(128, 8192, 2, 16, 16, True), "bf16",
                   {"fattn": 642.0, "FA3": 692.0, "cuDNN": 545.0, "FA2": "ERR"})
    assert row["ratios"] == {"fattn/FA3": round(642 / 692, 4), "fattn/cuDNN": round(642 / 545, 4)}
    row = fake_row(Case(128, 8192, 2, 16, 16, True), "bf16", {"fattn": "WRONG", "FA3": 692.0})
    assert row["ratios"] == {}


def meta(**kw):
    m = dict(dtype="bf16", warmup=100, rep=200, interleave=True, fp8_descale="block",
             fp8_v_layout="both", fa3="/x/fa3")
    m.update(kw)
    return m


def test_json_and_tables(tmp_path, capsys):
    grid = Case(128, 8192, 2, 16, 16, True)
    llama = Case(128, 8192, 2, 32, 8, True, "Llama-3-8B")
    run1 = [fake_row(grid, "bf16", {"FA2": 280.0, "cuDNN": 545.0, "fattn": 642.0, "FA3": 692.0}),
            fake_row(llama, "bf16", {"FA2": 292.0, "cuDNN": 561.0, "fattn": 633.0, "FA3": 701.0},
                     why={"cuDNN": "K/V expanded to the query heads (no enable_gqa)"})]
    run2 = [fake_row(grid, "bf16", {"FA2": 282.0, "cuDNN": 548.0, "fattn": 642.0, "FA3": 690.0})]
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    bench_fwd.write_json(a, meta(), run1)
    bench_fwd.write_json(b, meta(), run2)
    data = json.loads(a.read_text())
    assert data["format"] == bench_fwd.JSON_FORMAT and len(data["cells"]) == 2
    assert data["cells"][0]["case"] == "bf16 d128 8k causal"
    assert data["cells"][0]["ratios"]["fattn/FA3"] == round(642 / 692, 4)

    one = bench_fwd.tables_from([str(a)])
    lines = one.splitlines()
    header = next(l for l in lines if l.startswith("| head dim"))
    assert header == ("| head dim | seqlen | causal | fattn | FA3 | cuDNN | FA2 | fattn / FA3 "
                      "| fattn / cuDNN | fattn / FA2 |")
    assert "| 128 | 8k | yes | 642 | 692 | 545 | 280 | 0.928 | 1.178 | 2.293 |" in lines
    assert "| Llama-3-8B | 32/8 | 2 | 8k | yes | 633 | 701 | 561 | 292 | 0.903 | 1.128 | 2.168 |" \
        in lines
    assert any("cuDNN: K/V expanded" in l for l in lines)

    two = bench_fwd.tables_from([str(a), str(b)]).splitlines()
    assert "| 128 | 8k | yes | 642 / 642 | 692 / 690 | 545 / 548 | 280 / 282 | 0.928 / 0.930 " \
           "| 1.178 / 1.171 | 2.293 / 2.277 |" in two
    # A cell the second run lacks reads "-" there.
    assert any(l.startswith("| Llama-3-8B") and "633 / -" in l for l in two)

    bench_fwd.main(["--table-from", str(a)])
    assert capsys.readouterr().out.strip() == one


def test_fp8_table_with_fa3_not_run(tmp_path):
    ok = Case(128, 16384, 1, 16, 16, False)
    no = Case(64, 16384, 1, 32, 32, False)
    why = bench_fwd.fa3_unsupported(no, "fp8")
    rows = [fake_row(ok, "fp8", {"FA2": 300.0, "cuDNN": 630.0, "fattn": 1071.0,
                                 "fattn_vt": 1180.0, "FA3": 876.0},
                     rel_l2={"fattn": 0.05, "fattn_vt": 0.05, "FA3": 0.06}),
            fake_row(no, "fp8", {"FA2": 280.0, "cuDNN": 450.0, "fattn": "missing",
                                 "fattn_vt": "missing", "FA3": bench_fwd.NOT_RUN},
                     why={"FA3": why})]
    text = bench_fwd.format_tables(meta(dtype="fp8", fp8_descale="head"), [rows])
    lines = text.splitlines()
    header = next(l for l in lines if l.startswith("| head dim"))
    assert ("| fattn fp8 | fattn fp8 V^T | FA3 fp8 | cuDNN bf16 | FA2 bf16 | fattn / FA3 "
            "| fattn / cuDNN | V^T / FA3 | V^T / cuDNN | rel L2 vs SDPA") in header
    assert any(l.startswith("| 128 | 16k | no | 1,071 | 1,180 | 876 | 630 | 300 | 1.223 ")
               for l in lines)
    assert any(l.startswith("| 64 | 16k | no | missing | missing | — |") for l in lines)
    assert f"- — {why} (1 cell)" in lines
    assert "per-(batch, KV head) descales" in text


def test_dry_run_needs_no_gpu(tmp_path, capsys):
    (tmp_path / "fa3_load.py").write_text("")
    bench_fwd.main(["--dry-run", "--fa3", str(tmp_path), "--dtype", "f16", "--quick",
                    "--gqa-presets", "llama3-8b", "--gqa-seqs", "8192"])
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("5 cells, f16")
    assert "f16 Llama-3-8B B2 32/8 8k causal: B=2 H=32 Hkv=8 D=128 N=8192" in out[5]
    assert "no fp16 kernels" in out[5]
    assert out[-1].startswith("estimated run time:")


def test_table_from_rejects_other_files(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    with pytest.raises(SystemExit):
        bench_fwd.tables_from([str(bad)])
