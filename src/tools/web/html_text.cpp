// html_to_text (web_fetch_core.h): a single forward scan over the tags, no DOM. Good enough to
// give a model the readable part of a page; not a Readability clone.
#include <cctype>
#include <cstdint>
#include <set>
#include <string>

#include "tools/web/web_fetch_core.h"
#include "core/utf8.h"

namespace pincer::tools::web {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}


std::string decode_entities(std::string_view s) {
  static const std::pair<const char*, const char*> kNamed[] = {
      {"amp", "&"},  {"lt", "<"},     {"gt", ">"},      {"quot", "\""},   {"apos", "'"},    {"nbsp", " "},
      {"copy", "©"}, {"reg", "®"},    {"mdash", "—"},   {"ndash", "–"},   {"hellip", "…"},  {"rsquo", "’"},
      {"lsquo", "‘"}, {"rdquo", "”"}, {"ldquo", "“"},   {"middot", "·"},  {"bull", "•"},    {"euro", "€"},
      {"trade", "™"}, {"laquo", "«"}, {"raquo", "»"},   {"times", "×"}};
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    const size_t semi = s.find(';', i);
    if (semi == std::string_view::npos || semi - i > 10) {
      out += '&';
      continue;
    }
    const std::string_view name = s.substr(i + 1, semi - i - 1);
    bool done = false;
    if (!name.empty() && name[0] == '#') {
      uint32_t cp = 0;
      const bool hex = name.size() > 1 && (name[1] == 'x' || name[1] == 'X');
      bool ok = name.size() > (hex ? 2u : 1u);
      for (size_t k = hex ? 2 : 1; ok && k < name.size(); ++k) {
        const char c = name[k];
        if (hex && std::isxdigit(static_cast<unsigned char>(c))) {
          cp = cp * 16 + static_cast<uint32_t>(std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : (std::tolower(c) - 'a' + 10));
        } else if (!hex && std::isdigit(static_cast<unsigned char>(c))) {
          cp = cp * 10 + static_cast<uint32_t>(c - '0');
        } else {
          ok = false;
        }
        if (cp > 0x10FFFF) cp = 0x110000;
      }
      if (ok) {
        utf8::append(out, cp);
        done = true;
      }
    } else {
      for (const auto& [n, v] : kNamed) {
        if (name == n) {
          out += v;
          done = true;
          break;
        }
      }
    }
    if (done) i = semi;
    else out += '&';
  }
  return out;
}

/// The value of attribute `name` in a tag's inside text (`a href="x" class=y`), or "".
std::string attribute(std::string_view tag, std::string_view name) {
  const std::string low = lower(tag);
  size_t pos = 0;
  while ((pos = low.find(name, pos)) != std::string::npos) {
    const bool starts = pos > 0 && std::isspace(static_cast<unsigned char>(low[pos - 1]));
    size_t p = pos + name.size();
    while (p < low.size() && low[p] == ' ') ++p;
    if (!starts || p >= low.size() || low[p] != '=') {
      pos += name.size();
      continue;
    }
    ++p;
    while (p < low.size() && low[p] == ' ') ++p;
    if (p >= low.size()) return "";
    const char q = tag[p];
    if (q == '"' || q == '\'') {
      const size_t end = tag.find(q, p + 1);
      return std::string(tag.substr(p + 1, end == std::string_view::npos ? std::string_view::npos : end - p - 1));
    }
    const size_t end = tag.find_first_of(" \t\n>", p);
    return std::string(tag.substr(p, end == std::string_view::npos ? std::string_view::npos : end - p));
  }
  return "";
}

class Writer {
 public:
  void text(std::string_view t) {
    if (pre_ > 0) {
      out_ += t;
      return;
    }
    for (char c : t) {
      if (std::isspace(static_cast<unsigned char>(c))) {
        pending_space_ = true;
      } else {
        if (pending_space_ && !out_.empty() && out_.back() != '\n' && out_.back() != ' ') out_ += ' ';
        pending_space_ = false;
        out_ += c;
      }
    }
  }
  void raw(std::string_view t) {
    pending_space_ = false;
    out_ += t;
  }
  /// Inline markup that opens a run of text ("[" of a link): keeps the space before it.
  void inline_raw(std::string_view t) {
    if (pending_space_ && !out_.empty() && out_.back() != '\n' && out_.back() != ' ') out_ += ' ';
    raw(t);
  }
  void line_break(int lines = 1) {
    pending_space_ = false;
    while (!out_.empty() && out_.back() == ' ') out_.pop_back();
    if (out_.empty()) return;
    int have = 0;
    for (auto it = out_.rbegin(); it != out_.rend() && *it == '\n'; ++it) ++have;
    for (; have < lines; ++have) out_ += '\n';
  }
  void enter_pre() { ++pre_; }
  void leave_pre() { pre_ = pre_ > 0 ? pre_ - 1 : 0; }
  std::string finish() {
    while (!out_.empty() && (out_.back() == '\n' || out_.back() == ' ')) out_.pop_back();
    return std::move(out_);
  }

 private:
  std::string out_;
  bool pending_space_ = false;
  int pre_ = 0;
};

}  // namespace

ReadableText html_to_text(std::string_view html) {
  static const std::set<std::string> kSkip = {"script", "style", "noscript", "template", "svg", "head",
                                              "nav",    "footer", "iframe",  "canvas",   "form", "select"};
  static const std::set<std::string> kBlock = {"p",     "div",   "section", "article", "main",  "header", "aside",
                                               "table", "ul",    "ol",      "dl",      "blockquote", "figure",
                                               "figcaption", "address", "hr"};
  ReadableText r;
  Writer w;
  std::string skipping;  // the element whose content is dropped, "" when none
  std::string link_href;
  size_t i = 0;
  while (i < html.size()) {
    if (html[i] != '<') {
      const size_t next = html.find('<', i);
      const std::string_view chunk = html.substr(i, next == std::string_view::npos ? std::string_view::npos : next - i);
      if (skipping.empty()) w.text(decode_entities(chunk));
      i = next == std::string_view::npos ? html.size() : next;
      continue;
    }
    if (html.compare(i, 4, "<!--") == 0) {
      const size_t end = html.find("-->", i + 4);
      i = end == std::string_view::npos ? html.size() : end + 3;
      continue;
    }
    const size_t end = html.find('>', i);
    if (end == std::string_view::npos) break;
    std::string_view tag = html.substr(i + 1, end - i - 1);
    i = end + 1;
    const bool closing = !tag.empty() && tag[0] == '/';
    if (closing) tag.remove_prefix(1);
    size_t name_end = 0;
    while (name_end < tag.size() && (std::isalnum(static_cast<unsigned char>(tag[name_end])) || tag[name_end] == '-')) {
      ++name_end;
    }
    const std::string name = lower(tag.substr(0, name_end));
    if (name.empty()) continue;  // <!doctype>, <?xml?>
    if (name == "title" && !closing && r.title.empty()) {
      const size_t close = lower(html.substr(i, std::min<size_t>(html.size() - i, 4096))).find("</title");
      if (close != std::string::npos) {
        Writer t;
        t.text(decode_entities(html.substr(i, close)));
        r.title = t.finish();
      }
    }
    if (!skipping.empty()) {
      if (closing && name == skipping) skipping.clear();
      continue;
    }
    if (!closing && kSkip.count(name) && !(tag.size() > 0 && tag.back() == '/')) {
      skipping = name;
      continue;
    }
    if (name.size() == 2 && name[0] == 'h' && name[1] >= '1' && name[1] <= '6') {
      w.line_break(2);
      if (!closing) w.raw(std::string(static_cast<size_t>(name[1] - '0'), '#') + " ");
    } else if (name == "br") {
      w.line_break(1);
    } else if (name == "li") {
      w.line_break(1);
      if (!closing) w.raw("- ");
    } else if (name == "tr" || name == "dt" || name == "dd") {
      w.line_break(1);
    } else if (name == "td" || name == "th") {
      if (!closing) w.raw(" | ");
    } else if (name == "pre") {
      if (closing) {
        w.leave_pre();
        w.line_break(1);
        w.raw("```");
        w.line_break(2);
      } else {
        w.line_break(2);
        w.raw("```\n");
        w.enter_pre();
      }
    } else if (name == "a") {
      if (!closing) {
        link_href = attribute(tag, "href");
        if (!link_href.empty() && link_href.rfind("javascript:", 0) != 0 && link_href[0] != '#') w.inline_raw("[");
        else link_href.clear();
      } else if (!link_href.empty()) {
        w.raw("](" + decode_entities(link_href) + ")");
        link_href.clear();
      }
    } else if (name == "img" && !closing) {
      const std::string alt = attribute(tag, "alt");
      if (!alt.empty()) w.text("[image: " + decode_entities(alt) + "]");
    } else if (kBlock.count(name)) {
      w.line_break(2);
    }
  }
  r.text = w.finish();
  return r;
}

}  // namespace pincer::tools::web
