// The backend of the `message` tool (TL-1): a message to a channel recipient the agent may address,
// sent through the channels' reply delivery and outbox. The app's side is in src/app/
// (set on AgentService::session_backends()).
//
// Threading: `call` is made on tool worker threads (never the loop) and may block.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "tools/tool.h"

namespace pincer::tools {

class MessageBackend {
 public:
  virtual ~MessageBackend() = default;
  /// One call of the tool `tool` with its validated `args`, for the run `ctx` describes (its
  /// agent, session key, run id, lane). The answer is the JSON the model receives.
  virtual Result<nlohmann::json> call(std::string_view tool, const nlohmann::json& args, const ToolContext& ctx) = 0;
};

}  // namespace pincer::tools
