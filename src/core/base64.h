// Standard base64 (RFC 4648 §4, with padding) through libsodium: chat attachments and image blocks
// sent to models, IRC SASL PLAIN and IMAP AUTHENTICATE PLAIN. Decoders stay with their callers:
// each accepts a different input (attachments: lenient alphabet and padding; MIME bodies: line
// breaks and stray bytes; device keys: strict).
//
// Pure; any thread.
#pragma once

#include <string>
#include <string_view>

namespace pincer {

/// `bytes` as standard base64 with "=" padding ("" for "").
std::string base64_encode(std::string_view bytes);

}  // namespace pincer
