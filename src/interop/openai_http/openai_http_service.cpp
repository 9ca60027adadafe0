#include "interop/openai_http/openai_http_service.h"

#include <algorithm>
#include <cctype>

#include <spdlog/spdlog.h>

#include "agent/agent_service.h"
#include "agent/silent_reply.h"
#include "core/ids.h"
#include "core/redact.h"
#include "gateway/gateway.h"
#include "gateway/run_event_bridge.h"
#include "interop/openai_http/openai_request.h"
#include "interop/openai_http/openai_response.h"
#include "core/json_dump.h"

namespace pincer::interop::openai_http {

using nlohmann::json;

EndpointSwitches endpoint_switches(const json& config) {
  EndpointSwitches out;
  const json* endpoints = nullptr;
  if (config.is_object() && config.contains("gateway") && config["gateway"].is_object()) {
    const json& gw = config["gateway"];
    if (gw.contains("http") && gw["http"].is_object() && gw["http"].contains("endpoints") &&
        gw["http"]["endpoints"].is_object()) {
      endpoints = &gw["http"]["endpoints"];
    }
  }
  if (!endpoints) return out;
  auto enabled = [endpoints](const char* name) {
    return endpoints->contains(name) && (*endpoints)[name].is_object() && (*endpoints)[name].value("enabled", false) == true;
  };
  out.chat_completions = enabled("chatCompletions");
  out.responses = enabled("responses");
  return out;
}

namespace detail_openai_service {

net::HttpRouteResponse answer(int status, const json& body, std::vector<std::pair<std::string, std::string>> headers = {}) {
  return {status, "application/json; charset=utf-8", json_dump::compact(body),
          std::move(headers)};
}

net::HttpRouteResponse error_answer(const ApiError& e) {
  std::vector<std::pair<std::string, std::string>> headers;
  if (e.status == 401) headers.emplace_back("WWW-Authenticate", "Bearer");
  return answer(e.status, error_body(e), std::move(headers));
}

/// The credential of `Authorization: Bearer <token>` ("" when none).
std::string bearer_of(const std::map<std::string, std::string>& headers) {
  auto it = headers.find("authorization");
  if (it == headers.end()) return "";
  std::string_view v = it->second;
  while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
  if (v.size() < 7) return "";
  std::string scheme(v.substr(0, 7));
  std::transform(scheme.begin(), scheme.end(), scheme.begin(), [](unsigned char c) { return std::tolower(c); });
  if (scheme != "bearer ") return "";
  v.remove_prefix(7);
  while (!v.empty() && (v.front() == ' ' || v.back() == ' ')) v.front() == ' ' ? v.remove_prefix(1) : v.remove_suffix(1);
  return std::string(v);
}

bool query_has_token(const std::string& query) {
  std::size_t at = 0;
  while (at <= query.size()) {
    const std::size_t end = std::min(query.find('&', at), query.size());
    const std::string_view item(query.data() + at, end - at);
    const std::string_view name = item.substr(0, item.find('='));
    if (name == "token" || name == "api_key" || name == "key" || name == "password") return true;
    at = end + 1;
  }
  return false;
}

/// %XX decoding of a path segment (a model id such as `pincer%2Fmain`).
std::string percent_decoded(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

/// One request's turn, shared by the run's sink and the client-gone callback.
struct Turn {
  Endpoint endpoint = Endpoint::ChatCompletions;
  TurnRequest request;
  std::string id, message_id, session_key;
  int64_t created = 0;
  net::HttpResponder respond;
  std::shared_ptr<net::HttpStream> out;     // streamed answers
  std::unique_ptr<ResponsesStream> events;  // Responses streams
  std::string step_text;                    // the current model step's text streamed so far
  std::string pending;  // stream bytes of events before the stream began (sent with its head)
  bool client_gone = false;
  bool done = false;

  void write(const std::string& bytes) {
    if (client_gone) return;
    if (out) out->write(bytes);
    else pending += bytes;
  }
  void stream_text(const std::string& text) {
    if (text.empty()) return;
    if (endpoint == Endpoint::Responses) return write(events->delta(text));
    write(sse_data(chat_chunk(id, created, request.model, {{"content", text}})));
  }
  void finish_stream() {
    if (out) out->end();
    out.reset();
  }
};

ApiError run_error(const agent::RunEvent& e) {
  if (e.kind == agent::RunEvent::Kind::Aborted) {
    return ApiError{500, "api_error", "run_aborted", "The agent run was aborted (" + e.stop_reason + ")."};
  }
  // The caller's message alone does not fit the model's window (message_fit.h): the request's fault.
  if (e.error_reason == "message_too_large") {
    return ApiError{400, "invalid_request_error", "context_length_exceeded", redact::apply(e.error)};
  }
  // The configured model's window cannot hold the system prompt and tools: the gateway's setup,
  // neither the caller's request nor the provider (message_fit.h).
  if (e.error_reason == "context_window_too_small") {
    return ApiError{500, "api_error", "context_window_too_small", redact::apply(e.error)};
  }
  // A provider's failure (rate limit, auth, overload …) is a bad gateway; anything else ours.
  const bool upstream = !e.error_reason.empty();
  return ApiError{upstream ? 502 : 500, upstream ? "upstream_error" : "api_error", upstream ? e.error_reason : "run_failed",
                  "The agent run failed: " + redact::apply(e.error)};
}

void on_event(Turn& t, const agent::RunEvent& e) {
  using Kind = agent::RunEvent::Kind;
  if (t.done) return;
  const TokenUsage usage{e.usage.input, e.usage.output, e.usage.total_tokens};
  switch (e.kind) {
    case Kind::AssistantDelta:
      if (t.request.stream) t.stream_text(e.delta);
      t.step_text = e.text;
      return;
    case Kind::ToolStart:
      t.step_text.clear();  // the next model step's text starts afresh
      return;
    case Kind::End: {
      t.done = true;
      const std::string finish = finish_reason(e.stop_reason);
      if (!t.request.stream) {
        const json body = t.endpoint == Endpoint::ChatCompletions
                              ? chat_completion(t.id, t.created, t.request.model, e.text, finish, usage)
                              : response_object(t.id, t.message_id, t.created, t.request.model,
                                                finish == "length" ? "incomplete" : "completed", &e.text, usage);
        return t.respond(answer(200, body));
      }
      // What the last step said beyond what was streamed (a silent reply streams nothing).
      if (e.text.size() > t.step_text.size() && e.text.compare(0, t.step_text.size(), t.step_text) == 0) {
        t.stream_text(e.text.substr(t.step_text.size()));
      }
      if (t.endpoint == Endpoint::Responses) {
        t.write(t.events->completed(e.stop_reason, usage));
      } else {
        t.write(sse_data(chat_chunk(t.id, t.created, t.request.model, json::object(), finish)));
        if (t.request.include_usage) t.write(sse_data(chat_usage_chunk(t.id, t.created, t.request.model, usage)));
        t.write(std::string(kSseDone));
      }
      return t.finish_stream();
    }
    case Kind::Error:
    case Kind::Aborted: {
      t.done = true;
      if (t.client_gone) return t.finish_stream();
      const ApiError error = run_error(e);
      spdlog::warn("openai-http: {} {}: {}", t.id, t.session_key, error.message);
      if (!t.request.stream) return t.respond(error_answer(error));
      if (t.endpoint == Endpoint::Responses) {
        t.write(t.events->failed(error, usage));
      } else {
        t.write(sse_data(error_body(error)));
        t.write(std::string(kSseDone));
      }
      return t.finish_stream();
    }
    default:
      return;
  }
}

}  // namespace detail_openai_service

using namespace detail_openai_service;

struct OpenAiHttpService::State : std::enable_shared_from_this<State> {
  State(gateway::Gateway& g, agent::AgentService& a) : gateway(g), agents(a) {}
  gateway::Gateway& gateway;
  agent::AgentService& agents;
  EndpointSwitches switches;
  bool routed = false;
  bool alive = true;

  void apply(const json& config) {
    const EndpointSwitches next = endpoint_switches(config);
    const bool want = next.chat_completions || next.responses;
    if (next.chat_completions != switches.chat_completions || next.responses != switches.responses) {
      spdlog::info("openai-http: /v1/chat/completions {}, /v1/responses {}", next.chat_completions ? "on" : "off",
                   next.responses ? "on" : "off");
    }
    switches = next;
    if (want && !routed) {
      net::HttpRoute route;
      route.path_prefix = kPathPrefix;
      route.max_body_bytes = kMaxBodyBytes;
      route.format_error = [](int status, const std::string& message) {
        return error_answer(ApiError{status, "invalid_request_error", status == 413 ? "request_too_large" : "", message});
      };
      route.handle = [weak = weak_from_this()](const net::HttpRouteRequest& req, net::HttpResponder respond) {
        auto self = weak.lock();
        if (!self || !self->alive) return respond(error_answer({503, "api_error", "", "The gateway is stopping."}));
        self->handle(req, std::move(respond));
      };
      gateway.http_routes().add(std::move(route));
      routed = true;
    } else if (!want && routed) {
      gateway.http_routes().remove(kPathPrefix);
      routed = false;
    }
  }

  void handle(const net::HttpRouteRequest& req, net::HttpResponder respond) {
    const std::string& path = req.path;
    const bool chat = path == "/v1/chat/completions", responses = path == "/v1/responses";
    const bool models = path == "/v1/models" || path.rfind("/v1/models/", 0) == 0;
    const bool on = chat ? switches.chat_completions : responses ? switches.responses : models;
    if (!on) {
      return respond(error_answer({404, "invalid_request_error", "unknown_url",
                                   "Unknown request URL: " + req.method + " " + path + " (the OpenAI-compatible endpoints "
                                   "are turned on by gateway.http.endpoints.*.enabled)"}));
    }
    const char* allowed = models ? "GET" : "POST";
    if (req.method != allowed) {
      auto refused = error_answer({405, "invalid_request_error", "method_not_allowed",
                                   req.method + " is not allowed on " + path + "; use " + allowed});
      refused.headers.emplace_back("Allow", allowed);
      return respond(std::move(refused));
    }
    if (query_has_token(req.query)) {
      return respond(error_answer({400, "invalid_request_error", "token_in_query",
                                   "Credentials are not accepted in the query string; send Authorization: Bearer <token>"}));
    }
    if (!req.authorize_bearer || !req.authorize_bearer(bearer_of(req.headers))) {
      return respond(error_answer({401, "authentication_error", "invalid_api_key",
                                   "Invalid or missing gateway credential: send Authorization: Bearer <gateway token or "
                                   "password>"}));
    }
    if (gateway.shutting_down()) return respond(error_answer({503, "api_error", "", "The gateway is stopping."}));
    const json roster = agents.list_agents();
    std::vector<std::string> agent_ids;
    for (const auto& a : roster["agents"]) agent_ids.push_back(a.value("id", ""));
    const std::string default_agent = roster.value("defaultId", "main");
    const int64_t created = gateway.clock().wall_ms() / 1000;
    if (models) {
      if (path == "/v1/models") return respond(answer(200, models_list(agent_ids, created)));
      const std::string id = percent_decoded(path.substr(std::string("/v1/models/").size()));
      json entry = model_entry(id, agent_ids, default_agent, created);
      if (entry.is_null()) {
        return respond(error_answer({404, "invalid_request_error", "model_not_found", "The model `" + id + "` does not exist"}));
      }
      return respond(answer(200, entry));
    }
    const Endpoint endpoint = chat ? Endpoint::ChatCompletions : Endpoint::Responses;
    auto parsed = chat ? parse_chat_request(req.body) : parse_responses_request(req.body);
    if (auto* e = std::get_if<ApiError>(&parsed)) return respond(error_answer(*e));
    auto turn = std::make_shared<Turn>();
    turn->endpoint = endpoint;
    turn->request = std::move(std::get<TurnRequest>(parsed));
    turn->created = created;
    const std::string uuid = ids::uuid_v4();
    turn->id = (chat ? "chatcmpl_" : "resp_") + uuid;
    turn->message_id = "msg_" + uuid;
    auto session = choose_session(req.headers, turn->request, endpoint, default_agent, agent_ids, ids::uuid_v4());
    if (auto* e = std::get_if<ApiError>(&session)) return respond(error_answer(*e));
    const SessionChoice& where = std::get<SessionChoice>(session);
    if (!turn->request.system.empty()) {
      spdlog::debug("openai-http: {} system message(s) of {} not applied (the agent keeps its own system prompt)",
                    turn->request.system.size(), turn->id);
    }
    turn->respond = std::move(respond);
    agent::SendRequest send{where.session_key, where.agent_id, turn->request.message, turn->id, "", agent::RunLane::Main};
    // Operators see the run as one of chat.send (chat/agent events); the HTTP client gets its own.
    auto operators = gateway::make_run_event_sink(gateway);
    auto mine = agent::without_silent_replies([turn](const agent::RunEvent& e) { on_event(*turn, e); });
    auto accepted = agents.send(send, [operators, mine](const agent::RunEvent& e) {
      operators(e);
      mine(e);
    });
    if (!accepted) {
      const Error& e = accepted.error();
      const bool ours = e.code == "INVALID_REQUEST";
      return turn->respond(error_answer({ours ? 400 : 500, ours ? "invalid_request_error" : "api_error", ours ? "" : e.code,
                                   e.message + (ours ? "" : gateway.config_drift_note().empty() ? "" : " (" + gateway.config_drift_note() + ")")}));
    }
    turn->session_key = accepted->session_key;
    if (req.on_client_gone) {
      req.on_client_gone([weak = weak_from_this(), turn, run_id = accepted->run_id] {
        turn->client_gone = true;
        auto self = weak.lock();
        if (!self || turn->done) return;
        spdlog::info("openai-http: the client of {} went away; aborting the run", run_id);
        if (auto st = self->agents.abort(turn->session_key, run_id, "client disconnected"); !st) {
          spdlog::warn("openai-http: abort {}: {}", run_id, st.error().message);
        }
      });
    }
    if (!turn->request.stream) return;  // answered when the run ends
    net::HttpRouteResponse head{200, "text/event-stream; charset=utf-8", "", {{"Cache-Control", "no-cache"}}};
    if (endpoint == Endpoint::Responses) {
      turn->events = std::make_unique<ResponsesStream>(turn->id, turn->message_id, created, turn->request.model);
      head.body = turn->events->start();
    } else {
      head.body = sse_data(chat_chunk(turn->id, created, turn->request.model, {{"role", "assistant"}, {"content", ""}}));
    }
    head.body += std::exchange(turn->pending, {});
    if (!req.begin_stream) return turn->respond(error_answer({500, "api_error", "", "streaming is not available"}));
    turn->out = req.begin_stream(std::move(head));
    if (turn->done) turn->finish_stream();  // the run ended before the stream began
  }
};

OpenAiHttpService::OpenAiHttpService(gateway::Gateway& gateway, agent::AgentService& agents, const json& config)
    : state_(std::make_shared<State>(gateway, agents)) {
  state_->apply(config);
}

OpenAiHttpService::~OpenAiHttpService() {
  state_->alive = false;
  if (state_->routed) state_->gateway.http_routes().remove(kPathPrefix);
}

void OpenAiHttpService::reconfigure(const json& config) { state_->apply(config); }

}  // namespace pincer::interop::openai_http
