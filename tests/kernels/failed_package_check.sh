#!/usr/bin/env bash
# A package build that fails leaves no package behind: the outputs of an
# earlier, good build are removed, not left for the self-test to run.
# usage: failed_package_check.sh K100-BUILD-KERNELS KERNELS-DIR
set -euo pipefail
tool=$1
kernels=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/out"
"$tool" --kernels-dir "$kernels" --out-dir "$work/out" >/dev/null
n=$(ls "$work/out" | wc -l)
[ "$n" -eq 6 ] || { echo "the good build wrote $n files, not 6" >&2; exit 1; }
# the same sources with one hand-written kernel broken
cp -r "$kernels" "$work/kernels"
printf '\n  v_no_such_instruction v0\n' >> "$work/kernels/other/flash_dec_comb_k.s"
if "$tool" --kernels-dir "$work/kernels" --out-dir "$work/out" 2> "$work/err"; then
  echo "the broken build succeeded" >&2
  exit 1
fi
grep -q "flash_dec_comb_k" "$work/err" || { echo "the error does not name the kernel:" >&2; cat "$work/err" >&2; exit 1; }
left=$(ls "$work/out")
[ -z "$left" ] || { echo "a failed build left: $left" >&2; exit 1; }
echo "failed build: error names the kernel, no outputs left"
