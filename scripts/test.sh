#!/usr/bin/env bash
# Every test that runs without a GPU: the lit suite (dialect, passes,
# pipelines, CPU execution against float64, unit tests), the PTX corpus
# (scripts/ptx_corpus.py) and the Python package's CPU tests. GPU tests: docs/GPU-TESTING.md.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --build build --target check-fattn
cmake --build build --target check-fattn-ptx
/usr/bin/python3 -m pytest -q python/tests
