#pragma once
// A minimal C++ tokenizer, just enough for the emu source rewrites: it skips comments,
// preprocessor directives and literals, so that a rewrite never fires inside them.
#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace hone::emu {

struct Token {
  enum Kind { identifier, punctuation, literal } kind;
  std::size_t begin, end;  // byte range in the source
};

inline std::vector<Token> tokenize_cuda(std::string_view s) {
  std::vector<Token> out;
  const std::size_t n = s.size();
  std::size_t i = 0;
  bool line_start = true;  // only whitespace so far on this line: a '#' opens a directive
  auto ident_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  while (i < n) {
    const char c = s[i];
    if (c == '\n') { line_start = true; ++i; continue; }
    if (std::isspace(static_cast<unsigned char>(c))) { ++i; continue; }
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      const std::size_t close = s.find("*/", i + 2);
      i = close == std::string_view::npos ? n : close + 2;
      continue;
    }
    if (c == '#' && line_start) {  // a directive runs to the end of the line, with continuations
      while (i < n && s[i] != '\n') i += (s[i] == '\\' && i + 1 < n) ? 2 : 1;
      continue;
    }
    line_start = false;
    const std::size_t begin = i;
    if (ident_char(c) && !std::isdigit(static_cast<unsigned char>(c))) {
      while (i < n && ident_char(s[i])) ++i;
      const std::string_view word = s.substr(begin, i - begin);
      const bool raw_prefix = word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR";
      if (raw_prefix && i < n && s[i] == '"') {  // raw string: R"delim( ... )delim"
        const std::size_t paren = s.find('(', i);
        if (paren == std::string_view::npos) { i = n; break; }
        const std::string close = ")" + std::string(s.substr(i + 1, paren - i - 1)) + "\"";
        const std::size_t end = s.find(close, paren);
        i = end == std::string_view::npos ? n : end + close.size();
        out.push_back({Token::literal, begin, i});
      } else if (i < n && (s[i] == '"' || s[i] == '\'') && (word == "u8" || word == "u" || word == "U" || word == "L")) {
        continue;  // an encoding prefix: the literal itself is scanned next
      } else {
        out.push_back({Token::identifier, begin, i});
      }
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      while (i < n && (ident_char(s[i]) || s[i] == '.' || s[i] == '\'' ||
                       ((s[i] == '+' || s[i] == '-') && std::string_view("eEpP").find(s[i - 1]) != std::string_view::npos)))
        ++i;
      out.push_back({Token::literal, begin, i});
      continue;
    }
    if (c == '"' || c == '\'') {
      ++i;
      while (i < n && s[i] != c && s[i] != '\n') i += (s[i] == '\\' && i + 1 < n) ? 2 : 1;
      if (i < n && s[i] == c) ++i;
      out.push_back({Token::literal, begin, i});
      continue;
    }
    i += (c == ':' && i + 1 < n && s[i + 1] == ':') ? 2 : 1;
    out.push_back({Token::punctuation, begin, i});
  }
  return out;
}

}  // namespace hone::emu
