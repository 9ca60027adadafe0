#include "core/file_kind.h"

#include <sys/stat.h>

#include <cerrno>

namespace pincer {
namespace {

namespace fs = std::filesystem;

const char* kind_words(FileKind kind) {
  switch (kind) {
    case FileKind::Regular: return "a regular file";
    case FileKind::Directory: return "a directory";
    case FileKind::Fifo: return "a FIFO (named pipe)";
    case FileKind::Socket: return "a socket";
    case FileKind::CharDevice: return "a character device";
    case FileKind::BlockDevice: return "a block device";
    default: return "not a file";
  }
}

/// " (a symlink to <target>)" when `path` itself is a symlink, else "".
std::string link_note(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_symlink(fs::symlink_status(path, ec))) return "";
  const fs::path target = fs::read_symlink(path, ec);
  return ec ? std::string(" (a symlink)") : " (a symlink to " + target.string() + ")";
}

}  // namespace

FileKind file_kind(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ELOOP) return FileKind::SymlinkLoop;
    if (err == ENOTDIR) return FileKind::NotADirectory;
    if (err != ENOENT) return FileKind::Unreadable;
    struct stat lst {};
    return ::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode) ? FileKind::BrokenSymlink : FileKind::Missing;
  }
  if (S_ISREG(st.st_mode)) return FileKind::Regular;
  if (S_ISDIR(st.st_mode)) return FileKind::Directory;
  if (S_ISFIFO(st.st_mode)) return FileKind::Fifo;
  if (S_ISSOCK(st.st_mode)) return FileKind::Socket;
  if (S_ISCHR(st.st_mode)) return FileKind::CharDevice;
  if (S_ISBLK(st.st_mode)) return FileKind::BlockDevice;
  return FileKind::Unreadable;
}

std::optional<std::string> not_a_regular_file(const fs::path& path) {
  const FileKind kind = file_kind(path);
  switch (kind) {
    case FileKind::Regular:
    case FileKind::Missing: return std::nullopt;
    case FileKind::Directory: return "is a directory, not a file" + link_note(path);
    case FileKind::SymlinkLoop: return std::string("is a symlink loop (its links point at each other)");
    case FileKind::BrokenSymlink: {
      std::error_code ec;
      const fs::path target = fs::read_symlink(path, ec);
      return "is a symlink to " + target.string() + ", which does not exist";
    }
    case FileKind::NotADirectory: return std::string("cannot exist: a component of its path is a file, not a directory");
    case FileKind::Unreadable: {
      struct stat st {};
      const int err = ::stat(path.c_str(), &st) == 0 ? 0 : errno;
      return "cannot be looked at: " + std::generic_category().message(err);
    }
    default: return "is " + std::string(kind_words(kind)) + ", not a regular file" + link_note(path);
  }
}

std::optional<std::string> not_a_directory(const fs::path& dir) {
  const FileKind kind = file_kind(dir);
  switch (kind) {
    case FileKind::Directory: return std::nullopt;
    case FileKind::SymlinkLoop: return dir.string() + " is a symlink loop (its links point at each other)";
    case FileKind::BrokenSymlink: {
      std::error_code ec;
      return dir.string() + " is a symlink to " + fs::read_symlink(dir, ec).string() + ", which does not exist";
    }
    case FileKind::Unreadable: return dir.string() + " cannot be looked at (permission denied?)";
    case FileKind::Missing:
    case FileKind::NotADirectory: {
      // It would be created: the nearest existing ancestor must be a directory.
      for (fs::path up = dir.parent_path(); !up.empty(); up = up.parent_path()) {
        const FileKind above = file_kind(up);
        if (above == FileKind::Missing || above == FileKind::NotADirectory) {
          if (up == up.parent_path()) break;
          continue;
        }
        if (above == FileKind::Directory) return std::nullopt;
        return dir.string() + " cannot be created: " + up.string() + " is " +
               (above == FileKind::SymlinkLoop ? std::string("a symlink loop")
                                               : std::string(kind_words(above)) + ", not a directory");
      }
      return std::nullopt;
    }
    default: return dir.string() + " is " + kind_words(kind) + ", not a directory" + link_note(dir);
  }
}

}  // namespace pincer
