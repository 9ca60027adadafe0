#include "gateway/web_assets.h"

#include <algorithm>

namespace pincer::gateway {

std::span<const WebAsset> web_assets() { return {detail::kWebAssets, detail::kWebAssetCount}; }

const WebAsset* find_web_asset(std::string_view path) {
  if (path == "/") path = "/index.html";
  auto assets = web_assets();
  auto it = std::find_if(assets.begin(), assets.end(), [&](const WebAsset& a) { return path == a.path; });
  return it == assets.end() ? nullptr : &*it;
}

namespace {

std::string_view trim_etag_item(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string_view opaque(std::string_view tag) {
  if (tag.starts_with("W/")) tag.remove_prefix(2);  // weak comparison for If-None-Match
  return tag;
}

}  // namespace

bool etag_matches(std::string_view if_none_match, std::string_view etag) {
  if (trim_etag_item(if_none_match) == "*") return true;
  while (!if_none_match.empty()) {
    const auto comma = if_none_match.find(',');
    const std::string_view item = trim_etag_item(if_none_match.substr(0, comma));
    if (!item.empty() && opaque(item) == opaque(etag)) return true;
    if (comma == std::string_view::npos) break;
    if_none_match.remove_prefix(comma + 1);
  }
  return false;
}

std::string web_ui_csp(std::string_view host) {
  const bool plain_host = !host.empty() && host.size() <= 255 && std::all_of(host.begin(), host.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == ':' ||
           c == '-' || c == '[' || c == ']';
  });
  std::string connect = "'self'";
  if (plain_host) connect += " ws://" + std::string(host) + " wss://" + std::string(host);
  return "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
         "manifest-src 'self'; connect-src " + connect +
         "; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'";
}

}  // namespace pincer::gateway
