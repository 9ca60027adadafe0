#include "channels/email/imap_protocol.h"

#include <algorithm>
#include <cctype>

namespace pincer::channels::email {

namespace detail_imap_protocol {

Error imap_protocol_error(const std::string& what) { return Error{"PROTOCOL", "IMAP: " + what}; }

std::string imap_upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

/// "{123}" (or "{123+}") at the end of `line`: the literal's length.
std::optional<std::size_t> imap_trailing_literal(std::string_view line) {
  if (line.size() < 3 || line.back() != '}') return std::nullopt;
  std::size_t open = line.rfind('{');
  if (open == std::string_view::npos) return std::nullopt;
  std::string_view digits = line.substr(open + 1, line.size() - open - 2);
  if (!digits.empty() && digits.back() == '+') digits.remove_suffix(1);
  if (digits.empty() || digits.size() > 12) return std::nullopt;
  std::size_t n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<std::size_t>(c - '0');
  }
  return n;
}

bool imap_is_number(std::string_view s) {
  return !s.empty() && s.size() <= 10 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<uint32_t> imap_number(std::string_view s) {
  if (!imap_is_number(s)) return std::nullopt;
  uint64_t n = 0;
  for (char c : s) n = n * 10 + static_cast<uint64_t>(c - '0');
  if (n > 0xffffffffULL) return std::nullopt;
  return static_cast<uint32_t>(n);
}

/// Splits off the first space-separated word of `rest`.
std::string_view imap_word(std::string_view& rest) {
  const std::size_t sp = rest.find(' ');
  std::string_view w = rest.substr(0, sp);
  rest = sp == std::string_view::npos ? std::string_view() : rest.substr(sp + 1);
  return w;
}

bool imap_is_status(const std::string& w) { return w == "OK" || w == "NO" || w == "BAD" || w == "BYE" || w == "PREAUTH"; }

struct ImapValueReader {
  std::string_view s;
  const std::vector<std::string>& literals;
  std::size_t pos = 0;
  std::size_t literal = 0;
  int depth = 0;

  void skip_spaces() {
    while (pos < s.size() && s[pos] == ' ') ++pos;
  }

  Result<ImapValue> value() {
    if (pos >= s.size()) return imap_protocol_error("a value is missing");
    const char c = s[pos];
    if (c == '(') {
      if (++depth > 32) return imap_protocol_error("lists nested too deeply");
      ++pos;
      ImapValue list;
      list.is_list = true;
      while (true) {
        skip_spaces();
        if (pos >= s.size()) return imap_protocol_error("a list is not closed");
        if (s[pos] == ')') {
          ++pos;
          break;
        }
        auto v = value();
        if (!v) return v.error();
        list.items.push_back(std::move(*v));
      }
      --depth;
      return list;
    }
    if (c == '"') {
      ImapValue v;
      ++pos;
      while (true) {
        if (pos >= s.size()) return imap_protocol_error("a quoted string is not closed");
        char ch = s[pos++];
        if (ch == '"') break;
        if (ch == '\\') {
          if (pos >= s.size()) return imap_protocol_error("a quoted string is not closed");
          ch = s[pos++];
        }
        v.text.push_back(ch);
      }
      return v;
    }
    if (c == '{') {
      const std::size_t close = s.find('}', pos);
      if (close == std::string_view::npos) return imap_protocol_error("a literal marker is not closed");
      if (literal >= literals.size()) return imap_protocol_error("a literal marker without its literal");
      ImapValue v;
      v.text = literals[literal++];
      pos = close + 1;
      return v;
    }
    if (c == ')') return imap_protocol_error("an unexpected ')'");
    // An atom; "[…]" sections (with spaces and parentheses inside) belong to it.
    ImapValue v;
    int brackets = 0;
    while (pos < s.size()) {
      const char ch = s[pos];
      if (brackets == 0 && (ch == ' ' || ch == '(' || ch == ')')) {
        if (ch == '(' && !v.text.empty()) return imap_protocol_error("'(' inside an atom");
        break;
      }
      if (ch == '[') ++brackets;
      if (ch == ']' && brackets > 0) --brackets;
      v.text.push_back(ch);
      ++pos;
    }
    if (v.text.empty()) return imap_protocol_error("an empty atom");
    v.is_nil = imap_upper(v.text) == "NIL";
    return v;
  }
};

}  // namespace detail_imap_protocol

using namespace detail_imap_protocol;

Status ImapResponseParser::feed(std::string_view bytes) {
  if (broken_) return imap_protocol_error("the connection's stream is broken");
  buffer_.append(bytes);
  while (true) {
    if (in_literal_) {
      const std::size_t have = std::min(literal_left_, buffer_.size() - pos_);
      pending_literals_.back().append(buffer_, pos_, have);
      pos_ += have;
      literal_left_ -= have;
      if (literal_left_ > 0) break;
      in_literal_ = false;
      continue;
    }
    const std::size_t lf = buffer_.find('\n', pos_);
    if (lf == std::string::npos) {
      if (buffer_.size() - pos_ + pending_.size() > kImapMaxLineBytes) {
        broken_ = true;
        return imap_protocol_error("a response line longer than " + std::to_string(kImapMaxLineBytes) + " bytes");
      }
      break;
    }
    std::string_view line(buffer_.data() + pos_, lf - pos_);
    pos_ = lf + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (pending_.size() + line.size() > kImapMaxLineBytes) {
      broken_ = true;
      return imap_protocol_error("a response longer than " + std::to_string(kImapMaxLineBytes) + " bytes");
    }
    pending_.append(line);
    if (auto n = imap_trailing_literal(line)) {
      if (*n > kImapMaxLiteralBytes) {
        broken_ = true;
        return imap_protocol_error("a literal of " + std::to_string(*n) + " bytes (at most " +
                                   std::to_string(kImapMaxLiteralBytes) + ")");
      }
      if (pending_literals_.size() >= kImapMaxLiterals) {
        broken_ = true;
        return imap_protocol_error("more than " + std::to_string(kImapMaxLiterals) + " literals in one response");
      }
      pending_literals_.emplace_back();
      pending_literals_.back().reserve(std::min<std::size_t>(*n, 1u << 20));
      literal_left_ = *n;
      in_literal_ = true;
      continue;
    }
    if (auto st = complete(); !st) {
      broken_ = true;
      return st;
    }
  }
  // Keep the buffer small: drop what was consumed.
  if (pos_ > 0 && (pos_ == buffer_.size() || pos_ > 4096)) {
    buffer_.erase(0, pos_);
    pos_ = 0;
  }
  return Ok{};
}

Status ImapResponseParser::complete() {
  auto r = parse_imap_response(pending_, std::move(pending_literals_));
  pending_.clear();
  pending_literals_.clear();
  if (!r) return r.error();
  ready_.push_back(std::move(*r));
  return Ok{};
}

std::optional<ImapResponse> ImapResponseParser::next() {
  if (ready_pos_ >= ready_.size()) {
    ready_.clear();
    ready_pos_ = 0;
    return std::nullopt;
  }
  return std::move(ready_[ready_pos_++]);
}

Result<ImapResponse> parse_imap_response(std::string_view text, std::vector<std::string> literals) {
  ImapResponse r;
  r.literals = std::move(literals);
  std::string_view rest = text;
  if (rest.empty()) return imap_protocol_error("an empty response line");
  if (rest[0] == '+') {
    r.kind = ImapResponse::Kind::Continuation;
    rest.remove_prefix(1);
    if (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
    r.text = std::string(rest);
    return r;
  }
  const std::string_view first = imap_word(rest);
  if (first == "*") {
    r.kind = ImapResponse::Kind::Untagged;
  } else {
    if (first.empty() || first.find_first_of("(){%*\"\\+") != std::string_view::npos) {
      return imap_protocol_error("a response starts with neither \"*\", \"+\" nor a tag");
    }
    r.kind = ImapResponse::Kind::Tagged;
    r.tag = std::string(first);
  }
  std::string_view word = imap_word(rest);
  if (r.kind == ImapResponse::Kind::Untagged && imap_is_number(word)) {
    r.number = imap_number(word);
    word = imap_word(rest);
  }
  r.keyword = imap_upper(word);
  if (r.keyword.empty()) return imap_protocol_error("a response without a keyword");
  if (imap_is_status(r.keyword) && !r.number) {
    r.status = r.keyword;
    if (!rest.empty() && rest[0] == '[') {
      const std::size_t close = rest.find(']');
      if (close != std::string_view::npos) {
        r.code = std::string(rest.substr(1, close - 1));
        rest.remove_prefix(close + 1);
        if (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
      }
    }
  }
  if (r.kind == ImapResponse::Kind::Tagged && r.status != "OK" && r.status != "NO" && r.status != "BAD") {
    return imap_protocol_error("a tagged response without OK, NO or BAD");
  }
  r.text = std::string(rest);
  return r;
}

Result<std::vector<ImapValue>> parse_imap_values(std::string_view text, const std::vector<std::string>& literals) {
  ImapValueReader reader{text, literals};
  std::vector<ImapValue> out;
  while (true) {
    reader.skip_spaces();
    if (reader.pos >= text.size()) break;
    auto v = reader.value();
    if (!v) return v.error();
    out.push_back(std::move(*v));
  }
  return out;
}

Result<std::map<std::string, ImapValue>> parse_fetch_items(const ImapResponse& response) {
  if (response.keyword != "FETCH" || !response.number) return imap_protocol_error("not a FETCH response");
  auto values = parse_imap_values(response.text, response.literals);
  if (!values) return values.error();
  if (values->size() != 1 || !(*values)[0].is_list) return imap_protocol_error("a FETCH response without its list");
  const auto& items = (*values)[0].items;
  if (items.size() % 2 != 0) return imap_protocol_error("a FETCH item without its value");
  std::map<std::string, ImapValue> out;
  for (std::size_t i = 0; i + 1 < items.size(); i += 2) {
    if (items[i].is_list) return imap_protocol_error("a FETCH item name that is a list");
    out[imap_upper(items[i].text)] = items[i + 1];
  }
  return out;
}

std::vector<uint32_t> parse_search(const ImapResponse& response) {
  std::vector<uint32_t> out;
  if (response.kind != ImapResponse::Kind::Untagged || response.keyword != "SEARCH") return out;
  std::string_view rest = response.text;
  while (!rest.empty()) {
    if (auto n = imap_number(imap_word(rest))) out.push_back(*n);
  }
  return out;
}

std::vector<std::string> parse_capabilities(const ImapResponse& response) {
  std::string_view rest;
  std::string code_upper;
  if (response.keyword == "CAPABILITY") {
    rest = response.text;
  } else {
    code_upper = imap_upper(response.code);
    if (code_upper.rfind("CAPABILITY ", 0) != 0) return {};
    rest = std::string_view(code_upper).substr(11);
  }
  std::vector<std::string> out;
  while (!rest.empty()) {
    const std::string w = imap_upper(imap_word(rest));
    if (!w.empty()) out.push_back(w);
  }
  return out;
}

std::optional<std::string> imap_quote(std::string_view s) {
  if (s.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos) return std::nullopt;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

std::string imap_uid_set(std::vector<uint32_t> uids) {
  std::sort(uids.begin(), uids.end());
  uids.erase(std::unique(uids.begin(), uids.end()), uids.end());
  std::string out;
  for (std::size_t i = 0; i < uids.size();) {
    std::size_t j = i;
    while (j + 1 < uids.size() && uids[j + 1] == uids[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(uids[i]);
    if (j > i) out += ":" + std::to_string(uids[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace pincer::channels::email
