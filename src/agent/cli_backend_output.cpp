#include "agent/cli_backend_output.h"

namespace pincer::agent {

using nlohmann::json;

namespace detail_cli_backend_output {

std::string trim_end(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  return s;
}

std::string str_of(const json& o, const char* key) {
  if (!o.is_object()) return "";
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

// The text of a string, an array of blocks ({type:"text", text} or strings) or an object with
// "text" / "content".
std::string text_of(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    std::string out;
    for (const auto& b : v) {
      if (b.is_object() && b.contains("type") && b["type"] != "text") continue;  // tool_use, thinking …
      out += text_of(b);
    }
    return out;
  }
  if (v.is_object()) {
    if (v.contains("text")) return text_of(v["text"]);
    if (v.contains("content")) return text_of(v["content"]);
  }
  return "";
}

int64_t num(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<int64_t>() : 0;
}

void take_usage(const json& e, llm::Usage& u) {
  const json* src = nullptr;
  if (e.contains("usage") && e["usage"].is_object()) src = &e["usage"];
  if (!src) return;
  u.input = num(*src, "input_tokens");
  u.output = num(*src, "output_tokens");
  u.cache_read = num(*src, "cache_read_input_tokens") + num(*src, "cached_input_tokens");
  u.cache_write = num(*src, "cache_creation_input_tokens");
  u.total_tokens = u.input + u.output + u.cache_read + u.cache_write;
}

}  // namespace detail_cli_backend_output

CliOutputParser::CliOutputParser(CliOutput mode, std::vector<std::string> session_id_fields, DeltaSink sink)
    : mode_(mode), fields_(std::move(session_id_fields)), sink_(std::move(sink)) {}

void CliOutputParser::take_session(const json& e) {
  for (const auto& f : fields_) {
    if (auto it = e.find(f); it != e.end() && it->is_string() && !it->get<std::string>().empty()) {
      reply_.session_id = it->get<std::string>();
      return;
    }
  }
}

void CliOutputParser::append(const std::string& delta) {
  if (delta.empty()) return;
  current_ += delta;
  if (sink_) sink_(delta, current_);
}

void CliOutputParser::new_message(const std::string& text) {
  current_.clear();
  append(text);
}

void CliOutputParser::feed(std::string_view bytes) {
  buffer_.append(bytes);
  if (mode_ != CliOutput::Jsonl) return;
  for (std::size_t nl = buffer_.find('\n'); nl != std::string::npos; nl = buffer_.find('\n')) {
    const std::string one = buffer_.substr(0, nl);
    buffer_.erase(0, nl + 1);
    line(one);
  }
}

void CliOutputParser::line(std::string_view text) {
  json e = json::parse(text, nullptr, false);
  if (e.is_object()) event(e);  // other lines (logs, banners) are not the CLI's events
}

void CliOutputParser::event(const json& e) {
  namespace d = detail_cli_backend_output;
  take_session(e);
  const std::string type = d::str_of(e, "type");
  if (type == "stream_event" && e.contains("event") && e["event"].is_object()) {  // Claude, partial messages
    const json& ev = e["event"];
    const std::string kind = d::str_of(ev, "type");
    if (kind == "message_start") {
      current_.clear();
      partial_seen_ = false;
    } else if (kind == "content_block_delta" && ev.contains("delta") && d::str_of(ev["delta"], "type") == "text_delta") {
      partial_seen_ = true;
      append(d::str_of(ev["delta"], "text"));
    }
  } else if (type == "assistant" && e.contains("message")) {  // Claude: a whole message (or block of it)
    const json& m = e["message"];
    const std::string text = d::text_of(m.is_object() && m.contains("content") ? m["content"] : m);
    const std::string id = d::str_of(m, "id");
    if (partial_seen_) {
      partial_seen_ = false;  // its text came as deltas already
    } else if (!text.empty()) {
      if (!id.empty() && id == last_message_id_) append(text);
      else new_message(text);
    }
    if (!id.empty()) last_message_id_ = id;
  } else if (type == "result") {  // Claude: the end
    result_ = d::text_of(e.contains("result") ? e["result"] : json());
    d::take_usage(e, reply_.usage);
    if ((e.contains("is_error") && e["is_error"] == true) || d::str_of(e, "subtype").starts_with("error")) {
      reply_.error = !result_.empty() ? result_ : d::str_of(e, "subtype");
    }
  } else if (type == "item.completed" && e.contains("item") && e["item"].is_object()) {  // codex
    const std::string kind = d::str_of(e["item"], "type");
    if (kind == "agent_message" || kind == "assistant_message") new_message(d::text_of(e["item"]));
    else if (kind == "error") reply_.error = d::str_of(e["item"], "message");
  } else if (type == "turn.completed") {
    d::take_usage(e, reply_.usage);
  } else if (type == "turn.failed") {
    reply_.error = e.contains("error") ? d::text_of(e["error"]) + d::str_of(e["error"], "message") : "turn failed";
  } else if (type == "error") {
    reply_.error = d::str_of(e, "message");
    if (reply_.error->empty() && e.contains("error")) reply_.error = d::str_of(e["error"], "message");
  }
}

CliReply CliOutputParser::finish() {
  namespace d = detail_cli_backend_output;
  if (mode_ == CliOutput::Jsonl) {
    if (!buffer_.empty()) line(buffer_);
    buffer_.clear();
    reply_.text = !result_.empty() ? result_ : current_;
    return reply_;
  }
  if (mode_ == CliOutput::Text) {
    reply_.text = d::trim_end(buffer_);
    if (sink_ && !reply_.text.empty()) sink_(reply_.text, reply_.text);
    return reply_;
  }
  // json: the whole of stdout, else its last line that is an object, else the raw text.
  json doc = json::parse(buffer_, nullptr, false);
  if (!doc.is_object()) {
    doc = json();
    std::size_t end = buffer_.size();
    while (end > 0) {
      const std::size_t start = buffer_.rfind('\n', end - 1);
      const std::size_t from = start == std::string::npos ? 0 : start + 1;
      json candidate = json::parse(std::string_view(buffer_).substr(from, end - from), nullptr, false);
      if (candidate.is_object()) {
        doc = std::move(candidate);
        break;
      }
      if (start == std::string::npos) break;
      end = start;
    }
  }
  if (!doc.is_object()) {
    reply_.text = d::trim_end(buffer_);
  } else {
    take_session(doc);
    d::take_usage(doc, reply_.usage);
    if (doc.contains("result")) reply_.text = d::text_of(doc["result"]);
    else if (doc.contains("response")) reply_.text = d::text_of(doc["response"]);
    else if (doc.contains("message")) reply_.text = d::text_of(doc["message"]);
    else reply_.text = d::text_of(doc);
    if ((doc.contains("is_error") && doc["is_error"] == true) || d::str_of(doc, "subtype").starts_with("error")) {
      reply_.error = !reply_.text.empty() ? reply_.text : d::str_of(doc, "subtype");
    } else if (doc.contains("error") && !doc.contains("result") && !doc.contains("response")) {
      const json& err = doc["error"];
      reply_.error = err.is_string() ? err.get<std::string>() : d::str_of(err, "message");
    }
  }
  if (sink_ && !reply_.error && !reply_.text.empty()) sink_(reply_.text, reply_.text);
  return reply_;
}

}  // namespace pincer::agent
