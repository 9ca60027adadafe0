// to_json() and to_text() of cli/openclaw_import.h: the import report for programs and people.
// Only paths, counts and reasons are shown, never config values (they may be secrets).
#include "cli/openclaw_import.h"

#include "cli/invoked_command.h"

namespace pincer::cli::openclaw {
namespace {

using nlohmann::json;

std::string plural(std::uint64_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string what(const CopiedItem& c) {
  if (c.kind == "workspace") return "workspace of agent " + c.agent_id;
  if (c.kind == "sessions") return "sessions of agent " + c.agent_id;
  if (c.kind == "auth-profiles") return "auth profiles of agent " + c.agent_id;
  if (c.kind == "devices") return "paired devices";
  if (c.kind == "cron") return "cron jobs";
  return c.kind;
}

std::string counts(const CopiedItem& c) {
  std::string out;
  if (c.kind == "sessions") out = plural(c.count, "session", "sessions") + "; ";
  if (c.kind == "auth-profiles") out = plural(c.count, "profile", "profiles") + "; ";
  if (c.kind == "devices") out = plural(c.count, "device", "devices") + "; ";
  if (c.kind == "cron") out = plural(c.count, "job", "jobs") + "; ";
  return out + plural(c.files, "file", "files") + ", " + plural(c.bytes, "byte", "bytes");
}

}  // namespace

nlohmann::json to_json(const ImportOutcome& outcome) {
  const ImportReport& r = outcome.report;
  json mapped = json::array(), config_skipped = json::array(), copied = json::array(), skipped = json::array(),
       conflicts = json::array(), backups = json::array();
  for (const auto& m : r.mapped) {
    json e = {{"from", m.from}, {"to", m.to}};
    if (!m.note.empty()) e["note"] = m.note;
    mapped.push_back(std::move(e));
  }
  for (const auto& s : r.config_skipped) config_skipped.push_back({{"path", s.path}, {"reason", s.reason}});
  for (const auto& c : r.copied) {
    json e = {{"kind", c.kind}, {"from", c.from.string()}, {"to", c.to.string()},
              {"files", c.files}, {"bytes", c.bytes}, {"count", c.count}};
    if (!c.agent_id.empty()) e["agentId"] = c.agent_id;
    if (!c.note.empty()) e["note"] = c.note;
    copied.push_back(std::move(e));
  }
  for (const auto& s : r.skipped) skipped.push_back({{"path", s.path}, {"reason", s.reason}});
  for (const auto& c : r.conflicts) conflicts.push_back(c.string());
  for (const auto& b : r.backups) backups.push_back({{"path", b.path.string()}, {"backup", b.backup.string()}});
  json out = {{"ok", outcome.exit_code == kExitOk},
              {"dryRun", r.dry_run},
              {"force", r.force},
              {"written", r.written},
              {"source", r.source.string()},
              {"target", r.target.string()},
              {"config", {{"source", r.config_source.string()},
                          {"target", r.config_target.string()},
                          {"sourceExists", r.config_source_exists},
                          {"mapped", mapped},
                          {"skipped", config_skipped}}},
              {"copied", copied},
              {"skipped", skipped},
              {"conflicts", conflicts},
              {"backups", backups},
              {"warnings", r.warnings},
              {"counts", r.counts}};
  if (outcome.error) out["error"] = {{"code", outcome.error->code}, {"message", outcome.error->message}};
  return out;
}

std::string to_text(const ImportOutcome& outcome) {
  const ImportReport& r = outcome.report;
  std::string out = "OpenClaw → Pincer: " + r.source.string() + " → " + r.target.string() +
                    (r.dry_run ? " (dry run: what an import would do)" : "") + "\n";
  // A dry run says what it would do: nothing was mapped, copied or moved.
  const std::string mapped_verb = r.dry_run ? "  would map  " : "  mapped   ";
  const std::string copied_verb = r.dry_run ? "  would copy " : "  copied   ";
  const std::string skipped_verb = r.dry_run ? "  would skip " : "  skipped  ";
  if (r.config_source_exists) {
    out += "\nConfig: " + r.config_source.string() + " → " + r.config_target.string() + "\n";
    for (const auto& m : r.mapped) {
      out += mapped_verb + m.from;
      if (m.to.empty()) out += " → (no key needed)";
      else if (m.to != m.from) out += " → " + m.to;
      if (!m.note.empty()) out += "  (" + m.note + ")";
      out += "\n";
    }
    for (const auto& s : r.config_skipped) out += skipped_verb + s.path + ": " + s.reason + "\n";
  }
  if (!r.copied.empty() || !r.skipped.empty()) out += "\nFiles:\n";
  for (const auto& c : r.copied) {
    out += copied_verb + what(c) + ": " + c.from.string() + " → " + c.to.string() + " (" + counts(c) + ")";
    if (!c.note.empty()) out += " — " + c.note;
    out += "\n";
  }
  for (const auto& s : r.skipped) out += skipped_verb + s.path + ": " + s.reason + "\n";
  if (!r.backups.empty()) {
    out += r.dry_run ? "\nWould move aside (--force):\n" : "\nMoved aside (--force):\n";
    for (const auto& b : r.backups) out += "  " + b.path.string() + " → " + b.backup.string() + "\n";
  }
  if (!r.conflicts.empty() && !r.force) {
    out += "\nAlready in the Pincer state dir:\n";
    for (const auto& c : r.conflicts) out += "  " + c.string() + "\n";
  }
  if (!r.counts.empty()) {
    out += std::string("\nCounts") + (r.written ? " (read = written, checked)" : "") + ":";
    for (const auto& [kind, n] : r.counts) out += " " + kind + " " + std::to_string(n) + ",";
    out.back() = '\n';
  }
  if (!r.warnings.empty()) {
    out += "\nWarnings:\n";
    for (const auto& w : r.warnings) out += "  ! " + w + "\n";
  }
  if (r.written) {
    out += "\nImported into " + r.target.string() + ". Start the gateway with: " + invoked_command() + " gateway run\n";
  } else if (r.dry_run && !outcome.error) {
    out += "\nDry run: nothing was written. Run it again without --dry-run to import.\n";
  }
  return out;
}

}  // namespace pincer::cli::openclaw
