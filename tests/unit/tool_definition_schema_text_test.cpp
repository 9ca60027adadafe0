// Unit tests for ToolDefinition::parameters_json() (src/llm/messages.h), the schema text request
// bodies splice in: it is what a compact dump of the schema writes, it is shared by copies, and a
// Chat Completions body that uses it is byte for byte a compact nlohmann dump of itself.
#include <gtest/gtest.h>

#include <string>

#include "core/json_dump.h"
#include "llm/provider.h"

namespace pincer::llm {
namespace {

using nlohmann::json;

const json kSchema = json::parse(R"({"type":"object","required":["path"],"properties":{
  "path":{"type":"string","description":"A \"quoted\" path\nwith a newline, caf\u00e9 and a tab\t"},
  "limit":{"type":"integer","minimum":1,"maximum":1000},"ratio":{"type":"number","default":0.5}}})");

TEST(ToolDefinitionSchemaText, IsTheCompactDumpAndSharedByCopies) {
  const ToolDefinition def("read", "Reads a file", kSchema);
  EXPECT_EQ(def.parameters_json(), kSchema.dump(-1, ' ', false, json::error_handler_t::replace));
  EXPECT_EQ(def.parameters_json(), json_dump::compact(kSchema));
  const ToolDefinition copy = def;  // NOLINT(performance-unnecessary-copy-initialization): the point
  EXPECT_EQ(&copy.parameters_json(), &def.parameters_json());
  EXPECT_EQ(ToolDefinition().parameters_json(), "{}");
  EXPECT_EQ(ToolDefinition("t", "d", json::object()).parameters_json(), "{}");
}

TEST(ToolDefinitionSchemaText, CompletionsBodyIsItsOwnCompactDump) {
  ModelSpec model;
  model.provider = "test";
  model.id = "m";
  model.api = "openai-completions";
  model.base_url = "http://127.0.0.1:1/v1";
  Context context;
  context.system_prompt = "You are a test.\nBe brief.";
  context.messages.push_back(UserMessage{{TextContent{"hello \"there\""}}, true, 1});
  context.tools = {ToolDefinition("read", "Reads a file", kSchema), ToolDefinition("noop", "Nothing", json::object())};
  const ProviderApi* api = find_api("openai-completions");
  ASSERT_NE(api, nullptr);
  for (int i = 0; i < 2; ++i) {  // the second body uses the schema text kept by the first
    const std::string body = api->build_request(model, context, {}).body;
    const json parsed = json::parse(body);
    EXPECT_EQ(body, parsed.dump(-1, ' ', false, json::error_handler_t::replace));
    EXPECT_EQ(parsed["tools"][0]["function"]["parameters"], kSchema);
  }
}

}  // namespace
}  // namespace pincer::llm
