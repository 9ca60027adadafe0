// An agent's workspace files over RPC, in OpenClaw's shapes (its server-methods/agents-files.ts
// and agents-workspace.ts):
//
//   agents.files.list {agentId}                       (operator.read)
//       → {agentId, workspace, files: [Entry]}   the bootstrap files of agent/workspace.h but
//         IDENTITY.md (edited through agents.update, as in OpenClaw), in injection order
//   agents.files.get  {agentId, name}                 (operator.read)
//       → {agentId, workspace, file: Entry + content + hash}   (missing: {name, path, missing: true})
//   agents.files.set  {agentId, name, content, expectedHash?}   (operator.admin)
//       → {ok: true, agentId, workspace, file: Entry + content + hash}
//       written atomically (store::write_file_atomic: temp + fsync + rename); expectedHash (the
//       sha256 hex `get` returned) refuses a file changed since: INVALID_REQUEST
//       `agent file "NAME" changed since it was read`, details {type: "agent_file_conflict",
//       name, currentHash?}.
//   agents.workspace.get {agentId, path}              (operator.read)
//       → {agentId, file: {path, name, size, updatedAtMs, mimeType, encoding, content}}
//       any file under the workspace: UTF-8 text (≤ 256 KiB, "text/plain") or an image by its
//       extension and magic bytes (≤ 5 MiB, base64). Errors INVALID_REQUEST with details.type
//       workspace_path_invalid (absolute, or escapes the workspace), workspace_file_not_found
//       (also: a symbolic link or hard-linked file on the way), workspace_file_too_large,
//       workspace_file_unsupported.
//
// Entry = {name, path, missing, expectedAbsent?, size?, updatedAtMs?, hash?}. `name` must be one
// of the bootstrap file names (kBootstrapFileNames), else INVALID_REQUEST `unsupported file
// "NAME"`: no other path can be named, so nothing outside the workspace is reachable. A file
// that is a symbolic link, not a regular file or hard-linked elsewhere is refused (`unsafe
// workspace file "NAME"`) and never followed. MEMORY.md reads and writes the workspace's
// `memory.md` when only that exists (the file the prompt loads). An unknown agent answers
// INVALID_REQUEST `agent "ID" not found`.
//
// Blocking file I/O on the loop: small files, rare admin calls (like agents.create).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <regex>
#include <variant>

#include "agent/agent_service.h"
#include "agent/agents_config.h"
#include "agent/workspace.h"
#include "core/base64.h"
#include "core/config.h"
#include "core/ids.h"
#include "core/utf8.h"
#include "gateway/gateway.h"
#include "gateway/methods/agents.h"
#include "gateway/methods/params.h"
#include "store/atomic_file.h"
#include "store/session_keys.h"

namespace pincer::gateway {
namespace agent_files_methods {  // named: the unity build joins several files into one unit

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::size_t kMaxAgentFileBytes = agent::kMaxBootstrapFileBytes;
constexpr std::size_t kMaxPreviewBytes = 256u << 10;  // agents.workspace.get: text
constexpr std::size_t kMaxImageBytes = 5u << 20;      // agents.workspace.get: images

/// The agent's workspace, or the error to answer.
struct AgentWorkspace {
  std::string agent_id;
  fs::path dir;
};

std::variant<AgentWorkspace, RpcError> resolve_agent(MethodContext& ctx, const std::string& raw_id) {
  auto* service = ctx.gateway.agents();
  if (!service) return no_runtime();
  auto agents = agent::resolve_agents(service->effective_config(), service->state_directory(), config::process_env());
  if (!agents) return RpcError::unavailable(agents.error().message);
  const agent::AgentSettings* spec = agents->find(store::normalize_agent_id(raw_id));
  if (!spec) return RpcError::invalid("agent \"" + raw_id + "\" not found");
  return AgentWorkspace{spec->id, spec->workspace};
}

bool is_bootstrap_name(const std::string& name) {
  return std::find(agent::kBootstrapFileNames.begin(), agent::kBootstrapFileNames.end(), name) !=
         agent::kBootstrapFileNames.end();
}

std::string allowed_names() {
  std::string out;
  for (auto n : agent::kBootstrapFileNames) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

/// Where the file `name` is: MEMORY.md is the lower-case memory.md when only that exists.
fs::path file_path(const fs::path& dir, const std::string& name) {
  std::error_code ec;
  if (name == "MEMORY.md" && !fs::exists(fs::symlink_status(dir / name, ec)) &&
      fs::is_regular_file(fs::symlink_status(dir / "memory.md", ec))) {
    return dir / "memory.md";
  }
  return dir / name;
}

int64_t mtime_ms(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
}

/// A regular file, not a link, not hard-linked elsewhere (OpenClaw's isRegularWorkspaceFileStat).
bool safe_file(const struct stat& st) { return S_ISREG(st.st_mode) && st.st_nlink <= 1; }

enum class Read { kOk, kMissing, kUnsafe, kTooLarge, kError };

/// Reads `path` without following a final symbolic link, checking that what was opened is what
/// was checked. `st` gets its status.
Read read_safely(const fs::path& path, std::size_t max_bytes, std::string& out, struct stat& st, std::string& why) {
  struct stat before {};
  if (::lstat(path.c_str(), &before) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return Read::kMissing;
    why = std::strerror(errno);
    return Read::kError;
  }
  if (!safe_file(before)) return Read::kUnsafe;
  if (static_cast<std::uintmax_t>(before.st_size) > max_bytes) {
    st = before;
    return Read::kTooLarge;
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ELOOP) return Read::kUnsafe;
    if (errno == ENOENT) return Read::kMissing;
    why = std::strerror(errno);
    return Read::kError;
  }
  Read result = Read::kOk;
  if (::fstat(fd, &st) != 0 || st.st_dev != before.st_dev || st.st_ino != before.st_ino || !safe_file(st)) {
    result = Read::kUnsafe;
  } else {
    out.clear();
    char buf[65536];
    for (;;) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        why = std::strerror(errno);
        result = Read::kError;
        break;
      }
      if (n == 0) break;
      out.append(buf, static_cast<std::size_t>(n));
      if (out.size() > max_bytes) {
        result = Read::kTooLarge;
        break;
      }
    }
  }
  ::close(fd);
  return result;
}

json missing_entry(const std::string& name, const fs::path& path) {
  return json{{"name", name}, {"path", path.string()}, {"missing", true}, {"expectedAbsent", name == "BOOTSTRAP.md" || name == "MEMORY.md"}};
}

json present_entry(const std::string& name, const fs::path& path, const struct stat& st) {
  return json{{"name", name}, {"path", path.string()}, {"missing", false}, {"size", static_cast<int64_t>(st.st_size)},
              {"updatedAtMs", mtime_ms(st)}};
}

/// Reads `agentId` and `name` (+ `extra` keys) and checks the name against the bootstrap files.
struct FileTarget {
  AgentWorkspace ws;
  std::string name;
  fs::path path;
};

std::variant<FileTarget, RpcError> file_target(MethodContext& ctx, const char* method, std::initializer_list<std::string_view> keys) {
  Params p(method, ctx.request.params);
  if (auto e = p.only(keys)) return *e;
  std::string agent_id, name;
  if (auto e = p.string("agentId", agent_id, true, true)) return *e;
  if (auto e = p.string("name", name, true, true)) return *e;
  auto ws = resolve_agent(ctx, agent_id);
  if (auto* e = std::get_if<RpcError>(&ws)) return *e;
  const auto a = name.find_first_not_of(" \t\r\n"), b = name.find_last_not_of(" \t\r\n");
  const std::string trimmed = a == std::string::npos ? "" : name.substr(a, b - a + 1);
  if (!is_bootstrap_name(trimmed)) {
    return RpcError::invalid("unsupported file \"" + name + "\" (agent files: " + allowed_names() + ")");
  }
  FileTarget t{std::get<AgentWorkspace>(std::move(ws)), trimmed, {}};
  t.path = file_path(t.ws.dir, trimmed);
  return t;
}

RpcError unsafe(const std::string& name) { return RpcError::invalid("unsafe workspace file \"" + name + "\""); }

MethodResult files_list(MethodContext& ctx) {
  Params p("agents.files.list", ctx.request.params);
  if (auto e = p.only({"agentId"})) return *e;
  std::string agent_id;
  if (auto e = p.string("agentId", agent_id, true, true)) return *e;
  auto resolved = resolve_agent(ctx, agent_id);
  if (auto* e = std::get_if<RpcError>(&resolved)) return *e;
  const auto& ws = std::get<AgentWorkspace>(resolved);
  json files = json::array();
  for (auto n : agent::kBootstrapFileNames) {
    const std::string name(n);
    if (name == "IDENTITY.md") continue;
    const fs::path path = file_path(ws.dir, name);
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && safe_file(st)) {
      files.push_back(present_entry(name, path, st));
    } else {
      files.push_back(missing_entry(name, path));
    }
  }
  return json{{"agentId", ws.agent_id}, {"workspace", ws.dir.string()}, {"files", std::move(files)}};
}

/// The file's entry with content and hash, or the error to answer.
std::variant<json, RpcError> read_entry(const FileTarget& t) {
  std::string content, why;
  struct stat st {};
  switch (read_safely(t.path, kMaxAgentFileBytes, content, st, why)) {
    case Read::kMissing: return missing_entry(t.name, t.path);
    case Read::kUnsafe: return unsafe(t.name);
    case Read::kTooLarge:
      return RpcError::invalid("agent file \"" + t.name + "\" is too large (more than " + std::to_string(kMaxAgentFileBytes) + " bytes)");
    case Read::kError: return RpcError::unavailable("cannot read " + t.path.string() + ": " + why);
    case Read::kOk: break;
  }
  if (!utf8::is_valid(content)) return RpcError::invalid("agent file \"" + t.name + "\" is not UTF-8 text");
  json entry = present_entry(t.name, t.path, st);
  entry["hash"] = ids::sha256_hex(content);
  entry["content"] = std::move(content);
  return entry;
}

MethodResult files_get(MethodContext& ctx) {
  auto target = file_target(ctx, "agents.files.get", {"agentId", "name"});
  if (auto* e = std::get_if<RpcError>(&target)) return *e;
  const auto& t = std::get<FileTarget>(target);
  auto entry = read_entry(t);
  if (auto* e = std::get_if<RpcError>(&entry)) return *e;
  return json{{"agentId", t.ws.agent_id}, {"workspace", t.ws.dir.string()}, {"file", std::get<json>(std::move(entry))}};
}

MethodResult files_set(MethodContext& ctx) {
  const char* m = "agents.files.set";
  auto target = file_target(ctx, m, {"agentId", "name", "content", "expectedHash"});
  if (auto* e = std::get_if<RpcError>(&target)) return *e;
  const auto& t = std::get<FileTarget>(target);
  Params p(m, ctx.request.params);
  std::string content, expected;
  if (auto e = p.string("content", content, true)) return *e;
  if (auto e = p.string("expectedHash", expected, false)) return *e;
  static const std::regex kSha256("^[0-9a-fA-F]{64}$");
  if (ctx.request.params.contains("expectedHash") && !std::regex_match(expected, kSha256)) {
    return invalid_params(m, "/expectedHash must be a sha256 hex digest (64 hex digits)");
  }
  if (content.size() > kMaxAgentFileBytes) {
    return invalid_params(m, "/content is " + std::to_string(content.size()) + " bytes (at most " +
                                 std::to_string(kMaxAgentFileBytes) + ")");
  }
  if (!utf8::is_valid(content)) return invalid_params(m, "/content is not valid UTF-8");
  std::transform(expected.begin(), expected.end(), expected.begin(), [](unsigned char c) { return std::tolower(c); });

  struct stat st {};
  const bool exists = ::lstat(t.path.c_str(), &st) == 0;
  if (exists && !safe_file(st)) return unsafe(t.name);
  if (!expected.empty()) {
    std::string current;
    if (exists) {
      std::string why;
      struct stat cur {};
      const Read r = read_safely(t.path, kMaxAgentFileBytes, current, cur, why);
      if (r == Read::kUnsafe) return unsafe(t.name);
      if (r == Read::kError) return RpcError::unavailable("cannot read " + t.path.string() + ": " + why);
    }
    const std::string current_hash = exists ? ids::sha256_hex(current) : "";
    if (current_hash != expected) {
      json details = {{"type", "agent_file_conflict"}, {"name", t.name}};
      if (exists) details["currentHash"] = current_hash;
      return RpcError::invalid("agent file \"" + t.name + "\" changed since it was read", std::move(details));
    }
  }
  // An existing file keeps its mode (the temp file is created under the gateway's umask); a new
  // one gets the mode the workspace's other files get (agent/workspace.h, umask applied).
  const mode_t mode = exists ? (st.st_mode & 0777) : 0644;
  if (auto w = store::write_file_atomic(t.path, content, mode); !w) return RpcError::unavailable(w.error().message);
  if (exists) ::chmod(t.path.c_str(), mode);
  struct stat after {};
  json file = {{"name", t.name}, {"path", t.path.string()}, {"missing", false}, {"size", content.size()}};
  if (::lstat(t.path.c_str(), &after) == 0) file["updatedAtMs"] = mtime_ms(after);
  file["hash"] = ids::sha256_hex(content);
  file["content"] = std::move(content);
  return json{{"ok", true}, {"agentId", t.ws.agent_id}, {"workspace", t.ws.dir.string()}, {"file", std::move(file)}};
}

// ---- agents.workspace.get ----

RpcError workspace_error(const std::string& type, const std::string& message, json details) {
  details["type"] = type;
  return RpcError::invalid(message, std::move(details));
}

/// The image type of `bytes` by its magic number, or "".
std::string sniff_image(std::string_view b) {
  auto starts = [&](std::string_view magic, std::size_t at = 0) { return b.size() >= at + magic.size() && b.substr(at, magic.size()) == magic; };
  if (starts("\x89PNG\r\n\x1a\n")) return "image/png";
  if (starts("\xff\xd8\xff")) return "image/jpeg";
  if (starts("GIF87a") || starts("GIF89a")) return "image/gif";
  if (starts("RIFF") && starts("WEBP", 8)) return "image/webp";
  if (starts("BM")) return "image/bmp";
  if (starts("ftyp", 4)) {
    const std::string_view brand = b.size() >= 12 ? b.substr(8, 4) : std::string_view{};
    if (brand == "avif" || brand == "avis") return "image/avif";
    if (brand == "heic" || brand == "heix" || brand == "hevc" || brand == "hevx") return "image/heic";
    if (brand == "mif1" || brand == "msf1") return "image/heif";
  }
  return "";
}

bool image_extension(const std::string& name) {
  std::string ext = fs::path(name).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* e : {".avif", ".bmp", ".gif", ".heic", ".heif", ".jpeg", ".jpg", ".png", ".webp"}) {
    if (ext == e) return true;
  }
  return false;
}

MethodResult workspace_get(MethodContext& ctx) {
  Params p("agents.workspace.get", ctx.request.params);
  if (auto e = p.only({"agentId", "path"})) return *e;
  std::string agent_id, raw;
  if (auto e = p.string("agentId", agent_id, true, true)) return *e;
  if (auto e = p.string("path", raw, true, true)) return *e;
  auto resolved = resolve_agent(ctx, agent_id);
  if (auto* e = std::get_if<RpcError>(&resolved)) return *e;
  const auto& ws = std::get<AgentWorkspace>(resolved);

  std::string portable = raw;
  std::replace(portable.begin(), portable.end(), '\\', '/');
  const bool drive = portable.size() >= 2 && std::isalpha(static_cast<unsigned char>(portable[0])) && portable[1] == ':';
  if (portable.starts_with('/') || drive) {
    return workspace_error("workspace_path_invalid", "path must be workspace-relative", {{"path", raw}});
  }
  std::vector<std::string> parts;
  for (std::size_t pos = 0; pos <= portable.size();) {
    auto slash = portable.find('/', pos);
    std::string part = portable.substr(pos, slash == std::string::npos ? std::string::npos : slash - pos);
    if (part == "..") {
      if (parts.empty()) return workspace_error("workspace_path_invalid", "path escapes the agent workspace", {{"path", raw}});
      parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(std::move(part));
    }
    if (slash == std::string::npos) break;
    pos = slash + 1;
  }
  std::string rel;
  for (const auto& s : parts) rel += (rel.empty() ? "" : "/") + s;
  auto not_found = [&] { return workspace_error("workspace_file_not_found", "workspace file not found", {{"path", rel}}); };
  if (parts.empty()) return not_found();

  // Walk down from the workspace without following any symbolic link.
  int dir = ::open(ws.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return not_found();
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    const int next = ::openat(dir, parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    ::close(dir);
    if (next < 0) return not_found();
    dir = next;
  }
  const int fd = ::openat(dir, parts.back().c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  ::close(dir);
  if (fd < 0) return not_found();
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !safe_file(st)) {
    ::close(fd);
    return not_found();
  }
  const bool image = image_extension(parts.back());
  const std::size_t max_bytes = image ? kMaxImageBytes : kMaxPreviewBytes;
  std::string bytes;
  bool too_large = static_cast<std::uintmax_t>(st.st_size) > max_bytes;
  while (!too_large) {
    char buf[65536];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    bytes.append(buf, static_cast<std::size_t>(n));
    too_large = bytes.size() > max_bytes;
  }
  ::close(fd);
  if (too_large) {
    return workspace_error("workspace_file_too_large", "workspace file is too large to preview",
                           {{"maxBytes", max_bytes}, {"path", rel}, {"size", static_cast<int64_t>(std::max<std::size_t>(bytes.size(), st.st_size))}});
  }
  auto unsupported = [&] {
    return workspace_error("workspace_file_unsupported", "workspace file is not UTF-8 text or a supported image", {{"path", rel}});
  };
  json file = {{"path", rel}, {"name", parts.back()}, {"size", bytes.size()}, {"updatedAtMs", mtime_ms(st)}};
  if (image) {
    const std::string mime = sniff_image(bytes);
    if (mime.empty()) return unsupported();
    file["mimeType"] = mime;
    file["encoding"] = "base64";
    file["content"] = base64_encode(bytes);
  } else {
    if (bytes.find('\0') != std::string::npos || !utf8::is_valid(bytes)) return unsupported();
    file["mimeType"] = "text/plain";
    file["encoding"] = "utf8";
    file["content"] = std::move(bytes);
  }
  return json{{"agentId", ws.agent_id}, {"file", std::move(file)}};
}

}  // namespace agent_files_methods

void register_agent_file_methods(MethodRegistry& registry) {
  registry.add({"agents.files.list", agent_files_methods::files_list});
  registry.add({"agents.files.get", agent_files_methods::files_get});
  registry.add({"agents.files.set", agent_files_methods::files_set});
  registry.add({"agents.workspace.get", agent_files_methods::workspace_get});
}

}  // namespace pincer::gateway
