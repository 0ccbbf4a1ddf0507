#!/usr/bin/env bash
# Installs what k100lc needs on Debian 12 (only what is missing), then
# configures and builds the tree in ${K100_BUILD_DIR:-build}.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${K100_BUILD_DIR:-$root/build}

# Build dependencies, and the oracles the test suite compares against
# (LLVM 14/15, lld, the ROCm device libraries, hipcc, the HSA runtime headers).
packages=(
  build-essential cmake ninja-build git pkg-config
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  libmsgpack-cxx-dev nlohmann-json3-dev libyaml-cpp-dev
  python3 python3-numpy python3-pytest python3-yaml python3-matplotlib
  llvm-14 clang-14 lld-14 libclang-rt-14-dev
  llvm-15 clang-15 lld-15
  rocm-device-libs libhsa-runtime-dev libhsa-runtime64-1 hipcc
  unicode-data   # the tokenizer's code point tables are generated from it at build time
  libcpp-httplib-dev   # k100-server's HTTP library
  curl nodejs          # the server's tests are clients in curl and Node's fetch
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

jobs=$(nproc)
if [ ! -f "$build/build.ninja" ]; then
  werror=OFF
  [ "${CI:-}" = "true" ] && werror=ON   # CI: the build must be warning-free
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DK100_WERROR=$werror
fi
cmake --build "$build" -j "$jobs"

# Test oracle of the GGUF codecs: llama.cpp's ggml from npm, into the build
# tree (exit 77: npm unavailable, the oracle tests will skip; CI=true fails).
"$root/scripts/install-llama-oracle.sh" "$build" || [ $? -eq 77 ]
