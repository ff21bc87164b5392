#!/usr/bin/env bash
# Copies Debian's pure-Python hypothesis, with the modules it imports (sortedcontainers,
# attrs, and exceptiongroup for Python < 3.11), into build-pydeps/ (or $1), for a machine
# that has no hypothesis and no network: the GPU machine. Carry that folder there;
# python/tests/properties_support.py puts it on the path (FATTN_PYDEPS names another).
# Usage, from the repo root on this machine:  bash scripts/vendor_hypothesis.sh
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${1:-build-pydeps}
packages=(python3-hypothesis python3-sortedcontainers python3-attr python3-exceptiongroup)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
fi
src=/usr/lib/python3/dist-packages
rm -rf "$dest"
mkdir -p "$dest"
for name in hypothesis _hypothesis_ftz_detector.py sortedcontainers attr attrs exceptiongroup; do
  cp -r "$src/$name" "$dest/"
done
find "$dest" -name __pycache__ -prune -exec rm -rf {} +
version=$(python3 -S -c 'import sys; sys.path.insert(0, sys.argv[1]); import hypothesis; print(hypothesis.__version__)' "$dest")
echo "hypothesis $version in $dest ($(du -sh "$dest" | cut -f1))"
