#include "delivery/markdown_render.h"

#include <md4c.h>

#include <algorithm>
#include <vector>

#include "delivery/entities.h"
#include "delivery/md_walk.h"
#include "delivery/text_units.h"

namespace pincer::delivery {
namespace {

enum class Dialect { TelegramHtml, Plain };

constexpr unsigned kParserFlags = MD_FLAG_TABLES | MD_FLAG_STRIKETHROUGH | MD_FLAG_PERMISSIVEURLAUTOLINKS |
                                  MD_FLAG_PERMISSIVEWWWAUTOLINKS | MD_FLAG_PERMISSIVEEMAILAUTOLINKS | MD_FLAG_NOHTML;

std::string lower_ascii(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

/// The href to emit, or "" when the link must become plain text (unsafe or relative scheme).
std::string safe_href(std::string href) {
  for (const char c : href) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7F) return {};  // not a URL a platform accepts
  }
  const std::string lowered = lower_ascii(href);
  if (lowered.starts_with("www.")) return "http://" + href;
  for (const std::string_view scheme : {"http://", "https://", "mailto:", "tg://"}) {
    if (lowered.starts_with(scheme) && href.size() > scheme.size()) return href;
  }
  if (lowered.find('@') != std::string::npos && lowered.find(':') == std::string::npos &&
      lowered.find('/') == std::string::npos) {
    return "mailto:" + href;  // a bare e-mail autolink
  }
  return {};
}

/// Drops C0 controls other than \t and \n (NUL was already replaced by md4c).
void append_clean(std::string& out, std::string_view text) {
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 && c != '\n' && c != '\t') continue;
    if (u == 0x7F) continue;
    out += c;
  }
}

class Renderer {
 public:
  explicit Renderer(Dialect dialect) : dialect_(dialect) { buffers_.emplace_back(); }

  std::string render(std::string_view markdown) {
    if (detail::md_walk(markdown, kParserFlags, *this) != 0) {
      // md4c fails only on allocation failure: fall back to the escaped source.
      std::string out;
      append_text(out, markdown);
      return out;
    }
    std::string out = std::move(buffers_.front());
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ' || out.back() == '\t')) out.pop_back();
    return out;
  }

 private:
  template <class R>
  friend int detail::md_walk(std::string_view, unsigned, R&);

  bool html() const { return dialect_ == Dialect::TelegramHtml; }
  std::string& out() { return buffers_.back(); }
  /// Markup is produced only outside table cells and image alt text.
  bool markup() const { return html() && cell_depth_ == 0 && image_depth_ == 0; }

  void append_text(std::string& out, std::string_view text) const {
    if (!html() || cell_depth_ > 0) {  // table cells are escaped when the table is laid out
      append_clean(out, text);
      return;
    }
    std::string clean;
    append_clean(clean, text);
    out += escape_telegram_html(clean);
  }

  void tag(std::string_view t) {
    if (markup()) out() += t;
  }

  void ensure_newline() {
    if (!out().empty() && out().back() != '\n') out() += '\n';
  }

  /// After a block: a blank line at top level, a line break inside a list.
  void end_block() {
    if (lists_.empty()) {
      ensure_newline();
      out() += '\n';
    } else {
      ensure_newline();
    }
  }

  void trim_trailing_newlines(std::string& s) const {
    while (!s.empty() && s.back() == '\n') s.pop_back();
  }

  int enter_block(MD_BLOCKTYPE type, void* detail) {
    switch (type) {
      case MD_BLOCK_QUOTE:
        if (html()) {
          tag("<blockquote>");
        } else {
          buffers_.emplace_back();
        }
        break;
      case MD_BLOCK_UL:
      case MD_BLOCK_OL: {
        if (!lists_.empty()) ensure_newline();
        List list;
        list.ordered = type == MD_BLOCK_OL;
        if (list.ordered) list.next = static_cast<const MD_BLOCK_OL_DETAIL*>(detail)->start;
        lists_.push_back(list);
        break;
      }
      case MD_BLOCK_LI: {
        List& list = lists_.back();
        out() += std::string(2 * (lists_.size() - 1), ' ');
        out() += list.ordered ? std::to_string(list.next++) + ". " : std::string("\xE2\x80\xA2 ");  // "• "
        break;
      }
      case MD_BLOCK_CODE: {
        if (html()) {
          const auto* code = static_cast<const MD_BLOCK_CODE_DETAIL*>(detail);
          std::string lang = detail::md_attribute_text(code->lang);
          const bool lang_ok = !lang.empty() && std::all_of(lang.begin(), lang.end(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                   c == '-' || c == '+' || c == '.' || c == '#';
          });
          tag(lang_ok ? "<pre><code class=\"language-" + lang + "\">" : std::string("<pre><code>"));
        }
        break;
      }
      case MD_BLOCK_TABLE:
        table_.clear();
        break;
      case MD_BLOCK_TR:
        table_.emplace_back();
        break;
      case MD_BLOCK_TH:
      case MD_BLOCK_TD:
        ++cell_depth_;
        buffers_.emplace_back();
        break;
      default: break;
    }
    return 0;
  }

  int leave_block(MD_BLOCKTYPE type, void* /*detail*/) {
    close_open_spans();
    switch (type) {
      case MD_BLOCK_P:
      case MD_BLOCK_H:
        end_block();
        break;
      case MD_BLOCK_QUOTE:
        if (html()) {
          trim_trailing_newlines(out());
          tag("</blockquote>");
        } else {
          std::string inner = std::move(buffers_.back());
          buffers_.pop_back();
          trim_trailing_newlines(inner);
          std::size_t pos = 0;
          while (pos <= inner.size()) {
            const std::size_t nl = inner.find('\n', pos);
            const std::size_t end = nl == std::string::npos ? inner.size() : nl;
            out() += end > pos ? "> " : ">";
            out().append(inner, pos, end - pos);
            out() += '\n';
            if (nl == std::string::npos) break;
            pos = nl + 1;
          }
        }
        end_block();
        break;
      case MD_BLOCK_UL:
      case MD_BLOCK_OL:
        lists_.pop_back();
        if (lists_.empty()) end_block();
        break;
      case MD_BLOCK_LI:
        ensure_newline();
        break;
      case MD_BLOCK_CODE:
        if (html()) {
          trim_trailing_newlines(out());
          tag("</code></pre>");
        }
        end_block();
        break;
      case MD_BLOCK_HR:
        out() += "\xE2\x94\x80\xE2\x94\x80\xE2\x94\x80";  // "───"
        end_block();
        break;
      case MD_BLOCK_TH:
      case MD_BLOCK_TD: {
        std::string cell = std::move(buffers_.back());
        buffers_.pop_back();
        --cell_depth_;
        if (!table_.empty()) table_.back().push_back(std::move(cell));
        break;
      }
      case MD_BLOCK_TABLE:
        layout_table();
        end_block();
        break;
      default: break;
    }
    return 0;
  }

  /// OpenClaw tableMode "code": "| a | b |" rows padded to the widest cell, a divider after the
  /// header, all in a monospace block.
  void layout_table() {
    std::size_t columns = 0;
    for (const auto& row : table_) columns = std::max(columns, row.size());
    std::vector<std::size_t> widths(columns, 3);
    for (const auto& row : table_) {
      for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], measure(row[c], LengthUnit::CodePoints));
    }
    std::string block;
    for (std::size_t r = 0; r < table_.size(); ++r) {
      block += '|';
      for (std::size_t c = 0; c < columns; ++c) {
        const std::string cell = c < table_[r].size() ? table_[r][c] : std::string();
        block += ' ';
        block += cell;
        block += std::string(widths[c] - measure(cell, LengthUnit::CodePoints), ' ');
        block += " |";
      }
      block += '\n';
      if (r == 0) {
        block += '|';
        for (std::size_t c = 0; c < columns; ++c) block += " " + std::string(widths[c], '-') + " |";
        block += '\n';
      }
    }
    trim_trailing_newlines(block);
    if (html()) {
      out() += "<pre><code>" + escape_telegram_html(block) + "</code></pre>";
    } else {
      out() += block;
    }
    table_.clear();
  }

  int enter_span(MD_SPANTYPE type, void* detail) {
    spans_.open(type);
    switch (type) {
      case MD_SPAN_EM: tag("<i>"); break;
      case MD_SPAN_STRONG: tag("<b>"); break;
      case MD_SPAN_DEL: tag("<s>"); break;
      case MD_SPAN_CODE: tag("<code>"); break;
      case MD_SPAN_A: {
        Link link;
        link.href = safe_href(detail::md_attribute_text(static_cast<const MD_SPAN_A_DETAIL*>(detail)->href));
        link.label_start = out().size();
        link.tagged = markup() && !link.href.empty();
        if (link.tagged) out() += "<a href=\"" + escape_telegram_html(link.href, true) + "\">";
        links_.push_back(std::move(link));
        break;
      }
      case MD_SPAN_IMG: ++image_depth_; break;
      default: break;
    }
    return 0;
  }

  /// Balanced by the span stack (md_walk.h): the HTML always balances.
  int leave_span(MD_SPANTYPE type, void* /*detail*/) {
    spans_.close(type, [this](MD_SPANTYPE t) { close_span(t); });
    return 0;
  }

  void close_open_spans() {
    spans_.close_all([this](MD_SPANTYPE t) { close_span(t); });
  }

  void close_span(MD_SPANTYPE type) {
    switch (type) {
      case MD_SPAN_EM: tag("</i>"); break;
      case MD_SPAN_STRONG: tag("</b>"); break;
      case MD_SPAN_DEL: tag("</s>"); break;
      case MD_SPAN_CODE: tag("</code>"); break;
      case MD_SPAN_A: {
        Link link = std::move(links_.back());
        links_.pop_back();
        if (link.tagged) {
          out() += "</a>";
        } else if (!html() && !link.href.empty() && image_depth_ == 0) {
          const std::string label = out().substr(link.label_start);
          std::string shown = link.href;
          if (shown.starts_with("mailto:") && label == shown.substr(7)) shown = label;
          if (label != shown && label != link.href) out() += " (" + link.href + ")";
        }
        break;
      }
      case MD_SPAN_IMG: --image_depth_; break;
      default: break;
    }
  }

  int text(MD_TEXTTYPE type, std::string_view s) {
    switch (type) {
      case MD_TEXT_NULLCHAR: out() += "\xEF\xBF\xBD"; break;
      case MD_TEXT_BR:
      case MD_TEXT_SOFTBR: out() += cell_depth_ > 0 ? " " : "\n"; break;
      case MD_TEXT_ENTITY: {
        const auto decoded = detail::decode_entity(s);
        append_text(out(), decoded ? std::string_view(*decoded) : s);
        break;
      }
      default: append_text(out(), s); break;
    }
    return 0;
  }

  struct List {
    bool ordered = false;
    unsigned next = 1;
  };
  struct Link {
    std::string href;  ///< "" = not a link we can emit
    std::size_t label_start = 0;
    bool tagged = false;
  };

  Dialect dialect_;
  std::vector<std::string> buffers_;  ///< output; nested for quotes (plain) and table cells
  std::vector<List> lists_;
  std::vector<Link> links_;
  detail::SpanStack spans_;
  std::vector<std::vector<std::string>> table_;
  int cell_depth_ = 0;
  int image_depth_ = 0;
};

}  // namespace

std::string escape_telegram_html(std::string_view text, bool attribute) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"':
        if (attribute) {
          out += "&quot;";
        } else {
          out += c;
        }
        break;
      default: out += c; break;
    }
  }
  return out;
}

std::string markdown_to_telegram_html(std::string_view markdown) { return Renderer(Dialect::TelegramHtml).render(markdown); }

std::string markdown_to_plain_text(std::string_view markdown) { return Renderer(Dialect::Plain).render(markdown); }

}  // namespace pincer::delivery
