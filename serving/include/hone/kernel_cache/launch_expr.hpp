#pragma once
// The integer expressions of a manifest's launch rules and argument values, evaluated at a
// runtime shape. The grammar is hone's (FORMAT.md): C precedence for ?:, ||, &&, == !=,
// < <= > >=, + -, * / %, unary - ! +; integers, symbols, parentheses, ceil_div(a,b),
// min(a,...), max(a,...). Division truncates as in C; dividing by zero is an error.
// Evaluated while parsing: the branch not taken (of ?:, && and ||) is parsed with errors off,
// so "n > 0 ? m / n : 0" is fine at n = 0, as in C.
#include <cctype>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hone/kernel_cache/error.hpp"

namespace hone::kernel_cache {

using Shape = std::map<std::string, std::int64_t>;

namespace detail {

class ExprEvaluator {
 public:
  ExprEvaluator(const std::string& text, const Shape& shape) : s_(text), shape_(shape) {}

  std::int64_t run() {
    const std::int64_t v = ternary(true);
    skip_space();
    if (pos_ != s_.size()) fail("unexpected '" + s_.substr(pos_) + "'");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw KernelCacheError("in expression '" + s_ + "': " + what);
  }
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  // Consumes `op` when it comes next (and is not the start of a longer operator).
  bool take(const std::string& op) {
    skip_space();
    if (s_.compare(pos_, op.size(), op) != 0) return false;
    const char next = pos_ + op.size() < s_.size() ? s_[pos_ + op.size()] : '\0';
    if (op.size() == 1 && next == '=' && std::string("<>!=").find(op) != std::string::npos) return false;
    if ((op == "&" || op == "|") && next == op[0]) return false;
    pos_ += op.size();
    return true;
  }
  void expect(const std::string& op) {
    if (!take(op)) fail("expected '" + op + "' at position " + std::to_string(pos_));
  }

  std::int64_t ternary(bool live) {
    const std::int64_t c = logical_or(live);
    if (!take("?")) return c;
    const std::int64_t a = ternary(live && c);
    expect(":");
    const std::int64_t b = ternary(live && !c);
    return c ? a : b;
  }
  std::int64_t logical_or(bool live) {
    std::int64_t l = logical_and(live);
    while (take("||")) {
      const std::int64_t r = logical_and(live && !l);
      l = l || r;
    }
    return l;
  }
  std::int64_t logical_and(bool live) {
    std::int64_t l = equality(live);
    while (take("&&")) {
      const std::int64_t r = equality(live && l);
      l = l && r;
    }
    return l;
  }
  std::int64_t equality(bool live) {
    std::int64_t l = relational(live);
    for (;;) {
      if (take("==")) l = l == relational(live);
      else if (take("!=")) l = l != relational(live);
      else return l;
    }
  }
  std::int64_t relational(bool live) {
    std::int64_t l = additive(live);
    for (;;) {
      if (take("<=")) l = l <= additive(live);
      else if (take(">=")) l = l >= additive(live);
      else if (take("<")) l = l < additive(live);
      else if (take(">")) l = l > additive(live);
      else return l;
    }
  }
  std::int64_t additive(bool live) {
    std::int64_t l = multiplicative(live);
    for (;;) {
      if (take("+")) l += multiplicative(live);
      else if (take("-")) l -= multiplicative(live);
      else return l;
    }
  }
  std::int64_t multiplicative(bool live) {
    std::int64_t l = unary(live);
    for (;;) {
      if (take("*")) {
        l *= unary(live);
      } else if (take("/") || take("%")) {
        const bool div = s_[pos_ - 1] == '/';
        const std::int64_t r = unary(live);
        if (r == 0) {
          if (live) fail(div ? "division by zero" : "modulo by zero");
          l = 0;
        } else {
          l = div ? l / r : l % r;
        }
      } else {
        return l;
      }
    }
  }
  std::int64_t unary(bool live) {
    if (take("-")) return -unary(live);
    if (take("!")) return !unary(live);
    if (take("+")) return unary(live);
    return primary(live);
  }
  std::int64_t primary(bool live) {
    skip_space();
    if (pos_ >= s_.size()) fail("unexpected end");
    const char c = s_[pos_];
    if (c == '(') {
      ++pos_;
      const std::int64_t v = ternary(live);
      expect(")");
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::int64_t v = 0;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) v = v * 10 + (s_[pos_++] - '0');
      return v;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t start = pos_;
      while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
      const std::string name = s_.substr(start, pos_ - start);
      if (take("(")) return call(name, live);
      auto it = shape_.find(name);
      if (it != shape_.end()) return it->second;
      if (live) fail("unknown symbol '" + name + "'");
      return 0;
    }
    fail(std::string("unexpected '") + c + "'");
  }
  std::int64_t call(const std::string& name, bool live) {
    std::vector<std::int64_t> args;
    if (!take(")")) {
      do args.push_back(ternary(live));
      while (take(","));
      expect(")");
    }
    if (name == "ceil_div") {
      if (args.size() != 2) fail("ceil_div takes two arguments");
      if (args[1] == 0) {
        if (live) fail("ceil_div by zero");
        return 0;
      }
      return (args[0] + args[1] - 1) / args[1];
    }
    if (name == "min" || name == "max") {
      if (args.empty()) fail(name + " takes at least one argument");
      std::int64_t r = args[0];
      for (auto x : args) r = name == "min" ? (x < r ? x : r) : (x > r ? x : r);
      return r;
    }
    fail("unknown function '" + name + "'");
  }

  const std::string& s_;
  const Shape& shape_;
  std::size_t pos_ = 0;
};

}  // namespace detail

/// Evaluates `text` with the shape's symbols; throws KernelCacheError naming the expression and
/// the problem (unknown symbol, division by zero, syntax).
inline std::int64_t eval_expr(const std::string& text, const Shape& shape) {
  return detail::ExprEvaluator(text, shape).run();
}

}  // namespace hone::kernel_cache
