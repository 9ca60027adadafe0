// run_channels_status (channels_status.h).
#include "app/channels_status.h"

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "cli/chat_renderer.h"  // terminal_safe
#include "cli/config_checks.h"  // reload_off_note
#include "core/config.h"
#include "core/clock.h"

namespace pincer::app {

using nlohmann::json;

int run_channels_status(const ClientFlags& f, bool probe) {
  return with_gateway(f, [&](cli::GatewayClient& client) {
    auto r = client.call("channels.status", probe ? json{{"probe", true}} : json::object(), f.timeout());
    if (!r) return request_failed("channels.status", r.error());
    if (f.json) return print_json(*r);
    // OpenClaw's shape: channelOrder, and per channel its accounts.
    json list = json::array();
    for (const auto& id : r->value("channelOrder", json::array())) {
      for (const auto& account : (*r)["channelAccounts"].value(id.get<std::string>(), json::array())) list.push_back(account);
    }
    // The config the gateway runs may not be the file (a rejected reload): then an empty list does
    // not mean the file has no channels (as `pincer status` explains it).
    json running_config = json::object();
    if (auto st = client.call("status", json::object(), f.timeout()); st && st->is_object()) {
      running_config = st->value("config", json::object());
    }
    const bool older_config = running_config.is_object() && !running_config.value("matchesFile", true);
    if (list.empty()) {
      std::cout << (older_config ? "No channels in the config the gateway runs, which is not the file's (below).\n"
                                 : "No channels configured (see docs/channels.md).\n");
    }
    const auto say_older_config = [&] {
      if (!older_config) return;
      const std::string path = running_config.value("path", "the config file");
      if (const json rejected = running_config.value("lastRejectedReload", json()); rejected.is_object()) {
        std::cout << "Warning: the gateway runs an older config: its reload of " << path
                  << " was rejected: " << cli::terminal_safe(rejected.value("reason", "")) << "\n"
                  << "  fix: " << cli::terminal_safe(rejected.value("fix", "")) << "\n";
      } else if (const std::string off = cli::reload_off_note(path, config::process_env()); !off.empty()) {
        std::cout << "Warning: the gateway runs an older config than the file: " << off << "\n";
      }
    };
    bool probe_failed = false;
    for (const auto& c : list) {
      const bool running = c.value("running", false);
      const std::string label = c.value("channel", "?") + "[" + c.value("accountId", "default") + "]";
      std::cout << label << "  ";
      // A reason the channel gave names the account already ("telegram[default]: resolve …"): the
      // line starts with it, so it is said once.
      const auto reason = [&label](std::string text) {
        while (text.rfind(label + ": ", 0) == 0) text.erase(0, label.size() + 2);
        return text;
      };
      if (!c.value("enabled", true)) {  // switched off in the config: nothing else to say
        std::cout << "disabled\n";
        continue;
      }
      std::cout << (running ? "running" : "stopped");
      if (!running && c.contains("restartAt") && c["restartAt"].is_number()) {  // after a failure, with backoff
        const int64_t in_ms = c["restartAt"].get<int64_t>() - r->value("ts", SystemClock::instance().wall_ms());
        std::cout << " (restarting in " << std::max<int64_t>(1, (in_ms + 999) / 1000) << " s)";
      }
      // One reason is said once: a stopped account's failure is usually also its last error and
      // its probe's error (new-user pass: the same sentence three times on one line).
      std::vector<std::string> said;
      const auto unsaid = [&said](const std::string& text) {
        for (const auto& s : said) {
          if (s.find(text) != std::string::npos) return false;
        }
        said.push_back(text);
        return true;
      };
      if (!running && c.contains("lastFailure") && c["lastFailure"].is_string()) {
        said.push_back(reason(c["lastFailure"].get<std::string>()));
        std::cout << "  failed: " << cli::terminal_safe(said.back());
        if (c.value("permanentFailure", false)) std::cout << " (not retried until the config changes)";
      }
      // Who the account is: its bot name, Matrix user id, Slack team, e-mail address.
      const auto text_of = [&c](const char* key) { return c.contains(key) && c[key].is_string() ? c[key].get<std::string>() : ""; };
      if (!text_of("bot").empty()) std::cout << "  @" << cli::terminal_safe(text_of("bot"));
      if (!text_of("userId").empty()) std::cout << "  " << cli::terminal_safe(text_of("userId"));
      if (!text_of("teamId").empty()) std::cout << "  team " << cli::terminal_safe(text_of("teamId"));
      if (!text_of("address").empty()) std::cout << "  " << cli::terminal_safe(text_of("address"));
      if (c.contains("nick") && c.contains("server")) {  // IRC
        std::cout << "  " << cli::terminal_safe(c.value("nick", "")) << " on " << cli::terminal_safe(c.value("server", ""));
      }
      if (c.contains("path") && c.value("channel", "") == "webhook") std::cout << "  " << cli::terminal_safe(c.value("path", ""));
      if (running && c.value("channel", "") == "email" && c.contains("connected")) {  // its mailbox, idling or not
        const std::string mailbox = cli::terminal_safe(c.value("mailbox", "INBOX"));
        if (!c.value("connected", false)) std::cout << "  not connected";
        else if (c.value("idle", false)) std::cout << "  connected, idle on " << mailbox;
        else std::cout << "  connected, reading " << mailbox;
      }
      if (c.contains("lastError") && c["lastError"].is_string() && unsaid(reason(c["lastError"].get<std::string>()))) {
        std::cout << "  last error: " << cli::terminal_safe(said.back());
      }
      if (c.contains("probe")) {
        const json& pr = c["probe"];
        probe_failed = probe_failed || !pr.value("ok", false);
        std::cout << "  probe: " << (pr.value("ok", false) ? "ok" : "failed");
        if (pr.contains("elapsedMs")) std::cout << " (" << pr["elapsedMs"] << " ms)";
        if (pr.contains("error") && unsaid(reason(pr.value("error", "")))) std::cout << ": " << cli::terminal_safe(said.back());
        else if (pr.contains("error")) std::cout << " (as above)";
      }
      std::cout << "\n";
    }
    say_older_config();
    return probe_failed ? 1 : 0;
  });
}

}  // namespace pincer::app
