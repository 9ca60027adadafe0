#include "agent/attachments.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <optional>
#include <sstream>

#include <sodium.h>
#include <spdlog/spdlog.h>

#include "core/ids.h"
#include "core/utf8.h"
#include "store/atomic_file.h"

namespace pincer::agent {
namespace detail_attachments {

using nlohmann::json;

Error bad(const std::string& where, const std::string& message) { return Error{"INVALID_REQUEST", where + ": " + message}; }

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::string lowered(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

/// Base64 (standard or URL alphabet, padding optional, whitespace ignored) → bytes.
std::optional<std::string> decode_base64(std::string_view text) {
  std::string clean;
  clean.reserve(text.size());
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    clean += c == '-' ? '+' : c == '_' ? '/' : c;
  }
  while (!clean.empty() && clean.back() == '=') clean.pop_back();
  std::string out(clean.size() / 4 * 3 + 3, '\0');
  size_t len = 0;
  const char* end = nullptr;
  if (sodium_base642bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), clean.data(), clean.size(), nullptr,
                        &len, &end, sodium_base64_VARIANT_ORIGINAL_NO_PADDING) != 0 ||
      end != clean.data() + clean.size()) {
    return std::nullopt;
  }
  out.resize(len);
  return out;
}

std::string extension_of(const std::string& mime) {
  if (mime == "image/png") return "png";
  if (mime == "image/jpeg") return "jpg";
  if (mime == "image/gif") return "gif";
  if (mime == "image/webp") return "webp";
  return "bin";
}

std::string mime_of_extension(const std::string& ext) {
  if (ext == "png") return "image/png";
  if (ext == "jpg") return "image/jpeg";
  if (ext == "gif") return "image/gif";
  if (ext == "webp") return "image/webp";
  return "";
}

/// text/*, JSON, Markdown, CSV, YAML, XML — by type, or by the file name's extension.
bool text_like(const Attachment& a) {
  const std::string mime = lowered(a.mime_type);
  if (starts_with(mime, "text/") || mime == "application/json" || mime == "application/xml" ||
      mime == "application/x-yaml" || mime == "application/yaml" || mime == "application/x-ndjson") {
    return true;
  }
  const std::string name = lowered(a.file_name);
  for (const char* ext : {".txt", ".md", ".markdown", ".json", ".csv", ".tsv", ".yaml", ".yml", ".xml", ".log"}) {
    const std::string_view e(ext);
    if (name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0) return true;
  }
  return false;
}

/// The file name as the prompt shows it: control characters (NUL, line breaks) become spaces, so a
/// name cannot forge lines of the prompt.
std::string display_name(const Attachment& a) {
  if (a.file_name.empty()) return "(unnamed)";
  std::string out = a.file_name;
  for (char& ch : out) {
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ch = ' ';
  }
  return out;
}

/// Text that is really text: no NUL and valid UTF-8 (a binary file labelled text/plain is not).
bool reads_as_text(const std::string& bytes) {
  return bytes.find('\0') == std::string::npos && utf8::replace_invalid(bytes) == bytes;
}

std::string read_whole(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return {};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// "media/<sha256>.<ext>" with an image's extension or "bin" → the file; "" otherwise.
std::filesystem::path journal_media_file(const std::filesystem::path& sessions_dir, const std::string& ref) {
  if (!starts_with(ref, "media/")) return {};
  const std::string name = ref.substr(6);
  const size_t dot = name.find('.');
  const std::string ext = dot == std::string::npos ? "" : name.substr(dot + 1);
  if (dot != 64 || name.find_first_not_of("0123456789abcdef") != 64 || (ext != "bin" && mime_of_extension(ext).empty())) {
    return {};
  }
  return sessions_dir / "media" / name;
}

/// Writes `bytes` as `media_dir/name` unless it is there already (content-addressed).
Status store_media_file(const std::filesystem::path& media_dir, const std::string& name, const std::string& bytes) {
  const auto file = media_dir / name;
  std::error_code ec;
  if (std::filesystem::exists(file, ec)) return Ok{};
  std::filesystem::create_directories(media_dir, ec);
  ::chmod(media_dir.c_str(), 0700);
  return store::write_file_atomic(file, bytes, 0600);
}

/// A session id usable as a directory name (uuids; nothing with a separator or a leading dot).
bool plain_session_id(const std::string& id) {
  return !id.empty() && id.size() <= 128 && id[0] != '.' &&
         id.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") == std::string::npos;
}

/// Hard-links `media_dir/name` as `media_dir/by-session/<session_id>/name` (once). A failure only
/// means the file is never deleted by release_session_media: logged, not fatal.
void link_for_session(const std::filesystem::path& media_dir, const std::string& name, const std::string& session_id) {
  if (!plain_session_id(session_id)) return;
  const auto dir = media_dir / "by-session" / session_id;
  std::error_code ec;
  if (std::filesystem::exists(dir / name, ec)) return;
  std::filesystem::create_directories(dir, ec);
  std::filesystem::create_hard_link(media_dir / name, dir / name, ec);
  if (ec && ec != std::errc::file_exists) {
    spdlog::warn("media: cannot link {} for session {}: {} (the file will be kept)", name, session_id, ec.message());
  }
}

Status check_one(Attachment& a, const std::string& where) {
  if (a.bytes.empty()) return bad(where + ".content", "is empty");
  if (a.bytes.size() > kMaxAttachmentBytes) {
    return bad(where + ".content", std::to_string(a.bytes.size()) + " bytes exceeds the limit of " +
                                       std::to_string(kMaxAttachmentBytes) + " bytes");
  }
  const std::string sniffed = sniff_image_mime(a.bytes);
  const std::string label = lowered(a.mime_type);
  if (a.kind == "image" || starts_with(label, "image/")) {
    if (sniffed.empty()) {
      return bad(where + ".content", "is not a PNG, JPEG, GIF or WebP image" +
                                         (label.empty() ? std::string() : " (labelled " + label + ")"));
    }
    if (!label.empty() && label != sniffed && !(label == "image/jpg" && sniffed == "image/jpeg")) {
      return bad(where + ".mimeType", "says " + label + " but the bytes are " + sniffed);
    }
    a.kind = "image";
    a.mime_type = sniffed;
  } else if (!sniffed.empty() && label.empty()) {
    a.kind = "image";  // an unlabelled file that is an image is sent as one
    a.mime_type = sniffed;
  }
  return Ok{};
}

}  // namespace detail_attachments

using namespace detail_attachments;

std::string sniff_image_mime(std::string_view b) {
  if (b.size() >= 8 && b.substr(0, 8) == std::string_view("\x89PNG\r\n\x1a\n", 8)) return "image/png";
  if (b.size() >= 3 && b.substr(0, 3) == std::string_view("\xff\xd8\xff", 3)) return "image/jpeg";
  if (b.size() >= 6 && (b.substr(0, 6) == "GIF87a" || b.substr(0, 6) == "GIF89a")) return "image/gif";
  if (b.size() >= 12 && b.substr(0, 4) == "RIFF" && b.substr(8, 4) == "WEBP") return "image/webp";
  return "";
}


std::optional<std::string> base64_decode(std::string_view text) { return decode_base64(text); }

Status check_attachments(std::vector<Attachment>& attachments, const std::string& what) {
  if (attachments.size() > kMaxAttachments) {
    return bad(what, std::to_string(attachments.size()) + " items exceeds the limit of " + std::to_string(kMaxAttachments));
  }
  size_t total = 0;
  for (size_t i = 0; i < attachments.size(); ++i) {
    if (auto st = check_one(attachments[i], what + "[" + std::to_string(i) + "]"); !st) return st;
    total += attachments[i].bytes.size();
  }
  if (total > kMaxAttachmentsTotalBytes) {
    return bad(what, std::to_string(total) + " bytes in all exceeds the limit of " + std::to_string(kMaxAttachmentsTotalBytes) +
                         " bytes");
  }
  return Ok{};
}

Result<std::vector<Attachment>> parse_chat_attachments(const json& list) {
  std::vector<Attachment> out;
  if (list.is_null()) return out;
  if (!list.is_array()) return bad("attachments", "must be an array");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string where = "attachments[" + std::to_string(i) + "]";
    const json& item = list[i];
    if (!item.is_object()) return bad(where, "must be an object");
    Attachment a;
    for (const char* field : {"type", "mimeType", "fileName", "content"}) {
      if (item.contains(field) && !item[field].is_null() && !item[field].is_string()) {
        return bad(where + "." + field, "must be a string");
      }
    }
    const std::string type = item.value("type", "");
    if (!type.empty() && type != "image" && type != "file") return bad(where + ".type", "must be \"image\" or \"file\"");
    a.kind = type == "image" ? "image" : "file";
    a.mime_type = item.value("mimeType", "");
    a.file_name = utf8::replace_invalid(item.value("fileName", ""));
    if (a.file_name.size() > 255) return bad(where + ".fileName", "is longer than 255 bytes");
    std::string content = item.value("content", "");
    if (content.empty()) return bad(where + ".content", "is required (base64)");
    if (starts_with(content, "data:")) {  // data:<mime>;base64,<data>
      const size_t comma = content.find(',');
      const std::string head = content.substr(5, comma == std::string::npos ? 0 : comma - 5);
      if (comma == std::string::npos || head.find(";base64") == std::string::npos) {
        return bad(where + ".content", "is a data URL without base64 data");
      }
      if (a.mime_type.empty()) a.mime_type = head.substr(0, head.find(';'));
      content.erase(0, comma + 1);
    }
    if (content.size() / 4 * 3 > kMaxAttachmentBytes + 3) {
      return bad(where + ".content", "exceeds the limit of " + std::to_string(kMaxAttachmentBytes) + " bytes");
    }
    auto bytes = decode_base64(content);
    if (!bytes) return bad(where + ".content", "is not valid base64");
    a.bytes = std::move(*bytes);
    out.push_back(std::move(a));
  }
  if (auto st = check_attachments(out, "attachments"); !st) return st.error();
  return out;
}

Result<std::vector<llm::ContentBlock>> attachment_blocks(const std::vector<Attachment>& attachments,
                                                         const std::filesystem::path& media_dir,
                                                         const std::string& session_id) {
  std::vector<llm::ContentBlock> out;
  for (const auto& a : attachments) {
    if (a.kind == "image") {
      const std::string name = ids::sha256_hex(a.bytes) + "." + extension_of(a.mime_type);
      if (auto st = store_media_file(media_dir, name, a.bytes); !st) {  // content-addressed: written once
        return Error{"MEDIA_WRITE", "cannot store the image " + display_name(a) + ": " + st.error().message};
      }
      if (!session_id.empty()) link_for_session(media_dir, name, session_id);
      out.emplace_back(llm::ImageContent{base64_encode(a.bytes), a.mime_type, "media/" + name});
    } else if (text_like(a) && a.bytes.size() <= kMaxInlineTextBytes && reads_as_text(a.bytes)) {
      std::string fence = "```";
      while (a.bytes.find(fence) != std::string::npos) fence += '`';
      out.emplace_back(llm::TextContent{"[file: " + display_name(a) + "]\n" + fence + "\n" +
                                        utf8::replace_invalid(a.bytes) + "\n" + fence});
    } else {
      out.emplace_back(llm::TextContent{"[file omitted: " + display_name(a) + ", " +
                                        (a.mime_type.empty() ? std::string("application/octet-stream") : a.mime_type) +
                                        ", " + std::to_string(a.bytes.size()) + " bytes — this file type is not read]"});
    }
  }
  return out;
}

Result<json> store_attachment_refs(const std::vector<Attachment>& attachments, const std::filesystem::path& media_dir) {
  json out = json::array();
  for (const auto& a : attachments) {
    const std::string name = ids::sha256_hex(a.bytes) + "." + (a.kind == "image" ? extension_of(a.mime_type) : "bin");
    if (auto st = store_media_file(media_dir, name, a.bytes); !st) {
      return Error{"MEDIA_WRITE", "cannot store the attachment " + display_name(a) + ": " + st.error().message};
    }
    out.push_back({{"kind", a.kind}, {"mimeType", a.mime_type}, {"fileName", a.file_name}, {"ref", "media/" + name},
                   {"bytes", a.bytes.size()}});
  }
  return out;
}

std::vector<Attachment> load_attachment_refs(const json& refs, const std::filesystem::path& sessions_dir) {
  std::vector<Attachment> out;
  if (!refs.is_array()) return out;
  for (const auto& r : refs) {
    if (!r.is_object()) continue;
    Attachment a{r.value("kind", "file") == "image" ? "image" : "file", r.value("mimeType", ""), r.value("fileName", ""), ""};
    const std::string ref = r.value("ref", "");
    const auto file = journal_media_file(sessions_dir, ref);
    a.bytes = file.empty() ? std::string() : read_whole(file);
    if (a.bytes.empty() || (a.kind == "image" && sniff_image_mime(a.bytes).empty())) {
      a = Attachment{"file", "text/plain", "", "[attachment unavailable: " + display_name(a) + " (" + ref + ") is missing]"};
    }
    out.push_back(std::move(a));
  }
  return out;
}

void remove_journal_only_refs(const json& refs, const std::filesystem::path& sessions_dir) {
  if (!refs.is_array()) return;
  for (const auto& r : refs) {
    const std::string ref = r.is_object() ? r.value("ref", "") : "";
    if (ref.size() < 4 || ref.compare(ref.size() - 4, 4, ".bin") != 0) continue;
    if (const auto file = journal_media_file(sessions_dir, ref); !file.empty()) {
      std::error_code ec;
      std::filesystem::remove(file, ec);
    }
  }
}

int release_session_media(const std::filesystem::path& sessions_dir, const std::string& session_id) {
  if (!plain_session_id(session_id)) return 0;
  const auto media_dir = sessions_dir / "media";
  const auto dir = media_dir / "by-session" / session_id;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return 0;
  int deleted = 0;
  for (const auto& link : std::filesystem::directory_iterator(dir, ec)) {
    const auto shared = media_dir / link.path().filename();
    std::error_code e1;
    std::filesystem::remove(link.path(), e1);
    if (e1) {
      spdlog::warn("media: cannot remove {}: {}", link.path().string(), e1.message());
      continue;
    }
    // Linked by no other session (only its own name is left): nothing refers to it any more.
    if (std::filesystem::hard_link_count(shared, e1) == 1 && !e1 && std::filesystem::remove(shared, e1)) ++deleted;
  }
  std::filesystem::remove(dir, ec);
  return deleted;
}

std::filesystem::path media_file(const std::filesystem::path& sessions_dir, const std::string& ref) {
  if (!starts_with(ref, "media/")) return {};
  const std::string name = ref.substr(6);
  const size_t dot = name.find('.');
  if (dot != 64 || name.find_first_not_of("0123456789abcdef") != 64 || mime_of_extension(name.substr(65)).empty()) {
    return {};
  }
  return sessions_dir / "media" / name;
}

bool has_unresolved_image_refs(const std::vector<llm::ContentBlock>& blocks) {
  for (const auto& block : blocks) {
    const auto* img = std::get_if<llm::ImageContent>(&block);
    if (img && !img->ref.empty() && img->data.empty()) return true;
  }
  return false;
}

void resolve_image_refs(std::vector<llm::ContentBlock>& blocks, const std::filesystem::path& sessions_dir) {
  for (auto& block : blocks) {
    auto* img = std::get_if<llm::ImageContent>(&block);
    if (!img || img->ref.empty() || !img->data.empty()) continue;
    const auto file = media_file(sessions_dir, img->ref);
    std::string bytes = file.empty() ? std::string() : read_whole(file);
    if (bytes.empty()) {
      block = llm::TextContent{"[image unavailable: " + img->ref + " is missing]"};
      continue;
    }
    img->data = base64_encode(bytes);
  }
}

void resolve_image_refs(json& message, const std::filesystem::path& sessions_dir) {
  if (!message.is_object() || !message.contains("content") || !message["content"].is_array()) return;
  for (auto& block : message["content"]) {
    if (!block.is_object() || block.value("type", "") != "image" || !block.contains("ref") || block.contains("data")) {
      continue;
    }
    const std::string ref = block["ref"].is_string() ? block["ref"].get<std::string>() : "";
    const auto file = media_file(sessions_dir, ref);
    std::string bytes = file.empty() ? std::string() : read_whole(file);
    if (bytes.empty()) {
      block = json{{"type", "text"}, {"text", "[image unavailable: " + ref + " is missing]"}};
      continue;
    }
    block["data"] = base64_encode(bytes);
  }
}

int images_for_model(llm::MessageList& messages, const llm::ModelSpec& model) {
  if (std::find(model.input.begin(), model.input.end(), "image") != model.input.end()) return 0;
  int replaced = 0;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const auto* u = std::get_if<llm::UserMessage>(&messages[i]);
    if (!u || std::none_of(u->content.begin(), u->content.end(),
                           [](const llm::ContentBlock& b) { return std::holds_alternative<llm::ImageContent>(b); })) {
      continue;
    }
    for (auto& block : std::get<llm::UserMessage>(messages.mutate(i)).content) {  // a copy: the history keeps its images
      if (!std::holds_alternative<llm::ImageContent>(block)) continue;
      block = llm::TextContent{"[image omitted: model " + model.provider + "/" + model.id + " does not accept images]"};
      ++replaced;
    }
  }
  return replaced;
}

}  // namespace pincer::agent
