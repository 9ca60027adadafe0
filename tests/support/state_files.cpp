#include "state_files.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>

namespace pincer::test {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string all_files_under(const std::filesystem::path& dir, std::initializer_list<std::string_view> skip) {
  std::string out;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec); !ec && it != std::filesystem::end(it);
       it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    const std::string name = it->path().filename().string();
    if (std::find(skip.begin(), skip.end(), name) != skip.end()) continue;
    out += read_file(it->path()) + "\n";
  }
  return out;
}

int64_t wall_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace pincer::test
