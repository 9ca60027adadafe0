// What a config edit does to this home's running gateway's clients: an edit that leaves the file
// without the secret its auth mode needs (`config unset gateway.auth.token`, `config set
// gateway.auth.mode password` with no password …) while the gateway runs locks the CLI out — the
// gateway rejects that reload and keeps checking clients against the secret it started with,
// while every CLI command reads the file (or PINCER_GATEWAY_*), which no longer has it.
//
// Blocking (reads the gateway's lock file); any thread.
#pragma once

#include <filesystem>
#include <string>

#include "core/config.h"

namespace pincer::cli {

/// Why writing `after` over `before` (the text of `file`) would lock the CLI out of this home's
/// running gateway, or "": `file` is the config of the home `env` names (paths::state_dir), its
/// gateway runs (its lock file names a living pid that is not stopping), `before` writes the
/// secret of its auth mode (gateway.auth.token in token mode, the default; gateway.auth.password
/// in password mode) and `after` writes none for the mode it sets, this shell gives none either
/// (PINCER_GATEWAY_TOKEN / PINCER_GATEWAY_PASSWORD), and the gateway checks the file's secret (its
/// lock file records where its secret comes from: not a flag, its environment or another mode).
/// Both texts are read with the files they `$include`. The sentence names the gateway (pid, address), what happens
/// and the ways to do it on purpose (change the secret instead; or stop the gateway first).
std::string running_gateway_lockout(const std::filesystem::path& file, const std::string& before, const std::string& after,
                                    const config::EnvLookup& env);

/// A warning when writing `after` over `before` changes the auth mode or its secret while this
/// home's gateway runs, and the file's gateway.reload.mode ("hot" or "off") keeps the gateway from
/// restarting with it: it goes on checking the old secret while this CLI sends the new one, so the
/// CLI cannot reach it until it restarts. "" otherwise (the default "hybrid" and "restart" restart
/// the gateway with the new secret; a file left without one is running_gateway_lockout's case).
std::string running_gateway_keeps_old_secret(const std::filesystem::path& file, const std::string& before,
                                             const std::string& after, const config::EnvLookup& env);

}  // namespace pincer::cli
