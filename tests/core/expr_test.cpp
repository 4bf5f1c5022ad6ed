#include <doctest/doctest.h>

#include "core/expr.hpp"

using hone::Expr;
using hone::ExprError;

TEST_CASE("expr: arithmetic follows C precedence and truncating division") {
  CHECK(Expr::parse("1 + 2 * 3").eval({}) == 7);
  CHECK(Expr::parse("(1 + 2) * 3").eval({}) == 9);
  CHECK(Expr::parse("7 / 2").eval({}) == 3);
  CHECK(Expr::parse("7 % 4").eval({}) == 3);
  CHECK(Expr::parse("-3 + 5").eval({}) == 2);
  CHECK(Expr::parse("10 - 2 - 3").eval({}) == 5);
  CHECK(Expr::parse("100 / 10 / 5").eval({}) == 2);
}

TEST_CASE("expr: symbols and functions") {
  hone::Bindings b{{"tokens", 7}, {"BLOCK", 256}, {"hidden", 4096}};
  CHECK(Expr::parse("ceil_div(tokens, 4)").eval(b) == 2);
  CHECK(Expr::parse("ceil_div(hidden, BLOCK * 8)").eval(b) == 2);
  CHECK(Expr::parse("min(BLOCK, tokens * 32, 1024)").eval(b) == 224);
  CHECK(Expr::parse("max(1, tokens / 8)").eval(b) == 1);
  CHECK(Expr::parse("hidden % (BLOCK*2) == 0 && BLOCK <= 1024").eval(b) == 1);
  CHECK(Expr::parse("tokens > 8 ? 1 : 2").eval(b) == 2);
  CHECK(Expr::parse("!(tokens < 8)").eval(b) == 0);
  CHECK(Expr::parse("tokens != 7 || BLOCK >= 256").eval(b) == 1);
  auto syms = Expr::parse("ceil_div(tokens, ROWS) * BLOCK").symbols();
  CHECK(syms == std::set<std::string>{"BLOCK", "ROWS", "tokens"});
}

TEST_CASE("expr: errors name the problem") {
  CHECK_THROWS_WITH_AS(Expr::parse("1 +"), doctest::Contains("unexpected end"), ExprError);
  CHECK_THROWS_WITH_AS(Expr::parse("2 * (3"), doctest::Contains("expected ')'"), ExprError);
  CHECK_THROWS_WITH_AS(Expr::parse("1.5"), doctest::Contains("only integers"), ExprError);
  CHECK_THROWS_WITH_AS(Expr::parse("pow(2, 3)"), doctest::Contains("unknown function 'pow'"), ExprError);
  CHECK_THROWS_WITH_AS(Expr::parse("ceil_div(1)"), doctest::Contains("two arguments"), ExprError);
  CHECK_THROWS_WITH_AS(Expr::parse("a b"), doctest::Contains("unexpected 'b'"), ExprError);
  CHECK_THROWS_WITH_AS(Expr::parse("x / 0").eval({{"x", 1}}), doctest::Contains("division by zero"), ExprError);
  CHECK_THROWS_WITH_AS(Expr::parse("x % y").eval({{"x", 1}, {"y", 0}}), doctest::Contains("modulo by zero"), ExprError);
  CHECK_THROWS_WITH_AS(Expr::parse("tokens + 1").eval({}), doctest::Contains("unknown symbol 'tokens'"), ExprError);
}
