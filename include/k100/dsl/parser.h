// k100lc dsl: the parser, tokens → Module (ast.h).
//
// Recursive descent over Python's grammar for the subset the DSL accepts:
// top-level `def`s (optionally decorated `@inline`), constants
// (`NAME = expr`) and imports (ignored, so a file can also be valid Python
// for editors); statements and expressions with Python's precedence. Every
// construct outside the subset is refused by name with what is allowed
// instead. After an error the parser skips to the next statement, so one
// run reports the errors of a whole file.
#pragma once

#include <vector>

#include "k100/base/diagnostic.h"
#include "k100/dsl/ast.h"
#include "k100/dsl/lexer.h"
#include "k100/dsl/source.h"

namespace k100::dsl {

Module parse(const SourceText& src, const std::vector<Token>& tokens, DiagnosticSink& sink);

// lex + parse.
Module parse_source(const SourceText& src, DiagnosticSink& sink);

}  // namespace k100::dsl
