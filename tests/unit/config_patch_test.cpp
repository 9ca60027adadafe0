// gateway/config_patch.h: merge patches on JSON5 text, redaction placeholders, the baseHash rule.
#include "gateway/config_patch.h"

#include <gtest/gtest.h>

#include "core/ids.h"
#include "core/json5.h"

namespace pincer::gateway {
namespace {

using nlohmann::json;

TEST(ConfigPatch, MergePatchFollowsRfc7386) {
  EXPECT_EQ(merge_patch(json{{"a", 1}, {"b", {{"c", 2}, {"d", 3}}}}, json{{"a", nullptr}, {"b", {{"c", 5}}}, {"e", {1, 2}}}),
            (json{{"b", {{"c", 5}, {"d", 3}}}, {"e", {1, 2}}}));
  EXPECT_EQ(merge_patch(json{{"a", 1}}, json::array({1})), json::array({1}));
  EXPECT_EQ(merge_patch(json("x"), json{{"a", {{"b", nullptr}, {"c", 1}}}}), (json{{"a", {{"c", 1}}}}));
}

TEST(ConfigPatch, PatchTextKeepsCommentsAndReportsChangedLeaves) {
  const std::string text =
      "// top comment\n{\n  gateway: { port: 1 },  // the port\n  agents: { defaults: { timeoutSeconds: 5 } },\n  old: true,\n}\n";
  std::vector<std::string> changed;
  auto out = apply_merge_patch_text(
      text, json{{"agents", {{"defaults", {{"timeoutSeconds", 9}}}}}, {"old", nullptr}, {"gone", nullptr}, {"fresh", {{"x", 1}}}},
      {}, changed);
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_NE(out->find("// top comment"), std::string::npos) << *out;
  EXPECT_NE(out->find("// the port"), std::string::npos) << *out;
  auto doc = json5::parse(*out);
  ASSERT_TRUE(doc);
  EXPECT_EQ(*doc, (json{{"gateway", {{"port", 1}}}, {"agents", {{"defaults", {{"timeoutSeconds", 9}}}}}, {"fresh", {{"x", 1}}}}));
  EXPECT_EQ(changed, (std::vector<std::string>{"agents.defaults.timeoutSeconds", "fresh", "old"}));
  // Unchanged values are no change.
  changed.clear();
  auto same = apply_merge_patch_text(*out, json{{"gateway", {{"port", 1}}}}, {}, changed);
  ASSERT_TRUE(same);
  EXPECT_EQ(*same, *out);
  EXPECT_TRUE(changed.empty());
}

TEST(ConfigPatch, IdKeyedArraysMergeByIdUnlessReplaced) {
  const std::string text = "{ agents: { list: [ { id: 'main', name: 'A' }, { id: 'ops' } ] }, tags: [1, 2] }";
  std::vector<std::string> changed;
  auto merged = apply_merge_patch_text(text, json{{"agents", {{"list", {{{"id", "ops"}, {"name", "Ops"}}, {{"id", "new"}}}}}}},
                                       {}, changed);
  ASSERT_TRUE(merged);
  EXPECT_EQ((*json5::parse(*merged))["agents"]["list"],
            json::parse(R"([{"id":"main","name":"A"},{"id":"ops","name":"Ops"},{"id":"new"}])"));
  changed.clear();
  auto replaced = apply_merge_patch_text(text, json{{"agents", {{"list", {{{"id", "solo"}}}}}}, {"tags", {3}}},
                                         {"agents.list"}, changed);
  ASSERT_TRUE(replaced);
  EXPECT_EQ((*json5::parse(*replaced))["agents"]["list"], json::parse(R"([{"id":"solo"}])"));
  EXPECT_EQ((*json5::parse(*replaced))["tags"], json::array({3}));  // not id-keyed: replaced
}

TEST(ConfigPatch, RedactedValuesComeBackFromTheFile) {
  const json original = {{"gateway", {{"auth", {{"token", "secret"}}}}}, {"list", {{{"key", "k1"}}}}};
  auto restored = restore_redacted(
      json{{"gateway", {{"auth", {{"token", "__PINCER_REDACTED__"}}}}}, {"list", {{{"key", "__OPENCLAW_REDACTED__"}}}}}, original);
  ASSERT_TRUE(restored) << restored.error().message;
  EXPECT_EQ(*restored, original);
  auto invented = restore_redacted(json{{"gateway", {{"auth", {{"password", "__PINCER_REDACTED__"}}}}}}, original);
  ASSERT_FALSE(invented);
  EXPECT_EQ(invented.error().code, "INVALID_REQUEST");
  EXPECT_EQ(invented.error().message.rfind("gateway.auth.password: a redacted value was sent back", 0), 0u)
      << invented.error().message;
}

TEST(ConfigPatch, BaseHashRule) {
  const std::string text = "{ a: 1 }\n";
  EXPECT_FALSE(check_base_hash(false, "", std::nullopt));  // no file yet: nothing to be based on
  EXPECT_EQ(check_base_hash(true, text, std::nullopt)->code, "BASE_HASH_REQUIRED");
  EXPECT_EQ(check_base_hash(true, text, std::string("abc"))->code, "CONFLICT");
  EXPECT_FALSE(check_base_hash(true, text, ids::sha256_hex(text)));
}

TEST(ConfigPatch, RawMustBeAJson5Object) {
  EXPECT_EQ(parse_config_raw("[1]", "config.set").error().message, "config.set raw must be an object");
  EXPECT_EQ(parse_config_raw("{ a: ", "config.patch").error().code, "JSON5_PARSE");
  EXPECT_TRUE(parse_config_raw("{ a: 1, // c\n }", "config.apply"));
}

}  // namespace
}  // namespace pincer::gateway
