// Small strict readers for method params: each error names the method and the field
// (INVALID_REQUEST "invalid <method> params: …").
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "gateway/methods/registry.h"

namespace pincer::gateway {

/// The answer of a method that needs the agent runtime when the gateway runs without one.
inline RpcError no_runtime() { return RpcError::unavailable("agent runtime not available"); }

class Params {
 public:
  Params(std::string method, const nlohmann::json& params) : method_(std::move(method)), p_(params) {}

  /// Checks the params are an object (or absent) with only `allowed` keys.
  std::optional<RpcError> only(std::initializer_list<std::string_view> allowed) const {
    if (p_.is_null()) return std::nullopt;
    if (!p_.is_object()) return invalid_params(method_, "must be object");
    for (const auto& [key, value] : p_.items()) {
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        return invalid_params(method_, "must NOT have additional properties (\"" + key + "\")");
      }
    }
    return std::nullopt;
  }
  /// A string field; `required` → missing is an error; `non_empty` → "" is an error.
  std::optional<RpcError> string(std::string_view key, std::string& out, bool required, bool non_empty = false) const {
    const nlohmann::json* v = find(key);
    if (!v) return required ? std::optional(invalid_params(method_, "must have required property '" + std::string(key) + "'"))
                            : std::nullopt;
    if (!v->is_string()) return invalid_params(method_, "/" + std::string(key) + " must be string");
    out = v->get<std::string>();
    if (non_empty && out.empty()) return invalid_params(method_, "/" + std::string(key) + " must NOT be empty");
    return std::nullopt;
  }
  /// An integer field within [lo, hi].
  std::optional<RpcError> integer(std::string_view key, int64_t& out, int64_t lo, int64_t hi) const {
    const nlohmann::json* v = find(key);
    if (!v) return std::nullopt;
    if (!v->is_number_integer() || v->get<int64_t>() < lo || v->get<int64_t>() > hi) {
      return invalid_params(method_, "/" + std::string(key) + " must be an integer in " + std::to_string(lo) + ".." +
                                         std::to_string(hi));
    }
    out = v->get<int64_t>();
    return std::nullopt;
  }

 private:
  const nlohmann::json* find(std::string_view key) const {
    if (!p_.is_object()) return nullptr;
    auto it = p_.find(key);
    return it == p_.end() ? nullptr : &*it;
  }
  std::string method_;
  const nlohmann::json& p_;
};

}  // namespace pincer::gateway
