#include "delivery/slack_mrkdwn.h"

#include <md4c.h>

#include <vector>

#include "delivery/entities.h"
#include "delivery/md_walk.h"

namespace pincer::delivery {
namespace {

constexpr unsigned kSlackMrkdwnFlags = MD_FLAG_TABLES | MD_FLAG_STRIKETHROUGH | MD_FLAG_PERMISSIVEURLAUTOLINKS |
                                       MD_FLAG_PERMISSIVEWWWAUTOLINKS | MD_FLAG_PERMISSIVEEMAILAUTOLINKS | MD_FLAG_NOHTML;

/// The URL to link to, or "" when the link becomes plain text.
std::string slack_mrkdwn_href(std::string href) {
  for (const char c : href) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7F || c == '|' || c == '>' || c == '<') return {};
  }
  std::string lower = href;
  for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (lower.starts_with("www.")) return "http://" + href;
  for (const std::string_view scheme : {"http://", "https://", "mailto:"}) {
    // Schemes are case-insensitive (RFC 3986 §3.1); Slack's <url|text> wants one it knows, so the
    // canonical lower case is written ("HTTPS://x" links as "https://x").
    if (lower.starts_with(scheme) && href.size() > scheme.size()) return std::string(scheme) + href.substr(scheme.size());
  }
  if (lower.find('@') != std::string::npos && lower.find(':') == std::string::npos && lower.find('/') == std::string::npos) {
    return "mailto:" + href;
  }
  return {};
}

class SlackMrkdwnRenderer {
 public:
  std::string render(std::string_view markdown) {
    if (detail::md_walk(markdown, kSlackMrkdwnFlags, *this) != 0) return escape_slack_mrkdwn(markdown);
    std::string out = std::move(buffers_.front());
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ' || out.back() == '\t')) out.pop_back();
    return out;
  }

 private:
  template <class R>
  friend int detail::md_walk(std::string_view, unsigned, R&);

  struct List {
    bool ordered = false;
    unsigned next = 1;
  };
  struct Link {
    std::string href;
    std::size_t text_start = 0;
  };

  std::string& out() { return buffers_.back(); }
  void newline() {
    if (!out().empty() && out().back() != '\n') out() += '\n';
  }
  void end_block() {
    newline();
    if (lists_.empty()) out() += '\n';
  }
  void append(std::string_view text) {
    for (const char c : text) {
      const auto u = static_cast<unsigned char>(c);
      if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7F) continue;
      if (c == '&') out() += "&amp;";
      else if (c == '<') out() += "&lt;";
      else if (c == '>') out() += "&gt;";
      else out() += c;
    }
  }
  /// Emphasis markers only outside code and table cells (mrkdwn has no markup there).
  void mark(std::string_view m) {
    if (code_depth_ == 0 && cell_depth_ == 0 && image_depth_ == 0) out() += m;
  }

  int enter_block(MD_BLOCKTYPE type, void* detail) {
    switch (type) {
      case MD_BLOCK_QUOTE: buffers_.emplace_back(); break;
      case MD_BLOCK_UL:
      case MD_BLOCK_OL: {
        List l;
        l.ordered = type == MD_BLOCK_OL;
        if (l.ordered) l.next = static_cast<const MD_BLOCK_OL_DETAIL*>(detail)->start;
        newline();
        lists_.push_back(l);
        break;
      }
      case MD_BLOCK_LI: {
        newline();
        out() += std::string(2 * (lists_.size() - 1), ' ');
        List& l = lists_.back();
        out() += l.ordered ? std::to_string(l.next++) + ". " : "• ";
        break;
      }
      case MD_BLOCK_CODE: newline(); out() += "```\n"; ++code_depth_; break;
      case MD_BLOCK_TABLE: newline(); out() += "```\n"; ++code_depth_; break;
      case MD_BLOCK_TR: out() += "|"; break;
      case MD_BLOCK_TH:
      case MD_BLOCK_TD: out() += " "; ++cell_depth_; break;
      case MD_BLOCK_H: mark("*"); break;
      default: break;
    }
    return 0;
  }

  int leave_block(MD_BLOCKTYPE type, void* /*detail*/) {
    spans_.close_all([this](MD_SPANTYPE t) { close_span(t); });
    switch (type) {
      case MD_BLOCK_P: end_block(); break;
      case MD_BLOCK_H: mark("*"); end_block(); break;
      case MD_BLOCK_QUOTE: {
        std::string inner = std::move(buffers_.back());
        buffers_.pop_back();
        while (!inner.empty() && inner.back() == '\n') inner.pop_back();
        std::size_t start = 0;
        while (start <= inner.size()) {
          const auto end = inner.find('\n', start);
          const std::string_view line(inner.data() + start, (end == std::string::npos ? inner.size() : end) - start);
          out() += line.empty() ? ">" : "> ";
          out() += line;
          out() += '\n';
          if (end == std::string::npos) break;
          start = end + 1;
        }
        end_block();
        break;
      }
      case MD_BLOCK_UL:
      case MD_BLOCK_OL:
        lists_.pop_back();
        if (lists_.empty()) end_block();
        break;
      case MD_BLOCK_LI: newline(); break;
      case MD_BLOCK_CODE:
      case MD_BLOCK_TABLE:
        newline();
        out() += "```";
        --code_depth_;
        end_block();
        break;
      case MD_BLOCK_TR: out() += '\n'; break;
      case MD_BLOCK_TH:
      case MD_BLOCK_TD: out() += " |"; --cell_depth_; break;
      case MD_BLOCK_HR: newline(); out() += "───"; end_block(); break;
      default: break;
    }
    return 0;
  }

  int enter_span(MD_SPANTYPE type, void* detail) {
    spans_.open(type);
    switch (type) {
      case MD_SPAN_EM: mark("_"); break;
      case MD_SPAN_STRONG: mark("*"); break;
      case MD_SPAN_DEL: mark("~"); break;
      case MD_SPAN_CODE: if (cell_depth_ == 0 && code_depth_ == 0) out() += '`'; ++code_depth_; break;
      case MD_SPAN_A: {
        links_.push_back({slack_mrkdwn_href(detail::md_attribute_text(static_cast<const MD_SPAN_A_DETAIL*>(detail)->href)),
                          out().size()});
        break;
      }
      case MD_SPAN_IMG: ++image_depth_; break;
      default: break;
    }
    return 0;
  }

  /// Balanced by the span stack (md_walk.h): an unclosed span is closed at its block's end.
  int leave_span(MD_SPANTYPE type, void* /*detail*/) {
    spans_.close(type, [this](MD_SPANTYPE t) { close_span(t); });
    return 0;
  }

  void close_span(MD_SPANTYPE type) {
    switch (type) {
      case MD_SPAN_EM: mark("_"); break;
      case MD_SPAN_STRONG: mark("*"); break;
      case MD_SPAN_DEL: mark("~"); break;
      case MD_SPAN_CODE: --code_depth_; if (cell_depth_ == 0 && code_depth_ == 0) out() += '`'; break;
      case MD_SPAN_A: {
        Link l = std::move(links_.back());
        links_.pop_back();
        if (l.href.empty() || cell_depth_ > 0 || code_depth_ > 0) break;
        const std::string text = out().substr(l.text_start);
        out().resize(l.text_start);
        const std::string href = escape_slack_mrkdwn(l.href);
        // An autolink (its text is the URL, or the URL without the "http://" / "mailto:" added): <url>.
        const bool bare = text.empty() || text == href || href == "http://" + text || href == "mailto:" + text;
        out() += bare ? "<" + href + ">" : "<" + href + "|" + text + ">";
        break;
      }
      case MD_SPAN_IMG: --image_depth_; break;
      default: break;
    }
  }

  int text(MD_TEXTTYPE type, std::string_view t) {
    switch (type) {
      case MD_TEXT_NULLCHAR: out() += "\xEF\xBF\xBD"; break;
      case MD_TEXT_BR:
      case MD_TEXT_SOFTBR: out() += cell_depth_ > 0 ? " " : "\n"; break;
      case MD_TEXT_ENTITY: {
        const auto decoded = detail::decode_entity(t);
        append(decoded ? std::string_view(*decoded) : t);
        break;
      }
      default: append(t); break;
    }
    return 0;
  }

  std::vector<std::string> buffers_ = {std::string()};
  std::vector<List> lists_;
  std::vector<Link> links_;
  detail::SpanStack spans_;
  int code_depth_ = 0, cell_depth_ = 0, image_depth_ = 0;
};

}  // namespace

std::string escape_slack_mrkdwn(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else out += c;
  }
  return out;
}

std::string markdown_to_slack_mrkdwn(std::string_view markdown) { return SlackMrkdwnRenderer().render(markdown); }

}  // namespace pincer::delivery
