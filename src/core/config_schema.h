// The one declarative schema of pincer.json (issue #2 "Core"). A tree of Nodes built with the small
// helpers below drives validation, defaults, the JSON Schema export (`config.schema`), the Markdown
// reference (docs/configuration.md) and redaction — config.cpp walks it; no other list of keys
// exists anywhere.
//
// Example:
//   object({
//       field("port", integer().min(1).max(65535).def(18789).doc("TCP port of the gateway.")),
//       field("token", string().sensitive().doc("Shared secret.")),
//   })
//
// Adding a section: write a `Node foo_section()` in its own config_schema_foo.cpp (declared in
// config_schema_foo.h, like config_schema_cli_backends.*) and list it in root() (config_schema.cpp).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace pincer::config::schema {

enum class Kind {
  kObject,   ///< fixed, ordered set of named fields; unknown keys are errors
  kMap,      ///< JSON object with arbitrary string keys, every value matching item()
  kArray,    ///< JSON array, every element matching item()
  kString,   ///< optionally with a format (see Node::format)
  kInteger,  ///< int64 (an integral float such as 5.0 is accepted too); optional min/max
  kNumber,   ///< any finite number; optional min/max
  kBoolean,
  kEnum,     ///< one of a fixed set of strings
  kAny,      ///< anything, not validated (free-form sections such as `meta`)
  kUnion,    ///< any one of several alternatives (e.g. a string or an object); see union_of()
};

struct Field;

/// One node of the schema. Immutable once built; builder methods are for rvalues only, so a
/// chain like `integer().min(1).def(5)` reads as one declaration.
class Node {
 public:
  // ---- builders -------------------------------------------------------------------------------
  Node doc(std::string text) &&;            ///< human description (Markdown allowed)
  Node def(nlohmann::json value) &&;        ///< default filled in by with_defaults()
  Node default_note(std::string text) &&;   ///< how a default is computed, when not a constant
  Node min(double value) &&;                ///< inclusive lower bound (integer/number)
  Node max(double value) &&;                ///< inclusive upper bound (integer/number)
  Node format(std::string name) &&;         ///< string format: "ipv4", "http-url" (http/https with a host)
  Node pattern(std::string regex) &&;       ///< string must match this ECMAScript regex (whole)
  Node sensitive() &&;                      ///< secret: redacted by config::redact(), never echoed
  Node required() &&;                       ///< must be present whenever its parent object is
  /// An object with defaults that with_defaults() still leaves absent until the user writes it
  /// (a channel's block: present = configured).
  Node only_when_written() &&;
  /// Object nodes: an unknown key `key` is answered "did you mean `instead`?" (a known alias,
  /// e.g. Discord's `botToken` → `token`). Close spellings of a field need no hint (validation
  /// finds them itself).
  Node hint(std::string key, std::string instead) &&;

  // ---- accessors ------------------------------------------------------------------------------
  Kind kind() const { return kind_; }
  const std::string& description() const { return description_; }
  const std::optional<nlohmann::json>& default_value() const { return default_; }
  const std::string& default_note() const { return default_note_; }
  const std::optional<double>& minimum() const { return min_; }
  const std::optional<double>& maximum() const { return max_; }
  const std::string& string_format() const { return format_; }
  /// Regex a string must match entirely ("" = none), as given to pattern().
  const std::string& string_pattern() const { return pattern_; }
  const std::vector<std::string>& enum_values() const { return enum_values_; }
  bool is_sensitive() const { return sensitive_; }
  bool is_required() const { return required_; }
  bool is_only_when_written() const { return only_when_written_; }
  /// The key hint() gave for an unknown `key`, or nullptr.
  const std::string* key_hint(std::string_view key) const;
  /// Fields of an object node, in declaration order (empty for other kinds).
  const std::vector<Field>& fields() const { return *fields_; }
  /// The field named `name` of an object node, or nullptr.
  const Field* find(std::string_view name) const;
  /// Element node of an array, value node of a map. Only valid for those kinds.
  const Node& item() const;
  /// Alternatives of a union node, in declaration order (empty for other kinds).
  const std::vector<Node>& alternatives() const { return *alternatives_; }

  /// Short human text of what the node accepts, used in error messages and docs:
  /// "integer 1..65535", "integer >= 0", "one of loopback|lan|custom", "IPv4 address",
  /// "array of string", "object", "map of string to integer", "any value",
  /// "string matching ^[a-z]+$", "string or object" (a union).
  std::string expectation() const;

 private:
  friend Node object(std::vector<Field> fields);
  friend Node map_of(Node value);
  friend Node array_of(Node item);
  friend Node string();
  friend Node integer();
  friend Node number();
  friend Node boolean();
  friend Node one_of(std::vector<std::string> values);
  friend Node any();
  friend Node union_of(std::vector<Node> alternatives);

  explicit Node(Kind kind);

  Kind kind_;
  std::string description_;
  std::optional<nlohmann::json> default_;
  std::string default_note_;
  std::optional<double> min_;
  std::optional<double> max_;
  std::string format_;
  std::string pattern_;
  std::vector<std::string> enum_values_;
  bool sensitive_ = false;
  bool required_ = false;
  bool only_when_written_ = false;
  std::vector<std::pair<std::string, std::string>> key_hints_;  // unknown key → field to suggest
  std::shared_ptr<const std::vector<Field>> fields_;  // never null
  std::shared_ptr<const Node> item_;                  // arrays and maps only
  std::shared_ptr<const std::vector<Node>> alternatives_;  // never null; unions only non-empty
};

/// A named member of an object node.
struct Field {
  std::string name;
  Node node;
};

// ---- bounds shared by the sections ------------------------------------------------------------
/// Upper bound of every duration key: 2^31-1 ms (about 24.8 days), the longest timer OpenClaw
/// arms (it clamps larger ones). Bigger values used to overflow when converted to a deadline and
/// aborted every run at once; core/saturating.h saturates the conversions as well.
inline constexpr double kMaxTimerMs = 2147483647;
inline constexpr double kMaxTimerSeconds = 2147483;  ///< floor(kMaxTimerMs / 1000)
/// Upper bound of every count key (tokens, characters, bytes, runs, attempts): 2^31-1.
inline constexpr double kMaxCount = 2147483647;
/// Integers beyond ±(2^53-1) are refused everywhere (a double no longer holds them exactly; the
/// JSON Schema "safe integer" range), even where a key declares no bound of its own.
inline constexpr double kMaxSafeInteger = 9007199254740991;

// ---- node constructors ------------------------------------------------------------------------
Field field(std::string name, Node node);
Node object(std::vector<Field> fields);
Node map_of(Node value);
Node array_of(Node item);
Node string();
Node integer();
Node number();
Node boolean();
Node one_of(std::vector<std::string> values);
Node any();
/// A value matching any one of `alternatives`, e.g. `union_of({string(), object({...})})` for a
/// key OpenClaw accepts as `"provider/model"` or `{primary, fallbacks}`. Alternatives should
/// differ in JSON type: validation reports the errors of the alternative whose type matches the
/// value (or "expected string or object, got 5" when none does); defaults and redaction apply
/// to that alternative.
Node union_of(std::vector<Node> alternatives);

/// The field of object node `node` to suggest for an unknown `key` ("did you mean `x`?"): its
/// hint() for that key (a known alias), else the one field spelled closest (case-insensitive, at
/// most 2 edits — a swap of neighbours counts 1 — and fewer than half the key), else "".
std::string suggested_key(const Node& node, const std::string& key);

/// The schema of the whole pincer.json document (an object node). Built once, thread-safe.
const Node& root();

}  // namespace pincer::config::schema
