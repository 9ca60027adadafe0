// The OpenAI-compatible HTTP API on the gateway's port (SPEC IX-4, GW-9; docs/interop.md):
// `POST /v1/chat/completions`, `POST /v1/responses`, `GET /v1/models[/{id}]`, off unless
// `gateway.http.endpoints.chatCompletions.enabled` / `.responses.enabled` (the model list is served
// while either is on). Each request is one agent turn through AgentService::send, as chat.send
// starts one (tools, memory, the session's queue, exec approvals; operators see the run's `chat`
// and `agent` events); a client that goes away aborts its run.
//
// Auth: `Authorization: Bearer <gateway token or password>` checked by the gateway with the same
// per-client rate limit as a connect (never a query-string token); `gateway.auth.mode: none`
// needs none. Errors answer in OpenAI's shape (openai_response.h error_body).
//
// Loop affinity: built, reconfigured and destroyed on the event-loop thread; all work runs there.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "core/http_route.h"

namespace pincer::agent {
class AgentService;
}
namespace pincer::gateway {
class Gateway;
}

namespace pincer::interop::openai_http {

/// Largest request body taken, bytes (larger: 413). The transport's own cap for any route.
inline constexpr std::size_t kMaxBodyBytes = 8u << 20;
/// The path prefix the API lives under.
inline constexpr const char* kPathPrefix = "/v1";

/// `gateway.http.endpoints.*` as read from the config.
struct EndpointSwitches {
  bool chat_completions = false;
  bool responses = false;
};
EndpointSwitches endpoint_switches(const nlohmann::json& config);

class OpenAiHttpService {
 public:
  OpenAiHttpService(gateway::Gateway& gateway, agent::AgentService& agents, const nlohmann::json& config);
  ~OpenAiHttpService();  ///< removes the route; runs still going end unanswered (their clients get no reply)
  OpenAiHttpService(const OpenAiHttpService&) = delete;
  OpenAiHttpService& operator=(const OpenAiHttpService&) = delete;

  /// Hot reload: the switches apply to requests from now on (the route comes and goes with them).
  void reconfigure(const nlohmann::json& config);

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace pincer::interop::openai_http
