# Source this file (bash or zsh) to use the built tree from any directory:
#   source env.sh            # build directory: $K100_BUILD_DIR or <repo>/build
#   python3 -c 'import k100lc_kernels'
# Sets K100LC_KERNELS_ROOT, K100_BUILD_DIR (absolute), PYTHONPATH (<repo>/python)
# and LD_LIBRARY_PATH (the build directory with libfm_engine.so, and the
# driver's HSA runtime in /opt/hyhal when present).
if [ -n "${BASH_SOURCE[0]:-}" ]; then
  _k100_env_file="${BASH_SOURCE[0]}"
elif [ -n "${ZSH_VERSION:-}" ]; then
  _k100_env_file="${(%):-%x}"
else
  _k100_env_file="$0"
fi
K100LC_KERNELS_ROOT="$(cd "$(dirname "$_k100_env_file")" && pwd)"
export K100LC_KERNELS_ROOT
_k100_build="${K100_BUILD_DIR:-build}"
case "$_k100_build" in
  /*) ;;
  *) _k100_build="$K100LC_KERNELS_ROOT/$_k100_build" ;;
esac
export K100_BUILD_DIR="$_k100_build"

_k100_prepend() {  # _k100_prepend VAR DIR: DIR first in VAR, once
  eval "_k100_cur=\${$1:-}"
  case ":$_k100_cur:" in
    *":$2:"*) ;;
    *) if [ -n "$_k100_cur" ]; then eval "export $1=\"\$2:\$_k100_cur\""; else eval "export $1=\"\$2\""; fi ;;
  esac
}
for _k100_dir in /opt/hyhal/lib64 /opt/hyhal/lib; do
  [ -d "$_k100_dir" ] && _k100_prepend LD_LIBRARY_PATH "$_k100_dir"
done
_k100_prepend LD_LIBRARY_PATH "$K100_BUILD_DIR"
_k100_prepend PYTHONPATH "$K100LC_KERNELS_ROOT/python"
if [ ! -f "$K100_BUILD_DIR/libfm_engine.so" ]; then
  echo "env.sh: note: $K100_BUILD_DIR/libfm_engine.so is not built yet" >&2
fi
unset _k100_env_file _k100_build _k100_dir _k100_cur
unset -f _k100_prepend
