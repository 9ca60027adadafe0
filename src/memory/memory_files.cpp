#include "memory/memory_files.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <set>

namespace pincer::memory {
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxFiles = 20'000;

bool stat_file(const fs::path& p, MemoryFile& f) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  f.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  f.size = st.st_size;
  return true;
}

bool is_md(const fs::path& p) { return p.extension() == ".md"; }

std::string label(const fs::path& workspace, const fs::path& abs) {
  const fs::path rel = abs.lexically_relative(workspace);
  if (!rel.empty() && *rel.begin() != "..") return rel.generic_string();
  return abs.generic_string();
}

void walk(const fs::path& root, const fs::path& workspace, std::vector<MemoryFile>& out, std::set<std::string>& seen) {
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end && out.size() < kMaxFiles; it.increment(ec)) {
    if (it->is_symlink(ec)) continue;
    if (!it->is_regular_file(ec) || !is_md(it->path())) continue;
    MemoryFile f;
    f.abs = it->path();
    if (!stat_file(f.abs, f)) continue;
    f.rel = label(workspace, f.abs);
    if (seen.insert(f.rel).second) out.push_back(std::move(f));
  }
}

void add_file(const fs::path& p, const fs::path& workspace, std::vector<MemoryFile>& out, std::set<std::string>& seen) {
  MemoryFile f;
  f.abs = p;
  if (!stat_file(p, f)) return;
  f.rel = label(workspace, p);
  if (seen.insert(f.rel).second) out.push_back(std::move(f));
}

}  // namespace

std::vector<MemoryFile> list_memory_files(const fs::path& workspace, const std::vector<fs::path>& extra_paths) {
  std::vector<MemoryFile> out;
  std::set<std::string> seen;
  std::error_code ec;
  if (fs::exists(workspace / "MEMORY.md", ec)) {
    add_file(workspace / "MEMORY.md", workspace, out, seen);
  } else {
    add_file(workspace / "memory.md", workspace, out, seen);
  }
  add_file(workspace / "USER.md", workspace, out, seen);
  if (fs::is_directory(workspace / "memory", ec)) walk(workspace / "memory", workspace, out, seen);
  for (const auto& extra : extra_paths) {
    if (fs::is_directory(extra, ec)) {
      walk(extra, workspace, out, seen);
    } else if (is_md(extra)) {
      add_file(extra, workspace, out, seen);
    }
  }
  std::sort(out.begin(), out.end(), [](const MemoryFile& a, const MemoryFile& b) { return a.rel < b.rel; });
  return out;
}

Result<MemoryFile> resolve_memory_path(const fs::path& workspace, const std::vector<fs::path>& extra_paths,
                                       const std::string& path) {
  if (path.empty() || path.find('\0') != std::string::npos) {
    return Error{"MEMORY_PATH_DENIED", "memory_get: path is empty"};
  }
  // Only the listed memory files are readable: no traversal, no other workspace file.
  for (const auto& f : list_memory_files(workspace, extra_paths)) {
    if (f.rel == path || f.abs.generic_string() == path) return f;
  }
  const fs::path p = fs::path(path).lexically_normal();
  const bool looks_like_memory = is_md(p) && (p == "MEMORY.md" || p == "USER.md" || p == "memory.md" ||
                                              (p.begin() != p.end() && *p.begin() == "memory"));
  if (looks_like_memory && path.find("..") == std::string::npos) {
    return Error{"MEMORY_PATH_NOT_FOUND", "memory_get: " + path + " does not exist"};
  }
  return Error{"MEMORY_PATH_DENIED",
               "memory_get: " + path + " is not a memory file (MEMORY.md, USER.md, memory/*.md or an extra path)"};
}

std::string daily_note_rel(int y, unsigned m, unsigned d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "memory/%04d-%02u-%02u.md", y, m, d);
  return buf;
}

}  // namespace pincer::memory
