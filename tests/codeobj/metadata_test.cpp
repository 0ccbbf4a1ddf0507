// Metadata tree, MessagePack and YAML: unit tests plus two oracles. llvm-mc turns a
// YAML corpus full of typing corner cases into a note; our YAML parser + MessagePack
// encoder must produce the same bytes, and our YAML printer must print that note
// exactly as llvm-readelf does.
#include <gtest/gtest.h>

#include "k100/base/error.h"
#include "k100/codeobj/kernel_metadata.h"
#include "k100/codeobj/metadata_node.h"
#include "k100/codeobj/reader.h"
#include "test_support.h"

namespace k100::codeobj {
namespace {

using K = MetaNode::Kind;

TEST(MetaNode, MapsStaySortedAndIntegersCompareByValue) {
  MetaNode m;
  m["zeta"] = MetaNode::uinteger(1);
  m["alpha"] = MetaNode::integer(2);
  m.set(".b", MetaNode::string("x"));
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m.entries()[0].first, ".b");
  EXPECT_EQ(m.entries()[1].first, "alpha");
  EXPECT_EQ(m.find("zeta")->as_uint(), 1u);
  EXPECT_EQ(m.find("nope"), nullptr);
  EXPECT_TRUE(m.erase("alpha"));
  EXPECT_EQ(MetaNode::integer(5), MetaNode::uinteger(5));
  EXPECT_FALSE(MetaNode::integer(-1) == MetaNode::uinteger(UINT64_MAX));
  EXPECT_THROW(MetaNode::string("x").as_int(), Error);
  EXPECT_THROW(MetaNode::integer(-3).as_uint(), Error);
}

TEST(MetaNode, MessagePackRoundTripUsesSmallestEncodings) {
  MetaNode m;
  m["a"] = MetaNode::uinteger(5);
  m["b"] = MetaNode::integer(-5);
  m["c"] = MetaNode::uinteger(300);
  m["d"] = MetaNode::string(std::string(40, 'x'));
  m["e"] = MetaNode::boolean(true);
  m["f"] = MetaNode();
  m["g"] = MetaNode::array({MetaNode::uinteger(1), MetaNode::uinteger(1)});
  std::vector<uint8_t> bytes = encode_msgpack(m);
  // fixmap(7), "a" 5, "b" -5 (negative fixint), "c" uint16, "d" str8, true, nil, [1, 1].
  std::vector<uint8_t> want = {0x87, 0xa1, 'a',  0x05, 0xa1, 'b', 0xfb, 0xa1,
                               'c',  0xcd, 0x01, 0x2c, 0xa1, 'd', 0xd9, 40};
  want.insert(want.end(), 40, 'x');
  for (uint8_t b : {0xa1, int('e'), 0xc3, 0xa1, int('f'), 0xc0, 0xa1, int('g'), 0x92, 1, 1})
    want.push_back(uint8_t(b));
  EXPECT_EQ(bytes, want);
  EXPECT_EQ(decode_msgpack(bytes, "t"), m);
}

TEST(MetaNode, MalformedMessagePackIsANamedError) {
  std::vector<uint8_t> good = encode_msgpack(MetaNode::array({MetaNode::string("hello")}));
  for (size_t n = 0; n < good.size(); ++n) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + ptrdiff_t(n));
    EXPECT_THROW(decode_msgpack(cut, "cut"), Error) << n;
  }
  std::vector<uint8_t> trailing = good;
  trailing.push_back(0);
  EXPECT_THROW(decode_msgpack(trailing, "t"), Error);
  // A map with a non-string key, a duplicate key, an array claiming 2^32-1 elements.
  EXPECT_THROW(decode_msgpack(std::vector<uint8_t>{0x81, 0x01, 0x01}, "t"), Error);
  EXPECT_THROW(decode_msgpack(std::vector<uint8_t>{0x82, 0xa1, 'a', 1, 0xa1, 'a', 2}, "t"), Error);
  EXPECT_THROW(decode_msgpack(std::vector<uint8_t>{0xdd, 0xff, 0xff, 0xff, 0xff}, "t"), Error);
  std::vector<uint8_t> deep(200, 0x91);
  deep.push_back(0xc0);
  EXPECT_THROW(decode_msgpack(deep, "t"), Error);
}

TEST(MetadataYaml, ScalarsAreTypedLikeLlvmMc) {
  struct Case {
    const char* text;
    MetaNode want;
  } cases[] = {
      {"n", MetaNode::boolean(false)},
      {"'y'", MetaNode::boolean(true)},
      {"Yes", MetaNode::boolean(true)},
      {"OFF", MetaNode::boolean(false)},
      {"010", MetaNode::uinteger(8)},
      {"0x10", MetaNode::uinteger(16)},
      {"0b11", MetaNode::uinteger(3)},
      {"0o7", MetaNode::uinteger(7)},
      {"-5", MetaNode::integer(-5)},
      {"'12'", MetaNode::uinteger(12)},
      {"1.5", MetaNode()},
      {"+5", MetaNode()},
      {"''", MetaNode()},
      {"~", MetaNode::string("~")},
      {"null", MetaNode::string("null")},
      {".inf", MetaNode::string(".inf")},
      {"0x", MetaNode::string("0x")},
      {"!str 12", MetaNode::string("12")},
      {"!!str 12", MetaNode::uinteger(12)},
      {"!nil x", MetaNode()},
      {"'float*'", MetaNode::string("float*")},
  };
  for (const auto& c : cases) {
    MetaNode doc = parse_metadata_yaml(std::string("k: ") + c.text + "\n", "t.s");
    EXPECT_EQ(*doc.find("k"), c.want) << c.text;
    EXPECT_EQ(doc.find("k")->kind(), c.want.kind()) << c.text;
  }
  EXPECT_EQ(parse_metadata_yaml("k:\n", "t")["k"].kind(), K::Array);  // empty value
  try {
    parse_metadata_yaml("a: 1\nb: [1, 2\n", "k.s", 10);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("k.s:1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_metadata_yaml("a: 1\na: 2\n", "t"), Error);
  EXPECT_THROW(parse_metadata_yaml("a: !int x\n", "t"), Error);
}

TEST(KernelMetadata, TypedRecordsRoundTripAndKeepUnknownKeys) {
  MetaNode doc = parse_metadata_yaml(R"(---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: k
    .symbol: k.kd
    .language: OpenCL C
    .language_version: [ 1, 2 ]
    .kernarg_segment_size: 280
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 1024
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 9
    .max_flat_workgroup_size: 256
    .uniform_work_group_size: true
    .fp64_status: 0
    .args:
      - { .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global, .is_const: true, .type_name: 'float*', .x_vendor: 3 }
      - { .offset: 24, .size: 4, .value_kind: hidden_block_count_x }
      - { .offset: 248, .size: 8, .value_kind: hidden_dynamic_lds_size }
...
)",
                                     "t");
  auto ks = parse_kernels(doc, "t");
  ASSERT_EQ(ks.size(), 1u);
  const KernelMeta& k = ks[0];
  EXPECT_EQ(k.kernarg_segment_size, 280u);
  EXPECT_EQ(*k.uniform_work_group_size, true);
  EXPECT_EQ(k.args[0].address_space, AddressSpace::Global);
  EXPECT_EQ(k.args[1].value_kind, ValueKind::HiddenBlockCountX);
  EXPECT_EQ(k.args[2].value_kind, ValueKind::HiddenDynamicLdsSize);
  EXPECT_EQ(k.extra.find(".fp64_status")->as_uint(), 0u);
  EXPECT_EQ(k.args[0].extra.find(".x_vendor")->as_uint(), 3u);
  EXPECT_EQ(to_node(k), doc.find("amdhsa.kernels")->items()[0]);
  for (ValueKind v : all_value_kinds()) EXPECT_EQ(parse_value_kind(value_kind_name(v)), v);
}

TEST(KernelMetadata, ErrorsNameKernelAndKey) {
  auto err = [](const char* yaml) {
    try {
      parse_kernels(parse_metadata_yaml(yaml, "m.s"), "m.s");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const char* missing = "amdhsa.kernels:\n  - { .name: k, .symbol: k.kd }\n";
  EXPECT_NE(err(missing).find("kernel 'k'"), std::string::npos);
  EXPECT_NE(err(missing).find("missing required key"), std::string::npos);
  const char* bad_kind =
      "amdhsa.kernels:\n  - { .name: k, .symbol: k.kd, .kernarg_segment_size: 0, "
      ".group_segment_fixed_size: 0, .private_segment_fixed_size: 0, .kernarg_segment_align: 8,"
      " .wavefront_size: 64, .sgpr_count: 0, .vgpr_count: 0, .max_flat_workgroup_size: 1,"
      " .args: [ { .offset: 0, .size: 4, .value_kind: by_valu } ] }\n";
  EXPECT_NE(err(bad_kind).find("arg 0"), std::string::npos);
  EXPECT_NE(err(bad_kind).find("by_valu"), std::string::npos);
  const char* n_name =  // the ORACLES gotcha: an argument named n is a boolean
      "amdhsa.kernels:\n  - { .name: k, .symbol: k.kd, .kernarg_segment_size: 0, "
      ".group_segment_fixed_size: 0, .private_segment_fixed_size: 0, .kernarg_segment_align: 8,"
      " .wavefront_size: 64, .sgpr_count: 0, .vgpr_count: 0, .max_flat_workgroup_size: 1,"
      " .args: [ { .name: n, .offset: 0, .size: 4, .value_kind: by_value } ] }\n";
  EXPECT_NE(err(n_name).find(".name must be a string, found a boolean"), std::string::npos);
}

// Typing corner cases that llvm-mc accepts in a kernel record (unknown keys are allowed).
const char* kCorpus = R"(---
amdhsa.version: [ 1, 1 ]
amdhsa.target: amdgcn-amd-amdhsa--gfx906
k100.extra: {z: 1, a: [x]}
amdhsa.kernels:
  - .name: zeta
    .symbol: zeta.kd
    .kernarg_segment_size: 0
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 0
    .vgpr_count: 1
    .max_flat_workgroup_size: 256
    .t01: n
    .t02: 'y'
    .t03: Yes
    .t04: on
    .t05: OFF
    .t06: 010
    .t07: 0x10
    .t08: 0b11
    .t09: 0o7
    .t10: 1e3
    .t11: inf
    .t12: .inf
    .t13: -5
    .t14: +5
    .t15: ~
    .t16: null
    .t17: true
    .t18: '12'
    .t19: 1.5
    .t20: 18446744073709551615
    .t21: -9223372036854775808
    .t23: !str 12
    .t24: 'a: b'
    .t25: 'float*'
    .t26:
    .t27: '-x'
    .t28: "with\ttab"
    .t29: [1, 2]
    .t30: {}
    .t31: []
    .t32: 'x y'
    .t33: '-'
    .t35: 'a/b'
    .t37: 0x
    .t40: [[1, 2], [], [a]]
    .t41: [{}, {a: 1}]
    .t42: {x: [], w: {}}
    .t43: "it's"
    .t44: "caf\u00e9"
    .t45: !str n
    .t46: !str true
    .t47: !str 1.5
    .t48: !int 12
    .t49: !bool yes
    .t50: "a\x01b"
    .t52: [[[]]]
    .t53: '#x'
    .t55: ' lead'
    .t58: !str ~
    .t59: !str 0x10
    .t60: 'a"b'
    .t61: !str '-5'
    .t62: !str ''
    .t63: !nil x
    .t64: [[], [[1]]]
    .t65: [{a: [1, {b: []}]}]
    .t66: "\t"
    .t67: "x\x7f"
    .t68: '12:30'
    .t69: '@home'
    .t70: ''
    .t71: "two\nlines"
    .args:
      - { .name: count, .offset: 0, .size: 4, .value_kind: by_value, .type_name: 'unsigned int' }
...
)";

class MetadataOracle : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* t : {"llvm-mc-14", "ld.lld-14", "llvm-readelf-14"})
      if (!test::have_tool(t))
        K100_ORACLE_MISSING(std::string(t) + " not found; install llvm/lld to run this oracle");
  }
};

TEST_F(MetadataOracle, YamlToMessagePackMatchesLlvmMcAndPrintingMatchesReadelf) {
  test::TempDir dir;
  std::string src = "\t.amdgcn_target \"amdgcn-amd-amdhsa--gfx906\"\n\t.amdgpu_metadata\n" +
                    std::string(kCorpus) + "\t.end_amdgpu_metadata\n";
  test::write_text(dir.file("m.s"), src);
  auto r = test::run({"llvm-mc-14", "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx906", "-filetype=obj",
                      "-o", dir.file("m.o"), dir.file("m.s")});
  ASSERT_EQ(r.rc, 0) << r.err;
  r = test::run({"ld.lld-14", "-shared", "-o", dir.file("m.so"), dir.file("m.o")});
  ASSERT_EQ(r.rc, 0) << r.err;
  std::vector<uint8_t> so = test::read_bytes(dir.file("m.so"));
  std::vector<uint8_t> llvm_note = read_metadata_note(so, "m.so");

  MetaNode ours = parse_metadata_yaml(kCorpus, "corpus");
  EXPECT_EQ(encode_msgpack(ours), llvm_note);

  for (const char* readelf : {"llvm-readelf-14", "llvm-readelf-15"}) {
    if (!test::have_tool(readelf)) continue;
    r = test::run({readelf, "-n", dir.file("m.so")});
    ASSERT_EQ(r.rc, 0) << r.err;
    std::string want = test::readelf_metadata_yaml(r.out);
    ASSERT_FALSE(want.empty()) << r.out;
    EXPECT_EQ(to_yaml(decode_msgpack(llvm_note, "note")), want) << readelf;
  }
}

}  // namespace
}  // namespace k100::codeobj
