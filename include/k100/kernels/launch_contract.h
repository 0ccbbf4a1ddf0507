// k100lc kernels: a kernel's launch contract.
//
// How a kernel is launched is declared once, with the kernel (KernelDef::launch
// beside its codegen::Signature), and travels with it: the package build writes
// it into the code object's metadata (`.k100_launch`), the catalog carries it
// (`"launch"`, one string per line) and `k100-catalog` shows it. The model, the
// Python package and the self-test evaluate it instead of restating a kernel's
// geometry, workspace or derived arguments.
//
// The contract is text, one declaration per line (or separated by ';'), so C++
// and Python read the same thing (python/k100lc_kernels/launch_contract.py is
// the second reader):
//
//   sizes n k m groups                     the case's named sizes, given by the caller
//   choose split = 1                       a choice with its default; a caller may set it
//   let tiles = ceil_div(n, 64)            a value the later lines use
//   workgroup = max(wg, 64 * split)        threads per workgroup (x)
//   grid = ceil_div(tiles, per), groups    workgroups along x [, y [, z]]
//   arg split = split + 256 * parts        an argument the host derives
//   workspace ws = groups * 1088           an argument that is a workspace of so many bytes
//                                          (zero before the first launch; 0 bytes: pointer 0)
//
// Expressions are on 64-bit integers: numbers, names declared above, + - * /
// % (division truncates; by zero is an error), comparisons < <= > >= == !=
// (1 or 0), parentheses, and the functions ceil_div(a, b), min(a, ...),
// max(a, ...), select(c, a, b) (a where c != 0, else b), pow2_floor(a),
// log2_ceil(a) (the least s with 2^s >= a; a kernel's shift for a power-of-two
// count), shl(a, b) (a * 2^b, b in 0..62), and
// tile_share_parts(tiles) / tile_share_tiles(tiles): the P and R of the fast
// GEMVs' shared tiles on the K100_LC's compute units (k100/quant/gemv_tile_shares.h).
// Every error names the kernel, the declaration and the expression.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace k100::kernels {

// One parsed expression (shared, immutable).
struct ContractExpr;

// A contract evaluated for one launch.
struct Launch {
  uint32_t workgroup = 0;
  std::array<uint32_t, 3> grid = {1, 1, 1};
  std::map<std::string, int64_t> values;            // sizes, choices and lets, by name
  std::map<std::string, uint64_t> args;             // derived arguments
  std::map<std::string, uint64_t> workspaces;       // workspace arguments: bytes
  uint64_t workspace(const std::string& name) const;  // 0 when the contract has none of that name
};

class LaunchContract {
 public:
  enum class Kind { Sizes, Choose, Let, Workgroup, Grid, Arg, Workspace };
  struct Line {
    Kind kind;
    std::string name;                                 // choose / let / arg / workspace
    std::vector<std::string> names;                   // sizes
    std::vector<std::shared_ptr<const ContractExpr>> exprs;
    std::vector<std::string> expr_texts;
  };

  LaunchContract() = default;
  // Parses `text` for kernel `kernel` whose explicit arguments are `args` (in
  // order). Throws k100::Error naming the kernel, the line and the expression.
  static LaunchContract parse(std::string_view text, std::string kernel, std::vector<std::string> args);
  // The catalog's form: the lines as given, `args ...` first.
  static LaunchContract from_lines(const std::vector<std::string>& lines, std::string kernel);

  const std::string& kernel() const { return kernel_; }
  const std::vector<std::string>& args() const { return args_; }
  const std::vector<std::string>& sizes() const { return sizes_; }
  const std::vector<Line>& lines() const { return lines_; }
  bool empty() const { return lines_.empty(); }
  // Canonical text, one declaration per line, `args ...` first (what the catalog carries).
  std::vector<std::string> text_lines() const;
  // The default of a choice evaluated for `sizes` (error when there is no such choice).
  int64_t default_choice(const std::string& name, const std::map<std::string, int64_t>& sizes) const;
  bool has_choice(const std::string& name) const;
  bool has_workspace(const std::string& name) const;

  // Evaluates every line for these sizes (each declared size given, no other)
  // and choices (each a `choose` name).
  Launch evaluate(const std::map<std::string, int64_t>& sizes,
                  const std::map<std::string, int64_t>& choices = {}) const;
  // The argv in argument order: derived arguments from `launch`, the others
  // from `given` (pointers, workspaces, caller values). An argument neither
  // derived nor given, or both, is an error naming the kernel and the argument.
  std::vector<uint64_t> argv(const Launch& launch, const std::map<std::string, uint64_t>& given) const;

 private:
  std::string where(const Line& l, size_t expr) const;
  std::string kernel_;
  std::vector<std::string> args_, sizes_;
  std::vector<Line> lines_;
};

}  // namespace k100::kernels
