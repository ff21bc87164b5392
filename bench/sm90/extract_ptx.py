#!/usr/bin/env python3
"""Writes the PTX held by a gpu.binary (gpu-module-to-binary format=isa)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from ptx_corpus import binary_ptx  # noqa: E402

try:
    ptx = binary_ptx(open(sys.argv[1]).read())
except ValueError as error:
    sys.exit(str(error))
open(sys.argv[2], "wb").write(ptx.encode())
