// Configuration-validation defects a new-user tester found (validate helper): durations that
// overflowed into "abort at once", sandbox binds over system paths, browser origins that are not
// origins, settings whose documented default was not the applied one, control characters in
// one-line settings, unknown time zones, and /tree ids. Each check names the config path.
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <string>

#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/agents_config.h"
#include "cli/config_checks.h"
#include "core/config.h"
#include "core/config_schema.h"
#include "core/event_loop.h"
#include "core/saturating.h"
#include "gateway/protocol/connect.h"
#include "memory/capture.h"
#include "memory/daily_notes.h"
#include "agent/session_memory_archive.h"
#include "store/session_tree.h"
#include "tools/sandbox/sandbox.h"

namespace pincer {
namespace config_validation_test {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
namespace schema = config::schema;

std::string validation_errors(const json& doc) {
  auto st = config::validate(doc);
  return st ? "" : st.error().message;
}

config::EnvLookup no_env() {
  return [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
}

const std::string kValidToken = "a-gateway-token-0123456789abcdef";

/// Errors check_config finds in `resolved` (+ defaults, + a valid token).
std::vector<std::string> check_errors(json resolved) {
  resolved["gateway"]["auth"]["token"] = kValidToken;
  return cli::check_config(config::with_defaults(resolved), "/h/pincer.json", no_env()).errors;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// ---- 1. durations and counts --------------------------------------------------------------------

// Every integer key of the schema, with its path: each must have an upper bound (else 1e20 passes
// and overflows where it is converted).
void collect_unbounded(const schema::Node& node, const std::string& path, std::vector<std::string>& out) {
  switch (node.kind()) {
    case schema::Kind::kObject:
      for (const auto& f : node.fields()) collect_unbounded(f.node, path.empty() ? f.name : path + "." + f.name, out);
      return;
    case schema::Kind::kMap:
    case schema::Kind::kArray:
      collect_unbounded(node.item(), path + "[]", out);
      return;
    case schema::Kind::kInteger:
      if (!node.maximum() || *node.maximum() > schema::kMaxCount) out.push_back(path);
      return;
    default:
      return;  // unions: platform ids (string or integer), bounded by the safe-integer rule
  }
}

TEST(ConfigValidationLimits, EveryIntegerKeyHasAnUpperBound) {
  std::vector<std::string> unbounded;
  collect_unbounded(schema::root(), "", unbounded);
  EXPECT_TRUE(unbounded.empty()) << joined(unbounded);
}

TEST(ConfigValidationLimits, HugeDurationsAreRefusedWithThePath) {
  for (double v : {1e10, 1e20}) {
    const std::string errors = validation_errors({{"agents", {{"defaults", {{"timeoutSeconds", v}}}}}});
    EXPECT_THAT(errors, HasSubstr("agents.defaults.timeoutSeconds: expected integer 1..2147483")) << v;
  }
  EXPECT_EQ(validation_errors({{"agents", {{"defaults", {{"timeoutSeconds", 2147483}}}}}}), "");
  EXPECT_THAT(validation_errors({{"tools", {{"exec", {{"timeoutSec", 1e12}}}}}}),
              HasSubstr("tools.exec.timeoutSec: expected integer 0..2147483"));
  EXPECT_THAT(validation_errors({{"gateway", {{"auth", {{"rateLimit", {{"lockoutMs", 1e19}}}}}}}}),
              HasSubstr("gateway.auth.rateLimit.lockoutMs: expected integer 0..2147483647"));
  // A platform id beyond the safe-integer range is not an id a double can hold.
  EXPECT_THAT(validation_errors({{"commands", {{"ownerAllowFrom", json::array({1e300})}}}}), HasSubstr("commands.ownerAllowFrom[0]"));
}

TEST(ConfigValidationLimits, ConversionsSaturate) {
  constexpr auto kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(saturating_mul(kMax / 10, 1000), kMax);
  EXPECT_EQ(saturating_mul(-(kMax / 10), 1000), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(saturating_mul(600, 1000), 600'000);
  EXPECT_EQ(saturating_json_int<int64_t>(json(1e20), 0), kMax);
  EXPECT_EQ(saturating_json_int<int64_t>(json(-1e20), 0), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(saturating_json_int<int>(json(int64_t{1} << 40), 0), std::numeric_limits<int>::max());
  EXPECT_EQ(saturating_json_int<std::size_t>(json(-5), 7), 0u);
  EXPECT_EQ(saturating_json_int<int64_t>(json("x"), 7), 7);
  // An unvalidated document (a test, an old file) cannot make the run timeout negative.
  auto agents = agent::resolve_agents(json::parse(R"({"agents": {"defaults": {"timeoutSeconds": 1e20}}})"), "/state");
  ASSERT_TRUE(agents) << agents.error().message;
  EXPECT_EQ(agents->agents.at(0).timeout_seconds, kMax);
}

TEST(ConfigValidationLimits, AHugeTimerDelayDoesNotFireAtOnce) {
  // Before the clamp, INT64_MAX ms overflowed the clock's nanoseconds into the past: that timer
  // was due at once and ran before the 1 ms one.
  EventLoop loop(1);
  bool huge_fired = false;
  loop.after(std::numeric_limits<int64_t>::max(), [&] { huge_fired = true; });
  loop.after(int64_t{1} << 50, [&] { huge_fired = true; });
  loop.after(1, [&] { loop.stop(); });
  loop.run();
  EXPECT_FALSE(huge_fired);
}

// ---- 2. sandbox binds ---------------------------------------------------------------------------

std::string bind_error(const std::string& spec) {
  json cfg = {{"agents", {{"defaults", {{"sandbox", {{"binds", json::array({spec})}}}}}}}};
  auto s = tools::sandbox::settings_for_agent(cfg, "main");
  return s ? "" : s.error().message;
}

TEST(ConfigValidationSandbox, BindsOverSystemPathsAreRefused) {
  const std::string at = "agents.defaults.sandbox.binds[0]: ";
  EXPECT_THAT(bind_error("/"), HasSubstr(at + "\"/\" binds the host's whole file system"));
  EXPECT_THAT(bind_error("/:/host:ro"), HasSubstr("whole file system"));
  EXPECT_THAT(bind_error("/proc:/p"), HasSubstr(at + "\"/proc:/p\" binds /proc"));
  EXPECT_THAT(bind_error("/sys/kernel:/k"), HasSubstr("binds /sys/kernel, inside /sys"));
  EXPECT_THAT(bind_error("/dev:/d"), HasSubstr("binds /dev"));
  EXPECT_THAT(bind_error("/var:/v"), HasSubstr("holds /var/run"));
  EXPECT_THAT(bind_error("/srv/../etc:/e"), HasSubstr("binds /etc"));  // normalised first
  EXPECT_THAT(bind_error("/srv/data:/"), HasSubstr(at + "\"/srv/data:/\": the inside path \"/\" would replace the sandbox's root"));
  EXPECT_THAT(bind_error("/srv/data:/proc"), HasSubstr("would hide the sandbox's own /proc"));
  EXPECT_THAT(bind_error("/srv/data:/dev/shm"), HasSubstr("would hide the sandbox's own /dev"));
  EXPECT_THAT(bind_error("/srv/data:/sys"), HasSubstr("would hide the sandbox's own /sys"));
  EXPECT_THAT(bind_error(std::string("/tmp/a\nb")), HasSubstr(at + "contains a control character"));
  EXPECT_THAT(bind_error(std::string("/tmp/a\0b", 8)), HasSubstr("control character"));
  EXPECT_THAT(bind_error("relative/dir"), HasSubstr("is not an absolute host path"));
  EXPECT_THAT(bind_error("/srv/data:inside"), HasSubstr("neither an absolute inside path nor a mode"));
  EXPECT_EQ(bind_error("/srv/data:/data:ro"), "");
  EXPECT_EQ(bind_error("/usr/share:/share"), "");
}

TEST(ConfigValidationSandbox, ASymlinkToABlockedPathIsRefused) {
  const auto dir = std::filesystem::temp_directory_path() / ("pincer-bind-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::remove(dir / "etc-link");
  std::filesystem::create_directory_symlink("/etc", dir / "etc-link");
  EXPECT_THAT(bind_error((dir / "etc-link").string() + ":/e"), HasSubstr("through the symlink"));
  std::filesystem::remove_all(dir);
}

TEST(ConfigValidationSandbox, DuplicateInsidePathsAreRefused) {
  json cfg = {{"agents",
               {{"defaults", {{"sandbox", {{"binds", json::array({"/srv/data:/data"})}}}}},
                {"list", json::array({{{"id", "main"}, {"sandbox", {{"binds", json::array({"/usr/share:/data/"})}}}}})}}}};
  auto s = tools::sandbox::settings_for_agent(cfg, "main");
  ASSERT_FALSE(s);
  EXPECT_THAT(s.error().message, HasSubstr("agents.list[0].sandbox.binds[0]: the inside path /data is already bound by "
                                           "agents.defaults.sandbox.binds[0]"));
}

TEST(ConfigValidationSandbox, AMissingHostPathIsAnErrorEvenWithTheSandboxOff) {
  const std::string missing = "/tmp/pincer-no-such-dir-" + std::to_string(::getpid());
  const auto errors = check_errors({{"agents", {{"defaults", {{"sandbox", {{"mode", "off"}, {"binds", json::array({missing})}}}}}}}});
  EXPECT_THAT(joined(errors), HasSubstr("agents.defaults.sandbox.binds[0]: host path \"" + missing + "\" does not exist"));
}

// ---- 3. browser origins and the Control UI base path ---------------------------------------------

TEST(ConfigValidationOrigins, OnlyOriginsAreAccepted) {
  for (const char* bad : {"null", "example.com", "https://example.com/path", "https://example.com/", "", "ftp://x.org",
                          "https://user@example.com", "https://example.com:99999", "https://exa mple.com"}) {
    EXPECT_THAT(validation_errors({{"gateway", {{"controlUi", {{"allowedOrigins", json::array({bad})}}}}}}),
                HasSubstr("gateway.controlUi.allowedOrigins[0]: expected `*` or an origin http(s)://host[:port]"))
        << bad;
  }
  EXPECT_EQ(validation_errors({{"gateway",
                                {{"controlUi",
                                  {{"allowedOrigins",
                                    json::array({"*", "https://pincer.example.com", "http://127.0.0.1:8080", "https://[::1]:8443",
                                     "HTTPS://Example.COM"})}}}}}}),
            "");
}

TEST(ConfigValidationOrigins, TheNullOriginIsNeverHonoured) {
  gateway::AuthSettings auth;
  auth.allowed_origins = {"null", "*"};
  EXPECT_FALSE(gateway::browser_origin_allowed("null", "127.0.0.1:18789", auth));
  EXPECT_FALSE(gateway::browser_origin_allowed("NULL", "127.0.0.1:18789", auth));
  auth.allowed_origins = {"https://Pincer.Example.com"};
  EXPECT_TRUE(gateway::browser_origin_allowed("https://pincer.example.com", "pincer.example.com", auth));
  EXPECT_FALSE(gateway::browser_origin_allowed("https://other.example.com", "pincer.example.com", auth));
}

TEST(ConfigValidationOrigins, ABasePathMustStartWithASlash) {
  EXPECT_THAT(joined(check_errors({{"gateway", {{"controlUi", {{"basePath", "relative"}}}}}})),
              HasSubstr("gateway.controlUi.basePath: \"relative\": must start with \"/\""));
  EXPECT_EQ(joined(check_errors({{"gateway", {{"controlUi", {{"basePath", "/openclaw/"}}}}}})), "");
}

// ---- 4. documented defaults are the applied ones ------------------------------------------------

const schema::Node& node_at(std::initializer_list<const char*> path) {
  const schema::Node* n = &schema::root();
  for (const char* key : path) {
    const schema::Field* f = n->find(key);
    EXPECT_NE(f, nullptr) << key;
    if (f == nullptr) return schema::root();
    n = &f->node;
  }
  return *n;
}

json documented_default(std::initializer_list<const char*> path) {
  const auto& d = node_at(path).default_value();
  return d ? *d : json();
}

TEST(ConfigValidationDefaults, MemoryCaptureArchiveAndStartupContextDefaultsAreTheAppliedOnes) {
  const memory::CaptureSettings capture = memory::capture_settings(json::object());
  EXPECT_EQ(documented_default({"memory", "capture", "enabled"}), capture.enabled);
  EXPECT_EQ(documented_default({"memory", "capture", "maxChars"}), capture.max_chars);
  EXPECT_EQ(documented_default({"memory", "archive", "enabled"}), agent::archive_enabled(json::object()));
  const memory::StartupContextLimits sc = memory::startup_context_limits(json::object());
  EXPECT_EQ(documented_default({"agents", "defaults", "startupContext", "enabled"}), sc.enabled);
  EXPECT_EQ(documented_default({"agents", "defaults", "startupContext", "dailyMemoryDays"}), sc.daily_memory_days);
  EXPECT_EQ(documented_default({"agents", "defaults", "startupContext", "maxFileBytes"}), sc.max_file_bytes);
  EXPECT_EQ(documented_default({"agents", "defaults", "startupContext", "maxFileChars"}), sc.max_file_chars);
  EXPECT_EQ(documented_default({"agents", "defaults", "startupContext", "maxTotalChars"}), sc.max_total_chars);
  // And the code reads the filled-in defaults as its own.
  const json filled = config::with_defaults(json::object());
  EXPECT_EQ(memory::capture_settings(filled).max_chars, capture.max_chars);
  EXPECT_EQ(memory::startup_context_limits(filled).max_total_chars, sc.max_total_chars);
}

// ---- 6. one-line strings, time zones, /tree ids -------------------------------------------------

TEST(ConfigValidationText, ControlCharactersAreRefusedInOneLineSettings) {
  EXPECT_THAT(validation_errors({{"gateway", {{"auth", {{"token", "abc\ndef-0123456789abcdef0123"}}}}}}),
              HasSubstr("gateway.auth.token: expected string without control characters (newline, tab, NUL …), got string"));
  EXPECT_THAT(validation_errors({{"agents", {{"defaults", {{"workspace", "/home/u/ws\n"}}}}}}),
              HasSubstr("agents.defaults.workspace: expected string without control characters"));
  EXPECT_THAT(validation_errors({{"agents", {{"list", json::array({{{"id", "main"}, {"workspace", std::string("/w\0x", 4)}}})}}}}),
              HasSubstr("agents.list[0].workspace: expected string without control characters"));
  EXPECT_EQ(validation_errors({{"agents", {{"defaults", {{"workspace", "~/Mes documents/ünïcode"}}}}}}), "");
}

TEST(ConfigValidationText, AnUnknownTimeZoneIsAnError) {
  EXPECT_THAT(joined(check_errors({{"agents", {{"defaults", {{"userTimezone", "Mars/Base"}}}}}})),
              HasSubstr("agents.defaults.userTimezone: \"Mars/Base\" is not a time zone of this host's database"));
  EXPECT_THAT(joined(check_errors({{"agents", {{"defaults", {{"userTimezone", "Europe"}}}}}})), HasSubstr("userTimezone"));
  EXPECT_EQ(joined(check_errors({{"agents", {{"defaults", {{"userTimezone", "Europe/Berlin"}}}}}})), "");
  EXPECT_EQ(joined(check_errors({{"agents", {{"defaults", {{"userTimezone", "UTC"}}}}}})), "");
}

TEST(ConfigValidationText, TreeIdsAreCaseInsensitiveAndNeverEchoedWhole) {
  std::vector<store::TranscriptEntry> entries(2);
  entries[0].id = "ab12cd34";
  entries[1].id = "ef56ab78";
  auto found = store::resolve_entry(entries, "AB12");
  ASSERT_TRUE(found) << found.error().message;
  EXPECT_EQ(*found, 0u);
  EXPECT_EQ(*store::resolve_entry(entries, "EF56AB78"), 1u);
  const std::string long_id(100 * 1024, 'a');
  auto refused = store::resolve_entry(entries, long_id);
  ASSERT_FALSE(refused);
  EXPECT_LT(refused.error().message.size(), 200u) << refused.error().message.substr(0, 300);
  auto not_found = store::resolve_entry(entries, std::string(60, 'c'));
  ASSERT_FALSE(not_found);
  EXPECT_EQ(not_found.error().code, "ENTRY_NOT_FOUND");
  EXPECT_LT(not_found.error().message.size(), 120u) << not_found.error().message;
}

}  // namespace
}  // namespace config_validation_test
}  // namespace pincer
