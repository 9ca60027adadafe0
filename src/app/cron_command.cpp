// `pincer cron add|list|edit|rm|run|runs|enable|disable` (AT-2), with `openclaw cron add`'s
// flags: --name, --at (ISO time, or a duration from now: 20m, +2h) | --every (30s, 10m, 1h, 1d or
// ms) | --cron EXPR, --tz, --message (an agent turn in the job's own session) | --system-event
// TEXT (a note for the main session), --session main|isolated, --agent, --announce, --channel,
// --to, --wake, --model, --thinking, --timeout-seconds, --delete-after-run, --best-effort,
// --disabled. Through the running gateway (cron.* methods); without one on this state dir, on the
// job file itself (`run` needs the gateway).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cctype>
#include <ctime>
#include <iostream>
#include <optional>

#include "agent/agents_config.h"
#include "app/client_support.h"
#include "app/commands.h"
#include "agent/text_cut.h"
#include "automation/cron_api.h"
#include "automation/cron_expr.h"
#include "automation/schedule.h"
#include "automation/scheduler.h"
#include "channels/last_route.h"
#include "cli/chat_renderer.h"
#include "cli/config_file.h"
#include "cli/invoked_command.h"
#include "core/config.h"
#include "core/log.h"
#include "core/paths.h"

namespace pincer::app {
namespace {

using nlohmann::json;

struct CronJobFlags {
  std::string name, at, every, cron, tz, message, system_event, session, agent, channel, to, wake, model, thinking,
      description, webhook;
  double timeout_seconds = 0;  ///< 0 = not given
  bool announce = false, no_deliver = false, delete_after_run = false, best_effort = false, disabled = false;
};

struct CronCli {
  ClientFlags client;
  CronJobFlags job;
  std::string id;
  bool all = false, due = false;
  int limit = 20;
};

/// "30s", "10m", "2h", "1d", "1500ms" or plain milliseconds → ms; nullopt when malformed. A
/// duration longer than any schedule comes back as kScheduleMaxMs + 1 (never an overflow).
std::optional<int64_t> duration_ms(std::string text) {
  if (!text.empty() && text[0] == '+') text.erase(0, 1);
  std::size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0 || i > 12) return std::nullopt;
  const int64_t n = std::stoll(text.substr(0, i));
  const std::string unit = text.substr(i);
  int64_t scale = 0;
  if (unit.empty() || unit == "ms") scale = 1;
  else if (unit == "s") scale = 1000;
  else if (unit == "m") scale = 60'000;
  else if (unit == "h") scale = 3'600'000;
  else if (unit == "d") scale = 86'400'000;
  else return std::nullopt;
  constexpr int64_t kBeyond = automation::kScheduleMaxMs + 1;
  return n > kBeyond / scale ? kBeyond : n * scale;  // n < 10^12: n * scale <= kBeyond fits
}

/// "--every '…': " / "--at '…': " when `ms` (a duration, or the instant it gives) is after the
/// last time a schedule can have; "" when it is not.
std::string beyond_schedules(const char* flag, const std::string& typed, int64_t ms) {
  if (ms <= automation::kScheduleMaxMs) return "";
  return std::string(flag) + " '" + cli::terminal_safe(typed) + "': too far ahead: a schedule's times end at " +
         automation::kScheduleMaxText;
}

void add_job_flags(CLI::App* cmd, CronJobFlags& f) {
  cmd->add_option("--name", f.name, "Job name")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            // One line: `cron list` shows it in a row (a line break or escape would break the table).
            for (const char c : v) {
              if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) return "a job name is one line of text, without control characters";
            }
            return "";
          },
          "NAME"));
  cmd->add_option("--description", f.description, "What the job is for");
  cmd->add_option("--at", f.at, "Run once: ISO time (no offset = --tz or the user's zone) or a duration from now (20m)");
  cmd->add_option("--every", f.every, "Run every DURATION (30s, 10m, 1h, 1d, or ms)");
  cmd->add_option("--cron", f.cron, "Cron expression (5 or 6 fields)");
  cmd->add_option("--tz", f.tz, "IANA time zone of --cron / --at (e.g. Europe/Berlin)");
  cmd->add_option("--message", f.message, "Agent turn: the message the agent runs on, in the job's own session");
  cmd->add_option("--system-event", f.system_event, "System event: a note for the main session's next turn");
  cmd->add_option("--session", f.session, "main | isolated (default: main for --system-event, else isolated)")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string { return v.empty() ? "expected main or isolated, got an empty value" : ""; },
          "main|isolated"));
  cmd->add_option("--agent", f.agent, "Agent id (default: the default agent)");
  cmd->add_flag("--announce", f.announce, "Send the run's reply to --channel/--to (default for --message)");
  cmd->add_flag("--no-deliver", f.no_deliver, "Do not send the reply anywhere");
  cmd->add_option("--channel", f.channel, "Channel to announce to: last (the chat the agent last heard from) or an id");
  cmd->add_option("--to", f.to, "Recipient (chat id) to announce to");
  cmd->add_option("--webhook", f.webhook, "POST the run's finished record to this http(s) URL instead of a chat");
  cmd->add_option("--wake", f.wake, "now | next-heartbeat (system events)");
  cmd->add_option("--model", f.model, "Model of the agent turn (provider/id or alias)");
  cmd->add_option("--thinking", f.thinking, "Thinking level of the agent turn")->check(thinking_level_check());
  cmd->add_option("--timeout-seconds", f.timeout_seconds, "Time limit of the agent turn")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            char* end = nullptr;
            const double s = std::strtod(v.c_str(), &end);
            const bool number = !v.empty() && end == v.c_str() + v.size() && std::isfinite(s);
            return number && s > 0 ? "" : "expected a number of seconds greater than zero (got '" + v + "')";
          },
          "SECONDS"));
  cmd->add_flag("--delete-after-run", f.delete_after_run, "Remove a one-shot job after it ran successfully");
  cmd->add_flag("--best-effort", f.best_effort, "A failed delivery does not fail the run");
  cmd->add_flag("--disabled", f.disabled, "Create the job disabled");
}

std::string cron_cli_default_zone();

/// "" when the schedule the flags gave (`schedule`, as job_from_flags wrote it) can run; else why
/// not, naming the flag and what was typed. The check is the scheduler's own
/// (automation::schedule_never_fires: a --cron with no run within 5 years, an --at in the past).
/// `zone` is the zone the schedule is read in (a known IANA name); `shown_zone` the one times are
/// shown in ("" = this machine's, labelled with its abbreviation, as `cron list` shows them).
std::string cron_cli_schedule_problem(const CronJobFlags& f, const json& schedule, const std::string& zone,
                                      const std::string& shown_zone) {
  if (f.cron.empty() && f.at.empty() && f.every.empty()) return "";
  auto parsed = automation::parse_schedule(schedule, zone);
  if (!parsed) return "";  // the scheduler names what is wrong
  const auto problem = automation::schedule_never_fires(*parsed, SystemClock::instance().wall_ms(), shown_zone);
  if (!problem) return "";
  if (!f.cron.empty()) return "--cron '" + cli::terminal_safe(f.cron) + "' " + problem->why;
  if (!f.every.empty()) return "--every '" + cli::terminal_safe(f.every) + "' " + problem->why;
  return "--at '" + cli::terminal_safe(f.at) + "' " + problem->why + ", or a duration from now (20m, 2h)";
}

/// The job (add) or the patch (edit) the flags describe. Errors name the flag.
Result<json> job_from_flags(const CronJobFlags& f, bool patch) {
  json j = json::object();
  const int kinds = !f.at.empty() + !f.every.empty() + !f.cron.empty();
  if (kinds > 1) return Error{"2", "give one of --at, --every, --cron"};
  if (kinds == 0 && !patch) return Error{"2", "a schedule is required: --at, --every or --cron"};
  if (!f.at.empty()) {
    if (auto d = duration_ms(f.at)) {
      const int64_t at = SystemClock::instance().wall_ms() + *d;  // both at most kScheduleMaxMs + 1
      if (std::string far = beyond_schedules("--at", f.at, at); !far.empty()) return Error{"2", far};
      j["schedule"] = {{"kind", "at"}, {"at", at}};
    } else if (!automation::parse_iso_instant(f.at, "UTC")) {  // the form only: the zone comes later
      // What --at takes, as its --help says: not only an ISO time. A duration counts from now, so a
      // negative one would be a time already past.
      const bool negative = f.at.size() > 1 && f.at[0] == '-' && duration_ms(f.at.substr(1));
      return Error{"2", "--at '" + cli::terminal_safe(f.at) + "': " +
                            (negative ? std::string("a negative duration is a time already past; ") : std::string()) +
                            "expected an ISO 8601 time (2026-03-01T08:00, optionally with Z or +01:00; years up to "
                            "9999) or a duration "
                            "from now (20m, 2h, 1d; not negative)"};
    } else {
      j["schedule"] = {{"kind", "at"}, {"at", f.at}};
    }
  } else if (!f.every.empty()) {
    auto d = duration_ms(f.every);
    if (!d) return Error{"2", "--every: expected a duration such as 30s, 10m, 1h, 1d (got '" + f.every + "')"};
    if (*d <= 0) return Error{"2", "--every: the interval must be greater than zero (got '" + f.every + "'; e.g. 30s, 10m, 1h)"};
    // Every run is an agent turn (a model call): sub-second intervals are a typo (`--every 20`
    // meant 20 minutes?), not a schedule.
    if (*d < automation::kCronMinEveryMs) return Error{"2", "--every: at least 1s (got " + std::to_string(*d) + " ms; give a unit: 30s, 10m, 1h)"};
    if (std::string far = beyond_schedules("--every", f.every, *d); !far.empty()) return Error{"2", far};
    j["schedule"] = {{"kind", "every"}, {"everyMs", *d}};
  } else if (!f.cron.empty()) {
    // Checked here so the message names the expression and its wrong field, not the job the
    // scheduler would have generated an id for.
    if (auto expr = automation::parse_cron_expr(f.cron); !expr)
      return Error{"2", "--cron '" + cli::terminal_safe(f.cron) + "': " + expr.error().message};
    j["schedule"] = {{"kind", "cron"}, {"expr", f.cron}};
  }
  if (!f.tz.empty()) {
    // Alone in an edit it changes the zone of the job's own schedule (the job file says which).
    if ((!j.contains("schedule") && !patch) || !f.every.empty()) return Error{"2", "--tz goes with --at or --cron"};
    if (!automation::is_known_zone(f.tz)) return Error{"2", "--tz: unknown time zone '" + f.tz + "' (an IANA name such as Europe/Berlin)"};
    if (!j.contains("schedule")) j["schedule"] = json::object();
    j["schedule"]["tz"] = f.tz;
  }
  {
    std::string shown = !f.tz.empty() ? f.tz : cron_cli_default_zone();
    if (!automation::is_known_zone(shown)) shown.clear();
    const std::string zone = shown.empty() ? automation::host_zone() : shown;
    if (j.contains("schedule")) {
      if (const std::string problem = cron_cli_schedule_problem(f, j["schedule"], zone, shown); !problem.empty())
        return Error{"2", problem};
    }
  }
  if (!f.message.empty() && !f.system_event.empty()) return Error{"2", "give --message or --system-event, not both"};
  if (f.message.empty() && f.system_event.empty() && !patch) return Error{"2", "a payload is required: --message or --system-event"};
  if (!f.message.empty()) {
    j["payload"] = {{"kind", "agentTurn"}, {"message", f.message}};
    if (!f.model.empty()) j["payload"]["model"] = f.model;
    if (!f.thinking.empty()) j["payload"]["thinking"] = f.thinking;
    if (f.timeout_seconds > 0) j["payload"]["timeoutSeconds"] = f.timeout_seconds;
    j["sessionTarget"] = "isolated";
  } else if (!f.system_event.empty()) {
    j["payload"] = {{"kind", "systemEvent"}, {"text", f.system_event}};
    j["sessionTarget"] = "main";
  } else if (!f.model.empty() || !f.thinking.empty() || f.timeout_seconds > 0) {
    return Error{"2", "--model, --thinking and --timeout-seconds go with --message"};
  }
  if (!f.session.empty()) j["sessionTarget"] = f.session;
  if (!f.name.empty()) j["name"] = f.name;
  if (!f.description.empty()) j["description"] = f.description;
  if (!f.agent.empty()) j["agentId"] = f.agent;
  if (!f.wake.empty()) j["wakeMode"] = f.wake;
  if (f.delete_after_run) j["deleteAfterRun"] = true;
  if (f.disabled) j["enabled"] = false;
  if (f.no_deliver) {
    j["delivery"] = {{"mode", "none"}};
  } else if (!f.webhook.empty()) {
    json d = {{"mode", "webhook"}, {"to", f.webhook}};
    if (f.best_effort) d["bestEffort"] = true;
    j["delivery"] = std::move(d);
  } else if (f.announce || !f.channel.empty() || !f.to.empty() || (!patch && !f.message.empty())) {
    // Only `last` brings its chat; a named channel without a recipient fails every run's delivery
    // (ChannelManager::announce: "no recipient to announce to"), so a new job is refused here.
    if (!patch && !f.channel.empty() && f.channel != "last" && f.to.empty()) {
      return Error{"2", "--channel " + f.channel + " needs --to CHAT, the chat to announce to there (without --channel, "
                        "or with --channel last, the reply goes to the chat the agent last heard from)"};
    }
    json d = {{"mode", "announce"}, {"channel", f.channel.empty() ? "last" : f.channel}};
    if (!f.to.empty()) d["to"] = f.to;
    if (f.best_effort) d["bestEffort"] = true;
    j["delivery"] = std::move(d);
  }
  return j;
}

/// "" unless `job` announces its reply to the chat its agent last heard from (delivery channel
/// "last", with or without "to") and that agent has heard from none yet (<state>/channels/last-route.json,
/// channels/last_route.h), or its last chat is a webhook in sync mode (it answers only the request
/// waiting for it): then why the reply will not be delivered, naming the flags that fix it.
std::string cron_undeliverable_note(const json& job) {
  const json& d = job.value("delivery", json::object());
  if (!d.is_object() || d.value("mode", "") != "announce" || d.value("channel", "last") != "last") {
    return "";
  }
  const auto env = config::process_env();
  const auto state = paths::state_dir(env);
  auto loaded = config::load(paths::config_file(state), cli::keep_env_references());
  const json effective = loaded ? loaded->effective : config::with_defaults(json::object());
  std::string agent_id = job.value("agentId", "");
  if (agent_id.empty()) {
    auto agents = agent::resolve_agents(effective, state, env);
    agent_id = agents ? agents->default_id : "main";
  }
  for (auto& ch : agent_id) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  constexpr const char* kFix = "give --channel CHANNEL --to CHAT to send it to a chat of your choice (or --no-deliver, "
                               "--webhook URL)";
  const auto last = channels::LastRoutes(state / "channels" / "last-route.json").get(agent_id);
  if (!last) {
    return "agent " + agent_id + " has no chat to announce to yet (nobody has written to it on a channel), so the "
           "run's reply will not be delivered until someone does; " + kFix;
  }
  if (last->channel != "webhook") return "";
  // The account's mode, else the channel's; "sync" when neither says (docs/channels.md, Webhook).
  const json webhook = effective.contains("channels") ? effective["channels"].value("webhook", json::object()) : json::object();
  std::string mode = "sync";
  if (webhook.is_object() && webhook.contains("mode") && webhook["mode"].is_string()) mode = webhook["mode"];
  if (webhook.is_object() && webhook.contains("accounts") && webhook["accounts"].is_object()) {
    const json account = webhook["accounts"].value(last->account_id, json::object());
    if (account.is_object() && account.contains("mode") && account["mode"].is_string()) mode = account["mode"];
  }
  if (mode != "sync") return "";
  return "agent " + agent_id + "'s last chat is the webhook, whose \"sync\" mode answers only the request waiting for "
         "it, so the run's reply will not be delivered there; " + kFix;
}

/// A time of the job file with its zone: in `zone` (a job's schedule.tz, labelled with its name)
/// when it is a known zone, else in this machine's zone labelled with its abbreviation ("… CET").
std::string when(const json& ms, const std::string& zone = "") {
  if (!ms.is_number_integer()) return "-";
  return automation::format_wall_minute(ms.get<int64_t>(), automation::is_known_zone(zone) ? zone : "");
}

// A job's fields as the file holds them: a hand edit may give any field any type (the job is then
// listed INVALID), so nothing here assumes one; text is printed terminal-safe.
const json& field_of(const json& j, const char* key) {
  static const json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}
/// `text` on one line (a row of `cron list`): line breaks and tabs (kept by terminal_safe) as spaces —
/// a name stored before names had to be one line, or written by another client.
std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return text;
}

std::string text_of(const json& j, const char* key) {
  const json& v = field_of(j, key);
  if (v.is_null()) return "";
  return cli::terminal_safe(v.is_string() ? v.get<std::string>() : v.dump());
}

/// The zone a job's times are shown in: its schedule's own tz ("" = this machine's zone).
std::string cron_cli_schedule_zone(const json& schedule) {
  const json& tz = field_of(schedule, "tz");
  return tz.is_string() ? tz.get<std::string>() : "";
}

/// The zone an ISO `at` without offset means when the job names none: the configured
/// agents.defaults.userTimezone, else this machine's ("" — as the scheduler reads it, scheduler.cpp).
std::string cron_cli_default_zone() {
  static const std::string zone = [] {
    const auto env = config::process_env();
    auto loaded = config::load(paths::config_file(paths::state_dir(env)), env);
    if (!loaded) return std::string();
    return automation::cron_settings_from_config(loaded->effective).default_zone;
  }();
  return zone;
}

/// An interval in the largest unit that divides it exactly: 10800000 → "3h", 5400000 → "90m",
/// 86400000 → "1d", 1500 → "1500ms".
std::string cron_cli_interval_text(int64_t ms) {
  if (ms <= 0) return std::to_string(ms) + "ms";
  for (const auto& [unit, size] : {std::pair<const char*, int64_t>{"d", 86'400'000}, {"h", 3'600'000}, {"m", 60'000}, {"s", 1000}})
    if (ms % size == 0) return std::to_string(ms / size) + unit;
  return std::to_string(ms) + "ms";
}

std::string schedule_text(const json& s) {
  const std::string kind = text_of(s, "kind");
  if (kind == "at") {
    const json& at = field_of(s, "at");
    if (!at.is_string()) return "at " + when(at, cron_cli_schedule_zone(s));
    // An ISO time is shown like the other times: local, to the minute, with its zone.
    const std::string zone = cron_cli_schedule_zone(s);
    const std::string parse_zone = automation::is_known_zone(zone) ? zone : cron_cli_default_zone();
    if (auto ms = automation::parse_iso_instant(at.get<std::string>(), parse_zone)) return "at " + when(json(*ms), zone);
    return "at " + text_of(s, "at");
  }
  if (kind == "every") {
    const json& ms = field_of(s, "everyMs");
    return "every " + (ms.is_number_integer() ? cron_cli_interval_text(ms.get<int64_t>()) : text_of(s, "everyMs"));
  }
  if (kind == "cron") return "cron " + text_of(s, "expr") + (field_of(s, "tz").is_null() ? "" : " (" + text_of(s, "tz") + ")");
  return "schedule " + (s.is_null() ? std::string("missing") : cli::terminal_safe(s.dump()));
}

/// A list's problems on stderr: invalid jobs (kept, disabled) and a broken job file (then 1, as
/// the same list without a gateway, which cannot open the file at all).
int list_problems(const json& r) {
  for (const auto& i : field_of(r, "issues")) std::cerr << "cron: " << cli::terminal_safe(i.is_string() ? i.get<std::string>() : i.dump()) << "\n";
  if (field_of(r, "fileError").is_null()) return 0;
  std::cerr << "cron: " << text_of(r, "fileError") << "\n";
  return 1;
}

int print_result(const CronCli& c, const std::string& action, const json& r) {
  if (c.client.json) {
    print_json(r);
    return action == "list" && !field_of(r, "fileError").is_null() ? 1 : 0;
  }
  if (action == "list") {
    if (r["jobs"].empty()) {
      std::cout << "No cron jobs" << (c.all ? "" : " (enabled; --all lists disabled ones too)") << ".\n";
      return list_problems(r);
    }
    for (const auto& j : r["jobs"]) {
      const json& st = field_of(j, "state");
      const std::string last_status = text_of(st, "lastStatus");
      const std::string zone = cron_cli_schedule_zone(field_of(j, "schedule"));
      std::cout << text_of(j, "id") << "  " << one_line(text_of(j, "name")) << "  " << schedule_text(field_of(j, "schedule"))
                << "  next " << when(field_of(st, "nextRunAtMs"), zone) << "  last " << when(field_of(st, "lastRunAtMs"), zone)
                << (last_status.empty() ? "" : " " + last_status) << (field_of(j, "enabled") == false ? "  (disabled)" : "")
                << (field_of(j, "invalid").is_null() ? "" : "  INVALID: " + text_of(j, "invalid")) << "\n";
    }
    return list_problems(r);
  }
  if (action == "runs") {
    if (r["entries"].empty()) std::cout << "No runs of " << c.id << " yet.\n";
    for (const auto& e : r["entries"]) {
      const json& ms = field_of(e, "durationMs");
      std::cout << when(field_of(e, "runAtMs")) << "  " << text_of(e, "status") << "  "
                << (ms.is_number_integer() ? ms.get<int64_t>() : 0) << " ms";
      if (!field_of(e, "error").is_null()) std::cout << "  " << text_of(e, "error");
      else if (!field_of(e, "summary").is_null()) std::cout << "  " << agent::text::head(text_of(e, "summary"), 80);
      std::cout << "\n";
    }
    return 0;
  }
  if (action == "run") {
    if (field_of(r, "enqueued") == true) std::cout << "Started " << c.id << " (run " << text_of(r, "runId") << ")\n";
    else std::cout << "Not run: " << text_of(r, "reason") << "\n";
    return 0;
  }
  if (action == "remove") {
    std::cout << "Removed " << c.id << "\n";
    return 0;
  }
  std::cout << (action == "add" ? "Added " : "Updated ") << text_of(r, "id") << " (" << text_of(r, "name") << "): "
            << schedule_text(field_of(r, "schedule")) << ", next run "
            << when(field_of(field_of(r, "state"), "nextRunAtMs"), cron_cli_schedule_zone(field_of(r, "schedule")))
            << (field_of(r, "enabled") == false ? " (disabled)" : "") << "\n";
  return 0;
}

/// The exit code of a refused cron call, the same with and without a gateway (docs/cli.md):
/// 2 for bad input (a param, a job field, an existing id), 1 for the rest (unknown job id, a
/// broken job file, I/O). `code` is the scheduler's (automation/cron_api.h).
int cron_exit_code(std::string_view code) {
  for (std::string_view bad : {"INVALID_REQUEST", "CRON_JOB_INVALID", "CRON_JOB_EXISTS", "SCHEDULE_INVALID"})
    if (code == bad) return 2;
  return 1;
}

/// One action through the gateway, or on the job file when no gateway runs here.
int cron_action(const CronCli& c, const std::string& action, const json& params) {
  JsonErrors json_errors(c.client.json);  // --json: a failure is {"ok": false, "error"} on stdout too
  const bool writes = action == "add" || action == "update" || action == "remove";
  return with_gateway_or_local(
      c.client,
      [&](cli::GatewayClient& client) {
        auto r = client.call("cron." + action, params, c.client.timeout());
        if (!r) {
          // methods/cron.cpp answers INVALID_REQUEST with the scheduler's code in details.code,
          // which the client reports as the error's code.
          (void)request_failed("cron." + action, r.error());  // prints the message
          return cron_exit_code(r.error().code);
        }
        return print_result(c, action, *r);
      },
      [&] {
        const auto env = config::process_env();
        const auto state = paths::state_dir(env);
        const std::string file = (state / "cron" / "jobs.json").string();
        const std::string gateway_run = cli::invoked_command() + " gateway run";
        // Reads were introduced by with_gateway_or_local ("showing the local files"); a write or a
        // run says here what no gateway meant for it.
        auto resolved = cli::resolve_connection(c.client.conn, env);
        const std::string no_gateway = "no gateway answers at " + (resolved ? resolved->url : std::string("its address"));
        if (action == "run") {
          return fail(1, no_gateway + "; cron run: a job runs only in the gateway: start it (" + gateway_run + ")");
        }
        auto offline_fail = [&](int code, const std::string& message) {
          return fail(code, writes ? no_gateway + "; nothing was written to " + file + ": " + message : message);
        };
        // The scheduler's log lines go to stderr (core/log.h): stdout is the command's output (--json).
        log::Options quiet;
        quiet.level = "warn";
        (void)log::init(quiet);
        json cfg = json::object();
        auto loaded = config::load(paths::config_file(state), env);
        if (loaded) cfg = loaded->effective;
        auto settings = automation::cron_settings_from_config(cfg);
        if (!loaded) {  // the agents and channels are unknown here, not "none"
          settings.known_agents.reset();
          settings.known_channels.reset();
        }
        EventLoop loop(1);
        automation::CronScheduler sched(loop, [] { return SystemClock::instance().wall_ms(); }, state / "cron",
                                        std::move(settings));
        if (auto st = sched.open_offline(); !st) return offline_fail(1, st.error().message);
        auto r = automation::cron_call(sched, action, params);
        if (!r) return offline_fail(cron_exit_code(r.error().code), r.error().message);
        const int rc = print_result(c, action, *r);
        if (writes) {
          // Nothing runs here: the gateway reads the file when it starts (scheduler.h start()).
          std::cerr << "pincer: " << no_gateway << ": "
                    << (action == "add"      ? "the job was written to " + file + "; the gateway schedules it when it starts ("
                        : action == "remove" ? "the job was removed from " + file + " (and its run history); the gateway "
                                               "reads the file when it starts ("
                                             : "the change was written to " + file + "; the gateway applies it when it starts (")
                    << gateway_run << ")\n";
        }
        return rc;
      },
      /*say_offline=*/!writes && action != "run");
}

}  // namespace

void register_cron_commands(CLI::App& app, Action& action) {
  auto c = std::make_shared<CronCli>();
  auto* cron = app.add_subcommand("cron", "Scheduled jobs: add, list, edit, remove, run (docs/automation.md)");
  cron->require_subcommand(1);

  auto* add = cron->add_subcommand("add", "Add a job");
  add_job_flags(add, c->job);
  add_client_flags(add, c->client);
  on_parsed(add, action, [c] {
    JsonErrors json_errors(c->client.json);
    auto job = job_from_flags(c->job, false);
    if (!job) return fail(2, "cron add: " + job.error().message);
    const std::string note = cron_undeliverable_note(*job);  // added anyway: a chat may come before the run
    const int rc = cron_action(*c, "add", *job);
    if (rc == 0 && !note.empty()) std::cerr << "pincer: warning: cron add: " << note << "\n";
    return rc;
  });

  auto* list = cron->add_subcommand("list", "List jobs (next run first)");
  list->add_flag("--all", c->all, "Also disabled jobs");
  add_client_flags(list, c->client);
  on_parsed(list, action, [c] { return cron_action(*c, "list", {{"includeDisabled", c->all}, {"limit", 1000}}); });

  auto* edit = cron->add_subcommand("edit", "Change a job (only the flags given)");
  edit->add_option("id", c->id, "Job id")->required();
  add_job_flags(edit, c->job);
  add_client_flags(edit, c->client);
  on_parsed(edit, action, [c] {
    JsonErrors json_errors(c->client.json);
    auto patch = job_from_flags(c->job, true);
    if (!patch) return fail(2, "cron edit: " + patch.error().message);
    if (patch->empty()) return fail(2, "cron edit: nothing to change (give the flags to change)");
    return cron_action(*c, "update", {{"id", c->id}, {"patch", *patch}});
  });

  auto* rm = cron->add_subcommand("rm", "Remove a job and its run history");
  rm->alias("remove");
  rm->add_option("id", c->id, "Job id")->required();
  add_client_flags(rm, c->client);
  on_parsed(rm, action, [c] { return cron_action(*c, "remove", {{"id", c->id}}); });

  auto* run = cron->add_subcommand("run", "Run a job now (through the gateway)");
  run->add_option("id", c->id, "Job id")->required();
  run->add_flag("--due", c->due, "Only when it is due");
  add_client_flags(run, c->client);
  on_parsed(run, action, [c] { return cron_action(*c, "run", {{"id", c->id}, {"mode", c->due ? "due" : "force"}}); });

  auto* runs = cron->add_subcommand("runs", "A job's run history (newest first)");
  runs->add_option("id", c->id, "Job id")->required();
  runs->add_option("--limit", c->limit, "Entries (1-200)")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            const bool digits = !v.empty() && v.size() <= 3 &&
                                std::all_of(v.begin(), v.end(), [](unsigned char ch) { return std::isdigit(ch) != 0; });
            if (digits && std::stoi(v) >= 1 && std::stoi(v) <= 200) return "";
            return "expected a whole number from 1 to 200 (got '" + cli::terminal_safe(v) + "')";
          },
          "1-200"));
  add_client_flags(runs, c->client);
  on_parsed(runs, action, [c] { return cron_action(*c, "runs", {{"id", c->id}, {"limit", c->limit}}); });

  for (const bool on : {true, false}) {
    auto* sub = cron->add_subcommand(on ? "enable" : "disable", on ? "Enable a job" : "Disable a job");
    sub->add_option("id", c->id, "Job id")->required();
    add_client_flags(sub, c->client);
    on_parsed(sub, action, [c, on] { return cron_action(*c, "update", {{"id", c->id}, {"patch", {{"enabled", on}}}}); });
  }
}

}  // namespace pincer::app
