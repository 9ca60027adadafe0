#include "store/session_index.h"
#include "store/file_util.h"

#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/ids.h"
#include "core/utf8.h"
#include "store/atomic_file.h"
#include "store/session_keys.h"
#include "store/transcript.h"

namespace pincer::store {
namespace {

constexpr int kMaxNesting = static_cast<int>(kMaxJsonNesting);

// ---------------------------------------------------------------------------------------------
// JSON.stringify(value, null, 2), byte for byte: nlohmann's dump() agrees on layout and string
// escapes but not on numbers (it writes 1e-05 where JavaScript writes 0.00001).
// ---------------------------------------------------------------------------------------------

void append_js_string(std::string& out, const std::string& raw) {
  static constexpr char kHex[] = "0123456789abcdef";
  // Bytes that are not UTF-8 (a key built from a raw IRC nick, say) would make the whole file
  // unparsable, and the index would be quarantined at the next load: write U+FFFD for them.
  const std::string replaced = utf8::is_valid(raw) ? std::string() : utf8::replace_invalid(raw);
  const std::string& s = replaced.empty() ? raw : replaced;
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 15];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

/// ECMAScript Number::toString for a finite double.
void append_js_double(std::string& out, double value) {
  if (value == 0) {
    out += '0';  // -0 too
    return;
  }
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  const std::string_view sci(buf, ec == std::errc() ? static_cast<std::size_t>(end - buf) : 0);
  const auto e_pos = sci.find('e');
  if (e_pos == std::string_view::npos) {
    out += "null";
    return;
  }
  std::string_view mantissa = sci.substr(0, e_pos);
  if (mantissa.front() == '-') {
    out += '-';
    mantissa.remove_prefix(1);
  }
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits += c;
  }
  int exp10 = 0;
  std::from_chars(sci.data() + e_pos + 1 + (sci[e_pos + 1] == '+'), sci.data() + sci.size(), exp10);
  const int k = static_cast<int>(digits.size());
  const int n = exp10 + 1;  // position of the decimal point relative to the digits
  if (k <= n && n <= 21) {
    out += digits + std::string(static_cast<std::size_t>(n - k), '0');
  } else if (0 < n && n <= 21) {
    out += digits.substr(0, static_cast<std::size_t>(n)) + "." + digits.substr(static_cast<std::size_t>(n));
  } else if (-6 < n && n <= 0) {
    out += "0." + std::string(static_cast<std::size_t>(-n), '0') + digits;
  } else {
    out += digits.substr(0, 1);
    if (k > 1) out += "." + digits.substr(1);
    out += (n - 1 >= 0) ? "e+" : "e-";
    out += std::to_string(std::abs(n - 1));
  }
}

void append_js(std::string& out, const OrderedJson& value, int indent) {
  const auto newline = [&](int level) {
    out += '\n';
    out.append(static_cast<std::size_t>(level) * 2, ' ');
  };
  switch (value.type()) {
    case OrderedJson::value_t::object: {
      if (value.empty()) {
        out += "{}";
        return;
      }
      out += '{';
      bool first = true;
      for (const auto& [key, child] : value.items()) {
        if (!first) out += ',';
        first = false;
        newline(indent + 1);
        append_js_string(out, key);
        out += ": ";
        append_js(out, child, indent + 1);
      }
      newline(indent);
      out += '}';
      return;
    }
    case OrderedJson::value_t::array: {
      if (value.empty()) {
        out += "[]";
        return;
      }
      out += '[';
      for (std::size_t i = 0; i < value.size(); ++i) {
        if (i > 0) out += ',';
        newline(indent + 1);
        append_js(out, value[i], indent + 1);
      }
      newline(indent);
      out += ']';
      return;
    }
    case OrderedJson::value_t::string: append_js_string(out, value.get_ref<const std::string&>()); return;
    case OrderedJson::value_t::boolean: out += value.get<bool>() ? "true" : "false"; return;
    case OrderedJson::value_t::number_integer: out += std::to_string(value.get<int64_t>()); return;
    case OrderedJson::value_t::number_unsigned: out += std::to_string(value.get<uint64_t>()); return;
    case OrderedJson::value_t::number_float: {
      const double d = value.get<double>();
      if (std::isfinite(d)) append_js_double(out, d);
      else out += "null";
      return;
    }
    default: out += "null"; return;  // null, binary, discarded
  }
}

// ---------------------------------------------------------------------------------------------
// Loading
// ---------------------------------------------------------------------------------------------

bool is_blank(const std::string& text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; });
}

Error invalid(const std::filesystem::path& file, std::string_view key, std::string_view what) {
  return Error{"SESSIONS_INVALID", file.string() + ": entry \"" + std::string(key) + "\": " + std::string(what)};
}

int64_t as_ms(const OrderedJson& value) {
  if (value.is_number_integer()) return value.get<int64_t>();
  if (value.is_number_unsigned()) return static_cast<int64_t>(std::min<uint64_t>(value.get<uint64_t>(), INT64_MAX));
  const double d = value.get<double>();
  return std::isfinite(d) ? static_cast<int64_t>(std::clamp(d, -9.2e18, 9.2e18)) : 0;
}

std::string trimmed_string(const OrderedJson* value) {
  if (!value || !value->is_string()) return {};
  const auto& s = value->get_ref<const std::string&>();
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

}  // namespace

// =============================================================================================
// Paths
// =============================================================================================

std::filesystem::path sessions_dir(const std::filesystem::path& state_dir, std::string_view agent_id) {
  return state_dir / "agents" / normalize_agent_id(agent_id) / "sessions";
}

std::filesystem::path session_index_path(const std::filesystem::path& state_dir, std::string_view agent_id) {
  return sessions_dir(state_dir, agent_id) / "sessions.json";
}

// =============================================================================================
// SessionEntry
// =============================================================================================

Result<SessionEntry> SessionEntry::from_json(OrderedJson fields) {
  if (!fields.is_object()) return Error{"SESSIONS_INVALID", "session entry is not an object"};
  auto id = fields.find("sessionId");
  if (id == fields.end() || !id->is_string() || id->get_ref<const std::string&>().empty()) {
    return Error{"SESSIONS_INVALID", "\"sessionId\" must be a non-empty string"};
  }
  auto updated = fields.find("updatedAt");
  if (updated != fields.end() && !updated->is_number()) {
    return Error{"SESSIONS_INVALID", "\"updatedAt\" must be a number (ms since the epoch)"};
  }
  return SessionEntry(std::move(fields));
}

SessionEntry SessionEntry::make(std::string session_id, int64_t updated_at_ms) {
  OrderedJson fields = OrderedJson::object();
  fields["sessionId"] = std::move(session_id);
  fields["updatedAt"] = updated_at_ms;
  return SessionEntry(std::move(fields));
}

std::string SessionEntry::session_id() const { return fields_["sessionId"].get<std::string>(); }

int64_t SessionEntry::updated_at() const {
  const OrderedJson* value = field("updatedAt");
  return value ? as_ms(*value) : 0;
}

std::optional<std::string> SessionEntry::session_file() const {
  const OrderedJson* value = field("sessionFile");
  if (!value || !value->is_string()) return std::nullopt;
  return value->get<std::string>();
}

const OrderedJson* SessionEntry::field(std::string_view name) const {
  auto it = fields_.find(name);
  return it == fields_.end() ? nullptr : &*it;
}

// =============================================================================================
// SessionIndex
// =============================================================================================

SessionIndex::SessionIndex(std::filesystem::path file, const Clock& clock) : file_(std::move(file)), clock_(&clock) {}

SessionIndex::FileStamp SessionIndex::stamp() const {
  struct stat st {};
  if (::stat(file_.c_str(), &st) != 0) return {};
  return {true, static_cast<uintmax_t>(st.st_size),
          static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec,
          static_cast<uintmax_t>(st.st_ino)};
}

void SessionIndex::reset() {
  entries_.clear();
  next_order_ = 0;
  trailing_newline_ = false;
  dirty_ = false;
  on_disk_.clear();
}

Status SessionIndex::load() {
  const FileStamp now = stamp();
  if (!unavailable_ && loaded_stamp_ && *loaded_stamp_ == now) return Ok{};  // unchanged on disk
  reset();
  unavailable_ = false;
  loaded_stamp_.reset();
  if (!now.exists) {
    loaded_stamp_ = now;
    return Ok{};
  }
  auto text = read_file(file_);
  if (!text) {
    if (text.error().code == "NOT_FOUND") return Ok{};  // removed in between
    unavailable_ = true;
    return text.error();
  }
  if (auto parsed = parse(*text); !parsed) {
    reset();
    unavailable_ = true;
    return parsed.error();
  }
  on_disk_ = std::move(*text);
  loaded_stamp_ = now;
  return Ok{};
}

Status SessionIndex::parse(const std::string& text) {
  trailing_newline_ = !text.empty() && text.back() == '\n';
  if (is_blank(text)) return Ok{};  // nothing to lose: an empty index

  bool too_deep = false;
  const OrderedJson::parser_callback_t limit_depth = [&](int depth, OrderedJson::parse_event_t event, OrderedJson&) {
    if ((event == OrderedJson::parse_event_t::object_start || event == OrderedJson::parse_event_t::array_start) &&
        depth >= kMaxNesting) {
      too_deep = true;
      return false;  // drop the subtree instead of building it
    }
    return true;
  };
  OrderedJson root;
  try {
    root = OrderedJson::parse(text, limit_depth);
  } catch (const OrderedJson::parse_error& e) {
    return Error{"SESSIONS_CORRUPT", file_.string() + ":" + parse_error_line_col(text, e.byte) + ": " + short_parse_error(e.what())};
  }
  if (too_deep) return Error{"SESSIONS_CORRUPT", file_.string() + ": nesting deeper than 512 levels"};
  if (!root.is_object()) return Error{"SESSIONS_CORRUPT", file_.string() + ": top level is not a JSON object"};

  for (auto& [key, value] : root.items()) {
    auto entry = SessionEntry::from_json(std::move(value));
    if (!entry) return invalid(file_, key, entry.error().message);
    const std::string canonical = canonical_store_key(key);
    if (canonical != key) dirty_ = true;  // legacy mixed-case key: migrate on the next save
    auto existing = entries_.find(canonical);
    if (existing == entries_.end()) {
      put(canonical, std::move(*entry));
    } else if (entry->updated_at() > existing->second.entry.updated_at()) {
      existing->second.entry = std::move(*entry);  // the newer of two colliding keys wins
    }
  }
  return Ok{};
}

void SessionIndex::put(std::string key, SessionEntry entry) {
  entries_.insert_or_assign(std::move(key), Slot{next_order_++, std::move(entry)});
}

const SessionEntry* SessionIndex::get(std::string_view key) const {
  auto it = entries_.find(canonical_store_key(key));
  return it == entries_.end() ? nullptr : &it->second.entry;
}

Result<SessionEntry> SessionIndex::upsert(std::string_view key, const OrderedJson& patch, const UpsertOptions& options) {
  if (unavailable_) return Error{"SESSIONS_UNAVAILABLE", file_.string() + ": not loaded (quarantine() it first)"};
  const std::string canonical = canonical_store_key(key);
  if (canonical.empty()) return Error{"SESSIONS_INVALID", "empty session key"};
  if (!patch.is_object()) return invalid(file_, canonical, "patch is not an object");
  const auto patch_field = [&](std::string_view name) -> const OrderedJson* {
    auto it = patch.find(name);
    return it == patch.end() ? nullptr : &*it;
  };
  const OrderedJson* patch_id = patch_field("sessionId");
  const OrderedJson* patch_updated = patch_field("updatedAt");
  if (patch_id && (!patch_id->is_string() || patch_id->get_ref<const std::string&>().empty())) {
    return invalid(file_, canonical, "\"sessionId\" must be a non-empty string");
  }
  if (patch_updated && !patch_updated->is_number()) return invalid(file_, canonical, "\"updatedAt\" must be a number");

  auto slot = entries_.find(canonical);
  const SessionEntry* existing = slot == entries_.end() ? nullptr : &slot->second.entry;
  const int64_t now = clock_->wall_ms();

  // { ...existing, ...patch, sessionId, updatedAt }: existing keys keep their place.
  OrderedJson next = existing ? existing->fields_ : OrderedJson::object();
  for (const auto& [field, value] : patch.items()) next[field] = value;
  next["sessionId"] = patch_id ? *patch_id : existing ? OrderedJson(existing->session_id()) : OrderedJson(ids::uuid_v4());
  if (options.policy == MergePolicy::PreserveActivity && existing) {
    const OrderedJson* kept = existing->field("updatedAt");
    next["updatedAt"] = kept ? *kept : patch_updated ? *patch_updated : OrderedJson(now);
  } else {
    next["updatedAt"] = std::max({existing ? existing->updated_at() : 0, patch_updated ? as_ms(*patch_updated) : 0, now});
  }
  // A new model without its provider must not inherit the old model's provider.
  if (existing && patch_field("model") && !patch_field("modelProvider")) {
    const std::string patched = trimmed_string(patch_field("model"));
    if (!patched.empty() && patched != trimmed_string(existing->field("model"))) next.erase("modelProvider");
  }
  for (const auto& field : options.remove_fields) {
    if (field != "sessionId" && field != "updatedAt") next.erase(field);
  }

  SessionEntry entry(std::move(next));
  if (slot == entries_.end()) put(canonical, entry);
  else slot->second.entry = entry;
  dirty_ = true;
  return entry;
}

Status SessionIndex::restore(std::string_view key, SessionEntry entry) {
  if (unavailable_) return Error{"SESSIONS_UNAVAILABLE", file_.string() + ": not loaded (quarantine() it first)"};
  std::string canonical = canonical_store_key(key);
  if (canonical.empty()) return Error{"SESSIONS_INVALID", "empty session key"};
  auto slot = entries_.find(canonical);
  if (slot == entries_.end()) put(std::move(canonical), std::move(entry));
  else slot->second.entry = std::move(entry);
  dirty_ = true;
  return Ok{};
}

bool SessionIndex::remove(std::string_view key) {
  auto it = entries_.find(canonical_store_key(key));
  if (it == entries_.end()) return false;
  entries_.erase(it);
  dirty_ = true;
  return true;
}

std::vector<SessionListing> SessionIndex::list() const {
  std::vector<const std::pair<const std::string, Slot>*> items;
  items.reserve(entries_.size());
  for (const auto& item : entries_) items.push_back(&item);
  std::sort(items.begin(), items.end(), [](const auto* a, const auto* b) {
    const int64_t ua = a->second.entry.updated_at(), ub = b->second.entry.updated_at();
    return ua != ub ? ua > ub : a->second.order < b->second.order;
  });
  std::vector<SessionListing> out;
  out.reserve(items.size());
  for (const auto* item : items) out.push_back({item->first, item->second.entry});
  return out;
}

std::string SessionIndex::serialize() const {
  std::vector<const std::pair<const std::string, Slot>*> items;
  items.reserve(entries_.size());
  for (const auto& item : entries_) items.push_back(&item);
  std::sort(items.begin(), items.end(), [](const auto* a, const auto* b) { return a->second.order < b->second.order; });

  std::string out;
  if (items.empty()) {
    out = "{}";
  } else {
    out = "{";
    for (std::size_t i = 0; i < items.size(); ++i) {
      out += i == 0 ? "\n  " : ",\n  ";
      append_js_string(out, items[i]->first);
      out += ": ";
      append_js(out, items[i]->second.entry.fields_, 1);
    }
    out += "\n}";
  }
  if (trailing_newline_) out += '\n';
  return out;
}

Status SessionIndex::save() {
  if (unavailable_) return Error{"SESSIONS_UNAVAILABLE", file_.string() + ": not loaded (quarantine() it first)"};
  std::string text = serialize();
  if (loaded_stamp_ && text == on_disk_ && stamp() == *loaded_stamp_) {
    dirty_ = false;  // nothing to write
    return Ok{};
  }
  if (auto written = write_file_atomic(file_, text, 0600); !written) return written;
  on_disk_ = std::move(text);
  loaded_stamp_ = stamp();
  dirty_ = false;
  return Ok{};
}

Result<std::filesystem::path> SessionIndex::quarantine() {
  auto moved = archive_file(file_, "corrupt", clock_->wall_ms());
  if (!moved) return moved.error();
  reset();
  unavailable_ = false;
  loaded_stamp_ = FileStamp{};  // the file no longer exists
  return moved;
}

}  // namespace pincer::store
