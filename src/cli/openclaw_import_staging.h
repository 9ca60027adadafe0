// The staging half of `pincer import openclaw` (cli/openclaw_import.cpp): the plan of what to
// create, the file operations that create it in <target>/.openclaw-import-<random>/ (dirs 0700,
// files 0600 or 0700 when executable by their owner, each synced), and the commit that renames the
// staged items into the target, undoing the renames already made when one fails.
// Internal to src/cli/openclaw_import*.cpp. Blocking file I/O; CLI use only.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "cli/openclaw_import.h"
#include "core/result.h"

namespace pincer::cli::openclaw::staging {

/// The staging directory's name prefix inside the target.
inline constexpr const char* kStagingPrefix = ".openclaw-import-";

/// One thing to create in the staging dir; `dest` is relative to it (and to the target).
struct Entry {
  enum class Type { Dir, File, Symlink } type;
  std::filesystem::path source;  ///< Dir/File: what to copy
  std::filesystem::path dest;
  std::filesystem::path link;    ///< Symlink: its target, as written
};

struct Plan {
  std::string config_text;                      ///< pincer.json; "" = none is written
  std::vector<Entry> entries;                   ///< a directory before its contents
  std::vector<std::filesystem::path> installs;  ///< top-level items renamed into the target, in order
  std::vector<std::pair<std::filesystem::path, std::string>> generated;  ///< files written from memory (dest, bytes)
};

/// "IO_ERROR" naming the step, the path and the errno / error_code text.
Error io_error(const std::string& step, const std::filesystem::path& p, int err);
Error io_error(const std::string& step, const std::filesystem::path& p, const std::error_code& ec);

/// Creates `dir` and missing parents with mode 0700; appends the ones it created to `made`.
Status make_dirs(const std::filesystem::path& dir, std::vector<std::filesystem::path>* made = nullptr);

/// True for an existing empty directory (not followed through a symlink).
bool is_empty_dir(const std::filesystem::path& p);

/// Writes the plan below `staging` (which exists). Errors: "IO_ERROR".
Status stage(const Plan& plan, const std::filesystem::path& staging);

/// Renames plan.installs from `staging` into report.target; with options.force an existing item is
/// moved aside to "<item>.pre-import-<timestamp>" (report.backups). On failure everything done is
/// undone. Errors: "IO_ERROR", "TARGET_EXISTS" (an item appeared meanwhile, without force).
Status commit(const Plan& plan, const std::filesystem::path& staging, const ImportOptions& options, ImportReport& report);

}  // namespace pincer::cli::openclaw::staging
