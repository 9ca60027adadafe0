// The schema tree of pincer.json. Every key, type, bound, default and description lives here and
// nowhere else (see config_schema.h). One function per top-level section keeps additions local.
#include "core/config_schema.h"

#include <cassert>
#include <cmath>
#include <cstdint>
#include <utility>

namespace pincer::config::schema {

// ---- Node ---------------------------------------------------------------------------------------

Node::Node(Kind kind) : kind_(kind), fields_(std::make_shared<const std::vector<Field>>()) {}

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
    case Kind::kString: return format_ == "ipv4" ? "IPv4 address" : "string";
    case Kind::kBoolean: return "boolean";
    case Kind::kEnum: return "one of " + join(enum_values_, "|");
    case Kind::kAny: return "any value";
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
      field("token", string().sensitive().doc(
                         "Shared token for `token` mode, compared in constant time. Keep it out of "
                         "the file with env substitution, e.g. `\"${PINCER_TOKEN}\"`.")),
      field("password", string().sensitive().doc("Shared password for `password` mode.")),
      field("rateLimit",
            object({
                field("maxAttempts", integer().min(1).def(10).doc(
                                         "Failed attempts allowed within `windowMs` before the "
                                         "client is locked out.")),
                field("windowMs", integer().min(1).def(60000).doc(
                                      "Window in which failed attempts are counted, in milliseconds.")),
                field("lockoutMs", integer().min(0).def(300000).doc(
                                       "How long a client stays locked out after too many failed "
                                       "attempts, in milliseconds.")),
                field("exemptLoopback", boolean().def(true).doc(
                                            "Never rate-limit clients connecting from loopback.")),
            }).doc("Failed-authentication rate limit, per client IP address.")),
      field("trustedProxy",
            object({
                field("userHeader", string().required().doc(
                                        "Request header carrying the authenticated user name "
                                        "(e.g. `x-forwarded-user`).")),
                field("requiredHeaders", array_of(string()).doc(
                                             "Headers that must be present on every proxied "
                                             "request; a request lacking one is rejected.")),
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
      field("auth", gateway_auth()),
      field("trustedProxies", array_of(string()).doc(
                                  "IP addresses of reverse proxies whose forwarding headers "
                                  "(`x-forwarded-for`, …) are trusted. Required by "
                                  "`trusted-proxy` auth.")),
      field("controlUi",
            object({
                field("allowedOrigins", array_of(string()).doc(
                                            "Browser origins (e.g. `https://pincer.example.com`) "
                                            "allowed to connect. Required when the gateway is not "
                                            "bound to loopback.")),
            }).doc("The browser Control UI served by the gateway.")),
  }).doc("The gateway server: network binding, authentication, reverse proxies, Control UI.");
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
      field("gateway", gateway_section()),
      field("logging", logging_section()),
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
