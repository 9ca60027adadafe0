// The `webhook` delivery of cron jobs (AT-2; OpenClaw's `delivery: {mode: "webhook", to: URL}`):
// when a run ends, its `finished` record is POSTed as JSON to `to`, with
// `Authorization: Bearer <cron.webhookToken>` when that is set. As OpenClaw's: 10 s to connect and
// at most 10 s of silence after (CRON_WEBHOOK_TIMEOUT_MS), any 2xx is delivered, URLs with credentials are refused, and private,
// loopback and link-local targets (checked on every resolved address: tools/web's SSRF rule) are
// blocked unless `cron.webhookSsrfPolicy.dangerouslyAllowPrivateNetwork` or the host is in
// `cron.webhookSsrfPolicy.allowedHostnames`. Not retried, and not durable across a crash during
// the POST (the run is already answered in the journal).
// Loop affinity: event-loop thread (the client's callbacks run there).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/http_client.h"
#include "core/result.h"

namespace pincer::app {

/// OpenClaw's CRON_WEBHOOK_TIMEOUT_MS.
inline constexpr int64_t kCronWebhookTimeoutMs = 10'000;

struct CronWebhookSettings {
  std::string token;  ///< cron.webhookToken ("" = no Authorization header)
  bool allow_private = false;
  std::vector<std::string> allowed_hostnames;  ///< exact, any case
  int64_t timeout_ms = kCronWebhookTimeoutMs;
};

/// `cron.webhookToken` and `cron.webhookSsrfPolicy` of the effective config.
CronWebhookSettings cron_webhook_settings(const nlohmann::json& config);

/// POSTs `payload` to `url`; `done` once, on the loop: Ok for a 2xx answer, else an error
/// ("DELIVERY_FAILED") naming the status, the transport failure or the blocked address.
void post_cron_webhook(net::HttpClient& http, const CronWebhookSettings& settings, const std::string& url,
                       const nlohmann::json& payload, std::function<void(Status)> done);

}  // namespace pincer::app
