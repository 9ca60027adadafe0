// Workspace creation and bootstrap loading (CX-2, CX-3). See workspace.h for the rules.
#include "agent/workspace.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>

#include "agent/bootstrap_file_cache.h"
#include "agent/text_cut.h"
#include "core/file_kind.h"
#include "core/file_watch.h"
#include "store/atomic_file.h"

namespace pincer::agent {
namespace {

namespace fs = std::filesystem;

// ---- templates (our own text; keep them short: they are sent with every turn) ------------------

constexpr std::string_view kAgentsTemplate = R"(# AGENTS.md - how you work here

This folder is your workspace. Its files (SOUL.md, IDENTITY.md, USER.md, TOOLS.md, HEARTBEAT.md,
MEMORY.md) are loaded into every session: keep them short and current.

## Habits
- Look before you change: read the files involved first.
- Work in small, reversible steps and say what you changed.
- When you learn something that will matter later, add one dated line to MEMORY.md.
- Fix these files when they are wrong; remove what no longer matters.
)";

constexpr std::string_view kSoulTemplate = R"(# SOUL.md - who you are

- Be useful: answer what was asked, do what was asked, then stop.
- Be direct and honest. Say when you are unsure, and when something failed.
- When asked for an opinion, give one, with reasons.
- Private things stay private: what you see here is not shared elsewhere.
- Use the user's language and match their tone.
)";

constexpr std::string_view kToolsTemplate = R"(# TOOLS.md - notes about this machine

The gateway tells you which tools exist. Write down here what it cannot know:
host names, important paths, accounts, device names, how things are done on this machine.

(Nothing yet.)
)";

constexpr std::string_view kIdentityTemplate = R"(# IDENTITY.md - who you are to the user

- Name: (choose one together with the user)
- What you are: a personal AI assistant running on Pincer
- Style: (for example calm, concise, playful)
- Emoji: (optional)
)";

constexpr std::string_view kUserTemplate = R"(# USER.md - the person you help

- Name:
- What to call them:
- Time zone:
- Languages:
- Preferences, and things to avoid:

Fill this in as you learn. Facts only, short.
)";

constexpr std::string_view kHeartbeatTemplate = R"(# HEARTBEAT.md

<!-- Tasks to check on each heartbeat, one per line, for example "- Check the build status".
     While there are no tasks here, heartbeats are skipped and cost nothing. -->
)";

constexpr std::string_view kBootstrapTemplate = R"(# BOOTSTRAP.md - first run

This workspace is new. In your first conversation introduce yourself briefly, agree on names, note
yours in IDENTITY.md and what you learn about the user in USER.md, and ask what they want help with.
Then delete this file.
)";

constexpr std::string_view kMemoryTemplate = R"(# MEMORY.md - long-term memory

Durable facts, decisions and preferences: one line each, newest last, each with a date
(YYYY-MM-DD). Keep it short; put longer notes in files under memory/.
)";

bool is_expected(std::string_view name) { return name != "BOOTSTRAP.md" && name != "MEMORY.md"; }

bool in_set(std::string_view name, BootstrapSet set) {
  switch (set) {
    case BootstrapSet::kFull: return true;
    case BootstrapSet::kHeartbeat: return name == "HEARTBEAT.md";
    case BootstrapSet::kMinimal:
      return name == "AGENTS.md" || name == "TOOLS.md" || name == "SOUL.md" || name == "IDENTITY.md" ||
             name == "USER.md";
  }
  return false;
}

Error io_error(const fs::path& path, const std::string& what) {
  return Error{"IO_ERROR", path.string() + ": " + what};
}

// Writes `data` to a new file; never replaces an existing one. Returns false (no error) if the
// file appeared meanwhile.
Result<bool> create_exclusive(const fs::path& path, std::string_view data) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (errno == EEXIST) return false;
    return io_error(path, std::string("create: ") + std::strerror(errno));
  }
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return io_error(path, std::string("write: ") + std::strerror(err));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) return io_error(path, std::string("close: ") + std::strerror(errno));
  return true;
}

bool path_exists(const fs::path& p) {
  std::error_code ec;
  return fs::symlink_status(p, ec).type() != fs::file_type::not_found && !ec;
}

// Text that fits `budget` chars: itself, or its head ending in "…" (OpenClaw's clampToBudget).
std::string clamp_to_budget(std::string_view s, std::size_t budget) {
  if (s.size() <= budget) return std::string(s);
  static constexpr std::string_view kEllipsis = "…";
  if (budget <= kEllipsis.size()) return std::string(text::head(s, budget));
  return std::string(text::head(s, budget - kEllipsis.size())) + std::string(kEllipsis);
}

// The file actually read for `name`: MEMORY.md falls back to memory.md.
fs::path file_for(const fs::path& dir, std::string_view name) {
  fs::path p = dir / std::string(name);
  if (name == "MEMORY.md" && !path_exists(p) && path_exists(dir / "memory.md")) return dir / "memory.md";
  return p;
}

}  // namespace

std::string_view bootstrap_template(std::string_view name) {
  if (name == "AGENTS.md") return kAgentsTemplate;
  if (name == "SOUL.md") return kSoulTemplate;
  if (name == "TOOLS.md") return kToolsTemplate;
  if (name == "IDENTITY.md") return kIdentityTemplate;
  if (name == "USER.md") return kUserTemplate;
  if (name == "HEARTBEAT.md") return kHeartbeatTemplate;
  if (name == "BOOTSTRAP.md") return kBootstrapTemplate;
  if (name == "MEMORY.md") return kMemoryTemplate;
  return {};
}

Result<WorkspaceInit> ensure_workspace(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {  // runs before every turn: one stat when it is there
    fs::create_directories(dir, ec);
    if (ec) return io_error(dir, "create directory: " + ec.message());
    if (!fs::is_directory(dir, ec)) return io_error(dir, "not a directory");
  }

  WorkspaceInit init;
  std::array<bool, kBootstrapFileNames.size()> exists{};  // per name, looked at once
  for (std::size_t i = 0; i < kBootstrapFileNames.size(); ++i) exists[i] = path_exists(dir / std::string(kBootstrapFileNames[i]));
  const bool lowercase_memory = path_exists(dir / "memory.md");
  init.brand_new = std::none_of(exists.begin(), exists.end(), [](bool e) { return e; }) && !lowercase_memory;
  for (std::size_t i = 0; i < kBootstrapFileNames.size(); ++i) {
    const std::string_view name = kBootstrapFileNames[i];
    if (name == "BOOTSTRAP.md" && !init.brand_new) continue;
    if (name == "MEMORY.md" && lowercase_memory) continue;
    fs::path path = dir / std::string(name);
    if (exists[i]) continue;
    auto created = create_exclusive(path, bootstrap_template(name));
    if (!created) return created.error();
    if (*created) init.created.emplace_back(name);
  }
  return init;
}

namespace {
int64_t directory_mtime_ns(const fs::path& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return -1;
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
}
}  // namespace

Result<WorkspaceInit> ensure_workspace(const fs::path& dir, int64_t& stamp) {
  if (stamp >= 0 && directory_mtime_ns(dir) == stamp) return WorkspaceInit{};
  auto init = ensure_workspace(dir);
  // Taken after the files were made, so the next turn's stat matches unless something changed.
  stamp = init ? directory_mtime_ns(dir) : -1;
  return init;
}

std::string truncate_bootstrap_content(std::string_view content, std::string_view name, std::size_t max_chars,
                                       bool* truncated) {
  std::string_view trimmed = text::trim_end(content);
  if (trimmed.size() <= max_chars) {
    if (truncated != nullptr) *truncated = false;
    return std::string(trimmed);
  }
  // 70 % head + 20 % tail of the cap (CX-3), in whole characters.
  const auto head_target = static_cast<std::size_t>(static_cast<double>(max_chars) * 0.7);
  const auto tail_target = static_cast<std::size_t>(static_cast<double>(max_chars) * 0.2);
  std::string_view head = text::head(trimmed, head_target);
  std::string_view tail = text::tail(trimmed, tail_target);
  const std::string n(name);
  std::string marker = "\n[... " + n + " truncated: kept the first " + std::to_string(head.size()) + " and last " +
                       std::to_string(tail.size()) + " of " + std::to_string(trimmed.size()) + " chars; read " + n +
                       " for the rest ...]\n";
  if (truncated != nullptr) *truncated = true;
  std::string out;
  out.reserve(head.size() + marker.size() + tail.size() + 2);
  out.append(head);
  out += '\n';
  out += marker;
  out += '\n';
  out.append(tail);
  return out;
}

namespace {
BootstrapLoad read_bootstrap(const fs::path& dir, std::size_t per_file_max, std::size_t total_max, BootstrapSet set) {
  BootstrapLoad load;
  std::size_t remaining = total_max;
  bool stopped = false;
  for (std::string_view name : kBootstrapFileNames) {
    if (!in_set(name, set)) continue;
    BootstrapFile file;
    file.name = std::string(name);
    file.path = file_for(dir, name);
    if (stopped) {
      if (path_exists(file.path)) load.omitted.push_back(file.name);  // lost content, not absence
      continue;
    }

    // Not a regular file (a FIFO, a directory, a device, a symlink loop …): said as what it is,
    // and never opened (a FIFO would block the turn).
    const std::optional<std::string> odd = not_a_regular_file(file.path);
    auto data = odd ? Result<std::string>(Error{"NOT_REGULAR", *odd})
                    : read_bootstrap_file(file.path, kMaxBootstrapFileBytes);  // cached by stat
    std::string text;  // what this file contributes before the total-budget clamp
    if (odd) {
      text = "[NOT LOADED] " + file.path.string() + " " + *odd + "; a bootstrap file must be a regular file.";
      file.truncated = true;
    } else if (!data && data.error().code == "NOT_FOUND") {
      if (!is_expected(name)) continue;  // optional file: absent = not loaded
      file.missing = true;
      text = "[MISSING] Expected at: " + file.path.string();
    } else if (!data) {
      if (data.error().code == "TOO_LARGE") {
        std::error_code ec;
        const std::uintmax_t size = fs::file_size(file.path, ec);
        file.original_chars = ec ? 0 : static_cast<std::size_t>(size);
        text = "[NOT LOADED] " + file.name + " is larger than 4 MiB; read it with the file tools.";
      } else {
        text = "[NOT LOADED] " + data.error().message;
      }
      file.truncated = true;
    } else {
      if (text::is_blank(*data)) continue;
      if (remaining < kMinFileBudgetChars) {
        stopped = true;
        load.omitted.push_back(file.name);
        continue;
      }
      file.original_chars = text::trim_end(*data).size();
      const std::size_t cap = std::max<std::size_t>(1, std::min(per_file_max, remaining));
      bool cut = false;
      text = truncate_bootstrap_content(*data, name, cap, &cut);
      file.truncated = cut;
    }

    if (remaining == 0) {
      stopped = true;
      if (!file.missing) load.omitted.push_back(file.name);
      continue;
    }
    file.content = clamp_to_budget(text, remaining);
    if (file.content.size() < text.size() && !file.missing) file.truncated = true;
    remaining -= file.content.size();
    load.total_chars += file.content.size();
    load.files.push_back(std::move(file));
  }
  return load;
}
}  // namespace

BootstrapLoad load_bootstrap(const fs::path& dir, std::size_t per_file_max, std::size_t total_max, BootstrapSet set) {
  // Each turn loads the same files: the last load stands while nothing at their paths changed
  // (core/file_watch.h: one read(2) instead of a stat per file; issue 17's turn overhead).
  struct Memo {
    std::vector<fs::path> paths;  // the directory and every file it may read
    uint64_t stamp = 0;
    std::size_t per_file_max = 0, total_max = 0;
    BootstrapLoad load;
  };
  static std::mutex mutex;
  static std::map<std::pair<std::string, int>, Memo> memo;  // (directory, set) → its last load
  std::unique_lock lock(mutex);
  Memo& m = memo[std::make_pair(dir.native(), static_cast<int>(set))];
  if (m.paths.empty()) {
    m.paths = {dir, dir / "memory.md"};  // (MEMORY.md's fallback, file_for)
    for (std::string_view name : kBootstrapFileNames) {
      if (in_set(name, set)) m.paths.push_back(dir / std::string(name));
    }
  }
  const uint64_t stamp = FileWatch::instance().stamp(m.paths);  // before reading: a later change shows next time
  if (stamp != 0 && m.stamp == stamp && m.per_file_max == per_file_max && m.total_max == total_max) return m.load;
  lock.unlock();
  BootstrapLoad load = read_bootstrap(dir, per_file_max, total_max, set);
  lock.lock();
  if (memo.size() >= 256) {  // agents × sets: a bound, not an expected size
    memo.clear();
    return load;
  }
  Memo& fresh = memo[std::make_pair(dir.native(), static_cast<int>(set))];
  fresh.stamp = stamp;
  fresh.per_file_max = per_file_max;
  fresh.total_max = total_max;
  fresh.load = load;
  return load;
}

bool BootstrapLoad::truncated() const {
  return !omitted.empty() || std::any_of(files.begin(), files.end(), [](const BootstrapFile& f) { return f.truncated; });
}

std::string BootstrapLoad::truncation_signature() const {
  std::string sig;
  for (const auto& f : files) {
    if (!f.truncated) continue;
    if (!sig.empty()) sig += '|';
    sig += f.name + ":" + std::to_string(f.original_chars) + ">" + std::to_string(f.content.size());
  }
  for (const auto& name : omitted) {
    if (!sig.empty()) sig += '|';
    sig += name + ":omitted";
  }
  return sig;
}

std::optional<TruncationWarningMode> parse_truncation_warning_mode(std::string_view text) {
  if (text == "once") return TruncationWarningMode::kOnce;
  if (text == "always") return TruncationWarningMode::kAlways;
  if (text == "off") return TruncationWarningMode::kOff;
  return std::nullopt;
}

TruncationWarnings::TruncationWarnings(TruncationWarningMode mode, std::size_t capacity)
    : mode_(mode), capacity_(std::max<std::size_t>(capacity, 1)) {}

std::string TruncationWarnings::warning_for(const BootstrapLoad& load, std::string_view scope) {
  if (mode_ == TruncationWarningMode::kOff || !load.truncated()) return "";
  if (mode_ == TruncationWarningMode::kOnce) {
    std::string key = std::string(scope) + '\n' + load.truncation_signature();
    std::lock_guard lock(mu_);
    if (!seen_.insert(key).second) return "";
    order_.push_back(std::move(key));
    while (order_.size() > capacity_) {
      seen_.erase(order_.front());
      order_.pop_front();
    }
  }
  std::string list;
  for (const auto& f : load.files) {
    if (!f.truncated) continue;
    if (!list.empty()) list += "; ";
    list += f.original_chars == 0 ? f.name + " (not loaded)"
                                  : f.name + " (injected " + std::to_string(f.content.size()) + " of " +
                                        std::to_string(f.original_chars) + " chars)";
  }
  for (const auto& name : load.omitted) {
    if (!list.empty()) list += "; ";
    list += name + " (not loaded)";
  }
  return "Note: some workspace files were shortened to fit the context budget: " + list +
         ". Read them with the file tools if you need the full text.";
}

}  // namespace pincer::agent
