// Pure parts of `pincer mcp serve` and `pincer acp` (docs/interop.md): the MCP tools' argument
// check, and the ACP mappings (prompt blocks, tool titles and kinds, the reply's chunks, _meta).
// The servers themselves are tested end to end with the official SDK clients
// (tests/interop_servers/*.test.mjs).
#include <gtest/gtest.h>

#include "interop/acp/acp_mapping.h"
#include "interop/mcp/mcp_server_tools.h"

namespace interop_servers_test {

using nlohmann::json;
namespace mcp = pincer::interop::mcp;
namespace acp = pincer::interop::acp;

const json& schema(const std::string& tool) {
  const json* s = mcp::server_tool_schema(tool);
  EXPECT_NE(s, nullptr) << tool;
  static const json empty = json::object();
  return s ? *s : empty;
}

TEST(McpServerTools, ListsOpenClawsToolNames) {
  std::vector<std::string> names;
  for (const auto& t : mcp::server_tool_definitions()) names.push_back(t["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"conversations_list", "conversation_get", "messages_read", "events_poll",
                                             "events_wait", "messages_send", "permissions_list_open", "permissions_respond"}));
  EXPECT_EQ(mcp::server_tool_schema("attachments_fetch"), nullptr);
}

TEST(McpServerTools, AcceptsValidArguments) {
  EXPECT_EQ(mcp::check_tool_arguments(schema("messages_read"), json{{"session_key", "main"}, {"limit", 200}}), std::nullopt);
  EXPECT_EQ(mcp::check_tool_arguments(schema("events_poll"), nullptr), std::nullopt);
  EXPECT_EQ(mcp::check_tool_arguments(schema("events_wait"), json{{"timeout_ms", 5.0}}), std::nullopt);  // integral
  EXPECT_EQ(mcp::check_tool_arguments(schema("permissions_respond"),
                                      json{{"kind", "exec"}, {"id", "a"}, {"decision", "allow-always"}}),
            std::nullopt);
}

TEST(McpServerTools, NamesTheFieldThatIsWrong) {
  EXPECT_EQ(mcp::check_tool_arguments(schema("messages_read"), json{{"session_key", "k"}, {"limit", 0}}),
            "limit: must be >= 1 (got 0)");
  EXPECT_EQ(mcp::check_tool_arguments(schema("messages_read"), json{{"session_key", "k"}, {"limit", 201}}),
            "limit: must be <= 200 (got 201)");
  EXPECT_EQ(mcp::check_tool_arguments(schema("messages_read"), json{{"session_key", "k"}, {"limit", 1.5}}),
            "limit: expected integer, received number");
  EXPECT_EQ(mcp::check_tool_arguments(schema("messages_read"), json{{"limit", 3}}), "session_key: required");
  EXPECT_EQ(mcp::check_tool_arguments(schema("messages_send"), json{{"session_key", ""}, {"text", "x"}}),
            "session_key: must not be empty");
  EXPECT_EQ(mcp::check_tool_arguments(schema("messages_send"), json{{"session_key", "k"}, {"text", "x"}, {"to", 1}}),
            "to: unknown argument");
  EXPECT_EQ(mcp::check_tool_arguments(schema("permissions_respond"), json{{"kind", "exec"}, {"id", "a"}, {"decision", "yes"}}),
            "decision: must be one of allow-once | allow-always | deny (got \"yes\")");
  EXPECT_EQ(mcp::check_tool_arguments(schema("events_poll"), json::array()), "arguments: expected object, received array");
}

TEST(McpServerTools, ConversationsFromSessionRows) {
  // A row with OpenClaw's route fields.
  EXPECT_EQ(mcp::conversation_from_session_row(json{{"key", "agent:main:telegram:direct:42"},
                                                    {"deliveryContext", {{"channel", "Telegram"}, {"to", "telegram:42"}, {"accountId", "default"}}},
                                                    {"lastThreadId", 7},
                                                    {"label", "support"},
                                                    {"updatedAt", 1700}}),
            (json{{"sessionKey", "agent:main:telegram:direct:42"}, {"channel", "telegram"}, {"to", "telegram:42"},
                  {"accountId", "default"}, {"threadId", 7}, {"label", "support"}, {"updatedAt", 1700}}));
  // Pincer's rows: the channel from a chat session key; none for the web chat's main session.
  EXPECT_EQ(mcp::conversation_from_session_row(json{{"key", "agent:main:irc:group:#dev"}, {"updatedAt", 5}}),
            (json{{"sessionKey", "agent:main:irc:group:#dev"}, {"channel", "irc"}, {"updatedAt", 5}}));
  EXPECT_EQ(mcp::conversation_from_session_row(json{{"key", "agent:main:main"}}),
            (json{{"sessionKey", "agent:main:main"}, {"updatedAt", nullptr}}));
}

TEST(AcpMapping, ReadsPromptBlocks) {
  auto in = acp::read_prompt(json::array({
      {{"type", "text"}, {"text", "fix this"}},
      {{"type", "resource"}, {"resource", {{"uri", "file:///a.c"}, {"text", "int main(){}"}}}},
      {{"type", "resource_link"}, {"uri", "file:///b.c"}, {"name", "b.c"}, {"title", "B (old)"}},
      {{"type", "image"}, {"mimeType", "image/png"}, {"data", "iVBORw0KGgo="}},
  }));
  ASSERT_TRUE(in) << in.error().message;
  EXPECT_EQ(in->text, "fix this\nint main(){}\n[Resource link (B (old))] file:///b.c");
  ASSERT_EQ(in->attachments.size(), 1u);
  EXPECT_EQ(in->attachments[0], (json{{"type", "image"}, {"mimeType", "image/png"}, {"content", "iVBORw0KGgo="}}));
}

TEST(AcpMapping, RefusesBadPrompts) {
  EXPECT_EQ(acp::read_prompt(json::object()).error().message, "prompt: expected an array of content blocks");
  EXPECT_EQ(acp::read_prompt(json::array({{{"text", "x"}}})).error().message,
            "prompt[0]: expected a content block with a type");
  EXPECT_EQ(acp::read_prompt(json::array({{{"type", "text"}, {"text", 3}}})).error().message, "prompt[0].text: expected a string");
  // An image: its fields named, garbage refused here (not by the gateway's attachments[0].content).
  auto image = [](json block) { return acp::read_prompt(json::array({{{"type", "text"}, {"text", "x"}}, block})); };
  EXPECT_EQ(image({{"type", "image"}, {"mimeType", "image/png"}, {"data", "!!!notbase64"}}).error().message,
            "prompt[1].data: not valid base64");
  EXPECT_EQ(image({{"type", "image"}, {"mimeType", "image/png"}}).error().message, "prompt[1].data: expected a base64 string");
  EXPECT_EQ(image({{"type", "image"}, {"data", "iVBORw0KGgo="}}).error().message, "prompt[1].mimeType: expected a string");
  EXPECT_TRUE(image({{"type", "image"}, {"mimeType", "image/png"}, {"data", "iVBO\nRw0K_-Go"}}));  // as lenient as the gateway
  const std::string big(acp::kMaxPromptBytes, 'x');
  auto r = acp::read_prompt(json::array({{{"type", "text"}, {"text", big}}, {{"type", "text"}, {"text", "y"}}}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "PROMPT_TOO_LARGE");
}

TEST(AcpMapping, ToolTitlesAndKinds) {
  EXPECT_EQ(acp::tool_title("read", json{{"path", "notes.txt"}}), "read: path: notes.txt");
  EXPECT_EQ(acp::tool_title("exec", json{{"command", "ls\nrm -rf x"}}), "exec: command: ls\\nrm -rf x");
  EXPECT_EQ(acp::tool_title("web_fetch", json::object()), "web_fetch");
  EXPECT_EQ(acp::tool_title("write", json{{"content", std::string(150, 'a')}}), "write: content: " + std::string(100, 'a') + "...");
  EXPECT_EQ(acp::tool_kind("read"), "read");
  EXPECT_EQ(acp::tool_kind("apply_patch"), "other");
  EXPECT_EQ(acp::tool_kind("edit"), "edit");
  EXPECT_EQ(acp::tool_kind("exec"), "execute");
  EXPECT_EQ(acp::tool_kind("memory_search"), "search");
  EXPECT_EQ(acp::tool_kind("web_fetch"), "fetch");
}

TEST(AcpMapping, ToolContent) {
  EXPECT_EQ(acp::tool_content("done"), json::parse(R"([{"type":"content","content":{"type":"text","text":"done"}}])"));
  EXPECT_EQ(acp::tool_content(json{{"content", json::array({{{"type", "text"}, {"text", "a"}}})}}),
            json::parse(R"([{"type":"content","content":{"type":"text","text":"a"}}])"));
  EXPECT_EQ(acp::tool_content(json{{"error", "boom"}}), json::parse(R"([{"type":"content","content":{"type":"text","text":"boom"}}])"));
  EXPECT_TRUE(acp::tool_content("  ").is_null());
  EXPECT_TRUE(acp::tool_content(json{{"exitCode", 0}}).is_null());
}

TEST(AcpMapping, ReplyStreamSendsOnlyWhatIsNew) {
  acp::ReplyStream s;
  EXPECT_EQ(s.next("Hel"), "Hel");
  EXPECT_EQ(s.next("Hello"), "lo");
  EXPECT_EQ(s.next("Hello"), "");
  EXPECT_EQ(s.next(""), "");
  s.new_step();  // a tool ran: the next step's text starts afresh, after a blank line
  EXPECT_EQ(s.next("Done"), "\n\nDone");
  EXPECT_EQ(s.next("Done."), ".");
  acp::ReplyStream fresh;
  fresh.new_step();  // a tool before any text: no blank line first
  EXPECT_EQ(fresh.next("Hi"), "Hi");
}

TEST(AcpMapping, SessionMetaAndHome) {
  auto m = acp::read_session_meta(json{{"session", " agent:main:main "}, {"label", "inbox"}, {"reset", true}, {"prefixCwd", false}});
  EXPECT_EQ(m.session_key, "agent:main:main");
  EXPECT_EQ(m.session_label, "inbox");
  EXPECT_EQ(m.reset, true);
  EXPECT_EQ(m.prefix_cwd, false);
  EXPECT_FALSE(m.require_existing);
  EXPECT_FALSE(acp::read_session_meta(json{{"sessionKey", "  "}}).session_key);
  EXPECT_EQ(acp::shorten_home("/home/u/src/x", "/home/u"), "~/src/x");
  EXPECT_EQ(acp::shorten_home("/home/u", "/home/u"), "~");
  EXPECT_EQ(acp::shorten_home("/home/user2/x", "/home/u"), "/home/user2/x");
}

}  // namespace interop_servers_test
