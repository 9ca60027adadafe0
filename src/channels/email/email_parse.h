// Reading an inbound e-mail (RFC 5322 + MIME, RFC 2045–2047) into what the e-mail channel hands to
// the pipeline: the thread's ids, the sender, the subject and the person's own words.
//
// Our own small MIME reader, not GMime: GMime cannot be linked into the static `pincer` binary
// (its init pulls GIO's mount code, and Debian ships no libmount.a). It reads headers (folded, RFC
// 2047 encoded words in B and Q forms), multipart bodies (nested up to 8 levels, 200 parts),
// quoted-printable and base64, and the charsets UTF-8, US-ASCII, ISO-8859-1, ISO-8859-15 and
// windows-1252 (others through iconv; bytes it cannot convert become U+FFFD). Fuzzed
// (fuzz/imap_protocol_fuzz.cpp reads each input as one e-mail too).
//
// Pure; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pincer::channels::email {

/// A part of an e-mail that is not its text (an attachment, an inline image): its name, type,
/// size and — when not over agent::kMaxAttachmentBytes — its decoded bytes (the channel passes
/// them on as InboundMessage::media).
struct EmailAttachment {
  std::string filename;   ///< from Content-Disposition filename= or Content-Type name= (decoded), "" when none
  std::string mime_type;  ///< lower-cased, e.g. "application/pdf"; "application/octet-stream" when none
  std::size_t bytes = 0;  ///< its decoded size in bytes
  std::string content;    ///< the decoded bytes; "" when `bytes` is over agent::kMaxAttachmentBytes (not kept)
};

/// An inbound e-mail as the channel uses it.
struct ParsedEmail {
  std::string message_id;               ///< the Message-ID header with its <>, "" when none
  std::string in_reply_to;              ///< the first <id> of In-Reply-To, "" when none
  std::vector<std::string> references;  ///< the <id>s of References, oldest first
  std::string from_address;             ///< lower-cased "person@example.org", "" when none
  std::string from_name;                ///< the display name (decoded), "" when none
  std::string subject;                  ///< decoded, whitespace collapsed
  int64_t date_ms = 0;                  ///< the Date header, ms since the epoch (0 = none/unreadable)
  /// The person's words: the text/plain part (else the HTML part as text), quoted text stripped
  /// (strip_quoted), CR LF as LF.
  std::string text;
  bool from_html = false;               ///< `text` came from an HTML part
  /// The parts that are not text, in order (at most 50 listed).
  std::vector<EmailAttachment> attachments;
  /// Sent by a machine (never answered: mail loops): why, e.g. "Auto-Submitted: auto-replied";
  /// "" for a person's mail.
  std::string auto_generated;

  /// The thread's root id: the first References entry, else In-Reply-To, else the own Message-ID.
  std::string thread_root() const;
  /// The message answers an earlier one (In-Reply-To or References set).
  bool is_reply() const { return !in_reply_to.empty() || !references.empty(); }
};

/// Parses `raw` (the bytes of BODY[]: headers, blank line, body). Never fails: missing parts stay
/// empty; at most the first 16 MiB are read.
ParsedEmail parse_email(std::string_view raw);

/// The person's new words of a reply (LF line ends): drops lines quoted with ">", the attribution
/// line before a quote ("On Mon, … Jane <jane@example.org> wrote:", also wrapped over two lines),
/// everything from Outlook's "-----Original Message-----" or "From: … / Sent: …" block (also after
/// a "________" rule) and from a "-- " signature line on; trims blank lines at both ends.
std::string strip_quoted(std::string_view text);

/// The text of an HTML body: the quoted part of a reply dropped first (Gmail's gmail_quote,
/// <blockquote>, Outlook's divRplyFwdMsg/appendonsend, Thunderbird's moz-cite-prefix), then the
/// readable text (tools/web html_to_text).
std::string email_html_to_text(std::string_view html);

// The decoders parse_email uses (exposed for tests).

/// Converts `bytes` in `charset` (any case; "" = US-ASCII) to valid UTF-8.
std::string email_to_utf8(std::string_view bytes, std::string_view charset);
/// Decodes RFC 2047 encoded words ("=?utf-8?Q?caf=C3=A9?=") in an unstructured header value;
/// whitespace between two encoded words is dropped; the rest is taken as UTF-8.
std::string decode_rfc2047(std::string_view value);
/// Quoted-printable body (RFC 2045 §6.7) to bytes; soft line breaks removed.
std::string decode_quoted_printable(std::string_view body);
/// Base64 body to bytes; characters outside the alphabet are skipped.
std::string decode_base64(std::string_view body);
/// An RFC 5322 date ("Sun, 6 Dec 2026 01:43:39 +0100") in ms since the epoch; 0 when unreadable.
int64_t parse_email_date(std::string_view value);
/// The address and the display name of a From value ("Jane Doe <Jane@Example.org>" →
/// {"jane@example.org", "Jane Doe"}); the address lower-cased, "" when none.
std::pair<std::string, std::string> parse_email_address(std::string_view value);

}  // namespace pincer::channels::email
