"""Kernel libraries: folders of kernel descriptions and cubins with an index.

Layout (written by `python -m fattn.build_library` or by compiling on first use):

    DIR/index.json                {"version": 1, "kernels": {KEY: {"description": "KEY/ENTRY.json",
                                                                   "config": {...},
                                                                   "compiler": "sha256:..."}}}
    DIR/KEY/ENTRY.json, ENTRY.cubin   as fattn-compile wrote them

One folder per key keeps kernels apart even when the compiler gives two
configurations the same entry name. "compiler" is the identity of the
fattn-compile that built the kernel (compiler.compiler_identity): where a
fattn-compile is at hand, a kernel that another one built is built again
(kernels.get_kernel, build_library). Without index.json the folder is scanned
(and its kernels' compiler is unknown).
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

from .grad_config import AnyConfig, config_from_description

INDEX = "index.json"
INDEX_VERSION = 1


class LibraryError(RuntimeError):
    pass


def check_description(desc: dict, config: AnyConfig, where: str) -> None:
    """A compiled kernel must compute the configuration it was asked for."""
    try:
        got = config_from_description(desc)
    except (KeyError, TypeError, ValueError) as e:
        raise LibraryError(f"{where}: not a fattn kernel description ({e})") from None
    if type(got) is not type(config):
        raise LibraryError(f"{where}: kernel does not match its configuration: a "
                           f"{type(got).__name__}'s description for a {type(config).__name__}")
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

    def _indexed(self) -> Optional[Dict[str, dict]]:
        """index.json's kernels (None without an index)."""
        index = self.directory / INDEX
        if not index.is_file():
            return None
        try:
            data = json.loads(index.read_text())
        except json.JSONDecodeError as e:
            raise LibraryError(f"{index}: invalid JSON: {e}") from None
        if not isinstance(data, dict) or data.get("version") != INDEX_VERSION or \
                not isinstance(data.get("kernels"), dict):
            raise LibraryError(f"{index}: expected {{\"version\": {INDEX_VERSION}, "
                               "\"kernels\": {...}}")
        return data["kernels"]

    def entries(self) -> Dict[str, str]:
        """key -> description path (relative to the folder)."""
        indexed = self._indexed()
        if indexed is not None:
            return {k: v["description"] for k, v in indexed.items()}
        return {key: str(p.relative_to(self.directory)) for key, p in self.scan().items()}

    def compiler_of(self, config: AnyConfig) -> Optional[str]:
        """The identity of the fattn-compile that built config's kernel, if recorded."""
        entry = (self._indexed() or {}).get(config.key)
        return entry.get("compiler") if isinstance(entry, dict) else None

    def find_current(self, config: AnyConfig, compiler_id: Optional[str]) -> Optional[Path]:
        """find(config), but None for a kernel that a fattn-compile other than
        `compiler_id` built (or an unknown one); compiler_id None: any kernel."""
        path = self.find(config)
        if path is None or compiler_id is None or self.compiler_of(config) == compiler_id:
            return path
        return None

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
                found[config_from_description(desc).key] = path
            except (OSError, ValueError, KeyError, TypeError):
                continue  # not a kernel description
        return found

    def find(self, config: AnyConfig) -> Optional[Path]:
        rel = self.entries().get(config.key)
        if rel is None:
            return None
        path = self.directory / rel
        if not path.is_file():
            raise LibraryError(f"{self.directory / INDEX} lists {config.key} at {rel}, "
                               "which does not exist")
        return path

    def add(self, config: AnyConfig, compiled_dir: Path,
            compiler_id: Optional[str] = None) -> Path:
        """Moves one compiled kernel (a description + cubin in `compiled_dir`)
        into the library and indexes it, with the identity of the fattn-compile
        that built it."""
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
            self._index_locked({config.key: f"{config.key}/{descs[0].name}"}, {config.key: config},
                               {config.key: compiler_id})
        return target / descs[0].name

    def reindex(self) -> int:
        """Rewrites index.json from the descriptions in the folder, keeping the
        compiler identities it recorded."""
        with _locked(self.directory):
            compilers = {k: v.get("compiler") for k, v in (self._indexed() or {}).items()
                         if isinstance(v, dict)}
            (self.directory / INDEX).unlink(missing_ok=True)
            found = self.scan()
            configs = {}
            for key, path in found.items():
                configs[key] = config_from_description(json.loads(path.read_text()))
            self._index_locked({k: str(p.relative_to(self.directory)) for k, p in found.items()},
                               configs, compilers)
        return len(found)

    def _index_locked(self, new: Dict[str, str], configs: Dict[str, AnyConfig],
                      compilers: Dict[str, Optional[str]]) -> None:
        index = self.directory / INDEX
        data = {"version": INDEX_VERSION, "kernels": {}}
        if index.is_file():
            data = json.loads(index.read_text())
        for key, rel in new.items():
            entry = {"description": rel, "config": configs[key].to_json()}
            if compilers.get(key):
                entry["compiler"] = compilers[key]
            data["kernels"][key] = entry
        _write_json_atomic(index, data)
