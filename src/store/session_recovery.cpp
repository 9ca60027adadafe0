#include "store/session_recovery.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "store/file_util.h"
#include "store/session_keys.h"
#include "store/transcript.h"

namespace pincer::store {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::size_t kHeadBytes = 64 * 1024;  // a header line is far shorter
constexpr std::size_t kTailBytes = 64 * 1024;

/// The object on `line`, or null when it is not one (never throws).
json parse_object(std::string_view line) {
  json value = json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
  return value.is_object() ? value : json();
}

struct FileEnds {
  std::string head;  ///< the first line (without "\n"), when it ends within kHeadBytes
  std::string tail;  ///< the last kTailBytes of the file
  int64_t mtime_ms = 0;
};

std::optional<FileEnds> read_ends(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return std::nullopt;
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  FileEnds out;
  out.mtime_ms = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1'000'000;
  const auto read_at = [&](off_t offset, std::size_t count) {
    std::string buf(count, '\0');
    std::size_t got = 0;
    while (got < count) {
      const ssize_t n = ::pread(fd, buf.data() + got, count - got, offset + static_cast<off_t>(got));
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    buf.resize(got);
    return buf;
  };
  const auto size = static_cast<std::size_t>(st.st_size);
  std::string head = read_at(0, std::min(size, kHeadBytes));
  const auto newline = head.find('\n');
  out.head = head.substr(0, newline);  // a file of one line without "\n": the header alone
  if (newline == std::string::npos && size > kHeadBytes) out.head.clear();
  const std::size_t tail_from = size > kTailBytes ? size - kTailBytes : 0;
  out.tail = read_at(static_cast<off_t>(tail_from), size - tail_from);
  return out;
}

/// The timestamp of the last complete line of `tail` that is an entry with one.
std::optional<int64_t> last_entry_ms(std::string_view tail) {
  std::size_t end = tail.size();
  while (end > 0) {
    const std::size_t start = tail.rfind('\n', end - 1);
    const std::size_t from = start == std::string_view::npos ? 0 : start + 1;
    if (start == std::string_view::npos && tail.size() >= kTailBytes) break;  // a cut line
    const json entry = parse_object(tail.substr(from, end - from));
    if (entry.is_object() && string_field(entry, "type") != "session") {
      if (auto ms = parse_iso_timestamp(string_field(entry, "timestamp"))) return ms;
    }
    if (start == std::string_view::npos) break;
    end = start;
  }
  return std::nullopt;
}

}  // namespace

std::string recovered_session_key(std::string_view agent_id, std::string_view session_id) {
  return canonical_store_key("agent:" + normalize_agent_id(agent_id) + ":recovered:" + std::string(session_id));
}

std::vector<FoundSession> sessions_from_transcripts(const fs::path& sessions_dir, std::string_view agent_id) {
  std::map<std::string, FoundSession, std::less<>> by_key;
  const std::string agent = normalize_agent_id(agent_id);
  std::error_code ec;
  for (const auto& item : fs::directory_iterator(sessions_dir, ec)) {
    const fs::path& file = item.path();
    const std::string name = file.filename().string();
    if (!name.ends_with(".jsonl") || name.size() <= 6) continue;  // archives end in their timestamp
    auto ends = read_ends(file);
    if (!ends) continue;
    const json header = parse_object(ends->head);
    if (!header.is_object() || string_field(header, "type") != "session") continue;
    FoundSession found;
    found.session_id = string_field(header, "id");
    if (!is_valid_session_id(found.session_id) || found.session_id + ".jsonl" != name) continue;
    found.file = file;
    found.started_at = parse_iso_timestamp(string_field(header, "timestamp")).value_or(0);
    found.updated_at = last_entry_ms(ends->tail).value_or(found.started_at ? found.started_at : ends->mtime_ms);
    const std::string named = string_field(header, "sessionKey");
    if (!named.empty() && !session_key_problem(named) && agent_id_from_session_key(canonical_store_key(named)) == agent) {
      found.key = canonical_store_key(named);
      found.key_known = true;
    } else {
      found.key = recovered_session_key(agent, found.session_id);
    }
    auto it = by_key.find(found.key);
    if (it == by_key.end()) {
      by_key.emplace(found.key, std::move(found));
    } else if (found.updated_at > it->second.updated_at) {
      it->second = std::move(found);
    }
  }
  std::vector<FoundSession> out;
  out.reserve(by_key.size());
  for (auto& [key, found] : by_key) out.push_back(std::move(found));
  std::stable_sort(out.begin(), out.end(), [](const FoundSession& a, const FoundSession& b) { return a.updated_at > b.updated_at; });
  return out;
}

Result<IndexRecovery> recover_index(SessionIndex& index, std::string_view agent_id, std::string damage) {
  IndexRecovery report;
  report.damage = std::move(damage);
  auto moved = index.quarantine();
  if (!moved) return moved.error();
  report.kept_at = std::move(*moved);
  auto found = sessions_from_transcripts(index.path().parent_path(), agent_id);
  // Oldest first: the file lists them in the order they were made.
  for (auto it = found.rbegin(); it != found.rend(); ++it) {
    OrderedJson fields = {{"sessionId", it->session_id}, {"updatedAt", it->updated_at}};
    if (it->started_at > 0) fields["sessionStartedAt"] = it->started_at;
    auto entry = SessionEntry::from_json(std::move(fields));
    if (!entry || !index.restore(it->key, std::move(*entry))) continue;
    ++report.recovered;
    if (!it->key_known) ++report.without_key;
  }
  if (auto saved = index.save(); !saved) return saved.error();
  return report;
}

std::optional<fs::path> damaged_index_copy(const fs::path& sessions_dir) {
  std::optional<fs::path> newest;
  std::error_code ec;
  for (const auto& item : fs::directory_iterator(sessions_dir, ec)) {
    const std::string name = item.path().filename().string();
    static constexpr std::string_view kPrefix = "sessions.json.corrupt.";
    if (!name.starts_with(kPrefix) || !is_archive_timestamp(std::string_view(name).substr(kPrefix.size()))) continue;
    if (!newest || name > newest->filename().string()) newest = item.path();  // timestamps sort as text
  }
  return newest;
}

}  // namespace pincer::store
