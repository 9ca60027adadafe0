#include "app/cron_webhook.h"

#include <algorithm>
#include <memory>

#include "tools/web/web_fetch_core.h"
#include "core/json_dump.h"

namespace pincer::app {
namespace {

using nlohmann::json;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

CronWebhookSettings cron_webhook_settings(const json& config) {
  CronWebhookSettings s;
  const json cron = config.is_object() ? config.value("cron", json::object()) : json::object();
  if (!cron.is_object()) return s;
  if (auto t = cron.find("webhookToken"); t != cron.end() && t->is_string()) s.token = t->get<std::string>();
  const json policy = cron.value("webhookSsrfPolicy", json::object());
  if (policy.is_object()) {
    s.allow_private = policy.value("dangerouslyAllowPrivateNetwork", false) == true;
    if (auto hosts = policy.find("allowedHostnames"); hosts != policy.end() && hosts->is_array())
      for (const auto& h : *hosts)
        if (h.is_string()) s.allowed_hostnames.push_back(lower(h.get<std::string>()));
  }
  return s;
}

void post_cron_webhook(net::HttpClient& http, const CronWebhookSettings& settings, const std::string& url,
                       const json& payload, std::function<void(Status)> done) {
  auto parsed = net::parse_url(url);
  if (!parsed) {
    return done(Error{"DELIVERY_FAILED", "delivery.to '" + url + "' is not an http(s) URL without credentials"});
  }
  const bool host_allowed = std::find(settings.allowed_hostnames.begin(), settings.allowed_hostnames.end(),
                                      lower(parsed->host)) != settings.allowed_hostnames.end();
  net::HttpRequestSpec spec;
  spec.method = "POST";
  spec.url = url;
  spec.headers.push_back({"Content-Type", "application/json"});
  if (!settings.token.empty()) spec.headers.push_back({"Authorization", "Bearer " + settings.token});
  spec.body = json_dump::compact(payload);
  spec.connect_timeout_ms = settings.timeout_ms;
  spec.idle_timeout_ms = settings.timeout_ms;
  if (!settings.allow_private && !host_allowed) {
    spec.check_address = [host = parsed->host](const std::string& address) -> std::optional<std::string> {
      if (!tools::web::is_private_address(address)) return std::nullopt;
      return host + " resolves to a private or loopback address (" + address +
             "); set cron.webhookSsrfPolicy.dangerouslyAllowPrivateNetwork or list it in "
             "cron.webhookSsrfPolicy.allowedHostnames";
    };
  }
  // The client calls on_head before on_done; the status decides the outcome.
  auto status = std::make_shared<int>(0);
  auto finish = std::make_shared<std::function<void(Status)>>(std::move(done));
  net::HttpCallbacks callbacks;
  callbacks.on_head = [status](const net::HttpResponseHead& head) { *status = head.status; };
  callbacks.on_data = [](std::string_view) {};
  callbacks.on_done = [status, finish](const std::optional<net::TransportError>& error) {
    if (error) return (*finish)(Error{"DELIVERY_FAILED", "webhook: " + error->what});
    if (*status < 200 || *status > 299)
      return (*finish)(Error{"DELIVERY_FAILED", "webhook answered HTTP " + std::to_string(*status)});
    (*finish)(Ok{});
  };
  http.start(std::move(spec), std::move(callbacks));
}

}  // namespace pincer::app
