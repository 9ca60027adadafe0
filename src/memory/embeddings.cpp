#include "memory/embeddings.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/event_loop.h"
#include "core/http_client.h"
#include "core/json_dump.h"

namespace pincer::memory {
namespace {

using nlohmann::json;

struct HttpResult {
  int status = 0;
  std::string body;
};

/// One blocking request on a private loop, bounded by `timeout_ms` in total.
Result<HttpResult> blocking_request(net::HttpRequestSpec spec, int64_t timeout_ms) {
  EventLoop loop(0);
  net::HttpClient client(loop);
  HttpResult out;
  std::optional<net::TransportError> failure;
  bool timed_out = false;
  spec.connect_timeout_ms = timeout_ms;
  spec.idle_timeout_ms = timeout_ms;
  net::HttpClient::RequestId id = 0;
  loop.post([&] {
    net::HttpCallbacks cb;
    cb.on_head = [&](const net::HttpResponseHead& h) { out.status = h.status; };
    cb.on_data = [&](std::string_view d) {
      if (out.body.size() < (64u << 20)) out.body.append(d);
    };
    cb.on_done = [&](const std::optional<net::TransportError>& e) {
      failure = e;
      loop.stop();
    };
    id = client.start(std::move(spec), std::move(cb));
    loop.after(timeout_ms, [&] {
      timed_out = true;
      client.cancel(id);
    });
  });
  loop.run();
  if (timed_out) return Error{"EMBED_TIMEOUT", "embeddings request took longer than " + std::to_string(timeout_ms) + " ms"};
  if (failure) {
    if (failure->timed_out) return Error{"EMBED_TIMEOUT", "embeddings request timed out: " + failure->what};
    return Error{"EMBED_TRANSPORT", "embeddings request failed: " + failure->what};
  }
  return out;
}

void normalise(Vector& v) {
  double n = 0;
  for (float x : v) n += static_cast<double>(x) * x;
  n = std::sqrt(n);
  if (n > 0) {
    for (float& x : v) x = static_cast<float>(x / n);
  }
}

Result<Vector> to_vector(const json& j) {
  if (!j.is_array() || j.empty()) return Error{"EMBED_BAD_RESPONSE", "embedding is not a non-empty array of numbers"};
  Vector v;
  v.reserve(j.size());
  for (const auto& x : j) {
    if (!x.is_number()) return Error{"EMBED_BAD_RESPONSE", "embedding holds a non-number"};
    v.push_back(x.get<float>());
  }
  normalise(v);
  return v;
}

std::string trim_slash(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

class HttpEmbeddings : public EmbeddingProvider {
 public:
  explicit HttpEmbeddings(const MemorySettings& s) : s_(s) {
    if (s_.base_url.empty()) {
      if (s_.provider == "ollama") s_.base_url = "http://127.0.0.1:11434";
      else if (s_.provider == "gemini") s_.base_url = "https://generativelanguage.googleapis.com/v1beta";
      else s_.base_url = "https://api.openai.com/v1";
    }
    s_.base_url = trim_slash(s_.base_url);
  }
  const std::string& id() const override { return s_.provider; }
  const std::string& model() const override { return s_.model; }

  Result<std::vector<Vector>> embed(const std::vector<std::string>& texts, int64_t timeout_ms) const override {
    if (texts.empty()) return std::vector<Vector>{};
    net::HttpRequestSpec spec;
    spec.headers.emplace_back("Content-Type", "application/json");
    json body;
    if (s_.provider == "ollama") {
      spec.url = s_.base_url + "/api/embed";
      body = {{"model", s_.model}, {"input", texts}};
    } else if (s_.provider == "gemini") {
      const std::string model = s_.model.rfind("models/", 0) == 0 ? s_.model : "models/" + s_.model;
      spec.url = s_.base_url + "/" + model + ":batchEmbedContents";
      json reqs = json::array();
      for (const auto& t : texts) reqs.push_back({{"model", model}, {"content", {{"parts", {{{"text", t}}}}}}});
      body = {{"requests", reqs}};
      if (!s_.api_key.empty()) spec.headers.emplace_back("x-goog-api-key", s_.api_key);
    } else {
      spec.url = s_.base_url + "/embeddings";
      body = {{"model", s_.model}, {"input", texts}};
      if (!s_.api_key.empty()) spec.headers.emplace_back("Authorization", "Bearer " + s_.api_key);
    }
    for (const auto& [k, v] : s_.headers) spec.headers.emplace_back(k, v);
    spec.body = json_dump::compact(body);
    auto r = blocking_request(std::move(spec), timeout_ms);
    if (!r) return r.error();
    if (r->status < 200 || r->status >= 300) {
      return Error{"EMBED_HTTP", s_.provider + " embeddings: HTTP " + std::to_string(r->status) + ": " + r->body.substr(0, 200)};
    }
    json j = json::parse(r->body, nullptr, false);
    if (j.is_discarded()) return Error{"EMBED_BAD_RESPONSE", s_.provider + " embeddings: the response is not JSON"};
    std::vector<Vector> out;
    const json* list = nullptr;
    if (s_.provider == "ollama") list = j.contains("embeddings") ? &j["embeddings"] : nullptr;
    else if (s_.provider == "gemini") list = j.contains("embeddings") ? &j["embeddings"] : nullptr;
    else list = j.contains("data") ? &j["data"] : nullptr;
    if (!list || !list->is_array() || list->size() != texts.size()) {
      return Error{"EMBED_BAD_RESPONSE", s_.provider + " embeddings: expected " + std::to_string(texts.size()) + " vectors"};
    }
    out.resize(texts.size());
    for (std::size_t i = 0; i < list->size(); ++i) {
      const json& item = (*list)[i];
      std::size_t at = i;
      const json* vec = &item;
      if (s_.provider == "gemini") {
        vec = item.is_object() && item.contains("values") ? &item["values"] : nullptr;
      } else if (s_.provider != "ollama") {
        vec = item.is_object() && item.contains("embedding") ? &item["embedding"] : nullptr;
        if (item.is_object() && item.contains("index") && item["index"].is_number_unsigned()) at = item["index"].get<std::size_t>();
      }
      if (!vec || at >= out.size()) return Error{"EMBED_BAD_RESPONSE", s_.provider + " embeddings: an item has no vector"};
      auto v = to_vector(*vec);
      if (!v) return v.error();
      out[at] = std::move(*v);
    }
    for (const auto& v : out) {
      if (v.empty() || v.size() != out[0].size()) return Error{"EMBED_BAD_RESPONSE", s_.provider + " embeddings: vectors of different sizes"};
    }
    return out;
  }

 private:
  MemorySettings s_;
};

}  // namespace

Result<std::shared_ptr<EmbeddingProvider>> make_embedding_provider(const MemorySettings& settings) {
  const std::string& p = settings.provider;
  if (p == "none") return std::shared_ptr<EmbeddingProvider>();
  if (p == "openai" || p == "openai-compatible" || p == "ollama" || p == "gemini") {
    return std::shared_ptr<EmbeddingProvider>(std::make_shared<HttpEmbeddings>(settings));
  }
  return Error{"EMBED_PROVIDER_UNKNOWN", "unknown memory.search.provider \"" + p +
                                             "\" (expected none, openai, openai-compatible, ollama or gemini)"};
}

double cosine(const Vector& a, const Vector& b) {
  if (a.size() != b.size() || a.empty()) return 0;
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d += static_cast<double>(a[i]) * b[i];
  return d;
}

}  // namespace pincer::memory
