// store::sync_in_background (store/background_sync.h): syncs run off the caller's thread on a
// duplicate of the descriptor, which is closed afterwards; failures are logged with the file's name.
#include "store/background_sync.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/vfs.h>
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

TEST(BackgroundSync, NoSyncIsNeededOnlyWhereTheFileSystemLivesInMemory) {
  // Each directory's file system as statfs(2) tells it, independently of the function under test.
  const auto in_memory = [](const char* dir) {
    struct statfs st {};
    return ::statfs(dir, &st) == 0 && (st.f_type == 0x01021994 || st.f_type == static_cast<decltype(st.f_type)>(0x858458f6));
  };
  for (const char* dir : {"/dev/shm", "/tmp", "/var/tmp", "/"}) {
    if (!std::filesystem::is_directory(dir)) continue;
    const std::filesystem::path file = std::filesystem::path(dir) / "journal.jsonl";
    EXPECT_EQ(pincer::store::sync_needed(file), !in_memory(dir)) << dir;
    EXPECT_EQ(pincer::store::sync_needed(file), !in_memory(dir)) << dir << " (cached)";
  }
  EXPECT_TRUE(pincer::store::sync_needed("/no/such/directory/file"));  // cannot be told: sync
}

}  // namespace
