// Memory settings changed by a config reload (issue 13): the index whose settings changed is
// reopened with the new ones and the old one is freed — also while the inotify watcher (gateway
// mode) held it — and an unchanged config keeps the open index. Real SQLite, real files.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "core/ids.h"
#include "memory/memory_service.h"

namespace pincer::memory {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct ReloadTempDir {
  fs::path dir = fs::temp_directory_path() / ("pincer-memreload-" + ids::uuid_v4());
  ReloadTempDir() { fs::create_directories(dir / "ws"); }
  ~ReloadTempDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

/// Waits (generous deadline, no fixed sleep as synchronisation) until `weak` has expired.
bool reload_wait_expired(const std::weak_ptr<MemoryIndex>& weak) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!weak.expired() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return weak.expired();
}

json reload_config(int timeout_ms, int max_results) {
  return json{{"memory", {{"search", {{"remote", {{"timeoutMs", timeout_ms}}}, {"query", {{"maxResults", max_results}}}}}}}};
}

TEST(MemoryReload, AChangedSettingReopensTheIndexAndFreesTheOldOneEvenWhileWatched) {
  ReloadTempDir t;
  std::ofstream(t.dir / "ws/MEMORY.md") << "- The boat is called Persephone.\n- The dog is called Biscuit.\n";
  MemoryService svc(reload_config(30000, 6), t.dir / "state", {}, /*watch=*/true);
  json r = svc.search("main", t.dir / "ws", {{"query", "Persephone"}});
  ASSERT_EQ(r["results"].size(), 1u) << r.dump();
  std::weak_ptr<MemoryIndex> old;
  {
    auto first = svc.index("main", t.dir / "ws");
    ASSERT_TRUE(first);
    old = *first;
    EXPECT_EQ((*first)->settings().embed_timeout_ms, 30000);
  }  // the test's own reference is gone: the service and the watcher hold it

  // The same config again: nothing is reopened.
  svc.reconfigure(reload_config(30000, 6));
  EXPECT_EQ(svc.open_indexes(), 1u);
  EXPECT_FALSE(old.expired());

  // Any resolved setting counts, also one outside the index layout (remote.timeoutMs).
  svc.reconfigure(reload_config(1234, 6));
  EXPECT_EQ(svc.open_indexes(), 0u);
  EXPECT_TRUE(reload_wait_expired(old)) << "the replaced index was never freed";
  std::vector<std::weak_ptr<MemoryIndex>> replaced;
  {
    auto second = svc.index("main", t.dir / "ws");
    ASSERT_TRUE(second);
    EXPECT_EQ((*second)->settings().embed_timeout_ms, 1234);
    replaced.push_back(*second);
  }
  r = svc.search("main", t.dir / "ws", {{"query", "Persephone"}});
  ASSERT_EQ(r["results"].size(), 1u) << r.dump();

  // Many reloads in a row leave exactly one index alive.
  for (int i = 0; i < 8; ++i) {
    svc.reconfigure(reload_config(2000 + i, 6));
    auto idx = svc.index("main", t.dir / "ws");
    ASSERT_TRUE(idx);
    replaced.push_back(*idx);
  }
  for (std::size_t i = 0; i + 1 < replaced.size(); ++i) EXPECT_TRUE(reload_wait_expired(replaced[i])) << i;
  EXPECT_FALSE(replaced.back().expired());
  EXPECT_EQ(svc.open_indexes(), 1u);
}

TEST(MemoryReload, ASearchInProgressKeepsItsIndexUntilItIsDone) {
  ReloadTempDir t;
  std::ofstream(t.dir / "ws/MEMORY.md") << "- The kettle is blue.\n";
  MemoryService svc(reload_config(30000, 6), t.dir / "state", {}, /*watch=*/false);
  auto opened = svc.index("main", t.dir / "ws");
  ASSERT_TRUE(opened);
  std::shared_ptr<MemoryIndex> held = std::move(*opened);
  std::weak_ptr<MemoryIndex> weak = held;
  svc.reconfigure(reload_config(30000, 3));  // maxResults changed
  ASSERT_FALSE(weak.expired());              // still ours: usable
  auto r = held->search("kettle", std::nullopt, std::nullopt);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->results.size(), 1u);
  held.reset();
  EXPECT_TRUE(weak.expired());
  auto fresh = svc.index("main", t.dir / "ws");
  ASSERT_TRUE(fresh);
  EXPECT_EQ((*fresh)->settings().max_results, 3);
}

}  // namespace
}  // namespace pincer::memory
