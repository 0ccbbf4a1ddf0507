#include "k100/asm/disassembler.h"

#include <cctype>
#include <cstdio>

#include "lexer.h"

namespace k100::as {

ByteGroups parse_byte_lists(std::string_view text, const std::string& filename, DiagnosticSink& diags) {
  ByteGroups out;
  size_t start = 0;
  uint32_t lineno = 0;
  bool in_group = false;
  std::vector<uint8_t> stream;
  SourceLoc stream_loc;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(start, end - start));
    ++lineno;
    std::string raw = line;
    for (size_t i = 0; i < line.size(); ++i)
      if (line[i] == '#' || line[i] == ';') {
        line.resize(i);
        break;
      }
    size_t i = 0;
    while (i < line.size()) {
      char c = line[i];
      if (std::isspace(uint8_t(c)) || c == ',') {
        ++i;
        continue;
      }
      SourceLoc l{filename, lineno, uint32_t(i + 1)};
      if (c == '[') {
        if (in_group) {
          diags.error(l, "nested '['", raw);
          return out;
        }
        in_group = true;
        out.groups.emplace_back();
        out.locs.push_back(l);
        out.bracketed.push_back(true);
        ++i;
        continue;
      }
      if (c == ']') {
        if (!in_group) {
          diags.error(l, "']' without '['", raw);
          return out;
        }
        in_group = false;
        ++i;
        continue;
      }
      size_t j = i;
      while (j < line.size() && (std::isalnum(uint8_t(line[j])))) ++j;
      std::string tok = line.substr(i, j - i);
      if (tok.empty()) {
        diags.error(l, std::string("invalid character '") + c + "' in byte list", raw);
        return out;
      }
      char* endp = nullptr;
      unsigned long v = std::strtoul(tok.c_str(), &endp, 0);
      if (*endp != 0 || v > 255) {
        diags.error(l, "invalid input token '" + tok + "': expected a byte value 0..255", raw);
        return out;
      }
      if (in_group) {
        out.groups.back().push_back(uint8_t(v));
      } else {
        if (stream.empty()) stream_loc = l;
        stream.push_back(uint8_t(v));
      }
      i = j;
    }
    if (end == text.size()) break;
    start = end + 1;
  }
  if (in_group) diags.error(out.locs.back(), "missing ']'", "");
  if (!stream.empty()) {
    out.groups.push_back(stream);
    out.locs.push_back(stream_loc);
    out.bracketed.push_back(false);
  }
  return out;
}

std::string encoding_comment(const std::vector<uint8_t>& bytes, const std::vector<bool>& fixup) {
  std::string out = "; encoding: [";
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i) out += ',';
    if (i < fixup.size() && fixup[i]) {
      out += 'A';
      continue;
    }
    char b[8];
    std::snprintf(b, sizeof b, "0x%02x", bytes[i]);
    out += b;
  }
  return out + "]";
}

std::string show_encoding_line(const std::string& text, const std::vector<uint8_t>& bytes,
                               const std::vector<bool>& fixup) {
  std::string out = "\t" + text;
  size_t col = text.size();
  if (col < 40) out += std::string(40 - col, ' ');
  else out += ' ';
  return out + encoding_comment(bytes, fixup);
}

std::vector<DisasmLine> disassemble(std::span<const uint8_t> bytes, isa::Target target, uint64_t base) {
  std::vector<DisasmLine> out;
  size_t pos = 0;
  while (pos + 4 <= bytes.size()) {
    isa::Decoded d = isa::decode(bytes.subspan(pos), target);
    DisasmLine l;
    l.offset = base + pos;
    if (d.ok) {
      l.text = isa::print(d.inst);
      l.bytes.assign(bytes.begin() + long(pos), bytes.begin() + long(pos + d.size));
      pos += d.size;
    } else {
      uint32_t w = uint32_t(bytes[pos]) | uint32_t(bytes[pos + 1]) << 8 | uint32_t(bytes[pos + 2]) << 16 |
                   uint32_t(bytes[pos + 3]) << 24;
      char buf[32];
      std::snprintf(buf, sizeof buf, ".long 0x%08x", w);
      l.text = buf;
      l.ok = false;
      l.bytes.assign(bytes.begin() + long(pos), bytes.begin() + long(pos + 4));
      pos += 4;
    }
    out.push_back(std::move(l));
  }
  if (pos < bytes.size()) {
    DisasmLine l;
    l.offset = base + pos;
    l.ok = false;
    std::string t = ".byte ";
    for (size_t i = pos; i < bytes.size(); ++i) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "%s0x%02x", i > pos ? ", " : "", bytes[i]);
      t += buf;
      l.bytes.push_back(bytes[i]);
    }
    l.text = t;
    out.push_back(l);
  }
  return out;
}

}  // namespace k100::as
