#include "store/atomic_file.h"
#include "store/file_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/ids.h"

namespace pincer::store {

Status write_file_atomic(const std::filesystem::path& path, std::string_view data, mode_t mode) {
  const auto dir = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error{"IO_ERROR", "cannot create directory " + dir.string() + ": " + ec.message()};

  // Same directory so that rename() is atomic (same filesystem).
  const auto tmp = dir / ("." + path.filename().string() + ".tmp-" + ids::random_token(6));
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) return io_error(tmp, "cannot create");
  if (!write_all(fd, data) || ::fsync(fd) != 0) {
    Error e = io_error(tmp, "cannot write");
    ::close(fd);
    ::unlink(tmp.c_str());
    return e;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    Error e = io_error(path, "cannot rename temp file onto");
    ::unlink(tmp.c_str());
    return e;
  }
  // Persist the directory entry too; a failure here is not worth failing the write for.
  if (int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return Ok{};
}

Result<std::string> read_file(const std::filesystem::path& path, std::size_t max_bytes) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return Error{"NOT_FOUND", path.string() + ": no such file"};
  auto size = std::filesystem::file_size(path, ec);
  if (ec) return Error{"IO_ERROR", "cannot stat " + path.string() + ": " + ec.message()};
  if (size > max_bytes) {
    return Error{"TOO_LARGE", path.string() + ": file is " + std::to_string(size) + " bytes (limit " +
                                  std::to_string(max_bytes) + ")"};
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error(path, "cannot open");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return io_error(path, "cannot read");
  return ss.str();
}

}  // namespace pincer::store
