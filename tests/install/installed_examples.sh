#!/usr/bin/env bash
# cmake --install of this build into a temporary prefix, then, with nothing
# of the source or build tree on any path: the C and C++ examples built out
# of tree against the installed CMake package (find_package(k100lc)), the C
# example built with the README's pkg-config line as written, the installed
# tools (every one the build has), k100-generate, k100-server and the Python
# package's generate on a model written outside the source tree, each run on
# the emulator and checked to use the installed kernel package.
# Usage: installed_examples.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1
build=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/k100_install.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
step() { echo "== $*"; }

step "cmake --install --prefix $prefix"
cmake --install "$build" --prefix "$prefix" --strip > "$work/install.log"
for f in bin/k100-as bin/k100-objdump bin/k100-run bin/k100-selftest bin/k100-gguf bin/k100-generate \
         bin/k100-server lib/libfm_engine.so lib/libk100_selftest.so lib/libk100_quant.so lib/libk100_model.so \
         lib/libk100_runtime.a lib/libk100_model.a lib/libk100_quant.a \
         include/k100/runtime/runtime.h include/k100/runtime/fm_engine.h include/k100/model/chat_template.h \
         lib/cmake/k100lc/k100lcConfig.cmake lib/pkgconfig/fm_engine.pc share/k100lc/k100lc_kernels.hsaco \
         share/k100lc/catalog.json share/k100lc/k100lc_kernels_gfx906.hsaco share/k100lc/catalog_gfx906.json; do
  [ -e "$prefix/$f" ] || { echo "not installed: $f"; exit 1; }
done
# every tool and module library the build made (k100-build-kernels only builds the package)
for t in "$build"/bin/k100-*; do
  name=$(basename "$t")
  [ "$name" = k100-build-kernels ] || [ -e "$prefix/bin/$name" ] || { echo "tool not installed: $name"; exit 1; }
done
for a in $(find "$build/src" -name 'libk100_*.a'); do
  [ -e "$prefix/lib/$(basename "$a")" ] || { echo "library not installed: $(basename "$a")"; exit 1; }
done
pydir=$(cd "$prefix" && ls -d lib/python3*/dist-packages)
[ -f "$prefix/$pydir/k100lc_kernels/__init__.py" ] || { echo "the Python package is not installed"; exit 1; }

# nothing from the trees: no build directory, package or engine overrides
unset K100_BUILD_DIR RT_HSACO K100LC_ENGINE K100LC_CATALOG K100LC_SELFTEST PYTHONPATH LD_LIBRARY_PATH
export K100_BACKEND=emu RT_HSART_DEBUG=1
cd "$work"
uses_installed_package() {  # the runtime's debug line names the package it loaded
  grep -q "k100: loaded $prefix/share/k100lc/k100lc_kernels.hsaco" "$1" || { cat "$1"; echo "did not load the installed package"; exit 1; }
}

step "examples with find_package(k100lc)"
cmake -S "$src/examples" -B ex -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" > ex.log
cmake --build ex >> ex.log || { cat ex.log; exit 1; }
./ex/cpp_gemv 2> cpp.err; cat cpp.err | grep -v "^k100:" || true; uses_installed_package cpp.err
./ex/c_gemv 2> c.err; uses_installed_package c.err

step "the C example with the README's pkg-config line, as written"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
readme_line=$(grep -E '^cc -std=c99 examples/c_gemv.c ' "$src/README.md")
[ -n "$readme_line" ] || { echo "README.md has no 'cc -std=c99 examples/c_gemv.c' line"; exit 1; }
mkdir readme && ln -s "$src/examples" readme/examples
(cd readme && bash -euc "$readme_line") || { echo "the README's line failed: $readme_line"; exit 1; }
./readme/c_gemv 2> pc.err; uses_installed_package pc.err

step "the installed tools"
"$prefix/bin/k100-as" --version
echo '[0x00,0x00,0x81,0xbf]' | "$prefix/bin/k100-as" --disassemble > disasm.out
grep -q s_endpgm disasm.out
"$prefix/bin/k100-gguf" --help | head -1 | grep -q "^k100-gguf: "
"$prefix/bin/k100-selftest" --only fill_k 2> selftest.err | tail -1 | grep -q "^1 passed, 0 failed" || { cat selftest.err; exit 1; }
uses_installed_package selftest.err

step "the installed Python package"
PYTHONPATH=$prefix/$pydir /usr/bin/python3 - <<PY
import numpy as np
import k100lc_kernels
from k100lc_kernels import Runtime, info
assert k100lc_kernels.__file__.startswith("$prefix/"), k100lc_kernels.__file__
rt = Runtime()
assert str(rt.hsaco) == "$prefix/share/k100lc/k100lc_kernels.hsaco", rt.hsaco
n, k = 64, 96
w = np.random.default_rng(0).standard_normal((n, k), dtype=np.float32)
x = np.random.default_rng(1).standard_normal(k, dtype=np.float32)
pw, px, py = rt.alloc(w.nbytes), rt.alloc(x.nbytes), rt.alloc(n * 4)
rt.upload(pw, w); rt.upload(px, x)
rt.launch("gemv_f32_warp_k", n, 64, [pw, px, py, n, k, 64])
rt.sync()
assert np.allclose(rt.download(py, n, np.float32), w @ x, rtol=1e-4, atol=1e-3)
assert info("gemv_f32_warp_k")["lookup"] == "gemv_f32_warp_k"
print("python: gemv", n, "x", k, "on", rt.backend, "from", rt.hsaco)
from k100lc_kernels import gguf
assert gguf.library_path() == "$prefix/lib/libk100_quant.so", gguf.library_path()
assert gguf.type_info("q4_K")["block_elems"] == 256
PY
PYTHONPATH=$prefix/$pydir /usr/bin/python3 -m k100lc_kernels info gemv_f32_warp_k > info.json
grep -q '"semantics"' info.json  # the registry's docs, from the installed libk100_selftest.so
PYTHONPATH=$prefix/$pydir /usr/bin/python3 -m k100lc_kernels list gemv_f32 | grep -q "^gemv_f32_warp_k "
PYTHONPATH=$prefix/$pydir /usr/bin/python3 -m k100lc_kernels selftest --only fill_k 2> pyselftest.err \
  | tail -1 | grep -q "^1 passed, 0 failed" || { cat pyselftest.err; exit 1; }
PYTHONPATH=$prefix/$pydir /usr/bin/python3 -m k100lc_kernels generate --help | grep -q -- "--chat-template"
step "a model outside the source tree: the installed k100-generate, k100-server and Python generate"
"$prefix/bin/k100-generate" --write-random-model "$work/tiny.gguf" --arch qwen3 > /dev/null
"$prefix/bin/k100-generate" -m "$work/tiny.gguf" -p "Hello world" -n 5 --temp 0 --ignore-eos --ids \
  > gen.out 2> gen.err || { cat gen.err; exit 1; }
uses_installed_package gen.err
grep "^ids:" gen.err > gen.ids; [ "$(wc -w < gen.ids)" = 6 ] || { cat gen.err; exit 1; }
grep -q "^Hello world" gen.out || { cat gen.out; exit 1; }
PYTHONPATH=$prefix/$pydir /usr/bin/python3 -m k100lc_kernels generate -m "$work/tiny.gguf" -p "Hello world" -n 5 \
  --temp 0 --ignore-eos --ids > pygen.out 2> pygen.err || { cat pygen.err; exit 1; }
uses_installed_package pygen.err
grep "^ids:" pygen.err | cmp - gen.ids || { echo "Python generate and k100-generate differ"; cat pygen.err; exit 1; }
cmp pygen.out gen.out || { echo "Python generate printed other text"; exit 1; }
printf 'Hi\n' | PYTHONPATH=$prefix/$pydir /usr/bin/python3 -m k100lc_kernels generate -m "$work/tiny.gguf" -cnv \
  -n 2 --temp 0 > pychat.out 2> pychat.err || { cat pychat.err; exit 1; }
grep -q "chat template chatml" pychat.err
"$prefix/bin/k100-server" -m "$work/tiny.gguf" --port 0 -c 64 2> server.err &
server=$!
for _ in $(seq 1 300); do grep -q "listening on" server.err && break; sleep 0.2; done
url=$(grep -o "http://[0-9.:]*" server.err | head -1)
[ -n "$url" ] || { kill "$server"; cat server.err; exit 1; }
curl -s "$url/v1/completions" -d '{"prompt": "Hello world", "max_tokens": 5, "temperature": 0, "ignore_eos": true}' \
  > server.json
kill -TERM "$server"; wait "$server" || { cat server.err; exit 1; }
grep -q '"completion_tokens":5' server.json || { cat server.json server.err; exit 1; }
uses_installed_package server.err
echo "installed package: all checks passed"
