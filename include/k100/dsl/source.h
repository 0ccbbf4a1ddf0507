// k100lc dsl: a .kkl source held in memory, and errors reported against it.
//
// Every step of the front end reports problems through a DiagnosticSink with
// the location of the offending token and the text of its line, so the
// caret can be drawn under the column. SourceText is what lets a step that
// only has a SourceLoc find that line again.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "k100/base/diagnostic.h"

namespace k100::dsl {

class SourceText {
 public:
  SourceText(std::string file, std::string_view text);

  const std::string& file() const { return file_; }
  const std::string& text() const { return text_; }
  // The text of 1-based line `line` without its newline ("" when out of range).
  std::string line(uint32_t line) const;
  SourceLoc loc(uint32_t line, uint32_t col) const { return SourceLoc{file_, line, col}; }

 private:
  std::string file_;
  std::string text_;
  std::vector<size_t> line_starts_;
};

// Reports an error at `loc` with the source line attached.
void report_error(DiagnosticSink& sink, const SourceText& src, const SourceLoc& loc, std::string message);

}  // namespace k100::dsl
