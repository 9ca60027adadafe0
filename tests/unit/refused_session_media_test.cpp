// A new session whose first message is refused (too large for the window: AgentRun::refuse_oversized)
// is removed again (discard_unused_session, 731c279) — and so are the images stored for that message
// beside the transcript (media/<sha256>.<ext> and its media/by-session/<id>/ link); a file another
// session also links stays.
#include <gtest/gtest.h>

#include "agent/agent_service_impl.h"
#include "agent/attachments.h"
#include "core/clock.h"
#include "store/session_index.h"
#include "store/transcript.h"
#include "store_test_support.h"

namespace pincer::agent::refused_session_media_test {
namespace {

namespace fs = std::filesystem;
using store::store_test_support::TempDir;

std::string png(char variant) { return std::string("\x89PNG\r\n\x1a\n", 8) + std::string(64, variant); }

/// The stored file of each image block.
std::vector<fs::path> stored(const fs::path& sessions_dir, const std::vector<Attachment>& images, const std::string& session_id) {
  auto blocks = attachment_blocks(images, sessions_dir / "media", session_id);
  EXPECT_TRUE(blocks.ok()) << blocks.error().message;
  std::vector<fs::path> out;
  for (const auto& b : *blocks) {
    if (const auto* img = std::get_if<llm::ImageContent>(&b)) out.push_back(sessions_dir / img->ref);
  }
  return out;
}

TEST(RefusedFirstMessage, TheImagesStoredForItAreRemovedWithTheSession) {
  TempDir state;
  ManualClock clock;
  const fs::path dir = store::sessions_dir(state.path(), "main");
  const fs::path file = *store::transcript_path(dir, "s1");
  store::TranscriptCreateOptions options;
  options.session_id = "s1";
  options.cwd = "/w";
  ASSERT_TRUE(store::TranscriptWriter::create(file, options, clock).ok());
  store::SessionIndex index(store::session_index_path(state.path(), "main"), clock);
  ASSERT_TRUE(index.load().ok());
  ASSERT_TRUE(index.upsert("agent:main:main", store::OrderedJson{{"sessionId", "s1"}}).ok());
  ASSERT_TRUE(index.save().ok());

  const Attachment own{"image", "image/png", "own.png", png('a')};
  const Attachment shared{"image", "image/png", "shared.png", png('b')};
  const auto files = stored(dir, {own, shared}, "s1");
  ASSERT_EQ(files.size(), 2u);
  stored(dir, {shared}, "s2");  // another session sent the same picture
  ASSERT_TRUE(fs::exists(files[0]));
  ASSERT_TRUE(fs::exists(dir / "media" / "by-session" / "s1"));

  discard_unused_session(index, "agent:main:main", "s1", file);
  EXPECT_EQ(index.get("agent:main:main"), nullptr);
  EXPECT_FALSE(fs::exists(file));
  EXPECT_FALSE(fs::exists(files[0])) << "the refused message's own image is gone";
  EXPECT_FALSE(fs::exists(dir / "media" / "by-session" / "s1"));
  EXPECT_TRUE(fs::exists(files[1])) << "still linked by session s2";
}

}  // namespace
}  // namespace pincer::agent::refused_session_media_test
