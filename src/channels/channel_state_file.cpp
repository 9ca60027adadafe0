#include "channels/channel_state_file.h"

#include <spdlog/spdlog.h>

#include "store/atomic_file.h"

namespace pincer::channels {

std::optional<nlohmann::json> read_channel_state(const std::filesystem::path& file, const std::string& label) {
  if (file.empty()) return std::nullopt;
  auto text = store::read_file(file);
  if (!text) return std::nullopt;  // first run
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object()) {
    spdlog::warn("{}: ignoring unreadable state file {}", label, file.string());
    return std::nullopt;
  }
  return j;
}

void write_channel_state(const std::filesystem::path& file, const nlohmann::json& state, const std::string& label) {
  if (file.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  if (auto st = store::write_file_atomic(file, state.dump(), 0600); !st) {
    spdlog::error("{}: cannot save {}: {}", label, file.string(), st.error().message);
  }
}

}  // namespace pincer::channels
