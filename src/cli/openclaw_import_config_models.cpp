// openclaw.json's `models.providers` as pincer.json's: providers Pincer can speak to, their keys
// and model lists (see openclaw_import_config_mapper.h).
#include <string>

#include "cli/openclaw_import_config_mapper.h"
#include "core/json_lookup.h"

namespace pincer::cli::openclaw::detail_openclaw_config {

using nlohmann::json;

void Mapper::models(const json& m, const Path& at) {
  if (!m.is_object()) return expect_object_or_skip(m, at);
  for (const auto& [k, v] : m.items()) {
    Path p = key(at, k);
    if (k == "providers") {
      if (!v.is_object()) {
        expect_object_or_skip(v, p);
        continue;
      }
      for (const auto& [id, provider] : v.items()) this->provider(provider, key(p, id));
    } else if (k == "proxy") {
      skip(p, "Pincer has no models.proxy; it uses HTTPS_PROXY/HTTP_PROXY from the gateway's environment");
    } else {
      skip(p, skip_reason("models", k));
    }
  }
}

void Mapper::provider(const json& pr, const Path& at) {
  if (!pr.is_object()) return expect_object_or_skip(pr, at);
  if (pr.contains("api") &&
      !is_one_of(pr["api"], {kPincerApis[0], kPincerApis[1], kPincerApis[2], kPincerApis[3], kPincerApis[4]})) {
    return skip(at, "api " + pr["api"].dump() + " is not supported by Pincer (it speaks " +
                        join({kPincerApis[0], kPincerApis[1], kPincerApis[2], kPincerApis[3], kPincerApis[4]}) + ")");
  }
  if (!pr.contains("baseUrl") || !pr["baseUrl"].is_string() || pr["baseUrl"].get<std::string>().empty()) {
    return skip(at, "no baseUrl: Pincer needs the provider's URL (OpenClaw's built-in providers have none in the file)");
  }
  const std::string api = pr.contains("api") ? pr["api"].get<std::string>() : std::string(kDefaultApi);
  set(at, json::object());
  for (const auto& [k, v] : pr.items()) {
    Path p = key(at, k);
    if (k == "baseUrl" || k == "api") {
      map(p, p, v);
    } else if (k == "apiKey") {
      secret(v, p, p);
    } else if (k == "headers") {
      if (!v.is_object()) {
        expect_object_or_skip(v, p);
        continue;
      }
      set(p, json::object());
      for (const auto& [name, value] : v.items()) secret(value, key(p, name), key(p, name));
    } else if (k == "models") {
      model_list(v, p, api);
    } else if (k == "auth") {
      skip(p, "Pincer authenticates to providers with apiKey only");
      if (!is_one_of(v, {"api-key"})) {
        out_.warnings.push_back(text(p) + " is " + v.dump() + ": Pincer cannot log in that way; give " +
                                text(at) + " an apiKey");
      }
    } else {
      skip(p, skip_reason("models.providers", k));
    }
  }
}

void Mapper::model_list(const json& list, const Path& at, const std::string& api) {
  if (!list.is_array()) return skip(at, std::string("expected an array, got ") + json_lookup::kind_of(list));
  std::size_t out_index = 0;
  set(at, json::array());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& m = list[i];
    Path from = index(at, i);
    if (!m.is_object() || !m.contains("id") || !m["id"].is_string() || m["id"].get<std::string>().empty()) {
      skip(from, "a model needs a non-empty string id");
      continue;
    }
    if (m.contains("api") && m["api"] != api) {
      skip(from, "the model's api " + m["api"].dump() + " differs from its provider's (\"" + api +
                     "\"); Pincer sets the api per provider");
      continue;
    }
    Path to = index(at, out_index++);
    for (const auto& [k, v] : m.items()) {
      if (k == "id" || k == "name" || k == "contextWindow" || k == "maxTokens" || k == "reasoning" || k == "input") {
        map(key(from, k), key(to, k), v);
      } else if (k == "api") {
        // same as the provider's: nothing to write
      } else if (k == "cost") {
        skip(key(from, k), "Pincer does not track costs yet");
      } else {
        skip(key(from, k), skip_reason("models.providers", k));
      }
    }
  }
}

}  // namespace pincer::cli::openclaw::detail_openclaw_config
