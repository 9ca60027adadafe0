// The `/new` archive's text and files (SPEC MM-9); see session_archive.h.
#include "memory/session_archive.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <system_error>

namespace pincer::memory {

namespace fs = std::filesystem;

namespace {

std::string one_line(std::string_view text, std::size_t max_chars) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  if (out.size() > max_chars) {
    std::size_t cut = max_chars;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
    out = out.substr(0, cut) + " …";
  }
  return out;
}

Status write_all(int fd, std::string_view data, const fs::path& path) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Error{"IO_ERROR", "cannot write " + path.string() + ": " + std::strerror(errno)};
    done += static_cast<std::size_t>(n);
  }
  return Ok{};
}

}  // namespace

std::string archive_slug(const std::vector<ArchiveTurn>& turns, std::string_view fallback) {
  static const std::set<std::string> kStop = {
      "a", "an", "the", "and", "or", "but", "to", "of", "in", "on", "at", "for", "with", "is", "are", "was",
      "be", "it", "this", "that", "i", "me", "my", "you", "your", "we", "can", "could", "would", "please",
      "hi", "hello", "hey", "do", "does", "what", "how", "about", "from", "so", "just", "let", "lets"};
  std::vector<std::string> words;
  for (const auto& t : turns) {
    if (t.role != "user") continue;
    std::string word;
    auto flush = [&] {
      if (word.size() >= 2 && !kStop.contains(word) && words.size() < 5) words.push_back(word);
      word.clear();
    };
    for (char c : t.text) {
      if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) word += c;
      else if (c >= 'A' && c <= 'Z') word += static_cast<char>(c - 'A' + 'a');
      else flush();
    }
    flush();
    if (!words.empty()) break;  // the first user message that has words
  }
  std::string slug;
  for (const auto& w : words) {
    if (slug.size() + w.size() + 1 > 40) break;
    slug += (slug.empty() ? "" : "-") + w;
  }
  return slug.empty() ? std::string(fallback) : slug;
}

std::string extractive_summary(const std::vector<ArchiveTurn>& turns) {
  const std::size_t first = turns.size() > kExtractiveTurns ? turns.size() - kExtractiveTurns : 0;
  std::string out;
  if (first > 0) out += "(" + std::to_string(first) + " earlier messages not shown)\n\n";
  for (std::size_t i = first; i < turns.size(); ++i) {
    const std::string text = one_line(turns[i].text, kExtractiveTurnChars);
    if (text.empty()) continue;
    out += std::string(turns[i].role == "user" ? "- **User**: " : "- **Assistant**: ") + text + "\n";
  }
  return out;
}

std::string render_archive(const ArchiveHeader& header, std::string_view summary, bool llm) {
  std::string out = "# Session: " + header.when + "\n\n";
  out += "- **Session Key**: " + header.session_key + "\n";
  out += "- **Session ID**: " + header.session_id + "\n";
  out += "- **Source**: " + header.reason + "\n\n";
  out += "## Summary\n\n";
  out += summary;
  if (!out.empty() && out.back() != '\n') out += '\n';
  out += llm ? "\n_(Summarised by the model when the session ended.)_\n"
             : "\n_(Extractive: the last messages as they were; the model did not summarise this session.)_\n";
  return out;
}

Result<fs::path> create_archive_file(const fs::path& workspace, std::string_view stamp, std::string_view slug,
                                     std::string_view content) {
  const fs::path dir = workspace / "memory";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Error{"IO_ERROR", "cannot create " + dir.string() + ": " + ec.message()};
  for (int n = 1; n < 1000; ++n) {
    const fs::path path =
        dir / (std::string(stamp) + "-" + std::string(slug) + (n > 1 ? "-" + std::to_string(n) : "") + ".md");
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) return Error{"IO_ERROR", "cannot create " + path.string() + ": " + std::strerror(errno)};
    auto st = write_all(fd, content, path);
    if (::close(fd) != 0 && st) st = Error{"IO_ERROR", "cannot close " + path.string() + ": " + std::strerror(errno)};
    if (!st) {
      fs::remove(path, ec);  // no half-written archive
      return st.error();
    }
    return path;
  }
  return Error{"IO_ERROR", "no free archive name for " + std::string(stamp) + "-" + std::string(slug) + " in " +
                               dir.string()};
}

Status replace_archive_file(const fs::path& path, std::string_view content) {
  const fs::path tmp = path.parent_path() / ("." + path.filename().string() + ".tmp");
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Error{"IO_ERROR", "cannot create " + tmp.string() + ": " + std::strerror(errno)};
  auto st = write_all(fd, content, tmp);
  if (st && ::fsync(fd) != 0) st = Error{"IO_ERROR", "cannot sync " + tmp.string() + ": " + std::strerror(errno)};
  ::close(fd);
  std::error_code ec;
  if (st && ::rename(tmp.c_str(), path.c_str()) != 0) {
    st = Error{"IO_ERROR", "cannot replace " + path.string() + ": " + std::strerror(errno)};
  }
  if (!st) fs::remove(tmp, ec);
  return st;
}

}  // namespace pincer::memory
