// The backend of the session tools (TL-1, MA-2): sessions_list, sessions_history, session_status
// and sessions_send talk to the agent runtime through this interface. The runtime's side is
// agent/session_tools_backend.* (set on AgentService::session_backends() by the app).
//
// Threading: `call` is made on tool worker threads (never the loop) and may block.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "tools/tool.h"

namespace pincer::tools {

class SessionsBackend {
 public:
  virtual ~SessionsBackend() = default;
  /// One call of the tool `tool` with its validated `args`, for the run `ctx` describes (its
  /// agent, session key, run id, lane). The answer is the JSON the model receives.
  virtual Result<nlohmann::json> call(std::string_view tool, const nlohmann::json& args, const ToolContext& ctx) = 0;
};

}  // namespace pincer::tools
