#!/usr/bin/env bash
# Builds examples/cpp_alloc.cpp with the README's one-line command (build
# directory substituted) and runs it on the emulator with a test package.
set -euo pipefail
src=$1 build=$2 package=$3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$src"
g++ -O2 -std=c++17 -I include/k100/runtime examples/cpp_alloc.cpp -L "$build" -lfm_engine -Wl,-rpath,"$build" -o "$out/cpp_alloc"
"$out/cpp_alloc" "$package" | tee "$out/log"
grep -q "1024 bytes up and down: ok" "$out/log"
grep -q "expected error: .*past the end" "$out/log"
