// Text and JSON renderings of faults and profiles.
#include <cstdio>
#include <sstream>

#include "k100/emu/device.h"
#include "k100/emu/fault.h"
#include "k100/emu/profile.h"

namespace k100::emu {

namespace {
std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
  return buf;
}
}  // namespace

std::string budget_hint() {
  return "raise or lower it with K100_EMU_BUDGET=N (environment), Runtime.instruction_budget = N "
         "(Python), fm_set_budget(N) (C), k100::Runtime::set_instruction_budget(N) or "
         "emu::DispatchOptions::instruction_budget (C++), k100-run --budget N";
}

std::string long_dispatch_notice(const std::string& kernel, double seconds, uint64_t wave_instructions,
                                 uint64_t budget) {
  char head[512];
  std::snprintf(head, sizeof head,
                "k100 emu: kernel '%s' is still running after %.1f s on the emulator: %llu of its budget of "
                "%llu wave-instructions executed so far; it stops with a fault when the budget is spent.\n",
                kernel.c_str(), seconds, (unsigned long long)wave_instructions, (unsigned long long)budget);
  return head + std::string("k100 emu: the budget: ") + budget_hint() + "\n";
}

const char* fault_kind_name(FaultKind k) {
  switch (k) {
    case FaultKind::OutOfBounds: return "out-of-bounds access";
    case FaultKind::UseAfterFree: return "use after free";
    case FaultKind::ReadOnlyWrite: return "write to read-only memory";
    case FaultKind::LdsOutOfRange: return "LDS access out of range";
    case FaultKind::InvalidInstruction: return "invalid instruction";
    case FaultKind::Unsupported: return "unsupported instruction";
    case FaultKind::Trap: return "trap";
    case FaultKind::BudgetExceeded: return "instruction budget exceeded";
    case FaultKind::BadPc: return "PC outside the code";
    case FaultKind::MissingWait: return "missing s_waitcnt";
    case FaultKind::Hazard: return "missing wait states (hazard)";
    case FaultKind::LdsRace: return "LDS race";
    case FaultKind::Cancelled: return "cancelled";
  }
  return "fault";
}

std::string Fault::report() const {
  std::ostringstream o;
  o << "emulator fault: " << fault_kind_name(kind) << "\n";
  o << "  kernel:      " << kernel;
  if (!code_object.empty()) o << " (" << code_object << ")";
  o << "\n";
  if (kind == FaultKind::Cancelled) {  // not a stop at one instruction
    o << "  what:        " << message << "\n";
    return o.str();
  }
  o << "  pc:          " << hex(pc) << " (device address " << hex(pc_address) << ")\n";
  if (!instruction.empty()) o << "  instruction: " << instruction << "    [" << encoding << "]\n";
  o << "  workgroup:   (" << workgroup[0] << ", " << workgroup[1] << ", " << workgroup[2] << "), wave " << wave;
  if (lane >= 0) o << ", lane " << lane;
  o << "\n";
  if (address) {
    o << "  address:     " << hex(*address) << " (" << access_size << "-byte " << (write ? "store" : "load") << ")\n";
  }
  if (nearest) {
    o << "  allocation:  #" << nearest->id << " [" << hex(nearest->address) << ", "
      << hex(nearest->address + nearest->size) << "), " << nearest->size << " bytes";
    if (!nearest->label.empty()) o << ", \"" << nearest->label << "\"";
    if (!nearest->live) o << ", freed";
    o << "\n";
    if (kind == FaultKind::OutOfBounds) {
      if (distance >= 0) o << "  distance:    " << distance << " bytes past its end\n";
      else o << "  distance:    " << -distance << " bytes before its start\n";
    }
  }
  o << "  what:        " << message << "\n";
  if (!rule.empty()) o << "  rule:        " << rule << "\n";
  if (!reg.empty()) o << "  register:    " << reg << "\n";
  if (other_pc) {
    o << "  other:       " << hex(*other_pc);
    if (other_wave >= 0) o << " (wave " << other_wave << ")";
    if (!other_instruction.empty()) o << ": " << other_instruction;
    o << "\n";
  }
  if (!fix.empty()) o << "  fix:         " << fix << "\n";
  return o.str();
}

const char* inst_class_name(InstClass c) {
  switch (c) {
    case InstClass::SALU: return "salu";
    case InstClass::VALU: return "valu";
    case InstClass::SMEM: return "smem";
    case InstClass::VMEM: return "vmem";
    case InstClass::LDS: return "lds";
    case InstClass::Branch: return "branch";
    case InstClass::Waitcnt: return "waitcnt";
    case InstClass::Other: return "other";
  }
  return "?";
}

double Profile::valu_utilization() const {
  uint64_t n = count(InstClass::VALU);
  return n ? double(valu_active_lanes) / (64.0 * double(n)) : 0.0;
}

double Profile::lines_per_vmem_access() const {
  return vmem_accesses ? double(vmem_lines) / double(vmem_accesses) : 0.0;
}

void Profile::merge(const Profile& o) {
  wave_instructions += o.wave_instructions;
  for (int i = 0; i < kInstClassCount; ++i) by_class[size_t(i)] += o.by_class[size_t(i)];
  valu_active_lanes += o.valu_active_lanes;
  bytes_read += o.bytes_read;
  bytes_written += o.bytes_written;
  workgroups += o.workgroups;
  waves += o.waves;
  detailed = detailed || o.detailed;
  vmem_accesses += o.vmem_accesses;
  vmem_lines += o.vmem_lines;
  lds_accesses += o.lds_accesses;
  lds_bank_conflicts += o.lds_bank_conflicts;
  if (regions.size() < o.regions.size()) regions.resize(o.regions.size());
  for (size_t r = 0; r < o.regions.size(); ++r) regions[r].requested += o.regions[r].requested;
  uint64_t total = 0;
  for (uint64_t c : by_class) total += c;
  wave_instructions = total;
}

std::string Profile::format_text() const {
  std::ostringstream o;
  char buf[128];
  o << "profile:\n";
  std::snprintf(buf, sizeof buf, "  workgroups %llu, waves %llu, wave-instructions %llu\n",
                (unsigned long long)workgroups, (unsigned long long)waves, (unsigned long long)wave_instructions);
  o << buf;
  for (int i = 0; i < kInstClassCount; ++i) {
    std::snprintf(buf, sizeof buf, "  %-8s %12llu\n", inst_class_name(InstClass(i)), (unsigned long long)by_class[size_t(i)]);
    o << buf;
  }
  std::snprintf(buf, sizeof buf, "  valu lane utilisation %.1f%%\n", 100.0 * valu_utilization());
  o << buf;
  std::snprintf(buf, sizeof buf, "  device memory: %llu bytes read, %llu bytes written\n",
                (unsigned long long)bytes_read, (unsigned long long)bytes_written);
  o << buf;
  if (detailed) {
    std::snprintf(buf, sizeof buf,
                  "  vector memory: %llu accesses, %.2f distinct 64-byte lines per access, %llu distinct lines "
                  "(%llu read, %llu written)\n",
                  (unsigned long long)vmem_accesses, lines_per_vmem_access(), (unsigned long long)distinct_lines,
                  (unsigned long long)distinct_lines_read, (unsigned long long)distinct_lines_written);
    o << buf;
    std::snprintf(buf, sizeof buf, "  lds: %llu accesses, %llu bank-conflict cycles\n",
                  (unsigned long long)lds_accesses, (unsigned long long)lds_bank_conflicts);
    o << buf;
  }
  return o.str();
}

std::string Profile::format_json() const {
  std::ostringstream o;
  o << "{\"workgroups\":" << workgroups << ",\"waves\":" << waves << ",\"wave_instructions\":" << wave_instructions
    << ",\"by_class\":{";
  for (int i = 0; i < kInstClassCount; ++i)
    o << (i ? "," : "") << "\"" << inst_class_name(InstClass(i)) << "\":" << by_class[size_t(i)];
  char util[32];
  std::snprintf(util, sizeof util, "%.6f", valu_utilization());
  o << "},\"valu_active_lanes\":" << valu_active_lanes << ",\"valu_utilization\":" << util
    << ",\"bytes_read\":" << bytes_read << ",\"bytes_written\":" << bytes_written;
  if (detailed) {
    char lpa[32];
    std::snprintf(lpa, sizeof lpa, "%.6f", lines_per_vmem_access());
    o << ",\"vmem_accesses\":" << vmem_accesses << ",\"vmem_lines\":" << vmem_lines
      << ",\"lines_per_vmem_access\":" << lpa << ",\"distinct_lines\":" << distinct_lines
      << ",\"distinct_lines_read\":" << distinct_lines_read << ",\"distinct_lines_written\":" << distinct_lines_written
      << ",\"lds_accesses\":" << lds_accesses << ",\"lds_bank_conflicts\":" << lds_bank_conflicts;
  }
  o << "}";
  return o.str();
}

}  // namespace k100::emu
