// The 4-bit weight formats (compressed-tensors INT4, NVFP4, RT4) and the
// activation quantisers: decoding checked on hand-made bytes against the
// values FORMATS.md gives, the packers within their rounding bounds, the
// RT4 converter bit-exact with the checkpoint it came from, and the
// quantised-activation GEMV against the same sums formed another way.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include "k100/base/error.h"
#include "k100/quant/activation_quant.h"
#include "k100/quant/compressed_tensors.h"
#include "k100/quant/half.h"
#include "k100/quant/nvfp4.h"
#include "k100/quant/rt4.h"
#include "k100/quant/safetensors_writer.h"
#include "test_files.h"

namespace k100::quant {
namespace {

std::vector<float> normal(size_t n, uint64_t seed, float sd = 1.0f) {
  std::mt19937_64 g(seed);
  std::normal_distribution<float> d(0.0f, sd);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

template <class T>
std::span<const uint8_t> as_bytes(const std::vector<T>& v) {
  return {reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(T)};
}

TEST(E4M3, KnownValuesAndRoundTrip) {
  EXPECT_EQ(e4m3_to_f32(0x38), 1.0f);                 // e = 7, m = 0
  EXPECT_EQ(e4m3_to_f32(0xB8), -1.0f);
  EXPECT_EQ(e4m3_to_f32(0x7E), 448.0f);               // the largest finite value
  EXPECT_EQ(e4m3_to_f32(0x08), 1.0f / 64);            // the smallest normal, 2^-6
  EXPECT_EQ(e4m3_to_f32(0x01), 1.0f / 512);           // the smallest subnormal, 2^-9
  EXPECT_EQ(e4m3_to_f32(0x07), 7.0f / 512);
  EXPECT_EQ(e4m3_to_f32(0x3C), 1.5f);
  for (int c = 0; c < 0x7F; ++c) {
    EXPECT_EQ(f32_to_e4m3(e4m3_to_f32(uint8_t(c))), c) << c;
    if (c) {
      EXPECT_EQ(f32_to_e4m3(-e4m3_to_f32(uint8_t(c))), c | 0x80) << c;
    }
  }
  EXPECT_EQ(f32_to_e4m3(1e9f), 0x7E);  // saturates
  EXPECT_EQ(f32_to_e4m3(1.0625f), 0x38);  // halfway between 1 and 1.125: to the even pattern
  EXPECT_EQ(f32_to_e4m3(1.1875f), 0x3A);  // halfway between 1.125 and 1.25: to the even pattern
}

TEST(W4Codes, EachKindReadsItsValues) {
  for (uint32_t c = 0; c < 16; ++c) {
    EXPECT_EQ(code_value(CodeKind::OffsetInt4, c), float(int(c) - 8));
    EXPECT_EQ(code_value(CodeKind::SignedInt4, c), float(c < 8 ? int(c) : int(c) - 16));
    EXPECT_EQ(code_int(CodeKind::SignedInt4, c), c < 8 ? int(c) : int(c) - 16);
  }
  const float e2m1[16] = {0, .5f, 1, 1.5f, 2, 3, 4, 6, -0.0f, -.5f, -1, -1.5f, -2, -3, -4, -6};
  for (uint32_t c = 0; c < 16; ++c) EXPECT_EQ(code_value(CodeKind::E2M1, c), e2m1[c]);
}

TEST(CompressedTensorsInt4, HandMadeWordsDecodeLowNibbleFirst) {
  // one row of 128: words 0x76543210 then 0xFEDCBA98, repeated; scale 0.5
  std::vector<uint32_t> words(16);
  for (int i = 0; i < 16; ++i) words[size_t(i)] = i % 2 ? 0xFEDCBA98u : 0x76543210u;
  const std::vector<uint16_t> scale = {f32_to_bf16(0.5f)};
  W4Matrix m{&kCompressedTensorsInt4, 1, 128, 0, as_bytes(words), as_bytes(scale)};
  m.check("t");
  const std::vector<float> w = m.dequantize();
  for (int k = 0; k < 128; ++k) EXPECT_EQ(w[size_t(k)], float((k % 16) - 8) * 0.5f) << k;
}

TEST(CompressedTensorsInt4, PackerIsWithinHalfAStepAndStoresBf16Scales) {
  const int64_t n = 3, k = 256;
  std::vector<float> w = normal(size_t(n * k), 1, 0.05f);
  std::fill(w.begin() + 128, w.begin() + 256, 0.0f);  // an all-zero group gets scale 1.0
  const PackedInt4 p = pack_int4_group128(w, n, k);
  EXPECT_EQ(p.scale[1], f32_to_bf16(1.0f));
  W4Matrix m{&kCompressedTensorsInt4, n, k, 0, as_bytes(p.packed), as_bytes(p.scale)};
  m.check("t");
  const std::vector<float> d = m.dequantize();
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < k; ++c) {
      const float s = bf16_to_f32(p.scale[size_t(r * 2 + c / 128)]);
      EXPECT_LE(std::fabs(d[size_t(r * k + c)] - w[size_t(r * k + c)]), 0.5f * s * 1.0001f + 1e-7f);
    }
}

TEST(W4Matrix, SizeChecksNameTheMatrix) {
  std::vector<uint8_t> codes(64), scales(2);
  W4Matrix m{&kCompressedTensorsInt4, 1, 128, 0, codes, scales};
  m.check("ok");
  m.k = 120;
  EXPECT_THROW(m.check("k"), Error);
  m.k = 128;
  m.scales = std::span<const uint8_t>(scales).subspan(1);
  try {
    m.check("layer x");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("layer x"), std::string::npos);
  }
}

TEST(Nvfp4, GlobalScaleDividesAndCodesAreLowNibbleFirst) {
  // one row of 16: byte 0x9A = codes 0xA (-1.0) then 0x9 (-0.5); block scale 2.0 (0x40); global 4
  std::vector<uint8_t> codes(8, 0x00);
  codes[0] = 0x9A;
  codes[7] = 0x7F;  // low 0xF = -6 (k = 14), high 0x7 = 6 (k = 15)
  const std::vector<uint8_t> scale = {0x40};
  ASSERT_EQ(e4m3_to_f32(0x40), 2.0f);
  W4Matrix m{&kNvfp4, 1, 16, 0, codes, scale, 4.0f};
  m.check("t");
  const std::vector<float> w = m.dequantize();
  EXPECT_EQ(w[0], -1.0f * 2.0f / 4.0f);
  EXPECT_EQ(w[1], -0.5f * 2.0f / 4.0f);
  EXPECT_EQ(w[14], -6.0f * 2.0f / 4.0f);
  EXPECT_EQ(w[15], 6.0f * 2.0f / 4.0f);
  m.global = 0;
  EXPECT_THROW(m.check("t"), Error);
}

TEST(Nvfp4, PackerFollowsTheCheckpointConvention) {
  const int64_t n = 4, k = 64;
  const std::vector<float> w = normal(size_t(n * k), 2, 0.02f);
  const PackedNvfp4 p = pack_nvfp4(w, n, k);
  float amax = 0;
  for (float v : w) amax = std::max(amax, std::fabs(v));
  EXPECT_FLOAT_EQ(p.global, 448.0f * 6.0f / amax);
  W4Matrix m{&kNvfp4, n, k, 0, as_bytes(p.packed), as_bytes(p.scale), p.global};
  m.check("t");
  const std::vector<float> d = m.dequantize();
  // each weight within half the widest E2M1 step (1 of 6) of its block's scale, plus the scale's rounding
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < k; ++c) {
      const float s = e4m3_to_f32(p.scale[size_t(r * (k / 16) + c / 16)]) / p.global;
      EXPECT_LE(std::fabs(d[size_t(r * k + c)] - w[size_t(r * k + c)]), 1.0f * s + 1e-6f) << r << "," << c;
    }
}

// A compressed-tensors checkpoint with one INT4 layer and one NVFP4 layer.
std::string write_checkpoint(const std::string& name, int64_t n, int64_t k, std::vector<float>* w_out = nullptr) {
  const std::string path = test::scratch_path(name);
  const std::vector<float> w = normal(size_t(n * k), 3, 0.05f);
  if (w_out) *w_out = w;
  const PackedInt4 p = pack_int4_group128(w, n, k);
  const PackedNvfp4 f = pack_nvfp4(w, n, k);
  const std::vector<int64_t> shape = {n, k};
  SafetensorsWriter sw;
  sw.add("l.weight_packed", SafetensorsDtype::I32, {uint64_t(n), uint64_t(k / 8)}, as_bytes(p.packed));
  sw.add("l.weight_scale", SafetensorsDtype::BF16, {uint64_t(n), uint64_t(k / 128)}, as_bytes(p.scale));
  sw.add("l.weight_shape", SafetensorsDtype::I64, {2}, as_bytes(shape));
  sw.add("f.weight_packed", SafetensorsDtype::U8, {uint64_t(n), uint64_t(k / 2)}, f.packed);
  sw.add("f.weight_scale", SafetensorsDtype::F8_E4M3, {uint64_t(n), uint64_t(k / 16)}, f.scale);
  const std::vector<float> g = {f.global};
  sw.add("f.weight_global_scale", SafetensorsDtype::F32, {1}, as_bytes(g));
  sw.write(path);
  return path;
}

TEST(CompressedTensorsCheckpoint, LayersAreFoundAndCrossChecked) {
  std::vector<float> w;
  const std::string path = write_checkpoint("ct.safetensors", 8, 256, &w);
  const SafetensorsCheckpoint c = SafetensorsCheckpoint::open(path);
  EXPECT_EQ(packed_layer_prefixes(c), (std::vector<std::string>{"f", "l"}));  // by name
  const Int4Layer L = find_int4_layer(c, "l");
  EXPECT_EQ(L.n, 8);
  EXPECT_EQ(L.k, 256);
  const Nvfp4Layer F = find_nvfp4_layer(c, "f");
  EXPECT_EQ(F.k, 256);
  EXPECT_FLOAT_EQ(F.gscale(), 1.0f / F.matrix.global);
  // the W4A16 reference GEMV of both formats against a double dot of the dequantised weights
  const std::vector<float> x = normal(2 * 256, 4);
  for (const W4Matrix* m : {&L.matrix, &F.matrix}) {
    const std::vector<float> y = gemv_reference(*m, x, 2), d = m->dequantize();
    for (int r = 0; r < 2; ++r)
      for (int n = 0; n < 8; ++n) {
        double acc = 0;
        for (int j = 0; j < 256; ++j) acc += double(d[size_t(n * 256 + j)]) * x[size_t(r * 256 + j)];
        EXPECT_NEAR(y[size_t(r * 8 + n)], acc, 1e-6 * (1 + std::fabs(acc)));
      }
  }
  EXPECT_THROW(find_int4_layer(c, "f"), Error);  // U8 codes: not an INT4 layer
  try {
    find_nvfp4_layer(c, "missing");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'missing.weight_packed'"), std::string::npos) << e.what();
  }
}

TEST(CompressedTensorsCheckpoint, ShapeDisagreementsAreNamed) {
  const std::vector<int32_t> packed(8 * 16);
  const std::vector<uint16_t> scale(8);
  const std::vector<int64_t> shape = {8, 256};  // says K = 256, the codes hold 128
  SafetensorsWriter sw;
  sw.add("l.weight_packed", SafetensorsDtype::I32, {8, 16}, as_bytes(packed));
  sw.add("l.weight_scale", SafetensorsDtype::BF16, {8, 1}, as_bytes(scale));
  sw.add("l.weight_shape", SafetensorsDtype::I64, {2}, as_bytes(shape));
  const std::string path = test::scratch_path("ct_bad.safetensors");
  sw.write(path);
  const SafetensorsCheckpoint c = SafetensorsCheckpoint::open(path);
  try {
    find_int4_layer(c, "l");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'l.weight_packed'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[8, 32]"), std::string::npos) << e.what();
  }
}

TEST(QuantizationConfig, SupportedSchemesAndRefusals) {
  const auto read = [](const std::string& text) {
    const Json j = parse_json(text, "config.json");
    return read_quantization_config(JsonObject(j, "config.json", "quantization_config"));
  };
  const std::string int4 = R"({"quant_method":"compressed-tensors","format":"pack-quantized","quantization_status":"compressed",
    "ignore":["lm_head"],"config_groups":{"group_0":{"targets":["Linear"],"weights":{"num_bits":4,"type":"int",
    "symmetric":true,"group_size":128,"strategy":"group","actorder":null,"dynamic":false}}}})";
  const QuantizationConfig q = read(int4);
  EXPECT_EQ(q.scheme, CompressedTensorsScheme::Int4Group128);
  EXPECT_EQ(q.ignore, (std::vector<std::string>{"lm_head"}));
  const std::string fp4 = R"({"quant_method":"compressed-tensors","format":"nvfp4-pack-quantized","config_groups":
    {"group_0":{"weights":{"num_bits":4,"type":"float","symmetric":true,"group_size":16,"strategy":"tensor_group"}}}})";
  EXPECT_EQ(read(fp4).scheme, CompressedTensorsScheme::Nvfp4);
  const auto refused = [&](std::string text, const std::string& from, const std::string& to, const std::string& key) {
    text.replace(text.find(from), from.size(), to);
    try {
      read(text);
      ADD_FAILURE() << "accepted " << to;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  };
  refused(int4, R"("compressed-tensors")", R"("gptq")", "'quantization_config.quant_method'");
  refused(int4, R"("group_size":128)", R"("group_size":64)", "group_size");
  refused(int4, R"("symmetric":true)", R"("symmetric":false)", "symmetric");
  refused(int4, R"("actorder":null)", R"("actorder":"group")", "actorder");
  refused(int4, R"("num_bits":4)", R"("num_bits":8)", "num_bits");
  refused(int4, R"("pack-quantized")", R"("float-quantized")", "format");
}

TEST(Rt4, ConverterRefusesALayerThatIsNotInt4) {
  const SafetensorsCheckpoint c = SafetensorsCheckpoint::open(write_checkpoint("conv.safetensors", 6, 384));
  try {
    convert_compressed_tensors_to_rt4(c, test::scratch_path("conv.rt4"));  // 'f' holds NVFP4 codes
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'f.weight_packed'"), std::string::npos) << e.what();
  }
}

TEST(Rt4, WriterReaderAndConverterAgree) {
  const int64_t n = 6, k = 384;
  const std::vector<float> w = normal(size_t(n * k), 5, 0.05f);
  const PackedInt4 p = pack_int4_group128(w, n, k);
  const std::vector<int64_t> shape = {n, k};
  SafetensorsWriter sw;
  sw.add("model.layers.0.mlp.down_proj.weight_packed", SafetensorsDtype::I32, {uint64_t(n), uint64_t(k / 8)},
         as_bytes(p.packed));
  sw.add("model.layers.0.mlp.down_proj.weight_scale", SafetensorsDtype::BF16, {uint64_t(n), uint64_t(k / 128)},
         as_bytes(p.scale));
  sw.add("model.layers.0.mlp.down_proj.weight_shape", SafetensorsDtype::I64, {2}, as_bytes(shape));
  const std::string ct = test::scratch_path("one.safetensors");
  sw.write(ct);
  const SafetensorsCheckpoint c = SafetensorsCheckpoint::open(ct);
  const std::string path = test::scratch_path("one.rt4");
  int64_t calls = 0;
  const Rt4Conversion r = convert_compressed_tensors_to_rt4(c, path, [&](int64_t, int64_t) { ++calls; });
  EXPECT_EQ(r.layers, 1);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(r.bytes, uint64_t(n * k / 2 + n * (k / 128) * 2));
  const Rt4File f = Rt4File::open(path);
  EXPECT_EQ(f.names("i4"), (std::vector<std::string>{"model.layers.0.mlp.down_proj.weight"}));
  const Rt4Tensor& t = f.at("model.layers.0.mlp.down_proj.weight");
  EXPECT_EQ(t.src_type, "compressed-tensors-int4");
  EXPECT_EQ(t.nbytes, t.q_bytes() + t.s_bytes());
  const W4Matrix m = f.matrix(t);
  // bf16 scales of these magnitudes are exact in f16: the weights are identical
  EXPECT_EQ(m.dequantize(), find_int4_layer(c, "model.layers.0.mlp.down_proj").matrix.dequantize());
  // the GEMM's group-major f32 scales
  const std::vector<float> gm = group_major_scales(m);
  W4Matrix gemm{&kRt4Int4Gemm, n, k, 0, m.codes, as_bytes(gm)};
  gemm.check("gemm");
  EXPECT_EQ(gemm.dequantize(), m.dequantize());
  EXPECT_EQ(gm[size_t(1 * n + 2)], m.scale(2, 1));
}

TEST(Rt4, ManifestErrorsAreNamed) {
  const std::string path = test::scratch_path("bad.rt4");
  const std::vector<uint8_t> q(64), s(2);
  {
    Rt4Writer w(path);
    w.add_i4("a.weight", 1, 128, 128, q, s);
    EXPECT_THROW(w.add_i4("a.weight", 1, 128, 128, q, s), Error);
    EXPECT_THROW(w.add_i4("b.weight", 1, 120, 128, q, s), Error);
    w.finish();
  }
  EXPECT_EQ(Rt4File::open(path).at("a.weight").q_off, 0u);
  const auto manifest = [&](const std::string& text) {
    test::write_file(path + ".json", std::vector<uint8_t>(text.begin(), text.end()));
    try {
      Rt4File::open(path);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(manifest(R"({"format":"RT4-v2","tensors":[]})").find("'format'"), std::string::npos);
  EXPECT_NE(manifest(R"({"format":"RT4-v1","tensors":[{"name":"a","kind":"i4","shape":[1,128],"q_off":60,"s_off":0}]})")
                .find("past the end"),
            std::string::npos);
  EXPECT_NE(manifest(R"({"format":"RT4-v1","tensors":[{"name":"a","kind":"i4","shape":[1,128],"q_off":0,"s_off":2}]})")
                .find("overlaps"),
            std::string::npos);
  EXPECT_NE(manifest(R"({"format":"RT4-v1","tensors":[{"name":"a","kind":"i4","shape":[1,100],"q_off":0,"s_off":64}]})")
                .find("not a multiple"),
            std::string::npos);
  EXPECT_NE(manifest(R"({"format":"RT4-v1","tensors":[{"kind":"i4","shape":[1,128],"q_off":0,"s_off":64}]})")
                .find("'tensors[0].name'"),
            std::string::npos);
  // another kind is listed, and refused as a matrix
  EXPECT_EQ(manifest(R"({"format":"RT4-v1","tensors":[{"name":"n","kind":"f32","shape":[1,16],"q_off":0}]})"), "");
  const Rt4File f = Rt4File::open(path);
  EXPECT_EQ(f.names("f32"), (std::vector<std::string>{"n"}));
  EXPECT_THROW(f.matrix(f.at("n")), Error);
  EXPECT_THROW(Rt4File::open(test::scratch_path("bad.bin")), Error);  // not .rt4
}

// The W4A8 identity of FORMATS.md 4.1: with u = q_w + 8 the GEMV sums
// u * q and corrects by 8 * asum; that must equal the exact sum of q_w * q.
TEST(ActivationQuant, W4A8CodesScalesSumsAndTheUnsignedIdentity) {
  const int64_t m = 2, k = 256, n = 5;
  std::vector<float> x = normal(size_t(m * k), 6);
  std::fill(x.begin(), x.begin() + 128, 0.0f);  // a zero group: scale 1, codes 0
  const QuantizedActivations a = quantize_activations(kActW4A8, x, m, k);
  EXPECT_EQ(a.scale[0], 1.0f);
  for (int64_t r = 0; r < m; ++r)
    for (int64_t g = 0; g < 2; ++g) {
      int32_t sum = 0;
      float amax = 0;
      for (int64_t c = g * 128; c < (g + 1) * 128; ++c) amax = std::max(amax, std::fabs(x[size_t(r * k + c)]));
      for (int64_t c = g * 128; c < (g + 1) * 128; ++c) {
        const int32_t q = a.code(r, c);
        sum += q;
        EXPECT_LE(std::fabs(float(q) * a.group_scale(r, g) - x[size_t(r * k + c)]), 0.5f * a.group_scale(r, g) * 1.0001f);
        EXPECT_EQ(q, int32_t(std::nearbyint(x[size_t(r * k + c)] / a.group_scale(r, g))));
      }
      if (amax > 0) {
        EXPECT_EQ(a.group_scale(r, g), amax / 127.0f);
      }
      EXPECT_EQ(a.sum[size_t(r * 2 + g)], sum);
    }
  // the even/odd streams: ae[m, k/2] = q at even k
  EXPECT_EQ(a.even[size_t(k / 2 + 3)], a.code(1, 6));
  EXPECT_EQ(a.odd[size_t(k / 2 + 3)], a.code(1, 7));

  const PackedInt4 p = pack_int4_group128(normal(size_t(n * k), 7, 0.1f), n, k);
  std::vector<uint8_t> rt4(p.packed.size() * 4);
  offset_to_twos_complement(as_bytes(p.packed), rt4);
  std::vector<uint16_t> s16;
  for (uint16_t b : p.scale) s16.push_back(f32_to_f16(bf16_to_f32(b)));
  W4Matrix w{&kRt4Int4, n, k, 0, rt4, as_bytes(s16)};
  w.check("w");
  const std::vector<float> y = gemv_quantized_reference(w, a);
  for (int64_t r = 0; r < m; ++r)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t g = 0; g < 2; ++g) {
        int64_t dot_u = 0;
        for (int64_t c = g * 128; c < (g + 1) * 128; ++c) {
          const uint8_t byte = rt4[size_t((j * k + c) / 2)];
          const int32_t u = int32_t(((c & 1 ? byte >> 4 : byte & 15) ^ 8));  // q_w + 8, by the bit flip
          dot_u += int64_t(u) * a.code(r, c);
        }
        acc += double(w.scale(j, g)) * a.group_scale(r, g) * double(dot_u - 8 * int64_t(a.sum[size_t(r * 2 + g)]));
      }
      EXPECT_NEAR(y[size_t(r * n + j)], acc, 1e-6 * (1 + std::fabs(acc)));
    }
}

TEST(ActivationQuant, W4A4DecodePrefillAndNvfp4Layouts) {
  const int64_t m = 3, k = 256;
  const std::vector<float> x = normal(size_t(m * k), 8);
  const QuantizedActivations d = quantize_activations(kActW4A4Decode, x, m, k);
  ASSERT_EQ(d.scale.size(), size_t(m * k / 32));
  for (int64_t c = 0; c < 32; ++c) {
    EXPECT_GE(d.code(1, c), -8);
    EXPECT_LE(d.code(1, c), 7);
  }
  // packed nibbles: even k low
  EXPECT_EQ(int(d.packed[size_t(k / 2 + 5)] & 15), d.code(1, 10) & 15);
  EXPECT_EQ(int(d.packed[size_t(k / 2 + 5)] >> 4), d.code(1, 11) & 15);

  // prefill: rows read at a stride and offset, scales group-major [K/128, rows]
  std::vector<float> wide(size_t(m * (k + 16)), 0.0f);
  for (int64_t r = 0; r < m; ++r)
    std::copy(x.begin() + r * k, x.begin() + (r + 1) * k, wide.begin() + r * (k + 16) + 8);
  const QuantizedActivations p = quantize_activations(kActW4A4Prefill, wide, m, k, k + 16, 8);
  const QuantizedActivations p_rows = quantize_activations(kActW4A4Prefill, x, m, k);
  EXPECT_EQ(p.packed, p_rows.packed);
  EXPECT_EQ(p.scale, p_rows.scale);
  EXPECT_EQ(p.scale[size_t(1 * m + 2)], p.group_scale(2, 1));
  EXPECT_THROW(quantize_activations(kActW4A4Prefill, wide, m, k, k + 16, 17), Error);

  const QuantizedActivations f = quantize_activations(kActNvfp4, x, m, k);
  EXPECT_EQ(f.scale.size(), size_t(m * k / 16));
  EXPECT_THROW(quantize_activations(kActNvfp4, x, m, 200), Error);  // 200 is not a multiple of 16
}

// Every quantised path against the float GEMV of the dequantised weights and
// dequantised activations: equal up to f32 rounding (both exact otherwise).
TEST(ActivationQuant, QuantisedGemvEqualsTheDequantisedProduct) {
  const int64_t m = 2, n = 4, k = 256;
  const std::vector<float> w = normal(size_t(n * k), 9, 0.05f), x = normal(size_t(m * k), 10);
  const PackedInt4 p = pack_int4_group128(w, n, k);
  const PackedNvfp4 f = pack_nvfp4(w, n, k);
  const W4Matrix ct{&kCompressedTensorsInt4, n, k, 0, as_bytes(p.packed), as_bytes(p.scale)};
  const W4Matrix fp{&kNvfp4, n, k, 0, f.packed, f.scale, f.global};
  struct Case {
    const W4Matrix* w;
    const ActivationFormat* a;
  };
  for (const Case& c : {Case{&ct, &kActW4A8}, Case{&ct, &kActW4A4Decode}, Case{&ct, &kActW4A4Prefill},
                        Case{&fp, &kActNvfp4}}) {
    SCOPED_TRACE(c.a->name);
    const QuantizedActivations a = quantize_activations(*c.a, x, m, k);
    std::vector<float> xd(size_t(m * k));
    for (int64_t r = 0; r < m; ++r)
      for (int64_t j = 0; j < k; ++j) xd[size_t(r * k + j)] = float(a.code(r, j)) * a.group_scale(r, j / c.a->group);
    const std::vector<float> want = gemv_reference(*c.w, xd, m), got = gemv_quantized_reference(*c.w, a);
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5 * (1 + std::fabs(want[i])));
  }
}

}  // namespace
}  // namespace k100::quant
