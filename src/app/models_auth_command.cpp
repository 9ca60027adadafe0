// `pincer models auth list|add|remove|order|reset [--agent ID]` (PV-2, PV-3): an agent's auth
// profiles in agents/<id>/agent/auth-profiles.json, edited in place under the file's lock (a
// running gateway sees the change at its next model call; no restart). Secrets are never printed:
// `list` shows each profile's state (usable, cooling until …, disabled until …, expired).
// A new secret comes from --key-file, --key (warned: visible in `ps`) or the first line of stdin.
// Exit codes: 0; 1 the file could not be read or written, or no such profile; 2 bad arguments,
// an invalid configuration or an unknown agent. The edits themselves are llm/auth/auth_profile_edits
// (shared with the gateway's models.authSetApiKey|authLogout|authOrderSet), and each profile's
// state is llm/auth/auth_profile_status (shared with models.authStatus).
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>

#include <unistd.h>

#include "agent/agents_config.h"
#include "app/client_support.h"
#include "app/commands.h"
#include "cli/invoked_command.h"
#include "core/config.h"
#include "core/paths.h"
#include "llm/auth/auth_profile_edits.h"
#include "llm/auth/auth_profile_file.h"
#include "llm/auth/auth_profile_status.h"

namespace pincer::app {
namespace {

using nlohmann::json;
using llm::auth::AuthProfileFile;
using llm::auth::AuthProfiles;

struct AuthArgs {
  std::string agent, provider, id, type = "api_key";
  std::optional<std::string> key;
  std::vector<std::string> ids;
  int64_t expires_ms = 0;
  bool clear = false;
  bool json = false;
};

int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

/// "2026-12-04 19:31 UTC".
std::string when(int64_t ms) {
  const std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

/// The agent's file, after checking that the agent exists in the configuration. When the
/// configuration cannot be loaded here (e.g. it names an environment variable this shell lacks),
/// the file of `agent_id` (default "main") is used with a warning: the profiles file needs no config.
Result<std::shared_ptr<AuthProfileFile>> file_for(const std::string& agent_id) {
  const auto env = config::process_env();
  const auto state = paths::state_dir(env);
  auto loaded = config::load(paths::config_file(state), env);
  if (!loaded) {
    const std::string id = agent_id.empty() ? "main" : agent_id;
    std::cerr << "pincer: warning: " << loaded.error().message << "; using the auth profiles of agent " << id << "\n";
    return std::make_shared<AuthProfileFile>(llm::auth::auth_profiles_path(state, id));
  }
  auto agents = agent::resolve_agents(loaded->effective, state, env);
  if (!agents) return agents.error();
  const agent::AgentSettings* a = agent_id.empty() ? &agents->default_agent() : agents->find(agent_id);
  if (!a) return Error{"UNKNOWN_AGENT", "no agent \"" + agent_id + "\" in the configuration (" + cli::invoked_command() + " agents list)"};
  return std::make_shared<AuthProfileFile>(llm::auth::auth_profiles_path(state, a->id));
}

int list(const AuthArgs& a) {
  auto file = file_for(a.agent);
  if (!file) return fail(2, file.error().message);
  auto doc = (*file)->load();
  if (!doc) return fail(1, doc.error().message);
  const int64_t now = wall_ms();
  json rows = json::array();
  for (const auto& c : doc->credentials()) {
    if (a.provider.empty() || c.provider == a.provider) rows.push_back(llm::auth::profile_state(*doc, c, now));
  }
  json orders = json::object();
  for (const auto& c : doc->credentials()) {
    if (auto o = doc->explicit_order(c.provider); !o.empty()) orders[c.provider] = o;
  }
  if (a.json) {
    return print_json({{"file", (*file)->path().string()}, {"profiles", rows}, {"order", orders}, {"warnings", doc->warnings()}});
  }
  if (rows.empty() && !a.provider.empty()) {
    std::cout << "No auth profiles for provider " << a.provider << " in " << (*file)->path().string() << ".\n";
  } else if (rows.empty()) {
    std::cout << "No auth profiles in " << (*file)->path().string()
              << ".\nAdd one: " + cli::invoked_command() + " models auth add --provider <provider> --key-file <file>\n";
  }
  // Columns: id, provider, type, state (with its details).
  std::size_t id_width = 2, provider_width = 8, type_width = 4;
  for (const auto& r : rows) {
    id_width = std::max(id_width, r["id"].get<std::string>().size());
    provider_width = std::max(provider_width, r["provider"].get<std::string>().size());
    type_width = std::max(type_width, r["type"].get<std::string>().size());
  }
  auto pad = [](std::string text, std::size_t width) { return text.size() < width ? text.append(width - text.size(), ' ') : text; };
  if (!rows.empty()) {
    std::cout << "  " << pad("ID", id_width) << "  " << pad("PROVIDER", provider_width) << "  " << pad("TYPE", type_width)
              << "  STATE\n";
  }
  for (const auto& r : rows) {
    std::string line = "  " + pad(r["id"].get<std::string>(), id_width) + "  " +
                       pad(r["provider"].get<std::string>(), provider_width) + "  " +
                       pad(r["type"].get<std::string>(), type_width) + "  " + r["state"].get<std::string>();
    if (r.contains("cooldownUntil")) line += " until " + when(r["cooldownUntil"]) + " (" + r.value("cooldownReason", "") + ")";
    if (r.contains("disabledUntil")) line += " until " + when(r["disabledUntil"]) + " (" + r.value("disabledReason", "") + ")";
    if (r.contains("lastUsed")) line += ", last used " + when(r["lastUsed"]);
    std::cout << line << "\n";
  }
  for (const auto& w : doc->warnings()) std::cout << "  warning: " << w << "\n";
  std::vector<std::string> providers;
  for (const auto& r : rows) {
    const std::string p = r["provider"];
    if (std::find(providers.begin(), providers.end(), p) != providers.end()) continue;
    providers.push_back(p);
    std::string joined;
    for (const auto& id : doc->explicit_order(p)) joined += (joined.empty() ? "" : ", ") + id;
    if (!joined.empty()) std::cout << "  order (" << p << "): " << joined << "\n";
  }
  return 0;
}

/// Whether the config names `provider` (models.providers or a CLI backend); true when it cannot tell.
bool provider_configured(const std::string& provider) {
  const auto env = config::process_env();
  auto loaded = config::load(paths::config_file(paths::state_dir(env)), env);
  if (!loaded) return true;
  const json& cfg = loaded->effective;
  const json providers = cfg.value("models", json::object()).value("providers", json::object());
  if (providers.is_object() && providers.contains(provider)) return true;
  const json backends = cfg.value("agents", json::object()).value("defaults", json::object()).value("cliBackends", json::object());
  return (backends.is_object() && backends.contains(provider)) || provider == "claude-cli" || provider == "codex-cli";
}

int add(AuthArgs a) {
  auto type = llm::auth::credential_type_from_string(a.type);
  if (!type || *type == llm::auth::CredentialType::OAuth) {
    return fail(2, "--type must be api_key or token (got \"" + a.type + "\"); OAuth profiles are imported from OpenClaw");
  }
  if (*type == llm::auth::CredentialType::ApiKey && a.expires_ms != 0) {
    return fail(2, "--expires applies to --type token only (API keys do not expire here)");
  }
  // Milliseconds since the epoch; 0 = no expiry. Below 10^12 (September 2001) it is almost
  // certainly seconds — a token stored with it would count as expired at once.
  if (a.expires_ms < 0 || (a.expires_ms > 0 && a.expires_ms < 1'000'000'000'000)) {
    return fail(2, "--expires " + std::to_string(a.expires_ms) + ": expected the expiry in milliseconds since the epoch (e.g. " +
                       std::to_string(wall_ms() + 30LL * 24 * 3600 * 1000) + " is 30 days from now)" +
                       (a.expires_ms > 0 ? "; this looks like seconds" : ""));
  }
  const std::string id = a.id.empty() ? a.provider + ":default" : a.id;
  if (id.find_first_of(std::string_view("\t\r\n\0", 4)) != std::string::npos || a.provider.empty() ||
      a.provider.find_first_of(" \t\r\n/") != std::string::npos) {
    return fail(2, "--provider and --id must be non-empty, without spaces, tabs, line breaks or '/' in the provider");
  }
  if (!a.key) {
    if (::isatty(STDIN_FILENO)) std::cerr << "Paste the " << (a.type == "token" ? "token" : "API key") << " and press Enter: ";
    std::string line;
    std::getline(std::cin, line);
    a.key = line;
  }
  // Line breaks and surrounding whitespace are never part of a key (a paste often adds them).
  auto secret = llm::auth::clean_secret(*a.key, "the secret");
  if (!secret) {
    if (secret.error().message == "the secret is empty") return fail(2, "no secret given: use --key-file PATH, --key VALUE, or pipe it on stdin");
    return fail(2, secret.error().message);
  }
  if (a.expires_ms != 0 && a.expires_ms <= wall_ms()) std::cerr << "pincer: warning: --expires is in the past: the token is expired\n";
  auto file = file_for(a.agent);
  if (!file) return fail(2, file.error().message);
  llm::auth::Credential c;
  c.id = id;
  c.provider = a.provider;
  c.type = *type;
  c.secret = *secret;
  c.expires_ms = a.expires_ms;
  auto put = llm::auth::put_credential(**file, c);
  if (!put) return fail(put.error().code == "INVALID_INPUT" ? 2 : 1, put.error().message);
  const bool replaced = *put;
  if (a.json) return print_json({{"ok", true}, {"id", c.id}, {"replaced", replaced}, {"file", (*file)->path().string()}});
  if (!provider_configured(a.provider)) {
    std::cerr << "pincer: warning: no provider \"" << a.provider << "\" under models.providers (and no CLI backend of that name):"
              << " this profile is not used until one is configured\n";
  }
  std::cout << (replaced ? "Replaced" : "Added") << " auth profile " << c.id << " (" << a.type << ") in "
            << (*file)->path().string() << "\n";
  return 0;
}

int remove(const AuthArgs& a) {
  auto file = file_for(a.agent);
  if (!file) return fail(2, file.error().message);
  auto removed = llm::auth::remove_profiles(**file, {.provider = {}, .ids = std::vector<std::string>{a.id}, .api_keys_only = false});
  if (!removed) {
    return fail(1, removed.error().message + (removed.error().code == "AUTH_PROFILE_UNKNOWN" ? " (" + cli::invoked_command() + " models auth list)" : ""));
  }
  if (a.json) return print_json({{"ok", true}, {"id", a.id}});
  std::cout << "Removed auth profile " << a.id << "\n";
  return 0;
}

int order(const AuthArgs& a) {
  auto file = file_for(a.agent);
  if (!file) return fail(2, file.error().message);
  std::vector<std::string> result;
  if (a.ids.empty() && !a.clear) {
    auto doc = (*file)->load();
    if (!doc) return fail(1, doc.error().message);
    result = doc->explicit_order(a.provider);
    if (!a.json) std::cout << "The order that applies now: ";
    if (!a.json) {
      const auto now_order = doc->order(a.provider, wall_ms());
      for (std::size_t i = 0; i < now_order.size(); ++i) std::cout << (i ? ", " : "") << now_order[i];
      std::cout << (now_order.empty() ? "(no profiles)" : "") << "\nExplicit order: ";
      for (std::size_t i = 0; i < result.size(); ++i) std::cout << (i ? ", " : "") << result[i];
      std::cout << (result.empty() ? "(none)" : "") << "\n";
      return 0;
    }
    return print_json({{"provider", a.provider}, {"order", result}, {"effective", doc->order(a.provider, wall_ms())}});
  }
  if (a.clear && !a.ids.empty()) return fail(2, "give either profile ids or --clear, not both");
  auto st = llm::auth::set_provider_order(**file, a.provider, a.clear ? std::vector<std::string>{} : a.ids, false);
  if (!st) {
    if (st.error().code == "AUTH_PROFILE_UNKNOWN") return fail(2, st.error().message + " (" + cli::invoked_command() + " models auth list)");
    return fail(st.error().code == "INVALID_INPUT" ? 2 : 1, st.error().message);
  }
  if (a.json) return print_json({{"ok", true}, {"provider", a.provider}, {"order", a.clear ? std::vector<std::string>{} : a.ids}});
  std::cout << (a.clear ? "Cleared the explicit order of " + a.provider : "Set the order of " + a.provider) << "\n";
  return 0;
}

int reset(const AuthArgs& a) {
  auto file = file_for(a.agent);
  if (!file) return fail(2, file.error().message);
  bool found = false;
  auto st = (*file)->update([&](AuthProfiles& doc) {
    if (!doc.find(a.id)) return;
    found = true;
    const int64_t last_used = doc.stats(a.id).last_used;
    doc.mark_good(a.id, last_used);  // clears cooldown, disable and counters; keeps lastUsed
  });
  if (!st) return fail(1, st.error().message);
  if (!found) return fail(1, "no auth profile \"" + a.id + "\" (" + cli::invoked_command() + " models auth list)");
  if (a.json) return print_json({{"ok", true}, {"id", a.id}});
  std::cout << "Cleared the cooldown and failure counts of " << a.id << "\n";
  return 0;
}

}  // namespace

void register_models_auth_commands(CLI::App& app, Action& action) {
  CLI::App* models = app.get_subcommand("models");
  auto* auth = models->add_subcommand("auth", "Auth profiles: several keys per provider, rotated on failures");
  auth->require_subcommand(1);
  auto args = std::make_shared<AuthArgs>();
  auto common = [&](CLI::App* sub) {
    sub->add_option("--agent", args->agent, "Agent id (default: the default agent)");
    sub->add_flag("--json", args->json, "Print JSON");
  };
  auto* l = auth->add_subcommand("list", "Profiles and their state (usable, cooling, disabled, expired); never secrets");
  common(l);
  l->add_option("--provider", args->provider, "Only this provider's profiles");
  on_parsed(l, action, [args] {
    JsonErrors json_errors(args->json);  // --json: an error is {"ok": false, "error"} on stdout
    return list(*args);
  });

  auto* a = auth->add_subcommand("add", "Add or replace a profile (the secret from --key-file, --key or stdin)");
  common(a);
  a->add_option("--provider", args->provider, "Provider id as in models.providers, e.g. openai")->required();
  a->add_option("--id", args->id, "Profile id (default <provider>:default)");
  a->add_option("--type", args->type, "api_key (default) or token");
  a->add_option("--expires", args->expires_ms, "token: expiry, ms since the epoch");
  add_secret_option(a, "key", args->key, "The API key or token");
  on_parsed(a, action, [args, a] {
    JsonErrors json_errors(args->json);
    if (a->count("--id") > 0 && args->id.empty()) return fail(2, "--id is empty: give a profile id, or leave --id out for <provider>:default");
    return add(*args);
  });

  auto* r = auth->add_subcommand("remove", "Remove a profile, its stats and its place in the order");
  common(r);
  r->add_option("id", args->id, "Profile id")->required();
  on_parsed(r, action, [args] {
    JsonErrors json_errors(args->json);  // --json: an error is {"ok": false, "error"} on stdout
    return remove(*args);
  });

  auto* o = auth->add_subcommand("order", "Show, set (ids in order) or --clear a provider's explicit profile order");
  common(o);
  o->add_option("--provider", args->provider, "Provider id")->required();
  o->add_option("ids", args->ids, "Profile ids, first tried first");
  o->add_flag("--clear", args->clear, "Remove the explicit order");
  on_parsed(o, action, [args] {
    JsonErrors json_errors(args->json);  // --json: an error is {"ok": false, "error"} on stdout
    return order(*args);
  });

  auto* z = auth->add_subcommand("reset", "Clear a profile's cooldown, disable and failure counts");
  common(z);
  z->add_option("id", args->id, "Profile id")->required();
  on_parsed(z, action, [args] {
    JsonErrors json_errors(args->json);  // --json: an error is {"ok": false, "error"} on stdout
    return reset(*args);
  });
}

}  // namespace pincer::app
