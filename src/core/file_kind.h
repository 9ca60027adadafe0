// What kind of file is at a path, in words for a user: bootstrap files that are not regular files
// (a FIFO, a directory named AGENTS.md, a symlink to /dev/zero, a symlink loop) and workspaces that
// are not directories are named as what they are, instead of a strerror of the read that failed.
// One stat/lstat per call; never opens the file (a FIFO is never waited on). Any thread.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace pincer {

enum class FileKind {
  Missing,        ///< nothing there (ENOENT)
  Regular,
  Directory,
  Fifo,
  Socket,
  CharDevice,
  BlockDevice,
  SymlinkLoop,    ///< ELOOP: links that point at each other
  BrokenSymlink,  ///< a symlink whose target does not exist
  NotADirectory,  ///< a component of the path above it is a file (ENOTDIR)
  Unreadable,     ///< stat failed otherwise (EACCES …)
};

/// The kind of `path`, following symlinks.
FileKind file_kind(const std::filesystem::path& path);

/// "is a directory, not a file", "is a FIFO (named pipe), not a regular file", "is a character
/// device, not a regular file" (with " (a symlink to <target>)" when the path is a link), "is a
/// symlink loop", "is a symlink to <target>, which does not exist", … for a path that should be a
/// regular file; nullopt when it is one or is missing (a missing file is the caller's to word).
std::optional<std::string> not_a_regular_file(const std::filesystem::path& path);

/// Why `dir` cannot be used as a directory (or created as one): "<dir> is a regular file, not a
/// directory", "<dir> cannot be created: <ancestor> is a regular file, not a directory", "<dir> is
/// a symlink loop" …; nullopt when it is a directory or does not exist and could be created
/// (its nearest existing ancestor is a directory).
std::optional<std::string> not_a_directory(const std::filesystem::path& dir);

}  // namespace pincer
