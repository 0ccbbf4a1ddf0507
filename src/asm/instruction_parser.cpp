// Instruction statements: the text read into syntax (syntax_parser.cpp), then
// matched against the candidate encodings (operand_matcher.cpp).
#include "instruction_parser.h"

#include "parse_failure.h"
#include "syntax.h"
#include "syntax_parser.h"

namespace k100::as {

bool InstructionParser::parse(const std::vector<Token>& tokens, ParsedInstruction& out, ParseError& err) const {
  thread_local Syntax syn;  // reused: its vectors keep their capacity
  try {
    detail::parse_syntax(tokens, lookup_, syn);
  } catch (const detail::Failure& f) {
    err.col = f.col ? f.col : tokens[0].col;
    err.message = f.message;
    return false;
  }
  return match_syntax(tokens[0].text, tokens[0].col, syn, target_, out, err);
}

}  // namespace k100::as
