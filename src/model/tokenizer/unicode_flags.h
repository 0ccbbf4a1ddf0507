// The per-code-point facts the pre-tokenizers test: the major class of the
// Unicode general category (L, M, N, P, S, Z, C, or unassigned) and the
// White_Space property. Shared by the build-time table generator and the
// lookup so both agree on the bit values.
#pragma once

#include <cstdint>

namespace k100::model::unicode {

enum CodepointFlag : uint16_t {
  kUnassigned = 1u << 0,   // general category Cn (and anything past U+10FFFF)
  kNumber = 1u << 1,       // Nd, Nl, No
  kLetter = 1u << 2,       // Lu, Ll, Lt, Lm, Lo
  kSeparator = 1u << 3,    // Zs, Zl, Zp
  kMark = 1u << 4,         // Mn, Mc, Me
  kPunctuation = 1u << 5,  // Pc, Pd, Ps, Pe, Pi, Pf, Po
  kSymbol = 1u << 6,       // Sm, Sc, Sk, So
  kControl = 1u << 7,      // Cc, Cf, Cs, Co
  kClassMask = 0xFF,
  kWhitespace = 1u << 8,   // PropList.txt White_Space
};

// One row of the generated range table: code points from `first` up to the
// next row's `first` share `flags`.
struct CodepointRange {
  uint32_t first;
  uint16_t flags;
};

// A simple (one to one) case mapping from UnicodeData.txt field 13.
struct CaseMapping {
  uint32_t from;
  uint32_t to;
};

}  // namespace k100::model::unicode
