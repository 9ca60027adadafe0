// RequestFrameCache (src/agent/request_frame_cache.h): a session's frame is reused only while it
// equals what would be built now.
#include <gtest/gtest.h>

#include <string>

#include "agent/request_frame_cache.h"

namespace {

using pincer::agent::RequestFrameCache;
using nlohmann::json;

class SchemaTool final : public pincer::tools::Tool {
 public:
  SchemaTool(std::string name, json schema) : schema_(std::move(schema)), name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  std::string_view description() const override { return "a tool"; }
  const json& parameters() const override { return schema_; }
  std::string_view group() const override { return "test"; }
  pincer::tools::ToolOutput run(const json&, pincer::tools::ToolContext&) const override { return pincer::tools::ToolOutput::ok("ok"); }
  json schema_;

 private:
  std::string name_;
};

TEST(RequestFrameCache, ReusesAFrameOnlyWhileItIsUnchanged) {
  RequestFrameCache cache;
  SchemaTool read("read", {{"type", "object"}});
  const std::vector<const pincer::tools::Tool*> tools{&read};
  auto first = cache.get("agent:main:main", "prompt", tools);
  ASSERT_EQ(first->tools.size(), 1u);
  EXPECT_EQ(first->tools[0].name, "read");
  EXPECT_EQ(cache.get("agent:main:main", "prompt", tools), first);  // same prompt and tools: the same frame

  auto other_prompt = cache.get("agent:main:main", "prompt 2", tools);
  EXPECT_NE(other_prompt, first);
  EXPECT_EQ(other_prompt->system_prompt, "prompt 2");
  EXPECT_EQ(first->system_prompt, "prompt");  // a frame handed out never changes

  read.schema_ = {{"type", "object"}, {"properties", {{"path", {{"type", "string"}}}}}};  // same object, new schema
  auto new_schema = cache.get("agent:main:main", "prompt 2", tools);
  EXPECT_NE(new_schema, other_prompt);
  EXPECT_EQ(new_schema->tools[0].parameters(), read.schema_);

  EXPECT_NE(cache.get("agent:main:main", "prompt 2", {}), new_schema);  // a tool fewer
}

TEST(RequestFrameCache, KeepsTheMostRecentSessions) {
  RequestFrameCache cache(2);
  auto a = cache.get("a", "p", {});
  cache.get("b", "p", {});
  EXPECT_EQ(cache.get("a", "p", {}), a);  // a is now the most recent
  cache.get("c", "p", {});                // evicts b
  EXPECT_EQ(cache.get("a", "p", {}), a);
}

}  // namespace
