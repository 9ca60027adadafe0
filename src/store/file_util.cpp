#include "store/file_util.h"
#include "core/json_dump.h"

#include <fcntl.h>
#include <unistd.h>

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
  return std::string(text);
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
