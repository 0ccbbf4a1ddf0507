// k100lc model: decoding generated tokens as they arrive.
//
// A token's piece can end in the middle of a UTF-8 sequence (byte tokens,
// byte-level BPE pieces of a multi-byte character); printing it at once
// would show broken characters. TextStream holds such a tail back until the
// sequence completes.
#pragma once

#include <string>

#include "k100/model/tokenizer.h"

namespace k100::model {

// Turns a stream of generated ids into text as it comes: a piece that ends
// inside a UTF-8 sequence is held back until the sequence completes, so every
// string returned is whole characters (a sequence that can no longer
// complete is released as it is).
class TextStream {
 public:
  explicit TextStream(const Tokenizer& tokenizer, bool special = false);
  // The text that is complete after this token.
  std::string push(TokenId id);
  // Whatever is still held back.
  std::string flush();

 private:
  Tokenizer tokenizer_;
  bool special_;
  std::string pending_;
};

}  // namespace k100::model
