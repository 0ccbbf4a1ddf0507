#!/usr/bin/env bash
# k100lc front door: `./k100lc.sh demo [MODEL.gguf]`, `./k100lc.sh test` or
# `./k100lc.sh serve MODEL.gguf` (the OpenAI-compatible k100-server).
# Each first installs what is missing (Debian 12), configures and builds.
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
  serve)
    # ./k100lc.sh serve MODEL.gguf [k100-server flags: --host H --port N -c N ...]
    shift
    if [ $# -lt 1 ]; then
      echo "usage: $0 serve MODEL.gguf [--host H] [--port N] [-c N] ..." >&2
      exit 2
    fi
    model=$1
    shift
    "$root/scripts/setup.sh"
    exec "$build/bin/k100-server" -m "$model" "$@"
    ;;
  *)
    echo "usage: $0 demo [MODEL.gguf] | test | serve MODEL.gguf [k100-server flags]" >&2
    exit 2
    ;;
esac
