#include "test_device.h"

#include <cctype>
#include <cstring>
#include <stdexcept>

#include "ws_client.h"

namespace pincer::test {

using nlohmann::json;

std::string b64url(const unsigned char* data, std::size_t size) {
  std::string out(sodium_base64_encoded_len(size, sodium_base64_VARIANT_URLSAFE_NO_PADDING), '\0');
  sodium_bin2base64(out.data(), out.size(), data, size, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
  out.resize(std::strlen(out.c_str()));
  return out;
}

TestDevice::TestDevice() {
  if (sodium_init() < 0) throw std::runtime_error("sodium_init failed");
  crypto_sign_keypair(pk.data(), sk.data());
  std::array<unsigned char, crypto_hash_sha256_BYTES> digest{};
  crypto_hash_sha256(digest.data(), pk.data(), pk.size());
  static constexpr char kHex[] = "0123456789abcdef";
  for (unsigned char b : digest) id += {kHex[b >> 4], kHex[b & 15]};
  public_key = b64url(pk.data(), pk.size());
}

json TestDevice::sign(const json& params, const std::string& nonce, int64_t signed_at, bool v2) const {
  std::string scopes;
  for (const auto& s : params.value("scopes", json::array())) scopes += (scopes.empty() ? "" : ",") + s.get<std::string>();
  const json auth = params.value("auth", json::object());
  const std::string token = auth.value("token", auth.value("deviceToken", ""));
  std::string payload = std::string(v2 ? "v2" : "v3") + "|" + id + "|" + params["client"]["id"].get<std::string>() + "|" +
                        params["client"]["mode"].get<std::string>() + "|" + params.value("role", "operator") + "|" +
                        scopes + "|" + std::to_string(signed_at) + "|" + token + "|" + nonce;
  if (!v2) {
    auto lower = [](std::string s) {
      for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return s;
    };
    payload += "|" + lower(params["client"].value("platform", "")) + "|" + lower(params["client"].value("deviceFamily", ""));
  }
  std::array<unsigned char, crypto_sign_BYTES> sig{};
  crypto_sign_detached(sig.data(), nullptr, reinterpret_cast<const unsigned char*>(payload.data()), payload.size(),
                       sk.data());
  return {{"id", id}, {"publicKey", public_key}, {"signature", b64url(sig.data(), sig.size())},
          {"signedAt", signed_at}, {"nonce", nonce}};
}

json TestDevice::connect(int port, json params) const {
  WsClient c(port);
  auto challenge = c.recv();
  if (!challenge) throw std::runtime_error("no challenge");
  const json& ch = (*challenge)["payload"];
  params["device"] = sign(params, ch["nonce"].get<std::string>(), ch["ts"].get<int64_t>());
  c.send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", params}});
  return c.recv_response("c1").value_or(json());
}

}  // namespace pincer::test
