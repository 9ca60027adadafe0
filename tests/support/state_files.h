// Reading a test gateway's state directory: one file, or every file below a folder (to check that
// no secret was written anywhere but where it belongs).
#pragma once

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>

namespace pincer::test {

/// The whole file, bytes as they are; "" when it cannot be read.
std::string read_file(const std::filesystem::path& path);

/// Every regular file below `dir` (recursively), concatenated with a newline after each, except
/// the files whose name is in `skip` (e.g. "auth-profiles.json", where a key belongs).
std::string all_files_under(const std::filesystem::path& dir, std::initializer_list<std::string_view> skip = {});

/// Wall-clock milliseconds since the Unix epoch (for expiry times written into test state).
int64_t wall_now_ms();

}  // namespace pincer::test
