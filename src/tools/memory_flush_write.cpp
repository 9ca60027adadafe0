// The append-only `write` of a memory-flush turn (CX-10); see memory_flush_write.h.
#include "tools/memory_flush_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "tools/workspace_path.h"

namespace pincer::tools {

namespace {

using nlohmann::json;

class MemoryFlushWriteTool final : public Tool {
 public:
  explicit MemoryFlushWriteTool(std::string relative_path)
      : path_(std::move(relative_path)),
        description_("Append text to " + path_ + " (during this memory flush, the only file that may be written; " +
                     "existing content is always kept, so send only the new lines)."),
        schema_({{"type", "object"},
                 {"properties",
                  {{"path", {{"type", "string"}, {"description", "Must be " + path_ + "."}}},
                   {"content", {{"type", "string"}, {"description", "The new text to append (not the whole file)."}}}}},
                 {"required", {"path", "content"}}}) {}

  std::string_view name() const override { return "write"; }
  std::string_view group() const override { return "fs"; }
  std::string_view description() const override { return description_; }
  const json& parameters() const override { return schema_; }

  ToolOutput run(const json& args, ToolContext& ctx) const override {
    const auto& content = args["content"].get_ref<const std::string&>();
    auto p = resolve_workspace_path(ctx.workspace, args["path"].get<std::string>());
    if (!p) return ToolOutput::failure(name(), p.error().message, p.error().code);
    if (p->relative != path_) {
      return ToolOutput::failure(name(), "Memory flush writes are restricted to " + path_ + "; use that path only.",
                                 "PATH_NOT_ALLOWED");
    }
    std::error_code ec;
    std::filesystem::create_directories(p->real.parent_path(), ec);
    if (ec) return ToolOutput::failure(name(), "cannot create the folder of " + path_ + ": " + ec.message());
    const int fd = open_in_workspace(*p, O_RDWR | O_CREAT | O_APPEND, 0644);
    if (fd < 0) return ToolOutput::failure(name(), path_ + ": " + std::strerror(errno));
    struct stat st {};
    const bool sized = ::fstat(fd, &st) == 0;
    if (sized && !S_ISREG(st.st_mode)) {
      ::close(fd);
      return ToolOutput::failure(name(), path_ + " is not a regular file", "NOT_A_FILE");
    }
    std::string block;
    char last = '\n';
    if (sized && st.st_size > 0 && ::pread(fd, &last, 1, st.st_size - 1) == 1 && last != '\n' &&
        !(content.starts_with("\n"))) {
      block = "\n";
    }
    block += content;
    if (block.empty() || block.back() != '\n') block += '\n';
    std::size_t done = 0;
    while (done < block.size()) {
      const ssize_t n = ::write(fd, block.data() + done, block.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const std::string why = std::strerror(errno);
        if (sized && ::ftruncate(fd, st.st_size) != 0) {}  // never leave half a note behind
        ::close(fd);
        return ToolOutput::failure(name(), "cannot append to " + path_ + ": " + why);
      }
      done += static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0) return ToolOutput::failure(name(), "cannot close " + path_ + ": " + std::strerror(errno));
    return ToolOutput::ok("Appended " + std::to_string(content.size()) + " bytes to " + path_,
                          {{"path", path_}, {"bytes", content.size()}, {"appended", true}});
  }

 private:
  std::string path_;
  std::string description_;
  json schema_;
};

}  // namespace

std::unique_ptr<Tool> make_memory_flush_write_tool(std::string relative_path) {
  return std::make_unique<MemoryFlushWriteTool>(std::move(relative_path));
}

}  // namespace pincer::tools
