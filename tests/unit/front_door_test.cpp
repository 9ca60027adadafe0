// The front door (issue 11 items 6-9, 14; issue 22 item 13), the pure parts: the one command
// table of every chat surface, the one rule per input (blank message, session key, gateway token,
// provider URL), the config's env section and reload advice, the advertised events, the docs'
// links and the tool profile reference checked against the registry, and the dmScope warning.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "agent/chat_commands.h"
#include "channels/dm_scope_check.h"
#include "core/clock.h"
#include "core/config.h"
#include "core/config_schema.h"
#include "core/secret_rules.h"
#include "gateway/config_reload.h"
#include "gateway/gateway.h"
#include "store/session_keys.h"
#include "tools/registry.h"
#include "test_helpers.h"

namespace pincer {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// ---- the command table --------------------------------------------------------------------------

TEST(ChatCommands, ParsesCommandsOfTheTableOnly) {
  auto parsed = agent::parse_chat_command("  /THINK   high ");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->command->name, "think");
  EXPECT_EQ(parsed->arg, "high");
  ASSERT_TRUE(agent::parse_chat_command("/abort"));
  EXPECT_EQ(agent::parse_chat_command("/abort")->command->name, "stop");
  EXPECT_EQ(agent::parse_chat_command("/models")->command->name, "model");
  for (const char* text : {"hello /new", "/", "/etc/passwd is missing", "/usr/bin/ls", "new", ""}) {
    EXPECT_FALSE(agent::parse_chat_command(text)) << text;
  }
  // A command word of no command: the unknown command, one answer for every surface.
  auto bogus = agent::parse_chat_command("/Bogus now");
  ASSERT_TRUE(bogus);
  EXPECT_EQ(bogus->command, &agent::unknown_command());
  EXPECT_EQ(bogus->arg, "bogus");
  // "/new@OtherBot" is a command only when the channel saw our bot addressed.
  EXPECT_FALSE(agent::parse_chat_command("/new@OtherBot"));
  ASSERT_TRUE(agent::parse_chat_command("/new@PincerBot", /*addressed_to_us=*/true));
  EXPECT_EQ(agent::parse_chat_command("/status@PincerBot now", true)->arg, "now");
}

TEST(ChatCommands, HelpListsExactlyTheTable) {
  const std::string channel_help = agent::chat_commands_help(false);
  const std::string terminal_help = agent::chat_commands_help(true);
  std::size_t shared = 0;
  for (const auto& c : agent::chat_commands()) {
    const std::string entry = "/" + c.name;
    EXPECT_NE(terminal_help.find(entry), std::string::npos) << entry;
    EXPECT_NE(terminal_help.find(c.help), std::string::npos) << c.help;
    EXPECT_EQ(channel_help.find(entry + " ") != std::string::npos || channel_help.find(entry + ",") != std::string::npos,
              !c.terminal_only)
        << entry;
    shared += c.terminal_only ? 0 : 1;
  }
  // One line per command, nothing else.
  EXPECT_EQ(static_cast<std::size_t>(std::count(channel_help.begin(), channel_help.end(), '\n')), shared);
  EXPECT_EQ(static_cast<std::size_t>(std::count(terminal_help.begin(), terminal_help.end(), '\n')),
            agent::chat_commands().size());
  for (const char* name : {"new", "reset", "status", "model", "think", "stop", "help"}) {
    auto c = agent::parse_chat_command(std::string("/") + name);
    ASSERT_TRUE(c) << name;
    EXPECT_FALSE(c->command->terminal_only) << name << " must work on every surface";
  }
}

// ---- one rule per input -------------------------------------------------------------------------

TEST(InputRules, BlankMessage) {
  for (const char* blank : {"", " ", "\t\n", " \r\n\v\f "}) EXPECT_TRUE(agent::is_blank_message(blank)) << blank;
  for (const char* text : {"hi", " . ", "\xc2\xa0x"}) EXPECT_FALSE(agent::is_blank_message(text)) << text;
}

TEST(InputRules, SessionKeys) {
  for (const char* good : {"main", "agent:main:main", "work notes", "проект", "agent:ops:telegram:direct:42"}) {
    EXPECT_FALSE(store::session_key_problem(good)) << good;
  }
  EXPECT_EQ(store::session_key_problem("a\nb").value_or(""), "session key contains a control character (0x0a)");
  EXPECT_TRUE(store::session_key_problem("tab\there"));
  EXPECT_TRUE(store::session_key_problem("del\x7f"));
  EXPECT_TRUE(store::session_key_problem("   "));
  EXPECT_TRUE(store::session_key_problem(std::string(store::kMaxSessionKeyBytes + 1, 'k')));
  EXPECT_FALSE(store::session_key_problem(std::string(store::kMaxSessionKeyBytes, 'k')));
}

TEST(InputRules, GatewaySecretLengths) {
  using secrets::Strength;
  EXPECT_EQ(secrets::secret_strength("token", 5), Strength::Refused);
  EXPECT_EQ(secrets::secret_strength("token", 15), Strength::Refused);
  EXPECT_EQ(secrets::secret_strength("token", 16), Strength::Weak);
  EXPECT_EQ(secrets::secret_strength("token", 24), Strength::Strong);
  EXPECT_EQ(secrets::secret_strength("password", 3), Strength::Weak);
  EXPECT_EQ(secrets::secret_strength("password", 12), Strength::Strong);
  EXPECT_EQ(secrets::secret_strength("none", 0), Strength::Strong);
  EXPECT_NE(secrets::refused_token_message(5).find("at least 16"), std::string::npos);
}

json with_base_url(const std::string& url) {
  return json{{"models", {{"providers", {{"p", {{"baseUrl", url}, {"models", json::array({{{"id", "m"}}})}}}}}}}};
}

TEST(InputRules, ProviderBaseUrlMustBeHttpWithAHost) {
  for (const char* good : {"http://127.0.0.1:8080/v1", "https://api.openai.com/v1", "HTTP://[::1]:11434",
                           "https://user:pw@host.example/x?y#z", "http://localhost", "${MY_BASE_URL}"}) {
    EXPECT_TRUE(config::validate(with_base_url(good))) << good;
  }
  for (const char* bad : {"not a url", "127.0.0.1:8080", "ftp://host/", "http://", "http:///v1", "http://host:0/",
                          "http://host:99999", "http://host:/v1", "https://exa mple.com"}) {
    auto st = config::validate(with_base_url(bad));
    ASSERT_FALSE(st) << bad;
    EXPECT_NE(st.error().message.find("models.providers.p.baseUrl: expected http:// or https:// URL with a host"),
              std::string::npos)
        << st.error().message;
  }
}

TEST(InputRules, ChannelUrlsAreCheckedTheSameWay) {
  // Each on a channel that reads it (a channel's block takes only its own keys).
  for (const auto& [channel, key] : {std::pair<std::string, std::string>{"telegram", "webhookUrl"},
                                     {"webhook", "callbackUrl"}, {"telegram", "apiRoot"}}) {
    json doc = {{"channels", {{channel, {{key, "not a url"}}}}}};
    auto st = config::validate(doc);
    ASSERT_FALSE(st) << key;
    EXPECT_NE(st.error().message.find("channels." + channel + "." + key + ": expected http:// or https:// URL"),
              std::string::npos)
        << st.error().message;
    doc["channels"][channel][key] = "https://bot.example/hook";
    EXPECT_TRUE(config::validate(doc)) << key;
  }
}

// ---- the config's env section and the reload advice ---------------------------------------------

struct TempFile {
  fs::path dir = fs::temp_directory_path() / ("pincer-fd-" + std::to_string(::getpid()) + "-" + std::to_string(++n));
  static inline int n = 0;
  TempFile() { fs::create_directories(dir); }
  ~TempFile() { fs::remove_all(dir); }
  fs::path write(const std::string& text) const {
    std::ofstream(dir / "pincer.json") << text;
    return dir / "pincer.json";
  }
};

TEST(ConfigEnv, TheEnvSectionFillsWhatTheEnvironmentLacks) {
  TempFile t;
  const auto file = t.write(
      "{ env: { PINCER_FD_KEY: 'from-file' }, models: { providers: { p: { baseUrl: 'http://h/v1', apiKey: "
      "'${PINCER_FD_KEY}', models: [{ id: 'm' }] } } } }");
  auto from_file = config::load(file, [](const std::string&) { return std::nullopt; });
  ASSERT_TRUE(from_file) << from_file.error().message;
  EXPECT_EQ(from_file->effective["models"]["providers"]["p"]["apiKey"], "from-file");
  auto from_env = config::load(file, [](const std::string& n) -> std::optional<std::string> {
    return n == "PINCER_FD_KEY" ? std::optional<std::string>("from-env") : std::nullopt;
  });
  ASSERT_TRUE(from_env);
  EXPECT_EQ(from_env->effective["models"]["providers"]["p"]["apiKey"], "from-env");
  EXPECT_EQ(config::file_sha256(file), from_env->hash);
  EXPECT_EQ(config::file_sha256(t.dir / "missing.json"), "");
}

TEST(ConfigEnv, ReloadAdviceNamesTheVariableAndBothFixes) {
  const std::string fix = gateway::config_reload_fix(
      "/h/pincer.json: missing env var \"OPENAI_API_KEY\" referenced at config path models.providers.openai.apiKey",
      "/h/pincer.json");
  EXPECT_NE(fix.find("no OPENAI_API_KEY"), std::string::npos) << fix;
  EXPECT_NE(fix.find("restart the gateway from a shell where OPENAI_API_KEY is set"), std::string::npos) << fix;
  EXPECT_NE(fix.find("env section of /h/pincer.json"), std::string::npos) << fix;
  EXPECT_NE(gateway::config_reload_fix("/h/pincer.json:3:4: unexpected '}'", "/h/pincer.json").find("config validate"),
            std::string::npos);
}

// ---- what the gateway advertises ----------------------------------------------------------------

class RecordingLink final : public gateway::ClientLink {
 public:
  void send(std::string text) override { sent.push_back(json::parse(text)); }
  std::size_t buffered_bytes() const override { return 0; }
  void close(uint16_t, std::string) override {}
  void set_max_message_bytes(std::size_t) override {}
  std::vector<json> sent;
};

TEST(AdvertisedEvents, HelloOkListsEveryEventTheGatewaySends) {
  ManualClock clock;
  gateway::GatewaySettings s;
  s.auth.mode = "token";
  s.auth.token = "front-door-test-token";
  gateway::Gateway gw(s, clock);
  RecordingLink link;
  gateway::PeerInfo peer;
  peer.remote_ip = "127.0.0.1";
  peer.loopback = true;
  const auto id = gw.open(link, peer);
  json params = {{"minProtocol", 3}, {"maxProtocol", 4},
                 {"client", {{"id", "cli"}, {"version", "1"}, {"platform", "linux"}, {"mode", "cli"}}},
                 {"scopes", {"operator.admin"}}, {"auth", {{"token", "front-door-test-token"}}}};
  gw.on_message(id, json{{"type", "req"}, {"id", "c"}, {"method", "connect"}, {"params", params}}.dump());
  json advertised;
  for (const auto& f : link.sent) {
    if (f.value("type", "") == "res" && f["payload"].value("type", "") == "hello-ok") advertised = f["payload"]["features"]["events"];
  }
  ASSERT_TRUE(advertised.is_array());
  const std::set<std::string> events(advertised.begin(), advertised.end());
  // The pairing events the gateway emits (devices.cpp, gateway.cpp) are among them.
  for (const char* e : {"device.pair.requested", "device.pair.resolved", "device.pair.changed", "chat", "agent", "tick"}) {
    EXPECT_TRUE(events.contains(e)) << e << " not in " << advertised.dump();
  }
  // And nothing outside the list goes out: every event frame sent so far, plus a pairing
  // broadcast and an event the table does not know (refused).
  gw.broadcast_pairing_event("device.pair.changed", json::object());
  gw.broadcast("not.an.advertised.event", "{}");
  for (const auto& f : link.sent) {
    if (f.value("type", "") == "event") {
      EXPECT_TRUE(events.contains(f.value("event", ""))) << f.dump();
    }
  }
}

// ---- the docs say what is true ------------------------------------------------------------------

using pincer::test_helpers::slurp;

std::vector<fs::path> doc_files() {
  const fs::path root = PINCER_SOURCE_DIR;
  std::vector<fs::path> files = {root / "README.md"};
  for (const auto& e : fs::directory_iterator(root / "docs")) {
    if (e.path().extension() == ".md") files.push_back(e.path());
  }
  return files;
}

TEST(Docs, EveryRelativeLinkResolvesInTheRepository) {
  const std::regex link(R"(\]\(([^)\s]+)\))");
  int checked = 0;
  for (const auto& file : doc_files()) {
    const std::string text = slurp(file);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), link); it != std::sregex_iterator(); ++it) {
      std::string target = (*it)[1];
      if (target.find("://") != std::string::npos || target.rfind("mailto:", 0) == 0 || target[0] == '#') continue;
      target = target.substr(0, target.find('#'));
      ++checked;
      EXPECT_TRUE(fs::exists(file.parent_path() / target)) << file.filename().string() << " links to " << target;
    }
    // The team's notes outside the repository are not something a reader can open.
    for (const char* outside : {"ARCHITECTURE.md", "LESSONS", "anchors/", "SPEC "}) {
      EXPECT_EQ(text.find(outside), std::string::npos) << file.filename().string() << " refers to " << outside;
    }
  }
  EXPECT_GT(checked, 10);
}

const config::schema::Node& schema_node(const std::string& dotted) {
  const config::schema::Node* node = &config::schema::root();
  std::size_t start = 0;
  while (start <= dotted.size()) {
    const auto dot = dotted.find('.', start);
    const auto* f = node->find(dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (!f) throw std::runtime_error("no schema node " + dotted);
    node = &f->node;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return *node;
}

TEST(Docs, ToolProfilesListTheToolsTheRegistryOffers) {
  const std::string doc = schema_node("tools.profile").description();
  const auto registry = tools::ToolRegistry::builtin();
  for (const auto& profile : schema_node("tools.profile").enum_values()) {
    tools::ToolPolicy policy;
    policy.profile = profile;
    auto offered = registry.effective_tools(policy);
    ASSERT_TRUE(offered) << profile;
    std::string names;
    for (const auto* t : *offered) names += (names.empty() ? "" : ", ") + std::string(t->name());
    const std::string expected = "`" + profile + "` (" + (names.empty() ? "no tool" : names) + ")";
    EXPECT_NE(doc.find(expected), std::string::npos) << "tools.profile doc should say " << expected << "\n" << doc;
  }
}

TEST(Docs, ContextWindowClaimsOnlyWhatIsBuilt) {
  const std::string doc = schema_node("models.providers").item().find("models")->node.item().find("contextWindow")->node.description();
  EXPECT_EQ(doc.find("Drives the prompt budget"), std::string::npos) << doc;
  EXPECT_NE(doc.find("tool result"), std::string::npos) << doc;
}

// ---- dmScope "main" with several senders ---------------------------------------------------------

TEST(DmScope, WarnsWhenSeveralSendersShareTheMainSession) {
  TempFile t;
  auto cfg = [](const std::string& dm_scope, json allow, const std::string& policy = "allowlist") {
    json c = {{"channels", {{"telegram", {{"botToken", "1:x"}, {"dmPolicy", policy}, {"allowFrom", std::move(allow)}}}}}};
    if (!dm_scope.empty()) c["session"] = {{"dmScope", dm_scope}};
    return c;
  };
  EXPECT_TRUE(channels::dm_scope_warnings(cfg("", json::array({"111"})), t.dir).empty());
  auto two = channels::dm_scope_warnings(cfg("", json::array({"111", 222})), t.dir);
  ASSERT_EQ(two.size(), 1u);
  EXPECT_NE(two[0].find("2 DM senders"), std::string::npos) << two[0];
  EXPECT_NE(two[0].find("telegram:default:222"), std::string::npos) << two[0];
  EXPECT_NE(two[0].find("per-channel-peer"), std::string::npos) << two[0];
  EXPECT_TRUE(channels::dm_scope_warnings(cfg("per-channel-peer", json::array({"111", "222"})), t.dir).empty());
  EXPECT_EQ(channels::dm_scope_warnings(cfg("main", json::array(), "open"), t.dir).size(), 1u);
  EXPECT_TRUE(channels::dm_scope_warnings(cfg("main", json::array({"1", "2"}), "disabled"), t.dir).empty());
  // A paired sender counts like an allowFrom entry.
  fs::create_directories(t.dir / "channels");
  std::ofstream(t.dir / "channels" / "pairing.json") << R"({"pending":[],"approved":{"telegram:default":["333"]}})";
  auto paired = channels::dm_scope_warnings(cfg("", json::array({"111"}), "pairing"), t.dir);
  ASSERT_EQ(paired.size(), 1u);
  EXPECT_NE(paired[0].find("telegram:default:333"), std::string::npos) << paired[0];
}

// OpenClaw's spelling dm: {policy, allowFrom, enabled} is what the pipeline applies (channel_access.h):
// the warning reads it too (it read only the flat keys: the new-user pass, a Matrix account).
TEST(DmScope, ReadsOpenClawsDmSpelling) {
  TempFile t;
  auto matrix = [](json dm) {
    return json{{"channels", {{"matrix", {{"homeserver", "http://127.0.0.1:1"}, {"accessToken", "t"}, {"dm", std::move(dm)}}}}}};
  };
  auto two = channels::dm_scope_warnings(matrix({{"policy", "allowlist"}, {"allowFrom", {"@a:x", "@b:x"}}}), t.dir);
  ASSERT_EQ(two.size(), 1u);
  EXPECT_NE(two[0].find("matrix:default:@b:x"), std::string::npos) << two[0];
  auto open = channels::dm_scope_warnings(matrix({{"policy", "open"}}), t.dir);
  ASSERT_EQ(open.size(), 1u);
  EXPECT_NE(open[0].find("channels.matrix.dm.policy"), std::string::npos) << open[0];
  EXPECT_TRUE(channels::dm_scope_warnings(matrix({{"enabled", false}, {"allowFrom", {"@a:x", "@b:x"}}}), t.dir).empty());
}

}  // namespace
}  // namespace pincer
