// The auth-profiles.json file of one agent (PV-2): read when it changed, updated under a lock and
// written atomically with mode 0600, so the gateway and `pincer models auth …` can both change it
// and a crash never leaves half a file. Cooldowns and disables written here survive restarts (a
// key known to be blocked for billing is skipped after a reboot, PV-3).
//
// Cost: with no file (most single-key setups) a lookup is one stat(2). Successful calls update
// lastUsed in memory only and are written with the next change that matters (a cleared cooldown,
// a failure, a new lastGood), so a turn does not pay an fsync.
//
// Thread affinity: none; every call takes the object's mutex (the gateway calls it on the loop
// thread, the CLI from main). Blocking file I/O — the file is small.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "core/result.h"
#include "llm/auth/auth_profiles.h"

namespace pincer::llm::auth {

/// `<state_dir>/agents/<agent_id>/agent/auth-profiles.json` (OpenClaw's path).
std::filesystem::path auth_profiles_path(const std::filesystem::path& state_dir, std::string_view agent_id);

class AuthProfileFile {
 public:
  explicit AuthProfileFile(std::filesystem::path path);

  const std::filesystem::path& path() const { return path_; }

  /// The document as it is on disk now (re-read when its size, mtime or inode changed; an absent
  /// file is an empty document), with the in-memory lastUsed times applied.
  /// Errors: "AUTH_PROFILES_INVALID" (the file is not valid JSON or not the right shape: message
  /// names the file and the problem), "IO_ERROR".
  Result<AuthProfiles> load();

  /// Applies `change` to the freshest document under an exclusive lock (`<file>.lock`, flock) and
  /// writes the result atomically (0600, parent directories 0700). Errors as load(), plus the
  /// write's "IO_ERROR"; the file is unchanged on error.
  Status update(const std::function<void(AuthProfiles&)>& change);

  /// Records a failure on model id `model_id` ("" = unknown; AuthProfiles::mark_failure) and
  /// writes it when it changed anything.
  Status mark_failure(std::string_view id, FailoverReason reason, int64_t now_ms, std::string_view model_id = {});
  /// Records a success on model id `model_id` ("" = unknown): lastUsed in memory; written only
  /// when the profile had a cooldown, errors or was not the provider's lastGood.
  Status mark_good(std::string_view id, int64_t now_ms, std::string_view model_id = {});

 private:
  Result<AuthProfiles> read_locked();

  std::filesystem::path path_;
  std::mutex mu_;
  struct Stamp {
    bool exists = false;
    uintmax_t size = 0;
    int64_t mtime_ns = 0;
    uint64_t inode = 0;
    bool operator==(const Stamp&) const = default;
  };
  Stamp stamp_;
  std::unique_ptr<AuthProfiles> cached_;
  std::map<std::string, int64_t> last_used_;  ///< successes not yet written
};

}  // namespace pincer::llm::auth
