#include "knowledge_db/stopwords.hpp"

#include <set>
#include <string>

namespace hone {

bool is_stopword(std::string_view word) {
  static const std::set<std::string, std::less<>> words = {
      "a",    "an",   "and",  "are",   "as",   "at",    "be",    "by",   "do",    "does", "for",  "from", "has",
      "have", "how",  "i",    "if",    "in",   "into",  "is",    "it",   "its",   "of",   "on",   "or",   "than",
      "that", "the",  "then", "this",  "to",   "was",   "what",  "when", "which", "while", "with", "we",  "you",
      "your", "should", "can", "use",  "using", "over", "per",   "one",  "more",  "my",   "our",  "get",  "make"};
  return words.count(word) > 0;
}

}  // namespace hone
