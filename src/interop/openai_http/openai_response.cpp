#include "interop/openai_http/openai_response.h"
#include "core/json_dump.h"

#include <algorithm>

namespace pincer::interop::openai_http {

using nlohmann::json;

namespace detail_openai_response {

std::string dumped(const json& j) { return json_dump::compact(j); }

json output_message(const std::string& message_id, const std::string& status, const std::string& text) {
  return json{{"type", "message"},
              {"id", message_id},
              {"status", status},
              {"role", "assistant"},
              {"content", json::array({{{"type", "output_text"}, {"text", text}, {"annotations", json::array()}}})}};
}

json responses_usage(const TokenUsage& u) {
  return json{{"input_tokens", u.input},
              {"input_tokens_details", {{"cached_tokens", 0}}},
              {"output_tokens", u.output},
              {"output_tokens_details", {{"reasoning_tokens", 0}}},
              {"total_tokens", u.total}};
}

json model_row(const std::string& id, int64_t created) {
  return json{{"id", id}, {"object", "model"}, {"created", created}, {"owned_by", "pincer"}};
}

}  // namespace detail_openai_response

using namespace detail_openai_response;

json error_body(const ApiError& error) {
  return json{{"error",
               {{"message", error.message},
                {"type", error.type},
                {"param", nullptr},
                {"code", error.code.empty() ? json(nullptr) : json(error.code)}}}};
}

std::string sse_data(const json& payload) { return "data: " + dumped(payload) + "\n\n"; }

std::string sse_event(const json& payload) {
  return "event: " + payload.value("type", "message") + "\ndata: " + dumped(payload) + "\n\n";
}

std::string finish_reason(std::string_view stop_reason) { return stop_reason == "length" ? "length" : "stop"; }

json chat_completion(const std::string& id, int64_t created, const std::string& model, const std::string& text,
                     const std::string& finish, const TokenUsage& usage) {
  return json{{"id", id},
              {"object", "chat.completion"},
              {"created", created},
              {"model", model},
              {"choices", json::array({{{"index", 0},
                                        {"message", {{"role", "assistant"}, {"content", text}, {"refusal", nullptr}}},
                                        {"logprobs", nullptr},
                                        {"finish_reason", finish}}})},
              {"usage", {{"prompt_tokens", usage.input}, {"completion_tokens", usage.output}, {"total_tokens", usage.total}}}};
}

json chat_chunk(const std::string& id, int64_t created, const std::string& model, json delta, const std::string& finish) {
  return json{{"id", id},
              {"object", "chat.completion.chunk"},
              {"created", created},
              {"model", model},
              {"choices", json::array({{{"index", 0},
                                        {"delta", std::move(delta)},
                                        {"logprobs", nullptr},
                                        {"finish_reason", finish.empty() ? json(nullptr) : json(finish)}}})}};
}

json chat_usage_chunk(const std::string& id, int64_t created, const std::string& model, const TokenUsage& usage) {
  return json{{"id", id},
              {"object", "chat.completion.chunk"},
              {"created", created},
              {"model", model},
              {"choices", json::array()},
              {"usage", {{"prompt_tokens", usage.input}, {"completion_tokens", usage.output}, {"total_tokens", usage.total}}}};
}

json models_list(const std::vector<std::string>& agent_ids, int64_t created) {
  json data = json::array({model_row(std::string(kModelName), created)});
  for (const auto& id : agent_ids) data.push_back(model_row(std::string(kModelName) + "/" + id, created));
  return json{{"object", "list"}, {"data", std::move(data)}};
}

json model_entry(std::string_view id, const std::vector<std::string>& agent_ids, std::string_view default_agent,
                 int64_t created) {
  auto agent = agent_of_model(id, default_agent);
  if (!agent || std::find(agent_ids.begin(), agent_ids.end(), *agent) == agent_ids.end()) return nullptr;
  return model_row(std::string(id), created);
}

json response_object(const std::string& id, const std::string& message_id, int64_t created, const std::string& model,
                     const std::string& status, const std::string* text, const TokenUsage& usage, const ApiError* error) {
  json output = json::array();
  if (text) output.push_back(output_message(message_id, status == "in_progress" ? "in_progress" : "completed", *text));
  json out = {{"id", id},
              {"object", "response"},
              {"created_at", created},
              {"status", status},
              {"model", model},
              {"output", std::move(output)},
              {"usage", status == "in_progress" ? json(nullptr) : responses_usage(usage)},
              {"error", nullptr},
              {"incomplete_details", nullptr}};
  if (error) out["error"] = {{"code", error->code.empty() ? "server_error" : error->code}, {"message", error->message}};
  if (status == "incomplete") out["incomplete_details"] = {{"reason", "max_output_tokens"}};
  return out;
}

ResponsesStream::ResponsesStream(std::string id, std::string message_id, int64_t created, std::string model)
    : id_(std::move(id)), message_id_(std::move(message_id)), model_(std::move(model)), created_(created) {}

std::string ResponsesStream::event(json payload) {
  payload["sequence_number"] = seq_++;
  return sse_event(payload);
}

std::string ResponsesStream::start() {
  const json initial = response_object(id_, message_id_, created_, model_, "in_progress", nullptr, {});
  json item = output_message(message_id_, "in_progress", "");
  item["content"] = json::array();
  // One statement per event: the operands of `+` may be evaluated in any order (sequence numbers).
  std::string out = event({{"type", "response.created"}, {"response", initial}});
  out += event({{"type", "response.in_progress"}, {"response", initial}});
  out += event({{"type", "response.output_item.added"}, {"output_index", 0}, {"item", std::move(item)}});
  return out + event({{"type", "response.content_part.added"},
                {"item_id", message_id_},
                {"output_index", 0},
                {"content_index", 0},
                {"part", {{"type", "output_text"}, {"text", ""}, {"annotations", json::array()}}}});
}

std::string ResponsesStream::delta(const std::string& text) {
  text_ += text;
  return event({{"type", "response.output_text.delta"},
                {"item_id", message_id_},
                {"output_index", 0},
                {"content_index", 0},
                {"delta", text},
                {"logprobs", json::array()}});
}

std::string ResponsesStream::completed(const std::string& stop_reason, const TokenUsage& usage) {
  const json part = {{"type", "output_text"}, {"text", text_}, {"annotations", json::array()}};
  const std::string status = stop_reason == "length" ? "incomplete" : "completed";
  std::string out = event({{"type", "response.output_text.done"},
                           {"item_id", message_id_},
                           {"output_index", 0},
                           {"content_index", 0},
                           {"text", text_},
                           {"logprobs", json::array()}});
  out += event({{"type", "response.content_part.done"},
                {"item_id", message_id_},
                {"output_index", 0},
                {"content_index", 0},
                {"part", part}});
  out += event({{"type", "response.output_item.done"}, {"output_index", 0}, {"item", output_message(message_id_, "completed", text_)}});
  return out + event({{"type", status == "completed" ? "response.completed" : "response.incomplete"},
                {"response", response_object(id_, message_id_, created_, model_, status, &text_, usage)}});
}

std::string ResponsesStream::failed(const ApiError& error, const TokenUsage& usage) {
  return event({{"type", "response.failed"},
                {"response", response_object(id_, message_id_, created_, model_, "failed", nullptr, usage, &error)}});
}

}  // namespace pincer::interop::openai_http
