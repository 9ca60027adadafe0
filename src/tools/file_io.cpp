#include "tools/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/ids.h"
#include "tools/workspace_path.h"

namespace pincer::tools {
namespace {

namespace fs = std::filesystem;

Error io_error(std::string_view step) { return Error{"IO_ERROR", std::string(step) + ": " + std::strerror(errno)}; }

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

/// Mode for the replacement file: the old file's permission bits, else 0666 minus the umask
/// (applied by open(2) itself, so we pass 0666).
mode_t mode_for(const fs::path& path, bool& explicit_mode) {
  struct stat st {};
  explicit_mode = ::stat(path.c_str(), &st) == 0;
  return explicit_mode ? (st.st_mode & 07777) : 0666;
}

/// The bounded read of an open descriptor (closed here; a negative one reports errno).
Result<std::string> read_fd_bounded(int fd, std::size_t max_bytes) {
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return Error{"NOT_FOUND", "file not found"};
    if (errno == ELOOP || errno == EXDEV) return Error{"IO_ERROR", "cannot open: changed into a symbolic link"};
    return io_error("cannot open");
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    Error e = io_error("cannot stat");
    ::close(fd);
    return e;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error{"NOT_A_FILE", S_ISDIR(st.st_mode) ? "is a directory" : "is not a regular file"};
  }
  if (static_cast<std::size_t>(st.st_size) > max_bytes) {
    ::close(fd);
    return Error{"TOO_LARGE", "is " + std::to_string(st.st_size) + " bytes; limit " + std::to_string(max_bytes)};
  }
  std::string data(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < data.size()) {
    ssize_t n = ::read(fd, data.data() + got, data.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Error e = io_error("cannot read");
      ::close(fd);
      return e;
    }
    if (n == 0) break;  // file shrank while reading
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  data.resize(got);
  return data;
}

/// The parent directory of `p`, opened component by component from the root with O_NOFOLLOW
/// (creating missing ones when `create`), so no symlink is crossed even if one appeared since
/// resolution. Returns the directory's descriptor (O_RDONLY, for fsync).
Result<int> open_parent(const WorkspacePath& p, bool create) {
  int fd = ::open(p.root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return io_error("cannot open the workspace " + p.root.string());
  fs::path walked = p.root;
  for (const auto& c : fs::path(p.relative).parent_path()) {
    if (c.empty() || c == ".") continue;
    walked /= c;
    int next = ::openat(fd, c.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0 && errno == ENOENT && create) {
      if (::mkdirat(fd, c.c_str(), 0777) != 0 && errno != EEXIST) {
        Error e = io_error("cannot create directory " + walked.string());
        ::close(fd);
        return e;
      }
      next = ::openat(fd, c.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    const int err = errno;
    ::close(fd);
    if (next < 0) {
      if (err == ELOOP || err == ENOTDIR) {
        return Error{"IO_ERROR", walked.string() + " is no longer a directory (replaced by a link or a file?)"};
      }
      if (err == ENOENT) return Error{"NOT_FOUND", "file not found"};
      errno = err;
      return io_error("cannot open directory " + walked.string());
    }
    fd = next;
  }
  return fd;
}

}  // namespace

Result<std::string> read_file_bounded(const fs::path& path, std::size_t max_bytes) {
  return read_fd_bounded(::open(path.c_str(), O_RDONLY | O_CLOEXEC), max_bytes);
}

Result<std::string> read_file_bounded(const WorkspacePath& p, std::size_t max_bytes) {
  return read_fd_bounded(open_in_workspace(p, O_RDONLY), max_bytes);
}

Status write_file_atomic(const WorkspacePath& p, std::string_view data) {
  const std::string name = fs::path(p.relative).filename().string();
  auto dir = open_parent(p, /*create=*/true);
  if (!dir) return dir.error();
  const int dfd = *dir;
  struct stat st {};
  const bool explicit_mode = ::fstatat(dfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
  const mode_t mode = explicit_mode ? (st.st_mode & 07777) : 0666;
  const std::string tmp = "." + name + ".pincer-tmp-" + ids::random_token(6);
  const fs::path shown = p.real.parent_path() / tmp;
  int fd = ::openat(dfd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) {
    Error e = io_error("cannot create temp file " + shown.string());
    ::close(dfd);
    return e;
  }
  bool ok = (!explicit_mode || ::fchmod(fd, mode) == 0) && write_all(fd, data) && ::fsync(fd) == 0;
  if (!ok) {
    Error e = io_error("cannot write temp file " + shown.string());
    ::close(fd);
    ::unlinkat(dfd, tmp.c_str(), 0);
    ::close(dfd);
    return e;
  }
  ::close(fd);
  // Renaming onto a name replaces that entry itself: a symlink planted there is replaced, never
  // followed.
  if (::renameat(dfd, tmp.c_str(), dfd, name.c_str()) != 0) {
    Error e = io_error("cannot rename temp file onto " + p.real.string());
    ::unlinkat(dfd, tmp.c_str(), 0);
    ::close(dfd);
    return e;
  }
  ::fsync(dfd);  // persist the new directory entry; failure here is not worth failing the write
  ::close(dfd);
  return Ok{};
}

Status remove_file(const WorkspacePath& p) {
  const std::string name = fs::path(p.relative).filename().string();
  auto dir = open_parent(p, /*create=*/false);
  if (!dir) return dir.error();
  struct stat st {};
  Status result = Ok{};
  if (::fstatat(*dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) result = Error{"NOT_FOUND", "file not found"};
  else if (S_ISDIR(st.st_mode)) result = Error{"NOT_A_FILE", "is a directory"};
  else if (::unlinkat(*dir, name.c_str(), 0) != 0) result = io_error("cannot delete");
  ::close(*dir);
  return result;
}

bool looks_binary(std::string_view data) { return data.find('\0') != std::string_view::npos; }

Status write_file_atomic(const fs::path& path, std::string_view data) {
  const fs::path dir = path.parent_path();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Error{"IO_ERROR", "cannot create directory " + dir.string() + ": " + ec.message()};

  bool explicit_mode = false;
  const mode_t mode = mode_for(path, explicit_mode);
  const fs::path tmp = dir / ("." + path.filename().string() + ".pincer-tmp-" + ids::random_token(6));
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) return io_error("cannot create temp file " + tmp.string());
  // open(2) applies the umask; an existing file's exact bits are restored explicitly.
  bool ok = (!explicit_mode || ::fchmod(fd, mode) == 0) && write_all(fd, data) && ::fsync(fd) == 0;
  if (!ok) {
    Error e = io_error("cannot write temp file " + tmp.string());
    ::close(fd);
    ::unlink(tmp.c_str());
    return e;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    Error e = io_error("cannot rename temp file onto " + path.string());
    ::unlink(tmp.c_str());
    return e;
  }
  if (int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);  // persist the new directory entry; failure here is not worth failing the write
    ::close(dfd);
  }
  return Ok{};
}

Status remove_file(const fs::path& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return Error{"NOT_FOUND", "file not found"};
  if (S_ISDIR(st.st_mode)) return Error{"NOT_A_FILE", "is a directory"};
  if (::unlink(path.c_str()) != 0) return io_error("cannot delete");
  return Ok{};
}

}  // namespace pincer::tools
