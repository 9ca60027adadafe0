// The IMAP4rev1 wire format (RFC 3501) as the e-mail channel's client reads and writes it: a
// response parser that cuts a server's byte stream into responses (tagged completions, untagged
// data, "+" continuations) with their {n} literals, and the small readers of the responses the
// client uses (SELECT's codes, SEARCH, FETCH items). Everything here is pure, bounded and fuzzed
// (fuzz/imap_protocol_fuzz.cpp): a hostile server can make no buffer grow past the limits below.
//
// Pure; any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace pincer::channels::email {

/// Longest response line outside literals, bytes (a longer one is a protocol error).
inline constexpr std::size_t kImapMaxLineBytes = 64 * 1024;
/// Largest literal, bytes (one e-mail of BODY[]; larger mail is refused as a protocol error).
inline constexpr std::size_t kImapMaxLiteralBytes = 64u << 20;
/// Most literals in one response.
inline constexpr std::size_t kImapMaxLiterals = 64;

/// One server response.
struct ImapResponse {
  enum class Kind { Untagged, Tagged, Continuation };
  Kind kind = Kind::Untagged;
  std::string tag;                 ///< Tagged: the command's tag ("A7"); else ""
  std::string status;              ///< "OK" | "NO" | "BAD" | "BYE" | "PREAUTH" (upper-cased), "" for data
  std::optional<uint32_t> number;  ///< "* 23 EXISTS" → 23
  std::string keyword;             ///< upper-cased: "EXISTS", "EXPUNGE", "FETCH", "SEARCH", "CAPABILITY", "OK" …
  std::string code;                ///< a status response's "[…]" code without brackets: "UIDVALIDITY 3857529045"
  /// The rest of the response after the keyword (and after the code for status responses), with
  /// each literal left as its "{n}" marker; a continuation's whole text.
  std::string text;
  std::vector<std::string> literals;  ///< the bytes of each literal, in order
};

/// Cuts a byte stream into responses. A line ends at LF (a CR before it is dropped); a line ending
/// in "{n}" is followed by n literal bytes and continues after them.
class ImapResponseParser {
 public:
  /// Takes received bytes; complete responses are then available from next(). Errors ("PROTOCOL",
  /// the parser is unusable afterwards): a line over kImapMaxLineBytes, a literal over
  /// kImapMaxLiteralBytes, more than kImapMaxLiterals literals in one response, a response that is
  /// not "*", "+" or a tag followed by a space.
  Status feed(std::string_view bytes);
  /// The oldest complete response not yet taken.
  std::optional<ImapResponse> next();
  /// Bytes held for an incomplete response.
  std::size_t buffered() const { return buffer_.size() - pos_ + pending_.size(); }

 private:
  Status complete();
  std::string buffer_;
  std::size_t pos_ = 0;
  std::string pending_;                      ///< the response's text so far (lines joined, literal markers kept)
  std::vector<std::string> pending_literals_;
  std::size_t literal_left_ = 0;             ///< bytes of the current literal still to read
  bool in_literal_ = false;
  bool broken_ = false;
  std::vector<ImapResponse> ready_;
  std::size_t ready_pos_ = 0;
};

/// Parses one complete response text (lines joined, literal markers kept). Errors "PROTOCOL".
Result<ImapResponse> parse_imap_response(std::string_view text, std::vector<std::string> literals);

/// A value of a parenthesised IMAP list: an atom / number / quoted string / literal (`is_list`
/// false, `text` decoded) or a list of values.
struct ImapValue {
  bool is_list = false;
  bool is_nil = false;  ///< the atom NIL
  std::string text;
  std::vector<ImapValue> items;
};

/// Reads a sequence of values from `text` (literal markers "{n}" take the next of `literals`).
/// Atoms keep "[…]" sections whole: "BODY[HEADER.FIELDS (A B)]" is one atom. Errors "PROTOCOL"
/// (unbalanced parentheses, unterminated quotes, a literal marker without its literal).
Result<std::vector<ImapValue>> parse_imap_values(std::string_view text, const std::vector<std::string>& literals);

/// The items of a "* n FETCH (…)" response by upper-cased name ("UID", "FLAGS", "BODY[]",
/// "RFC822.SIZE" …). Errors "PROTOCOL" when it is not a FETCH response or the list is malformed.
Result<std::map<std::string, ImapValue>> parse_fetch_items(const ImapResponse& response);

/// The numbers of a "* SEARCH 1 5 9" response (others ignored); empty when not a SEARCH.
std::vector<uint32_t> parse_search(const ImapResponse& response);

/// The capabilities of a "* CAPABILITY …" response or of a status response's "[CAPABILITY …]"
/// code, upper-cased; empty when it carries none.
std::vector<std::string> parse_capabilities(const ImapResponse& response);

/// A string as an IMAP quoted string ("…" with \ and " escaped); nullopt when it has CR, LF or NUL
/// (which a quoted string cannot carry).
std::optional<std::string> imap_quote(std::string_view s);

/// A UID set "4,7:9" of ascending `uids` (duplicates dropped); "" for none.
std::string imap_uid_set(std::vector<uint32_t> uids);

}  // namespace pincer::channels::email
