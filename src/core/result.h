// Result<T>: the value of an operation that can fail in an expected way (docs/architecture.md "Errors").
// Expected failures are values carrying a machine-readable code and a human message; they cross
// layers as data. Programming errors are assertions, and exceptions never cross the event loop.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace pincer {

/// A failure as data. `code` is a stable machine-readable identifier (e.g. "CONFIG_INVALID",
/// "JSON5_PARSE"); `message` is one human-readable line naming what was wrong and where.
struct Error {
  std::string code;
  std::string message;
};

/// Either a T or an Error. Cheap to move; check with `ok()` / `operator bool` before `value()`.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}            // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}        // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { assert(ok()); return std::get<0>(v_); }
  const T& value() const& { assert(ok()); return std::get<0>(v_); }
  T&& value() && { assert(ok()); return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { assert(!ok()); return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

/// Result of an operation with no value.
struct Ok {};
using Status = Result<Ok>;

}  // namespace pincer
