#include "agent/run_journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>

#include <spdlog/spdlog.h>

#include "core/ids.h"
#include "core/json_dump.h"
#include "store/atomic_file.h"
#include "store/background_sync.h"
#include "store/file_util.h"

namespace pincer::agent {

using nlohmann::json;

namespace {

/// The lines that recreate `e` (accepted, started, resumed…, note) for a compacted file.
std::string entry_lines(const JournalEntry& e) {
  std::string out = store::dump_lenient(json{{"op", "accepted"}, {"id", e.id}, {"ts", e.accepted_ms}, {"source", e.source},
                                             {"key", e.dedupe_key}, {"request", e.request}}) + "\n";
  if (!e.run_id.empty()) out += store::dump_lenient(json{{"op", "started"}, {"id", e.id}, {"run", e.run_id}}) + "\n";
  for (int i = 0; i < e.resumes; ++i) out += store::dump_lenient(json{{"op", "resumed"}, {"id", e.id}}) + "\n";
  if (!e.notes.empty()) out += store::dump_lenient(json{{"op", "note"}, {"id", e.id}, {"data", e.notes}}) + "\n";
  return out;
}

}  // namespace

RunJournal::RunJournal(std::filesystem::path file) : file_(std::move(file)) {}

RunJournal::~RunJournal() {
  if (fd_ >= 0) ::close(fd_);
}

Result<std::vector<JournalEntry>> RunJournal::open() {
  entries_.clear();
  order_.clear();
  by_key_.clear();
  entry_bytes_.clear();
  finished_bytes_ = 0;
  auto text = store::read_file(file_, std::size_t{1} << 30);
  if (!text && text.error().code != "NOT_FOUND") {
    open_error_ = text.error().message;
    return text.error();
  }
  if (text) {
    std::size_t pos = 0, line_no = 0;
    while (pos < text->size()) {
      ++line_no;
      const auto end = text->find('\n', pos);
      if (end == std::string::npos) {  // a torn last line: that step never completed
        spdlog::warn("{}:{}: torn last line skipped", file_.string(), line_no);
        break;
      }
      const json line = json::parse(text->substr(pos, end - pos), nullptr, false);
      pos = end + 1;
      const std::string op = line.is_object() ? store::string_field(line, "op") : "";
      const std::string id = line.is_object() ? store::string_field(line, "id") : "";
      if (op.empty() || id.empty()) {
        spdlog::warn("{}:{}: not a journal record; skipped", file_.string(), line_no);
        continue;
      }
      if (op == "accepted") {
        JournalEntry e;
        e.id = id;
        e.source = store::string_field(line, "source");
        e.accepted_ms = line.value("ts", int64_t{0});
        e.dedupe_key = store::string_field(line, "key");
        if (const json* r = store::json_field(line, "request")) e.request = *r;
        if (!entries_.contains(id)) order_.push_back(id);
        entries_[id] = std::move(e);
        continue;
      }
      auto it = entries_.find(id);
      if (it == entries_.end()) continue;  // a step of an entry answered (or compacted) earlier
      if (op == "started") it->second.run_id = store::string_field(line, "run");
      else if (op == "resumed") ++it->second.resumes;
      else if (op == "note") {
        if (const json* d = store::json_field(line, "data"); d && d->is_object()) it->second.notes.update(*d);
      } else if (op == "answered") entries_.erase(it);
    }
  }
  std::vector<JournalEntry> out;
  std::deque<std::string> order;
  for (const auto& id : order_) {
    auto it = entries_.find(id);
    if (it == entries_.end()) continue;
    order.push_back(id);
    out.push_back(it->second);
    if (!it->second.dedupe_key.empty()) by_key_[it->second.dedupe_key] = id;
  }
  order_ = std::move(order);
  if (auto st = compact(); !st) {
    open_error_ = st.error().message;
    return st.error();
  }
  open_error_.clear();
  return out;
}

Status RunJournal::compact() {
  std::string data;
  entry_bytes_.clear();
  for (const auto& id : order_) {
    const std::string lines = entry_lines(entries_.at(id));
    entry_bytes_[id] = lines.size();
    data += lines;
  }
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  if (auto st = store::write_file_atomic(file_, data, 0600); !st) return st;
  fd_ = ::open(file_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd_ < 0) return store::io_error(file_, "cannot open");
  finished_bytes_ = 0;
  return Ok{};
}

Status RunJournal::append(const json& record, bool durable) {
  return append_line(store::string_field(record, "id"), store::dump_lenient(record), durable);
}

Status RunJournal::append_line(const std::string& id, std::string line, bool durable) {
  if (fd_ < 0) {
    return Error{"IO_ERROR", "the run journal " + file_.string() + " is not open" +
                                 (open_error_.empty() ? std::string() : ": " + open_error_)};
  }
  line += '\n';
  // One write of one line, then fdatasync: the step is on disk before the caller acknowledges.
  // A failed write is taken back so the file keeps ending in a complete line.
  const off_t before = ::lseek(fd_, 0, SEEK_END);
  // (No fdatasync where it does nothing: a state directory in memory, store::sync_needed.)
  if (!store::write_all(fd_, line) || (durable && store::sync_needed(file_) && ::fdatasync(fd_) != 0)) {
    const int err = errno;
    if (before >= 0 && ::ftruncate(fd_, before) != 0) {
      // A torn fragment stays; open() skips it (and the next line starts after it only if the
      // fragment ended in "\n"), so terminate it.
      (void)store::write_all(fd_, "\n");
    }
    return store::io_error(file_, "cannot append to", err);
  }
  if (entry_bytes_.contains(id)) entry_bytes_[id] += line.size();
  else entry_bytes_[id] = line.size();
  return Ok{};
}

Result<std::string> RunJournal::accept(const std::string& source, json request, const std::string& dedupe_key) {
  JournalEntry e;
  e.id = "j-" + ids::uuid_v4();
  e.source = source;
  e.accepted_ms = static_cast<int64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
  e.dedupe_key = dedupe_key;
  // The line a dump of {op, id, ts, source, key, request} writes (keys in its sorted order),
  // without a copy of the request in a record object.
  std::string line;
  json_dump::Writer w(line);
  w.begin_object().key("id").string(e.id).key("key").string(dedupe_key).key("op").string("accepted");
  w.key("request").value(request).key("source").string(source).key("ts").integer(e.accepted_ms).end_object();
  e.request = std::move(request);  // kept for a compaction (entry_lines); written above
  if (auto st = append_line(e.id, std::move(line)); !st) return st.error();
  if (!dedupe_key.empty()) by_key_[dedupe_key] = e.id;
  order_.push_back(e.id);
  std::string id = e.id;
  entries_[id] = std::move(e);
  return id;
}

namespace {

/// {"id":…,"op":…,<key>:…} as a dump of that object writes it (keys sorted; `key` sorts after
/// "op"): the steps of every turn, written without building a tree.
std::string step_line(const std::string& id, std::string_view op, std::string_view key, const std::string& value) {
  std::string line;
  json_dump::Writer w(line);
  w.begin_object().key("id").string(id).key("op").string(op).key(key).string(value).end_object();
  return line;
}

}  // namespace

Status RunJournal::started(const std::string& id, const std::string& run_id) {
  auto it = entries_.find(id);
  if (it == entries_.end()) return Ok{};
  if (auto st = append_line(id, step_line(id, "started", "run", run_id), /*durable=*/false); !st) return st;
  it->second.run_id = run_id;
  return Ok{};
}

Status RunJournal::resumed(const std::string& id) {
  auto it = entries_.find(id);
  if (it == entries_.end()) return Ok{};
  if (auto st = append(json{{"op", "resumed"}, {"id", id}}); !st) return st;
  ++it->second.resumes;
  return Ok{};
}

Status RunJournal::note(const std::string& id, const json& data) {
  auto it = entries_.find(id);
  if (it == entries_.end() || !data.is_object()) return Ok{};
  if (auto st = append(json{{"op", "note"}, {"id", id}, {"data", data}}); !st) return st;
  it->second.notes.update(data);
  return Ok{};
}

Status RunJournal::answered(const std::string& id, const std::string& outcome) {
  auto it = entries_.find(id);
  if (it == entries_.end()) return Ok{};
  // Made durable in the background, beside the turn's transcript (queued in finish()): the final
  // event does not wait for the disk (store/background_sync.h).
  if (auto st = append_line(id, step_line(id, "answered", "outcome", outcome), /*durable=*/false); !st) return st;
  if (store::sync_needed(file_)) store::sync_in_background(fd_, file_.string());
  if (!it->second.dedupe_key.empty()) by_key_.erase(it->second.dedupe_key);
  entries_.erase(it);
  finished_bytes_ += entry_bytes_[id];
  entry_bytes_.erase(id);
  std::erase(order_, id);
  if (finished_bytes_ > kJournalCompactBytes) {
    if (auto st = compact(); !st) spdlog::error("run journal: cannot compact {}: {}", file_.string(), st.error().message);
  }
  return Ok{};
}

const JournalEntry* RunJournal::find(const std::string& id) const {
  auto it = entries_.find(id);
  return it == entries_.end() ? nullptr : &it->second;
}

bool RunJournal::has_message(const std::string& dedupe_key) const {
  return !dedupe_key.empty() && by_key_.contains(dedupe_key);
}

}  // namespace pincer::agent
