#!/usr/bin/env bash
# k100lc front door: `./k100lc.sh demo [MODEL.gguf]` or `./k100lc.sh test`.
# Both first install what is missing (Debian 12), configure and build.
set -euo pipefail
root=$(cd "$(dirname "$0")" && pwd)
build=${K100_BUILD_DIR:-$root/build}
export K100_BUILD_DIR=$build

case "${1:-}" in
  demo)
    "$root/scripts/setup.sh"
    shift
    exec "$root/scripts/demo.sh" "$@"
    ;;
  test)
    "$root/scripts/setup.sh"
    cd "$build"
    # The summary CTest prints at the end is the result; the exit code follows it.
    exec ctest --output-on-failure -j "$(nproc)" --timeout 900
    ;;
  *)
    echo "usage: $0 demo [MODEL.gguf] | test" >&2
    exit 2
    ;;
esac
