#include "core/expr.hpp"

#include <cctype>
#include <functional>
#include <vector>

namespace hone {

struct ExprNode {
  enum class Kind { Number, Symbol, Unary, Binary, Ternary, Call } kind;
  std::int64_t number = 0;
  std::string name;  // symbol, operator or function name
  std::vector<std::shared_ptr<const ExprNode>> args;
};

namespace {

using NodePtr = std::shared_ptr<const ExprNode>;

NodePtr make(ExprNode::Kind kind, std::string name, std::vector<NodePtr> args, std::int64_t number = 0) {
  auto n = std::make_shared<ExprNode>();
  n->kind = kind;
  n->name = std::move(name);
  n->args = std::move(args);
  n->number = number;
  return n;
}

class Parser {
 public:
  explicit Parser(const std::string& text) : s_(text) {}

  NodePtr parse_all() {
    NodePtr n = ternary();
    skip_space();
    if (pos_ != s_.size()) fail("unexpected '" + std::string(1, s_[pos_]) + "'");
    return n;
  }

 private:
  const std::string& s_;
  size_t pos_ = 0;

  [[noreturn]] void fail(const std::string& what) const {
    throw ExprError("in expression '" + s_ + "' at column " + std::to_string(pos_ + 1) + ": " + what);
  }
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool accept(const std::string& tok) {
    skip_space();
    if (s_.compare(pos_, tok.size(), tok) != 0) return false;
    // "<" must not match the start of "<=", "!" not the start of "!=".
    if (tok.size() == 1 && pos_ + 1 < s_.size() && s_[pos_ + 1] == '=' && std::string("<>!=").find(tok) != std::string::npos)
      return false;
    pos_ += tok.size();
    return true;
  }
  void expect(const std::string& tok) {
    if (!accept(tok)) fail("expected '" + tok + "'");
  }

  NodePtr ternary() {
    NodePtr cond = logical_or();
    if (accept("?")) {
      NodePtr a = ternary();
      expect(":");
      NodePtr b = ternary();
      return make(ExprNode::Kind::Ternary, "?", {cond, a, b});
    }
    return cond;
  }
  NodePtr binary_level(const std::vector<std::string>& ops, const std::function<NodePtr()>& next) {
    NodePtr lhs = next();
    for (;;) {
      bool matched = false;
      for (const auto& op : ops) {
        if (accept(op)) {
          lhs = make(ExprNode::Kind::Binary, op, {lhs, next()});
          matched = true;
          break;
        }
      }
      if (!matched) return lhs;
    }
  }
  NodePtr logical_or() { return binary_level({"||"}, [this] { return logical_and(); }); }
  NodePtr logical_and() { return binary_level({"&&"}, [this] { return equality(); }); }
  NodePtr equality() { return binary_level({"==", "!="}, [this] { return relational(); }); }
  NodePtr relational() { return binary_level({"<=", ">=", "<", ">"}, [this] { return additive(); }); }
  NodePtr additive() { return binary_level({"+", "-"}, [this] { return multiplicative(); }); }
  NodePtr multiplicative() { return binary_level({"*", "/", "%"}, [this] { return unary(); }); }
  NodePtr unary() {
    if (accept("-")) return make(ExprNode::Kind::Unary, "-", {unary()});
    if (accept("+")) return unary();
    if (accept("!")) return make(ExprNode::Kind::Unary, "!", {unary()});
    return primary();
  }
  NodePtr primary() {
    skip_space();
    if (pos_ >= s_.size()) fail("unexpected end");
    char c = s_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t start = pos_;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '.' || std::isalpha(static_cast<unsigned char>(s_[pos_]))))
        fail("only integers are allowed");
      try {
        return make(ExprNode::Kind::Number, "", {}, std::stoll(s_.substr(start, pos_ - start)));
      } catch (const std::out_of_range&) {
        fail("integer out of range");
      }
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = pos_;
      while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
      std::string name = s_.substr(start, pos_ - start);
      if (accept("(")) {
        std::vector<NodePtr> args;
        if (!accept(")")) {
          do args.push_back(ternary());
          while (accept(","));
          expect(")");
        }
        if (name == "ceil_div" && args.size() != 2) fail("ceil_div takes two arguments");
        if ((name == "min" || name == "max") && args.empty()) fail(name + " takes at least one argument");
        if (name != "ceil_div" && name != "min" && name != "max") fail("unknown function '" + name + "'");
        return make(ExprNode::Kind::Call, name, std::move(args));
      }
      return make(ExprNode::Kind::Symbol, name, {});
    }
    if (accept("(")) {
      NodePtr n = ternary();
      expect(")");
      return n;
    }
    fail("unexpected '" + std::string(1, c) + "'");
  }
};

std::int64_t eval_node(const ExprNode& n, const Bindings& b, const std::string& text) {
  auto fail = [&](const std::string& what) -> std::int64_t {
    throw ExprError("in expression '" + text + "': " + what);
  };
  switch (n.kind) {
    case ExprNode::Kind::Number:
      return n.number;
    case ExprNode::Kind::Symbol: {
      auto it = b.find(n.name);
      if (it == b.end()) return fail("unknown symbol '" + n.name + "'");
      return it->second;
    }
    case ExprNode::Kind::Unary: {
      std::int64_t v = eval_node(*n.args[0], b, text);
      return n.name == "-" ? -v : !v;
    }
    case ExprNode::Kind::Ternary:
      return eval_node(*n.args[0], b, text) ? eval_node(*n.args[1], b, text) : eval_node(*n.args[2], b, text);
    case ExprNode::Kind::Call: {
      std::vector<std::int64_t> v;
      for (const auto& a : n.args) v.push_back(eval_node(*a, b, text));
      if (n.name == "ceil_div") {
        if (v[1] == 0) return fail("ceil_div by zero");
        return (v[0] + v[1] - 1) / v[1];
      }
      std::int64_t r = v[0];
      for (auto x : v) r = n.name == "min" ? std::min(r, x) : std::max(r, x);
      return r;
    }
    case ExprNode::Kind::Binary: {
      const std::string& op = n.name;
      std::int64_t l = eval_node(*n.args[0], b, text);
      if (op == "&&" && !l) return 0;
      if (op == "||" && l) return 1;
      std::int64_t r = eval_node(*n.args[1], b, text);
      if (op == "+") return l + r;
      if (op == "-") return l - r;
      if (op == "*") return l * r;
      if (op == "/" || op == "%") {
        if (r == 0) return fail(std::string(op == "/" ? "division" : "modulo") + " by zero");
        return op == "/" ? l / r : l % r;
      }
      if (op == "==") return l == r;
      if (op == "!=") return l != r;
      if (op == "<") return l < r;
      if (op == "<=") return l <= r;
      if (op == ">") return l > r;
      if (op == ">=") return l >= r;
      if (op == "&&" || op == "||") return r != 0;
      return fail("unknown operator '" + op + "'");
    }
  }
  return 0;
}

std::string print(const ExprNode& n, const Bindings& bound, bool top) {
  switch (n.kind) {
    case ExprNode::Kind::Number:
      return std::to_string(n.number);
    case ExprNode::Kind::Symbol: {
      auto it = bound.find(n.name);
      return it == bound.end() ? n.name : std::to_string(it->second);
    }
    case ExprNode::Kind::Unary:
      return n.name + print(*n.args[0], bound, false);
    case ExprNode::Kind::Call: {
      std::string s = n.name + "(";
      for (size_t i = 0; i < n.args.size(); ++i) s += (i ? ", " : "") + print(*n.args[i], bound, true);
      return s + ")";
    }
    case ExprNode::Kind::Ternary: {
      std::string s = print(*n.args[0], bound, false) + " ? " + print(*n.args[1], bound, false) + " : " +
                      print(*n.args[2], bound, false);
      return top ? s : "(" + s + ")";
    }
    case ExprNode::Kind::Binary: {
      std::string s = print(*n.args[0], bound, false) + " " + n.name + " " + print(*n.args[1], bound, false);
      return top ? s : "(" + s + ")";
    }
  }
  return "";
}

void collect(const ExprNode& n, std::set<std::string>& out) {
  if (n.kind == ExprNode::Kind::Symbol) out.insert(n.name);
  for (const auto& a : n.args) collect(*a, out);
}

}  // namespace

Expr Expr::parse(const std::string& text) {
  Expr e;
  e.text_ = text;
  e.root_ = Parser(text).parse_all();
  return e;
}

Expr Expr::constant(std::int64_t value) { return parse(std::to_string(value)); }

std::int64_t Expr::eval(const Bindings& symbols) const {
  if (!root_) throw ExprError("empty expression");
  return eval_node(*root_, symbols, text_);
}

Expr Expr::bind(const Bindings& symbols) const {
  if (!root_) return *this;
  return parse(print(*root_, symbols, true));
}

std::set<std::string> Expr::symbols() const {
  std::set<std::string> out;
  if (root_) collect(*root_, out);
  return out;
}

}  // namespace hone
