// k100lc model: stop strings in streamed text.
//
// Generation that must end at a string (llama.cpp's reverse prompt, the
// `stop` of an OpenAI request) sees the text a piece at a time, and a stop
// string can span pieces. StopStrings holds back the end of the text that
// could still be the start of a stop string, releases the rest, and says
// when one has appeared: the text before it is released, and the stop
// string itself too when it is to be shown (a reverse prompt is printed, an
// OpenAI stop string is not).
#pragma once

#include <string>
#include <vector>

namespace k100::model {

class StopStrings {
 public:
  // Empty strings are ignored.
  StopStrings(std::vector<std::string> stops, bool show_stop);
  // Adds text; returns the text that can be released now (nothing more once
  // a stop string has appeared).
  std::string push(const std::string& text);
  // The text still held back (at the end of generation).
  std::string flush();
  bool stopped() const { return !matched_.empty(); }
  // The stop string that appeared ("" when none has).
  const std::string& matched() const { return matched_; }

 private:
  std::vector<std::string> stops_;
  bool show_;
  std::string pending_, matched_;
};

}  // namespace k100::model
