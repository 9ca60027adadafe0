// Small POSIX and JSON helpers shared by the store's files (atomic writes, the transcript, the
// session index). Pure or single-syscall functions; thread-safe.
#pragma once

#include <cerrno>
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace pincer::store {

/// Deepest nesting of arrays/objects the store parses; deeper documents are refused (a hostile or
/// corrupt file must not exhaust the stack).
inline constexpr std::size_t kMaxJsonNesting = 512;

/// Error{"IO_ERROR", "<step> <path>: <strerror(err)>"}.
Error io_error(const std::filesystem::path& path, std::string_view step, int err = errno);

/// write(2) until all of `data` is written (EINTR retried); false on any other error (errno set).
bool write_all(int fd, std::string_view data);

/// fsync(2) of a directory, so a rename or a new file in it survives a power loss. Best effort.
void fsync_dir(const std::filesystem::path& dir);

/// Compact JSON that never throws: invalid UTF-8 in strings becomes U+FFFD.
std::string dump_lenient(const nlohmann::json& value);

/// nlohmann's parse error text in our own words, without its "[json.exception…] parse error at
/// …: " prefix: "unexpected ',' (expected a quoted key)", "the text ends too early (expected
/// ',' or '}')". The caller prefixes the file and line:column.
std::string short_parse_error(const char* what);

/// "line:column" (1-based) of nlohmann's parse_error::byte (1-based, the byte it stopped at) in `text`.
std::string parse_error_line_col(const std::string& text, std::size_t byte);

/// object[key] when `object` is an object that has it, else nullptr.
const nlohmann::json* json_field(const nlohmann::json& object, std::string_view key);

/// object[key] as a string; "" when absent or not a string.
std::string string_field(const nlohmann::json& object, std::string_view key);

}  // namespace pincer::store
