#pragma once
// Integer expressions over named symbols: launch rules, constraints, flops and bytes formulas.
// Grammar (C precedence): ?:, ||, &&, == !=, < <= > >=, + -, * / %, unary - ! +,
// integers, identifiers, parentheses, and the functions ceil_div(a,b), min(a,b,...), max(a,b,...).
// Division truncates as in C; division or modulo by zero is an error, not a value.
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>

namespace hone {

using Bindings = std::map<std::string, std::int64_t>;

struct ExprError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ExprNode;

class Expr {
 public:
  Expr() = default;
  /// Parses text; throws ExprError naming the position of the problem.
  static Expr parse(const std::string& text);
  /// A constant expression.
  static Expr constant(std::int64_t value);

  /// Evaluates with the given symbols; throws ExprError on an unbound symbol or division by zero.
  std::int64_t eval(const Bindings& symbols) const;
  /// The same expression with the given symbols replaced by their values, e.g. binding
  /// BLOCK=256 in "ceil_div(tokens, BLOCK)" gives "ceil_div(tokens, 256)".
  Expr bind(const Bindings& symbols) const;
  /// The identifiers the expression reads.
  std::set<std::string> symbols() const;
  const std::string& text() const { return text_; }
  bool empty() const { return !root_; }

 private:
  std::string text_;
  std::shared_ptr<const ExprNode> root_;
};

}  // namespace hone
