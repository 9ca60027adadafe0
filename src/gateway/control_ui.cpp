#include "gateway/control_ui.h"
#include "core/json_dump.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sodium.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>

namespace pincer::gateway {
namespace {

using nlohmann::json;

// The largest file served (the biggest file of OpenClaw 2026.9's Control UI is ~3 MB).
constexpr int64_t kMaxFileBytes = 64 * 1024 * 1024;

// Root files the build emits beside index.html (OpenClaw's CONTROL_UI_ROOT_PUBLIC_ASSETS): also
// served from /__openclaw__/<name>, and anchored at the base path in index.html.
constexpr std::array<std::string_view, 6> kRootPublicAssets = {"apple-touch-icon.png", "favicon-32.png", "favicon.ico",
                                                               "favicon.svg",          "manifest.webmanifest", "sw.js"};
constexpr std::string_view kNamespacePrefix = "/__openclaw__/";
constexpr std::string_view kConfigFile = "/control-ui-config.json";

struct TypeEntry {
  std::string_view ext, type;
};
constexpr std::array<TypeEntry, 16> kContentTypes = {{
    {".html", "text/html; charset=utf-8"},
    {".js", "application/javascript; charset=utf-8"},
    {".css", "text/css; charset=utf-8"},
    {".json", "application/json; charset=utf-8"},
    {".map", "application/json; charset=utf-8"},
    {".svg", "image/svg+xml"},
    {".png", "image/png"},
    {".jpg", "image/jpeg"},
    {".jpeg", "image/jpeg"},
    {".gif", "image/gif"},
    {".webp", "image/webp"},
    {".ico", "image/x-icon"},
    {".txt", "text/plain; charset=utf-8"},
    {".wasm", "application/wasm"},
    {".webmanifest", "application/manifest+json; charset=utf-8"},
    {".woff2", "font/woff2"},
}};

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string extension(std::string_view path) {
  const auto slash = path.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const auto dot = name.rfind('.');
  return dot == std::string_view::npos || dot == 0 ? std::string() : lower(name.substr(dot));
}

const TypeEntry* find_type(std::string_view ext) {
  for (const auto& e : kContentTypes) {
    if (e.ext == ext) return &e;
  }
  return nullptr;
}

std::string header(const ControlUiRequest& r, const char* name) {
  auto it = r.headers.find(name);
  return it == r.headers.end() ? std::string() : it->second;
}

/// Percent-decoding of a URL path; nullopt for a malformed escape.
std::optional<std::string> percent_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size() || !std::isxdigit(static_cast<unsigned char>(s[i + 1])) ||
        !std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      return std::nullopt;
    }
    out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
    i += 2;
  }
  return out;
}

/// A relative path with no "..", "." or empty segment, no NUL, no backslash: nothing that could
/// name a file outside the root (openat2 RESOLVE_BENEATH enforces it again for symlinks).
bool safe_relative(std::string_view rel) {
  if (rel.empty() || rel.front() == '/' || rel.find('\0') != std::string_view::npos ||
      rel.find('\\') != std::string_view::npos) {
    return false;
  }
  std::size_t start = 0;
  while (start <= rel.size()) {
    const auto end = std::min(rel.find('/', start), rel.size());
    const std::string_view seg = rel.substr(start, end - start);
    if (seg.empty() || seg == "." || seg == "..") return false;
    start = end + 1;
  }
  return true;
}

/// Whether an Accept header admits an HTML document (no header: yes), as OpenClaw decides
/// whether a miss falls back to index.html.
bool accepts_html(std::string_view accept) {
  if (accept.find_first_not_of(" \t") == std::string_view::npos) return true;
  std::size_t start = 0;
  while (start < accept.size()) {
    const auto end = std::min(accept.find(',', start), accept.size());
    std::string item = lower(accept.substr(start, end - start));
    start = end + 1;
    std::string range = item.substr(0, item.find(';'));
    range.erase(std::remove_if(range.begin(), range.end(), [](char c) { return c == ' ' || c == '\t'; }), range.end());
    if (range != "text/html" && range != "application/xhtml+xml" && range != "text/*" && range != "*/*") continue;
    const auto q = item.find("q=");
    if (q != std::string::npos && std::strtod(item.c_str() + q + 2, nullptr) <= 0.0) continue;
    return true;
  }
  return false;
}

long open_beneath(int dirfd, const std::string& path) {
  open_how how{};
  how.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK;  // O_NONBLOCK: a FIFO planted in the root cannot block the loop
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  return ::syscall(SYS_openat2, dirfd, path.c_str(), &how, sizeof how);
}

/// The regular file `rel` beneath `root_fd`, read whole; nullopt when absent or not a regular file.
struct File {
  std::string bytes;
  int64_t mtime = 0;
};
std::optional<File> read_beneath(int root_fd, const std::string& rel) {
  const long fd = open_beneath(root_fd, rel);
  if (fd < 0) return std::nullopt;
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{static_cast<int>(fd)};
  struct stat st{};
  if (::fstat(closer.fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > kMaxFileBytes) return std::nullopt;
  File f;
  f.mtime = st.st_mtim.tv_sec;
  f.bytes.resize(static_cast<std::size_t>(st.st_size));
  std::size_t got = 0;
  while (got < f.bytes.size()) {
    const ssize_t n = ::read(closer.fd, f.bytes.data() + got, f.bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  f.bytes.resize(got);
  return f;
}

void security_headers(ControlUiAnswer& a, const std::string& csp) {
  a.headers.emplace_back("X-Frame-Options", "DENY");
  a.headers.emplace_back("Content-Security-Policy", csp);
  a.headers.emplace_back("X-Content-Type-Options", "nosniff");
  a.headers.emplace_back("Referrer-Policy", "no-referrer");
}

ControlUiAnswer plain(int status, std::string text) {
  ControlUiAnswer a;
  a.status = status;
  a.headers.emplace_back("Content-Type", "text/plain; charset=utf-8");
  a.headers.emplace_back("Cache-Control", "no-store");
  a.body = std::move(text);
  return a;
}

std::string base64(const unsigned char* data, std::size_t n) {
  std::string out(sodium_base64_encoded_len(n, sodium_base64_VARIANT_ORIGINAL), '\0');
  sodium_bin2base64(out.data(), out.size(), data, n, sodium_base64_VARIANT_ORIGINAL);
  out.resize(std::strlen(out.c_str()));
  return out;
}

std::string escape_attribute(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      default: out += c;
    }
  }
  return out;
}

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
}

}  // namespace

std::string normalize_control_ui_base_path(std::string_view base_path) {
  while (!base_path.empty() && std::isspace(static_cast<unsigned char>(base_path.front()))) base_path.remove_prefix(1);
  while (!base_path.empty() && std::isspace(static_cast<unsigned char>(base_path.back()))) base_path.remove_suffix(1);
  if (base_path.empty() || base_path == "/") return "";
  std::string out = base_path.front() == '/' ? std::string(base_path) : "/" + std::string(base_path);
  if (out.back() == '/') out.pop_back();
  return out;
}

std::string control_ui_base_path_problem(std::string_view base_path) {
  const std::string where = "gateway.controlUi.basePath: \"" + std::string(base_path) + "\": ";
  if (base_path.empty()) return "";
  std::size_t start = 1;  // normalised: a leading "/"
  while (start <= base_path.size()) {
    std::size_t end = base_path.find('/', start);
    if (end == std::string_view::npos) end = base_path.size();
    const std::string_view seg = base_path.substr(start, end - start);
    if (seg.empty()) return where + "has an empty segment (\"//\")";
    if (seg == "." || seg == "..") return where + "the segment \"" + std::string(seg) + "\" is not allowed";
    for (char c : seg) {
      const bool safe = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' || c == '~';
      if (!safe) return where + "only letters, digits and -._~ may appear in a segment (found " +
                        (c == ' ' ? std::string("a space") : std::isprint(static_cast<unsigned char>(c)) ? "\"" + std::string(1, c) + "\"" : "a control or non-ASCII byte") + ")";
    }
    start = end + 1;
  }
  return "";
}

ControlUiSettings control_ui_settings(const nlohmann::json& control_ui, const std::string& home) {
  ControlUiSettings s;
  if (!control_ui.is_object()) return s;
  if (const auto root = control_ui.find("root"); root != control_ui.end() && root->is_string()) {
    std::string r = root->get<std::string>();
    if ((r == "~" || r.starts_with("~/")) && !home.empty()) r = home + r.substr(1);
    if (!r.empty()) {
      std::error_code ec;
      const auto abs = std::filesystem::absolute(r, ec);
      s.root = ec ? r : abs.lexically_normal().string();
      if (s.root.size() > 1 && s.root.back() == '/') s.root.pop_back();
    }
  }
  if (const auto base = control_ui.find("basePath"); base != control_ui.end() && base->is_string()) {
    s.base_path = normalize_control_ui_base_path(base->get<std::string>());
  }
  return s;
}

Status check_control_ui_root(const std::string& root) {
  const std::string fix = "; point gateway.controlUi.root at OpenClaw's built Control UI (e.g. "
                          "<openclaw package>/dist/control-ui of an installed `openclaw` npm package)";
  struct stat st{};
  if (::stat(root.c_str(), &st) != 0) {
    return Error{"CONTROL_UI_ROOT", "gateway.controlUi.root: " + root + " does not exist (" + std::strerror(errno) + ")" + fix};
  }
  if (!S_ISDIR(st.st_mode)) return Error{"CONTROL_UI_ROOT", "gateway.controlUi.root: " + root + " is not a directory" + fix};
  const std::string index = root + (root.ends_with('/') ? "" : "/") + "index.html";
  if (::stat(index.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return Error{"CONTROL_UI_ROOT", "gateway.controlUi.root: " + root + " has no index.html" + fix};
  }
  if (::access(index.c_str(), R_OK) != 0) {
    return Error{"CONTROL_UI_ROOT", "gateway.controlUi.root: " + index + " is not readable (" + std::strerror(errno) + ")"};
  }
  return Ok{};
}

ControlUi::ControlUi(ControlUiSettings settings, nlohmann::json config, std::string version)
    : settings_(std::move(settings)), config_(std::move(config)), version_(std::move(version)) {
  if (!settings_.enabled()) return;
  if (auto st = check_control_ui_root(settings_.root); !st) {
    root_problem_ = st.error().message;
    return;
  }
  root_fd_ = ::open(settings_.root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root_fd_ < 0) root_problem_ = "gateway.controlUi.root: cannot open " + settings_.root + ": " + std::strerror(errno);
}

ControlUi::~ControlUi() {
  if (root_fd_ >= 0) ::close(root_fd_);
}

std::string_view ControlUi::web_chat_prefix() const {
  return enabled() && settings_.base_path.empty() ? kWebChatPrefix : std::string_view();
}

std::optional<ControlUiAnswer> ControlUi::handle(const ControlUiRequest& request,
                                                 const std::function<bool(std::string_view)>& authorized) const {
  if (!enabled() || (request.method != "GET" && request.method != "HEAD")) return std::nullopt;
  const std::string_view target = request.target;
  const std::string_view path = target.substr(0, target.find('?'));
  const std::string_view search = target.substr(path.size());
  const std::string& base = settings_.base_path;
  const std::string host = header(request, "host");
  if (base.empty()) {
    if (path == kWebChatPrefix || path.starts_with(std::string(kWebChatPrefix) + "/")) return std::nullopt;
  } else if (path == base) {
    ControlUiAnswer a;
    security_headers(a, control_ui_detail::index_csp("", host));
    a.status = 302;
    a.headers.emplace_back("Location", base + "/" + std::string(search));
    return a;
  } else if (!path.starts_with(base + "/")) {
    return std::nullopt;
  }
  const std::string_view ui_path = path.substr(base.size());  // starts with "/"
  if (ui_path == kConfigFile || ui_path == "/__openclaw" + std::string(kConfigFile) ||
      (base.empty() && ui_path == std::string(kNamespacePrefix.substr(0, kNamespacePrefix.size() - 1)) + std::string(kConfigFile))) {
    return serve_config(request, authorized);
  }
  if (root_fd_ < 0) {
    auto a = plain(503, "Control UI assets not found: " + root_problem_ + "\n");
    security_headers(a, control_ui_detail::index_csp("", host));
    return a;
  }

  // The file asked for, as OpenClaw maps it: "/" → index.html, /__openclaw__/<root public file>,
  // anything under an "/assets/" segment → assets/…, else the path itself.
  std::string rel;
  if (ui_path == "/") {
    rel = "";
  } else if (ui_path.starts_with(kNamespacePrefix) &&
             std::find(kRootPublicAssets.begin(), kRootPublicAssets.end(), ui_path.substr(kNamespacePrefix.size())) !=
                 kRootPublicAssets.end()) {
    rel = std::string(ui_path.substr(kNamespacePrefix.size()));
  } else if (const auto at = ui_path.find("/assets/"); at != std::string_view::npos) {
    rel = std::string(ui_path.substr(at + 1));
  } else {
    rel = std::string(ui_path.substr(1));
  }
  if (rel.empty() || rel.back() == '/') rel += "index.html";
  ControlUiAnswer a;
  security_headers(a, control_ui_detail::index_csp("", host));
  const auto decoded = percent_decode(rel);
  if (!decoded || !safe_relative(*decoded)) {
    auto nf = plain(404, "Not Found\n");
    nf.headers.insert(nf.headers.begin(), a.headers.begin(), a.headers.end());
    return nf;
  }
  const std::string ext = extension(*decoded);
  const bool is_index = decoded->ends_with("index.html") &&
                        (decoded->size() == 10 || (*decoded)[decoded->size() - 11] == '/');
  if (!is_index) {
    if (auto file = read_beneath(root_fd_, *decoded)) {
      const TypeEntry* type = find_type(ext);
      const std::string last_modified = control_ui_detail::http_date(file->mtime);
      a.headers.emplace_back("Cache-Control", "no-cache");  // a configured root: revalidated (as OpenClaw)
      a.headers.emplace_back("Last-Modified", last_modified);
      a.headers.emplace_back("Vary", "Accept-Encoding");
      const std::string inm = header(request, "if-none-match");
      const auto since = control_ui_detail::parse_http_date(header(request, "if-modified-since"));
      const bool unmodified = !inm.empty() ? inm.find_first_not_of(" \t") != std::string::npos &&
                                                 inm.substr(inm.find_first_not_of(" \t"), 1) == "*"
                                           : since && *since >= file->mtime;
      if (unmodified) {
        a.status = 304;
        return a;
      }
      a.headers.emplace_back("Content-Type", type ? std::string(type->type) : "application/octet-stream");
      a.body = std::move(file->bytes);
      return a;
    }
    // A missing asset stays missing; a missing page is the app's route (SPA fallback).
    if ((find_type(ext) && ext != ".html") || !accepts_html(header(request, "accept"))) {
      auto nf = plain(404, "Not Found\n");
      nf.headers.insert(nf.headers.begin(), a.headers.begin(), a.headers.end());
      return nf;
    }
  }
  return serve_index(request);
}

ControlUiAnswer ControlUi::serve_index(const ControlUiRequest& request) const {
  auto file = read_beneath(root_fd_, "index.html");
  if (!file) return plain(503, "Control UI assets not found: " + settings_.root + "/index.html is unreadable\n");
  const std::string html = control_ui_detail::rewrite_index(file->bytes, settings_.base_path);
  ControlUiAnswer a;
  a.headers.emplace_back("X-Frame-Options", "DENY");
  a.headers.emplace_back("Content-Security-Policy", control_ui_detail::index_csp(html, header(request, "host")));
  a.headers.emplace_back("X-Content-Type-Options", "nosniff");
  a.headers.emplace_back("Referrer-Policy", "no-referrer");
  a.headers.emplace_back("Content-Type", "text/html; charset=utf-8");
  a.headers.emplace_back("Cache-Control", "no-cache");
  a.body = html;
  return a;
}

ControlUiAnswer ControlUi::serve_config(const ControlUiRequest& request,
                                        const std::function<bool(std::string_view)>& authorized) const {
  std::string bearer;
  const std::string auth = header(request, "authorization");
  if (lower(auth.substr(0, 7)) == "bearer ") {
    bearer = auth.substr(7);
    bearer.erase(0, bearer.find_first_not_of(" \t"));
    while (!bearer.empty() && (bearer.back() == ' ' || bearer.back() == '\t')) bearer.pop_back();
  }
  ControlUiAnswer a;
  security_headers(a, control_ui_detail::index_csp("", header(request, "host")));
  a.headers.emplace_back("Content-Type", "application/json; charset=utf-8");
  if (!authorized(bearer)) {
    a.status = 401;
    a.headers.emplace_back("Cache-Control", "no-store");
    a.headers.emplace_back("WWW-Authenticate", "Bearer");
    a.body = R"({"ok":false,"error":"unauthorized: send the gateway token or password as Authorization: Bearer …"})";
    return a;
  }
  a.headers.emplace_back("Cache-Control", "no-cache");
  // The default agent (agents.list[] with default: true, else the first, else "main").
  std::string agent_id = "main", name;
  if (const auto agents = config_.find("agents"); agents != config_.end() && agents->is_object()) {
    if (const auto list = agents->find("list"); list != agents->end() && list->is_array() && !list->empty()) {
      const json* pick = &list->front();
      for (const auto& a2 : *list) {
        if (a2.is_object() && a2.value("default", false)) {
          pick = &a2;
          break;
        }
      }
      if (pick->is_object()) {
        agent_id = pick->value("id", agent_id);
        name = pick->value("name", "");
      }
    }
  }
  if (name.empty()) name = "Assistant";  // OpenClaw's default identity
  const unsigned char first = static_cast<unsigned char>(name.front());
  const std::string avatar = std::isalpha(first) ? std::string(1, static_cast<char>(std::toupper(first))) : "A";
  const json body = {
      {"basePath", settings_.base_path},
      {"assistantName", name},
      {"assistantAvatar", avatar},
      {"assistantAvatarSource", nullptr},
      {"assistantAvatarStatus", nullptr},
      {"assistantAvatarReason", nullptr},
      {"assistantAgentId", agent_id},
      {"serverVersion", version_},
      {"embedSandbox", "scripts"},
      {"allowExternalEmbedUrls", false},
      {"automaticallyFetchFavicons", true},
      {"communityInvite", false},
      {"terminalEnabled", false},  // Pincer has no terminals over the gateway
      {"cliAgentsEnabled", false},
      {"pluginAssetsRequireAuth", !authorized("")},
      {"pluginFrameGrants", json::array()},
  };
  a.body = json_dump::compact(body);
  return a;
}

namespace control_ui_detail {

std::string content_type(std::string_view path) {
  const TypeEntry* t = find_type(extension(path));
  return t ? std::string(t->type) : "application/octet-stream";
}

std::string rewrite_index(std::string_view html, std::string_view base_path) {
  std::string out(html);
  const std::string base(base_path);
  replace_all(out, "src=\"./assets/", "src=\"" + base + "/assets/");
  replace_all(out, "href=\"./assets/", "href=\"" + base + "/assets/");
  for (const auto asset : kRootPublicAssets) {
    const std::string to = "href=\"" + base + "/" + std::string(asset) + "\"";
    replace_all(out, "href=\"./" + std::string(asset) + "\"", to);
    if (!base.empty()) replace_all(out, "href=\"/" + std::string(asset) + "\"", to);
  }
  // The <html> tag: drop the build id (a configured root has no verified build identity) and add
  // the base path and terminal attributes the UI reads.
  const auto open = lower(out).find("<html");
  if (open != std::string::npos) {
    const auto close = out.find('>', open);
    if (close != std::string::npos) {
      std::string tag = out.substr(open, close - open);
      const std::string build_attr = " data-openclaw-control-ui-build-id=\"";
      if (const auto b = tag.find(build_attr); b != std::string::npos) {
        const auto e = tag.find('"', b + build_attr.size());
        if (e != std::string::npos) tag.erase(b, e + 1 - b);
      }
      tag.insert(5, " data-openclaw-control-ui-base-path=\"" + escape_attribute(base) +
                        "\" data-openclaw-terminal-enabled=\"false\"");
      out.replace(open, close - open, tag);
    }
  }
  return out;
}

std::string index_csp(std::string_view html, std::string_view host) {
  std::string scripts = "'self'";
  const std::string low = lower(html);
  for (std::size_t at = low.find("<script"); at != std::string::npos; at = low.find("<script", at + 7)) {
    const auto tag_end = low.find('>', at);
    if (tag_end == std::string::npos) break;
    const std::string tag = low.substr(at, tag_end - at);
    const auto body_end = low.find("</script>", tag_end);
    if (body_end == std::string::npos) break;
    const bool has_src = tag.find(" src=") != std::string::npos || tag.find("\tsrc=") != std::string::npos ||
                         tag.find("\nsrc=") != std::string::npos;
    const std::string_view content = html.substr(tag_end + 1, body_end - tag_end - 1);
    if (!has_src && !content.empty()) {
      unsigned char digest[crypto_hash_sha256_BYTES];
      crypto_hash_sha256(digest, reinterpret_cast<const unsigned char*>(content.data()), content.size());
      scripts += " 'sha256-" + base64(digest, sizeof digest) + "'";
    }
    at = body_end;
  }
  const bool plain_host = !host.empty() && host.size() <= 255 && std::all_of(host.begin(), host.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == ':' || c == '-' || c == '[' || c == ']';
  });
  std::string connect = "'self'";
  if (plain_host) connect += " ws://" + std::string(host) + " wss://" + std::string(host);
  connect += " data:";
  return "default-src 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'; frame-src 'self'; "
         "script-src " + scripts +
         "; style-src 'self' 'unsafe-inline' https://fonts.googleapis.com; img-src 'self' data: blob: https:; "
         "media-src 'self' data: blob:; font-src 'self' https://fonts.gstatic.com; worker-src 'self'; connect-src " +
         connect;
}

std::string http_date(int64_t unix_seconds) {
  std::tm tm{};
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  ::gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

std::optional<int64_t> parse_http_date(std::string_view value) {
  if (value.empty() || value.size() > 64) return std::nullopt;
  std::tm tm{};
  const std::string s(value);
  const char* end = ::strptime(s.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (!end || *end != '\0') return std::nullopt;
  return static_cast<int64_t>(::timegm(&tm));
}

}  // namespace control_ui_detail

}  // namespace pincer::gateway
