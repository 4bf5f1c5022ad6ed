#pragma once
// The shapes file the importer writes, as it is built: the ops whose family exists (and takes the
// dims the importer gives), the ops listed as not tuned with the reason, and the file's notes.
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/model_import/family_catalog.hpp"

namespace hone {

using OrderedJson = nlohmann::ordered_json;

struct DraftOp {
  std::string name;
  std::string family;
  OrderedJson dims;                       // symbol -> integer, or an expression of tokens / context
  OrderedJson scalars = OrderedJson::object();
  std::string note;
};

struct ShapesDraft {
  const FamilyCatalog* families = nullptr;
  OrderedJson ops = OrderedJson::array();
  OrderedJson not_tuned = OrderedJson::array();
  std::vector<std::string> notes;

  bool has(const std::string& family) const { return families->count(family) > 0; }
  /// Adds the op when its family exists; otherwise lists it as not tuned, for `reason_if_missing`
  /// (default: the family is missing). An op whose dims or scalars the family does not take (its
  /// spec changed under the importer) is listed as not tuned too, saying so.
  void add(DraftOp op, const std::string& reason_if_missing = "");
  /// Lists an op no family of hone covers.
  void skip(const std::string& name, const std::string& family_needed, OrderedJson dims, const std::string& reason);
  /// The dynamic dims the tuned ops' expressions use ("tokens", "context").
  std::set<std::string> dynamic_dims() const;
};

/// `tokens` times n, as a dims expression: "tokens" or "tokens*32".
std::string tokens_times(std::int64_t n);

/// The document as shapes/ writes it: two-space indents, one op per line.
std::string shapes_text(const OrderedJson& doc);

}  // namespace hone
