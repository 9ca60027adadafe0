// Web tools, group "web" (SPEC TL-1), configured by OpenClaw's keys:
//
//   web_fetch  {url, maxChars?, extractMode?: markdown|text}
//              GET over http(s) (web_fetch_core.h): private, loopback and link-local targets are
//              refused — checked on the resolved addresses of every hop, redirects included —
//              unless tools.web.fetch.ssrfPolicy.dangerouslyAllowPrivateNetwork (or the host is in
//              ssrfPolicy.allowedHostnames); at most tools.web.fetch.maxRedirects redirects,
//              maxResponseBytes read, timeoutSeconds in all. HTML becomes Markdown-like text.
//              maxChars (default tools.web.fetch.maxChars, 20000) is clamped to maxCharsCap.
//   web_search {query, count?: 1-10 (default tools.web.search.maxResults, 5)}
//              tools.web.search.provider: "brave" (Brave Search API, GET
//              <baseUrl>/res/v1/web/search with X-Subscription-Token; key from
//              plugins.entries.brave.config.webSearch.apiKey or BRAVE_API_KEY) or "searxng"
//              (GET <baseUrl>/search?format=json; plugins.entries.searxng.config.webSearch.baseUrl
//              or SEARXNG_BASE_URL). Unset: brave when it has a key, else searxng when it has a
//              base URL. The provider URL is the operator's, so it is not SSRF-checked.
//
// Both wrap what came from the web in an untrusted-content block the model sees
// (`wrap_untrusted`): content, not instructions. tools.web.fetch.enabled / search.enabled false
// make the tool refuse.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tools/tool.h"

namespace pincer::tools {

/// web_fetch, web_search — in that order.
std::vector<std::unique_ptr<Tool>> make_web_tools();

namespace web {

/// `content` between the markers
///   <<<EXTERNAL_UNTRUSTED_CONTENT source="web_fetch" url="…">>> … <<<END_EXTERNAL_UNTRUSTED_CONTENT>>>
/// with a first line telling the model it is data, not instructions. Marker look-alikes inside
/// `content` are defanged so a page cannot close the block early. `note`: that first line ("" =
/// the web tools' own, which says the content was fetched from the web).
std::string wrap_untrusted(std::string_view source, std::string_view url, std::string_view content,
                           std::string_view note = "");

}  // namespace web
}  // namespace pincer::tools
