#include "core/paths.h"

namespace pincer::paths {

std::filesystem::path state_dir(const config::EnvLookup& env) {
  if (auto home = env("PINCER_HOME"); home && !home->empty()) return *home;
  if (auto home = env("HOME"); home && !home->empty()) return std::filesystem::path(*home) / ".pincer";
  return std::filesystem::path(".pincer");
}

std::filesystem::path config_file(const std::filesystem::path& state) { return state / "pincer.json"; }
std::filesystem::path logs_dir(const std::filesystem::path& state) { return state / "logs"; }
std::filesystem::path gateway_log_file(const std::filesystem::path& state) { return logs_dir(state) / "gateway.log"; }
std::filesystem::path gateway_lock_file(const std::filesystem::path& state) { return state / "gateway.lock"; }

}  // namespace pincer::paths
