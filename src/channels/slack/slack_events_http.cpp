#include "channels/slack/slack_events_http.h"

#include <cstdlib>

#include <sodium.h>

namespace pincer::channels::slack {

using nlohmann::json;

namespace {

std::string slack_http_header(const std::map<std::string, std::string>& headers, const char* name) {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

int slack_http_hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string slack_http_form_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%' && i + 2 < s.size() && slack_http_hex(s[i + 1]) >= 0 && slack_http_hex(s[i + 2]) >= 0) {
      out += static_cast<char>(slack_http_hex(s[i + 1]) * 16 + slack_http_hex(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

std::string slack_request_signature(std::string_view signing_secret, std::string_view timestamp, std::string_view body) {
  unsigned char mac[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256_state st;
  crypto_auth_hmacsha256_init(&st, reinterpret_cast<const unsigned char*>(signing_secret.data()), signing_secret.size());
  for (const std::string_view part : {std::string_view("v0:"), timestamp, std::string_view(":"), body}) {
    crypto_auth_hmacsha256_update(&st, reinterpret_cast<const unsigned char*>(part.data()), part.size());
  }
  crypto_auth_hmacsha256_final(&st, mac);
  char hex[crypto_auth_hmacsha256_BYTES * 2 + 1];
  sodium_bin2hex(hex, sizeof hex, mac, sizeof mac);
  return "v0=" + std::string(hex);
}

std::optional<std::string> verify_slack_request(std::string_view signing_secret,
                                                const std::map<std::string, std::string>& headers,
                                                std::string_view body, int64_t now_s) {
  const std::string ts = slack_http_header(headers, "x-slack-request-timestamp");
  const std::string sig = slack_http_header(headers, "x-slack-signature");
  if (ts.empty() || sig.empty()) return std::string("missing X-Slack-Request-Timestamp or X-Slack-Signature");
  if (ts.size() > 12 || ts.find_first_not_of("0123456789") != std::string::npos) {
    return std::string("X-Slack-Request-Timestamp is not Unix seconds");
  }
  const int64_t t = std::strtoll(ts.c_str(), nullptr, 10);
  if (t < now_s - kSlackRequestWindowS || t > now_s + kSlackRequestWindowS) {
    return std::string("X-Slack-Request-Timestamp is more than 5 minutes from the gateway's clock");
  }
  std::string given = sig;
  for (char& c : given) {
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
  }
  const std::string expected = slack_request_signature(signing_secret, ts, body);
  if (given.size() != expected.size() ||
      sodium_memcmp(given.data(), expected.data(), expected.size()) != 0) {
    return std::string("X-Slack-Signature does not match (check the signing secret)");
  }
  return std::nullopt;
}

json parse_form_body(std::string_view body) {
  json out = json::object();
  while (!body.empty()) {
    const auto amp = body.find('&');
    const std::string_view pair = body.substr(0, amp);
    body = amp == std::string_view::npos ? std::string_view() : body.substr(amp + 1);
    if (pair.empty()) continue;
    const auto eq = pair.find('=');
    const std::string key = slack_http_form_decode(pair.substr(0, eq));
    out[key] = eq == std::string_view::npos ? std::string() : slack_http_form_decode(pair.substr(eq + 1));
  }
  return out;
}

SlackHttpRequest classify_slack_request(std::string_view content_type, std::string_view body) {
  SlackHttpRequest r;
  if (content_type.find("application/x-www-form-urlencoded") != std::string_view::npos) {
    json form = parse_form_body(body);
    if (form.contains("command")) {
      r.kind = SlackHttpRequest::Kind::SlashCommand;
      r.payload = std::move(form);
    } else if (form.contains("payload")) {
      r.kind = SlackHttpRequest::Kind::Interactive;
    }
    return r;
  }
  const json j = json::parse(body, nullptr, false);
  if (!j.is_object()) return r;
  const std::string type = j.value("type", "");
  if (type == "url_verification") {
    r.kind = SlackHttpRequest::Kind::UrlVerification;
    r.challenge = j.value("challenge", "");
  } else if (type == "event_callback") {
    r.kind = SlackHttpRequest::Kind::EventCallback;
    r.event_id = j.value("event_id", "");
    r.payload = j;
  } else {
    r.kind = SlackHttpRequest::Kind::Other;
  }
  return r;
}

bool SlackEventIds::seen_or_add(const std::string& id) {
  if (ids_.count(id)) return true;
  ids_.insert(id);
  order_.push_back(id);
  while (order_.size() > capacity_) {
    ids_.erase(order_.front());
    order_.pop_front();
  }
  return false;
}

}  // namespace pincer::channels::slack
