#include "channels/matrix/matrix_settings.h"

#include "channels/channel_checks.h"

namespace pincer::channels::matrix {

using nlohmann::json;

namespace {

Error matrix_invalid(const std::string& at, const std::string& message) {
  return Error{"CONFIG_INVALID", at + ": " + message};
}

}  // namespace

Result<MatrixSettings> matrix_settings_of(const ChannelAccount& spec, const std::filesystem::path& state_dir) {
  const json& c = spec.config;
  const std::string& at = spec.config_path;
  MatrixSettings s;
  s.account_id = spec.account_id;
  s.homeserver = c.value("homeserver", "");
  if (s.homeserver.empty()) {
    return matrix_invalid(at + ".homeserver", "required to run the Matrix channel (the homeserver's URL, e.g. https://matrix.example.org)");
  }
  // "${NAME}" references (kept unexpanded by `config set`) are checked once the gateway expands them.
  if (s.homeserver.rfind("http://", 0) != 0 && s.homeserver.rfind("https://", 0) != 0 && !is_unexpanded_env_reference(s.homeserver)) {
    return matrix_invalid(at + ".homeserver", "must be an http(s) URL, e.g. https://matrix.example.org, got \"" + s.homeserver + "\"");
  }
  s.access_token = c.value("accessToken", "");
  if (s.access_token.empty()) {
    return matrix_invalid(at + ".accessToken",
                          "required to run the Matrix channel (the bot account's access token; docs/channels.md says how to get one)");
  }
  if (s.access_token.find_first_of(" \r\n") != std::string::npos) {
    return matrix_invalid(at + ".accessToken", "must be the bare access token (no spaces, no \"Bearer \" prefix)");
  }
  s.user_id = c.value("userId", "");
  if (!s.user_id.empty() && !is_unexpanded_env_reference(s.user_id) && (s.user_id[0] != '@' || s.user_id.find(':') == std::string::npos)) {
    return matrix_invalid(at + ".userId", "must be a full Matrix user id like @pincer:example.org, got \"" + s.user_id + "\"");
  }
  s.auto_join = c.value("autoJoin", s.auto_join);
  if (s.auto_join != "always" && s.auto_join != "allowlist" && s.auto_join != "off") {
    return matrix_invalid(at + ".autoJoin", "must be \"always\", \"allowlist\" or \"off\", got \"" + s.auto_join + "\"");
  }
  for (const auto& e : c.value("autoJoinAllowlist", json::array())) {
    if (e.is_string()) s.auto_join_allowlist.push_back(e.get<std::string>());
  }
  s.config_path = at;
  s.state_file = state_dir / "channels" / "matrix" / (s.account_id + ".json");
  return s;
}

}  // namespace pincer::channels::matrix
