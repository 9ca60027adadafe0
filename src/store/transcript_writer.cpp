// TranscriptWriter (store/transcript.h): appending entries to a transcript, and taking a failed
// append back so the file stays valid JSONL.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "core/ids.h"
#include "core/json_dump.h"
#include "store/session_keys.h"
#include "store/file_util.h"
#include "store/transcript.h"

#include "store/background_sync.h"

namespace pincer::store {
namespace {

/// mkdir -p with mode 0700 for the directories it creates.
Status ensure_private_dir(const std::filesystem::path& dir) {
  std::filesystem::path current;
  for (const auto& part : dir) {
    current /= part;
    if (::mkdir(current.c_str(), 0700) != 0 && errno != EEXIST) return io_error(current, "cannot create directory");
  }
  return Ok{};
}


}  // namespace

// =============================================================================================
// Writing
// =============================================================================================

TranscriptWriter::TranscriptWriter(std::filesystem::path path, int fd, const Clock& clock, FsyncPolicy fsync)
    : path_(std::move(path)), fd_(fd), clock_(&clock), fsync_(fsync) {}

TranscriptWriter::TranscriptWriter(TranscriptWriter&& other) noexcept
    : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)), clock_(other.clock_),
      fsync_(other.fsync_), ids_(std::move(other.ids_)), leaf_(std::move(other.leaf_)),
      needs_newline_(other.needs_newline_), observer_(std::move(other.observer_)) {}

TranscriptWriter& TranscriptWriter::operator=(TranscriptWriter&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
    clock_ = other.clock_;
    fsync_ = other.fsync_;
    ids_ = std::move(other.ids_);
    leaf_ = std::move(other.leaf_);
    needs_newline_ = other.needs_newline_;
    observer_ = std::move(other.observer_);
  }
  return *this;
}

TranscriptWriter::~TranscriptWriter() {
  if (fd_ >= 0) ::close(fd_);
}

Result<TranscriptWriter> TranscriptWriter::create(const std::filesystem::path& file,
                                                  const TranscriptCreateOptions& options, const Clock& clock) {
  if (!is_valid_session_id(options.session_id)) {
    return Error{"SESSION_ID_INVALID", "invalid session id \"" + options.session_id + "\""};
  }
  const auto dir = file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
  if (auto made = ensure_private_dir(dir); !made) return made.error();

  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == EEXIST) return Error{"TRANSCRIPT_EXISTS", file.string() + ": transcript already exists"};
    return io_error(file, "cannot create");
  }
  ::fchmod(fd, 0600);  // exact mode whatever the umask
  TranscriptWriter writer(file, fd, clock, options.fsync);

  // Key order as pi writes it: type, version, id, timestamp, cwd, parentSession.
  std::string line = R"({"type":"session","version":)" + std::to_string(kTranscriptVersion) +
                     ",\"id\":" + dump_lenient(options.session_id) + ",\"timestamp\":" +
                     dump_lenient(iso_timestamp(clock.wall_ms())) + ",\"cwd\":" + dump_lenient(options.cwd);
  if (options.parent_session) line += ",\"parentSession\":" + dump_lenient(*options.parent_session);
  if (!options.session_key.empty()) line += ",\"sessionKey\":" + dump_lenient(options.session_key);
  line += "}";
  if (auto written = writer.write_line(line); !written) {
    ::unlink(file.c_str());
    return written.error();
  }
  fsync_dir(dir);
  return writer;
}

Result<TranscriptWriter> TranscriptWriter::open(const std::filesystem::path& file, const Clock& clock,
                                                FsyncPolicy fsync, std::vector<TranscriptWarning>* warnings) {
  auto contents = read_transcript(file);
  if (!contents) return contents.error();
  if (warnings) *warnings = contents->warnings;
  return open(file, *contents, clock, fsync);
}

Result<TranscriptWriter> TranscriptWriter::open(const std::filesystem::path& file, const TranscriptContents& contents,
                                                const Clock& clock, FsyncPolicy fsync) {
  if (contents.header.is_null()) {
    return Error{"TRANSCRIPT_INVALID", file.string() + ": no session header on line 1"};
  }
  if (contents.version < 2) {
    return Error{"TRANSCRIPT_VERSION", file.string() + ": version-1 transcript (entries without ids); archive it "
                                       "and start a new session to append"};
  }
  const int fd = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return io_error(file, "cannot open");
  TranscriptWriter writer(file, fd, clock, fsync);
  writer.ids_.reserve(contents.entries.size() + 16);  // one allocation for a turn's appends too
  for (const auto& entry : contents.entries) writer.ids_.push_back(entry.id);
  if (!contents.entries.empty()) writer.leaf_ = contents.entries.back().id;
  writer.needs_newline_ = contents.missing_final_newline;
  return writer;
}

Status TranscriptWriter::set_leaf(std::string_view entry_id) {
  if (!entry_id.empty() && !contains(entry_id)) {
    return Error{"ENTRY_NOT_FOUND", "no entry \"" + std::string(entry_id) + "\" in " + path_.string()};
  }
  leaf_ = std::string(entry_id);
  return Ok{};
}

std::string TranscriptWriter::new_entry_id() const {
  for (int i = 0; i < 100; ++i) {
    std::string id = ids::uuid_v4().substr(0, 8);
    if (!contains(id)) return id;
  }
  return ids::uuid_v4();  // as pi: practically unreachable
}

Status TranscriptWriter::write_line(const std::string& line, uint64_t* offset) {
  std::string data;
  data.reserve(line.size() + 2);
  if (needs_newline_) data += '\n';  // terminate a torn fragment left by a crash
  data += line;
  data += '\n';
  // O_APPEND writes at the end: remember where it is, so that a failed write (a full disk, EFBIG,
  // EIO) can be taken back and the file keeps ending in a complete line.
  struct stat before {};
  const bool sized = ::fstat(fd_, &before) == 0;
  const char* step = "cannot append to";
  bool ok = write_all(fd_, data);
  if (ok && fsync_ == FsyncPolicy::EveryAppend && ::fdatasync(fd_) != 0) {
    ok = false;  // not durable: not acknowledged either
    step = "cannot sync";
  }
  if (ok) {
    if (offset) *offset = sized ? static_cast<uint64_t>(before.st_size) : UINT64_MAX;
    needs_newline_ = false;
    return Ok{};
  }
  const int err = errno;
  if (!sized || ::ftruncate(fd_, before.st_size) != 0) {
    needs_newline_ = true;  // part of the line may be in the file: the next append terminates it
  }
  return io_error(path_, step, err);
}

Status TranscriptWriter::sync() {
  if (fd_ < 0) return Ok{};
  if (::fdatasync(fd_) != 0) return io_error(path_, "cannot sync");
  return Ok{};
}

void TranscriptWriter::sync_in_background() const {
  if (store::sync_needed(path_)) store::sync_in_background(fd_, path_.string());
}

Result<std::string> TranscriptWriter::append(std::string_view type, Json fields) {
  const std::string id = new_entry_id();
  const std::string parent = leaf_;
  const std::string timestamp = iso_timestamp(clock_->wall_ms());
  std::string line = "{\"type\":" + dump_lenient(std::string(type)) + ",\"id\":" + dump_lenient(id) +
                     ",\"parentId\":" + (parent.empty() ? std::string("null") : dump_lenient(parent)) +
                     ",\"timestamp\":" + dump_lenient(timestamp);
  if (fields.is_object()) {
    for (const auto& [key, value] : fields.items()) {
      if (key == "type" || key == "id" || key == "parentId" || key == "timestamp") continue;
      line += "," + dump_lenient(key) + ":" + dump_lenient(value);
    }
  }
  line += "}";
  if (!contains(id)) ids_.push_back(id);  // even on failure: part of the line may have reached the file
  const bool terminated_fragment = needs_newline_;
  uint64_t offset = 0;
  if (auto written = write_line(line, &offset); !written) return written.error();
  leaf_ = id;
  if (observer_) notify(type, id, parent, timestamp, std::move(fields), (terminated_fragment ? "\n" : "") + line + "\n", offset);
  return id;
}

void TranscriptWriter::notify(std::string_view type, const std::string& id, const std::string& parent,
                              const std::string& timestamp, Json&& fields, const std::string& text,
                              uint64_t offset) {
  AppendedLine appended;
  appended.offset = offset;
  appended.text = text;
  struct stat after {};
  if (offset != UINT64_MAX && ::fstat(fd_, &after) == 0) {
    appended.dev = static_cast<uint64_t>(after.st_dev);
    appended.ino = static_cast<uint64_t>(after.st_ino);
    appended.size = static_cast<uint64_t>(after.st_size);
    appended.mtime_ns = static_cast<int64_t>(after.st_mtim.tv_sec) * 1'000'000'000 + after.st_mtim.tv_nsec;
  } else {
    appended.offset = UINT64_MAX;  // unknown: the observer cannot place the line
  }
  // The entry as the parser would read the line back (keys in any order: Json's objects are sorted).
  Json value = fields.is_object() ? std::move(fields) : Json::object();
  value["type"] = type;
  value["id"] = id;
  value["parentId"] = parent.empty() ? Json(nullptr) : Json(parent);
  value["timestamp"] = timestamp;
  if (json_dump::as_parsed(value)) appended.value = std::move(value);
  observer_(appended);
}

Result<std::string> TranscriptWriter::append_message(Json message) {
  Json fields = Json::object();
  fields["message"] = std::move(message);
  return append("message", std::move(fields));
}

Result<std::string> TranscriptWriter::append_model_change(std::string_view provider, std::string_view model_id) {
  return append("model_change", {{"provider", provider}, {"modelId", model_id}});
}

Result<std::string> TranscriptWriter::append_thinking_level_change(std::string_view thinking_level) {
  return append("thinking_level_change", {{"thinkingLevel", thinking_level}});
}

Result<std::string> TranscriptWriter::append_compaction(std::string_view summary, std::string_view first_kept_entry_id,
                                                        int64_t tokens_before, const Json& details, bool from_hook) {
  Json fields = {{"summary", summary}, {"firstKeptEntryId", first_kept_entry_id}, {"tokensBefore", tokens_before}};
  if (!details.is_null()) fields["details"] = details;
  if (from_hook) fields["fromHook"] = true;
  return append("compaction", fields);
}

Result<std::string> TranscriptWriter::append_branch_summary(std::string_view from_id, std::string_view summary,
                                                            const Json& details, bool from_hook) {
  Json fields = {{"fromId", from_id}, {"summary", summary}};
  if (!details.is_null()) fields["details"] = details;
  if (from_hook) fields["fromHook"] = true;
  return append("branch_summary", fields);
}

Result<std::string> TranscriptWriter::append_custom(std::string_view custom_type, const Json& data) {
  Json fields = {{"customType", custom_type}};
  if (!data.is_null()) fields["data"] = data;
  return append("custom", fields);
}

Result<std::string> TranscriptWriter::append_custom_message(std::string_view custom_type, const Json& content,
                                                            bool display, const Json& details) {
  Json fields = {{"customType", custom_type}, {"content", content}, {"display", display}};
  if (!details.is_null()) fields["details"] = details;
  return append("custom_message", fields);
}

Result<std::string> TranscriptWriter::append_label(std::string_view target_id, std::optional<std::string_view> label) {
  Json fields = {{"targetId", target_id}};
  if (label) fields["label"] = *label;
  return append("label", fields);
}

Result<std::string> TranscriptWriter::append_session_info(std::optional<std::string_view> name) {
  Json fields = Json::object();
  if (name) fields["name"] = *name;
  return append("session_info", fields);
}

}  // namespace pincer::store
