#include "k100/base/diagnostic.h"

namespace k100 {

std::string Diagnostic::format() const {
  std::string out;
  if (!loc.file.empty()) {
    out += loc.file;
    out += ':';
  }
  if (loc.line) {
    out += std::to_string(loc.line) + ':' + std::to_string(loc.col) + ':';
  }
  if (!out.empty()) out += ' ';
  switch (severity) {
    case Severity::Error: out += "error: "; break;
    case Severity::Warning: out += "warning: "; break;
    case Severity::Note: out += "note: "; break;
  }
  out += message;
  out += '\n';
  if (!source_line.empty()) {
    out += source_line;
    out += '\n';
    // Keep tabs so the caret lines up under tab-indented source.
    for (uint32_t i = 1; i < loc.col && i <= source_line.size(); ++i)
      out += source_line[i - 1] == '\t' ? '\t' : ' ';
    out += "^\n";
  }
  return out;
}

void DiagnosticSink::report(Diagnostic d) {
  if (d.severity == Severity::Error) ++errors_;
  diags_.push_back(std::move(d));
}

void DiagnosticSink::error(const SourceLoc& loc, std::string message, std::string source_line) {
  report(Diagnostic{Severity::Error, loc, std::move(message), std::move(source_line)});
}

void DiagnosticSink::warning(const SourceLoc& loc, std::string message, std::string source_line) {
  report(Diagnostic{Severity::Warning, loc, std::move(message), std::move(source_line)});
}

std::string DiagnosticSink::format_all() const {
  std::string out;
  for (const auto& d : diags_) out += d.format();
  return out;
}

}  // namespace k100
