// `pincer onboard` logic (contract in onboard.h).
#include "cli/onboard.h"

#include <charconv>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <utility>

#include "agent/agents_config.h"
#include "agent/workspace.h"
#include "cli/config_file.h"
#include "cli/connection.h"
#include "cli/invoked_command.h"
#include "core/event_loop.h"
#include "core/http_client.h"
#include "core/ids.h"
#include "core/json5.h"
#include "core/json5_edit.h"
#include "core/paths.h"
#include "store/instance_lock.h"

namespace pincer::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct ProviderDefaults {
  const char* name;
  const char* api;
  const char* base_url;  ///< "" = asked for (custom) or the Ollama URL
  const char* key_env;   ///< "" = no key by default
  const char* model;     ///< "" = asked for, or Ollama's first model
};

constexpr ProviderDefaults kProviders[] = {
    {"openai", "openai-completions", "https://api.openai.com/v1", "OPENAI_API_KEY", "gpt-4.1"},
    {"anthropic", "anthropic-messages", "https://api.anthropic.com", "ANTHROPIC_API_KEY", "claude-sonnet-4-5"},
    {"ollama", "ollama", "", "", ""},
    {"custom", "openai-completions", "", "", ""},
};

/// The provider named `name` in any case ("Custom" is custom), or nullptr.
const ProviderDefaults* find_provider(const std::string& name) {
  for (const auto& p : kProviders) {
    const std::string_view id = p.name;
    if (name.size() == id.size() && std::equal(id.begin(), id.end(), name.begin(), [](char a, char b) {
          return a == std::tolower(static_cast<unsigned char>(b));
        }))
      return &p;
  }
  return nullptr;
}

Error invalid_argument(std::string message) { return Error{"INVALID_ARGUMENT", std::move(message)}; }

bool is_env_name(const std::string& name) {
  return is_env_reference("${" + name + "}");
}

std::string without_trailing_slash(std::string url) {
  while (url.size() > 1 && url.back() == '/') url.pop_back();
  return url;
}

std::string ask(const Prompt& prompt, const std::string& question, const std::string& default_value,
                const std::vector<std::string>& choices = {}) {
  return prompt ? prompt(question, default_value, choices) : default_value;
}

/// Collects the edits onboarding makes: only values that differ from the current document.
class Edits {
 public:
  explicit Edits(const json& current) : current_(current) {}
  void want(json5::Path path, json value) {
    const json* now = json5::find(current_, path);
    if (now != nullptr && json5::same_json(*now, value)) return;
    edits_.emplace_back(std::move(path), std::move(value));
  }
  const std::vector<std::pair<json5::Path, json>>& list() const { return edits_; }

 private:
  const json& current_;
  std::vector<std::pair<json5::Path, json>> edits_;
};

json5::Path provider_path(const std::string& id, const char* key) { return {"models", "providers", id, key}; }

/// The model currently configured for every agent ("" when none).
std::string current_model(const json& doc) {
  const json* model = json5::find(doc, {"agents", "defaults", "model"});
  if (model == nullptr) return "";
  if (model->is_string()) return model->get<std::string>();
  if (model->is_object() && model->contains("primary") && (*model)["primary"].is_string()) {
    return (*model)["primary"].get<std::string>();
  }
  return "";
}

fs::path expand_path(const std::string& text, const config::EnvLookup& env) {
  if (text == "~" || text.rfind("~/", 0) == 0) {
    if (auto home = env("HOME"); home && !home->empty()) return fs::path(*home) / text.substr(text.size() > 1 ? 2 : 1);
  }
  std::error_code ec;
  fs::path abs = fs::absolute(text, ec);
  return ec ? fs::path(text) : abs.lexically_normal();
}

struct ProviderChoice {
  std::string id, api, base_url, api_key_value, api_key_shown, model;
};

/// Works out provider, URL, key and model from options, prompts and what Ollama lists.
Result<std::optional<ProviderChoice>> choose_provider(const OnboardOptions& o, const json& current,
                                                      const config::EnvLookup& env, const Prompt& prompt,
                                                      std::vector<std::string>& warnings) {
  std::optional<Result<std::vector<std::string>>> probed;
  std::string probed_url;
  const auto probe = [&](const std::string& url) -> const Result<std::vector<std::string>>& {
    if (!probed || probed_url != url) {
      probed = ollama_models(url, o.probe_timeout);
      probed_url = url;
    }
    return *probed;
  };
  const auto ollama_ready = [&] {
    const auto& r = probe(o.ollama_url);
    return r.ok() && !r->empty();
  };

  std::string name;
  const std::string existing = current_model(current);
  if (o.provider) {
    name = *o.provider;
  } else if (prompt) {
    const std::string guess = existing.empty() ? (ollama_ready() ? "ollama" : "openai")
                                               : existing.substr(0, existing.find('/'));
    if (ollama_ready()) std::printf("Found Ollama at %s with %zu model(s).\n", o.ollama_url.c_str(), probe(o.ollama_url)->size());
    name = ask(prompt, "Model provider", find_provider(guess) ? guess : "openai", {"openai", "anthropic", "ollama", "custom"});
  } else if (ollama_ready()) {
    name = "ollama";
  } else if (!existing.empty()) {
    return std::optional<ProviderChoice>();  // keep the configured model
  } else if (o.no_terminal) {
    return invalid_argument("standard input is not a terminal, so there is no one to ask which model provider to "
                            "use (and no Ollama answered at " + o.ollama_url + "): run it in a terminal, or "
                            "non-interactively with the answers as flags: " + invoked_command() +
                            " onboard --non-interactive --provider openai|anthropic|ollama|custom "
                            "[--api-key-env NAME] [--model ID] [--base-url URL]");
  } else {
    return invalid_argument("--provider is required with --non-interactive (openai|anthropic|ollama|custom); no Ollama "
                            "answered at " + o.ollama_url);
  }
  const ProviderDefaults* p = find_provider(name);
  if (p == nullptr) return invalid_argument("--provider: expected one of openai|anthropic|ollama|custom, got \"" + name + "\"");

  ProviderChoice c;
  c.id = p->name;
  c.api = p->api;
  const bool ollama = c.id == "ollama";
  // A re-run offers what the file has for this provider (its URL, key variable, model) as defaults.
  const auto configured = [&](const char* key) -> std::string {
    const json* v = json5::find(current, provider_path(c.id, key));
    return v && v->is_string() ? v->get<std::string>() : "";
  };
  std::string default_url = ollama ? o.ollama_url : p->base_url;
  if (!configured("baseUrl").empty()) default_url = configured("baseUrl");
  const auto url_problem = [](const std::string& url) -> std::string {
    if (url.empty()) return "a URL is required";
    if (!net::parse_url(url)) return "expected http(s)://host[:port][/path], got \"" + url + "\"";
    return "";
  };
  if (o.base_url) {
    c.base_url = without_trailing_slash(*o.base_url);
    if (c.base_url.empty()) return invalid_argument("--base-url is required with --provider " + c.id);
    if (auto problem = url_problem(c.base_url); !problem.empty()) return invalid_argument("--base-url: " + problem);
  } else {
    const std::string question = ollama ? "Ollama URL" : "Base URL of the API";
    for (int attempt = 0;; ++attempt) {
      c.base_url = without_trailing_slash(ask(prompt, question, default_url));
      const std::string problem = url_problem(c.base_url);
      if (problem.empty()) break;
      if (!prompt && c.base_url.empty()) return invalid_argument("--base-url is required with --provider " + c.id);
      if (!prompt || attempt == 4) return invalid_argument("--base-url: " + problem);
      std::printf("%s: %s; please type it again.\n", question.c_str(), problem.c_str());
    }
  }

  if (o.api_key) {
    if (o.api_key->empty()) return invalid_argument("--api-key: empty");
    c.api_key_value = *o.api_key;
    c.api_key_shown = "(stored in the file)";
    warnings.push_back("the API key is stored in plain text in pincer.json (mode 0600); --api-key-env NAME keeps it "
                       "out of the file");
  } else {
    std::string env_name = o.api_key_env.value_or(p->key_env);
    if (const std::string key = configured("apiKey"); !o.api_key_env && is_env_reference(key)) {
      env_name = key.substr(2, key.size() - 3);
    }
    if (!o.api_key_env && !ollama) {
      env_name = ask(prompt, "Environment variable holding the API key (\"-\" for none)", env_name.empty() ? "-" : env_name);
      if (env_name == "-") env_name.clear();
    }
    if (!env_name.empty()) {
      if (!is_env_name(env_name)) {
        return invalid_argument("--api-key-env: expected a variable name such as OPENAI_API_KEY (A-Z, 0-9, _), got \"" +
                                env_name + "\"");
      }
      c.api_key_value = c.api_key_shown = "${" + env_name + "}";
      if (auto v = env(env_name); !v || v->empty()) {
        warnings.push_back(env_name + " is not set in this shell: the gateway needs it (export " + env_name +
                           "=..., or put it in the service's environment file; see " + invoked_command() + " gateway install)");
      }
    }
  }

  std::string default_model = p->model;
  if (existing.rfind(c.id + "/", 0) == 0) default_model = existing.substr(c.id.size() + 1);
  if (ollama && !o.model) {
    const auto& listed = probe(c.base_url);
    if (listed && !listed->empty()) default_model = listed->front();
    if (!prompt && default_model.empty()) {
      return invalid_argument("--model is required: Ollama at " + c.base_url + " lists no models" +
                              (listed ? std::string(" (run `ollama pull llama3.2`)") : " (" + listed.error().message + ")"));
    }
    if (prompt && listed && !listed->empty()) {
      std::string names;
      for (const auto& m : *listed) names += (names.empty() ? "" : ", ") + m;
      std::printf("Ollama models: %s\n", names.c_str());
    }
  }
  // A custom server asked interactively: offer what its /models lists (the key as the gateway
  // would send it); another id may still be typed, and a failed probe only warns.
  if (c.id == "custom" && prompt && !o.model) {
    std::string key = c.api_key_value;
    if (is_env_reference(key)) key = env(key.substr(2, key.size() - 3)).value_or("");
    const auto listed = openai_compatible_models(c.base_url, key, o.probe_timeout);
    if (listed && !listed->empty()) {
      std::string names;
      for (std::size_t i = 0; i < listed->size() && i < 20; ++i) names += (i ? ", " : "") + (*listed)[i];
      if (listed->size() > 20) names += ", … (" + std::to_string(listed->size()) + " in all)";
      std::printf("Models at %s: %s\n", c.base_url.c_str(), names.c_str());
      if (default_model.empty() || std::find(listed->begin(), listed->end(), default_model) == listed->end()) {
        default_model = listed->front();
      }
    } else {
      const std::string why = listed ? "it lists none" : listed.error().message;
      std::printf("Could not list the models at %s (%s); type the model id.\n", c.base_url.c_str(), why.c_str());
      warnings.push_back("the model list of " + c.base_url + " could not be read (" + why + "): check the model id");
    }
  }
  c.model = o.model ? *o.model : ask(prompt, "Model id", default_model);
  if (c.model.empty()) return invalid_argument("--model is required with --provider " + c.id);
  if (ollama && o.model) {
    const auto& listed = probe(c.base_url);
    if (listed && std::find(listed->begin(), listed->end(), c.model) == listed->end()) {
      warnings.push_back("Ollama at " + c.base_url + " does not list " + c.model + " (run `ollama pull " + c.model + "`)");
    }
  }
  return std::optional<ProviderChoice>(std::move(c));
}

void add_provider_edits(const ProviderChoice& c, const json& current, Edits& edits) {
  edits.want(provider_path(c.id, "baseUrl"), c.base_url);
  edits.want(provider_path(c.id, "api"), c.api);
  if (!c.api_key_value.empty()) edits.want(provider_path(c.id, "apiKey"), c.api_key_value);
  const json5::Path models = provider_path(c.id, "models");
  const json* listed = json5::find(current, models);
  if (listed != nullptr && listed->is_array()) {
    const bool present = std::any_of(listed->begin(), listed->end(), [&](const json& m) {
      return m.is_object() && m.value("id", "") == c.model;
    });
    if (!present) {
      json5::Path append = models;
      append.emplace_back(listed->size());
      edits.want(append, json{{"id", c.model}});
    }
  } else {
    edits.want(models, json::array({json{{"id", c.model}}}));
  }
  const std::string ref = c.id + "/" + c.model;
  const json* model = json5::find(current, {"agents", "defaults", "model"});
  if (model != nullptr && model->is_string()) edits.want({"agents", "defaults", "model"}, ref);
  else edits.want({"agents", "defaults", "model", "primary"}, ref);
}

}  // namespace

json OnboardResult::to_json() const {
  json out{{"configFile", config_file.string()},
              {"created", created},
              {"changed", changed},
              {"provider", provider},
              {"api", api},
              {"baseUrl", base_url},
              {"apiKey", api_key},
              {"model", model},
              {"workspace", workspace.string()},
              {"workspaceCreated", workspace_created},
              {"port", port},
              {"tokenGenerated", token_generated},
              {"warnings", warnings},
              {"nextSteps", next_steps}};
  if (!workspace_given.empty()) out["workspaceGiven"] = {{"path", workspace_given}, {"relativeTo", workspace_cwd.string()}};
  if (api_key.empty()) out.erase("apiKey");  // no key (Ollama, a local server): not an empty one
  return out;
}

Result<HttpGetResult> http_get(const std::string& url, std::chrono::milliseconds timeout,
                               const std::vector<std::pair<std::string, std::string>>& headers) {
  EventLoop loop(1);
  net::HttpClient http(loop);
  HttpGetResult out;
  std::optional<net::TransportError> failure;
  loop.post([&] {
    net::HttpRequestSpec spec;
    spec.method = "GET";
    spec.url = url;
    spec.headers = headers;
    spec.connect_timeout_ms = timeout.count();
    spec.idle_timeout_ms = timeout.count();
    const auto id = http.start(spec, {[&](const net::HttpResponseHead& head) { out.status = head.status; },
                                      [&](std::string_view data) {
                                        if (out.body.size() < kMaxGetBody) out.body.append(data);
                                      },
                                      [&](const std::optional<net::TransportError>& e) {
                                        failure = e;
                                        loop.stop();
                                      }});
    loop.after(timeout.count(), [&http, id] { http.cancel(id); });
  });
  loop.run();
  if (failure) {
    return Error{"UNREACHABLE", "GET " + url + ": " + (failure->timed_out || failure->cancelled ? "no answer" : failure->what)};
  }
  return out;
}

Result<std::vector<std::string>> ollama_models(const std::string& url, std::chrono::milliseconds timeout) {
  const std::string target = without_trailing_slash(url) + "/api/tags";
  auto got = http_get(target, timeout);
  if (!got) return got.error();
  if (got->status != 200) return Error{"UNREACHABLE", "GET " + target + ": HTTP " + std::to_string(got->status)};
  const json doc = json::parse(got->body, nullptr, false);
  if (!doc.is_object() || !doc.contains("models") || !doc["models"].is_array()) {
    return Error{"BAD_RESPONSE", "GET " + target + ": not an Ollama /api/tags answer"};
  }
  std::vector<std::string> names;
  for (const auto& m : doc["models"]) {
    if (m.is_object() && m.contains("name") && m["name"].is_string()) names.push_back(m["name"].get<std::string>());
  }
  return names;
}

Result<std::vector<std::string>> openai_compatible_models(const std::string& base_url, const std::string& api_key,
                                                          std::chrono::milliseconds timeout) {
  const std::string target = without_trailing_slash(base_url) + "/models";
  std::vector<std::pair<std::string, std::string>> headers;
  if (!api_key.empty()) headers.emplace_back("Authorization", "Bearer " + api_key);
  auto got = http_get(target, timeout, headers);
  if (!got) return got.error();
  if (got->status < 200 || got->status >= 300) {
    return Error{"UNREACHABLE", "GET " + target + ": HTTP " + std::to_string(got->status) +
                                    (got->status == 401 || got->status == 403 ? " (the API key was refused)" : "")};
  }
  const json doc = json::parse(got->body, nullptr, false);
  if (!doc.is_object() || !doc.contains("data") || !doc["data"].is_array()) {
    return Error{"BAD_RESPONSE", "GET " + target + ": not an OpenAI-style model list ({\"data\": [{\"id\": …}]})"};
  }
  std::vector<std::string> ids;
  for (const auto& m : doc["data"]) {
    if (m.is_object() && m.contains("id") && m["id"].is_string()) ids.push_back(m["id"].get<std::string>());
  }
  return ids;
}

Result<OnboardResult> onboard(const OnboardOptions& o, const fs::path& state, const config::EnvLookup& env,
                              const Prompt& prompt) {
  OnboardResult r;
  r.config_file = paths::config_file(state);
  if (o.port && (*o.port < 1 || *o.port > 65535)) {
    return invalid_argument("--port: expected 1..65535, got " + std::to_string(*o.port));
  }
  auto original = read_config_text(r.config_file);
  if (!original) return original.error();
  r.created = !original->exists;
  const std::string base =
      original->exists ? original->text : config_template(o.port.value_or(18789), ids::random_token(32));

  // What is configured now: the file with its $includes resolved (env references kept), or as
  // written when it does not validate yet (onboarding may be what fixes it).
  auto parsed = json5::parse(base, r.config_file.string());
  if (!parsed) {
    return Error{"CONFIG_INVALID", parsed.error().message + " (fix the file, or move it away and run " +
        invoked_command() + " onboard again)"};
  }
  json current = std::move(*parsed);
  if (original->exists) {
    if (auto loaded = config::load(r.config_file, keep_env_references())) current = loaded->resolved;
  }
  Edits edits(current);

  // Gateway: port and token.
  const json* port_now = json5::find(current, {"gateway", "port"});
  const int port_before = port_now && port_now->is_number_integer() ? port_now->get<int>() : 18789;
  std::optional<int> port = o.port;
  if (!port && prompt) {
    for (int attempt = 0;; ++attempt) {  // a typo is asked again, with the reason
      const std::string answer = ask(prompt, "Gateway port", std::to_string(port_before));
      int value = 0;
      const auto [end, err] = std::from_chars(answer.data(), answer.data() + answer.size(), value);
      if (err == std::errc() && end == answer.data() + answer.size() && value >= 1 && value <= 65535) {
        if (value != port_before) port = value;
        break;
      }
      const std::string problem = "expected a port number 1..65535, got \"" + answer + "\"";
      if (attempt == 4) return invalid_argument("port: " + problem);
      std::printf("Gateway port: %s; please type it again.\n", problem.c_str());
    }
  }
  if (port) edits.want({"gateway", "port"}, *port);
  r.port = port.value_or(port_before);
  const json* mode = json5::find(current, {"gateway", "auth", "mode"});
  const json* token = json5::find(current, {"gateway", "auth", "token"});
  const bool token_mode = mode == nullptr || (mode->is_string() && mode->get<std::string>() == "token");
  r.token_generated = r.created;
  if (token_mode && (token == nullptr || (token->is_string() && token->get<std::string>().empty()))) {
    edits.want({"gateway", "auth", "token"}, ids::random_token(32));
    r.token_generated = true;
  }

  // Model provider.
  auto choice = choose_provider(o, current, env, prompt, r.warnings);
  if (!choice) return choice.error();
  if (*choice) {
    const ProviderChoice& c = **choice;
    add_provider_edits(c, current, edits);
    r.provider = c.id;
    r.api = c.api;
    r.base_url = c.base_url;
    r.api_key = c.api_key_shown;
    r.model = c.id + "/" + c.model;
  } else {
    r.model = current_model(current);
  }

  // Workspace: only written when chosen; the default is <state>/workspace.
  std::optional<std::string> workspace = o.workspace;
  if (!workspace && prompt) {
    auto agents = agent::resolve_agents(config::with_defaults(current), state, env);
    const std::string now = agents ? agents->default_agent().workspace.string() : (state / "workspace").string();
    const std::string answer = ask(prompt, "Workspace directory", now);
    if (answer != now) workspace = answer;
  }
  if (workspace) {
    if (workspace->empty()) return invalid_argument("--workspace: empty");
    edits.want({"agents", "defaults", "workspace"}, expand_path(*workspace, env).string());
    // A relative path is resolved from the current directory (OpenClaw's resolveUserPath does the
    // same), not from the home: the output says so, with the absolute path written.
    if (*workspace != "~" && workspace->rfind("~/", 0) != 0 && fs::path(*workspace).is_relative()) {
      std::error_code ec;
      r.workspace_given = *workspace;
      r.workspace_cwd = fs::current_path(ec);
    }
  }

  // Write: edit the text in place, validate the whole result, replace the file atomically.
  std::string text = base;
  for (const auto& [path, value] : edits.list()) {
    auto edited = json5::set(text, path, value);
    if (!edited) {
      const bool bad_file = edited.error().code == "PATH_CONFLICT";
      return Error{bad_file ? "CONFIG_INVALID" : edited.error().code, r.config_file.string() + ": " + edited.error().message};
    }
    text = std::move(*edited);
    r.changed.push_back(json5::format_path(path));
  }
  if (r.created || text != original->text) {
    if (auto st = write_config_text(*original, text); !st) return st.error();
  }

  // Workspace of the default agent, as the gateway will resolve it.
  auto loaded = config::load(r.config_file, keep_env_references());
  if (!loaded) return loaded.error();
  auto agents = agent::resolve_agents(loaded->effective, state, env);
  if (!agents) return agents.error();
  r.workspace = agents->default_agent().workspace;
  auto made = agent::ensure_workspace(r.workspace);
  if (!made) return made.error();
  r.workspace_created = made->created;

  // The port the gateway will really listen on: PINCER_GATEWAY_PORT in this shell wins over the
  // file (cli::gateway_port, as `pincer gateway run` resolves it).
  const json gw = loaded->effective.value("gateway", json::object());
  if (gw.is_object() && gw.contains("port") && !gw["port"].is_number_integer()) {
    // "${VAR}" kept as written: the shell's value is not ours to guess; r.port stays as set above
  } else if (auto resolved = gateway_port(gw, env); !resolved) {
    r.warnings.push_back(resolved.error().message + ": the gateway would refuse to start");
  } else {
    if (*resolved != r.port) {
      r.warnings.push_back("PINCER_GATEWAY_PORT=" + std::to_string(*resolved) + " in this shell overrides gateway.port " +
                           std::to_string(r.port) + " of " + r.config_file.string());
    }
    r.port = *resolved;
  }

  // A gateway of this home that runs already reloads the file by itself: say where it is, not "start it".
  std::string first_step =
      "Start the gateway:      " + invoked_command() + " gateway run   (or run it as a service: " + invoked_command() + " gateway install)";
  if (const auto holder = store::read_lock_holder(paths::gateway_lock_file(state)); holder && !holder->stopping) {
    std::string host = holder->host.empty() || holder->host == "0.0.0.0" ? "127.0.0.1" : holder->host == "::" ? "::1" : holder->host;
    if (host.find(':') != std::string::npos) host = "[" + host + "]";
    first_step = "The gateway already runs for this home (pid " + std::to_string(holder->pid) +
                 (holder->port > 0 ? ", ws://" + host + ":" + std::to_string(holder->port) : std::string(", still starting")) +
                 "): it reloads " + r.config_file.string() + " by itself (" + invoked_command() +
                 " status shows it; " + invoked_command() + " doctor says whether it applied this change)";
  }
  r.next_steps = {
      first_step,
      "Open the web chat:      http://127.0.0.1:" + std::to_string(r.port) +
          "/   (token: " + invoked_command() + " config get gateway.auth.token --show-secrets)",
      "Chat in the terminal:   " + invoked_command() + " chat",
  };
  return r;
}

}  // namespace pincer::cli
