#include "channels/outbox.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

#include "store/atomic_file.h"

namespace pincer::channels {

using nlohmann::json;

namespace {

json entry_json(const OutboxEntry& e) {
  json j = {{"op", "queue"}, {"id", e.id}, {"channel", e.channel}, {"account", e.account_id},
            {"chat", e.chat_id}, {"thread", e.thread_id}, {"chunks", e.chunks}};
  if (!e.edit_message_id.empty()) j["edit"] = e.edit_message_id;
  for (const auto& m : e.media) j["media"].push_back({{"root", m.root}, {"path", m.relative}, {"name", m.file_name}});
  return j;
}

}  // namespace

Result<std::vector<OutboxEntry>> Outbox::load() {
  pending_.clear();
  auto text = store::read_file(file_);
  if (text) {
    std::size_t pos = 0;
    while (pos < text->size()) {
      auto end = text->find('\n', pos);
      if (end == std::string::npos) break;  // a torn last line: the write never completed
      json line = json::parse(text->substr(pos, end - pos), nullptr, false);
      pos = end + 1;
      if (!line.is_object()) continue;
      const std::string op = line.value("op", ""), id = line.value("id", "");
      if (op == "queue") {
        OutboxEntry e;
        e.id = id;
        e.channel = line.value("channel", "");
        e.account_id = line.value("account", "");
        e.chat_id = line.value("chat", "");
        e.thread_id = line.value("thread", "");
        e.edit_message_id = line.value("edit", "");
        for (const auto& c : line.value("chunks", json::array())) {
          if (c.is_string()) e.chunks.push_back(c.get<std::string>());
        }
        for (const auto& m : line.value("media", json::array())) {
          if (m.is_object()) e.media.push_back({m.value("root", ""), m.value("path", ""), m.value("name", "")});
        }
        pending_[id] = std::move(e);
      } else if (op == "sent" && pending_.count(id)) {
        pending_[id].next = std::max(pending_[id].next, line.value("index", std::size_t{0}) + 1);
      } else if (op == "done") {
        pending_.erase(id);
      }
    }
  }
  std::string compact;
  std::vector<OutboxEntry> out;
  for (const auto& [id, e] : pending_) {
    compact += entry_json(e).dump() + "\n";
    for (std::size_t i = 0; i < e.next; ++i) compact += json{{"op", "sent"}, {"id", id}, {"index", i}}.dump() + "\n";
    out.push_back(e);
  }
  std::error_code ec;
  std::filesystem::create_directories(file_.parent_path(), ec);
  if (auto st = store::write_file_atomic(file_, compact, 0600); !st) return st.error();
  return out;
}

Status Outbox::append(const std::string& line) {
  std::error_code ec;
  std::filesystem::create_directories(file_.parent_path(), ec);
  const int fd = ::open(file_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return Error{"IO_ERROR", "cannot open " + file_.string() + ": " + std::strerror(errno)};
  const std::string data = line + "\n";
  const ssize_t n = ::write(fd, data.data(), data.size());  // one O_APPEND write: never interleaved
  ::close(fd);
  if (n != static_cast<ssize_t>(data.size())) return Error{"IO_ERROR", "cannot append to " + file_.string()};
  return Ok{};
}

Status Outbox::queue(const OutboxEntry& entry) {
  if (auto st = append(entry_json(entry).dump()); !st) return st;
  pending_[entry.id] = entry;
  return Ok{};
}

Status Outbox::mark_sent(const std::string& id, std::size_t index) {
  if (auto it = pending_.find(id); it != pending_.end()) it->second.next = std::max(it->second.next, index + 1);
  return append(json{{"op", "sent"}, {"id", id}, {"index", index}}.dump());
}

Status Outbox::mark_done(const std::string& id) {
  pending_.erase(id);
  return append(json{{"op", "done"}, {"id", id}}.dump());
}

}  // namespace pincer::channels
