// Decoding the character references md4c reports in Markdown text (MD_TEXT_ENTITY): numeric
// (&#169; &#xA9;) and a common set of named ones. Internal to the md4c renderers (md_walk.h). Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pincer::delivery::detail {

/// UTF-8 of code point `cp`; U+FFFD for 0, surrogates and values above U+10FFFF.
std::string encode_utf8(std::uint32_t cp);

/// The text an entity such as "&amp;", "&#x1F600;" or "&copy;" stands for, or nullopt when the
/// name is not one this table knows.
std::optional<std::string> decode_entity(std::string_view entity);

}  // namespace pincer::delivery::detail
