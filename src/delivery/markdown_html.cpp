#include "delivery/markdown_html.h"

#include <md4c.h>

#include <algorithm>
#include <vector>

#include "delivery/entities.h"
#include "delivery/md_walk.h"

namespace pincer::delivery {
namespace {

constexpr unsigned kHtmlParserFlags = MD_FLAG_TABLES | MD_FLAG_STRIKETHROUGH | MD_FLAG_PERMISSIVEURLAUTOLINKS |
                                      MD_FLAG_PERMISSIVEWWWAUTOLINKS | MD_FLAG_PERMISSIVEEMAILAUTOLINKS | MD_FLAG_NOHTML;

/// The href to emit, or "" when the link must stay plain text.
std::string html_safe_href(const std::string& href) {
  for (const char c : href) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7F) return {};
  }
  std::string lowered = href;
  for (char& c : lowered) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (lowered.starts_with("www.")) return "https://" + href;
  for (const std::string_view scheme : {"http://", "https://", "mailto:"}) {
    if (lowered.starts_with(scheme) && href.size() > scheme.size()) return href;
  }
  if (lowered.find('@') != std::string::npos && lowered.find(':') == std::string::npos &&
      lowered.find('/') == std::string::npos) {
    return "mailto:" + href;  // a bare e-mail autolink
  }
  return {};
}

class HtmlRenderer {
 public:
  std::string render(std::string_view markdown) {
    if (detail::md_walk(markdown, kHtmlParserFlags, *this) != 0) {
      out_.clear();
      append_text(markdown);  // md4c fails only on allocation failure
    }
    while (!out_.empty() && (out_.back() == '\n' || out_.back() == ' ' || out_.back() == '\t')) out_.pop_back();
    return std::move(out_);
  }

 private:
  template <class R>
  friend int detail::md_walk(std::string_view, unsigned, R&);

  void append_text(std::string_view text) {
    for (const char c : text) {
      const auto u = static_cast<unsigned char>(c);
      if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7F) continue;
      switch (c) {
        case '&': out_ += "&amp;"; break;
        case '<': out_ += "&lt;"; break;
        case '>': out_ += "&gt;"; break;
        case '"': out_ += "&quot;"; break;
        default: out_ += c; break;
      }
    }
  }
  void tag(std::string_view t) {
    if (image_depth_ == 0) out_ += t;
  }

  int enter_block(MD_BLOCKTYPE type, void* detail) {
    switch (type) {
      case MD_BLOCK_P:
        if (tight_.empty() || !tight_.back()) tag("<p>");
        break;
      case MD_BLOCK_H: tag("<h" + std::to_string(static_cast<const MD_BLOCK_H_DETAIL*>(detail)->level) + ">"); break;
      case MD_BLOCK_QUOTE: tag("<blockquote>\n"); break;
      case MD_BLOCK_UL:
        tight_.push_back((static_cast<const MD_BLOCK_UL_DETAIL*>(detail)->is_tight) != 0);
        tag("<ul>\n");
        break;
      case MD_BLOCK_OL: {
        const auto* ol = static_cast<const MD_BLOCK_OL_DETAIL*>(detail);
        tight_.push_back(ol->is_tight != 0);
        tag(ol->start == 1 ? std::string("<ol>\n") : "<ol start=\"" + std::to_string(ol->start) + "\">\n");
        break;
      }
      case MD_BLOCK_LI: tag("<li>"); break;
      case MD_BLOCK_HR: tag("<hr/>\n"); break;
      case MD_BLOCK_CODE: {
        const std::string lang = detail::md_attribute_text(static_cast<const MD_BLOCK_CODE_DETAIL*>(detail)->lang);
        const bool lang_ok = !lang.empty() && std::all_of(lang.begin(), lang.end(), [](char c) {
          return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
                 c == '+' || c == '.' || c == '#';
        });
        tag(lang_ok ? "<pre><code class=\"language-" + lang + "\">" : std::string("<pre><code>"));
        break;
      }
      case MD_BLOCK_TABLE: tag("<table>\n"); break;
      case MD_BLOCK_THEAD: tag("<thead>\n"); break;
      case MD_BLOCK_TBODY: tag("<tbody>\n"); break;
      case MD_BLOCK_TR: tag("<tr>"); break;
      case MD_BLOCK_TH: tag("<th>"); break;
      case MD_BLOCK_TD: tag("<td>"); break;
      default: break;
    }
    return 0;
  }

  int leave_block(MD_BLOCKTYPE type, void* detail) {
    close_open_spans();
    switch (type) {
      case MD_BLOCK_P:
        if (tight_.empty() || !tight_.back()) tag("</p>\n");
        break;
      case MD_BLOCK_H: tag("</h" + std::to_string(static_cast<const MD_BLOCK_H_DETAIL*>(detail)->level) + ">\n"); break;
      case MD_BLOCK_QUOTE: tag("</blockquote>\n"); break;
      case MD_BLOCK_UL:
        tight_.pop_back();
        tag("</ul>\n");
        break;
      case MD_BLOCK_OL:
        tight_.pop_back();
        tag("</ol>\n");
        break;
      case MD_BLOCK_LI: tag("</li>\n"); break;
      case MD_BLOCK_CODE: tag("</code></pre>\n"); break;
      case MD_BLOCK_TABLE: tag("</table>\n"); break;
      case MD_BLOCK_THEAD: tag("</thead>\n"); break;
      case MD_BLOCK_TBODY: tag("</tbody>\n"); break;
      case MD_BLOCK_TR: tag("</tr>\n"); break;
      case MD_BLOCK_TH: tag("</th>"); break;
      case MD_BLOCK_TD: tag("</td>"); break;
      default: break;
    }
    return 0;
  }

  int enter_span(MD_SPANTYPE type, void* detail) {
    spans_.open(type);
    switch (type) {
      case MD_SPAN_EM: tag("<em>"); break;
      case MD_SPAN_STRONG: tag("<strong>"); break;
      case MD_SPAN_DEL: tag("<del>"); break;
      case MD_SPAN_CODE: tag("<code>"); break;
      case MD_SPAN_A: {
        const std::string href = html_safe_href(detail::md_attribute_text(static_cast<const MD_SPAN_A_DETAIL*>(detail)->href));
        const bool tagged = !href.empty() && image_depth_ == 0;
        if (tagged) out_ += "<a href=\"" + escape_html(href) + "\">";
        links_.push_back(tagged);
        break;
      }
      case MD_SPAN_IMG: ++image_depth_; break;
      default: break;
    }
    return 0;
  }

  /// Balanced by the span stack (md_walk.h).
  int leave_span(MD_SPANTYPE type, void* /*detail*/) {
    spans_.close(type, [this](MD_SPANTYPE t) { close_span(t); });
    return 0;
  }

  void close_open_spans() {
    spans_.close_all([this](MD_SPANTYPE t) { close_span(t); });
  }

  void close_span(MD_SPANTYPE type) {
    switch (type) {
      case MD_SPAN_EM: tag("</em>"); break;
      case MD_SPAN_STRONG: tag("</strong>"); break;
      case MD_SPAN_DEL: tag("</del>"); break;
      case MD_SPAN_CODE: tag("</code>"); break;
      case MD_SPAN_A:
        if (links_.back()) out_ += "</a>";
        links_.pop_back();
        break;
      case MD_SPAN_IMG: --image_depth_; break;
      default: break;
    }
  }

  int text(MD_TEXTTYPE type, std::string_view s) {
    switch (type) {
      case MD_TEXT_NULLCHAR: out_ += "\xEF\xBF\xBD"; break;
      case MD_TEXT_BR: tag("<br/>\n"); break;
      case MD_TEXT_SOFTBR: out_ += '\n'; break;
      case MD_TEXT_ENTITY: {
        const auto decoded = detail::decode_entity(s);
        append_text(decoded ? std::string_view(*decoded) : s);
        break;
      }
      default: append_text(s); break;
    }
    return 0;
  }

  std::string out_;
  std::vector<bool> tight_;          ///< per open list: paragraphs inside are not wrapped in <p>
  std::vector<bool> links_;          ///< per open link: whether an <a> was emitted
  detail::SpanStack spans_;
  int image_depth_ = 0;
};

}  // namespace

std::string escape_html(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c; break;
    }
  }
  return out;
}

std::string markdown_to_matrix_html(std::string_view markdown) { return HtmlRenderer().render(markdown); }

}  // namespace pincer::delivery
