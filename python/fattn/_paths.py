"""Where the package sits: installed (site-packages) or in a source checkout,
whose build folders hold the runtime library and fattn-compile."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

PACKAGE_DIR = Path(__file__).resolve().parent


def _source_tree() -> Optional[Path]:
    root = PACKAGE_DIR.parents[1]
    return root if (root / "lib" / "Runtime" / "CMakeLists.txt").is_file() else None


# The checkout's root when the package is imported from python/fattn, else None.
SOURCE_TREE = _source_tree()
