#include "store/device_store.h"

#include <sodium.h>

#include <algorithm>

#include "core/ids.h"
#include "store/atomic_file.h"

namespace pincer::store {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxStoreFileBytes = 16u << 20;
constexpr int64_t kLastUsedWriteMs = 60'000;

// ---- JSON field helpers: absent or mistyped optional fields read as empty ----

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}
std::vector<std::string> strs(const json& j, const char* key) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}
std::optional<int64_t> num(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  if (it->is_number_integer()) return it->get<int64_t>();
  const double d = it->get<double>();  // written by JavaScript: may be a float; never cast out of range
  if (!(d > -9.2e18 && d < 9.2e18)) return std::nullopt;
  return static_cast<int64_t>(d);
}
bool flag(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}
void put(json& j, const char* key, const std::string& v) {
  if (!v.empty()) j[key] = v;
}
void put(json& j, const char* key, const std::vector<std::string>& v) {
  if (!v.empty()) j[key] = v;
}
void put(json& j, const char* key, const std::optional<int64_t>& v) {
  if (v) j[key] = *v;
}

json token_json(const DeviceToken& t, bool include_secret) {
  json j = {{"role", t.role}, {"scopes", t.scopes}, {"createdAtMs", t.created_at_ms}};
  if (include_secret) j["token"] = t.token;
  put(j, "rotatedAtMs", t.rotated_at_ms);
  put(j, "revokedAtMs", t.revoked_at_ms);
  put(j, "lastUsedAtMs", t.last_used_at_ms);
  return j;
}

DeviceToken token_from(const json& j) {
  DeviceToken t;
  t.token = str(j, "token");
  t.role = str(j, "role");
  t.scopes = strs(j, "scopes");
  t.created_at_ms = num(j, "createdAtMs").value_or(0);
  t.rotated_at_ms = num(j, "rotatedAtMs");
  t.revoked_at_ms = num(j, "revokedAtMs");
  t.last_used_at_ms = num(j, "lastUsedAtMs");
  return t;
}

PendingPairing pending_from(const json& j) {
  PendingPairing p;
  p.request_id = str(j, "requestId");
  p.device_id = str(j, "deviceId");
  p.public_key = str(j, "publicKey");
  p.display_name = str(j, "displayName");
  p.platform = str(j, "platform");
  p.device_family = str(j, "deviceFamily");
  p.client_id = str(j, "clientId");
  p.client_mode = str(j, "clientMode");
  p.role = str(j, "role");
  p.roles = strs(j, "roles");
  p.scopes = strs(j, "scopes");
  p.remote_ip = str(j, "remoteIp");
  p.silent = flag(j, "silent");
  p.is_repair = flag(j, "isRepair");
  p.ts = num(j, "ts").value_or(0);
  return p;
}

PairedDevice paired_from(const json& j) {
  PairedDevice d;
  d.device_id = str(j, "deviceId");
  d.public_key = str(j, "publicKey");
  d.display_name = str(j, "displayName");
  d.platform = str(j, "platform");
  d.device_family = str(j, "deviceFamily");
  d.client_id = str(j, "clientId");
  d.client_mode = str(j, "clientMode");
  d.role = str(j, "role");
  d.remote_ip = str(j, "remoteIp");
  d.operator_label = str(j, "operatorLabel");
  d.roles = strs(j, "roles");
  d.scopes = strs(j, "scopes");
  d.approved_scopes = strs(j, "approvedScopes");
  if (auto it = j.find("tokens"); it != j.end() && it->is_object()) {
    for (const auto& [role, t] : it->items()) {
      if (t.is_object()) d.tokens[role] = token_from(t);
    }
  }
  d.created_at_ms = num(j, "createdAtMs").value_or(0);
  d.approved_at_ms = num(j, "approvedAtMs").value_or(0);
  return d;
}

/// Union preserving first-seen order, trimmed, empties dropped (mergeRoles / mergeScopes).
std::vector<std::string> merged(std::initializer_list<const std::vector<std::string>*> lists) {
  std::vector<std::string> out;
  for (const auto* list : lists) {
    for (const auto& s : *list) {
      if (!s.empty() && std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
    }
  }
  return out;
}

std::vector<std::string> one(const std::string& s) { return s.empty() ? std::vector<std::string>{} : std::vector{s}; }

/// Constant-time comparison (of SHA-256 digests, so lengths leak nothing either).
bool tokens_equal(std::string_view a, std::string_view b) {
  unsigned char ha[crypto_hash_sha256_BYTES], hb[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(ha, reinterpret_cast<const unsigned char*>(a.data()), a.size());
  crypto_hash_sha256(hb, reinterpret_cast<const unsigned char*>(b.data()), b.size());
  return sodium_memcmp(ha, hb, sizeof ha) == 0;
}

std::vector<std::string> sorted_unique(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  v.erase(std::remove(v.begin(), v.end(), std::string()), v.end());
  return v;
}

}  // namespace

json to_json(const PendingPairing& p) {
  json j = {{"requestId", p.request_id}, {"deviceId", p.device_id}, {"publicKey", p.public_key}};
  put(j, "displayName", p.display_name);
  put(j, "platform", p.platform);
  put(j, "deviceFamily", p.device_family);
  put(j, "clientId", p.client_id);
  put(j, "clientMode", p.client_mode);
  put(j, "role", p.role);
  put(j, "roles", p.roles);
  put(j, "scopes", p.scopes);
  put(j, "remoteIp", p.remote_ip);
  j["silent"] = p.silent;
  j["isRepair"] = p.is_repair;
  j["ts"] = p.ts;
  return j;
}

json to_json(const PairedDevice& d, bool include_secrets) {
  json j = {{"deviceId", d.device_id}, {"publicKey", d.public_key}};
  put(j, "displayName", d.display_name);
  put(j, "platform", d.platform);
  put(j, "deviceFamily", d.device_family);
  put(j, "clientId", d.client_id);
  put(j, "clientMode", d.client_mode);
  put(j, "role", d.role);
  put(j, "roles", d.roles);
  put(j, "scopes", d.scopes);
  if (include_secrets) put(j, "approvedScopes", d.approved_scopes);
  put(j, "remoteIp", d.remote_ip);
  put(j, "operatorLabel", d.operator_label);
  if (include_secrets) {
    json tokens = json::object();
    for (const auto& [role, t] : d.tokens) tokens[role] = token_json(t, true);
    j["tokens"] = std::move(tokens);
  } else if (!d.tokens.empty()) {
    json tokens = json::array();  // std::map: already sorted by role
    for (const auto& [role, t] : d.tokens) tokens.push_back(token_json(t, false));
    j["tokens"] = std::move(tokens);
  }
  j["createdAtMs"] = d.created_at_ms;
  j["approvedAtMs"] = d.approved_at_ms;
  return j;
}

DeviceStore::DeviceStore(std::filesystem::path dir, ScopesAllow allow, int64_t now_ms)
    : dir_(std::move(dir)), allow_(std::move(allow)) {
  if (dir_.empty()) return;
  auto load = [&](const char* name, auto&& add) {
    const auto path = dir_ / name;
    auto text = read_file(path, kMaxStoreFileBytes);
    if (!text) {
      if (text.error().code != "NOT_FOUND") warnings_.push_back(text.error().message);
      return;
    }
    json parsed = json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_object()) {
      std::error_code ec;
      const auto aside = path.string() + ".corrupt-" + std::to_string(now_ms);
      std::filesystem::rename(path, aside, ec);
      warnings_.push_back(path.string() + ": not a JSON object; moved aside to " + aside);
      return;
    }
    for (const auto& [key, value] : parsed.items()) {
      if (value.is_object()) add(key, value);
    }
  };
  load("pending.json", [&](const std::string& id, const json& v) {
    PendingPairing p = pending_from(v);
    if (p.request_id.empty()) p.request_id = id;
    if (!p.device_id.empty()) pending_[p.request_id] = std::move(p);
  });
  load("paired.json", [&](const std::string& id, const json& v) {
    PairedDevice d = paired_from(v);
    if (d.device_id.empty()) d.device_id = id;
    paired_[d.device_id] = std::move(d);
  });
  prune(now_ms);
}

void DeviceStore::prune(int64_t now_ms) {
  std::erase_if(pending_, [&](const auto& kv) { return now_ms - kv.second.ts > kPendingPairingTtlMs; });
}

Status DeviceStore::persist() {
  if (dir_.empty()) return Ok{};
  json pending = json::object(), paired = json::object();
  for (const auto& [id, p] : pending_) pending[id] = to_json(p);
  for (const auto& [id, d] : paired_) paired[id] = to_json(d, /*include_secrets=*/true);
  if (auto st = write_file_atomic(dir_ / "pending.json", pending.dump(2) + "\n", 0600); !st) return st;
  return write_file_atomic(dir_ / "paired.json", paired.dump(2) + "\n", 0600);
}

const PairedDevice* DeviceStore::paired(const std::string& device_id) const {
  auto it = paired_.find(device_id);
  return it == paired_.end() ? nullptr : &it->second;
}

std::vector<PendingPairing> DeviceStore::list_pending(int64_t now_ms) {
  prune(now_ms);
  std::vector<PendingPairing> out;
  for (const auto& [id, p] : pending_) out.push_back(p);
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.ts > b.ts; });
  return out;
}

std::vector<PairedDevice> DeviceStore::list_paired() const {
  std::vector<PairedDevice> out;
  for (const auto& [id, d] : paired_) out.push_back(d);
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.approved_at_ms > b.approved_at_ms; });
  return out;
}

const PendingPairing* DeviceStore::pending(const std::string& request_id, int64_t now_ms) {
  prune(now_ms);
  auto it = pending_.find(request_id);
  return it == pending_.end() ? nullptr : &it->second;
}

Result<DeviceStore::Requested> DeviceStore::request_pairing(PendingPairing in, int64_t now_ms) {
  prune(now_ms);
  const bool repair = paired_.count(in.device_id) > 0;
  for (auto& [id, existing] : pending_) {
    if (existing.device_id != in.device_id) continue;
    auto pick = [](std::string& field, const std::string& incoming) {
      if (!incoming.empty()) field = incoming;
    };
    pick(existing.display_name, in.display_name);
    pick(existing.platform, in.platform);
    pick(existing.device_family, in.device_family);
    pick(existing.client_id, in.client_id);
    pick(existing.client_mode, in.client_mode);
    pick(existing.remote_ip, in.remote_ip);
    existing.public_key = in.public_key;
    if (existing.role.empty()) existing.role = in.role;
    const auto in_role = one(in.role), old_role = one(existing.role);
    existing.roles = merged({&existing.roles, &old_role, &in_role});
    existing.scopes = merged({&existing.scopes, &in.scopes});
    existing.silent = existing.silent && in.silent;  // an interactive request stays visible
    existing.is_repair = existing.is_repair || repair;
    existing.ts = now_ms;
    Requested r{existing, false};
    if (auto st = persist(); !st) return st.error();
    return r;
  }
  in.request_id = ids::uuid_v4();
  in.roles = one(in.role);
  in.is_repair = repair;
  in.ts = now_ms;
  pending_[in.request_id] = in;
  if (auto st = persist(); !st) return st.error();
  return Requested{std::move(in), true};
}

DeviceToken DeviceStore::new_token(const std::string& role, std::vector<std::string> scopes,
                                   const DeviceToken* previous, int64_t now_ms) const {
  DeviceToken t;
  t.token = ids::random_token(32);
  t.role = role;
  t.scopes = sorted_unique(std::move(scopes));
  t.created_at_ms = previous ? previous->created_at_ms : now_ms;
  if (previous) {
    t.rotated_at_ms = now_ms;
    t.last_used_at_ms = previous->last_used_at_ms;
  }
  return t;
}

Result<std::optional<PairedDevice>> DeviceStore::approve(const std::string& request_id, int64_t now_ms) {
  prune(now_ms);
  auto it = pending_.find(request_id);
  if (it == pending_.end()) return std::optional<PairedDevice>();
  const PendingPairing p = it->second;
  auto found = paired_.find(p.device_id);
  const PairedDevice* existing = found == paired_.end() ? nullptr : &found->second;
  PairedDevice d;
  if (existing) d = *existing;
  // A new key for a known id (impossible unless SHA-256 collides) or a hand-edited file: the old
  // tokens belong to someone else.
  if (existing && existing->public_key != p.public_key) d.tokens.clear();
  const auto p_role = one(p.role);
  const std::vector<std::string> none;
  d.roles = merged({existing ? &existing->roles : &none, &p.roles, &p_role});
  const auto& base = existing ? (existing->approved_scopes.empty() ? existing->scopes : existing->approved_scopes) : none;
  d.approved_scopes = merged({&base, &p.scopes});
  d.scopes = d.approved_scopes;
  if (!p.role.empty()) {
    auto old = d.tokens.find(p.role);
    std::vector<std::string> scopes = p.scopes;
    if (scopes.empty()) scopes = old != d.tokens.end() ? old->second.scopes : d.approved_scopes;
    d.tokens[p.role] = new_token(p.role, scopes, old != d.tokens.end() ? &old->second : nullptr, now_ms);
  }
  d.device_id = p.device_id;
  d.public_key = p.public_key;
  d.display_name = p.display_name;
  d.platform = p.platform;
  d.device_family = p.device_family;
  d.client_id = p.client_id;
  d.client_mode = p.client_mode;
  d.role = p.role;
  d.remote_ip = p.remote_ip;
  d.created_at_ms = existing ? existing->created_at_ms : now_ms;
  d.approved_at_ms = now_ms;
  pending_.erase(it);
  paired_[d.device_id] = d;
  if (auto st = persist(); !st) return st.error();
  return std::optional<PairedDevice>(std::move(d));
}

Result<std::optional<std::string>> DeviceStore::reject(const std::string& request_id, int64_t now_ms) {
  prune(now_ms);
  auto it = pending_.find(request_id);
  if (it == pending_.end()) return std::optional<std::string>();
  std::string device_id = it->second.device_id;
  pending_.erase(it);
  if (auto st = persist(); !st) return st.error();
  return std::optional<std::string>(std::move(device_id));
}

Result<bool> DeviceStore::remove(const std::string& device_id) {
  if (paired_.erase(device_id) == 0) return false;
  if (auto st = persist(); !st) return st.error();
  return true;
}

Result<bool> DeviceStore::rename(const std::string& device_id, const std::string& label) {
  auto it = paired_.find(device_id);
  if (it == paired_.end()) return false;
  if (it->second.operator_label == label) return true;
  it->second.operator_label = label;
  if (auto st = persist(); !st) return st.error();
  return true;
}

Status DeviceStore::touch(const std::string& device_id, const std::string& display_name, const std::string& client_id,
                          const std::string& client_mode, const std::string& remote_ip) {
  auto it = paired_.find(device_id);
  if (it == paired_.end()) return Ok{};
  PairedDevice& d = it->second;
  if (d.display_name == display_name && d.client_id == client_id && d.client_mode == client_mode &&
      d.remote_ip == remote_ip) {
    return Ok{};  // nothing changed: no write
  }
  d.display_name = display_name;
  d.client_id = client_id;
  d.client_mode = client_mode;
  d.remote_ip = remote_ip;
  return persist();
}

Result<std::optional<std::string>> DeviceStore::verify_token(const std::string& device_id, const std::string& role,
                                                             const std::string& token,
                                                             const std::vector<std::string>& scopes, int64_t now_ms) {
  using R = std::optional<std::string>;
  auto it = paired_.find(device_id);
  if (it == paired_.end()) return R("device-not-paired");
  if (role.empty()) return R("role-missing");
  auto t = it->second.tokens.find(role);
  if (t == it->second.tokens.end()) return R("token-missing");
  if (t->second.revoked_at_ms) return R("token-revoked");
  if (!tokens_equal(token, t->second.token)) return R("token-mismatch");
  if (!allow_(role, scopes, t->second.scopes)) return R("scope-mismatch");
  // lastUsedAtMs is informational: written through at most once a minute, not on every connect.
  const bool stale = !t->second.last_used_at_ms || now_ms - *t->second.last_used_at_ms >= kLastUsedWriteMs;
  t->second.last_used_at_ms = now_ms;
  if (stale) {
    if (auto st = persist(); !st) return st.error();
  }
  return R();
}

Result<std::optional<DeviceToken>> DeviceStore::ensure_token(const std::string& device_id, const std::string& role,
                                                             const std::vector<std::string>& scopes, int64_t now_ms) {
  auto it = paired_.find(device_id);
  if (it == paired_.end() || role.empty()) return std::optional<DeviceToken>();
  auto& tokens = it->second.tokens;
  auto old = tokens.find(role);
  if (old != tokens.end() && !old->second.revoked_at_ms && allow_(role, scopes, old->second.scopes)) {
    return std::optional<DeviceToken>(old->second);
  }
  DeviceToken t = new_token(role, scopes, old != tokens.end() ? &old->second : nullptr, now_ms);
  tokens[role] = t;
  if (auto st = persist(); !st) return st.error();
  return std::optional<DeviceToken>(std::move(t));
}

Result<DeviceToken> DeviceStore::rotate_token(const std::string& device_id, const std::string& role,
                                              const std::optional<std::vector<std::string>>& scopes, int64_t now_ms) {
  auto it = paired_.find(device_id);
  if (it == paired_.end()) return Error{"UNKNOWN_DEVICE_OR_ROLE", "unknown device " + device_id};
  PairedDevice& d = it->second;
  auto old = d.tokens.find(role);
  const bool role_approved = std::find(d.roles.begin(), d.roles.end(), role) != d.roles.end() || d.role == role;
  if (old == d.tokens.end() && !role_approved) {
    return Error{"UNKNOWN_DEVICE_OR_ROLE", "device " + device_id + " has no approved role " + role};
  }
  const auto& approved = d.approved_scopes.empty() ? d.scopes : d.approved_scopes;
  std::vector<std::string> next = scopes ? *scopes : (old != d.tokens.end() ? old->second.scopes : approved);
  if (!allow_(role, next, approved)) {
    return Error{"SCOPE_NOT_APPROVED", "requested scopes exceed the scopes approved for device " + device_id};
  }
  DeviceToken t = new_token(role, next, old != d.tokens.end() ? &old->second : nullptr, now_ms);
  if (old == d.tokens.end()) t.rotated_at_ms = now_ms;
  d.tokens[role] = t;
  if (auto st = persist(); !st) return st.error();
  return t;
}

Result<DeviceToken> DeviceStore::revoke_token(const std::string& device_id, const std::string& role, int64_t now_ms) {
  auto it = paired_.find(device_id);
  if (it == paired_.end()) return Error{"UNKNOWN_DEVICE_OR_ROLE", "unknown device " + device_id};
  auto t = it->second.tokens.find(role);
  if (t == it->second.tokens.end()) {
    return Error{"UNKNOWN_DEVICE_OR_ROLE", "device " + device_id + " has no token for role " + role};
  }
  t->second.revoked_at_ms = now_ms;
  DeviceToken copy = t->second;
  if (auto st = persist(); !st) return st.error();
  return copy;
}

Result<int> DeviceStore::revoke_all_tokens(int64_t now_ms) {
  int revoked = 0;
  for (auto& [id, d] : paired_) {
    for (auto& [role, t] : d.tokens) {
      if (t.revoked_at_ms) continue;
      t.revoked_at_ms = now_ms;
      ++revoked;
    }
  }
  if (revoked == 0) return 0;
  if (auto st = persist(); !st) return st.error();
  return revoked;
}

int DeviceStore::live_tokens() const {
  int live = 0;
  for (const auto& [id, d] : paired_) {
    for (const auto& [role, t] : d.tokens) live += t.revoked_at_ms ? 0 : 1;
  }
  return live;
}

}  // namespace pincer::store
