#!/usr/bin/env bash
# The main demo, on the default device (the emulator when there is no DCU):
# the quick start in Python and C++ (y = W x with gemv_f32_warp_k, checked
# against a host reference), a short self-test of the kernel library, the
# assembler and disassembler on an example kernel, and a language model: with
# no argument a small random-weight model written by the project's GGUF writer,
# or the GGUF file given (`./k100lc.sh demo MODEL.gguf`), generating from a
# short prompt.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${K100_BUILD_DIR:-$root/build}
bin=$build/bin
export K100_BUILD_DIR=$build
export PYTHONPATH=$root/python${PYTHONPATH:+:$PYTHONPATH}
python=/usr/bin/python3  # Debian's, with python3-numpy
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
model=${1:-}

echo "== quick start (Python): python3 examples/python_gemv.py"
"$python" "$root/examples/python_gemv.py"
echo
echo "== quick start (C++): build/bin/cpp_gemv"
"$bin/cpp_gemv"
echo
echo "== self-test: python3 -m k100lc_kernels selftest --group gemv,ops,other"
"$python" -m k100lc_kernels selftest --group gemv,ops,other
echo
echo "== k100-as --show-encoding examples/vadd.s"
"$bin/k100-as" --show-encoding "$root/examples/vadd.s"
echo
echo "== k100-as -o vadd.hsaco, then k100-objdump -d and --kernels"
"$bin/k100-as" -o "$out/vadd.hsaco" "$root/examples/vadd.s"
"$bin/k100-objdump" -d "$out/vadd.hsaco"
"$bin/k100-objdump" --kernels "$out/vadd.hsaco"
echo
if [ -z "$model" ]; then
  model=$out/random_llama.gguf
  echo "== k100-generate --write-random-model (2 layers, dim 256, vocab 512, random weights: the text is noise)"
  "$bin/k100-generate" --write-random-model "$model" --arch llama --type f32
fi
echo "== k100-generate $(basename "$model") --prompt 'Hello world' -n 24 --temp 0"
"$bin/k100-generate" "$model" --prompt "Hello world" -n 24 --temp 0
