// Instruction statements, text to syntax: the operands (registers, numbers,
// expressions, hwreg/sendmsg/waitcnt and other symbolic immediates, source
// modifiers) and modifiers of a statement, read the way llvm reads them for
// its mnemonic (syntax.h). Throws detail::Failure on a problem.
#pragma once

#include <vector>

#include "expression.h"
#include "lexer.h"
#include "syntax.h"

namespace k100::as::detail {

// tokens[0] is the mnemonic; the statement ends with Tok::End. `out` is
// cleared first (its vectors keep their capacity between statements).
void parse_syntax(const std::vector<Token>& tokens, const SymbolLookup& lookup, Syntax& out);

}  // namespace k100::as::detail
