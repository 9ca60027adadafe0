// OpenClaw's cold transcript archives (cli/openclaw_import_sqlite.h, read_cold_archive): with
// `session.maintenance.coldStorage` on, OpenClaw moves the events of a transcript idle for N days
// out of transcript_events into one zstd-compressed JSONL file
// (agents/<id>/sessions/cold/<sha256>.jsonl.zst, or the archive_blob column when stored in the
// database). Its lines are records {"kind": "header", "version": 1, "sessionId", "generation"},
// {"kind": "event", "row": {seq, event_json, created_at}} and index rows (identity, active, index,
// fts) that Pincer does not need. The archive is checked as OpenClaw checks it before a restore:
// its size and SHA-256 against the row, then the header's session id and the number of events.
#include <zstd.h>

#include <memory>
#include <regex>

#include "cli/openclaw_import_sqlite.h"
#include "core/json5.h"
#include "llm/ndjson_parser.h"
#include "core/ids.h"
#include "store/atomic_file.h"

namespace pincer::cli::openclaw::sqlite_state {
namespace detail_oc_cold {

namespace fs = std::filesystem;
using nlohmann::json;

// Decompressed size bound: OpenClaw refuses to write an archive over 64 MiB of JSONL.
constexpr std::size_t kMaxColdJsonlBytes = std::size_t{64} << 20;

Error cold_error(const std::string& where, const std::string& what) { return Error{"SQLITE_INVALID", where + ": " + what}; }

// A zstd stream of unknown content size (Node's zlib.createZstdCompress), bounded.
Result<std::string> zstd_decode_stream(const std::string& frame, const std::string& where) {
  std::unique_ptr<ZSTD_DStream, decltype(&ZSTD_freeDStream)> ds(ZSTD_createDStream(), &ZSTD_freeDStream);
  if (!ds) return Error{"IO_ERROR", where + ": out of memory"};
  ZSTD_inBuffer in{frame.data(), frame.size(), 0};
  std::string out;
  std::string chunk(ZSTD_DStreamOutSize(), '\0');
  std::size_t last = 1;
  while (in.pos < in.size || last != 0) {
    ZSTD_outBuffer o{chunk.data(), chunk.size(), 0};
    last = ZSTD_decompressStream(ds.get(), &o, &in);
    if (ZSTD_isError(last)) return cold_error(where, std::string("the zstd data does not decode (") + ZSTD_getErrorName(last) + ")");
    out.append(chunk.data(), o.pos);
    if (out.size() > kMaxColdJsonlBytes) return cold_error(where, "decodes to more than 64 MiB");
    if (in.pos == in.size && o.pos < o.size && last != 0) return cold_error(where, "the zstd data is truncated");
  }
  return out;
}

}  // namespace detail_oc_cold

using namespace detail_oc_cold;

fs::path cold_archive_path(const fs::path& agent_db, const std::string& archive_name) {
  const fs::path store_dir = agent_db.parent_path();
  const fs::path artifacts = store_dir.filename() == "agent" ? store_dir.parent_path() / "sessions" : store_dir;
  return artifacts / "cold" / archive_name;
}

Result<std::map<std::int64_t, std::string>> read_cold_archive(const ColdArchive& archive, const fs::path& agent_db) {
  const std::string where = agent_db.string() + ": table session_transcript_cold_archives, row session_id=" + archive.session_id;
  static const std::regex kName("^[a-f0-9]{64}\\.jsonl\\.zst$");
  if (!std::regex_match(archive.archive_name, kName)) return cold_error(where, "archive_name is not <sha256>.jsonl.zst");
  std::string bytes;
  if (archive.storage == "sqlite") {
    bytes = archive.blob;
  } else if (archive.storage == "file") {
    const fs::path file = cold_archive_path(agent_db, archive.archive_name);
    auto read = store::read_file(file, kMaxColdJsonlBytes);
    if (!read) {
      return Error{"IO_ERROR", where + ": its cold archive is missing or unreadable (OpenClaw needs it too: restore "
                                   "it from a backup): " + read.error().message};
    }
    bytes = std::move(*read);
  } else {
    return cold_error(where, "unknown storage \"" + archive.storage + "\"");
  }
  if (bytes.size() != archive.archive_bytes || ids::sha256_hex(bytes) != archive.archive_sha256) {
    return cold_error(where, "the archive " + archive.archive_name + " does not match its recorded size and SHA-256");
  }
  auto jsonl = zstd_decode_stream(bytes, where);
  if (!jsonl) return jsonl.error();
  std::map<std::int64_t, std::string> events;
  std::size_t line_no = 0;
  bool header = false;
  for (std::size_t pos = 0; pos < jsonl->size();) {
    std::size_t end = jsonl->find('\n', pos);
    if (end == std::string::npos) end = jsonl->size();
    const std::string_view line(jsonl->data() + pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.empty()) continue;
    const std::string at = "archive line " + std::to_string(line_no);
    if (llm::json_nesting_exceeds(line, json5::kMaxDepth)) {
      return cold_error(where, at + ": nesting too deep (more than " + std::to_string(json5::kMaxDepth) + " levels)");
    }
    json record = json::parse(line, nullptr, false);
    if (record.is_discarded() || !record.is_object() || !record["kind"].is_string()) {
      return cold_error(where, at + " is not a JSON record with a \"kind\"");
    }
    const std::string kind = record["kind"].get<std::string>();
    if (kind == "header") {
      if (record.value("sessionId", std::string()) != archive.session_id) {
        return cold_error(where, at + ": the archive belongs to session " + record.value("sessionId", std::string("?")));
      }
      header = true;
    } else if (kind == "event") {
      const json& row = record["row"];
      if (!row.is_object() || !row["seq"].is_number_integer() || !row["event_json"].is_string()) {
        return cold_error(where, at + ": an event without an integer seq and an event_json string");
      }
      if (!events.emplace(row["seq"].get<std::int64_t>(), row["event_json"].get<std::string>()).second) {
        return cold_error(where, at + ": seq " + std::to_string(row["seq"].get<std::int64_t>()) + " repeats");
      }
    }
  }
  if (!header) return cold_error(where, "the archive has no header record");
  if (events.size() != archive.event_count) {
    return cold_error(where, "the archive holds " + std::to_string(events.size()) + " event(s), the row records " +
                                 std::to_string(archive.event_count));
  }
  return events;
}

}  // namespace pincer::cli::openclaw::sqlite_state
