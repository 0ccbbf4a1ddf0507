// Code point facts and UTF-8 handling for the tokenizers.
//
// The decoding rules are deliberately those of the GGUF tokenizers as
// llama.cpp runs them, because a tokenizer has to produce the same ids for
// the same bytes: a sequence's length comes from its lead byte, its
// continuation bytes are checked, overlong forms and surrogates are accepted,
// and every byte that does not start a well-formed sequence becomes one
// U+FFFD. (Sequences that would decode past U+10FFFF are also replaced, byte
// by byte.)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "unicode_flags.h"

namespace k100::model::unicode {

// The flags of a code point (never 0; kUnassigned past U+10FFFF).
uint16_t flags_of(uint32_t cp);
// The simple lowercase mapping (the code point itself when it has none).
uint32_t to_lower(uint32_t cp);
// The version of the Unicode Character Database the tables were built from.
const char* tables_version();

// Bytes of the sequence a lead byte announces, from its top four bits
// (1 for ASCII and for stray continuation bytes).
inline size_t sequence_length(uint8_t lead) {
  static constexpr uint8_t kLength[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
  return kLength[lead >> 4];
}

inline constexpr uint32_t kReplacement = 0xFFFD;

// Code points of `text` under the rules above.
std::vector<uint32_t> decode_lenient(std::string_view text);
// Appends the UTF-8 form of a code point (<= U+10FFFF).
void append_utf8(std::string& out, uint32_t cp);

// GPT-2's byte-level alphabet: every byte value is shown as a printable code
// point (the printable Latin-1 bytes as themselves, the rest from U+0100 on).
uint32_t byte_to_codepoint(uint8_t byte);
// The byte a code point of that alphabet stands for, or -1.
int codepoint_to_byte(uint32_t cp);

}  // namespace k100::model::unicode
