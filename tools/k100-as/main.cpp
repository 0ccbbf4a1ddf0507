// k100-as: assembler and disassembler with llvm-mc compatible flags.
//
//   k100-as [--mcpu=gfx926|gfx906] [--show-encoding] [-I DIR]... [-o OUT] [FILE]
//   k100-as --disassemble [--show-encoding] [FILE]      (llvm-mc's byte-list input)
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "k100/asm/assembler.h"
#include "k100/asm/disassembler.h"
#include "k100/asm/object_builder.h"
#include "k100/base/error.h"
#include "k100/codeobj/target.h"
#include "k100/codeobj/writer.h"
#include "k100/isa/codec.h"

namespace {

void usage() {
  std::fprintf(stderr,
               "usage: k100-as [options] [FILE|-]\n"
               "  --mcpu=gfx926|gfx906      target (default gfx926)\n"
               "  --show-encoding           print each instruction with its encoding\n"
               "  --disassemble             read byte lists ([0x..,...] groups or a stream) and print assembly\n"
               "  -o FILE                   write a code object (.hsaco) to FILE; with --raw, the .text bytes\n"
               "  --raw                     write raw code instead of a code object\n"
               "  -I DIR                    where .include looks after the including file's directory (repeatable)\n"
               "  --max-errors=N            stop after N errors (default 100, 0 = no limit)\n"
               "  --amdhsa-code-object-version=4|5\n");
}

bool starts(const char* a, const char* p) { return std::strncmp(a, p, std::strlen(p)) == 0; }

// One JSON object per line per table row: what the test generators enumerate.
void dump_table() {
  using namespace k100::isa;
  static const char* type_names[] = {"-", "b32", "f16", "i16", "f64", "b64", "v2f16", "v2i16", "label",
                                     "waitcnt", "sendmsg", "hwreg", "gpridx", "uimm16", "simm16", "imm32",
                                     "kimm", "smem_offset", "uimm7"};
  auto ops = [](const std::vector<OperandSpec>& list) {
    std::string o = "[";
    for (size_t i = 0; i < list.size(); ++i) {
      const auto& s = list[i];
      std::string acc, mods;
      if (s.accept & kAcceptVgpr) acc += 'v';
      if (s.accept & kAcceptSgpr) acc += 's';
      if (s.accept & kAcceptInline) acc += 'i';
      if (s.accept & kAcceptLiteral) acc += 'l';
      if (s.accept & kAcceptOff) acc += 'o';
      if (s.mods & kModNeg) mods += 'n';
      if (s.mods & kModAbs) mods += 'a';
      if (s.mods & kModSext) mods += 'x';
      o += std::string(i ? "," : "") + "{\"field\":\"" + field_name(s.field) + "\",\"width\":" +
           std::to_string(s.width) + ",\"type\":\"" + type_names[size_t(s.type)] + "\",\"accept\":\"" + acc +
           "\",\"mods\":\"" + mods + "\"}";
    }
    return o + "]";
  };
  static const char* flag_names[] = {"SDWA", "DPP", "CLAMP", "OMOD", "OPSEL", "OPSEL_HI", "NEG_LO", "NEG_HI",
                                     "SDWA_CLAMP", "SDWA_OMOD", "SDWA_SGPR_DST", "E32_SUFFIX", "E64_SUFFIX",
                                     "GLC", "SLC", "LDS", "TFE", "GDS", "DS2", "SWIZZLE", "ATOMIC_RTN",
                                     "OPT_IMM", "NO_IMM", "DECODE_ONLY", "SDWA_SEXT0", "SDWA_SEXT1", "SDWA_NEG0",
                                     "SDWA_NEG1", "DPP_NEG0", "DPP_NEG1", "DPP_SEXT0", "DPP_SEXT1"};
  for (const auto& d : instructions()) {
    std::string flags;
    for (int b = 0; b < 32; ++b)
      if (d.flags & (1u << b)) flags += std::string(flags.empty() ? "" : ",") + "\"" + flag_names[b] + "\"";
    std::printf("{\"id\":%u,\"name\":\"%s\",\"family\":\"%s\",\"opcode\":%u,\"e64_opcode\":%d,"
                "\"mnemonic\":\"%s\",\"e64_mnemonic\":\"%s\",\"flags\":[%s],\"operands\":%s,\"e64_operands\":%s}\n",
                d.id, d.name.c_str(), family_name(d.family), d.opcode, d.e64_opcode, d.mnemonic.c_str(),
                d.e64_mnemonic.c_str(), flags.c_str(), ops(d.operands).c_str(), ops(d.e64_operands).c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace k100;
  isa::Target target = isa::Target::gfx926;
  bool show = false, disasm = false, raw = false, target_explicit = false;
  std::string input = "-", output;
  std::vector<std::string> include_dirs;
  int cov = 5;
  size_t max_errors = 100;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* v = nullptr;
    if (starts(a, "--mcpu=")) v = a + 7;
    else if (starts(a, "-mcpu=")) v = a + 6;
    if (v) {
      auto t = isa::parse_target(v);
      if (!t) {
        std::fprintf(stderr, "k100-as: unknown --mcpu '%s' (expected gfx926 or gfx906)\n", v);
        return 2;
      }
      target = *t;
      target_explicit = true;
      continue;
    }
    if (!std::strcmp(a, "--dump-table")) {
      dump_table();
      return 0;
    }
    if (!std::strcmp(a, "--show-encoding") || !std::strcmp(a, "-show-encoding")) show = true;
    else if (!std::strcmp(a, "--disassemble") || !std::strcmp(a, "-disassemble")) disasm = true;
    else if (!std::strcmp(a, "--raw")) raw = true;
    else if (!std::strcmp(a, "-o") && i + 1 < argc) output = argv[++i];
    else if (!std::strcmp(a, "-I") && i + 1 < argc) include_dirs.push_back(argv[++i]);
    else if (starts(a, "-I") && a[2]) include_dirs.push_back(a + 2);
    else if (starts(a, "--include-dir=")) include_dirs.push_back(std::strchr(a, '=') + 1);
    else if (starts(a, "--max-errors=")) {
      long n = std::atol(a + 13);
      max_errors = n <= 0 ? size_t(-1) : size_t(n);
    }
    else if (starts(a, "--amdhsa-code-object-version=") || starts(a, "-amdhsa-code-object-version=")) {
      cov = std::atoi(std::strchr(a, '=') + 1);
      if (cov != 4 && cov != 5) {
        std::fprintf(stderr, "k100-as: code object version must be 4 or 5\n");
        return 2;
      }
    } else if (starts(a, "--triple") || starts(a, "-triple") || starts(a, "--arch") || starts(a, "-arch")) {
      if (!std::strchr(a, '=') && i + 1 < argc) ++i;  // only amdgcn exists here
    } else if (!std::strcmp(a, "-h") || !std::strcmp(a, "--help")) {
      usage();
      return 0;
    } else if (a[0] == '-' && a[1] != 0) {
      std::fprintf(stderr, "k100-as: unknown option '%s'\n", a);
      usage();
      return 2;
    } else {
      input = a;
    }
  }
  std::string text;
  std::string name = input == "-" ? "<stdin>" : input;
  if (input == "-") {
    std::stringstream ss;
    ss << std::cin.rdbuf();
    text = ss.str();
  } else {
    std::ifstream f(input, std::ios::binary);
    if (!f) {
      std::fprintf(stderr, "k100-as: cannot open '%s'\n", input.c_str());
      return 1;
    }
    std::stringstream ss;
    ss << f.rdbuf();
    text = ss.str();
  }
  DiagnosticSink diags(max_errors);
  std::string out;
  out += "\t.text\n";
  if (disasm) {
    auto groups = as::parse_byte_lists(text, name, diags);
    for (size_t g = 0; g < groups.groups.size(); ++g) {
      const auto& bytes = groups.groups[g];
      for (const auto& l : as::disassemble(bytes, target)) {
        if (!l.ok) {
          SourceLoc loc = groups.locs[g];
          diags.warning(loc, "invalid instruction encoding");
        }
        out += show ? as::show_encoding_line(l.text, l.bytes) + "\n" : "\t" + l.text + "\n";
      }
    }
    std::fputs(out.c_str(), stdout);
    std::fputs(diags.format_all().c_str(), stderr);
    return diags.has_errors() ? 1 : 0;
  }
  as::Options opts;
  opts.target = target;
  opts.target_explicit = target_explicit;
  opts.code_object_version = cov;
  opts.error_limit = max_errors;
  opts.include_dirs = include_dirs;
  opts.listing = output.empty();  // the listing is only printed when no output file is written
  as::Program prog = as::assemble(text, name, opts, diags);
  bool prog_has_errors = diags.has_errors();
  size_t prog_errors = diags.error_count();
  std::string target_id = codeobj::default_target(isa::target_name(target)).id();
  out += "\t.amdgcn_target \"" + (prog.amdgcn_target.empty() ? target_id : prog.amdgcn_target) + "\"\n";
  for (const auto& l : prog.listing) {
    if (l.kind == as::ListingLine::Kind::Label) {
      out += l.text + ":\n";
      continue;
    }
    if (show) {
      out += as::show_encoding_line(l.text, l.bytes, l.fixup_byte) + "\n";
      if (!l.fixup_note.empty()) out += std::string(40, ' ') + ";   " + l.fixup_note + "\n";
    } else {
      out += "\t" + l.text + "\n";
    }
  }
  std::fputs(diags.format_all().c_str(), stderr);
  diags.clear();
  if (prog_has_errors) {
    // like llvm-mc, the listing of the good lines is still printed
    if (output.empty()) std::fputs(out.c_str(), stdout);
    std::fprintf(stderr, "k100-as: %zu error%s\n", prog_errors, prog_errors == 1 ? "" : "s");
    return 1;
  }
  if (!output.empty()) {
    std::vector<uint8_t> bytes;
    if (raw) {
      if (const as::Section* s = prog.section(".text")) bytes = s->bytes;
    } else {
      auto co = as::build_code_object(prog, opts, name, diags);
      std::fputs(diags.format_all().c_str(), stderr);
      if (!co) return 1;
      try {
        bytes = codeobj::write_code_object(*co);
      } catch (const Error& e) {
        std::fprintf(stderr, "k100-as: %s\n", e.what());
        return 1;
      }
    }
    std::ofstream f(output, std::ios::binary);
    if (!f || !f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()))) {
      std::fprintf(stderr, "k100-as: cannot write '%s'\n", output.c_str());
      return 1;
    }
    return 0;
  }
  std::fputs(out.c_str(), stdout);
  return 0;
}
