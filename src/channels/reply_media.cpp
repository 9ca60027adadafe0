#include "channels/reply_media.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>

#include <fmt/format.h>

#include "agent/agents_config.h"
#include "core/config.h"
#include "delivery/markdown_html.h"
#include "delivery/media_directives.h"
#include "store/session_index.h"
#include "tools/workspace_path.h"

namespace pincer::channels {

namespace {

std::string reply_media_mb(std::uintmax_t bytes) {
  if (bytes < 1'000'000) return fmt::format("{} bytes", bytes);
  return fmt::format("{:.1f} MB", static_cast<double>(bytes) / 1e6);
}

bool reply_media_is_url(const std::string& ref) {
  const auto scheme = ref.find("://");
  if (scheme == std::string::npos || scheme == 0) return false;
  return std::all_of(ref.begin(), ref.begin() + static_cast<std::ptrdiff_t>(scheme), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
  });
}

std::string reply_media_file_name(const std::string& ref) {
  std::string name = std::filesystem::path(ref).filename().string();
  return name.empty() ? "file" : name;
}

/// Opens a resolved path beneath its root and checks it is a regular file within `max_bytes`;
/// the descriptor (caller closes) and its size.
Result<std::pair<int, std::uintmax_t>> reply_media_open(const tools::WorkspacePath& p, std::size_t max_bytes) {
  const int fd = tools::open_in_workspace(p, O_RDONLY | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return Error{"MEDIA_MISSING", "no such file"};
    if (errno == ELOOP || errno == EXDEV) return Error{"MEDIA_REFUSED", "outside the workspace and the media folder"};
    return Error{"MEDIA_REFUSED", std::string("cannot be read: ") + std::strerror(errno)};
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error{"MEDIA_REFUSED", "not a regular file"};
  }
  const auto size = static_cast<std::uintmax_t>(st.st_size);
  if (size > max_bytes) {
    ::close(fd);
    return Error{"MEDIA_REFUSED", reply_media_mb(size) + ", over the " + reply_media_mb(max_bytes) + " limit"};
  }
  return std::pair<int, std::uintmax_t>{fd, size};
}

std::size_t reply_media_cap(const ChannelCapabilities& caps) {
  return caps.media_max_bytes ? std::min(caps.media_max_bytes, kMaxReplyMediaBytes) : kMaxReplyMediaBytes;
}

/// A plain-text line in the channel's format (no Markdown: a file name is shown as it is).
std::string reply_media_plain(delivery::TextFormat format, const std::string& text) {
  if (format == delivery::TextFormat::TelegramHtml) return delivery::escape_html(text);
  if (format == delivery::TextFormat::SlackMrkdwn) {
    std::string out;
    for (char c : text) {
      if (c == '&') out += "&amp;";
      else if (c == '<') out += "&lt;";
      else if (c == '>') out += "&gt;";
      else out += c;
    }
    return out;
  }
  return text;
}

}  // namespace

std::string media_not_sent_notice(const std::string& file_name, const std::string& reason) {
  std::string name = file_name.size() > 200 ? file_name.substr(0, 200) + "…" : file_name;
  return "[file " + name + " not sent: " + reason + "]";
}

std::string mime_for_file_name(const std::string& file_name) {
  static const std::map<std::string, std::string> kTypes = {
      {".png", "image/png"},        {".jpg", "image/jpeg"},        {".jpeg", "image/jpeg"},
      {".gif", "image/gif"},        {".webp", "image/webp"},       {".svg", "image/svg+xml"},
      {".pdf", "application/pdf"},  {".txt", "text/plain"},        {".md", "text/markdown"},
      {".csv", "text/csv"},         {".json", "application/json"}, {".html", "text/html"},
      {".xml", "application/xml"},  {".zip", "application/zip"},   {".gz", "application/gzip"},
      {".tar", "application/x-tar"}, {".mp3", "audio/mpeg"},       {".ogg", "audio/ogg"},
      {".opus", "audio/ogg"},       {".wav", "audio/wav"},         {".m4a", "audio/mp4"},
      {".mp4", "video/mp4"},        {".webm", "video/webm"},       {".mov", "video/quicktime"},
      {".docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
      {".xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
  };
  std::string ext = std::filesystem::path(file_name).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  auto it = kTypes.find(ext);
  return it == kTypes.end() ? "" : it->second;
}

Result<OutboxMedia> resolve_reply_media(const MediaRoots& roots, const std::string& reference, std::size_t max_bytes) {
  if (reply_media_is_url(reference)) return Error{"MEDIA_REFUSED", "URLs are not fetched"};
  std::string path = reference;
  if (path.starts_with("~/")) {
    const char* home = std::getenv("HOME");
    if (!home || !*home) return Error{"MEDIA_REFUSED", "outside the workspace and the media folder"};
    path = std::string(home) + path.substr(1);
  }
  std::vector<std::filesystem::path> candidates;
  if (!roots.workspace.empty()) candidates.push_back(roots.workspace);
  if (std::filesystem::path(path).is_absolute()) candidates.insert(candidates.end(), roots.extra.begin(), roots.extra.end());
  for (const auto& root : candidates) {
    std::error_code ec;
    if (!std::filesystem::is_directory(root, ec)) continue;
    auto resolved = tools::resolve_workspace_path(root, path);
    if (!resolved) {
      if (resolved.error().code == "PATH_OUTSIDE_WORKSPACE" || resolved.error().code == "WORKSPACE_MISSING") continue;
      return Error{"MEDIA_REFUSED", resolved.error().message};
    }
    auto opened = reply_media_open(*resolved, max_bytes);
    if (!opened) return opened.error();
    ::close(opened->first);
    return OutboxMedia{resolved->root.string(), resolved->relative, reply_media_file_name(reference)};
  }
  return Error{"MEDIA_REFUSED", "outside the workspace and the media folder"};
}

Result<agent::Attachment> load_reply_media(const OutboxMedia& media, std::size_t max_bytes) {
  if (media.root.empty() || media.relative.empty()) return Error{"MEDIA_MISSING", "no such file"};
  auto resolved = tools::resolve_workspace_path(media.root, media.relative);
  if (!resolved) {
    if (resolved.error().code == "WORKSPACE_MISSING") return Error{"MEDIA_MISSING", "no such file"};
    return Error{"MEDIA_REFUSED", "outside the workspace and the media folder"};
  }
  auto opened = reply_media_open(*resolved, max_bytes);
  if (!opened) return opened.error();
  const int fd = opened->first;
  agent::Attachment a;
  a.file_name = media.file_name.empty() ? reply_media_file_name(media.relative) : media.file_name;
  a.bytes.resize(static_cast<std::size_t>(opened->second));
  std::size_t got = 0;
  while (got < a.bytes.size()) {
    const ssize_t n = ::read(fd, a.bytes.data() + got, a.bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  a.bytes.resize(got);  // a file that shrank meanwhile is sent as it is now
  a.mime_type = agent::sniff_image_mime(a.bytes);
  if (!a.mime_type.empty()) {
    a.kind = "image";
  } else {
    a.kind = "file";
    a.mime_type = a.bytes.starts_with("%PDF-") ? "application/pdf" : mime_for_file_name(a.file_name);
    if (a.mime_type.empty() || a.mime_type.starts_with("image/")) a.mime_type = "application/octet-stream";
  }
  return a;
}

MediaRoots media_roots_for_agent(const nlohmann::json& config, const std::filesystem::path& state_dir,
                                 const std::string& agent_id) {
  MediaRoots roots;
  auto agents = agent::resolve_agents(config, state_dir, config::process_env());
  if (!agents) return roots;
  const agent::AgentSettings* spec = agents->find(agent_id);
  if (!spec) spec = &agents->default_agent();
  roots.workspace = spec->workspace;
  roots.extra.push_back(store::sessions_dir(state_dir, spec->id) / "media");
  return roots;
}

PreparedReplyMedia prepare_reply_media(const std::string& markdown, const MediaRoots& roots, const Channel& channel) {
  delivery::ReplyMediaSplit split = delivery::split_media_directives(markdown);
  PreparedReplyMedia out;
  out.markdown = std::move(split.text);
  if (split.references.empty() && split.dropped == 0) return out;
  const ChannelCapabilities caps = channel.capabilities();
  std::vector<std::string> notices;
  for (const auto& ref : split.references) {
    const std::string name = reply_media_file_name(ref);
    if (!caps.media_out) {
      notices.push_back(media_not_sent_notice(name, channel.id() + " cannot send files"));
      continue;
    }
    auto resolved = resolve_reply_media(roots, ref, reply_media_cap(caps));
    if (resolved) {
      out.media.push_back(std::move(*resolved));
    } else {
      notices.push_back(media_not_sent_notice(name, resolved.error().message));
    }
  }
  if (split.dropped > 0) {
    notices.push_back(fmt::format("[{} more file(s) not sent: at most {} per reply]", split.dropped,
                                  delivery::kMaxMediaDirectives));
  }
  for (const auto& n : notices) {
    if (!out.markdown.empty()) out.markdown += "\n\n";
    out.markdown += n;
  }
  return out;
}

void send_reply_media(Channel& channel, const std::string& chat_id, const std::string& thread_id,
                      const std::string& reply_to, const OutboxMedia& media, std::function<void(Status)> done) {
  const ChannelCapabilities caps = channel.capabilities();
  Channel* ch = &channel;  // alive while a call of it can answer (Channel::stop)
  auto notice = [ch, chat_id, thread_id, reply_to, format = caps.format](const std::string& text,
                                                                         std::function<void(Status)> fn) {
    OutboundMessage message{chat_id, thread_id, reply_media_plain(format, text), {}, reply_to};
    ch->send_text(message, [fn = std::move(fn)](Result<std::string> sent) {
      fn(sent ? Status(Ok{}) : Status(sent.error()));
    });
  };
  const std::string name = media.file_name.empty() ? reply_media_file_name(media.relative) : media.file_name;
  if (!caps.media_out) return notice(media_not_sent_notice(name, channel.id() + " cannot send files"), std::move(done));
  auto loaded = load_reply_media(media, reply_media_cap(caps));
  if (!loaded) return notice(media_not_sent_notice(name, loaded.error().message), std::move(done));
  OutboundMedia out{chat_id, thread_id, std::move(*loaded), {}, reply_to};
  channel.send_media(out, [notice, name, done = std::move(done)](Result<std::string> sent) mutable {
    if (sent) return done(Ok{});
    if (sent.error().code != "REJECTED") return done(sent.error());
    notice(media_not_sent_notice(name, sent.error().message), std::move(done));
  });
}

}  // namespace pincer::channels
