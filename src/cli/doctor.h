// `pincer doctor` (UI-1): checks a Pincer installation and says how to fix what is wrong.
// Checks, in order: config valid; state dir and config private; state dir writable; port free or held by our gateway;
// bind/auth safety (AU-1); gateway token strength; the default model's provider reachable with the
// configured key. Each yields one Finding; the command exits 1 when any is "fail".
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config.h"

namespace pincer::cli {

struct Finding {
  std::string check;    ///< short id: "config", "permissions", "port", "bind", "token", "provider"
  std::string status;   ///< "ok" | "warn" | "fail"
  std::string message;  ///< one line, never contains a secret
  std::string fix;      ///< what to do ("" when ok)
};

nlohmann::json to_json(const Finding& f);

/// The pure checks over an effective config (no I/O): bind/auth safety and token strength.
/// Token: fail when auth.mode is token and the token is shorter than 16 chars; warn under 24
/// (ids::random_token(32) gives 43). Password: warn under 12 chars. Bind: fail when bind is not
/// loopback and auth.mode is none; warn when lan with any auth (prefer loopback + a tunnel).
std::vector<Finding> check_security(const nlohmann::json& effective);

/// Mode bits of the state dir and pincer.json: warn when group/other can read them.
Finding check_permissions(const std::filesystem::path& state_dir, const std::filesystem::path& config_file);

/// Whether the state dir takes a real write (4 KiB, fsync'd, removed): fail with strerror when it
/// does not (read-only, not ours, disk full), warn when under 100 MiB are free, ok when it does
/// not exist yet (the gateway creates it).
Finding check_state_writable(const std::filesystem::path& state_dir);

/// Whether 127.0.0.1:port is free, held by a live Pincer gateway (GET /health answers as ours),
/// or held by something else (fail). Blocks up to ~2 s.
Finding check_port(int port);

/// GETs the default model's model-list endpoint with the configured key (OpenAI: {base}/models;
/// Anthropic: {base}/v1/models; Ollama: {base}/api/tags): 2xx ok, 401/403 fail (key rejected),
/// other HTTP statuses warn, transport errors fail. Blocks up to `timeout_ms`.
Finding check_provider(const nlohmann::json& effective, int64_t timeout_ms = 8000);

/// Every check, for the state dir and config file given.
std::vector<Finding> run_doctor(const std::filesystem::path& state_dir, const std::filesystem::path& config_file,
                                const config::EnvLookup& env);

}  // namespace pincer::cli
