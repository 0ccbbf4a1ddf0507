#include "k100/dsl/source.h"

namespace k100::dsl {

SourceText::SourceText(std::string file, std::string_view text) : file_(std::move(file)), text_(text) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
}

std::string SourceText::line(uint32_t line) const {
  if (line == 0 || line > line_starts_.size()) return {};
  size_t begin = line_starts_[line - 1];
  size_t end = text_.find('\n', begin);
  if (end == std::string::npos) end = text_.size();
  if (end > begin && text_[end - 1] == '\r') --end;
  return text_.substr(begin, end - begin);
}

void report_error(DiagnosticSink& sink, const SourceText& src, const SourceLoc& loc, std::string message) {
  sink.error(loc, std::move(message), src.line(loc.line));
}

}  // namespace k100::dsl
