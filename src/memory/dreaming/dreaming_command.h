// `/dreaming` in chat (SPEC DR-1; OpenClaw's memory-core command, same words and rights):
//
//   /dreaming [help]      usage, the status and what each phase does
//   /dreaming status      on/off (and timezone), the sweep's cron cadence and next run (or why
//                         none), the promotion gates of the deep phase
//   /dreaming on|off      writes plugins.entries.memory-core.config.dreaming.enabled to pincer.json;
//                         the gateway's config reload then adds or removes the managed sweep job.
//                         Only for the owner: a channel sender in commands.ownerAllowFrom, a gateway
//                         client holding operator.admin.
//
// Pure apart from the write, which the surface lends (it knows the config file and its writer).
// Any thread; the write callback's affinity is the caller's.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace pincer::memory::dreaming {

/// What the surface that runs the command lends it.
struct DreamingCommandAccess {
  /// The caller may change the gateway's config (see the header comment).
  bool may_change_config = false;
  /// Writes an RFC 7386 merge patch to pincer.json through the config file's one writer (comments
  /// kept, checked, atomic). Empty: this surface cannot write the config (the reply says how to).
  std::function<Status(const nlohmann::json& merge_patch)> patch_config;
};

struct DreamingCommandReply {
  std::string text;
  bool ok = true;  ///< false when refused or the write failed (the text says why)
};

/// Runs `/dreaming <arg>` against the effective `config` at `now_ms` (wall clock, ms).
DreamingCommandReply dreaming_command(const nlohmann::json& config, std::string_view arg,
                                      const DreamingCommandAccess& access, int64_t now_ms);

}  // namespace pincer::memory::dreaming
