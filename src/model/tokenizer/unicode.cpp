#include "unicode.h"

#include <algorithm>
#include <array>

namespace k100::model::unicode {
namespace {

#include "unicode_tables.inc"

// The byte-level alphabet, both ways.
struct ByteAlphabet {
  std::array<uint32_t, 256> to_cp{};
  std::array<int16_t, 324> to_byte{};  // indexed by code point, all below U+0144
  ByteAlphabet() {
    to_byte.fill(-1);
    auto printable = [](int b) { return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF); };
    uint32_t next = 0x100;
    for (int b = 0; b < 256; ++b) to_cp[b] = printable(b) ? uint32_t(b) : next++;
    for (int b = 0; b < 256; ++b) to_byte[to_cp[b]] = int16_t(b);
  }
};

const ByteAlphabet& byte_alphabet() {
  static const ByteAlphabet a;
  return a;
}

bool is_continuation(uint8_t b) { return (b & 0xC0) == 0x80; }

}  // namespace

uint16_t flags_of(uint32_t cp) {
  if (cp >= 0x110000) return kUnassigned;
  // the last row whose first code point is <= cp
  const auto* end = std::end(kCodepointRanges);
  const auto* it = std::upper_bound(std::begin(kCodepointRanges), end, cp,
                                    [](uint32_t v, const CodepointRange& r) { return v < r.first; });
  return (it - 1)->flags;
}

uint32_t to_lower(uint32_t cp) {
  const auto* end = std::end(kLowercase);
  const auto* it = std::lower_bound(std::begin(kLowercase), end, cp,
                                    [](const CaseMapping& m, uint32_t v) { return m.from < v; });
  return (it != end && it->from == cp) ? it->to : cp;
}

const char* tables_version() { return kUnicodeVersion; }

std::vector<uint32_t> decode_lenient(std::string_view text) {
  std::vector<uint32_t> out;
  out.reserve(text.size());
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    const uint8_t b = s[i];
    size_t len = 0;
    uint32_t cp = 0;
    if (b < 0x80) {
      len = 1;
      cp = b;
    } else if ((b & 0xE0) == 0xC0) {
      len = 2;
      cp = b & 0x1F;
    } else if ((b & 0xF0) == 0xE0) {
      len = 3;
      cp = b & 0x0F;
    } else if ((b & 0xF8) == 0xF0) {
      len = 4;
      cp = b & 0x07;
    }
    bool ok = len > 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) {
      ok = is_continuation(s[i + k]);
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    if (ok && cp < 0x110000) {
      out.push_back(cp);
      i += len;
    } else {
      out.push_back(kReplacement);
      i += 1;
    }
  }
  return out;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}

uint32_t byte_to_codepoint(uint8_t byte) { return byte_alphabet().to_cp[byte]; }

int codepoint_to_byte(uint32_t cp) {
  const auto& a = byte_alphabet();
  return cp < a.to_byte.size() ? a.to_byte[cp] : -1;
}

}  // namespace k100::model::unicode
