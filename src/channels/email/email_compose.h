// The e-mail channel's outgoing message (issue 21 item 3): an agent reply as an RFC 5322 message
// with a MIME multipart/alternative body (RFC 2045/2046): text/plain (the Markdown as written) and
// text/html (delivery/markdown_html.h, the subset the Matrix channel sends), both UTF-8 in
// quoted-printable. Non-ASCII subjects and display names are RFC 2047 encoded words
// ("=?UTF-8?B?…?="); long headers are folded; CR/LF inside a header value become spaces (no
// header injection). Threading: In-Reply-To = the last inbound Message-ID of the thread,
// References = the thread's chain, Subject "Re: <thread subject>" (see reply_subject()).
// No Auto-Submitted header: the person's mail client must treat the reply as a normal message.
//
// Written without a MIME library: Debian's GMime cannot be linked into the static `pincer`
// binary (its gio dependency needs libmount.a, which Debian does not ship).
//
// Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pincer::channels::email {

/// One reply to send. Addresses are bare addr-specs ("bob@example.org", no angle brackets).
struct OutgoingEmail {
  std::string from_address;             ///< the account's address (channels.email.address)
  std::string from_name;                ///< display name (channels.email.name); may be empty
  std::string to_address;               ///< the person (the chat id)
  std::string subject;                  ///< the thread's subject, as received (reply_subject() adds "Re: ")
  std::string in_reply_to;              ///< Message-ID with <>, or empty for a first message
  std::vector<std::string> references;  ///< the thread's Message-IDs (with <>), oldest first
  std::string markdown;                 ///< the agent's reply text
  std::string domain_for_ids;           ///< right side of new Message-IDs; empty: from_address's domain
};

/// "Re: " + subject, unless the subject already starts with a reply prefix (Re:, RE:, re:, Aw:,
/// AW:, Sv:, with or without a space after the colon), which is kept as it is. Leading and
/// trailing whitespace is trimmed; an empty subject gives "Re: (no subject)".
std::string reply_subject(std::string_view thread_subject);

/// A header value: as-is (folded at spaces to lines of at most 78 characters) when it is
/// printable ASCII, else RFC 2047 "=?UTF-8?B?…?=" words (each at most 75 characters, never
/// splitting a UTF-8 sequence) folded onto continuation lines. CR/LF/TAB become spaces first.
/// `used` is the length of "Name: " already on the first line.
std::string encode_header_text(std::string_view text, std::size_t used);

/// `"Name" <address>` (quoted-string, or encoded words when the name is not ASCII), or
/// `<address>` without a name.
std::string format_mailbox(std::string_view name, std::string_view address);

/// Quoted-printable (RFC 2045 §6.7) of UTF-8 text: line breaks (LF or CRLF) become CRLF hard
/// breaks, lines are cut with soft breaks "=\r\n" at 76 characters, "=", non-ASCII bytes,
/// control characters and trailing spaces/tabs are =XX.
std::string quoted_printable(std::string_view text);

/// RFC 5322 date-time in UTC: "Sun, 06 Dec 2026 01:50:07 +0000". `date_ms`: Unix milliseconds.
std::string rfc5322_date(int64_t date_ms);

/// A fresh Message-ID "<random@domain>" (26 random base32 characters; libsodium randomness).
/// `domain` empty or unusable → "pincer.invalid".
std::string new_message_id(std::string_view domain);

/// The domain part of an address ("bot@example.org" → "example.org"), or "" when there is none.
std::string address_domain(std::string_view address);

/// Why `address` is not a usable bare addr-spec (empty, no '@', angle brackets, whitespace,
/// control characters, quotes or commas, longer than 254), or nullopt when it is.
std::optional<std::string> address_problem(std::string_view address);

/// The whole message (headers + multipart/alternative body), CRLF line ends, ready for SMTP DATA
/// (before dot-stuffing). `message_id` with <>; `date_ms` Unix milliseconds.
std::string compose_email(const OutgoingEmail& email, const std::string& message_id, int64_t date_ms);

}  // namespace pincer::channels::email
