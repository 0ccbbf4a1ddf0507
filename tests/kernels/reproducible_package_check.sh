#!/usr/bin/env bash
# Building the kernel package twice gives the same bytes (sha256 of every output).
# usage: reproducible_package_check.sh K100-BUILD-KERNELS KERNELS-DIR
set -euo pipefail
tool=$1
kernels=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/a" "$work/b"
"$tool" --kernels-dir "$kernels" --out-dir "$work/a" >/dev/null
"$tool" --kernels-dir "$kernels" --out-dir "$work/b" >/dev/null
(cd "$work/a" && sha256sum -- *) > "$work/a.sum"
(cd "$work/b" && sha256sum -- *) > "$work/b.sum"
cat "$work/a.sum"
if ! diff "$work/a.sum" "$work/b.sum"; then
  echo "the two builds differ" >&2
  exit 1
fi
n=$(wc -l < "$work/a.sum")
[ "$n" -eq 6 ] || { echo "expected 6 outputs, got $n" >&2; exit 1; }
echo "identical: $n files"
