// IRC wire format, pure (issue #5 §5 IRC): parsing one server line, building client lines,
// CTCP ACTION, splitting a reply into PRIVMSG lines that fit, and nick mentions.
// No I/O; thread-safe. The transport is net_irc_connection.cpp, the session logic irc_session.h.
//
// Sources: RFC 1459 §2.3 (message format, the 512-byte line including CR LF, RFC 1459
// casemapping), RFC 2812 §2.3.1 (grammar, nick characters), IRCv3 message-tags (the "@tags"
// prefix, its escapes and the 8191-byte tag budget), the CTCP draft (\x01ACTION …\x01).
//
// Strings are bytes (UTF-8 in practice; invalid UTF-8 is tolerated everywhere and never makes a
// function fail or crash: fuzz/irc_protocol_fuzz.cpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pincer::channels::irc {

/// RFC 1459 §2.3: a message is at most 512 bytes including the trailing CR LF.
inline constexpr std::size_t kMaxLineBytes = 512;
/// IRCv3 message-tags: servers may send up to 8191 bytes of tags ("@…" and its space) in front of
/// the 512-byte message. A longer inbound line is discarded unparsed.
inline constexpr std::size_t kMaxInboundLineBytes = 8191 + kMaxLineBytes;

/// A server relays our PRIVMSG as ":nick!user@host PRIVMSG target :text\r\n" and cuts it at 512
/// bytes, so the text must leave room for a prefix we cannot see. The budget below covers
/// ":" + nick (30, the longest NICKLEN of common servers) + "!" + user (10 = USERLEN, + 1 for the
/// "~" of an unverified ident) + "@" + host (63 = HOSTLEN of hybrid/ratbox/solanum; ngIRCd 63) +
/// " PRIVMSG " + " :" + "\r\n": 1+30+1+11+1+63 + 9 + 2 + 2 = 120 bytes, the target excluded.
inline constexpr std::size_t kRelayOverheadBytes = 120;
/// Targets longer than this are refused (RFC 1459 allows channel names up to 200 bytes).
inline constexpr std::size_t kMaxTargetBytes = 200;
/// The longest target the advertised per-line text budget assumes: RFC 2812 §1.3 CHANNELLEN 50.
inline constexpr std::size_t kTypicalTargetBytes = 50;

/// Bytes of text one PRIVMSG to `target` may carry so that the line, as relayed to other clients
/// with the prefix budget above, stays within 512 bytes: 512 - 120 - target size. 0 when the
/// target is empty or longer than kMaxTargetBytes (such a target is refused).
std::size_t privmsg_text_budget(std::string_view target);

/// Parsed ":nick!user@host" (or ":server.name": nick = the server name, user and host empty).
struct Prefix {
  std::string nick;
  std::string user;
  std::string host;
};
Prefix parse_prefix(std::string_view prefix);

/// One parsed line.
struct Message {
  std::vector<std::pair<std::string, std::string>> tags;  ///< IRCv3 tags, values unescaped
  std::string prefix;                                     ///< without ':' ("" = none)
  std::string command;                                    ///< upper-cased ("PRIVMSG", "001")
  std::vector<std::string> params;                        ///< the trailing one included, last
  bool has_trailing = false;                              ///< the last param came after " :"

  /// The value of tag `key`, or nullopt.
  std::optional<std::string> tag(std::string_view key) const;
  /// params[i], or "" when absent.
  const std::string& param(std::size_t i) const;
};

/// Parses one line as received (a trailing "\r\n", "\n" or "\r" is ignored). Tolerates repeated
/// spaces between parameters. nullopt for an empty line, a line without a command, a line with
/// NUL, CR or LF inside, or one longer than kMaxInboundLineBytes.
std::optional<Message> parse_line(std::string_view line);

/// Builds "COMMAND p1 p2 :last\r\n". The last parameter is sent as trailing when it is empty,
/// contains a space or starts with ':'; every other parameter must be non-empty, without spaces
/// and not start with ':'. nullopt when a parameter breaks that, when any byte is NUL, CR or LF
/// (a line can never smuggle a second command), when the command is not letters or 3 digits, or
/// when the result exceeds 512 bytes with CR LF.
std::optional<std::string> build_line(std::string_view command, const std::vector<std::string>& params);

/// A PRIVMSG body with CTCP framing interpreted.
struct CtcpText {
  enum class Kind { None, Action, Other };  ///< Other: VERSION, PING, DCC … (not for the agent)
  Kind kind = Kind::None;
  std::string text;  ///< the body without the \x01 framing and the "ACTION " word
};
/// "\x01ACTION waves\x01" → {Action, "waves"} (the closing \x01 is optional); a body that starts
/// with \x01 otherwise → {Other, "VERSION"…}; anything else → {None, text unchanged}.
CtcpText parse_ctcp(std::string_view body);

/// Outbound text made safe for IRC: CR, LF and CR LF become one LF (a line break between
/// PRIVMSG lines, never a raw CR or LF on the wire); tab becomes a space; NUL, \x01 (CTCP framing,
/// so a reply can never be a CTCP request) and every other C0 control, and DEL, are removed
/// (mIRC colour and bold codes included: replies are plain text).
std::string sanitize_outbound(std::string_view text);

/// Splits a reply into the texts of PRIVMSG lines to `target`: sanitized (above), one line per
/// line of text (blank lines dropped), each line cut so that it fits privmsg_text_budget(target),
/// preferably after the last space that leaves at least half the budget used, otherwise at the
/// last UTF-8 character boundary (a valid UTF-8 sequence is never split; an invalid byte counts
/// as one character). The space at a cut is dropped; no line is empty or only spaces. Empty
/// result when the target is refused (budget 0) or the text has nothing to send.
std::vector<std::string> split_privmsg(std::string_view text, std::string_view target);

/// How the server folds case (ISUPPORT CASEMAPPING, RFC 1459 §2.2): `rfc1459` (the default)
/// also folds []\~ to {}|^, `strict-rfc1459` folds []\ to {}|, `ascii` only A-Z.
enum class CaseMapping { Rfc1459, StrictRfc1459, Ascii };
/// nullopt for unknown names (e.g. rfc7613): the caller keeps the default.
std::optional<CaseMapping> parse_casemapping(std::string_view name);
std::string irc_lower(std::string_view s, CaseMapping mapping = CaseMapping::Rfc1459);
bool irc_equal(std::string_view a, std::string_view b, CaseMapping mapping = CaseMapping::Rfc1459);

/// RFC 2812 §2.3.1 nick characters: letters, digits and - [ ] \ ` _ ^ { | }.
bool is_nick_char(char c);

/// True when `text` addresses `nick`: "nick:" or "nick," (at the start of the text or anywhere
/// after a non-nick character) or "@nick" followed by a non-nick character or the end. Compared
/// under `mapping`. A bare "nick" in a sentence is not a mention. False for an empty nick.
bool mentions_nick(std::string_view text, std::string_view nick, CaseMapping mapping = CaseMapping::Rfc1459);

/// The text without a leading "nick:" / "nick," / "@nick" address and the spaces after it
/// ("pincer: /new" → "/new"); `text` unchanged when it does not start with one.
std::string strip_address(std::string_view text, std::string_view nick, CaseMapping mapping = CaseMapping::Rfc1459);

/// True when `target` names a channel: it starts with one of `chantypes` (ISUPPORT CHANTYPES,
/// default "#&").
bool is_channel_name(std::string_view target, std::string_view chantypes = "#&");

}  // namespace pincer::channels::irc
