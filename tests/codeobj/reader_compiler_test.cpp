// The reader on code objects from real compilers: clang-15 OpenCL and hipcc HIP,
// code object v4 and v5 (commands from ORACLES.md §3/§4). Everything the reader
// reports is compared with what LLVM's tools print for the same file: kernels
// (.kd symbols), entry points, descriptor bytes, and the metadata (our YAML
// printing of the note must equal llvm-readelf's, and the typed argument records
// must equal the ones in that YAML). Re-writing the objects must give the same bytes.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <sstream>

#include "k100/codeobj/reader.h"
#include "k100/codeobj/writer.h"
#include "test_support.h"

namespace k100::codeobj {
namespace {

const char* kOpenCl = R"(
__kernel void scale_exp(__global const float* in, __global float* out, uint count) {
  __local float tile[256];
  size_t gid = get_global_id(0);
  size_t lid = get_local_id(0);
  tile[lid] = gid < count ? in[gid] : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  float v = tile[(lid + 1) % get_local_size(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (gid < count) out[gid] = sqrt(v) + exp(v) + (float)get_group_id(0);
}
__kernel void fill(__global int* out, int value, char c, short s, long l) {
  out[get_global_id(0)] = value + c + s + (int)l;
}
)";

const char* kHip = R"(
#include <hip/hip_runtime.h>
template <int N, bool B>
__global__ void tk(const float* in, float* out, unsigned count) {
  __shared__ float tile[256];
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < count ? in[i] * N : 0.0f;
  __syncthreads();
  if (i < count) out[i] = sqrtf(tile[(threadIdx.x + 1) % blockDim.x]) + (B ? gridDim.x : 0);
}
template __global__ void tk<1, true>(const float*, float*, unsigned);
template __global__ void tk<4, false>(const float*, float*, unsigned);
extern "C" __global__ void plain(int* out) { out[threadIdx.x] = 1; }
)";

const char* kDeviceLibs = "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode";

struct Built {
  std::string label;
  std::string path;
  std::string skip;  // why it was not built
  CodeObjectVersion version;
};

// Compiles the four objects once for the whole suite.
class CompilerObjects : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::TempDir;
    test::write_text(dir_->file("k.cl"), kOpenCl);
    test::write_text(dir_->file("k.hip"), kHip);
    bool have_libs = std::filesystem::exists(std::string(kDeviceLibs) + "/ocml.bc");
    auto build = [&](const std::string& label, CodeObjectVersion v, std::vector<std::string> cmd,
                     const char* tool) {
      Built b{label, dir_->file(label + ".hsaco"), "", v};
      if (!test::have_tool(tool))
        b.skip = std::string(tool) + " not found";
      else if (!have_libs)
        b.skip = std::string("ROCm device libraries not found in ") + kDeviceLibs;
      if (b.skip.empty()) {
        cmd.push_back("-o");
        cmd.push_back(b.path);
        auto r = test::run(cmd);
        if (r.rc != 0) b.skip = "compiler failed: " + r.err;
      }
      built_->push_back(b);
    };
    built_ = new std::vector<Built>;
    std::vector<std::string> cl = {
        "clang-15",     "-x",
        "cl",           "-cl-std=CL1.2",
        "-target",      "amdgcn-amd-amdhsa",
        "-mcpu=gfx906", std::string("--rocm-device-lib-path=") + kDeviceLibs,
        "-O2",          dir_->file("k.cl")};
    build("opencl_v4", CodeObjectVersion::V4, cl, "clang-15");
    std::vector<std::string> cl5 = cl;
    cl5.push_back("-mcode-object-version=5");
    cl5.push_back("-B/usr/lib/llvm-15/bin");
    build("opencl_v5", CodeObjectVersion::V5, cl5, "clang-15");
    std::vector<std::string> hip = {"hipcc", "--offload-arch=gfx906",  "--genco",
                                    "-O2",   "--no-gpu-bundle-output", dir_->file("k.hip")};
    build("hip_v4", CodeObjectVersion::V4, hip, "hipcc");
    std::vector<std::string> hip5 = hip;
    hip5.push_back("-mcode-object-version=5");
    hip5.push_back("-B/usr/lib/llvm-15/bin");
    build("hip_v5", CodeObjectVersion::V5, hip5, "hipcc");
  }
  static void TearDownTestSuite() {
    delete built_;
    delete dir_;
  }
  static test::TempDir* dir_;
  static std::vector<Built>* built_;
};

test::TempDir* CompilerObjects::dir_ = nullptr;
std::vector<Built>* CompilerObjects::built_ = nullptr;

struct ElfSym {
  uint64_t value, size;
  std::string type, bind, vis;
};

// Symbols from `llvm-readelf --dyn-syms`.
std::map<std::string, ElfSym> readelf_dynsyms(const std::string& out) {
  std::map<std::string, ElfSym> syms;
  std::regex line(R"(^\s*\d+: ([0-9a-f]+)\s+(\d+) (\w+)\s+(\w+)\s+(\w+)\s+\S+ (\S+)$)");
  std::istringstream in(out);
  std::string l;
  std::smatch m;
  while (std::getline(in, l))
    if (std::regex_match(l, m, line))
      syms[m[6]] = {std::stoull(m[1], nullptr, 16), std::stoull(m[2]), m[3], m[4], m[5]};
  return syms;
}

// Section bytes from `llvm-objdump -s -j NAME`: address -> byte.
std::map<uint64_t, uint8_t> objdump_bytes(const std::string& out) {
  std::map<uint64_t, uint8_t> bytes;
  std::istringstream in(out);
  std::string l;
  while (std::getline(in, l)) {
    if (l.size() < 6 || l[0] != ' ') continue;
    std::istringstream ls(l);
    std::string addr_text;
    ls >> addr_text;
    uint64_t addr;
    try {
      addr = std::stoull(addr_text, nullptr, 16);
    } catch (...) {
      continue;
    }
    std::string rest = l.substr(l.find(addr_text) + addr_text.size() + 1, 35);
    std::istringstream gs(rest);
    std::string group;
    while (gs >> group)
      for (size_t i = 0; i + 1 < group.size(); i += 2)
        bytes[addr++] = uint8_t(std::stoul(group.substr(i, 2), nullptr, 16));
  }
  return bytes;
}

TEST_F(CompilerObjects, ReaderAgreesWithLlvmTools) {
  if (!test::have_tool("llvm-readelf-15") || !test::have_tool("llvm-objdump-15"))
    K100_ORACLE_MISSING("llvm-readelf-15 / llvm-objdump-15 not found (apt-get install llvm-15)");
  int checked = 0;
  for (const Built& b : *built_) {
    SCOPED_TRACE(b.label);
    if (!b.skip.empty()) {
      std::printf("[  SKIP    ] %s: %s\n", b.label.c_str(), b.skip.c_str());
      continue;
    }
    ++checked;
    CodeObject co = read_code_object_file(b.path);
    EXPECT_EQ(co.version, b.version);
    EXPECT_EQ(co.target, default_target("gfx906"));
    EXPECT_TRUE(co.read_info.warnings.empty()) << co.read_info.warnings.front();

    auto r = test::run({"llvm-readelf-15", "--dyn-syms", "-n", b.path});
    ASSERT_EQ(r.rc, 0) << r.err;
    auto syms = readelf_dynsyms(r.out);
    std::string yaml = test::readelf_metadata_yaml(r.out);
    ASSERT_FALSE(yaml.empty());
    // The metadata document, printed our way, is what llvm-readelf prints.
    EXPECT_EQ(to_yaml(co.metadata), yaml);

    // Kernels = the .kd symbols; each entry point = the kernel's function symbol.
    std::vector<std::string> kd_names;
    for (const auto& [name, s] : syms)
      if (name.size() > 3 && name.substr(name.size() - 3) == ".kd") kd_names.push_back(name);
    ASSERT_EQ(co.kernels.size(), kd_names.size());
    auto od = test::run({"llvm-objdump-15", "-s", "-j", ".rodata", b.path});
    ASSERT_EQ(od.rc, 0) << od.err;
    auto rodata = objdump_bytes(od.out);
    for (const auto& k : co.kernels) {
      SCOPED_TRACE(k.name);
      ASSERT_TRUE(syms.count(k.name + ".kd"));
      ASSERT_TRUE(syms.count(k.name));
      EXPECT_EQ(co.read_info.text_address + k.code_offset, syms[k.name].value);
      EXPECT_EQ(k.code_size, syms[k.name].size);
      std::array<uint8_t, 64> raw{};
      for (size_t i = 0; i < 64; ++i) raw[i] = rodata.at(syms[k.name + ".kd"].value + i);
      EXPECT_EQ(k.descriptor.encode(), raw);
      // Descriptor fields agree with the metadata the compiler wrote.
      ASSERT_TRUE(k.meta.has_value());
      EXPECT_EQ(k.descriptor.group_segment_fixed_size, k.meta->group_segment_fixed_size);
      EXPECT_EQ(k.descriptor.private_segment_fixed_size, k.meta->private_segment_fixed_size);
      EXPECT_EQ(k.descriptor.kernarg_size, k.meta->kernarg_segment_size);
    }

    // Typed records against the YAML llvm-readelf printed.
    auto want = parse_kernels(parse_metadata_yaml(yaml, "readelf"), "readelf");
    ASSERT_EQ(want.size(), co.kernels.size());
    for (const auto& w : want) {
      const Kernel* k = co.find_kernel(w.name);
      ASSERT_NE(k, nullptr) << w.name;
      ASSERT_EQ(k->meta->args.size(), w.args.size());
      for (size_t i = 0; i < w.args.size(); ++i) {
        EXPECT_EQ(k->meta->args[i].offset, w.args[i].offset);
        EXPECT_EQ(k->meta->args[i].size, w.args[i].size);
        EXPECT_EQ(k->meta->args[i].value_kind, w.args[i].value_kind);
      }
      EXPECT_EQ(k->meta->sgpr_count, w.sgpr_count);
      EXPECT_EQ(k->meta->vgpr_count, w.vgpr_count);
    }

    // Known facts from ORACLES.md for these kernels.
    if (b.label == "opencl_v5") {
      const Kernel* k = co.find_kernel("scale_exp");
      ASSERT_NE(k, nullptr);
      EXPECT_EQ(k->meta->kernarg_segment_size, 280u);
      EXPECT_EQ(k->meta->group_segment_fixed_size, 1024u);
    }
    if (b.label == "opencl_v4") {
      EXPECT_EQ(co.find_kernel("scale_exp")->meta->kernarg_segment_size, 80u);
    }
    if (b.label.rfind("hip", 0) == 0) {
      EXPECT_NE(co.find_kernel("_Z2tkILi1ELb1EEvPKfPfj"), nullptr);
      EXPECT_NE(co.find_kernel("plain"), nullptr);
    }

    // Re-writing gives the same file (HIP objects carry weak data in .rodata).
    EXPECT_TRUE(co.read_info.unsupported.empty());
    EXPECT_EQ(write_code_object(co), test::read_bytes(b.path));
  }
  if (checked == 0) K100_ORACLE_MISSING("no compiler available (clang-15 / hipcc)");
}

}  // namespace
}  // namespace k100::codeobj
