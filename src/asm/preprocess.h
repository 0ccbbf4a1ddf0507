// The text-level part of the assembler: splitting a source into lines with
// comments blanked out, and the pieces of the macro language (.macro, .rept,
// .irp, .irpc) that work on text alone: argument lists and substitution.
// The assembler driver (assembler.cpp) runs the directives themselves, so
// `.rept COUNT` can use symbols defined with .set earlier in the file.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "lexer.h"

namespace k100::as {

// Splits `src` into lines (`raw`, without the newline and a trailing '\r') and
// the same lines with comments (';', '//', '/* */', '#' lines) replaced by
// blanks so columns stay put (`clean`). Lines without a comment are views into
// `src`; the others live in `storage`.
void split_source(std::string_view src, std::vector<std::string_view>& raw, std::vector<std::string_view>& clean,
                  std::deque<std::string>& storage);

// True when `src` may use .macro, .rept, .irp, .irpc, .include or the
// conditionals (.if, .ifdef, ...); sources without any of them are assembled
// line by line without the macro machinery.
bool needs_preprocessing(std::string_view src);

// The first word of a line (an identifier or directive name), "" when none.
std::string_view first_word(std::string_view line);

struct MacroParam {
  std::string name;
  std::string default_value;
  bool required = false;  // NAME:req
  bool vararg = false;    // NAME:vararg (the rest of the line, commas included)
};

// One argument of a macro invocation or an .irp list.
struct MacroArg {
  std::string name;  // NAME=value; "" for a positional argument
  std::string value;
  uint32_t col = 0;  // column of the argument (of NAME for a named one)
};

// Reads one macro argument (or a parameter's default value) from toks[p] on,
// leaving p at the ',' or the token after it; see split_macro_args.
std::string macro_value(const std::vector<Token>& toks, size_t& p, std::string& value, uint32_t* err_col);

// Splits the arguments starting at toks[p] the way GNU as and llvm-mc do:
// commas separate arguments, and so do blanks unless they stand next to an
// operator ("a + b" is one argument, "a b" two); parentheses group; quoted
// strings lose their quotes; the tokens of an argument are joined without
// blanks. `vararg_index` is the position of a vararg parameter (SIZE_MAX for
// none): that argument takes the rest of `line` as written. `named` allows
// NAME=value arguments. Returns "" or an error message with its column in *err_col.
std::string split_macro_args(std::string_view line, const std::vector<Token>& toks, size_t p, size_t vararg_index,
                             bool named, std::vector<MacroArg>& out, uint32_t* err_col);

// A run of substituted text: output columns from `out` on come from input
// columns from `in` on (a literal run), or all stand for input column `in`
// (a substituted argument).
struct ColumnSegment {
  uint32_t out = 0;  // 0-based offset in the substituted line
  uint32_t in = 0;   // 0-based offset in the original line
  bool literal = true;
};

// Substitutes `\name` for the parameters in `names` (values in `values`),
// `\@` for `at` when `at_enabled`, and drops `\()`; any other backslash is
// kept. Fills `segments` (cleared first) with the column mapping; returns
// false when nothing was substituted (the line is unchanged).
bool substitute(std::string_view line, const std::vector<std::string_view>& names,
                const std::vector<std::string_view>& values, bool at_enabled, uint64_t at, std::string& out,
                std::vector<ColumnSegment>& segments);

// Maps a 1-based column of a substituted line back to the original line.
uint32_t map_column(const std::vector<ColumnSegment>& segments, uint32_t col);

// "dir/name" (just "name" when it is absolute or dir is empty).
std::string join_path(const std::string& dir, const std::string& name);
// The directory part of a path, "" for a bare file name.
std::string dir_of(const std::string& path);

}  // namespace k100::as
