// CLI backends: the turn's images as files (PV-6; OpenClaw's cli-runner image pass-through). A
// CLI takes images as paths (`imageArg`, or the paths named in its prompt), so each image block of
// the turn is written to a private directory `<temp dir>/pincer-cli-images-XXXXXX` (0700; files
// `image-<n>.<png|jpg|gif|webp>`, 0600, the decoded bytes) for one CLI call, and the directory is
// removed with the object — when the call ends, fails or is aborted.
// Any thread; one object per call.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "llm/messages.h"

namespace pincer::agent {

class CliImageFiles {
 public:
  /// Writes `images` (their `data`, base64). Errors: IO_ERROR naming the directory or file,
  /// INVALID_REQUEST for an image whose data is not base64.
  static Result<std::unique_ptr<CliImageFiles>> write(const std::vector<llm::ImageContent>& images);
  ~CliImageFiles();
  CliImageFiles(const CliImageFiles&) = delete;
  CliImageFiles& operator=(const CliImageFiles&) = delete;

  /// Absolute paths, in the images' order.
  const std::vector<std::string>& paths() const { return paths_; }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  CliImageFiles() = default;
  std::filesystem::path dir_;
  std::vector<std::string> paths_;
};

}  // namespace pincer::agent
