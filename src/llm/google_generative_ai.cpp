// Google Gemini (streamGenerateContent, SSE): request building and stream decoding. See the header.
#include "llm/google_generative_ai.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace pincer::llm {
// Named, then anonymous: keeps Decoder, build_body … apart from the other wire APIs' in a unity build.
namespace google_generative_ai_wire {
namespace {

using nlohmann::json;
using namespace wire;

constexpr std::string_view kApi = "google-generative-ai";

std::string lowered(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

/// Splits "<id>|<thoughtSignature>" (see the header) into its halves.
std::pair<std::string, std::string> split_call_id(const std::string& id) {
  const auto bar = id.find('|');
  if (bar == std::string::npos) return {id, ""};
  return {id.substr(0, bar), id.substr(bar + 1)};
}

// ---------------------------------------------------------------------------------------------
// Request
// ---------------------------------------------------------------------------------------------

json inline_data(const ImageContent& image) {
  return json{{"inlineData", {{"mimeType", image.mime_type}, {"data", image.data}}}};
}

bool blank(const std::string& s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; }

void add_user(const ModelSpec& model, const UserMessage& m, json& contents) {
  json parts = json::array();
  for (const auto& block : m.content) {
    if (const auto* t = std::get_if<TextContent>(&block); t && !blank(t->text)) {
      parts.push_back({{"text", t->text}});
    } else if (const auto* img = std::get_if<ImageContent>(&block); img && accepts_images(model)) {
      parts.push_back(inline_data(*img));
    }
  }
  if (!parts.empty()) contents.push_back({{"role", "user"}, {"parts", std::move(parts)}});
}

void add_assistant(const ModelSpec& model, const AssistantMessage& m, json& contents,
                   std::map<std::string, std::string>& names) {
  const bool same = m.provider == model.provider && m.api == model.api && m.model == model.id;
  json parts = json::array();
  for (const auto& block : m.content) {
    if (const auto* t = std::get_if<TextContent>(&block); t && !blank(t->text)) {
      parts.push_back({{"text", t->text}});
    } else if (const auto* th = std::get_if<ThinkingContent>(&block); th && !th->redacted && !blank(th->thinking)) {
      if (same && !th->signature.empty()) {
        parts.push_back({{"thought", true}, {"text", th->thinking}, {"thoughtSignature", th->signature}});
      } else {
        parts.push_back({{"text", th->thinking}});
      }
    } else if (const auto* call = std::get_if<ToolCall>(&block)) {
      names[call->id] = call->name;
      json args = call->arguments.is_object() ? call->arguments : json::object();
      json part{{"functionCall", {{"name", call->name}, {"args", std::move(args)}}}};
      if (auto sig = split_call_id(call->id).second; same && !sig.empty()) part["thoughtSignature"] = sig;
      parts.push_back(std::move(part));
    }
  }
  if (!parts.empty()) contents.push_back({{"role", "model"}, {"parts", std::move(parts)}});
}

void add_tool_result(const ModelSpec& model, const ToolResultMessage& m, json& contents,
                     const std::map<std::string, std::string>& names) {
  std::string name = m.tool_name;
  if (name.empty()) {
    if (auto it = names.find(m.tool_call_id); it != names.end()) name = it->second;
  }
  std::string text = joined_text(m.content);
  if (text.empty() && has_images(m.content)) text = "(see attached image)";
  json part{{"functionResponse", {{"name", name}, {"response", {{m.is_error ? "error" : "output", text}}}}}};
  // Consecutive results share one user turn (Gemini answers parallel calls in one content).
  const bool append = !contents.empty() && contents.back()["role"] == "user" &&
                      !contents.back()["parts"].empty() && contents.back()["parts"].front().contains("functionResponse");
  if (!append) contents.push_back({{"role", "user"}, {"parts", json::array()}});
  json& parts = contents.back()["parts"];
  // Keep functionResponse parts ahead of any images already added for an earlier result.
  auto first_image = std::find_if(parts.begin(), parts.end(), [](const json& p) { return p.contains("inlineData"); });
  parts.insert(first_image, std::move(part));
  if (!accepts_images(model)) return;
  for (const auto& b : m.content) {
    if (const auto* img = std::get_if<ImageContent>(&b)) parts.push_back(inline_data(*img));
  }
}

json build_contents(const ModelSpec& model, const Context& context) {
  json contents = json::array();
  std::map<std::string, std::string> names;  ///< tool-call id → function name
  for (const Message& message : prepare_history(model, context.messages)) {
    if (const auto* u = std::get_if<UserMessage>(&message)) add_user(model, *u, contents);
    else if (const auto* a = std::get_if<AssistantMessage>(&message)) add_assistant(model, *a, contents, names);
    else add_tool_result(model, std::get<ToolResultMessage>(message), contents, names);
  }
  return contents;
}

json build_body(const ModelSpec& model, const Context& context, const RequestOptions& options) {
  json config{{"maxOutputTokens", options.max_tokens.value_or(model.max_tokens)}};
  if (model.reasoning) {
    if (auto thinking = gemini_thinking_config(model, options.thinking)) config["thinkingConfig"] = std::move(*thinking);
  }
  json body{{"contents", build_contents(model, context)}, {"generationConfig", std::move(config)}};
  if (!context.system_prompt.empty()) body["systemInstruction"] = {{"parts", json::array({{{"text", context.system_prompt}}})}};
  if (!context.tools.empty()) {
    json decls = json::array();
    for (const auto& t : context.tools) {
      // parametersJsonSchema takes any JSON Schema; `parameters` is an OpenAPI subset that
      // rejects keywords tools use (additionalProperties, $schema, const …).
      decls.push_back({{"name", t.name}, {"description", t.description}, {"parametersJsonSchema", t.parameters()}});
    }
    body["tools"] = json::array({{{"functionDeclarations", std::move(decls)}}});
  }
  return body;
}

HttpRequest build_request(const ModelSpec& model, const Context& context, const RequestOptions& options) {
  std::string_view id = model.id;
  if (id.substr(0, 7) == "models/") id.remove_prefix(7);
  HttpRequest req;
  req.url = join_url(model.base_url, "/models/" + std::string(id) + ":streamGenerateContent?alt=sse");
  std::vector<std::pair<std::string, std::string>> auth;
  if (!model.api_key.empty()) auth.emplace_back("x-goog-api-key", model.api_key);
  add_headers(req, model, std::move(auth), "text/event-stream");
  req.body = dump_body(build_body(model, context, options));
  return req;
}

// ---------------------------------------------------------------------------------------------
// Stream
// ---------------------------------------------------------------------------------------------

std::string finish_meaning(const std::string& reason) {
  if (reason == "SAFETY" || reason == "IMAGE_SAFETY") return "blocked by the provider's safety filters";
  if (reason == "RECITATION") return "blocked as recitation of copyrighted material";
  if (reason == "BLOCKLIST" || reason == "PROHIBITED_CONTENT" || reason == "SPII") {
    return "blocked by the provider's content policy";
  }
  if (reason == "MALFORMED_FUNCTION_CALL" || reason == "UNEXPECTED_TOOL_CALL") return "the model produced an invalid tool call";
  if (reason == "LANGUAGE") return "unsupported language";
  return "the model stopped abnormally";
}

class Decoder final : public SseStreamDecoder {
 public:
  using SseStreamDecoder::SseStreamDecoder;

 protected:
  Status on_event(const SseEvent& event) override {
    auto chunk = event_object(kApi, event.data, "chunk is not a JSON object");
    if (!chunk) return chunk.error();
    if (auto err = chunk->find("error"); err != chunk->end() && !err->is_null()) return error_of(*err);
    if (out_.message().response_id.empty()) out_.message().response_id = str(*chunk, "responseId");
    if (auto usage = chunk->find("usageMetadata"); usage != chunk->end() && usage->is_object()) read_usage(*usage);
    auto candidates = chunk->find("candidates");
    if (candidates != chunk->end() && candidates->is_array() && !candidates->empty()) {
      read_candidate(candidates->front());
    } else if (const std::string block = str(obj(*chunk, "promptFeedback"), "blockReason"); !block.empty()) {
      set_error("Gemini blocked the prompt: " + block);
    }
    return Ok{};
  }

  bool complete_without_terminal() const override { return saw_finish_; }

  void on_complete() override { out_.complete_with_tool_use(); }

 private:
  static Status error_of(const json& err) {
    if (err.is_string()) return stream_error(err.get<std::string>());
    std::string status = str(err, "status");
    if (status.empty() && err.contains("code")) status = std::to_string(int_at(err, "code"));
    const std::string message = str(err, "message");
    return stream_error(status, message);
  }

  void read_usage(const json& u) {
    const int64_t cached = int_at(u, "cachedContentTokenCount");
    out_.set_usage(int_at(u, "promptTokenCount") - cached,
                   int_at(u, "candidatesTokenCount") + int_at(u, "thoughtsTokenCount"), cached, 0);
  }

  void read_candidate(const json& candidate) {
    if (!candidate.is_object()) return;
    const json& content = obj(candidate, "content");
    if (auto parts = content.find("parts"); parts != content.end() && parts->is_array()) {
      for (const json& part : *parts) {
        if (part.is_object()) read_part(part);
      }
    }
    if (const std::string reason = str(candidate, "finishReason"); !reason.empty()) set_finish(reason);
  }

  void read_part(const json& part) {
    const std::string signature = str(part, "thoughtSignature");
    if (auto call = part.find("functionCall"); call != part.end() && call->is_object()) {
      std::string id = str(*call, "id");
      if (id.empty()) id = generated_tool_call_id();
      if (!signature.empty()) id += "|" + signature;
      const std::size_t index = out_.begin_tool_call(std::move(id), str(*call, "name"));
      const json& args = obj(*call, "args");
      out_.add_tool_args(index, dump_body(args));
      out_.end_tool_call(index);
      text_.reset();
      thinking_.reset();
      return;
    }
    const std::string text = str(part, "text");
    const auto thought = part.find("thought");
    if (thought != part.end() && thought->is_boolean() && thought->get<bool>()) {
      if (!thinking_) {
        thinking_ = out_.begin_thinking();
        text_.reset();
      }
      out_.add_thinking(*thinking_, text);
      if (!signature.empty()) out_.thinking(*thinking_).signature = signature;
      return;
    }
    if (text.empty()) {
      // A signature-only part closes the thought it belongs to.
      if (thinking_ && !signature.empty()) out_.thinking(*thinking_).signature = signature;
      return;
    }
    if (!text_) {
      text_ = out_.begin_text();
      thinking_.reset();
    }
    out_.add_text(*text_, text);
  }

  void set_finish(const std::string& reason) {
    saw_finish_ = true;
    AssistantMessage& m = out_.message();
    if (reason == "STOP") m.stop_reason = StopReason::Stop;
    else if (reason == "MAX_TOKENS") m.stop_reason = StopReason::Length;
    else set_error("Gemini stopped: " + reason + " (" + finish_meaning(reason) + ")");
  }

  void set_error(std::string message) {
    saw_finish_ = true;
    out_.message().stop_reason = StopReason::Error;
    out_.message().error_message = std::move(message);
  }

  std::optional<std::size_t> text_, thinking_;  ///< the open text/thinking block
  bool saw_finish_ = false;
};

}  // namespace
}  // namespace google_generative_ai_wire

std::optional<nlohmann::json> gemini_thinking_config(const ModelSpec& model, ThinkingLevel level) {
  using nlohmann::json;
  const std::string id = google_generative_ai_wire::lowered(model.id);
  const bool gemini3 = id.find("gemini-3") != std::string::npos;
  const bool pro = id.find("-pro") != std::string::npos;
  if (level == ThinkingLevel::XHigh) level = ThinkingLevel::High;
  if (gemini3) {
    std::string name;
    switch (level) {
      case ThinkingLevel::Off: return json{{"thinkingLevel", pro ? "LOW" : "MINIMAL"}};
      case ThinkingLevel::Minimal: name = pro ? "LOW" : "MINIMAL"; break;
      case ThinkingLevel::Low: name = "LOW"; break;
      case ThinkingLevel::Medium: name = pro ? "HIGH" : "MEDIUM"; break;
      default: name = "HIGH"; break;
    }
    return json{{"thinkingLevel", name}, {"includeThoughts", true}};
  }
  const bool v25 = id.find("2.5-") != std::string::npos;
  if (level == ThinkingLevel::Off) {
    if (v25 && pro) return std::nullopt;
    return json{{"thinkingBudget", 0}};
  }
  int64_t budget = -1;
  if (v25) {
    const bool lite = id.find("flash-lite") != std::string::npos;
    switch (level) {
      case ThinkingLevel::Minimal: budget = lite ? 512 : 128; break;
      case ThinkingLevel::Low: budget = 2048; break;
      case ThinkingLevel::Medium: budget = 8192; break;
      default: budget = pro ? 32768 : 24576; break;
    }
  }
  return json{{"thinkingBudget", budget}, {"includeThoughts", true}};
}

const ProviderApi& google_generative_ai_api() {
  static const wire::BasicApi<google_generative_ai_wire::Decoder> api{google_generative_ai_wire::kApi,
                                                                      &google_generative_ai_wire::build_request};
  return api;
}

}  // namespace pincer::llm
