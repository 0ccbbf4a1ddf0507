#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (address + undefined sanitizers) in
# ${K100_FUZZ_BUILD_DIR:-build-fuzz} and runs each for ${K100_FUZZ_SECONDS:-60}
# seconds. Exit code non-zero on any finding.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${K100_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=${K100_FUZZ_SECONDS:-60}
cc=$(command -v clang-14 || command -v clang || true)
cxx=$(command -v clang++-14 || command -v clang++ || true)
if [ -z "$cc" ] || [ -z "$cxx" ]; then
  # exit 77: CTest reports the test as skipped; under CI=true a missing oracle fails
  if [ "${CI:-}" = true ]; then
    echo "FAIL: clang is not installed (apt-get install clang-14 libclang-rt-14-dev); CI=true requires it"
    exit 1
  fi
  echo "SKIP: clang is not installed (apt-get install clang-14 libclang-rt-14-dev)"
  exit 77
fi
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
    -DK100_BUILD_TESTS=OFF -DK100_BUILD_FUZZERS=ON >/dev/null
fi
cmake --build "$build" --target asm_parser_fuzz isa_decoder_fuzz codeobj_reader_fuzz gguf_reader_fuzz gguf_fuzz_seeds \
  safetensors_reader_fuzz hf_json_fuzz hf_fuzz_seeds \
  -j "$(nproc)"

# seed corpora: the repository's assembly (sources and macro includes), random words, and a few code objects
corpus=$build/corpus
mkdir -p "$corpus/asm" "$corpus/isa" "$corpus/codeobj" "$corpus/gguf" "$corpus/safetensors" "$corpus/json"
{ find "$root/examples" "$root/kernels" "$root/tests" \( -name '*.s' -o -name '*.inc' \) -size -64k 2>/dev/null || true; } | head -200 | \
  while read -r f; do cp "$f" "$corpus/asm/"; done
printf 's_mov_b32 s0, s1\nv_add_f32 v0, v1, v2 clamp\nlabel:\n s_cbranch_scc0 label\n.set x, 4\nglobal_load_dword v0, v[0:1], off offset:-8\n' \
  > "$corpus/asm/seed.s"
head -c 4096 /dev/urandom > "$corpus/isa/random.bin"
{ find "$root/tests" -name '*.hsaco' -size -256k 2>/dev/null || true; } | head -50 | \
  while read -r f; do cp "$f" "$corpus/codeobj/"; done
# small GGUF files of every codec type, written by the reader's own writer
"$build/bin/gguf_fuzz_seeds" "$build/gguf-samples" && cp "$build"/gguf-samples/seed_*.gguf "$corpus/gguf/"
# safetensors files and the JSON documents of Hugging Face directories and RT4 manifests
"$build/bin/hf_fuzz_seeds" "$corpus"
# inputs that once crashed a target are run first
for f in "$root"/tests/fuzz/regressions/*; do
  [ -f "$f" ] || continue
  case "$(basename "$f")" in
    codeobj_reader_*) cp "$f" "$corpus/codeobj/" ;;
    asm_parser_*) cp "$f" "$corpus/asm/" ;;
    isa_decoder_*) cp "$f" "$corpus/isa/" ;;
    gguf_reader_*) cp "$f" "$corpus/gguf/" ;;
    safetensors_reader_*) cp "$f" "$corpus/safetensors/" ;;
    hf_json_*) cp "$f" "$corpus/json/" ;;
  esac
done
if command -v llvm-mc-14 >/dev/null && command -v ld.lld-14 >/dev/null; then
  printf '.amdgcn_target "amdgcn-amd-amdhsa--gfx906"\n.text\n.globl k\n.p2align 8\nk:\n s_endpgm\n.rodata\n.p2align 6\n.amdhsa_kernel k\n.amdhsa_next_free_vgpr 1\n.amdhsa_next_free_sgpr 1\n.end_amdhsa_kernel\n' \
    > "$build/seed.s"
  llvm-mc-14 -triple=amdgcn-amd-amdhsa -mcpu=gfx906 -filetype=obj -o "$build/seed.o" "$build/seed.s" && \
    ld.lld-14 -shared -o "$corpus/codeobj/seed.hsaco" "$build/seed.o" || true
fi

status=0
for target in asm_parser_fuzz:asm isa_decoder_fuzz:isa codeobj_reader_fuzz:codeobj gguf_reader_fuzz:gguf \
    safetensors_reader_fuzz:safetensors hf_json_fuzz:json; do
  bin=${target%%:*}
  dir=$corpus/${target##*:}
  echo "== $bin: ${seconds}s"
  if ! (cd "$build" && "./bin/$bin" -max_total_time="$seconds" -max_len=4096 -rss_limit_mb=2048 \
          -print_final_stats=1 "$dir" 2>&1 | tail -n 12); then
    status=1
  fi
  if ls "$build"/crash-* "$build"/leak-* "$build"/timeout-* >/dev/null 2>&1; then
    echo "FINDING: $(ls "$build"/crash-* "$build"/leak-* "$build"/timeout-* 2>/dev/null)"
    status=1
  fi
done
exit $status
