#!/usr/bin/env bash
# Installs llama.cpp's libraries (ggml), the test oracle of the GGUF codecs and
# reader, from the npm package node-llama-cpp@3.21.1 into
# BUILD/oracles/llama (BUILD = $1, default ./build). Test-only: nothing in the
# product links it. Does nothing when that version is already there.
#
# Exit status: 0 installed (or already there); 77 npm or the registry is not
# available (CTest reports the fixture as skipped, and the oracle tests skip
# themselves); 1 under CI=true in that case, or when the package installed
# but the library is missing.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
version=3.21.1
dest=$build/oracles/llama
lib=$dest/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64/libggml-base.so
stamp=$dest/.installed-node-llama-cpp-$version

unavailable() {
  echo "llama oracle: $1"
  if [ "${CI:-}" = "true" ]; then
    echo "llama oracle: CI=true, so this is an error"
    exit 1
  fi
  echo "SKIPPED: the ggml oracle tests will be skipped"
  exit 77
}

if [ -f "$stamp" ] && [ -f "$lib" ]; then
  echo "llama oracle: node-llama-cpp@$version already in $dest"
  exit 0
fi
command -v npm >/dev/null 2>&1 || unavailable "npm is not installed (apt-get install npm)"

mkdir -p "$dest"
# a package.json of its own keeps npm from walking up into other projects
[ -f "$dest/package.json" ] || echo '{"name": "k100lc-llama-oracle", "private": true}' > "$dest/package.json"
echo "llama oracle: npm i -E node-llama-cpp@$version --ignore-scripts in $dest"
if ! (cd "$dest" && npm i -E "node-llama-cpp@$version" --ignore-scripts --no-audit --no-fund \
        --fetch-retries=1 --fetch-timeout=60000 2>&1 | tail -n 5); then
  unavailable "npm could not install node-llama-cpp@$version (no registry access?)"
fi
if [ ! -f "$lib" ]; then
  # npm may exit 0 without the optional platform package it could not fetch
  [ -d "$dest/node_modules/node-llama-cpp" ] || unavailable "npm did not install node-llama-cpp@$version"
  echo "llama oracle: installed, but $lib is missing (not an x86-64 Linux package?)"
  exit 1
fi
touch "$stamp"
echo "llama oracle: $lib"
