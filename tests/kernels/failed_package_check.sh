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
# the same build, failing: the first package file cannot be written (a
# directory stands where its temporary file goes)
mkdir "$work/out/k100lc_kernels.hsaco.tmp"
if "$tool" --kernels-dir "$kernels" --out-dir "$work/out" 2> "$work/err"; then
  echo "the broken build succeeded" >&2
  exit 1
fi
grep -q "cannot write .*k100lc_kernels.hsaco.tmp" "$work/err" || { echo "the error does not name the file:" >&2; cat "$work/err" >&2; exit 1; }
rmdir "$work/out/k100lc_kernels.hsaco.tmp"
left=$(ls "$work/out")
[ -z "$left" ] || { echo "a failed build left: $left" >&2; exit 1; }
echo "failed build: error names the file, no outputs left"
