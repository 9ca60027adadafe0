// store::sync_in_background (store/background_sync.h): syncs run off the caller's thread on a
// duplicate of the descriptor, which is closed afterwards; failures are logged with the file's name.
#include "store/background_sync.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

namespace {

std::size_t open_descriptors() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

TEST(BackgroundSync, SyncsADuplicateAndClosesItTheCallersDescriptorMayCloseAtOnce) {
  const auto file = std::filesystem::temp_directory_path() / ("pincer-bgsync-" + std::to_string(::getpid()));
  const std::size_t before = open_descriptors();
  for (int i = 0; i < 20; ++i) {
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::write(fd, "line\n", 5), 5);
    pincer::store::sync_in_background(fd, file.string());
    ::close(fd);  // the queued sync holds its own descriptor
  }
  pincer::store::wait_for_background_syncs();
  EXPECT_EQ(open_descriptors(), before);  // every duplicate was closed after its sync
  EXPECT_EQ(std::filesystem::file_size(file), 100u);
  std::filesystem::remove(file);
}

TEST(BackgroundSync, AFailedSyncIsLoggedWithWhatWasBeingSynced) {
  std::ostringstream captured;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(captured);
  spdlog::default_logger()->sinks().push_back(sink);
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  pincer::store::sync_in_background(pipe_fds[1], "the test pipe");  // fdatasync(2) of a pipe: EINVAL
  pincer::store::sync_in_background(-1, "nothing");                  // ignored
  pincer::store::wait_for_background_syncs();
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
  auto& sinks = spdlog::default_logger()->sinks();
  sinks.erase(std::remove(sinks.begin(), sinks.end(), sink), sinks.end());
  EXPECT_NE(captured.str().find("cannot sync the test pipe: Invalid argument"), std::string::npos) << captured.str();
  EXPECT_EQ(captured.str().find("nothing"), std::string::npos);
}

}  // namespace
