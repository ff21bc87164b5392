"""pytest setup: the package from this checkout (or, with --installed, the one
pip installed), and the `gpu` marker.

CPU tests run anywhere (torch optional). GPU tests (test_gpu_*.py, marked `gpu`)
need torch with CUDA and the runtime library; see docs/GPU-TESTING.md.
"""
import os
import sys
from pathlib import Path

import pytest

CHECKOUT_PYTHON = Path(__file__).resolve().parents[1]


def pytest_addoption(parser):
    parser.addoption("--installed", action="store_true",
                     help="test the fattn package that pip installed instead of python/fattn")


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU, torch and libfattn_runtime.so")
    if not config.getoption("installed"):
        sys.path.insert(0, str(CHECKOUT_PYTHON))
        return
    import fattn
    if Path(fattn.__file__).resolve().is_relative_to(CHECKOUT_PYTHON):
        raise pytest.UsageError(f"--installed, but fattn is imported from the checkout "
                                f"({fattn.__file__}): install it with pip and run pytest "
                                "with that environment's python, outside python/")


def _cuda_torch():
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def pytest_collection_modifyitems(config, items):
    if _cuda_torch() is not None:
        return
    skip = pytest.mark.skip(reason="needs torch with a CUDA device")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    """Isolates the kernel search paths from the user's environment."""
    for var in ("FATTN_KERNEL_DIR", "FATTN_COMPILE", "FATTN_ARCH", "FATTN_ENABLE_SM90"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("FATTN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PATH", os.defpath)
    import fattn
    fattn.set_kernel_dir(tmp_path / "kernels")
    yield tmp_path
    fattn.set_kernel_dir(None)
