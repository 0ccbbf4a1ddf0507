// dsl::compile: front end, IR, lowering and build per kernel; every failure
// becomes a diagnostic naming the kernel or the source location.
#include "k100/dsl/compiler.h"

#include <chrono>

#include "k100/base/error.h"
#include "k100/codegen/kernel.h"
#include "k100/codeobj/catalog.h"
#include "k100/codeobj/writer.h"
#include "k100/dsl/ir.h"
#include "k100/dsl/source.h"
#include "k100/dsl/typing.h"
#include "lower.h"
#include "lowering_error.h"

namespace k100::dsl {

namespace {

bool compile_kernel(const TypedKernel& tk, const SourceText& src, const CompileOptions& options, DiagnosticSink& sink,
                    CompiledKernel& out) {
  auto t0 = std::chrono::steady_clock::now();
  ir::Function f;
  if (!ir::build(tk, src, sink, f)) return false;
  out.name = tk.name;
  codegen::KernelOptions ko;
  ko.waves_per_simd = 4;
  ko.lds_bytes = tk.lds_bytes;
  ko.max_workgroup = 256;
  ko.automatic_wait_states = options.wait_states;
  for (const auto& v : f.values) {
    if (v.op != ir::Opcode::Call) continue;
    const int d = int(v.bits) + 1;
    if (v.builtin == BuiltinId::Bid || v.builtin == BuiltinId::Gid) ko.workgroup_dims = std::max(ko.workgroup_dims, d);
    if (v.builtin == BuiltinId::Lid || v.builtin == BuiltinId::Gid) ko.workitem_dims = std::max(ko.workitem_dims, d);
  }
  try {
    out.signature = signature_of(tk, f);
    codegen::Kernel k(out.signature, options.target, ko);
    Lowerer(k, f).run();
    out.object = k.build();
    out.assembly = k.assembly();
    out.vgpr_spills = k.report().vgpr_spills;
    out.sgpr_spills = k.report().sgpr_spills;
    out.code_object = codeobj::write_code_object(out.object);
    out.catalog_json = codeobj::catalog_json(codeobj::make_catalog(out.object));
  } catch (const LoweringError& e) {
    report_error(sink, src, e.loc, e.what + " is not yet supported by the code generator");
    return false;
  } catch (const Error& e) {
    report_error(sink, src, tk.loc, "kernel '" + tk.name + "' could not be generated: " + e.what());
    return false;
  }
  out.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return true;
}

}  // namespace

CompileResult compile(std::string_view source, const std::string& file, const CompileOptions& options) {
  CompileResult result;
  SourceText src(file, source);
  DiagnosticSink sink;
  std::vector<TypedKernel> kernels = check_source(src, sink);
  if (!sink.has_errors()) {
    bool found = options.only.empty();
    for (const auto& tk : kernels) {
      if (!options.only.empty() && tk.name != options.only) continue;
      found = true;
      CompiledKernel ck;
      if (compile_kernel(tk, src, options, sink, ck)) result.kernels.push_back(std::move(ck));
    }
    if (!found) {
      std::string names;
      for (const auto& tk : kernels) names += (names.empty() ? "" : ", ") + tk.name;
      sink.error(SourceLoc{file, 0, 0}, "no kernel named '" + options.only + "' (the file has: " +
                                            (names.empty() ? "none" : names) + ")");
    }
  }
  result.diagnostics = sink.format_all();
  result.errors = sink.error_count();
  if (result.errors) result.kernels.clear();
  return result;
}

}  // namespace k100::dsl
