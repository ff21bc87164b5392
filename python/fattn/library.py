"""Kernel libraries: folders of kernel descriptions and cubins with an index.

Layout (written by `python -m fattn.build_library` or by compiling on first use):

    DIR/index.json                {"version": 1, "kernels": {KEY: {"description": "KEY/ENTRY.json",
                                                                   "config": {...}}}}
    DIR/KEY/ENTRY.json, ENTRY.cubin   as fattn-compile wrote them

One folder per key keeps kernels apart even when the compiler gives two
configurations the same entry name. Without index.json the folder is scanned.
"""
from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Dict, Iterator, Optional

from .config import KernelConfig

INDEX = "index.json"
INDEX_VERSION = 1


class LibraryError(RuntimeError):
    pass


def check_description(desc: dict, config: KernelConfig, where: str) -> None:
    """A compiled kernel must compute the configuration it was asked for."""
    try:
        got = KernelConfig.from_description(desc)
    except (KeyError, TypeError, ValueError) as e:
        raise LibraryError(f"{where}: not a fattn kernel description ({e})") from None
    if got != config:
        # Every field, not to_json's: it leaves out descale and value_layout when None.
        diffs = [f"{f.name}: wanted {getattr(config, f.name)!r}, description has "
                 f"{getattr(got, f.name)!r}" for f in dataclasses.fields(config)
                 if getattr(got, f.name) != getattr(config, f.name)]
        raise LibraryError(f"{where}: kernel does not match its configuration: "
                           + "; ".join(diffs))


@contextlib.contextmanager
def _locked(directory: Path) -> Iterator[None]:
    """Serializes index updates between processes (pytest -n, several jobs)."""
    import fcntl
    with open(directory / ".lock", "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _write_json_atomic(path: Path, data: dict) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


class KernelLibrary:
    def __init__(self, directory: os.PathLike | str):
        self.directory = Path(directory)

    def __repr__(self) -> str:
        return f"KernelLibrary({str(self.directory)!r})"

    def entries(self) -> Dict[str, str]:
        """key -> description path (relative to the folder)."""
        index = self.directory / INDEX
        if index.is_file():
            try:
                data = json.loads(index.read_text())
            except json.JSONDecodeError as e:
                raise LibraryError(f"{index}: invalid JSON: {e}") from None
            if not isinstance(data, dict) or data.get("version") != INDEX_VERSION or \
                    not isinstance(data.get("kernels"), dict):
                raise LibraryError(f"{index}: expected {{\"version\": {INDEX_VERSION}, "
                                   "\"kernels\": {...}}")
            return {k: v["description"] for k, v in data["kernels"].items()}
        return {key: str(p.relative_to(self.directory)) for key, p in self.scan().items()}

    def scan(self) -> Dict[str, Path]:
        """Finds descriptions by reading every *.json below the folder."""
        found: Dict[str, Path] = {}
        if not self.directory.is_dir():
            return found
        for path in sorted(self.directory.rglob("*.json")):
            if path.name == INDEX:
                continue
            try:
                desc = json.loads(path.read_text())
                found[KernelConfig.from_description(desc).key] = path
            except (OSError, ValueError, KeyError, TypeError):
                continue  # not a kernel description
        return found

    def find(self, config: KernelConfig) -> Optional[Path]:
        rel = self.entries().get(config.key)
        if rel is None:
            return None
        path = self.directory / rel
        if not path.is_file():
            raise LibraryError(f"{self.directory / INDEX} lists {config.key} at {rel}, "
                               "which does not exist")
        return path

    def add(self, config: KernelConfig, compiled_dir: Path) -> Path:
        """Moves one compiled kernel (a description + cubin in `compiled_dir`)
        into the library and indexes it."""
        descs = [p for p in compiled_dir.glob("*.json")]
        if len(descs) != 1:
            raise LibraryError(f"expected one kernel description in {compiled_dir}, found "
                               f"{[p.name for p in descs]}")
        desc = json.loads(descs[0].read_text())
        check_description(desc, config, str(descs[0]))
        for field in ("cubin", "ptx"):
            if field in desc and not (compiled_dir / desc[field]).is_file():
                raise LibraryError(f"{descs[0]} names {field} {desc[field]!r}, which the "
                                   "compiler did not write")
        self.directory.mkdir(parents=True, exist_ok=True)
        with _locked(self.directory):
            target = self.directory / config.key
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(compiled_dir, target)
            self._index_locked({config.key: f"{config.key}/{descs[0].name}"}, {config.key: config})
        return target / descs[0].name

    def reindex(self) -> int:
        """Rewrites index.json from the descriptions in the folder."""
        with _locked(self.directory):
            (self.directory / INDEX).unlink(missing_ok=True)
            found = self.scan()
            configs = {}
            for key, path in found.items():
                configs[key] = KernelConfig.from_description(json.loads(path.read_text()))
            self._index_locked({k: str(p.relative_to(self.directory)) for k, p in found.items()},
                               configs)
        return len(found)

    def _index_locked(self, new: Dict[str, str], configs: Dict[str, KernelConfig]) -> None:
        index = self.directory / INDEX
        data = {"version": INDEX_VERSION, "kernels": {}}
        if index.is_file():
            data = json.loads(index.read_text())
        for key, rel in new.items():
            data["kernels"][key] = {"description": rel, "config": configs[key].to_json()}
        _write_json_atomic(index, data)
