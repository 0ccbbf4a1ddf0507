#include "probe_device.h"

#include "k100/base/error.h"
#include "k100/codeobj/writer.h"

namespace k100::bench::calibrate {

std::vector<const timing::DispatchTrace*> Recording::sequence() const {
  std::vector<const timing::DispatchTrace*> s;
  for (const auto& d : dispatches) s.push_back(d.get());
  return s;
}

timing::Timing Recording::model(const timing::MachineParams& m) const { return timing::simulate(sequence(), m); }

const emu::Program& ProbeDevice::load(const codeobj::CodeObject& co) {
  auto bytes = codeobj::write_code_object(co);
  programs_.push_back(device_.load_code_object(bytes, "calibration probe"));
  return *programs_.back();
}

Recording ProbeDevice::run(const emu::Program& program, const std::string& kernel, const emu::LaunchConfig& launch,
                           const std::vector<uint8_t>& kernarg, int repeat) {
  timing::TraceRecorder recorder;
  emu::DispatchOptions o;
  o.threads = threads_;
  o.observer = &recorder;
  for (int i = 0; i < repeat; ++i) device_.dispatch(program, kernel, launch, kernarg, o).check();
  Recording r;
  r.dispatches = recorder.take();
  return r;
}

}  // namespace k100::bench::calibrate
