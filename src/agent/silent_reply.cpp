// Silent replies (CX-10): recognising NO_REPLY / HEARTBEAT_OK and filtering them out of what users
// see; see silent_reply.h.
#include "agent/silent_reply.h"

#include <cctype>
#include <memory>

#include <nlohmann/json.hpp>

namespace pincer::agent {

namespace {

constexpr std::string_view kSilentTokens[] = {kSilentReplyToken, kHeartbeatToken};

bool silent_ws(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
// Edge punctuation around a token ("**NO_REPLY**", "NO_REPLY."); '_' is part of the token.
bool silent_punct(char c) { return std::ispunct(static_cast<unsigned char>(c)) && c != '_'; }

std::string_view silent_trim(std::string_view s) {
  while (!s.empty() && silent_ws(s.front())) s.remove_prefix(1);
  while (!s.empty() && silent_ws(s.back())) s.remove_suffix(1);
  return s;
}

std::string_view silent_rtrim(std::string_view s) {
  while (!s.empty() && silent_ws(s.back())) s.remove_suffix(1);
  return s;
}

bool equals_upper(std::string_view s, std::string_view token) {
  if (s.size() != token.size()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(s[i])) != token[i]) return false;
  }
  return true;
}

bool is_any_token(std::string_view word) {
  for (auto token : kSilentTokens)
    if (equals_upper(word, token)) return true;
  return false;
}

// `word` may still grow into a token: a case-insensitive prefix of one (the empty word too: a
// tail of bare punctuation such as "**" may be the start of "**NO_REPLY**").
bool is_token_prefix(std::string_view word) {
  for (auto token : kSilentTokens)
    if (word.size() <= token.size() && equals_upper(word, token.substr(0, word.size()))) return true;
  return false;
}

// Only `token`, once or repeated, separated by whitespace, any case.
bool only_tokens(std::string_view s, std::string_view token) {
  s = silent_trim(s);
  if (s.empty()) return false;
  while (!s.empty()) {
    std::size_t end = 0;
    while (end < s.size() && !silent_ws(s[end])) ++end;
    if (!equals_upper(s.substr(0, end), token)) return false;
    s = silent_trim(s.substr(end));
  }
  return true;
}

// Where a trailing run of tokens begins: the byte offset of its first word (text.size() when
// there is none). Words are separated by whitespace; the last may carry trailing punctuation and
// the first leading punctuation ("Done. **NO_REPLY**"). `partial`: the last word may be a
// token's prefix (a reply still being written).
std::size_t silent_tail_start(std::string_view text, bool partial) {
  const std::string_view body = silent_rtrim(text);
  partial = partial && body.size() == text.size();  // a word followed by whitespace is complete
  std::size_t best = text.size();
  std::size_t end = body.size();
  bool last = true;
  while (end > 0) {
    std::size_t begin = end;
    while (begin > 0 && !silent_ws(body[begin - 1])) --begin;
    std::string_view word = body.substr(begin, end - begin);
    if (last) {
      while (!word.empty() && silent_punct(word.back())) word.remove_suffix(1);
    }
    std::string_view core = word;
    while (!core.empty() && silent_punct(core.front())) core.remove_prefix(1);
    const auto matches = [&](std::string_view w) {
      if (last && partial) return is_token_prefix(w);
      return !w.empty() && is_any_token(w);
    };
    if (matches(core)) best = begin;  // the tail may start here (leading punctuation allowed)
    if (core.size() != word.size() || !matches(word)) break;  // no word before it joins the tail
    last = false;
    end = begin;
    while (end > 0 && silent_ws(body[end - 1])) --end;
  }
  return best;
}

// After a leading line of tokens ("NO_REPLY\nThe answer …"): the offset of the text that follows,
// or 0 when `text` does not start so (OpenClaw's startsWithSilentToken, newline form).
std::size_t silent_lead_end(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && silent_ws(text[i])) ++i;
  std::size_t after = 0;
  while (i < text.size()) {
    std::size_t end = i;
    while (end < text.size() && !silent_ws(text[end])) ++end;
    if (!is_any_token(text.substr(i, end - i))) break;
    bool newline = false;
    i = end;
    for (; i < text.size() && silent_ws(text[i]); ++i) newline = newline || text[i] == '\n';
    if (newline && i < text.size()) after = i;  // a later token line moves it on
    if (!newline) break;
  }
  return after;
}

// The JSON envelope `{"action":"NO_REPLY"}` while it is being written (whitespace ignored).
bool is_envelope_prefix(std::string_view text) {
  static constexpr std::string_view kEnvelope = "{\"ACTION\":\"NO_REPLY\"}";
  std::size_t n = 0;
  for (char c : text) {
    if (silent_ws(c)) continue;
    if (n >= kEnvelope.size() || std::toupper(static_cast<unsigned char>(c)) != kEnvelope[n]) return false;
    ++n;
  }
  return n > 0;
}

}  // namespace

bool is_token_only_text(std::string_view text, std::string_view token) {
  if (only_tokens(text, token)) return true;
  std::string_view t = silent_trim(text);
  while (!t.empty() && silent_punct(t.front())) t.remove_prefix(1);
  while (!t.empty() && silent_punct(t.back())) t.remove_suffix(1);
  return only_tokens(t, token);
}

bool is_silent_reply(std::string_view text) {
  if (is_token_only_text(text, kSilentReplyToken)) return true;
  const std::string_view t = silent_trim(text);
  if (t.find(kSilentReplyToken) == std::string_view::npos) return false;
  const nlohmann::json parsed = nlohmann::json::parse(t, nullptr, false);
  if (parsed.is_string()) return silent_trim(parsed.get_ref<const std::string&>()) == kSilentReplyToken;
  if (parsed.is_object() && parsed.size() == 1 && parsed.contains("action") && parsed["action"].is_string()) {
    return silent_trim(parsed["action"].get_ref<const std::string&>()) == kSilentReplyToken;
  }
  return false;
}

std::string visible_reply_text(std::string_view text) {
  if (is_silent_reply(text) || is_token_only_text(text, kHeartbeatToken)) return "";
  std::string_view rest = text.substr(silent_lead_end(text));
  bool changed = rest.size() != text.size();
  if (const std::size_t tail = silent_tail_start(rest, false); tail < rest.size()) {
    rest = silent_rtrim(rest.substr(0, tail));
    changed = true;
  }
  if (!changed) return std::string(text);
  return std::string(silent_rtrim(rest));
}

std::string visible_stream_text(std::string_view text) {
  if (silent_trim(text).empty() || is_envelope_prefix(text)) return "";
  std::string_view rest = text.substr(silent_lead_end(text));
  return std::string(silent_rtrim(rest.substr(0, silent_tail_start(rest, true))));
}

RunEventSink without_silent_replies(RunEventSink sink) {
  struct StepState {
    std::string raw;    // the model step's text so far, as written
    std::string shown;  // the visible text the sink was given for it
  };
  auto step = std::make_shared<StepState>();
  return [sink = std::move(sink), step](const RunEvent& e) {
    using K = RunEvent::Kind;
    switch (e.kind) {
      case K::AssistantDelta: {
        step->raw = e.text;
        std::string visible = visible_stream_text(e.text);
        if (!visible.starts_with(step->shown)) step->shown.clear();  // the step's text started afresh
        if (visible.size() <= step->shown.size()) return;            // held back
        RunEvent out = e;
        out.delta = visible.substr(step->shown.size());
        out.text = std::move(visible);
        step->shown = out.text;
        return sink(out);
      }
      case K::ToolStart: {
        // The step ends in a tool call: what it held back is shown now, unless it was silent.
        const std::string visible = visible_reply_text(step->raw);
        if (visible.size() > step->shown.size() && visible.starts_with(step->shown)) {
          RunEvent out = e;
          out.kind = K::AssistantDelta;
          out.delta = visible.substr(step->shown.size());
          out.text = visible;
          out.tool_name.clear();
          out.tool_call_id.clear();
          out.tool_args = nlohmann::json();
          sink(out);
        }
        *step = StepState{};
        return sink(e);
      }
      case K::End:
      case K::Aborted: {
        RunEvent out = e;
        // A run cut off while it wrote a token ("NO_RE") shows nothing of it.
        out.text = e.kind == K::Aborted && visible_stream_text(e.text).empty() ? "" : visible_reply_text(e.text);
        *step = StepState{};
        return sink(out);
      }
      default: return sink(e);
    }
  };
}

}  // namespace pincer::agent
