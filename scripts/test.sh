#!/usr/bin/env bash
# Every test that runs without a GPU: the lit suite (dialect, passes,
# pipelines, CPU execution against float64, unit tests), the PTX corpus
# (scripts/ptx_corpus.py), the Python package's CPU tests, a minute of fuzzing
# (scripts/fuzz.py) and the lit suite on an ASan + UBSan build. GPU tests: docs/GPU-TESTING.md.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --build build --target check-fattn
cmake --build build --target check-fattn-ptx
/usr/bin/python3 -m pytest -q python/tests
# The package as users install it (pyproject.toml, setup.py): pip into a fresh
# venv, then test_cpu_package.py on the installed layout. The runtime needs the
# CUDA toolkit's headers.
if [ -e /usr/local/cuda/include/cuda.h ] || command -v nvcc >/dev/null; then
  rm -rf build-python/venv
  /usr/bin/python3 -m venv --system-site-packages build-python/venv
  build-python/venv/bin/pip install -q --no-build-isolation --no-index --no-deps .
  (cd build-python && venv/bin/python -m pytest -q --installed ../python/tests/test_cpu_package.py)
else
  echo "fattn: no CUDA toolkit (cuda.h), so pip install is not checked"
fi
# 60 s of scripts/fuzz.py (fixed seed); fails on a failure class not in scripts/fuzz-allowlist.txt.
/usr/bin/python3 scripts/fuzz.py --seconds 60 --seed 1 --out build/fuzz
# The tools built with ASan + UBSan in build-asan, and the lit suite run there.
cmake -G Ninja -S . -B build-asan -DFATTN_ENABLE_SANITIZERS=ON
cmake --build build-asan --target check-fattn
# The installed package: cmake --install into build/install, then examples/downstream (an
# out-of-tree driver) built against it through find_package(FAttn) and its check run.
rm -rf build/install build/downstream
cmake --install build --prefix build/install
cmake -G Ninja -S examples/downstream -B build/downstream -DCMAKE_PREFIX_PATH="$PWD/build/install"
cmake --build build/downstream
ctest --test-dir build/downstream --output-on-failure
