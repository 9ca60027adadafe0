// The config file watcher (CF-2) on real files, real inotify and a real event loop: one report per
// save, renames over the file, a directory that appears later, and the polling fallback's
// contract. Every wait is for a condition, with a generous deadline (no timing asserts).
#include "gateway/config_watcher.h"

#include <unistd.h>

#include <fstream>
#include <functional>

#include <gtest/gtest.h>

#include "core/event_loop.h"

namespace pincer {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const auto dir = fs::temp_directory_path() / ("pincer-watch-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// One step of a scenario: after at least `wait_ms` since the previous step, once `until()` holds
/// (an empty one holds at once), `then()` runs (an empty one does nothing).
struct Step {
  int64_t wait_ms = 0;
  std::function<bool()> until{};
  std::function<void()> then{};
};

/// Runs `loop` through `steps` (conditions checked every 5 ms) and stops it after the last, or when
/// 20 s pass; returns how many steps ran.
size_t run_steps(EventLoop& loop, std::vector<Step> steps) {
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + std::chrono::seconds(20);
  size_t done = 0;
  auto since = clock::now();
  std::function<void()> tick = [&] {
    while (done < steps.size() && clock::now() - since >= std::chrono::milliseconds(steps[done].wait_ms) &&
           (!steps[done].until || steps[done].until())) {
      if (steps[done].then) steps[done].then();
      ++done;
      since = clock::now();
    }
    if (done == steps.size() || clock::now() > deadline) return loop.stop();
    loop.after(5, tick);
  };
  loop.post(tick);
  loop.run();
  return done;
}

TEST(ConfigWatcher, OneReportPerSaveAndAReplacementByRenameIsAChange) {
  const auto dir = fresh_dir("save");
  const auto file = dir / "pincer.json";
  std::ofstream(file) << "{}";
  EventLoop loop;
  int changes = 0;
  gateway::ConfigWatcher watcher(loop, file, 20, 100, [&] { ++changes; });
  watcher.start();
  EXPECT_TRUE(watcher.uses_inotify());
  const size_t ran = run_steps(loop, {
      {0, {}, [&] {
         std::ofstream(file) << "{\"a\":1}";  // one save written in two steps, back to back
         std::ofstream(file, std::ios::app) << " ";
       }},
      {0, [&] { return changes >= 1; }, [&] {
         std::ofstream(dir / "next.json") << "{\"a\":2}";  // an editor's save: write aside, rename over
         fs::rename(dir / "next.json", file);
       }},
      {0, [&] { return changes >= 2; }},
      // A few debounce periods later: no third report for those two saves, and another file in
      // the directory is not this one.
      {400, {}, [&] { std::ofstream(dir / "other.json") << "{}"; }},
      {400},
  });
  EXPECT_EQ(ran, 5u);
  EXPECT_EQ(changes, 2);
  watcher.stop();
  fs::remove_all(dir);
}

TEST(ConfigWatcher, AFileInADirectoryThatDoesNotExistYetIsSeenWhenItAppears) {
  const auto parent = fresh_dir("later");
  const auto file = parent / "cron" / "jobs.json";
  EventLoop loop;
  int changes = 0;
  gateway::ConfigWatcher watcher(loop, file, 20, 50, [&] { ++changes; });
  watcher.start();
  EXPECT_TRUE(watcher.uses_inotify());
  const size_t ran = run_steps(loop, {
      {0, {}, [&] {
         fs::create_directories(file.parent_path());
         std::ofstream(file) << "{\"jobs\":[]}";
       }},
      {0, [&] { return changes >= 1; }, [&] { std::ofstream(file) << "{\"jobs\":[1]}"; }},  // watched in cron/ now
      {0, [&] { return changes >= 2; }, [&] { fs::remove(file); }},  // a file that disappears is a change too
      {0, [&] { return changes >= 3; }},
  });
  EXPECT_EQ(ran, 4u);
  EXPECT_EQ(changes, 3);
  watcher.stop();
  fs::remove_all(parent);
}

TEST(ConfigWatcher, StoppedItReportsNothingAndItCanStartAgain) {
  const auto dir = fresh_dir("stop");
  const auto file = dir / "pincer.json";
  std::ofstream(file) << "{}";
  EventLoop loop;
  int changes = 0;
  gateway::ConfigWatcher watcher(loop, file, 20, 20, [&] { ++changes; });
  watcher.start();
  watcher.stop();
  const size_t ran = run_steps(loop, {
      {0, {}, [&] { std::ofstream(file) << "{\"a\":1}"; }},
      {300, [&] { return changes == 0; }, [&] {
         watcher.start();  // the file as it is now is the new baseline
         std::ofstream(file) << "{\"a\":22}";
       }},
      {0, [&] { return changes >= 1; }},
  });
  EXPECT_EQ(ran, 3u);
  EXPECT_EQ(changes, 1);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pincer
