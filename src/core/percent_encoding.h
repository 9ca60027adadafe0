// Percent-encoding (RFC 3986 §2.1): the one encoder for URL path segments, query values and
// application/x-www-form-urlencoded bodies (OAuth token requests, Slack's Web API forms, Discord's
// and Matrix's path segments, web search queries). Pure; any thread.
#pragma once

#include <string>
#include <string_view>

namespace pincer {

/// `text` with every byte other than the unreserved characters (A–Z a–z 0–9 - . _ ~) and those in
/// `also_keep` written as %XX (uppercase hex). E.g. percent_encode("a b/ü") == "a%20b%2F%C3%BC";
/// JavaScript's encodeURIComponent is percent_encode(text, "!*'()").
std::string percent_encode(std::string_view text, std::string_view also_keep = {});

}  // namespace pincer
