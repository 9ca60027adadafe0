#include "agent/cli_images.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <spdlog/spdlog.h>

#include "agent/attachments.h"

namespace pincer::agent {
namespace detail_cli_images {

std::string extension_for(const std::string& mime) {
  if (mime == "image/jpeg") return "jpg";
  if (mime == "image/gif") return "gif";
  if (mime == "image/webp") return "webp";
  return "png";
}

/// Creates `file` (0600, not there before) holding `bytes`.
bool write_private_file(const std::filesystem::path& file, const std::string& bytes) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return ::close(fd) == 0;
}

}  // namespace detail_cli_images

Result<std::unique_ptr<CliImageFiles>> CliImageFiles::write(const std::vector<llm::ImageContent>& images) {
  std::unique_ptr<CliImageFiles> files(new CliImageFiles());
  std::error_code ec;
  std::string pattern = (std::filesystem::temp_directory_path(ec) / "pincer-cli-images-XXXXXX").string();
  if (ec) pattern = "/tmp/pincer-cli-images-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {  // 0700
    return Error{"IO_ERROR", "cannot create a directory for the CLI's images (" + pattern + "): " + std::strerror(errno)};
  }
  files->dir_ = pattern;
  for (std::size_t i = 0; i < images.size(); ++i) {
    auto bytes = base64_decode(images[i].data);
    if (!bytes) return Error{"INVALID_REQUEST", "image " + std::to_string(i + 1) + " of the turn is not valid base64"};
    const auto file = files->dir_ / ("image-" + std::to_string(i + 1) + "." + detail_cli_images::extension_for(images[i].mime_type));
    if (!detail_cli_images::write_private_file(file, *bytes)) {
      return Error{"IO_ERROR", "cannot write " + file.string() + ": " + std::strerror(errno)};
    }
    files->paths_.push_back(file.string());
  }
  return files;
}

CliImageFiles::~CliImageFiles() {
  if (dir_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
  if (ec) spdlog::warn("cannot remove the CLI's image files in {}: {}", dir_.string(), ec.message());
}

}  // namespace pincer::agent
