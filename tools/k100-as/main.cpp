// k100-as: assembler and disassembler with llvm-mc compatible flags.
//
//   k100-as [--mcpu=gfx926|gfx906] [--show-encoding] [--show-inst] [-I DIR]... [-filetype=obj|asm|null]
//           [-o OUT] [FILE]
//   k100-as --disassemble [--show-encoding] [FILE]      (llvm-mc's byte-list input)
//   k100-as -mcpu=help                                  (the processors and features)
// The -filetype=asm listing keeps every directive, so it assembles again to
// the same code object.
// The options are listed in one table (main); `k100-as --help` prints it.
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
#include "k100/codeobj/input_file.h"
#include "k100/codeobj/target.h"
#include "k100/codeobj/writer.h"
#include "k100/isa/codec.h"
#include "option_table.h"

namespace {


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



// Writes to FILE, or to standard output for "-" (and for "" where noted).
bool write_bytes(const std::string& file, const std::string& data) {
  if (file == "-") return std::fwrite(data.data(), 1, data.size(), stdout) == data.size();
  std::ofstream f(file, std::ios::binary);
  if (!f || !f.write(data.data(), std::streamsize(data.size()))) {
    std::fprintf(stderr, "k100-as: cannot write '%s'\n", file.c_str());
    return false;
  }
  return true;
}
bool write_text(const std::string& file, const std::string& text) { return write_bytes(file.empty() ? "-" : file, text); }

// The source as text; a binary file (an ELF object, NUL bytes) is named as such.
bool read_source(const std::string& input, std::string& text) {
  if (input == "-") {
    std::stringstream ss;
    ss << std::cin.rdbuf();
    text = ss.str();
  } else {
    try {
      std::vector<uint8_t> bytes = k100::codeobj::read_input_file(input, "source");
      text.assign(bytes.begin(), bytes.end());
    } catch (const k100::Error& e) {
      std::fprintf(stderr, "k100-as: error: %s\n", e.what());
      return false;
    }
  }
  std::string name = input == "-" ? "<stdin>" : input;
  if (text.size() >= 4 && text.compare(0, 4, "\x7f" "ELF") == 0) {
    std::fprintf(stderr, "k100-as: %s: is a binary file (an ELF object), not assembly source; "
                         "k100-objdump -d disassembles it\n", name.c_str());
    return false;
  }
  if (text.find('\0') != std::string::npos) {
    std::fprintf(stderr, "k100-as: %s: is a binary file (it contains NUL bytes), not assembly source\n", name.c_str());
    return false;
  }
  return true;
}

// -mattr=+xnack,-sramecc -> "gfx906:sramecc-:xnack+" (validated by the target-id parser)
std::string target_with_features(const std::string& processor, const std::string& mattr) {
  std::string id = processor;
  std::string sramecc, xnack;
  std::stringstream ss(mattr);
  std::string f;
  while (std::getline(ss, f, ',')) {
    if (f.empty()) continue;
    if (f[0] != '+' && f[0] != '-') throw k100::tools::OptionTable::UsageProblem{"-mattr: '" + f + "' must start with + or -"};
    std::string n = f.substr(1);
    if (n == "sramecc" || n == "sram-ecc") sramecc = f.substr(0, 1);
    else if (n == "xnack") xnack = f.substr(0, 1);
    else throw k100::tools::OptionTable::UsageProblem{"-mattr: unknown feature '" + n + "' (xnack, sramecc)"};
  }
  if (!sramecc.empty()) id += ":sramecc" + sramecc;
  if (!xnack.empty()) id += ":xnack" + xnack;
  return id;
}

// llvm-mc -show-inst's operand dump of a listed instruction, in its shape
// (the instruction table's row and name in place of LLVM's opcode enum).
std::string show_inst(const std::vector<uint8_t>& bytes, k100::isa::Target target) {
  using namespace k100::isa;
  Decoded d = decode(bytes, target);
  std::string pad(40, ' ');
  if (!d.ok) return pad + "; <MCInst (not decodable)>\n";
  const Inst& inst = d.inst;
  const char* form = inst.encoding == Encoding::E64 ? " (e64)" : inst.encoding == Encoding::SDWA ? " (sdwa)"
                     : inst.encoding == Encoding::DPP ? " (dpp)" : "";
  char head[160];
  std::snprintf(head, sizeof head, "; <MCInst #%u %s%s %s opcode 0x%x", inst.id, inst.desc().name.c_str(), form,
                family_name(inst.family()), inst.desc().opcode);
  std::string out = pad + head;
  auto operand = [&](const Operand& o, const std::string& text) {
    out += "\n" + pad + ";  <MCOperand " + ((o.is_vgpr() || o.is_sgpr() || o.is_off()) ? "Reg:" : "Imm:") + text + ">";
  };
  if (inst.atomic_dst.is_vgpr()) {
    unsigned v = inst.atomic_dst.vgpr_index(), w = inst.atomic_dst.width;
    operand(inst.atomic_dst, w > 1 ? "v[" + std::to_string(v) + ":" + std::to_string(v + w - 1) + "]"
                                   : "v" + std::to_string(v));
  }
  for (int i = 0; i < inst.num_operands; ++i) operand(inst.ops[size_t(i)], print_operand(inst, i));
  return out + ">\n";
}

// -mcpu=help, as llvm-mc prints it: the processors, then the features.
void print_cpu_help() {
  std::string out = "Available CPUs for this target:\n\n";
  for (const auto& p : k100::codeobj::processors())
    if (p.toolkit_target) out += "  " + std::string(p.name) + " - Select the " + std::string(p.name) + " processor.\n";
  out += "\nAvailable features for this target:\n\n"
         "  sramecc - Enable SRAMECC (code object target id gfx9NN:sramecc+; -sramecc: sramecc-).\n"
         "  xnack   - Enable XNACK support (target id :xnack+; -xnack: xnack-).\n\n"
         "Use +feature to enable a feature, or -feature to disable it (-mattr=+sramecc,-xnack).\n"
         "Without either, the code object says \"any\" and runs with the feature on or off.\n";
  std::fputs(out.c_str(), stdout);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace k100;
  using tools::OptionTable;
  isa::Target target = isa::Target::gfx926;
  bool show = false, disasm = false, raw = false, target_explicit = false, table = false, show_instructions = false,
       cpu_help = false;
  std::string input = "-", output, filetype, mattr;
  std::vector<std::string> include_dirs;
  std::vector<std::pair<std::string, int64_t>> defsyms;
  int cov = 5;
  bool cov_explicit = false;
  size_t max_errors = 100;
  int inputs = 0;
  OptionTable opts_table("k100-as", "assembles AMDGPU (gfx926/gfx906) assembly into code objects, and disassembles "
                         "byte lists, with llvm-mc's flags",
                         {"k100-as [options] [FILE|-]", "k100-as --disassemble [--show-encoding] [FILE|-]"});
  opts_table
      .value({"--mcpu"}, "gfx926|gfx906", "target processor (default gfx926)",
             [&](const std::string& v) {
               if (v == "help") {
                 cpu_help = true;
                 return;
               }
               auto t = isa::parse_target(v);
               if (!t) {
                 const auto* p = codeobj::find_processor(v);
                 throw OptionTable::UsageProblem{"unknown --mcpu '" + v + "'" +
                                                 (p ? " (a processor k100lc does not write code for)" : "") +
                                                 "; expected gfx926 or gfx906 (-mcpu=help lists them)"};
               }
               target = *t;
               target_explicit = true;
             })
      .value({"--triple", "--arch"}, "TRIPLE", "amdgcn-amd-amdhsa (or amdgcn): the only target this assembler has",
             [&](const std::string& v) {
               if (v != "amdgcn" && v.rfind("amdgcn-", 0) != 0)
                 throw OptionTable::UsageProblem{"unsupported triple '" + v + "' (expected amdgcn-amd-amdhsa)"};
             })
      .value({"--mattr"}, "+F,-F", "target features of the code object's target id: xnack, sramecc",
             [&](const std::string& v) { mattr = v; })
      .value({"--filetype"}, "obj|asm|null",
             "obj: write a code object; asm: print the listing, which assembles again to the same object;\n"
             "null: check the input (errors and warnings) and write nothing (default: obj with -o, else asm)",
             [&](const std::string& v) {
               if (v != "obj" && v != "asm" && v != "null")
                 throw OptionTable::UsageProblem{"-filetype must be obj, asm or null, not '" + v + "'"};
               filetype = v;
             })
      .value({"-o"}, "FILE", "output file; '-' is standard output", [&](const std::string& v) { output = v; })
      .value({"--defsym"}, "NAME=VALUE", "define an absolute symbol before the first line (repeatable)",
             [&](const std::string& v) {
               size_t eq = v.find('=');
               if (eq == 0 || eq == std::string::npos)
                 throw OptionTable::UsageProblem{"-defsym expects NAME=VALUE, not '" + v + "'"};
               try {
                 size_t pos = 0;
                 long long x = std::stoll(v.substr(eq + 1), &pos, 0);
                 if (pos != v.size() - eq - 1) throw 0;
                 defsyms.emplace_back(v.substr(0, eq), x);
               } catch (...) {
                 throw OptionTable::UsageProblem{"-defsym " + v + ": the value must be an integer"};
               }
             })
      .value({"-I", "--include-dir"}, "DIR", "where .include looks after the including file's folder (repeatable)",
             [&](const std::string& v) { include_dirs.push_back(v); })
      .flag({"--show-encoding"}, "print each instruction with its encoding", [&] { show = true; })
      .flag({"--show-inst"}, "print each instruction's operands as llvm-mc -show-inst does (table row and name "
            "instead of LLVM's opcode number)", [&] { show_instructions = true; })
      .flag({"--disassemble"}, "read byte lists ([0x..,...] groups or a stream) and print assembly",
            [&] { disasm = true; })
      .flag({"--raw"}, "with -filetype=obj: write the .text bytes instead of a code object", [&] { raw = true; })
      .value({"--max-errors"}, "N", "stop after N errors (default 100, 0 = no limit)",
             [&](const std::string& v) {
               long n = std::atol(v.c_str());
               max_errors = n <= 0 ? size_t(-1) : size_t(n);
             })
      .value({"--amdhsa-code-object-version"}, "4|5", "code object version (default 5)",
             [&](const std::string& v) {
               cov = std::atoi(v.c_str());
               if (cov != 4 && cov != 5) throw OptionTable::UsageProblem{"code object version must be 4 or 5"};
               cov_explicit = true;
             })
      .flag({"--dump-table"}, "print the instruction table, one JSON object per row", [&] { table = true; })
      .epilog("FILE is assembly source ('-' or nothing: standard input). Without -o (or with -filetype=asm)\n"
              "the listing goes to standard output; errors go to standard error as FILE:LINE:COL.\n\n"
              "examples:\n"
              "  k100-as -o vadd.hsaco vadd.s                 # code object for the emulator or a DCU\n"
              "  k100-as -mcpu gfx906 --show-encoding x.s     # listing with encodings, as llvm-mc -show-encoding\n"
              "  echo '[0x00,0x00,0x81,0xbf]' | k100-as --disassemble\n\n"
              "exit status: 0 success, 1 errors in the input, 2 usage error\n");
  int rc = opts_table.parse(argc, argv, [&](const std::string& a) {
    input = a;
    ++inputs;
  });
  if (rc >= 0) return rc;
  if (cpu_help) {
    print_cpu_help();
    return 0;
  }
  if (inputs > 1) return opts_table.usage_error("one input file at a time");
  if (table) {
    dump_table();
    return 0;
  }
  const bool check_only = filetype == "null";
  bool write_object = filetype == "obj" || check_only || (filetype.empty() && !output.empty());
  std::string text;
  std::string name = input == "-" ? "<stdin>" : input;
  if (!read_source(input, text)) return 1;
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
  opts.code_object_version_explicit = cov_explicit;
  opts.error_limit = max_errors;
  opts.include_dirs = include_dirs;
  opts.predefined_symbols = defsyms;
  opts.listing = !write_object;  // the listing is only printed when no object is written
  as::Program prog = as::assemble(text, name, opts, diags);
  if (!mattr.empty() && prog.amdgcn_target.empty()) {
    try {
      std::string id = target_with_features(isa::target_name(target), mattr);
      prog.amdgcn_target = codeobj::parse_target_id(id).id();
    } catch (const OptionTable::UsageProblem& p) {
      return opts_table.usage_error(p.message);
    } catch (const Error& e) {
      return opts_table.usage_error(std::string("-mattr: ") + e.what());
    }
  }
  bool prog_has_errors = diags.has_errors();
  size_t prog_errors = diags.error_count();
  std::string target_id = codeobj::default_target(isa::target_name(target)).id();
  out += "\t.amdgcn_target \"" + (prog.amdgcn_target.empty() ? target_id : prog.amdgcn_target) + "\"\n";
  // what the command line said, so that the listing assembles again to the same object
  if (cov_explicit && !prog.code_object_version) out += "\t.amdhsa_code_object_version " + std::to_string(cov) + "\n";
  for (const auto& [sym, value] : defsyms) out += "\t.set " + sym + ", " + std::to_string(value) + "\n";
  for (const auto& l : prog.listing) {
    if (l.kind == as::ListingLine::Kind::Label) {
      out += l.text + ":\n";
      continue;
    }
    if (l.kind == as::ListingLine::Kind::Directive) {
      out += l.text + "\n";
      continue;
    }
    if (show) {
      out += as::show_encoding_line(l.text, l.bytes, l.fixup_byte) + "\n";
      if (!l.fixup_note.empty()) out += std::string(40, ' ') + ";   " + l.fixup_note + "\n";
    } else if (show_instructions) {
      std::string line = "\t" + l.text;
      out += line + std::string(line.size() < 40 ? 40 - line.size() : 1, ' ');
    } else {
      out += "\t" + l.text + "\n";
    }
    if (show_instructions) {
      std::string dump = show_inst(l.bytes, target);
      out += show ? dump : dump.substr(dump.find(';'));
    }
  }
  std::fputs(diags.format_all().c_str(), stderr);
  diags.clear();
  if (prog_has_errors) {
    // like llvm-mc, the listing of the good lines is still printed
    if (!write_object) write_text(output, out);
    std::fprintf(stderr, "k100-as: %zu error%s\n", prog_errors, prog_errors == 1 ? "" : "s");
    return 1;
  }
  if (write_object) {
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
    if (check_only) return 0;
    return write_bytes(output.empty() ? "-" : output, std::string(bytes.begin(), bytes.end())) ? 0 : 1;
  }
  return write_text(output, out) ? 0 : 1;
}
