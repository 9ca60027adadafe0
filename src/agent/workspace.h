// An agent's workspace and its bootstrap files (SPEC CX-2, CX-3): creating them from templates on
// first use, and loading them into the system prompt within a character budget.
//
// Bootstrap files, in injection order (OpenClaw's order):
//   AGENTS.md, SOUL.md, TOOLS.md, IDENTITY.md, USER.md, HEARTBEAT.md, BOOTSTRAP.md, MEMORY.md
// AGENTS … HEARTBEAT are expected: when one is missing the prompt gets a "[MISSING]" note so the
// model knows where it should be. BOOTSTRAP.md (first run only; the agent deletes it when done)
// and MEMORY.md are optional: absent means simply not loaded. `memory.md` is read when MEMORY.md
// does not exist.
//
// Budget rules (CX-3; OpenClaw's buildBootstrapContextFiles, research/openclaw-protocol.md §9).
// Sizes are UTF-8 bytes ("chars"); no cut splits a character.
//   * Content is trimmed of trailing whitespace first; whitespace-only files are skipped.
//   * A file longer than its cap — min(per_file_max, remaining total budget), at least 1 — keeps
//     its first floor(cap × 0.7) and last floor(cap × 0.2) chars joined by a marker naming the
//     file and the counts (truncate_bootstrap_content).
//   * Every injected text (content or [MISSING] note) is charged to the total budget; text that
//     still does not fit is clamped to the remaining budget and ends with "…".
//   * Files stop once less than 64 chars of the total budget remain (kMinFileBudgetChars); the
//     existing files left out are reported in BootstrapLoad::omitted.
//
// Blocking file I/O: call from a worker thread, not the event loop.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace pincer::agent {

/// The bootstrap files, in injection order.
inline constexpr std::array<std::string_view, 8> kBootstrapFileNames = {
    "AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md", "BOOTSTRAP.md", "MEMORY.md"};

/// Files stop being added once the remaining total budget is below this many chars.
inline constexpr std::size_t kMinFileBudgetChars = 64;

/// A bootstrap file larger than this (bytes) is not read; the prompt gets a note instead.
inline constexpr std::uintmax_t kMaxBootstrapFileBytes = 4u << 20;

/// Our template for a bootstrap file ("" for other names). Short on purpose: every byte of these
/// files is sent with every turn (LESSONS 1).
std::string_view bootstrap_template(std::string_view name);

/// What ensure_workspace() did.
struct WorkspaceInit {
  bool brand_new = false;             ///< no bootstrap file existed before
  std::vector<std::string> created;   ///< file names written, in kBootstrapFileNames order
};

/// Creates `dir` (and parents) if needed and writes each missing bootstrap file from its
/// template. Never overwrites: a file that exists (even empty) is left alone, and files are
/// created with O_EXCL so a concurrent writer wins. BOOTSTRAP.md is written only into a brand-new
/// workspace (none of the bootstrap files existed), so it does not come back after the agent
/// deleted it. Errors: "IO_ERROR" naming the path.
Result<WorkspaceInit> ensure_workspace(const std::filesystem::path& dir);

/// The same for a caller that checks one workspace before every turn: `stamp` keeps the
/// directory's modification time (ns; -1 = none yet) from the last call that left every file in
/// place. While it is unchanged no entry can have been added or removed, so the per-file checks
/// are skipped (one stat instead of ten). Loop affinity: the caller's (the stamp is not shared).
Result<WorkspaceInit> ensure_workspace(const std::filesystem::path& dir, int64_t& stamp);

/// Which bootstrap files a run loads (CX-3).
enum class BootstrapSet {
  kFull,       ///< all files (normal chat runs)
  kMinimal,    ///< AGENTS, TOOLS, SOUL, IDENTITY, USER (subagent and cron runs)
  kHeartbeat,  ///< HEARTBEAT.md only
};

/// One file as injected into the prompt.
struct BootstrapFile {
  std::string name;              ///< "AGENTS.md"
  std::filesystem::path path;    ///< where it is (or is expected)
  std::string content;           ///< the injected text (a "[MISSING] …" note when missing)
  bool missing = false;
  std::size_t original_chars = 0;  ///< file size after trimming trailing whitespace (0 if missing)
  bool truncated = false;          ///< content is not the whole (trimmed) file
  bool operator==(const BootstrapFile&) const = default;
};

/// The result of load_bootstrap().
struct BootstrapLoad {
  std::vector<BootstrapFile> files;   ///< in injection order
  std::vector<std::string> omitted;   ///< existing files left out: the total budget ran out
  std::size_t total_chars = 0;        ///< sum of files[].content sizes

  /// True when some file was cut or left out.
  bool truncated() const;
  /// Identifies this set of cuts, e.g. "AGENTS.md:45000>20016|MEMORY.md:omitted"; "" when
  /// nothing was cut. The same files cut the same way give the same signature.
  std::string truncation_signature() const;
};

/// Applies the per-file rule: `content` without trailing whitespace, cut to head 70 % + marker +
/// tail 20 % of `max_chars` when longer than `max_chars`. The marker names `name` and the counts:
///   "\n[... NAME truncated: kept the first H and last T of LEN chars; read NAME for the rest ...]\n"
/// joined with "\n" between head, marker and tail. `*truncated` (optional) says whether it cut.
std::string truncate_bootstrap_content(std::string_view content, std::string_view name, std::size_t max_chars,
                                       bool* truncated = nullptr);

/// Loads the bootstrap files of `dir` for the prompt (rules above). `per_file_max` and
/// `total_max` are agents.defaults.bootstrapMaxChars / bootstrapTotalMaxChars. Unreadable files
/// are loaded as a one-line note saying why.
BootstrapLoad load_bootstrap(const std::filesystem::path& dir, std::size_t per_file_max, std::size_t total_max,
                             BootstrapSet set = BootstrapSet::kFull);

/// agents.defaults.bootstrapTruncationWarning.
enum class TruncationWarningMode { kOnce, kAlways, kOff };

/// "once" | "always" | "off" → mode; nullopt for anything else.
std::optional<TruncationWarningMode> parse_truncation_warning_mode(std::string_view text);

/// Decides when the model is told that bootstrap files were cut (CX-3), and words the notice.
/// `once` remembers, in memory, each (scope, signature) pair it has warned about — scope is
/// usually the session key — and stays silent for a pair it has seen; the memory is bounded
/// (oldest pairs are forgotten first). Thread-safe.
///
/// The notice changes from turn to turn, so it belongs in the per-turn context
/// (system_prompt.h build_turn_context), never in the cached system prompt.
class TruncationWarnings {
 public:
  explicit TruncationWarnings(TruncationWarningMode mode, std::size_t capacity = 1024);

  /// The notice for `load` in `scope`, or "" when there is nothing to say (nothing cut, mode
  /// off, or already said once). Example:
  ///   "Note: some workspace files were shortened to fit the context budget: AGENTS.md
  ///    (injected 14153 of 45000 chars); MEMORY.md (not loaded). Read them with the file tools
  ///    if you need the full text."
  /// ("injected" counts the text put into the prompt, markers included.)
  std::string warning_for(const BootstrapLoad& load, std::string_view scope = "");

  TruncationWarningMode mode() const { return mode_; }

 private:
  TruncationWarningMode mode_;
  std::size_t capacity_;
  std::mutex mu_;
  std::set<std::string> seen_;
  std::deque<std::string> order_;  // insertion order of seen_, for eviction
};

}  // namespace pincer::agent
