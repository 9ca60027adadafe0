// The gateway's outbound side: frames and events to one client, broadcasts by scope, and the
// slow-consumer rule (a client that does not read is closed, never buffered without bound).
#include <algorithm>
#include <vector>

#include <spdlog/spdlog.h>

#include "core/json_dump.h"
#include "gateway/gateway.h"
#include "gateway/protocol/constants.h"
#include "gateway/protocol/scopes.h"

namespace pincer::gateway {

using nlohmann::json;

void Gateway::send_frame(Client& client, std::string frame, bool drop_if_slow) {
  if (client.closing) return;
  if (client.link->buffered_bytes() + frame.size() > kMaxBufferedBytes) {
    if (drop_if_slow) return;
    spdlog::warn("conn {}: slow consumer ({} bytes queued); closing", client.id, client.link->buffered_bytes());
    close_client(client, kClosePolicy, "slow consumer");
    return;
  }
  client.link->send(std::move(frame));
}

void Gateway::send_to(ConnId id, std::string frame, bool drop_if_slow) {
  auto it = clients_.find(id);
  if (it != clients_.end() && it->second->connected) send_frame(*it->second, std::move(frame), drop_if_slow);
}

void Gateway::send_event(Client& client, std::string_view event, const std::string& payload_json, bool drop_if_slow,
                         const json& state_version) {
  const auto& advertised = gateway_events();
  if (std::find(advertised.begin(), advertised.end(), event) == advertised.end()) {
    spdlog::error("internal: event \"{}\" is not in gateway_events() (hello-ok features.events); not sent", event);
    return;
  }
  send_frame(client, build_event(event, payload_json, client.next_seq++, state_version), drop_if_slow);
}

void Gateway::broadcast(std::string_view event, const std::string& payload_json, bool drop_if_slow,
                        const json& state_version) {
  // Presence (other clients' addresses and devices) and health (session keys, channel accounts)
  // are for operators who may read; a zero-scope client gets ticks and shutdown only.
  const bool readers_only = event == "presence" || event == "health";
  for (auto& [id, client] : clients_) {
    if (!client->connected || client->closing || (readers_only && !may_read(*client))) continue;
    send_event(*client, event, payload_json, drop_if_slow, state_version);
  }
}

bool Gateway::may_read(const Client& client) {
  return client.role == "operator" && operator_scope_allows(client.scopes, kScopeRead);
}

void Gateway::broadcast_run_event(std::string_view event, const std::string& payload_json, bool tool_event) {
  // Streamed deltas come through here: the frame (all but each client's `seq`) is written once per
  // event, not once per client.
  Client* single = nullptr;  // the common case: one reader, no list
  std::vector<Client*> readers;
  for (auto& [id, client] : clients_) {
    if (!client->connected || client->closing || client->role != "operator") continue;
    if (!operator_scope_allows(client->scopes, kScopeRead)) continue;  // chat/agent need operator.read
    if (tool_event && std::find(client->caps.begin(), client->caps.end(), "tool-events") == client->caps.end()) continue;
    if (!single) {
      single = client.get();
    } else {
      if (readers.empty()) readers.push_back(single);
      readers.push_back(client.get());
    }
  }
  if (!single) return;
  const auto& advertised = gateway_events();
  if (std::find(advertised.begin(), advertised.end(), event) == advertised.end()) {
    spdlog::error("internal: event \"{}\" is not in gateway_events() (hello-ok features.events); not sent", event);
    return;
  }
  // build_event(event, payload, seq) is this prefix, then `,"seq":N}`.
  std::string prefix = build_event(event, payload_json);
  prefix.pop_back();  // its closing brace
  prefix += R"(,"seq":)";
  auto frame_for = [](std::string frame, int64_t seq) {
    frame += std::to_string(seq);
    frame += '}';
    return frame;
  };
  if (readers.empty()) {
    send_frame(*single, frame_for(std::move(prefix), single->next_seq++), /*drop_if_slow=*/false);
    return;
  }
  for (std::size_t i = 0; i < readers.size(); ++i) {
    Client& c = *readers[i];
    const int64_t seq = c.next_seq++;
    send_frame(c, i + 1 < readers.size() ? frame_for(prefix, seq) : frame_for(std::move(prefix), seq), /*drop_if_slow=*/false);
  }
}

void Gateway::broadcast_session_event(std::string_view event, const json& payload) {
  const std::string text = json_dump::compact(payload);
  for (auto& [id, client] : clients_) {
    if (!client->connected || client->closing || !client->session_events || !may_read(*client)) continue;
    send_event(*client, event, text, /*drop_if_slow=*/true);
  }
}

bool Gateway::has_session_event_readers() const {
  for (const auto& [id, client] : clients_) {
    if (client->connected && !client->closing && client->session_events && may_read(*client)) return true;
  }
  return false;
}

void Gateway::broadcast_scoped_event(std::string_view event, const json& payload, std::string_view scope) {
  if (event == "heartbeat") last_heartbeat_ = payload;  // `last-heartbeat` answers it
  const std::string text = json_dump::compact(payload);
  for (auto& [id, client] : clients_) {
    if (!client->connected || client->closing || client->role != "operator") continue;
    if (!operator_scope_allows(client->scopes, scope)) continue;  // §1.9 event scope guards
    send_event(*client, event, text);
  }
}

void Gateway::broadcast_pairing_event(std::string_view event, const json& payload) {
  const std::string text = json_dump::compact(payload);
  for (auto& [id, client] : clients_) {
    if (!client->connected || client->closing || client->role != "operator") continue;
    if (!operator_scope_allows(client->scopes, kScopePairing)) continue;  // §1.9 event scope guards
    send_event(*client, event, text, /*drop_if_slow=*/true);
  }
}

bool Gateway::device_connected(const std::string& device_id) const {
  for (const auto& [id, client] : clients_) {
    if (client->connected && !client->closing && client->device_id == device_id) return true;
  }
  return false;
}

void Gateway::disconnect_device(const std::string& device_id, const std::string& role, const std::string& reason) {
  for (auto& [id, client] : clients_) {
    if (client->device_id != device_id || device_id.empty()) continue;
    if (!role.empty() && client->role != role) continue;
    close_client(*client, kClosePolicy, reason);
  }
}

std::size_t Gateway::connected_count() const {
  std::size_t n = 0;
  for (const auto& [id, client] : clients_) n += client->connected ? 1 : 0;
  return n;
}

}  // namespace pincer::gateway
