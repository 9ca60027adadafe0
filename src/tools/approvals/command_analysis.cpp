#include "tools/approvals/command_analysis.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>

namespace pincer::tools::approvals {
namespace {

constexpr std::size_t kMaxBytes = 64 * 1024;
constexpr std::size_t kMaxCommands = 256;

struct Word {
  std::string text;
  bool quoted = false;      ///< contained quotes or a backslash
  bool starts_var = false;  ///< begins with an expansion ($X, ${X}, $(…))
  bool expands = false;     ///< has an expansion outside single quotes
};

struct Segment {
  std::vector<Word> words;
  bool piped = false;
  bool stdin_text = false;  ///< a heredoc or here-string feeds it
};

void add_risk(CommandAnalysis& a, const std::string& why) {
  if (std::find(a.risks.begin(), a.risks.end(), why) == a.risks.end()) a.risks.push_back(why);
}

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string basename_of(const std::string& s) {
  auto slash = s.rfind('/');
  return slash == std::string::npos ? s : s.substr(slash + 1);
}

const std::set<std::string>& shells() {
  static const std::set<std::string> s = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "ash", "busybox"};
  return s;
}

const std::set<std::string>& interpreters() {
  static const std::set<std::string> s = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "ash", "busybox",
                                          "python", "python2", "python3", "perl", "ruby", "node", "nodejs",
                                          "php", "lua", "tclsh", "osascript", "pwsh"};
  return s;
}

class Parser {
 public:
  Parser(std::string_view in, CommandAnalysis& out) : s_(in), a_(out) {}

  std::vector<Segment> run() {
    while (i_ < s_.size()) step();
    end_word();
    end_segment(false);
    return std::move(segments_);
  }

 private:
  char peek(std::size_t k = 0) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }

  void unbalanced(const char* what) {
    a_.parsed = false;
    add_risk(a_, std::string("the command has an unbalanced ") + what + " (it cannot be analysed)");
  }

  /// Skips a balanced (…) starting after the opening paren; returns its text.
  std::string skip_parens() {
    int depth = 1;
    std::string body;
    while (i_ < s_.size()) {
      char c = s_[i_++];
      if (c == '\\' && i_ < s_.size()) {
        body += c;
        body += s_[i_++];
        continue;
      }
      if (c == '\'') {
        auto close = s_.find('\'', i_);
        if (close == std::string_view::npos) return unbalanced("quote"), body;
        body += s_.substr(i_ - 1, close - i_ + 2);
        i_ = close + 1;
        continue;
      }
      if (c == '(') ++depth;
      if (c == ')' && --depth == 0) return body;
      body += c;
    }
    unbalanced("parenthesis");
    return body;
  }

  void start_word() {
    if (!have_) {
      have_ = true;
      w_ = Word{};
    }
  }

  /// `$` at i_ (already consumed): variables, substitutions, $'…'.
  void dollar(bool in_double) {
    start_word();
    const bool first = w_.text.empty() && !w_.quoted;
    char c = peek();
    if (c == '(') {
      ++i_;
      add_risk(a_, "it uses command substitution $(…), which hides what really runs");
      std::string body = skip_parens();
      w_.text += "$(" + body + ")";
      w_.expands = true;
      if (first) w_.starts_var = true;
      return;
    }
    if (c == '\'' && !in_double) {  // ANSI-C quoting
      ++i_;
      w_.quoted = true;
      std::string body;
      while (i_ < s_.size() && s_[i_] != '\'') {
        if (s_[i_] == '\\' && i_ + 1 < s_.size()) {
          add_risk(a_, "it uses $'…' escapes, which can spell a command without writing it");
          body += s_[i_++];
        }
        body += s_[i_++];
      }
      if (i_ >= s_.size()) return unbalanced("quote");
      ++i_;
      w_.text += body;
      return;
    }
    std::string name;
    if (c == '{') {
      ++i_;
      while (i_ < s_.size() && s_[i_] != '}') name += s_[i_++];
      if (i_ >= s_.size()) return unbalanced("brace");
      ++i_;
      w_.text += "${" + name + "}";
    } else if (name_char(c) || c == '@' || c == '*' || c == '#' || c == '?' || c == '$' || c == '!' || c == '-') {
      if (name_char(c)) {
        while (name_char(peek())) name += s_[i_++];
      } else {
        name = std::string(1, s_[i_++]);
      }
      w_.text += "$" + name;
    } else {
      w_.text += '$';
      return;
    }
    w_.expands = true;
    if (first) w_.starts_var = true;
    std::string bare = name.substr(0, name.find_first_of(":#%/^,[-+=?"));
    if (bare == "IFS") add_risk(a_, "it uses $IFS, a classic trick to hide spaces from a reader");
    if (name.find('!') == 0 || name.find("//") != std::string::npos || name.find(':') != std::string::npos) {
      add_risk(a_, "it uses a parameter expansion that rewrites text (${…}), which can hide a command");
    }
  }

  void step() {
    char c = s_[i_];
    if (c == '\'') {
      ++i_;
      start_word();
      w_.quoted = true;
      auto close = s_.find('\'', i_);
      if (close == std::string_view::npos) {
        i_ = s_.size();
        return unbalanced("quote");
      }
      w_.text += s_.substr(i_, close - i_);
      i_ = close + 1;
      return;
    }
    if (c == '"') {
      ++i_;
      start_word();
      w_.quoted = true;
      while (i_ < s_.size() && s_[i_] != '"') {
        char d = s_[i_];
        if (d == '\\' && i_ + 1 < s_.size()) {
          char n = s_[i_ + 1];
          if (n == '"' || n == '\\' || n == '$' || n == '`') {
            w_.text += n;
            i_ += 2;
          } else if (n == '\n') {
            i_ += 2;
          } else {
            w_.text += d;
            ++i_;
          }
          continue;
        }
        if (d == '$') {
          ++i_;
          dollar(true);
          continue;
        }
        if (d == '`') {
          ++i_;
          backtick();
          continue;
        }
        w_.text += d;
        ++i_;
      }
      if (i_ >= s_.size()) return unbalanced("quote");
      ++i_;
      return;
    }
    if (c == '\\') {
      start_word();
      w_.quoted = true;
      if (i_ + 1 < s_.size()) {
        if (s_[i_ + 1] != '\n') w_.text += s_[i_ + 1];
        i_ += 2;
      } else {
        ++i_;
      }
      return;
    }
    if (c == '$') {
      ++i_;
      return dollar(false);
    }
    if (c == '`') {
      ++i_;
      start_word();
      return backtick();
    }
    if (c == '#' && !have_) {
      while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      return;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i_;
      return end_word();
    }
    if (c == '\n' || c == ';') {
      ++i_;
      end_word();
      return end_segment(false);
    }
    if (c == '|') {
      ++i_;
      end_word();
      if (peek() == '|') {
        ++i_;
        return end_segment(false);
      }
      if (peek() == '&') ++i_;
      return end_segment(true);
    }
    if (c == '&') {
      ++i_;
      if (peek() == '>') return redirect();
      end_word();
      if (peek() == '&') ++i_;
      return end_segment(false);
    }
    if (c == '(' || c == ')') {
      ++i_;
      end_word();
      return end_segment(false);
    }
    if (c == '<' || c == '>') {
      if (peek(1) == '(') {
        i_ += 2;
        end_word();
        add_risk(a_, "it uses process substitution <(…), which hides what really runs");
        skip_parens();
        return;
      }
      // A word of digits right before the operator is a file descriptor ("2>").
      if (have_ && !w_.quoted && !w_.text.empty() &&
          std::all_of(w_.text.begin(), w_.text.end(), [](char d) { return std::isdigit(static_cast<unsigned char>(d)); })) {
        have_ = false;
      } else {
        end_word();
      }
      return redirect();
    }
    start_word();
    w_.text += c;
    ++i_;
  }

  void backtick() {
    add_risk(a_, "it uses backtick command substitution, which hides what really runs");
    auto close = s_.find('`', i_);
    if (close == std::string_view::npos) {
      i_ = s_.size();
      return unbalanced("backtick");
    }
    w_.text += "`" + std::string(s_.substr(i_, close - i_)) + "`";
    w_.expands = true;
    if (w_.text.size() == close - i_ + 2 && !w_.quoted) w_.starts_var = true;
    i_ = close + 1;
  }

  void redirect() {
    // Operator characters, then the target word (skipped).
    std::string op;
    while (i_ < s_.size() && (s_[i_] == '<' || s_[i_] == '>' || s_[i_] == '&' || s_[i_] == '|')) op += s_[i_++];
    if (op.rfind("<<", 0) == 0) seg_.stdin_text = true;
    if (op.size() >= 2 && op.back() == '&') {  // >&2
      while (std::isdigit(static_cast<unsigned char>(peek())) || peek() == '-') ++i_;
      return;
    }
    skip_target_ = true;
  }

  void end_word() {
    if (!have_) return;
    have_ = false;
    if (skip_target_) {
      skip_target_ = false;
      return;
    }
    seg_.words.push_back(std::move(w_));
  }

  void end_segment(bool next_piped) {
    end_word();
    skip_target_ = false;
    if (!seg_.words.empty() || seg_.stdin_text) segments_.push_back(std::move(seg_));
    seg_ = Segment{};
    seg_.piped = next_piped;
  }

  std::string_view s_;
  CommandAnalysis& a_;
  std::size_t i_ = 0;
  Word w_;
  bool have_ = false;
  bool skip_target_ = false;
  Segment seg_;
  std::vector<Segment> segments_;
};

bool is_assignment(const Word& w) {
  auto eq = w.text.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  return std::all_of(w.text.begin(), w.text.begin() + static_cast<std::ptrdiff_t>(eq), name_char) &&
         !std::isdigit(static_cast<unsigned char>(w.text[0]));
}

bool has_hex_escape(const std::string& s) {
  for (std::size_t i = 0; i + 1 < s.size(); ++i) {
    if (s[i] == '\\' && (s[i + 1] == 'x' || s[i + 1] == '0' || s[i + 1] == 'u')) return true;
  }
  return false;
}

void check_command(const Segment& seg, const std::vector<Word>& words, CommandAnalysis& a) {
  if (words.empty()) {
    return;
  }
  const Word& verb = words[0];
  const std::string base = basename_of(verb.text);
  if (verb.starts_var) add_risk(a, "the command name comes from a variable or substitution");
  else if (verb.quoted) add_risk(a, "the command name is quoted or escaped (\"" + verb.text + "\"), which hides it from patterns");
  if (base == "eval") add_risk(a, "it uses eval, which runs text built at run time");
  auto has_arg = [&](std::initializer_list<const char*> flags) {
    for (std::size_t i = 1; i < words.size(); ++i) {
      for (const char* f : flags) {
        if (words[i].text == f) return true;
      }
    }
    return false;
  };
  if (interpreters().contains(base)) {
    bool file_arg = false;
    for (std::size_t i = 1; i < words.size(); ++i) {
      if (words[i].text == "-") break;
      if (!words[i].text.empty() && words[i].text[0] != '-') {
        file_arg = true;
        break;
      }
    }
    const bool inline_code = has_arg({"-c", "-e", "-E", "--eval"});
    if ((seg.piped || seg.stdin_text) && !file_arg && !inline_code) {
      add_risk(a, "it pipes data into " + base + ", which runs it as code (like curl | sh)");
    }
    if (shells().contains(base) && has_arg({"-c"})) add_risk(a, "it runs a nested shell script (" + base + " -c)");
  }
  if (base == "base64" && has_arg({"-d", "--decode", "-D"})) add_risk(a, "it decodes base64, which can hide a command");
  if ((base == "xxd" && has_arg({"-r", "-revert"})) || (base == "openssl" && has_arg({"-d", "base64", "-base64"}))) {
    add_risk(a, "it decodes hex or base64, which can hide a command");
  }
  if (base == "printf" || base == "echo") {
    for (std::size_t i = 1; i < words.size(); ++i) {
      if (has_hex_escape(words[i].text) && (base == "printf" || has_arg({"-e"}))) {
        add_risk(a, "it prints hex or octal escapes, which can spell a hidden command");
      }
    }
  }
  if (base == "xargs" || base == "find" || base == "env" || base == "nohup" || base == "timeout" || base == "sudo" ||
      base == "nice" || base == "command" || base == "builtin" || base == "exec") {
    for (std::size_t i = 1; i < words.size(); ++i) {
      const std::string b = basename_of(words[i].text);
      if (b == "eval" || (shells().contains(b) && base == "xargs")) add_risk(a, "it hands input to " + b + " through " + base);
      if (words[i].starts_var) add_risk(a, "the command name comes from a variable or substitution");
    }
  }
}

}  // namespace

CommandAnalysis analyse_command(std::string_view command) {
  CommandAnalysis a;
  if (command.size() > kMaxBytes) {
    add_risk(a, "the command is too long to analyse (over 64 KiB)");
    command = command.substr(0, kMaxBytes);
  }
  if (command.find('\0') != std::string_view::npos) add_risk(a, "the command contains a NUL byte");
  Parser parser(command, a);
  std::vector<Segment> segments = parser.run();
  if (segments.size() > kMaxCommands) {
    add_risk(a, "the command has too many parts to analyse");
    segments.resize(kMaxCommands);
  }
  for (const Segment& seg : segments) {
    SimpleCommand sc;
    sc.piped_input = seg.piped;
    std::size_t i = 0;
    for (; i < seg.words.size() && is_assignment(seg.words[i]); ++i) {
      const std::string& w = seg.words[i].text;
      if (w.rfind("IFS=", 0) == 0) add_risk(a, "it sets IFS, a classic trick to hide spaces from a reader");
      if (w.rfind("PATH=", 0) == 0 || w.rfind("LD_PRELOAD=", 0) == 0 || w.rfind("BASH_ENV=", 0) == 0 ||
          w.rfind("ENV=", 0) == 0) {
        add_risk(a, "it changes " + w.substr(0, w.find('=')) + ", which changes what the command name runs");
      }
      sc.env.push_back(w);
    }
    std::vector<Word> words(seg.words.begin() + static_cast<std::ptrdiff_t>(i), seg.words.end());
    check_command(seg, words, a);
    for (const auto& w : words) {
      sc.argv.push_back(w.text);
      sc.expanded.push_back(w.expands);
      sc.text += (sc.text.empty() ? "" : " ") + w.text;
    }
    if (!sc.argv.empty() || !sc.env.empty()) a.commands.push_back(std::move(sc));
  }
  return a;
}

namespace {

bool glob(std::string_view p, std::string_view t) {
  std::size_t pi = 0, ti = 0, star = std::string_view::npos, mark = 0;
  while (ti < t.size()) {
    if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = ti;
    } else if (pi < p.size() && p[pi] == t[ti]) {
      ++pi;
      ++ti;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      ti = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

}  // namespace

bool pattern_matches(std::string_view pattern, const SimpleCommand& command) {
  if (pattern.empty() || command.argv.empty()) return false;
  if (pattern.find(' ') == std::string_view::npos && pattern.find('*') == std::string_view::npos) {
    return command.argv[0] == pattern || basename_of(command.argv[0]) == pattern;
  }
  return glob(pattern, command.text);
}

bool allowlisted(const CommandAnalysis& command, const std::vector<std::string>& patterns) {
  if (command.risky() || !command.parsed || command.commands.empty()) return false;
  for (const auto& c : command.commands) {
    if (c.argv.empty()) return false;  // a bare assignment changes the shell's state
    if (!std::any_of(patterns.begin(), patterns.end(), [&](const std::string& p) { return pattern_matches(p, c); })) {
      return false;
    }
  }
  return true;
}

namespace {

/// "shell", "python", "node", "perl", "ruby" or "" for an interpreter name or a script extension.
std::string kind_of_program(const std::string& name) {
  const std::string b = basename_of(name);
  if (shells().contains(b)) return "shell";
  if (b.rfind("python", 0) == 0) return "python";
  if (b == "node" || b == "nodejs") return "node";
  if (b == "perl") return "perl";
  if (b == "ruby") return "ruby";
  return "";
}

std::string kind_of_extension(const std::filesystem::path& p) {
  const std::string ext = p.extension().string();
  if (ext == ".sh" || ext == ".bash") return "shell";
  if (ext == ".py") return "python";
  if (ext == ".js" || ext == ".mjs" || ext == ".cjs") return "node";
  if (ext == ".pl") return "perl";
  if (ext == ".rb") return "ruby";
  return "";
}

/// The interpreter kind of a file's #! line ("" when none or unknown).
std::string kind_of_shebang(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return "";
  std::string line;
  char buf[256] = {};
  in.read(buf, sizeof buf - 1);
  line.assign(buf, static_cast<std::size_t>(in.gcount()));
  if (line.rfind("#!", 0) != 0) return "";
  line = line.substr(2, line.find('\n') == std::string::npos ? std::string::npos : line.find('\n') - 2);
  std::vector<std::string> parts;
  std::size_t pos = 0;
  while (pos < line.size()) {
    auto b = line.find_first_not_of(" \t\r", pos);
    if (b == std::string::npos) break;
    auto e = line.find_first_of(" \t\r", b);
    parts.push_back(line.substr(b, e == std::string::npos ? std::string::npos : e - b));
    pos = e == std::string::npos ? line.size() : e;
  }
  if (parts.empty()) return "";
  if (basename_of(parts[0]) == "env" && parts.size() > 1) return kind_of_program(parts[parts[1] == "-S" && parts.size() > 2 ? 2 : 1]);
  return kind_of_program(parts[0]);
}

}  // namespace

std::vector<std::string> preflight_script(const CommandAnalysis& command, const std::filesystem::path& workdir) {
  std::vector<std::string> out;
  auto note = [&](const std::string& s) {
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  };
  for (const auto& c : command.commands) {
    if (c.argv.empty()) continue;
    const std::string kind = kind_of_program(c.argv[0]);
    if (!kind.empty() && kind != "shell") {
      for (std::size_t i = 1; i + 1 < c.argv.size(); ++i) {
        const std::string& a = c.argv[i];
        if ((a == "-c" || a == "-e" || a == "-E" || a == "--eval") && c.expanded[i + 1]) {
          note("shell-variable injection: the shell expands $… inside the " + kind + " code given to " +
               basename_of(c.argv[0]) + " " + a + " before " + kind +
               " runs it; pass the value as an argument or an environment variable instead");
        }
      }
    }
    std::filesystem::path script;
    std::string interpreter_kind = kind;
    if (!kind.empty()) {
      for (std::size_t i = 1; i < c.argv.size(); ++i) {
        const std::string& a = c.argv[i];
        if (a == "-c" || a == "-e" || a == "--eval") break;  // inline code: no script file
        if (a == "-m") break;                                 // python -m module
        if (!a.empty() && a[0] != '-') {
          script = a;
          break;
        }
      }
    } else if (c.argv[0].rfind("./", 0) == 0 || c.argv[0].rfind('/', 0) == 0) {
      script = c.argv[0];
    }
    if (script.empty()) continue;
    const std::filesystem::path file = script.is_absolute() ? script : workdir / script;
    const std::string by_ext = kind_of_extension(script);
    std::error_code ec;
    const std::string by_shebang = std::filesystem::is_regular_file(file, ec) ? kind_of_shebang(file) : "";
    if (!interpreter_kind.empty()) {
      const std::string script_kind = by_shebang.empty() ? by_ext : by_shebang;
      if (!script_kind.empty() && script_kind != interpreter_kind) {
        note("wrong interpreter: " + basename_of(c.argv[0]) + " runs " + script.string() + ", which is a " + script_kind +
             " script");
      }
    } else if (!by_ext.empty() && !by_shebang.empty() && by_ext != by_shebang) {
      note("wrong interpreter: " + script.string() + " is named like a " + by_ext + " script but its #! line runs " +
           by_shebang);
    }
  }
  return out;
}

}  // namespace pincer::tools::approvals
