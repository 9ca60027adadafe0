#include "skills/scanner.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <regex>
#include <sstream>

namespace pincer::skills {
namespace {

namespace fs = std::filesystem;
using std::regex;
constexpr auto kFlags = std::regex::ECMAScript | std::regex::icase | std::regex::optimize;

struct Rule {
  const char* name;
  regex pattern;
  /// A cheap filter: the rule runs only on lines holding one of these (lowercase, '|'-separated).
  std::vector<std::string> keywords;
};

std::vector<std::string> words(std::string_view list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    auto bar = list.find('|', start);
    out.emplace_back(list.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start));
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  return out;
}

// Fragments shared by the rules.
#define NET_TOOL "\\b(?:curl|wget|nc|ncat|netcat|socat)\\b"
#define SHELL "(?:sudo\\s+)?(?:ba|z|da|k|fi)?sh\\b|python[0-9.]*\\b|perl\\b|ruby\\b|node\\b"
#define SECRET_PATH                                                                                     \
  "(?:~|\\$HOME|\\$\\{HOME\\}|/root|/home/[^/\\s]+)/\\.(?:ssh|aws|gnupg|netrc|docker/config\\.json|kube/config)" \
  "|\\bid_(?:rsa|dsa|ecdsa|ed25519)\\b|\\.aws/credentials|(?:^|[\\s/'\"@])\\.env\\b"

const std::vector<Rule>& rules() {
  static const std::vector<Rule> table = {
      {"pipe-to-shell", regex(NET_TOOL "[^|\\n]*\\|\\s*(?:" SHELL ")", kFlags), words("curl|wget|nc|ncat|netcat|socat")},
      {"pipe-to-shell", regex("\\b(?:ba|z)?sh\\s+<\\(\\s*(?:curl|wget)\\b", kFlags), words("<(")},
      {"pipe-to-shell", regex("\\b(?:ba|z)?sh\\s+-c\\s+[\"']?\\$\\(\\s*(?:curl|wget)\\b", kFlags), words("$(")},
      {"pipe-to-shell", regex("\\beval\\s+[\"']?\\$\\(\\s*(?:curl|wget)\\b", kFlags), words("eval")},
      {"exfiltration", regex(NET_TOOL ".*(?:-d|--data(?:-binary|-raw|-urlencode)?|-F|--form|-T|--upload-file|--post-file)"
                             "[=\\s]+[\"']?[^\\s\"']*@?(?:" SECRET_PATH ")", kFlags), words("curl|wget|nc|ncat|netcat|socat")},
      {"exfiltration", regex(NET_TOOL ".*\\$\\(\\s*(?:env|printenv|set|cat\\s+[^)]*(?:" SECRET_PATH "))\\s*\\)", kFlags), words("$(")},
      {"exfiltration", regex("\\b(?:env|printenv|set)\\s*\\|\\s*(?:[^|]*\\|\\s*)?" NET_TOOL, kFlags), words("env|set")},
      {"exfiltration", regex("\\b(?:cat|base64|tar|gzip)\\b[^|]*(?:" SECRET_PATH ")[^|]*\\|\\s*(?:[^|]*\\|\\s*)?" NET_TOOL, kFlags), words("curl|wget|nc|ncat|netcat|socat")},
      {"credential-read", regex("\\b(?:cat|less|more|head|tail|base64|xxd|cp|scp|rsync|tar|zip|strings)\\b[^|;&#\\n]*"
                                "(?:" SECRET_PATH ")", kFlags), words(".ssh|.aws|.gnupg|.netrc|.docker|.kube|id_|.env")},
      {"credential-read", regex("\\bsecurity\\s+dump-keychain\\b|\\bsecret-tool\\s+search\\s+--all\\b", kFlags), words("security|secret-tool")},
      {"credential-read", regex("\\b(?:env|printenv|set|export\\s+-p)\\s*\\|\\s*grep\\b.*(?:token|key|secret|passw)", kFlags), words("grep")},
      {"obfuscated-payload", regex("\\b(?:base64\\s+(?:-d|--decode|-D)|xxd\\s+-r)\\b[^|]*\\|\\s*(?:" SHELL ")", kFlags), words("base64|xxd")},
      {"obfuscated-payload", regex("\\beval\\b.{0,80}\\b(?:base64\\s+(?:-d|--decode|-D)|xxd\\s+-r|b64decode|atob)\\b", kFlags), words("eval")},
      {"obfuscated-payload", regex("\\b(?:exec|eval)\\s*\\(\\s*(?:base64\\.b64decode|atob|Buffer\\.from|bytes\\.fromhex|"
                                   "codecs\\.decode|zlib\\.decompress)", kFlags), words("exec|eval")},
      {"obfuscated-payload", regex("(?:\\\\x[0-9a-f]{2}){8,}", kFlags), words("\\x")},
      {"prompt-injection", regex("\\b(?:ignore|disregard|forget|override)\\s+(?:all\\s+|any\\s+|the\\s+|your\\s+)*"
                                 "(?:previous|prior|above|earlier|preceding|system|original)\\s+"
                                 "(?:instructions|prompts?|rules|directions|messages)", kFlags), words("ignore|disregard|forget|override")},
      {"prompt-injection", regex("\\bforget\\s+(?:all\\s+)?your\\s+(?:instructions|rules|guidelines)", kFlags), words("forget")},
      {"prompt-injection", regex("\\byou\\s+are\\s+now\\s+(?:a\\s+|an\\s+|in\\s+)?(?:DAN\\b|unrestricted|jailbroken|uncensored|"
                                 "unfiltered|free\\s+(?:from|of)|no\\s+longer|developer\\s+mode|evil)", kFlags), words("you")},
      {"prompt-injection", regex("\\b(?:do\\s+not|don't|never)\\s+(?:tell|inform|mention\\s+(?:this\\s+)?to)\\s+the\\s+user\\b", kFlags), words("user")},
  };
  return table;
}

#undef NET_TOOL
#undef SHELL
#undef SECRET_PATH

const regex& comment_talk() {
  static const regex r("\\b(?:ignore|instruction|assistant|system\\s+prompt|secretly|do\\s+not\\s+tell|you\\s+must|"
                       "the\\s+model|AI\\b|LLM\\b|exfiltrat)",
                       kFlags);
  return r;
}

std::string excerpt_of(std::string_view line) {
  const auto b = line.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  auto e = line.find_last_not_of(" \t\r");
  std::string out(line.substr(b, e - b + 1));
  if (out.size() > 160) {
    std::size_t cut = 157;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
    out = out.substr(0, cut) + "...";
  }
  return out;
}

/// HTML comments that talk to the model: one finding at the comment's first line.
void scan_comments(std::string_view text, const std::string& file, std::vector<Finding>& out) {
  std::size_t pos = 0;
  while ((pos = text.find("<!--", pos)) != std::string_view::npos) {
    auto end = text.find("-->", pos + 4);
    const auto stop = end == std::string_view::npos ? text.size() : end;
    const std::string body(text.substr(pos + 4, stop - pos - 4));
    if (std::regex_search(body, comment_talk())) {
      const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(pos), '\n'));
      auto ls = text.rfind('\n', pos);
      ls = ls == std::string_view::npos ? 0 : ls + 1;
      auto le = text.find('\n', pos);
      out.push_back({file, line, "prompt-injection",
                     "hidden HTML comment: " + excerpt_of(text.substr(ls, le == std::string_view::npos ? le : le - ls))});
    }
    if (end == std::string_view::npos) break;
    pos = end + 3;
  }
}

/// std::regex recurses per character: lines beyond this are not matched (they are findings).
constexpr std::size_t kMaxRegexLine = 8 * 1024;

/// A run of 200+ base64 characters mixing upper case, lower case and digits (not a path or a word).
bool has_base64_blob(std::string_view line) {
  std::size_t run = 0;
  bool upper = false, lower = false, digit = false;
  for (char ch : line) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '+' || c == '/' || c == '=') {
      upper |= std::isupper(c) != 0;
      lower |= std::islower(c) != 0;
      digit |= std::isdigit(c) != 0;
      if (++run >= 200 && upper && lower && digit) return true;
    } else {
      run = 0;
      upper = lower = digit = false;
    }
  }
  return false;
}

bool looks_binary(std::string_view s) { return s.substr(0, 8192).find('\0') != std::string_view::npos; }

/// Binary files a skill may carry as assets (not run): images, fonts, documents, archives.
bool is_binary_asset(const fs::path& p) {
  static const char* const kAssets[] = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico", ".bmp", ".svgz", ".pdf",
                                        ".woff", ".woff2", ".ttf", ".otf", ".zip", ".gz", ".tgz", ".mp3", ".wav",
                                        ".m4a", ".mp4", ".webm"};
  std::string ext = p.extension().string();
  for (auto& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return std::find(std::begin(kAssets), std::end(kAssets), ext) != std::end(kAssets);
}

}  // namespace

std::string Finding::describe() const {
  return file + ":" + std::to_string(line) + ": " + rule + ": " + excerpt;
}

std::vector<Finding> scan_text(std::string_view text, const std::string& file) {
  std::vector<Finding> out;
  std::size_t pos = 0;
  int line_no = 0;
  while (pos <= text.size()) {
    auto nl = text.find('\n', pos);
    const auto line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    ++line_no;
    if (has_base64_blob(line)) {
      out.push_back({file, line_no, "obfuscated-payload", "a base64 blob of 200+ characters: " + excerpt_of(line)});
    } else if (line.size() <= kMaxRegexLine) {
      const std::string l(line);
      std::string lower = l;
      for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      for (const auto& rule : rules()) {
        const bool maybe = std::any_of(rule.keywords.begin(), rule.keywords.end(),
                                       [&](const std::string& k) { return lower.find(k) != std::string::npos; });
        if (maybe && std::regex_search(l, rule.pattern)) {
          out.push_back({file, line_no, rule.name, excerpt_of(line)});
          break;  // one finding per line
        }
      }
    } else {
      out.push_back({file, line_no, "obfuscated-payload", "a line of " + std::to_string(line.size()) + " bytes (too long to check)"});
    }
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  scan_comments(text, file, out);
  return out;
}

std::vector<Finding> scan_skill_dir(const fs::path& dir) {
  std::vector<Finding> out;
  std::error_code ec;
  int files = 0;
  // What the scan cannot read is a finding too ("unscanned"): otherwise a payload could hide past
  // the size cap, below the depth cap, or behind a NUL byte, and the skill would pass as clean.
  auto unscanned = [&](const fs::path& p, const std::string& why) { out.push_back({p.string(), 1, "unscanned", why}); };
  auto scan_file = [&](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return unscanned(p, "cannot be read");
    std::string data(kMaxScannedFileBytes, '\0');
    in.read(data.data(), static_cast<std::streamsize>(data.size()));
    data.resize(static_cast<std::size_t>(in.gcount()));
    if (looks_binary(data)) {
      if (!is_binary_asset(p)) unscanned(p, "binary content (a NUL byte) in a file that is not an image, font or archive");
      return;
    }
    if (in.peek() != std::char_traits<char>::eof()) {
      unscanned(p, "larger than the " + std::to_string(kMaxScannedFileBytes / 1024) + " KiB the scan reads");
    }
    auto found = scan_text(data, p.string());
    out.insert(out.end(), found.begin(), found.end());
  };
  scan_file(dir / "SKILL.md");
  ++files;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const auto name = it->path().filename().string();
    if (name == ".git" && it->is_directory(ec)) {  // version control data, not the skill's content
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_symlink(ec) || !it->is_regular_file(ec) || it->path() == dir / "SKILL.md") continue;
    if (it.depth() >= static_cast<int>(kMaxScannedDepth)) {
      unscanned(it->path(), "deeper than the " + std::to_string(kMaxScannedDepth) + " folder levels the scan reads");
      continue;
    }
    if (++files > static_cast<int>(kMaxScannedFiles)) {
      unscanned(dir, "more than the " + std::to_string(kMaxScannedFiles) + " files the scan reads");
      break;
    }
    scan_file(it->path());
  }
  return out;
}

}  // namespace pincer::skills
