#!/usr/bin/env bash
# Installs what fattn needs from Debian's packages (only what is missing),
# then configures and builds it in build/. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools cmake ninja-build
          python3 python3-pytest python3-hypothesis python3-numpy libgtest-dev
          python3-venv python3-pip python3-setuptools python3-wheel)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "fattn: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
fi

cmake -G Ninja -S . -B build
cmake --build build
