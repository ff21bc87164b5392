"""The package as pip installs it (run with --installed from the environment pip
installed into; scripts/test.sh does) and where it looks for the runtime."""
import os
import re
from pathlib import Path

import pytest

import fattn
from fattn import _paths, _runtime

REPO = Path(__file__).resolve().parents[2]


def test_version():
    assert re.fullmatch(r"\d+\.\d+\.\d+", fattn.__version__), fattn.__version__
    # pyproject.toml takes the wheel's version from it.
    pyproject = (REPO / "pyproject.toml").read_text()
    assert re.search(r'^dynamic = \["version"\]$', pyproject, re.M)
    assert re.search(r'^version = \{attr = "fattn.__version__"\}$', pyproject, re.M)


def test_runtime_lookup_order(monkeypatch, tmp_path):
    monkeypatch.delenv("FATTN_RUNTIME_LIB", raising=False)
    package_lib = _paths.PACKAGE_DIR / "_lib" / _runtime.LIB_NAME
    # Installed: the package's _lib only.
    monkeypatch.setattr(_runtime, "SOURCE_TREE", None)
    assert _runtime.library_candidates() == [package_lib]
    # In a checkout: then its build folders.
    monkeypatch.setattr(_runtime, "SOURCE_TREE", tmp_path)
    assert _runtime.library_candidates() == [
        package_lib, tmp_path / "build" / "lib" / _runtime.LIB_NAME,
        tmp_path / "build-runtime" / "lib" / _runtime.LIB_NAME]
    # FATTN_RUNTIME_LIB overrides both.
    monkeypatch.setenv("FATTN_RUNTIME_LIB", str(tmp_path / "mine.so"))
    assert _runtime.library_candidates() == [tmp_path / "mine.so"]


def test_missing_runtime_says_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setattr(_runtime, "_lib", None)
    monkeypatch.setenv("FATTN_RUNTIME_LIB", str(tmp_path / "missing.so"))
    with pytest.raises(FileNotFoundError, match=r"pip install --no-build-isolation \."):
        _runtime.load_library()


def test_installed_layout(request):
    """The installed package holds the runtime library and the tuning table,
    and is not the checkout's python/fattn."""
    if not request.config.getoption("installed"):
        pytest.skip("checks an installed package: pytest --installed")
    assert _paths.SOURCE_TREE is None
    lib = _paths.PACKAGE_DIR / "_lib" / _runtime.LIB_NAME
    assert lib.is_file() and lib.read_bytes()[:4] == b"\x7fELF"
    if "FATTN_RUNTIME_LIB" not in os.environ:
        assert _runtime.library_candidates() == [lib]
    assert (_paths.PACKAGE_DIR / "tuning.json").is_file()
    from fattn.config import tuning_tables
    assert tuning_tables()
