#include "agent/run_tool_settings.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "core/saturating.h"

namespace pincer::agent {

Status apply_tool_settings(RunInputs& in, const std::shared_ptr<const nlohmann::json>& shared_config) {
  const nlohmann::json& config = *shared_config;
  const nlohmann::json* exec = nullptr;
  if (config.is_object() && config.contains("tools") && config["tools"].is_object() &&
      config["tools"].contains("exec") && config["tools"]["exec"].is_object()) {
    exec = &config["tools"]["exec"];
  }
  if (exec != nullptr) {
    if (auto it = exec->find("timeoutSec"); it != exec->end() && it->is_number()) {
      in.exec_timeout_ms = saturating_mul(std::max<int64_t>(saturating_json_int<int64_t>(*it, 0), 0), 1000);
    }
    if (auto it = exec->find("maxOutputChars"); it != exec->end() && it->is_number()) {
      in.exec_max_output_chars = static_cast<std::size_t>(std::max<int64_t>(saturating_json_int<int64_t>(*it, 1024), 1024));
    }
  }
  auto sandbox = tools::sandbox::settings_for_agent(config, in.agent_id);
  if (!sandbox) return sandbox.error();
  if (tools::sandbox::applies(*sandbox, in.agent_id, in.session_key)) {
    in.sandbox = std::make_shared<const tools::sandbox::Settings>(std::move(*sandbox));
    spdlog::info("run {}: tools sandboxed (bwrap, workspace {}, network {})", in.run_id,
                 tools::sandbox::to_string(in.sandbox->workspace_access), in.sandbox->network ? "on" : "off");
  }
  in.config = shared_config;  // shared, not copied: the tools read it during the run
  return Ok{};
}

}  // namespace pincer::agent
