// The schema tree of pincer.json. Every key, type, bound, default and description lives here and
// nowhere else (see config_schema.h). One function per top-level section keeps additions local.
#include "core/config_schema.h"
#include "core/config_schema_agents.h"
#include "core/config_schema_channels.h"
#include "core/config_schema_gateway.h"
#include "core/config_schema_models.h"
#include "core/config_schema_session.h"
#include "core/config_schema_tools.h"
#include "core/config_schema_memory.h"
#include "core/config_schema_mcp.h"
#include "core/config_schema_skills.h"
#include "core/config_schema_hooks.h"
#include "core/config_schema_dreaming.h"
#include "core/config_schema_active_memory.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace pincer::config::schema {

// ---- Node ---------------------------------------------------------------------------------------

Node::Node(Kind kind)
    : kind_(kind),
      fields_(std::make_shared<const std::vector<Field>>()),
      alternatives_(std::make_shared<const std::vector<Node>>()) {}

Node Node::doc(std::string text) && {
  description_ = std::move(text);
  return std::move(*this);
}
Node Node::def(nlohmann::json value) && {
  default_ = std::move(value);
  return std::move(*this);
}
Node Node::default_note(std::string text) && {
  default_note_ = std::move(text);
  return std::move(*this);
}
Node Node::min(double value) && {
  assert(kind_ == Kind::kInteger || kind_ == Kind::kNumber);
  min_ = value;
  return std::move(*this);
}
Node Node::max(double value) && {
  assert(kind_ == Kind::kInteger || kind_ == Kind::kNumber);
  max_ = value;
  return std::move(*this);
}
Node Node::format(std::string name) && {
  assert(kind_ == Kind::kString);
  format_ = std::move(name);
  return std::move(*this);
}
Node Node::pattern(std::string regex) && {
  assert(kind_ == Kind::kString);
  pattern_ = std::move(regex);
  return std::move(*this);
}
Node Node::sensitive() && {
  sensitive_ = true;
  return std::move(*this);
}
Node Node::required() && {
  required_ = true;
  return std::move(*this);
}

Node Node::only_when_written() && {
  assert(kind_ == Kind::kObject);
  only_when_written_ = true;
  return std::move(*this);
}
Node Node::hint(std::string key, std::string instead) && {
  assert(kind_ == Kind::kObject);
  key_hints_.emplace_back(std::move(key), std::move(instead));
  return std::move(*this);
}

const std::string* Node::key_hint(std::string_view key) const {
  for (const auto& h : key_hints_) {
    if (h.first == key) return &h.second;
  }
  return nullptr;
}

const Field* Node::find(std::string_view name) const {
  for (const Field& f : *fields_) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const Node& Node::item() const {
  assert(item_);
  return *item_;
}

namespace {

// Bounds are doubles; integers print without a fraction ("65535", not "65535.0").
std::string format_bound(double v, Kind kind) {
  if (kind == Kind::kInteger || (std::trunc(v) == v && std::fabs(v) < 1e15)) {
    return std::to_string(static_cast<std::int64_t>(v));
  }
  return nlohmann::json(v).dump();
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}

}  // namespace

std::string Node::expectation() const {
  switch (kind_) {
    case Kind::kObject: return "object";
    case Kind::kMap: return "map of string to " + item_->expectation();
    case Kind::kArray: return "array of " + item_->expectation();
    case Kind::kString:
      if (format_ == "ipv4") return "IPv4 address";
      if (format_ == "http-url") return "http:// or https:// URL with a host";
      if (format_ == "origin") return "`*` or an origin http(s)://host[:port] (no path)";
      if (format_ == "text-line") return "string without control characters (newline, tab, NUL …)";
      return pattern_.empty() ? "string" : "string matching " + pattern_;
    case Kind::kBoolean: return "boolean";
    case Kind::kEnum: return "one of " + join(enum_values_, "|");
    case Kind::kAny: return "any value";
    case Kind::kUnion: {
      std::vector<std::string> parts;
      for (const Node& alt : *alternatives_) parts.push_back(alt.expectation());
      return join(parts, " or ");
    }
    case Kind::kInteger:
    case Kind::kNumber: {
      std::string out = kind_ == Kind::kInteger ? "integer" : "number";
      if (min_ && max_) return out + " " + format_bound(*min_, kind_) + ".." + format_bound(*max_, kind_);
      if (min_) return out + " >= " + format_bound(*min_, kind_);
      if (max_) return out + " <= " + format_bound(*max_, kind_);
      return out;
    }
  }
  return "value";
}

// ---- suggestions for unknown keys ----------------------------------------------------------------

namespace {

// Optimal string alignment distance (a swap of two neighbours counts 1), ASCII case-insensitive,
// giving up (returning limit + 1) past `limit`.
std::size_t schema_key_distance(const std::string& a, const std::string& b, std::size_t limit) {
  if ((a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) > limit) return limit + 1;
  const auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1])) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::string suggested_key(const Node& node, const std::string& key) {
  if (const std::string* hint = node.key_hint(key)) return *hint;
  if (key.size() > 64) return "";
  const std::size_t limit = key.size() < 3 ? 0 : std::min<std::size_t>(2, (key.size() - 1) / 2);
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const auto& f : node.fields()) {
    const std::size_t distance = schema_key_distance(key, f.name, limit);
    if (distance < best_distance) {
      best = f.name;
      best_distance = distance;
    }
  }
  return best;
}

// ---- constructors -------------------------------------------------------------------------------

Field field(std::string name, Node node) { return Field{std::move(name), std::move(node)}; }

Node object(std::vector<Field> fields) {
  Node n(Kind::kObject);
  n.fields_ = std::make_shared<const std::vector<Field>>(std::move(fields));
  return n;
}
Node map_of(Node value) {
  Node n(Kind::kMap);
  n.item_ = std::make_shared<const Node>(std::move(value));
  return n;
}
Node array_of(Node item) {
  Node n(Kind::kArray);
  n.item_ = std::make_shared<const Node>(std::move(item));
  return n;
}
Node string() { return Node(Kind::kString); }
Node integer() { return Node(Kind::kInteger); }
Node number() { return Node(Kind::kNumber); }
Node boolean() { return Node(Kind::kBoolean); }
Node one_of(std::vector<std::string> values) {
  Node n(Kind::kEnum);
  n.enum_values_ = std::move(values);
  return n;
}
Node any() { return Node(Kind::kAny); }
Node union_of(std::vector<Node> alternatives) {
  assert(!alternatives.empty());
  Node n(Kind::kUnion);
  n.alternatives_ = std::make_shared<const std::vector<Node>>(std::move(alternatives));
  return n;
}

// ---- the tree -----------------------------------------------------------------------------------
// The sections live in config_schema_<section>.cpp; the small ones are declared here.
namespace {

Node commands_section() {
  return object({
      field("ownerAllowFrom", array_of(union_of({string(), integer()})).doc(
                                  "Channel senders who are the owner: ids, `@username`, `<channel>:<id>`, or "
                                  "`*`. Their runs get the owner-only tools and `tools.exec` without the "
                                  "`nonOwner` floor, and they answer approvals in chats. Gateway clients "
                                  "(terminal, web chat) are always the owner.")),
  }).doc("Who commands the agent from chats.");
}

Node logging_section() {
  return object({
      field("level", one_of({"trace", "debug", "info", "warn", "error", "off"})
                         .def("info")
                         .doc("Minimum severity written to the console and the log file.")),
      field("file", string().def("").doc(
                        "Log file path; empty means `<state dir>/logs/gateway.log`.")),
      field("consoleStyle", one_of({"pretty", "plain", "json"})
                                .def("pretty")
                                .doc("Console format: `pretty` (coloured, for people), `plain` "
                                     "(no colours), `json` (one JSON object per line).")),
  }).doc("Gateway logs. Secrets are redacted before anything is written.");
}

Node build_root() {
  return object({
      field("$schema", string().doc(
                           "URL or path of a JSON Schema, for editor completion; ignored by Pincer.")),
      field("env", map_of(string().sensitive()).doc(
                       "Values for `${NAME}` references in this file, used when the environment "
                       "of the process reading it (the gateway, the CLI) does not set NAME, e.g. "
                       "`env: { OPENAI_API_KEY: \"sk-…\" }`. A variable set in the environment wins. "
                       "Only substitution reads them: they are not exported to tools.")),
      field("gateway", gateway_section()),
      field("models", models_section()),
      field("agents", agents_section()),
      field("tools", tools_section()),
      field("memory", memory_section()),
      field("approvals", approvals_section()),
      field("commands", commands_section()),
      field("logging", logging_section()),
      field("session", session_section()),
      field("messages", messages_section()),
      field("cron", object({
                        field("enabled", boolean().def(true).doc(
                                             "Run cron jobs on their schedules (`false`: none runs by "
                                             "itself; `cron run` still runs one by hand).")),
                        field("maxConcurrentRuns", integer().min(1).max(64).def(1).doc(
                                                       "Cron jobs running at the same time (the `cron` "
                                                       "lane); a due job waits for a free slot.")),
                        field("missedRuns", one_of({"run-once", "skip"}).def("run-once").doc(
                                                "A job whose time passed while the gateway was down: "
                                                "`run-once` runs it once at start (however many runs "
                                                "were missed), `skip` waits for its next time and "
                                                "records the missed run as `skipped`.")),
                        field("webhookToken", string().sensitive().format("text-line").doc(
                                                  "Sent as `Authorization: Bearer <token>` with every `webhook` "
                                                  "delivery of a job.")),
                        field("webhookSsrfPolicy", object({
                            field("dangerouslyAllowPrivateNetwork", boolean().def(false).doc(
                                "Let `webhook` deliveries reach private, loopback and link-local addresses "
                                "(blocked by default: a job's URL may come from the agent's `cron` tool).")),
                            field("allowedHostnames", array_of(string()).doc(
                                "Hosts (exact, any case) a `webhook` delivery may reach even when they resolve "
                                "to such an address.")),
                        }).doc("Which addresses `webhook` deliveries may reach.")),
                    }).doc("Scheduled jobs (`<state>/cron/jobs.json`, docs/automation.md).")),
      field("hooks", hooks_section()),
      field("skills", skills_section()),  // SK-1..4 (config_schema_skills.cpp)
      field("mcp", mcp_section()),  // IX-2 MCP client (config_schema_mcp.cpp)
      field("diagnostics", object({
                               field("cacheTrace", object({
                                   field("enabled", boolean().def(false).doc(
                                                        "Write a record of every model call's context "
                                                        "(digests and sizes of the system prompt, the "
                                                        "tool schemas and each message, where it first "
                                                        "differs from the session's previous call) to "
                                                        "`<state>/cache-trace/<sessionId>.jsonl`, to "
                                                        "explain prompt-cache misses (CX-11).")),
                                   field("maxFileBytes", integer().min(4096).max(kMaxCount).def(4194304).doc(
                                                             "A trace file larger than this is moved "
                                                             "to `….jsonl.1` (one kept) before the next "
                                                             "record.")),
                               }).doc("Prompt-cache trace (CX-11); off by default.")),
                           }).doc("Diagnostics for operators.")),
      field("bindings", bindings_section()),
      field("channels", channels_section()),
      field("plugins", object({
                           field("entries", object({
                               field("brave", object({
                                   field("config", object({
                                       field("webSearch", object({
                                           field("apiKey", string().sensitive().doc(
                                               "Brave Search API key (default: `BRAVE_API_KEY`).")),
                                           field("baseUrl", string().default_note("`https://api.search.brave.com`").doc(
                                               "Brave API base URL (a compatible proxy).")),
                                       }).doc("Brave Search for `web_search`.")),
                                   }).doc("Brave settings.")),
                               }).doc("The Brave Search provider.")),
                               field("searxng", object({
                                   field("config", object({
                                       field("webSearch", object({
                                           field("baseUrl", string().doc(
                                               "Base URL of your SearXNG instance, with the `json` "
                                               "format enabled (default: `SEARXNG_BASE_URL`).")),
                                       }).doc("SearXNG for `web_search`.")),
                                   }).doc("SearXNG settings.")),
                               }).doc("The SearXNG provider.")),
                               field("memory-core", memory_core_entry()),  // DR-1 (config_schema_dreaming.cpp)
                               field("active-memory", active_memory_entry()),  // DR-6 (config_schema_active_memory.cpp)
                           }).doc("Settings by plugin id, in OpenClaw's layout.")),
                       }).doc("Built-in features configured in OpenClaw's `plugins.entries` layout "
                              "(Pincer has no plugin loader: only the entries listed here exist).")),
      field("meta", any().doc("Free-form metadata written by tools (e.g. the setup wizard); not "
                              "interpreted by the gateway.")),
  }).doc("Pincer configuration (`$PINCER_HOME/pincer.json`).");
}

}  // namespace

const Node& root() {
  static const Node tree = build_root();
  return tree;
}

}  // namespace pincer::config::schema
