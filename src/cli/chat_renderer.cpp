#include "cli/chat_renderer.h"

#include <algorithm>
#include <cctype>

namespace pincer::cli {

using nlohmann::json;

std::string terminal_safe(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n' || c == '\t') {
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      continue;  // ESC, BEL, CR, backspace …
    } else if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
      ++i;  // C1 control (e.g. U+009B CSI)
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string tool_call_line(const std::string& name, const json& args, std::size_t max_chars) {
  std::string summary;
  if (args.is_object() && args.size() == 1 && args.begin()->is_string()) {
    summary = args.begin()->get<std::string>();  // the common case: {"command": "ls -la"}
  } else if (!args.is_null() && !(args.is_object() && args.empty())) {
    summary = args.dump();
  }
  std::replace(summary.begin(), summary.end(), '\n', ' ');
  if (summary.size() > max_chars) {
    std::size_t cut = max_chars;
    while (cut > 0 && (static_cast<unsigned char>(summary[cut]) & 0xc0) == 0x80) --cut;  // UTF-8 boundary
    summary = summary.substr(0, cut) + "…";
  }
  return terminal_safe("⚙ " + name + (summary.empty() ? "" : " " + summary));
}

SlashCommand parse_slash(const std::string& line) {
  auto begin = line.find_first_not_of(" \t");
  if (begin == std::string::npos || line[begin] != '/') return {};
  auto name_end = line.find_first_of(" \t", begin);
  SlashCommand cmd;
  cmd.name = line.substr(begin + 1, name_end == std::string::npos ? std::string::npos : name_end - begin - 1);
  std::transform(cmd.name.begin(), cmd.name.end(), cmd.name.begin(), [](unsigned char c) { return std::tolower(c); });
  if (name_end != std::string::npos) {
    auto a = line.find_first_not_of(" \t", name_end);
    auto b = line.find_last_not_of(" \t");
    if (a != std::string::npos) cmd.arg = line.substr(a, b - a + 1);
  }
  if (cmd.name.empty()) return {};  // a lone "/" is text
  return cmd;
}

void ChatRenderer::begin_run(const std::string& run_id) {
  run_id_ = run_id;
  step_text_.clear();
  outcome_.clear();
  printed_ = false;
}

void ChatRenderer::print_text(const std::string& text) {
  if (text.empty()) return;
  printed_ = true;
  out_ << terminal_safe(text);
  at_line_start_ = text.back() == '\n';
  out_.flush();
}

void ChatRenderer::end_line() {
  if (!at_line_start_) out_ << "\n";
  at_line_start_ = true;
}

void ChatRenderer::hold() {
  if (!held_) held_.emplace();
}

bool ChatRenderer::release(bool show) {
  if (!held_) return false;
  auto events = std::move(*held_);
  held_.reset();
  bool ended = false;
  if (show) {
    for (const auto& [event, payload] : events) ended |= on_event(event, payload);
  }
  return ended;
}

bool ChatRenderer::on_event(const std::string& event, const json& payload) {
  if (held_) {
    held_->emplace_back(event, payload);
    return false;
  }
  if (run_id_.empty() || !payload.is_object() || payload.value("runId", "") != run_id_) return false;
  if (event == "agent") {
    const std::string stream = payload.value("stream", "");
    const json& data = payload.contains("data") ? payload["data"] : json::object();
    if (stream == "assistant") {
      const std::string delta = data.value("delta", "");
      const std::string text = data.value("text", "");  // the step's text so far
      if (text.size() > step_text_.size() + delta.size() && text.compare(0, step_text_.size(), step_text_) == 0) {
        // Joined mid-reply (pincer chat following a resumed run after a reconnect): what streamed
        // before this terminal followed it is printed too, not only the delta.
        print_text(text.substr(step_text_.size()));
        step_text_ = text;
      } else {
        step_text_ += delta;
        print_text(delta);
      }
    } else if (stream == "tool" && data.value("phase", "") == "start") {
      end_line();
      out_ << tool_call_line(data.value("name", "?"), data.contains("args") ? data["args"] : json()) << "\n";
      printed_ = true;
      step_text_.clear();
    } else if (stream == "tool" && data.value("phase", "") == "result" && data.value("isError", false)) {
      out_ << "  ✗ " << data.value("name", "?") << " failed\n";
    }
    return false;
  }
  if (event != "chat") return false;
  const std::string state = payload.value("state", "");
  if (state != "final" && state != "aborted" && state != "error") return false;
  // Print what the deltas did not (providers that answer without streaming, the catch-up text).
  std::string final_text;
  if (payload.contains("message") && payload["message"].is_object()) {
    for (const auto& block : payload["message"].value("content", json::array())) {
      if (block.value("type", "") == "text") final_text += block.value("text", "");
    }
  }
  if (final_text.size() > step_text_.size() && final_text.compare(0, step_text_.size(), step_text_) == 0) {
    print_text(final_text.substr(step_text_.size()));
  }
  end_line();
  if (state == "aborted") out_ << "[aborted]\n";
  if (state == "error") out_ << "[error] " << terminal_safe(payload.value("errorMessage", "the run failed")) << "\n";
  out_.flush();
  outcome_ = state;
  run_id_.clear();
  return true;
}

}  // namespace pincer::cli
