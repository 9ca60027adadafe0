// The schema tree of pincer.json. Every key, type, bound, default and description lives here and
// nowhere else (see config_schema.h). One function per top-level section keeps additions local.
#include "core/config_schema.h"
#include "core/config_schema_memory.h"
#include "core/config_schema_skills.h"
#include "core/config_schema_cli_backends.h"
#include "core/config_schema_mcp.h"
#include "core/config_schema_heartbeat.h"
#include "core/config_schema_hooks.h"
#include "core/config_schema_gateway_http.h"
#include "core/config_schema_dreaming.h"
#include "core/config_schema_active_memory.h"

#include <cassert>
#include <cmath>
#include <cstdint>
#include <utility>

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
namespace {

Node gateway_auth() {
  return object({
      field("mode",
            one_of({"none", "token", "password", "trusted-proxy"})
                .def("token")
                .doc("How clients authenticate: `none` = no authentication (keep the gateway on "
                     "loopback); `token` = shared token `gateway.auth.token`; `password` = shared "
                     "password `gateway.auth.password`; `trusted-proxy` = a reverse proxy listed in "
                     "`gateway.trustedProxies` authenticates users and names them in a header.")),
      field("token", string().format("text-line").sensitive().doc(
                         "Shared token for `token` mode, compared in constant time. Keep it out of "
                         "the file with env substitution, e.g. `\"${PINCER_TOKEN}\"`.")),
      field("password", string().format("text-line").sensitive().doc("Shared password for `password` mode.")),
      field("rateLimit",
            object({
                field("maxAttempts", integer().min(1).max(kMaxCount).def(10).doc(
                                         "Failed attempts allowed within `windowMs` before the "
                                         "client is locked out.")),
                field("windowMs", integer().min(1).max(kMaxTimerMs).def(60000).doc(
                                      "Window in which failed attempts are counted, in milliseconds.")),
                field("lockoutMs", integer().min(0).max(kMaxTimerMs).def(300000).doc(
                                       "How long a client stays locked out after too many failed "
                                       "attempts, in milliseconds.")),
                field("exemptLoopback", boolean().def(true).doc(
                                            "Never rate-limit clients connecting directly from "
                                            "loopback. Connections through a proxy (forwarding "
                                            "headers) and browser pages are limited all the same.")),
            }).doc("Failed-authentication rate limit, per client IP address (a browser page on this "
                   "machine: per origin), counted separately for the shared token/password and for "
                   "device tokens.")),
      field("trustedProxy",
            object({
                field("userHeader", string().required().doc(
                                        "Request header carrying the authenticated user name "
                                        "(e.g. `x-forwarded-user`).")),
                field("requiredHeaders", array_of(string().pattern(R"(^[!#$%&'*+.^_`|~0-9A-Za-z-]+$)")).doc(
                                             "Header names that must be present, with a non-empty "
                                             "value, on every proxied request; a request lacking "
                                             "one is rejected. Each must be a valid header name.")),
                field("allowUsers", array_of(string()).doc(
                                        "When non-empty, only these users are accepted.")),
            }).doc("Settings of `trusted-proxy` mode (required by it).")),
  }).doc("Authentication of gateway clients (WebSocket and HTTP).");
}

Node gateway_section() {
  return object({
      field("port", integer().min(1).max(65535).def(18789).doc(
                        "TCP port of the gateway; HTTP and WebSocket share it.")),
      field("bind", one_of({"loopback", "lan", "custom"})
                        .def("loopback")
                        .doc("Address the gateway listens on: `loopback` = 127.0.0.1 (this machine "
                             "only), `lan` = 0.0.0.0 (all interfaces), `custom` = "
                             "`gateway.customBindHost`. A non-loopback bind requires `token`, "
                             "`password` or `trusted-proxy` auth.")),
      field("customBindHost", string().format("ipv4").doc(
                                  "IPv4 address to listen on when `gateway.bind` is `custom`.")),
      field("drainTimeoutMs", integer().min(0).max(600000).def(30000).doc(
                                  "When the gateway stops (SIGTERM, Ctrl-C, a restart): how long "
                                  "running turns and replies being delivered get to finish before "
                                  "they are aborted; the run journal answers those at the next "
                                  "start. Queued turns wait for the next start at once.")),
      field("auth", gateway_auth()),
      field("trustedProxies", array_of(string()).doc(
                                  "IP addresses or CIDR ranges (`10.0.0.0/8`) of reverse proxies "
                                  "whose forwarding headers are trusted: behind one, the client's "
                                  "address (for the auth rate limit, presence, logs) is the rightmost "
                                  "`x-forwarded-for` hop that is not a trusted proxy, and unknown "
                                  "when it names none. Required by `trusted-proxy` auth.")),
      field("controlUi",
            object({
                field("allowedOrigins", array_of(string().format("origin")).doc(
                                            "Browser origins (e.g. `https://pincer.example.com`, "
                                            "scheme, host and port only) allowed to connect (`*` = "
                                            "any; the `null` origin of sandboxed frames and files is "
                                            "never allowed). Without an entry a page "
                                            "is accepted only from the gateway's own address: "
                                            "`localhost`, `127.x` or `[::1]` on a loopback bind, "
                                            "also an IP address on other binds — never under a host "
                                            "name, which a DNS-rebinding page could point here.")),
                field("root", string().doc(
                                  "A directory holding OpenClaw's built Control UI, e.g. "
                                  "`<openclaw package>/dist/control-ui` of an installed `openclaw` "
                                  "npm package (Pincer bundles none): the gateway then serves it "
                                  "under `gateway.controlUi.basePath`, as OpenClaw does, with its "
                                  "WebSocket on the same port. While it takes `/`, Pincer's web chat "
                                  "moves to `/pincer/`. `~/` is the home directory; a relative path "
                                  "is taken from the working directory. A directory without "
                                  "`index.html` is an error (`pincer doctor`; the UI answers 503).")),
                field("basePath", string().doc(
                                      "URL path of the Control UI (`/openclaw` → "
                                      "`http://host:port/openclaw/`); unset or `/` = the root, and "
                                      "Pincer's web chat moves to `/pincer/`.")),
            }).doc("The browser Control UI served by the gateway.")),
      field("reload",
            object({
                field("mode", one_of({"hybrid", "hot", "restart", "off"})
                                  .def("hybrid")
                                  .doc("What an edit of the config file does while the gateway runs "
                                       "(CF-2): `hybrid` = apply channel, routing, agent, model and "
                                       "memory changes at once (only a changed channel account restarts) "
                                       "and restart the gateway in place for the rest (port, auth, "
                                       "logging …); `hot` = apply what can be applied, log the rest "
                                       "as needing a restart; `restart` = restart in place on any "
                                       "change; `off` = ignore edits. An invalid file is rejected "
                                       "and the running config kept.")),
                field("debounceMs", integer().min(0).max(60000).def(300).doc(
                                        "Quiet time after the last write before the file is read, ms.")),
            }).doc("Applying edits of the config file without a restart.")),
      field("http", gateway_http_section()),  // IX-4 (config_schema_gateway_http.cpp)
  }).doc("The gateway server: network binding, authentication, reverse proxies, Control UI.");
}

// ---- models (PV-1) ------------------------------------------------------------------------------

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

Node models_section() {
  return object({
      field("providers", map_of(provider_definition()).doc(
                             "Providers by id. The id is the first part of a model name: "
                             "`models.providers.openai` serves `openai/<model id>`.")),
  }).doc("LLM providers and their models (PV-1). A model is named `provider/model`.");
}

// ---- agents (AG-*, CX-2, CX-3) ------------------------------------------------------------------

// `model` of agents.defaults and of agents.list[]: OpenClaw accepts "provider/model" or
// {primary, fallbacks}.
Node model_selection(std::string what) {
  return union_of({
             string(),
             object({
                 field("primary", string().doc(
                                      "Model used first, as `provider/model` (a model listed "
                                      "under `models.providers`).")),
                 field("fallbacks", array_of(string()).doc(
                                        "Models tried in order when the primary keeps failing "
                                        "(PV-5), each as `provider/model`. An empty list "
                                        "disables inherited fallbacks.")),
             }),
         })
      .doc(std::move(what) +
           " Either `\"provider/model\"` or `{\"primary\": \"provider/model\", \"fallbacks\": [...]}`.");
}

// blockStreamingCoalesce of agents.defaults and of a channel (CH-4; OpenClaw
// src/auto-reply/reply/block-reply-coalescer.ts).
Node block_streaming_coalesce() {
  return object({
             field("minChars", integer().min(1).max(100000).doc(
                                   "Joined blocks wait until they hold this many characters "
                                   "(default: the chunk `minChars`).")),
             field("maxChars", integer().min(1).max(100000).doc(
                                   "Joined blocks are sent before they would exceed this (default: "
                                   "the chunk `maxChars`; at most the channel's text limit).")),
             field("idleMs", integer().min(0).max(600000).doc(
                                 "Send what waits after this long without new text, ms (default "
                                 "1000; 0 = only at the limits and at the end).")),
         })
      .doc("Block streaming: consecutive blocks are joined before sending, so short blocks do not "
           "arrive as a burst of tiny messages.");
}

// The tool sandbox (TL-5; src/tools/sandbox/sandbox.h), OpenClaw's agents.defaults.sandbox with the
// bubblewrap backend.
Node sandbox_settings(const std::string& where, bool with_defaults) {
  // agents.defaults.sandbox carries the defaults (tools/sandbox/sandbox.h Settings; sandbox_test
  // checks they agree); an agent's entry must not, or they would override agents.defaults.
  auto dflt = [with_defaults](Node node, nlohmann::json value) {
    if (with_defaults) return std::move(node).def(std::move(value));
    return std::move(node).default_note("as `agents.defaults.sandbox`");
  };
  return object({
             field("mode", dflt(one_of({"off", "non-main", "all"}), "off")
                               .doc("Which sessions run their tools in the sandbox: `off`, `non-main` "
                                    "(every session except the agent's main one, `agent:<id>:main`), "
                                    "`all`.")),
             field("backend", dflt(one_of({"bwrap"}), "bwrap").doc(
                                  "Sandbox backend: `bwrap` (bubblewrap, Debian package `bubblewrap`; "
                                  "one sandbox per command, user namespaces). When it cannot start, "
                                  "the tools refuse: nothing runs on the host instead.")),
             field("bwrap", object({
                                field("command", dflt(string(), "bwrap").doc(
                                                     "The bwrap binary: a name looked up on PATH or a "
                                                     "path.")),
                            }).doc("The bubblewrap backend.")),
             field("workspaceAccess", dflt(one_of({"rw", "ro", "none"}), "rw")
                                          .doc("The workspace inside the sandbox, at its host path: `rw`, "
                                               "`ro` (also the file tools only `read`), `none` (an empty "
                                               "throwaway directory; the file tools refuse).")),
             field("binds", array_of(string()).doc(
                                "More host directories inside: `/host/path[:/inside/path][:ro|rw]` "
                                "(default rw). Added to the defaults' binds.")),
             field("network", dflt(one_of({"off", "on"}), "off")
                                  .doc("`off`: the sandbox has its own empty network namespace (no "
                                       "host network, not even the host's loopback); `on`: the host "
                                       "network.")),
         })
      .doc(where);
}

Node agent_defaults() {
  return object({
      field("model", model_selection("Model of every agent that does not choose its own.")),
      field("workspace", string()
                             .format("text-line")
                             .default_note("`<state dir>/workspace`")
                             .doc("Workspace directory of the default agent: its working "
                                  "directory and the home of its bootstrap files (AGENTS.md, "
                                  "SOUL.md, …). `~` is your home directory; a relative path is "
                                  "relative to the state directory. Other agents default to "
                                  "`<state dir>/workspace-<id>`.")),
      // MA-4: read-only shared folders (tools/sandbox/sandbox.h shared_folders_for_agent).
      field("binds", array_of(string()).doc(
                         "Read-only shared folders of every agent (MA-4): `/host/path[:/mount/path][:ro]`. "
                         "The file tools can `read` beneath the host path or the mount path, never "
                         "write there; a sandboxed `exec` sees them read-only at the mount path. "
                         "System and credential directories and Pincer's state directory are refused, "
                         "as for `sandbox.binds`. See docs/agents.md.")),
      field("thinkingDefault", one_of({"off", "minimal", "low", "medium", "high", "xhigh"})
                                   .def("off")
                                   .doc("Thinking level of runs that ask for none (AG-7); only "
                                        "used with models that have `reasoning: true`. A level "
                                        "the provider rejects is stepped down.")),
      field("userTimezone", string().format("text-line").default_note("the host's time zone").doc(
                                "IANA time zone of the user (`Europe/Berlin`), for the current time the "
                                "agent is told each turn (in the turn context after the cached "
                                "prompt prefix, CX-4). A name that is not in this host's time zone "
                                "database is a configuration error.")),
      field("timeoutSeconds", integer().min(1).max(kMaxTimerSeconds).def(600).doc(
                                  "Longest an agent run may take, in seconds; then it is aborted "
                                  "and the partial reply kept.")),
      field("contextTokens", integer().min(1).max(kMaxCount).doc(
                                 "Caps the model's `contextWindow`, in tokens (OpenClaw's "
                                 "override): prompt budgets and compaction work in the smaller of "
                                 "the two (CX-6). A value above the model's window has no effect "
                                 "and is reported by `/status` and `pincer status`.")),
      field("contextEngine", string().default_note("`default`").doc(
                                 "Context engine of every agent that does not choose its own "
                                 "(CX-1): `default` (linear history, pruning and compaction; "
                                 "`legacy` is the same, OpenClaw's name). Another name is a "
                                 "configuration error.")),
      field("compaction",
            object({
                field("enabled", boolean().default_note("`true`").doc(
                                     "Compact before a call when the history no longer fits the prompt "
                                     "budget (CX-9 L1). Overflow and timeout recovery and `/compact` "
                                     "work either way.")),
                field("reserveTokens", integer().min(0).max(kMaxCount).default_note("16384").doc(
                                           "Tokens kept free for the reply: the prompt budget is the "
                                           "window minus this, clamped so at least min(8 000, half the "
                                           "window) stays for the prompt (CX-6).")),
                field("keepRecentTokens", integer().min(1).max(kMaxCount).default_note("20000").doc(
                                              "The recent part kept verbatim by a compaction; scaled "
                                              "down to 40 % of the history budget in small windows "
                                              "(CX-9).")),
                field("memoryFlush", memory_flush_node()),
            }).doc("Compaction of long sessions into an LLM-written summary (CX-9); see docs/context.md.")),
      field("startupContext", startup_context_node()),
      field("maxConcurrent", integer().min(1).max(kMaxCount).def(4).doc(
                                 "Agent runs executing at once across all sessions (the `main` "
                                 "lane). Each session still runs one turn at a time (AG-8).")),
      field("subagents", object({
                             field("maxConcurrent", integer().min(1).max(kMaxCount).default_note("8").doc(
                                                        "Sub-agent runs executing at once (the "
                                                        "`subagent` lane, QL-2).")),
                             // MA-3 (agent/subagent_rules.h, docs/subagents.md)
                             field("maxSpawnDepth", integer().min(1).max(5).default_note("2").doc(
                                                        "How deep subagents nest: a session of depth d (main = 0) "
                                                        "may spawn while d < maxSpawnDepth (orchestrator), else it "
                                                        "is a leaf and cannot.")),
                             field("maxChildrenPerAgent", integer().min(1).max(20).default_note("5").doc(
                                                              "Running subagents one session may have at once.")),
                             field("runTimeoutSeconds", integer().min(0).max(kMaxCount).default_note("0").doc(
                                                            "Default time limit of a subagent run when "
                                                            "sessions_spawn gives none; 0 = the agent's "
                                                            "timeoutSeconds.")),
                             field("allowAgents", array_of(string()).doc(
                                                      "Agent ids sessions_spawn may target besides the "
                                                      "requester's own (`*` = any); "
                                                      "`agents.list[].subagents.allowAgents` wins.")),
                         }).doc("Sub-agent runs (MA-3; docs/subagents.md).")),
      field("bootstrapMaxChars", integer().min(1).max(kMaxCount).def(20000).doc(
                                     "Most characters of one workspace bootstrap file put into "
                                     "the system prompt; a longer file keeps its first 70 % and "
                                     "last 20 % with a marker between (CX-3).")),
      field("bootstrapTotalMaxChars", integer().min(1).max(kMaxCount).def(150000).doc(
                                          "Most characters of all bootstrap files together "
                                          "(CX-3).")),
      field("bootstrapTruncationWarning",
            one_of({"once", "always", "off"})
                .def("once")
                .doc("Tell the model when a bootstrap file was cut: `once` per distinct set of "
                     "cuts, `always`, or `off` (CX-3).")),
      field("blockStreamingDefault", one_of({"on", "off"})
                                         .default_note("`off`")
                                         .doc("`on` = block streaming (CH-4) on every channel whose "
                                              "`blockStreaming` is not `false`: replies arrive in "
                                              "blocks while they are written.")),
      field("blockStreamingChunk",
            object({
                field("minChars", integer().min(1).max(100000).doc(
                                      "A block is cut once the text holds this many characters "
                                      "(default 800).")),
                field("maxChars", integer().min(1).max(100000).doc(
                                      "Longest block before a forced cut (default 1200; at most "
                                      "the channel's text limit).")),
                field("breakPreference", one_of({"paragraph", "newline", "sentence"}).doc(
                                             "Where a block is preferably cut (default `paragraph`; "
                                             "never inside a code block).")),
            }).doc("Block streaming: how the reply is cut into blocks (CH-4).")),
      field("blockStreamingCoalesce", block_streaming_coalesce()),
      field("humanDelay",
            object({
                field("mode", one_of({"off", "natural", "custom"})
                                  .default_note("`off`")
                                  .doc("`natural` = a random 800–2500 ms; `custom` = a random "
                                       "`minMs`..`maxMs`; `off` = none.")),
                field("minMs", integer().min(0).max(60000).doc(
                                   "`custom`: shortest pause, ms (default 800).")),
                field("maxMs", integer().min(0).max(60000).doc(
                                   "`custom`: longest pause, ms (default 2500). A `maxMs` at or below "
                                   "`minMs` means always `minMs`.")),
            }).doc("Block streaming: a human-like pause between blocks (not before the first).")),
      field("sandbox", sandbox_settings(
                           "Run `exec`/`process` inside bubblewrap and hold the file tools to the same "
                           "view (TL-5): only the workspace, the binds and a read-only system are "
                           "visible. See docs/security.md.", true)),
      field("heartbeat", heartbeat_node(false)),
      field("cliBackends", cli_backends_section()),  // issue 17 item 5 (config_schema_cli_backends.cpp)
  }).doc("Settings every agent inherits.");
}

Node agent_entry() {
  return object({
      field("id", string()
                      .pattern("^[a-z0-9][a-z0-9_-]{0,63}$")
                      .required()
                      .doc("Agent id: lowercase letters, digits, `_` and `-`, at most 64 "
                           "characters, starting with a letter or digit. Used in session keys "
                           "(`agent:<id>:…`) and state paths (`<state dir>/agents/<id>`).")),
      field("name", string().doc("Display name.")),
      field("default", boolean().doc(
                           "This is the default agent (the first one marked wins; without any "
                           "mark the first agent listed is the default).")),
      field("tools", object({
                         field("profile", one_of({"minimal", "coding", "messaging", "full"}).doc(
                                              "This agent's tool profile, instead of `tools.profile`.")),
                         field("allow", array_of(string()).doc("When non-empty, narrows this agent's tools to these.")),
                         field("alsoAllow", array_of(string()).doc("Tools added to this agent's profile set.")),
                         field("deny", array_of(string()).doc("Tools this agent never gets; deny beats allow.")),
                     }).doc("This agent's layer of the tool policy (TL-2; `pincer tools explain --agent <id>`).")),
      field("binds", array_of(string()).doc(  // MA-4
                         "This agent's read-only shared folders, added to `agents.defaults.binds`: "
                         "`/host/path[:/mount/path][:ro]` (docs/agents.md).")),
      field("workspace", string().format("text-line").doc(
                             "Workspace directory of this agent. Default: "
                             "`agents.defaults.workspace` (or `<state dir>/workspace`) for the "
                             "default agent, `<state dir>/workspace-<id>` for the others.")),
      field("model", model_selection(
                         "Model of this agent, overriding `agents.defaults.model`. Fallbacks "
                         "are inherited unless given.")),
      field("memory", object({field("search", memory_search_node(true))}).doc("This agent's memory settings.")),
      field("contextEngine", string().doc(
                                 "Context engine of this agent, overriding "
                                 "`agents.defaults.contextEngine` (CX-1).")),
      field("sandbox", sandbox_settings(
                           "This agent's sandbox: each key given overrides `agents.defaults.sandbox`; "
                           "`binds` are added.", false)),
      field("heartbeat", heartbeat_node(true)),
      field("skills", agent_skills_filter()),  // SK-2 (config_schema_skills.cpp)
      field("subagents", object({  // MA-3
                             field("allowAgents", array_of(string()).doc(
                                                      "Agent ids this agent's sessions_spawn may target "
                                                      "besides itself (`*` = any configured agent); "
                                                      "overrides `agents.defaults.subagents.allowAgents`.")),
                         }).doc("This agent's subagents (MA-3).")),
  }).doc("One agent.");
}

Node agents_section() {
  return object({
      field("defaults", agent_defaults()),
      field("list", array_of(agent_entry()).doc(
                        "The agents. Without a list there is one agent, `main`.")),
  }).doc("Agents: their models, workspaces and context budgets.");
}

// ---- tools (TL-1, TL-2) -------------------------------------------------------------------------

Node tools_section() {
  return object({
      field("profile", one_of({"minimal", "coding", "messaging", "full"})
                           .def("coding")
                           .doc("Base tool set offered to agents, by OpenClaw's profile lists. "
                                "With the tools Pincer has today: `minimal` (session_status), `coding` "
                                "(read, write, edit, apply_patch, exec, process, memory_search, memory_get, "
                                "web_fetch, web_search, cron, skill_manage, sessions_list, sessions_history, "
                                "session_status, sessions_send, sessions_spawn, subagents), `messaging` "
                                "(sessions_list, sessions_history, session_status, sessions_send, message, "
                                "sessions_spawn, subagents), `full` (read, write, edit, apply_patch, exec, process, "
                                "memory_search, memory_get, web_fetch, web_search, cron, skill_manage, sessions_list, "
                                "sessions_history, session_status, sessions_send, message, sessions_spawn, "
                                "subagents).")),
      field("allow", array_of(string()).doc(
                         "When non-empty, only these tools (of the profile's) are offered. "
                         "Entries are tool names with `*` wildcards or groups such as "
                         "`group:fs`.")),
      field("alsoAllow", array_of(string()).doc("Tools added to the profile's set.")),
      field("deny", array_of(string()).doc("Tools never offered; deny beats allow.")),
      field("toolSearch",
            union_of({boolean(), object({field("enabled", boolean().doc("false = every schema in every call."))})})
                .def(true)
                .doc("Offer the rarely used built-in tools (all but the file, shell, memory and `message` tools: "
                     "web_fetch, web_search, cron, skill_manage, the session tools, subagents) through "
                     "`tool_search` — a one-line catalogue the model loads schemas from when it needs them — "
                     "instead of sending every schema with every model call. `false` (or `{enabled: false}`) "
                     "sends them all.")),
      field("exec",
            object({
                field("timeoutSec", integer().min(0).max(kMaxTimerSeconds).def(1800).doc(
                                        "Default lifetime of an `exec` command in seconds when "
                                        "the model gives none; 0 = no limit.")),
                field("maxOutputChars", integer().min(1024).max(kMaxCount).def(100000).doc(
                                            "Most output characters an `exec` command keeps "
                                            "(the head and the tail; the middle is dropped).")),
                field("security", one_of({"deny", "allowlist", "full"}).def("full").doc(
                                      "What `exec` may run (TL-3): `deny` = nothing; `allowlist` = "
                                      "only commands covered by the allowlist of `exec-approvals.json` "
                                      "(others are asked, see `ask`); `full` = anything. The approvals "
                                      "file's setting applies too: the stricter wins.")),
                field("ask", one_of({"off", "on-miss", "always"}).def("off").doc(
                                 "When a person is asked before `exec` runs: `off` = never (not "
                                 "allowed means refused); `on-miss` = when the command is not on the "
                                 "allowlist, or is risky (obfuscated) under `full`; `always` = every "
                                 "command.")),
                field("nonOwner", object({
                                      field("security", one_of({"deny", "allowlist", "full"}).def("allowlist").doc(
                                                            "`tools.exec.security` floor for such runs.")),
                                      field("ask", one_of({"off", "on-miss", "always"}).def("on-miss").doc(
                                                       "`tools.exec.ask` floor for such runs.")),
                                  }).doc("The stricter policy of runs started by a channel sender who is not "
                                         "the owner (not in `commands.ownerAllowFrom`): by default their "
                                         "commands run only when allowlisted or approved by the owner.")),
            }).doc("The `exec` shell tool.")),
      field("web", object({
                       field("fetch", object({
                           field("enabled", boolean().default_note("`true`").doc("`false`: `web_fetch` refuses.")),
                           field("maxChars", integer().min(100).max(kMaxCount).default_note("`20000`").doc(
                                                 "Characters of text `web_fetch` returns when the "
                                                 "model gives no `maxChars`.")),
                           field("maxCharsCap", integer().min(100).max(kMaxCount).default_note("`20000`").doc(
                                                    "Upper bound of the model's `maxChars`.")),
                           field("maxResponseBytes", integer().min(32000).max(10000000).default_note("`750000`").doc(
                                                         "Most response bytes downloaded; the rest "
                                                         "is not read.")),
                           field("timeoutSeconds", integer().min(1).max(kMaxTimerSeconds).default_note("`30`").doc(
                                                       "Longest a fetch may take, redirects "
                                                       "included.")),
                           field("maxRedirects", integer().min(0).max(20).default_note("`3`").doc(
                                                     "Redirects followed; each hop is checked again.")),
                           field("userAgent", string().doc("User-Agent header of the requests.")),
                           field("ssrfPolicy", object({
                               field("dangerouslyAllowPrivateNetwork", boolean().default_note("`false`").doc(
                                   "Allow loopback, private and link-local targets (checked on the "
                                   "resolved addresses, so DNS cannot point a public name at them).")),
                               field("allowedHostnames", array_of(string()).doc(
                                   "Exact host names allowed even when they resolve to a private "
                                   "address.")),
                           }).doc("Which network targets `web_fetch` may reach.")),
                       }).doc("The `web_fetch` tool.")),
                       field("search", object({
                           field("enabled", boolean().default_note("`true`").doc("`false`: `web_search` refuses.")),
                           field("provider", one_of({"brave", "searxng"}).doc(
                                                 "Search provider. Unset: `brave` when it has an API "
                                                 "key, else `searxng` when it has a base URL.")),
                           field("maxResults", integer().min(1).max(10).default_note("`5`").doc(
                                                   "Results when the model gives no `count`.")),
                           field("timeoutSeconds", integer().min(1).max(kMaxTimerSeconds).default_note("`30`").doc(
                                                       "Longest a search request may take.")),
                       }).doc("The `web_search` tool; provider settings are in "
                              "`plugins.entries.<provider>.config.webSearch`.")),
                   }).doc("The web tools (content they return is marked untrusted for the model).")),
      field("byProvider", map_of(object({
                              field("profile", one_of({"minimal", "coding", "messaging", "full"}).doc(
                                                   "Narrows to this profile's tools.")),
                              field("allow", array_of(string()).doc("When non-empty, narrows to these tools.")),
                              field("deny", array_of(string()).doc("Tools removed for this model.")),
                          })).doc("Tool policy by model (TL-2): keys `<provider>/<model>` or `<provider>`; "
                                  "the most specific applies.")),
      field("subagents", object({
                             field("tools", object({
                                                field("allow", array_of(string()).doc("When non-empty, subagent runs get only these.")),
                                                field("deny", array_of(string()).default_note("the owner-only control-plane tools").doc(
                                                                  "Tools subagent runs never get.")),
                                            }).doc("The subagent layer of the tool policy.")),
                         }).doc("Runs on the subagent lane.")),
      // ---- session tools and agent-to-agent messages (TL-1, MA-2; docs/agent-tools.md) ----
      field("agentToAgent", object({
                                field("enabled", boolean().def(true).doc(
                                                     "Cross-agent session tool calls: `sessions_send` to another "
                                                     "agent's session and cross-agent `sessions_list`, "
                                                     "`sessions_history`, `session_status`. `false` refuses them; an "
                                                     "agent always reaches its own sessions.")),
                                field("allow", array_of(string()).doc(
                                                   "Agent ids or `*` patterns that may take part in a cross-agent "
                                                   "call: the calling and the target agent must both match. Exact "
                                                   "ids are case-sensitive, patterns are not; empty or absent = "
                                                   "every agent; a blank entry matches none.")),
                            }).doc("Agent-to-agent access of the session tools (MA-2), as OpenClaw's.")),
      field("sessions", object({
                            field("visibility", one_of({"self", "tree", "agent", "all"}).def("all").doc(
                                                    "Which sessions the session tools may target: `self` = only "
                                                    "the calling session; `tree` = it and the sessions it spawned "
                                                    "(from the agent's main session: every session of the agent); "
                                                    "`agent` = every session of the calling agent; `all` = every "
                                                    "session, other agents' as `tools.agentToAgent` allows.")),
                        }).doc("The session tools' reach (TL-1).")),
      // ---- end session tools ----
  }).doc("Which tools agents may use (TL-2) and how the built-in tools behave.");
}

Node approvals_section() {
  return object({
      field("mode", one_of({"manual", "smart", "off"}).def("manual").doc(
                        "How a command that needs an approval is decided (TL-3, TL-4): `manual` = a "
                        "person answers in the chat the run came from, the terminal or web chat; "
                        "`smart` = a small model first triages it as safe (runs), dangerous "
                        "(refused) or ask-human (a person answers, as `manual`); a failed triage "
                        "asks; `off` = nobody is asked, `askFallback` decides.")),
      field("triageModel", string().default_note("the default agent's model").doc(
                               "`provider/model` of the triage model of `mode: smart`.")),
      field("triageTimeoutSec", integer().min(1).max(600).def(20).doc(
                                    "How long the triage may take; a slower answer asks a person.")),
      field("askFallback", one_of({"deny", "allowlist", "full"}).def("deny").doc(
                               "With `mode: off`: what happens to a command that would be asked.")),
      field("timeoutSec", integer().min(1).max(86400).def(120).doc(
                              "How long an approval request waits; no answer denies it and the run "
                              "is told.")),
  }).doc("Exec approvals: who decides a command the policy does not allow outright (docs/security.md).");
}

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

// ---- session, bindings, channels (RT-1..RT-4, CH-3, CH-4; src/routing/, src/delivery/) --------

// One automatic reset rule of `session.reset`, `resetByType.*`, `resetByChannel.*` (SS-5;
// OpenClaw src/config/sessions/reset-policy.ts).
Node session_reset_rule(std::string what) {
  return object({
             field("mode", one_of({"none", "daily", "idle"}).doc(
                               "`daily` = a session started before the last `atHour`:00 starts over "
                               "with the next message; `idle` = only `idleMinutes` counts; `none` = "
                               "never. Default `daily` when this block is given (a type or channel "
                               "block inherits the base mode).")),
             field("atHour", integer().min(0).max(23).doc(
                                 "Hour of the daily reset, host time (default 4).")),
             field("idleMinutes", integer().min(0).max(5256000).doc(  // ten years
                                      "A session idle longer than this starts over with the next "
                                      "message (0 = no idle reset).")),
         })
      .doc(std::move(what));
}

Node session_section() {
  return object({
      field("dmScope", one_of({"main", "per-peer", "per-channel-peer", "per-account-channel-peer"})
                           .default_note("`main`")
                           .doc("Which session a direct message joins (RT-2): `main` = one session "
                                "for all direct messages of an agent (`agent:<id>:main`), "
                                "`per-peer` = one per sender (`agent:<id>:direct:<peer>`), "
                                "`per-channel-peer` = one per channel and sender "
                                "(`agent:<id>:<channel>:direct:<peer>`), `per-account-channel-peer` "
                                "= one per bot account, channel and sender. Groups and channels "
                                "always get their own session.")),
      field("mainKey", string().doc(
                           "Accepted for OpenClaw compatibility and ignored, as OpenClaw does: "
                           "the main session key is always `main`.")),
      field("identityLinks", map_of(array_of(string())).doc(
                                 "One person's ids on several channels, so their direct messages "
                                 "share a session under the non-`main` scopes (RT-4): "
                                 "`{\"alice\": [\"telegram:123\", \"discord:456\"]}` makes both "
                                 "`agent:<id>:direct:alice`. Ids are `<channel>:<peer id>` or a bare "
                                 "peer id.")),
      field("reset", session_reset_rule(
                         "Automatic session resets (SS-5), checked when a message arrives (no timer): "
                         "the old transcript is archived as `<id>.jsonl.reset.<time>`, as `/new` does. "
                         "Not set = sessions never reset by themselves.")),
      field("resetByType", object({
                               field("direct", session_reset_rule("Direct-message sessions.")),
                               field("group", session_reset_rule("Group and channel sessions.")),
                               field("thread", session_reset_rule("Thread and forum-topic sessions.")),
                           }).doc("`reset` overridden per kind of session (fields not given come from `reset`).")),
      field("resetByChannel", map_of(session_reset_rule("The rule for messages from this channel.")).doc(
                                  "`reset` replaced per channel id (`telegram`, `irc`, …): wins over "
                                  "`reset` and `resetByType` for messages from that channel.")),
      // ---- agent-to-agent messages (MA-2; docs/agent-tools.md) ----
      field("agentToAgent", object({
                                field("maxPingPongTurns", integer().min(0).max(5).def(5).doc(
                                                              "After `sessions_send` got its reply, the two "
                                                              "sessions may answer each other this many more "
                                                              "turns (requester first); a `REPLY_SKIP` answer "
                                                              "ends it sooner. 0 = no exchange.")),
                            }).doc("Agent-to-agent exchanges (MA-2).")),
      // ---- end agent-to-agent ----
  }).doc("How messages map onto sessions.");
}

Node messages_section() {
  return object({
      field("queue", object({
                         field("mode", one_of({"collect", "followup", "steer", "steer-backlog", "interrupt"})
                                           .def("collect")
                                           .doc("What a channel message does while its session is "
                                                "busy (QL-3): `collect` = gather them into one run "
                                                "after the current one; `followup` = one run each, "
                                                "in order; `steer` = inject it into the running "
                                                "run at its next tool-call boundary (a followup "
                                                "when the run ends before one); `steer-backlog` = "
                                                "steer and also keep it for a followup turn; "
                                                "`interrupt` = abort the "
                                                "current run, drop its reply, answer the new "
                                                "message.")),
                         field("debounceMs", integer().min(0).max(60000).def(1000).doc(
                                                 "`collect`: quiet time after the busy run ends "
                                                 "before the gathered messages run, in ms.")),
                         field("cap", integer().min(1).max(1000).def(20).doc(
                                          "Most messages waiting per session.")),
                         field("drop", one_of({"summarize", "old", "new"})
                                           .def("summarize")
                                           .doc("Over `cap`: `old` drops the oldest waiting "
                                                "message, `new` the arriving one, `summarize` "
                                                "drops the oldest and tells the agent how many "
                                                "were dropped.")),
                     }).doc("Queueing of messages that arrive while a run is busy (QL-3).")),
  }).doc("Message handling for channels.");
}

Node binding_entry() {
  return object({
      field("type", one_of({"route", "acp"}).doc(
                        "`route` (or omitted) routes messages to `agentId`; `acp` bindings are "
                        "accepted for OpenClaw compatibility and not used.")),
      field("agentId", string().required().doc(
                           "Agent that receives the matching messages. An id not in "
                           "`agents.list` falls back to the default agent.")),
      field("comment", string().doc("Free text for people reading the file.")),
      field("match",
            object({
                field("channel", string().required().doc("Channel id, e.g. `telegram`.")),
                field("accountId", string().doc(
                                       "Bot account of the channel; omitted = only the `default` "
                                       "account, `*` = any account.")),
                field("peer",
                      object({
                          field("kind", one_of({"direct", "group", "channel", "dm"})
                                            .required()
                                            .doc("Conversation kind (`dm` is a legacy alias of "
                                                 "`direct`; `group` and `channel` match each "
                                                 "other).")),
                          field("id", string().required().doc(
                                          "Platform id of the user, group or channel, exactly.")),
                      }).doc("One conversation. A thread matches its parent's binding when it "
                             "has none of its own.")),
                field("guildId", string().doc("Discord server id.")),
                field("teamId", string().doc("Slack/Teams workspace id.")),
                field("roles", array_of(string()).doc(
                                   "With `guildId`: the sender must have one of these role ids.")),
            })
                .required()
                .doc("What a message must match. The most specific binding wins: peer, parent "
                     "peer, guild + roles, guild, team, account, channel; then the default "
                     "agent (RT-3).")),
      field("acp", any().doc("Settings of an `acp` binding; not used.")),
  }).doc("One binding.");
}

Node channel_group_entry() {
  return object({
      field("requireMention", boolean().doc(
                                  "Answer only when the bot is mentioned or replied to (default "
                                  "true; a `*` entry sets it for every chat).")),
      field("enabled", boolean().doc("`false` ignores this chat.")),
      field("allowFrom", array_of(union_of({string(), integer()})).doc(
                             "Senders allowed in this chat, overriding `groupAllowFrom`.")),
      field("tools", object({
                         field("allow", array_of(string()).doc("When non-empty, runs of this chat get only these tools.")),
                         field("deny", array_of(string()).doc("Tools runs of this chat never get.")),
                     }).doc("The group layer of the tool policy (TL-2), for runs started in this chat "
                            "(the `*` entry's when the chat has none). Direct messages skip it.")),
  }).doc("Settings of one group chat.");
}

/// `channels.<id>` (with_accounts) and `channels.<id>.accounts.<account>` (CH-6): the same keys.
Node channel_entry(bool with_accounts = true) {
  std::vector<Field> fields = {
      field("enabled", boolean().doc("`false` keeps the channel (or account) configured but not running "
                                     "(default true).")),
      field("name", string().doc("Display name of the account, for people reading status output.")),
      field("botToken", string().sensitive().doc(
                            "Telegram: the bot token from @BotFather (or `${TELEGRAM_BOT_TOKEN}`). "
                            "Required to run the Telegram channel.")),
      field("apiRoot", string().format("http-url").doc(
                           "Telegram: Bot API server (default `https://api.telegram.org`; a "
                           "self-hosted Bot API server or a test server). Discord: REST API root "
                           "(default `https://discord.com/api`; the Gateway URL comes from its "
                           "`GET /gateway/bot`).")),
      field("token", string().sensitive().doc(
                         "Discord: the bot token from the Developer Portal (Bot → Token; or "
                         "`${DISCORD_BOT_TOKEN}`), without a `Bot ` prefix. Required to run the "
                         "Discord channel.")),
      field("ackReaction", string().doc(
                               "Discord: an emoji (e.g. `👀`, or `name:id` of a custom emoji) the bot "
                               "adds to each message it accepts, before it answers (default: none).")),
      field("secret", string().sensitive().doc(
                          "Webhook: HMAC-SHA256 key; callers sign `<timestamp>.<body>` "
                          "(`X-Pincer-Timestamp: <Unix seconds>`, `X-Pincer-Signature: "
                          "sha256=<hex>`; see channels.md). At least 16 characters.")),
      field("path", string().doc("Webhook: the HTTP path on the gateway's port (default `/webhook`).")),
      field("mode", one_of({"sync", "callback"}).doc(
                        "Webhook: `sync` = the reply is the HTTP response (default); `callback` = "
                        "answer 202 at once and POST the reply to `callbackUrl`.")),
      field("callbackUrl", string().format("http-url").doc(
                               "Webhook, `callback` mode: where replies are POSTed, signed with the "
                               "callback key derived from `secret` (channels.md).")),
      field("maxBodyBytes", integer().min(256).max(8 * 1024 * 1024).doc(
                                "Webhook: largest request body, bytes (default 1 MiB).")),
      field("replyTimeoutSeconds", integer().min(1).max(3600).doc(
                                       "Webhook, `sync` mode: how long a caller waits for the "
                                       "reply before 504 (default 120).")),
      field("webhookUrl", string().format("http-url").doc(
                              "Telegram: receive updates by webhook instead of long polling: the public "
                              "HTTPS URL that reaches `webhookPath` on this gateway (registered with "
                              "setWebhook).")),
      field("webhookPath", string().doc("Telegram, webhook mode: the path on the gateway's port "
                                        "(default `/telegram-webhook`).")),
      field("webhookSecret", string().sensitive().doc(
                                 "Telegram, webhook mode: secret_token Telegram sends in "
                                 "`X-Telegram-Bot-Api-Secret-Token`; other POSTs are refused. Required "
                                 "with `webhookUrl`: 16–256 characters of A-Z a-z 0-9 _ -.")),
      field("pollTimeoutSeconds", integer().min(0).max(50).doc(
                                      "Telegram: long-polling timeout of `getUpdates`, seconds "
                                      "(default 25).")),
      field("host", string().doc("IRC: server host name or address. Required to run the IRC channel.")),
      field("port", integer().min(1).max(65535).doc(
                        "IRC: server port (default 6697 with `tls`, else 6667).")),
      field("tls", boolean().doc(
                       "IRC: connect with TLS; the server certificate is verified against the "
                       "system CA store and the host name (default false).")),
      field("nick", string().doc("IRC: the bot's nick. Required to run the IRC channel; `nick_`, "
                                 "`nick__`, … are tried when it is taken.")),
      field("username", string().doc("IRC: the user name sent with USER (default: the nick).")),
      field("realname", string().doc("IRC: the real name sent with USER (default `Pincer`).")),
      field("password", string().sensitive().doc("IRC: server password (PASS), when the server needs one.")),
      field("sasl", object({
                        field("username", string().doc("Account name.")),
                        field("password", string().sensitive().doc("Account password.")),
                    }).doc("IRC: log in with SASL PLAIN during registration (both keys needed); "
                           "the connection fails rather than continue without it.")),
      field("nickserv", object({
                            field("enabled", boolean().doc("`false` skips IDENTIFY (default true).")),
                            field("service", string().doc("The service's nick (default `NickServ`).")),
                            field("password", string().sensitive().doc(
                                                  "Sent as `IDENTIFY <password>` after registration.")),
                        }).doc("IRC: identify to NickServ after connecting.")),
      field("channels", array_of(string()).doc(
                            "IRC: channels joined after connecting (`#name`, or `#name key` for a "
                            "channel with a key). Use the same spelling in `groups`.")),
      field("dmPolicy", one_of({"pairing", "allowlist", "open", "disabled"})
                            .def("pairing")
                            .doc("Direct messages: `pairing` = unknown senders get a pairing "
                                 "code the owner approves; `allowlist` = only `allowFrom`; "
                                 "`open` = anyone (OpenClaw also requires `allowFrom: [\"*\"]`); "
                                 "`disabled` = ignore them.")),
      field("allowFrom", array_of(union_of({string(), integer()})).doc(
                             "Senders allowed to message the bot: platform user ids, `@username`, "
                             "or `*` for everyone. A `<channel>:` prefix is accepted.")),
      field("groupPolicy", one_of({"open", "allowlist", "disabled"})
                               .def("allowlist")
                               .doc("Group chats: `open` = any group (mention gating still "
                                    "applies); `allowlist` = only chats in `groups` and senders "
                                    "in `groupAllowFrom`; `disabled` = ignore groups.")),
      field("groupAllowFrom", array_of(union_of({string(), integer()})).doc(
                                  "Senders allowed in group chats; defaults to `allowFrom`.")),
      field("groups", map_of(channel_group_entry()).doc(
                          "Group chats by chat id; `*` applies to every chat. Under `allowlist` "
                          "only the chats listed here are answered.")),
      field("textChunkLimit", integer().min(16).max(kMaxCount).doc(
                                  "Longest message sent, in the platform's units (UTF-16 code "
                                  "units for Telegram and Discord). Longer replies are split. "
                                  "Default and maximum: the channel's own limit (4000 for most, "
                                  "2000 for Discord); a larger value is capped to it.")),
      field("chunkMode", one_of({"length", "newline"})
                             .def("length")
                             .doc("How long replies are split: `length` = only when over "
                                  "`textChunkLimit`; `newline` = also one message per "
                                  "paragraph.")),
      field("streaming", union_of({one_of({"off", "partial", "block", "progress"}), boolean()})
                             .default_note("`partial` where the channel can edit messages "
                                           "(Telegram), else `off`")
                             .doc("How replies stream (CH-4): `partial` = a preview message "
                                  "edited as the reply is written, then replaced by the reply; "
                                  "`block` = the reply in blocks, one message each; `off` = the "
                                  "whole reply at the end; `progress` = accepted, behaves as "
                                  "`off` for now. Legacy booleans: `true` = `partial`, `false` = "
                                  "`off`. A channel that cannot edit messages treats `partial` "
                                  "as `off`; the webhook channel in `sync` mode is always `off`.")),
      field("streamMode", one_of({"off", "partial", "block"}).doc(
                              "Legacy alias of `streaming` (used when `streaming` is not set).")),
      field("blockStreaming", boolean().doc(
                                  "`true` = block streaming on this channel whatever `streaming` "
                                  "says (no preview); `false` = not even with "
                                  "`agents.defaults.blockStreamingDefault: \"on\"`.")),
      field("blockStreamingCoalesce", block_streaming_coalesce()),
  };
  if (!with_accounts) return object(std::move(fields)).doc("Settings of one bot account of the channel.");
  fields.push_back(field("accounts", map_of(channel_entry(false)).doc(
                                         "Several bot accounts of this channel (CH-6), by account id. "
                                         "Each account takes the channel's settings, overridden key by "
                                         "key by its own; credentials and endpoints (`botToken`, "
                                         "`webhook*`, `nick`, `password`, `sasl`, `nickserv`, `secret`, "
                                         "`path`, `callbackUrl`) are never inherited. The channel's own "
                                         "settings are the `default` account when they hold its "
                                         "credentials. Bindings select an account with "
                                         "`match.accountId`.")));
  return object(std::move(fields)).doc("Settings of one channel.");
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
      field("bindings", array_of(binding_entry()).doc(
                            "Which agent answers which channel, account, conversation, server or "
                            "team (RT-3).")),
      field("channels", map_of(channel_entry()).doc(
                            "Messaging channels by id (`telegram`, `irc`, …): who may talk to the "
                            "bot (CH-3) and how replies are split (CH-4).")),
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
