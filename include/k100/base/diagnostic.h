// k100lc base: source locations and diagnostics with carets.
//
// The assembler, the code-object directives and the DSL compiler report
// problems as Diagnostics: a location (file, line, column), a severity, a
// message, and the source line so the caret can be drawn under the column.
// A DiagnosticSink collects them so a whole file is checked before failing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace k100 {

struct SourceLoc {
  std::string file;   // as given by the user ("<stdin>" for standard input)
  uint32_t line = 0;  // 1-based; 0 = no location
  uint32_t col = 0;   // 1-based
};

enum class Severity { Note, Warning, Error };

struct Diagnostic {
  Severity severity = Severity::Error;
  SourceLoc loc;
  std::string message;
  std::string source_line;  // the text of loc.line, for the caret display

  // "file:line:col: error: message\n<source line>\n     ^"
  std::string format() const;
};

class DiagnosticSink {
 public:
  explicit DiagnosticSink(size_t error_limit = 100) : error_limit_(error_limit) {}

  void report(Diagnostic d);
  void error(const SourceLoc& loc, std::string message, std::string source_line = {});
  void warning(const SourceLoc& loc, std::string message, std::string source_line = {});

  size_t error_count() const { return errors_; }
  bool has_errors() const { return errors_ > 0; }
  // True once error_limit errors were reported; callers stop checking then.
  bool limit_reached() const { return errors_ >= error_limit_; }
  const std::vector<Diagnostic>& diagnostics() const { return diags_; }
  // All diagnostics, formatted, one after another.
  std::string format_all() const;
  void clear() { diags_.clear(); errors_ = 0; }

 private:
  size_t error_limit_;
  size_t errors_ = 0;
  std::vector<Diagnostic> diags_;
};

}  // namespace k100
