// Staging and committing an import (cli/openclaw_import_staging.h).
#include "cli/openclaw_import_staging.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "store/transcript.h"

namespace pincer::cli::openclaw::staging {

namespace fs = std::filesystem;

Error io_error(const std::string& step, const fs::path& p, int err) {
  return Error{"IO_ERROR", step + " " + p.string() + ": " + std::strerror(err)};
}
Error io_error(const std::string& step, const fs::path& p, const std::error_code& ec) {
  return Error{"IO_ERROR", step + " " + p.string() + ": " + ec.message()};
}


// ---- file operations ------------------------------------------------------------------------------

// Creates `dir` and missing parents with mode 0700; appends the ones it created to `made`.
Status make_dirs(const fs::path& dir, std::vector<fs::path>* made) {
  std::error_code ec;
  if (fs::is_directory(dir, ec)) return Ok{};
  if (dir.has_parent_path() && dir.parent_path() != dir) {
    if (auto st = make_dirs(dir.parent_path(), made); !st) return st;
  }
  if (::mkdir(dir.c_str(), 0700) != 0) {
    if (errno == EEXIST && fs::is_directory(dir, ec)) return Ok{};
    return io_error("cannot create directory", dir, errno);
  }
  ::chmod(dir.c_str(), 0700);  // exactly 0700 whatever the umask
  if (made != nullptr) made->push_back(dir);
  return Ok{};
}

bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// Creates `dst` (must not exist) with `mode`, writes `data`, syncs it.
Status write_new_file(const fs::path& dst, std::string_view data, mode_t mode) {
  int fd = ::open(dst.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) return io_error("cannot create", dst, errno);
  ::fchmod(fd, mode);
  if (!write_all(fd, data.data(), data.size()) || ::fdatasync(fd) != 0) {
    Error e = io_error("cannot write", dst, errno);
    ::close(fd);
    return e;
  }
  ::close(fd);
  return Ok{};
}

// Copies the bytes of regular file `src` to new file `dst`: mode 0600, or 0700 when `src` is
// executable by its owner. Synced before returning.
Status copy_bytes(const fs::path& src, const fs::path& dst) {
  int in = ::open(src.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (in < 0) return io_error("cannot open", src, errno);
  struct stat st {};
  if (::fstat(in, &st) != 0) {
    Error e = io_error("cannot stat", src, errno);
    ::close(in);
    return e;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(in);
    return Error{"IO_ERROR", "cannot copy " + src.string() + ": not a regular file"};
  }
  const mode_t mode = (st.st_mode & S_IXUSR) ? 0700 : 0600;
  int out = ::open(dst.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (out < 0) {
    Error e = io_error("cannot create", dst, errno);
    ::close(in);
    return e;
  }
  ::fchmod(out, mode);
  char buf[64 * 1024];
  Status result = Ok{};
  while (true) {
    ssize_t n = ::read(in, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      result = io_error("cannot read", src, errno);
      break;
    }
    if (n == 0) break;
    if (!write_all(out, buf, static_cast<std::size_t>(n))) {
      result = io_error("cannot write", dst, errno);
      break;
    }
  }
  if (result && ::fdatasync(out) != 0) result = io_error("cannot write", dst, errno);
  ::close(in);
  ::close(out);
  return result;
}

// ---- staging and commit -------------------------------------------------------------------------

Status stage(const Plan& plan, const fs::path& staging) {
  if (!plan.config_text.empty()) {
    if (auto st = write_new_file(staging / "pincer.json", plan.config_text, 0600); !st) return st;
  }
  for (const auto& e : plan.entries) {
    const fs::path dst = staging / e.dest;
    if (auto st = make_dirs(e.type == Entry::Type::Dir ? dst : dst.parent_path()); !st) return st;
    if (e.type == Entry::Type::File) {
      if (auto st = copy_bytes(e.source, dst); !st) return st;
    } else if (e.type == Entry::Type::Symlink) {
      if (::symlink(e.link.c_str(), dst.c_str()) != 0) return io_error("cannot create link", dst, errno);
    }
  }
  for (const auto& [dest, data] : plan.generated) {
    if (auto st = make_dirs((staging / dest).parent_path()); !st) return st;
    if (auto st = write_new_file(staging / dest, data, 0600); !st) return st;
  }
  return Ok{};
}

bool is_empty_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(fs::symlink_status(p, ec)) && fs::is_empty(p, ec) && !ec;
}

// `p` + ".pre-import-<archive timestamp>", with "-2", "-3" … added while that exists.
fs::path backup_name(const fs::path& p, std::int64_t now_ms) {
  const std::string base = p.string() + ".pre-import-" + store::archive_timestamp(now_ms);
  fs::path candidate = base;
  std::error_code ec;
  for (int n = 2; fs::exists(fs::symlink_status(candidate, ec)); ++n) candidate = base + "-" + std::to_string(n);
  return candidate;
}

// Renames the staged items into the target. On failure, undoes what it did and returns the error.
Status commit(const Plan& plan, const fs::path& staging, const ImportOptions& options, ImportReport& report) {
  struct Rename {
    fs::path from, to;  // from == "": `to` was an empty directory, removed
  };
  std::vector<Rename> done;
  std::vector<fs::path> made;
  std::vector<Backup> backups;
  auto undo = [&] {
    for (auto it = done.rbegin(); it != done.rend(); ++it) {
      if (it->from.empty()) ::mkdir(it->to.c_str(), 0700);
      else ::rename(it->to.c_str(), it->from.c_str());
    }
    for (auto it = made.rbegin(); it != made.rend(); ++it) ::rmdir(it->c_str());
  };
  for (const auto& rel : plan.installs) {
    const fs::path src = staging / rel, dst = report.target / rel;
    if (auto st = make_dirs(dst.parent_path(), &made); !st) {
      undo();
      return st;
    }
    std::error_code ec;
    if (fs::exists(fs::symlink_status(dst, ec))) {
      if (is_empty_dir(dst)) {
        if (::rmdir(dst.c_str()) != 0) {
          Error e = io_error("cannot replace", dst, errno);
          undo();
          return e;
        }
        done.push_back({"", dst});
      } else if (options.force) {
        const fs::path backup = backup_name(dst, options.now_ms);
        if (::rename(dst.c_str(), backup.c_str()) != 0) {
          Error e = io_error("cannot move aside", dst, errno);
          undo();
          return e;
        }
        done.push_back({dst, backup});
        backups.push_back({dst, backup});
      } else {
        undo();
        return Error{"TARGET_EXISTS", dst.string() + " appeared during the import; nothing was imported"};
      }
    }
    if (::rename(src.c_str(), dst.c_str()) != 0) {
      Error e = io_error("cannot move into place", dst, errno);
      undo();
      return e;
    }
    done.push_back({src, dst});
  }
  report.backups = std::move(backups);
  return Ok{};
}

}  // namespace pincer::cli::openclaw::staging
