// unicode_tables_gen: the code point tables of the pre-tokenizers, generated
// at build time from the Unicode Character Database that Debian's
// `unicode-data` package installs (/usr/share/unicode).
//
//   unicode_tables_gen UnicodeData.txt PropList.txt OUT.inc
//
// OUT.inc holds the Unicode version (from PropList.txt's first line), a range
// table of the major general-category class plus the White_Space bit for all
// of U+0000..U+10FFFF (runs of equal flags merged), and the simple lowercase
// mappings. Errors name the file and line.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "unicode_flags.h"

namespace {

using namespace k100::model::unicode;

constexpr uint32_t kCodepoints = 0x110000;

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  std::cerr << "unicode_tables_gen: " << where << ": " << what << "\n";
  std::exit(1);
}

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : line) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  size_t e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

uint32_t parse_hex(const std::string& s, const std::string& where) {
  if (s.empty() || s.size() > 6) fail(where, "bad code point '" + s + "'");
  uint32_t v = 0;
  for (char c : s) {
    int d = (c >= '0' && c <= '9') ? c - '0' : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
    if (d < 0) fail(where, "bad code point '" + s + "'");
    v = v * 16 + uint32_t(d);
  }
  if (v >= kCodepoints) fail(where, "code point " + s + " past U+10FFFF");
  return v;
}

// The major class of a two-letter general category.
uint16_t class_of(const std::string& cat, const std::string& where) {
  if (cat.size() != 2) fail(where, "bad general category '" + cat + "'");
  if (cat == "Cn") return kUnassigned;
  switch (cat[0]) {
    case 'L': return kLetter;
    case 'M': return kMark;
    case 'N': return kNumber;
    case 'P': return kPunctuation;
    case 'S': return kSymbol;
    case 'Z': return kSeparator;
    case 'C': return kControl;
  }
  fail(where, "bad general category '" + cat + "'");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: unicode_tables_gen UnicodeData.txt PropList.txt OUT.inc\n";
    return 2;
  }
  const std::string data_path = argv[1], props_path = argv[2], out_path = argv[3];

  std::vector<uint16_t> flags(kCodepoints, kUnassigned);
  std::vector<CaseMapping> lower;

  std::ifstream data(data_path);
  if (!data) fail(data_path, "cannot open (install Debian's unicode-data package)");
  std::string line;
  int lineno = 0;
  uint32_t range_first = 0;
  bool in_range = false;
  size_t assigned = 0;
  while (std::getline(data, line)) {
    ++lineno;
    if (trim(line).empty()) continue;
    const std::string where = data_path + ":" + std::to_string(lineno);
    std::vector<std::string> f = split(line, ';');
    if (f.size() != 15) fail(where, "expected 15 fields, found " + std::to_string(f.size()));
    const uint32_t cp = parse_hex(f[0], where);
    const uint16_t cls = class_of(f[2], where);
    const std::string& name = f[1];
    // Large blocks are given as a <..., First> / <..., Last> pair of lines.
    if (name.size() > 8 && name.compare(name.size() - 8, 8, ", First>") == 0) {
      range_first = cp;
      in_range = true;
      continue;
    }
    uint32_t first = cp;
    if (name.size() > 7 && name.compare(name.size() - 7, 7, ", Last>") == 0) {
      if (!in_range || range_first > cp) fail(where, "<..., Last> without its <..., First>");
      first = range_first;
    }
    in_range = false;
    for (uint32_t c = first; c <= cp; ++c) flags[c] = cls;
    assigned += cp - first + 1;
    if (!trim(f[13]).empty()) lower.push_back({cp, parse_hex(trim(f[13]), where)});
  }
  if (assigned == 0) fail(data_path, "no code points");

  std::ifstream props(props_path);
  if (!props) fail(props_path, "cannot open (install Debian's unicode-data package)");
  std::string version;
  lineno = 0;
  size_t whitespace = 0;
  while (std::getline(props, line)) {
    ++lineno;
    const std::string where = props_path + ":" + std::to_string(lineno);
    if (lineno == 1) {
      // "# PropList-15.0.0.txt"
      size_t dash = line.find('-'), dot = line.rfind(".txt");
      if (dash == std::string::npos || dot == std::string::npos || dot <= dash) fail(where, "no version in the first line");
      version = line.substr(dash + 1, dot - dash - 1);
    }
    std::string content = line.substr(0, line.find('#'));
    if (trim(content).empty()) continue;
    std::vector<std::string> f = split(content, ';');
    if (f.size() != 2) fail(where, "expected 'range ; property'");
    if (trim(f[1]) != "White_Space") continue;
    std::string range = trim(f[0]);
    size_t dots = range.find("..");
    uint32_t a = parse_hex(range.substr(0, dots), where);
    uint32_t b = dots == std::string::npos ? a : parse_hex(range.substr(dots + 2), where);
    for (uint32_t c = a; c <= b; ++c) flags[c] |= kWhitespace;
    whitespace += b - a + 1;
  }
  if (whitespace == 0) fail(props_path, "no White_Space entries");

  std::ostringstream out;
  out << "// Generated by unicode_tables_gen from UnicodeData.txt and PropList.txt\n"
      << "// (Unicode " << version << "); do not edit.\n"
      << "inline constexpr char kUnicodeVersion[] = \"" << version << "\";\n"
      << "inline constexpr CodepointRange kCodepointRanges[] = {\n";
  size_t rows = 0;
  char buf[64];
  for (uint32_t c = 0; c < kCodepoints; ++c) {
    if (c > 0 && flags[c] == flags[c - 1]) continue;
    std::snprintf(buf, sizeof buf, "{0x%06X, 0x%03X},", c, unsigned(flags[c]));
    out << buf << ((++rows % 6) ? " " : "\n");
  }
  std::snprintf(buf, sizeof buf, "{0x%06X, 0x%03X},\n};\n", kCodepoints, unsigned(kUnassigned));
  out << buf;
  out << "inline constexpr CaseMapping kLowercase[] = {\n";
  for (size_t i = 0; i < lower.size(); ++i) {
    std::snprintf(buf, sizeof buf, "{0x%06X, 0x%06X},", lower[i].from, lower[i].to);
    out << buf << (((i + 1) % 6) ? " " : "\n");
  }
  out << "\n};\n";

  std::ofstream o(out_path);
  o << out.str();
  if (!o) fail(out_path, "cannot write");
  return 0;
}
