// The `models` section of pincer.json (PV-1): providers and their models (see
// config_schema_models.h).
#include "core/config_schema_models.h"

#include <string>
#include <utility>
#include <vector>

namespace pincer::config::schema {

namespace detail_config_schema_models {

Node model_definition() {
  return object({
      field("id", string().required().doc(
                      "Model id as the provider's API expects it, e.g. `gpt-4.1` or `llama3.2`. "
                      "Everywhere else the model is named `<provider>/<id>`, e.g. `openai/gpt-4.1`.")),
      field("name", string().doc("Display name shown by `models.list` and the UIs; defaults to `id`.")),
      field("contextWindow", integer().min(1).max(kMaxCount).def(128000).doc(
                                 "Context window in tokens (prompt + reply). Today it sizes the cap on "
                                 "one tool result (CX-8) and is listed by `models.list`; Pincer does "
                                 "not yet budget the prompt or compact long sessions by it.")),
      field("maxTokens", integer().min(1).max(kMaxCount).def(4096).doc(
                             "Most output tokens requested per model call.")),
      field("reasoning", boolean().def(false).doc(
                             "The model can think/reason before answering; thinking levels "
                             "(`agents.defaults.thinkingDefault`) apply only to such models.")),
      field("input", array_of(one_of({"text", "image"}))
                         .def(nlohmann::json::array({"text"}))
                         .doc("Kinds of input the model accepts; add `image` to send pictures.")),
  }).doc("One model served by the provider.");
}

Node provider_definition() {
  return object({
      field("baseUrl", string().format("http-url").required().doc(
                           "Base URL of the API, e.g. `https://api.openai.com/v1`, "
                           "`https://api.anthropic.com`, `http://127.0.0.1:11434` (Ollama) or "
                           "`http://127.0.0.1:8080/v1` (llama.cpp server, vLLM, LM Studio).")),
      field("apiKey", string().sensitive().doc(
                          "API key. Keep it out of the file with env substitution, e.g. "
                          "`\"${OPENAI_API_KEY}\"`. Leave it out for local servers that need none.")),
      field("api", one_of({"openai-completions", "openai-responses", "anthropic-messages", "ollama",
                           "google-generative-ai"})
                       .def("openai-completions")
                       .doc("Wire protocol: `openai-completions` = OpenAI Chat Completions (also "
                            "OpenRouter, DeepSeek, Groq, vLLM, llama.cpp server, LM Studio); "
                            "`openai-responses` = OpenAI Responses; `anthropic-messages` = "
                            "Anthropic Messages; `ollama` = Ollama's native `/api/chat`; "
                            "`google-generative-ai` = Google Gemini "
                            "(`https://generativelanguage.googleapis.com/v1beta`).")),
      field("headers", map_of(string().sensitive()).doc(
                           "Extra HTTP headers sent with every request, e.g. "
                           "`{\"HTTP-Referer\": \"https://example.com\"}`. Values are treated as "
                           "secrets (redacted by `config.get`).")),
      field("models", array_of(model_definition()).doc(
                          "The models this provider serves. Only models listed here can be "
                          "selected.")),
      field("oauth", object({
                         field("tokenUrl", string().format("http-url").doc(
                                               "Token endpoint that refreshes the provider's `oauth` "
                                               "auth profiles (OAuth 2.0 refresh_token grant). Default: "
                                               "the built-in endpoint of openai, openai-codex, "
                                               "anthropic and xai; other providers' oauth profiles are "
                                               "refreshed only when this is set.")),
                         field("clientId", string().doc(
                                               "OAuth client id sent with a refresh (default: the "
                                               "built-in provider's).")),
                         field("bodyFormat", one_of({"form", "json"}).doc(
                                                 "How the refresh request is encoded: `form` "
                                                 "(application/x-www-form-urlencoded, RFC 6749) or "
                                                 "`json` (as Anthropic's endpoint takes it). Default: "
                                                 "the built-in provider's, else `form`.")),
                     }).doc("OAuth refresh of this provider's `oauth` auth profiles "
                            "(agents/<id>/agent/auth-profiles.json).")),
  }).doc("One LLM provider: where it is, how to talk to it, which models it serves.");
}

}  // namespace detail_config_schema_models

Node models_section() {
  namespace d = detail_config_schema_models;
  return object({
      field("providers", map_of(d::provider_definition()).doc(
                             "Providers by id. The id is the first part of a model name: "
                             "`models.providers.openai` serves `openai/<model id>`.")),
  }).doc("LLM providers and their models (PV-1). A model is named `provider/model`.");
}

}  // namespace pincer::config::schema
