#include "store/file_util.h"

#include "core/json_dump.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace pincer::store {

Error io_error(const std::filesystem::path& path, std::string_view step, int err) {
  return Error{"IO_ERROR", std::string(step) + " " + path.string() + ": " + std::strerror(err)};
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

void fsync_dir(const std::filesystem::path& dir) {
  if (int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

std::string dump_lenient(const nlohmann::json& value) {
  return json_dump::compact(value);
}

std::string short_parse_error(const char* what) {
  std::string_view text(what);
  if (const auto column = text.find("column "); column != std::string_view::npos) {
    if (const auto colon = text.find(": ", column); colon != std::string_view::npos) text.remove_prefix(colon + 2);
  }
  // "syntax error while parsing <context> - <problem>[; last read: '…'][; expected …]": said in
  // our words, as "<problem> (expected <what the context needs>)".
  constexpr std::string_view kSyntax = "syntax error while parsing ";
  if (text.rfind(kSyntax, 0) != 0) return std::string(text);
  text.remove_prefix(kSyntax.size());
  const auto dash = text.find(" - ");
  if (dash == std::string_view::npos) return "invalid JSON";
  const std::string_view context = text.substr(0, dash);
  std::string_view problem = text.substr(dash + 3);
  std::string last_read;
  if (const auto lr = problem.find("; last read: "); lr != std::string_view::npos) {
    last_read = std::string(problem.substr(lr + 13));
    if (const auto semi = last_read.find("; expected"); semi != std::string::npos) last_read.resize(semi);
    problem = problem.substr(0, lr);
  }
  if (const auto semi = problem.find("; expected"); semi != std::string_view::npos) problem = problem.substr(0, semi);
  std::string said;
  if (problem == "unexpected end of input") said = "the text ends too early";
  else if (problem == "invalid literal") said = "not a JSON value" + (last_read.empty() ? "" : ": " + last_read);
  else if (problem.rfind("invalid string", 0) == 0) said = "a bad string" + (last_read.empty() ? "" : " near " + last_read);
  else if (problem.rfind("invalid number", 0) == 0) said = "a bad number" + (last_read.empty() ? "" : ": " + last_read);
  else if (problem.rfind("unexpected ", 0) == 0) said = std::string(problem);
  else said = "invalid JSON (" + std::string(problem) + ")";
  std::string expected;
  if (context == "object key") expected = "a quoted key";
  else if (context == "object separator") expected = "':' after the key";
  else if (context == "object") expected = "',' or '}'";
  else if (context == "array") expected = "',' or ']'";
  else if (context == "value") expected = "a value";
  return expected.empty() ? said : said + " (expected " + expected + ")";
}

std::string parse_error_line_col(const std::string& text, std::size_t byte) {
  const std::size_t pos = std::min(byte > 0 ? byte - 1 : 0, text.size());
  const std::size_t line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
  const auto last_nl = text.rfind('\n', pos == 0 ? std::string::npos : pos - 1);
  const std::size_t col = (last_nl == std::string::npos || pos == 0) ? pos + 1 : pos - last_nl;
  return std::to_string(line) + ":" + std::to_string(col);
}

const nlohmann::json* json_field(const nlohmann::json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

std::string string_field(const nlohmann::json& object, std::string_view key) {
  const nlohmann::json* value = json_field(object, key);
  return value && value->is_string() ? value->get<std::string>() : std::string();
}

}  // namespace pincer::store
