#!/usr/bin/env bash
# The main demo, on the emulator (no DCU needed): assemble an example kernel
# into a code object, then disassemble it and show its descriptor.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${K100_BUILD_DIR:-$root/build}
bin=$build/bin
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== k100-as --show-encoding examples/vadd.s"
"$bin/k100-as" --show-encoding "$root/examples/vadd.s"
echo
echo "== k100-as -o vadd.hsaco (gfx926 code object v5)"
"$bin/k100-as" -o "$out/vadd.hsaco" "$root/examples/vadd.s"
ls -l "$out/vadd.hsaco" | awk '{print $5 " bytes"}'
echo
echo "== k100-objdump -d vadd.hsaco"
"$bin/k100-objdump" -d "$out/vadd.hsaco"
echo
echo "== k100-objdump --kernels vadd.hsaco"
"$bin/k100-objdump" --kernels "$out/vadd.hsaco"
