// An account's state file (`$PINCER_HOME/channels/<channel>/<account>.json`): what a channel keeps
// across restarts (Discord's session and last message ids, Slack's handled messages, Matrix's sync
// token, the e-mail channel's last UID and threads). One reader and one writer for all of them.
//
// Blocking file I/O, small files: called at construction and after a batch is handled, on the
// channel's loop.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace pincer::channels {

/// The JSON object in `file`; nullopt when `file` is "" (memory only), absent (a first run) or not
/// a JSON object — then with a warning naming `label` (e.g. "slack[work]") and the file: the
/// account starts afresh rather than not at all.
std::optional<nlohmann::json> read_channel_state(const std::filesystem::path& file, const std::string& label);

/// Writes `state` to `file` atomically (mode 0600), creating its folder; nothing when `file` is "".
/// A failure is logged as an error naming `label` and the file (the account keeps running: at
/// worst a restart repeats what the file would have remembered).
void write_channel_state(const std::filesystem::path& file, const nlohmann::json& state, const std::string& label);

}  // namespace pincer::channels
