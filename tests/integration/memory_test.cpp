// Memory end to end (issue #13, MM-4..MM-8): the real gateway and CLI, real SQLite files, the mock
// LLM calling memory_search as a tool, and its embeddings endpoints (slow, failing, changed).
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "gateway_process.h"
#include "mock_config.h"
#include "raw_socket.h"
#include "ws_client.h"

namespace pincer::test {
namespace memory_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kToken = "memory-test-token-0123456789";

std::string config(const MockLlm& mock, const std::string& memory = "", const std::string& agents_list = "") {
  return mock_config({.token = kToken,
                      .provider = {.base_url = mock.base_url()},
                      .agents = agents_list,
                      .top = ",\n  memory: { " + memory + " }"});
}

void set_embeddings(const MockLlm& mock, const json& settings) {
  const std::string body = settings.dump();
  auto r = raw_exchange(mock.port(), "POST /__mock/embeddings HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                                     "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
  ASSERT_EQ(r.status, 200) << r.body;
}

class MemoryE2E : public ::testing::Test {
 protected:
  std::unique_ptr<WsClient> client() {
    auto c = std::make_unique<WsClient>(gateway_->port());
    EXPECT_TRUE(c->recv());
    auto params = connect_params(kToken);
    params["caps"] = json::array({"tool-events"});
    c->send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", params}});
    auto res = c->recv_response("c1");
    EXPECT_TRUE(res && (*res)["ok"] == true);
    return c;
  }
  /// One turn in `session`; returns the result text of the first `tool` call (or "" when none).
  std::string tool_turn(WsClient& c, const std::string& session, const std::string& message, const std::string& run_id) {
    auto ack = c.request("chat.send", {{"sessionKey", session}, {"message", message}, {"idempotencyKey", run_id}});
    EXPECT_EQ(ack["ok"], true) << ack.dump();
    std::string result;
    for (int i = 0; i < 2000; ++i) {
      std::optional<json> f = c.next_frame(20s);
      if (!f) break;
      const json& p = (*f)["payload"];
      if ((*f)["event"] == "agent" && p.value("stream", "") == "tool" && p["data"].value("phase", "") == "result" &&
          result.empty()) {
        result = p["data"]["result"].is_string() ? p["data"]["result"].get<std::string>() : p["data"]["result"].dump();
      }
      if ((*f)["event"] == "chat" && p.value("runId", "") == run_id &&
          (p["state"] == "final" || p["state"] == "error" || p["state"] == "aborted")) {
        EXPECT_EQ(p["state"], "final") << p.dump();
        return result;
      }
    }
    ADD_FAILURE() << "no terminal event for " << run_id;
    return result;
  }
  static std::string search_call(const std::string& query) {
    return "MOCK_TOOL:memory_search:" + json{{"query", query}}.dump();
  }
  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }
  RunResult cli(const std::vector<std::string>& args) {
    return run_pincer(args, {{"PINCER_HOME", home_.path().string()}}, 30s);
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
};

TEST_F(MemoryE2E, AFactWrittenInOneSessionIsFoundInAnotherAndAfterARestart) {
  mock_ = std::make_unique<MockLlm>();
  // Auto-capture off: "remember this …" would also put the fact into today's note (recall_test).
  home_.write("pincer.json", config(*mock_, "capture: { enabled: false }"));
  gateway_ = std::make_unique<Gateway>(home_.path());
  {
    auto c = client();
    const json write_args = {{"path", "memory/2026-11-20.md"}, {"content", "- The user's cat is called Zephyrine.\n"}};
    tool_turn(*c, "main", "remember this MOCK_TOOL:write:" + write_args.dump(), "w1");
    const std::string found = tool_turn(*c, "other", search_call("what is my cat called"), "s1");
    EXPECT_NE(found.find("Zephyrine"), std::string::npos) << found;
    EXPECT_NE(found.find("memory/2026-11-20.md"), std::string::npos) << found;
  }
  gateway_.reset();
  gateway_ = std::make_unique<Gateway>(home_.path());
  auto c = client();
  const std::string after = tool_turn(*c, "third", search_call("cat name"), "s2");
  EXPECT_NE(after.find("Zephyrine"), std::string::npos) << after;
  // The Markdown is the truth: without the index the fact is still found.
  gateway_.reset();
  auto reset = cli({"memory", "reset"});
  ASSERT_EQ(reset.exit_code, 0) << reset.err;
  EXPECT_FALSE(fs::exists(home_.path() / "memory/main.sqlite"));
  auto search = cli({"memory", "search", "Zephyrine", "--json"});
  ASSERT_EQ(search.exit_code, 0) << search.err;
  EXPECT_EQ(json::parse(search.out)["results"][0]["path"], "memory/2026-11-20.md") << search.out;
}

TEST_F(MemoryE2E, TwoAgentsNeverSeeEachOthersMemory) {
  mock_ = std::make_unique<MockLlm>();
  home_.write("pincer.json", config(*mock_, "", ", list: [ { id: 'main', default: true }, { id: 'work' } ]"));
  home_.write("workspace/MEMORY.md", "- Main's code word is periwinkle.\n");
  home_.write("workspace-work/MEMORY.md", "- Work's code word is tangerine.\n");
  gateway_ = std::make_unique<Gateway>(home_.path());
  auto c = client();
  const std::string work = tool_turn(*c, "agent:work:main", search_call("code word periwinkle tangerine"), "a1");
  EXPECT_NE(work.find("tangerine"), std::string::npos) << work;
  EXPECT_EQ(work.find("periwinkle"), std::string::npos) << work;
  const std::string main = tool_turn(*c, "agent:main:main", search_call("code word periwinkle tangerine"), "a2");
  EXPECT_NE(main.find("periwinkle"), std::string::npos) << main;
  EXPECT_EQ(main.find("tangerine"), std::string::npos) << main;
}

TEST_F(MemoryE2E, AFileEditedWhileRunningIsReindexedByTheWatcher) {
  mock_ = std::make_unique<MockLlm>();
  home_.write("pincer.json", config(*mock_, "search: { sync: { watchDebounceMs: 200 } }"));
  home_.write("workspace/MEMORY.md", "- first fact\n");
  gateway_ = std::make_unique<Gateway>(home_.path());
  auto c = client();
  tool_turn(*c, "main", search_call("first"), "e1");  // opens the index and starts watching
  const std::size_t before = gateway_->process().err().size();
  home_.write("workspace/memory/topics.md", "- The spare key is under the blue flowerpot.\n");
  // No search runs now: only the watcher can index the new file. Wait for its log line.
  bool seen = false;
  for (int i = 0; i < 600 && !seen; ++i) {
    seen = gateway_->process().err().find("1 file(s) re-indexed, 0 removed", before) != std::string::npos;
    if (!seen) std::this_thread::sleep_for(50ms);
  }
  EXPECT_TRUE(seen) << gateway_->process().err();
  const std::string found = tool_turn(*c, "main", search_call("where is the spare key"), "e2");
  EXPECT_NE(found.find("flowerpot"), std::string::npos) << found;
}

TEST_F(MemoryE2E, SlowOrFailingEmbeddingsGiveLabelledKeywordResults) {
  mock_ = std::make_unique<MockLlm>();
  home_.write("pincer.json", config(*mock_, "search: { provider: 'openai-compatible', remote: { baseUrl: '" +
                                                mock_->base_url() + "', apiKey: 'k' }, query: { timeoutMs: 400 } }"));
  home_.write("workspace/MEMORY.md", "- The wifi password is hunter2-lighthouse.\n");
  auto ok = cli({"memory", "search", "wifi password", "--json"});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  json hybrid = json::parse(ok.out);
  EXPECT_EQ(hybrid["mode"], "hybrid") << ok.out;
  EXPECT_FALSE(hybrid.contains("partial"));
  ASSERT_FALSE(hybrid["results"].empty()) << ok.out;

  set_embeddings(*mock_, {{"delayMs", 20000}});  // far past query.timeoutMs
  auto slow = cli({"memory", "search", "wifi password", "--json"});
  ASSERT_EQ(slow.exit_code, 0) << slow.err;
  json partial = json::parse(slow.out);
  EXPECT_EQ(partial["partial"], true) << slow.out;
  EXPECT_EQ(partial["mode"], "keyword");
  EXPECT_NE(partial["warning"].get<std::string>().find("keyword results only"), std::string::npos);
  ASSERT_FALSE(partial["results"].empty()) << slow.out;
  EXPECT_NE(partial["results"][0]["snippet"].get<std::string>().find("hunter2"), std::string::npos);

  set_embeddings(*mock_, {{"delayMs", 0}, {"status", 503}});
  auto down = cli({"memory", "search", "wifi", "--json"});
  ASSERT_EQ(down.exit_code, 0) << down.err;
  json d = json::parse(down.out);
  EXPECT_EQ(d["partial"], true) << down.out;
  EXPECT_FALSE(d["results"].empty());
}

TEST_F(MemoryE2E, AProviderChangeRebuildsTheIndexAndEachWireFormatWorks) {
  mock_ = std::make_unique<MockLlm>();
  home_.write("workspace/MEMORY.md", "- Passport renewal is due in March.\n");
  home_.write("workspace/memory/trips.md", "- Next trip: Lisbon in spring.\n");
  home_.write("pincer.json", config(*mock_));
  auto first = cli({"memory", "index"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("2 re-indexed"), std::string::npos) << first.out;
  const std::string host = "http://127.0.0.1:" + std::to_string(mock_->port());
  const std::vector<std::pair<std::string, std::string>> providers = {
      {"openai-compatible", mock_->base_url()}, {"ollama", host}, {"gemini", host + "/v1beta"}};
  for (const auto& [provider, url] : providers) {
    home_.write("pincer.json", config(*mock_, "search: { provider: '" + provider + "', remote: { baseUrl: '" + url +
                                                  "', apiKey: 'k' } }"));
    auto idx = cli({"memory", "index"});
    ASSERT_EQ(idx.exit_code, 0) << provider << ": " << idx.err << idx.out;
    EXPECT_NE(idx.out.find("2 re-indexed"), std::string::npos) << provider << ": " << idx.out;  // a full rebuild
    EXPECT_NE(idx.out.find("2 embedded"), std::string::npos) << provider << ": " << idx.out;
    auto st = cli({"memory", "status", "--json"});
    ASSERT_EQ(st.exit_code, 0) << st.err;
    json s = json::parse(st.out)[0];
    EXPECT_EQ(s["provider"], provider);
    EXPECT_EQ(s["vectors"], 2) << st.out;
    EXPECT_EQ(s["dims"], 64) << st.out;
    auto q = cli({"memory", "search", "passport renewal", "--json"});
    json r = json::parse(q.out);
    EXPECT_EQ(r["mode"], "hybrid") << provider << ": " << q.out;
    ASSERT_FALSE(r["results"].empty()) << provider << ": " << q.out;
    EXPECT_EQ(r["results"][0]["path"], "MEMORY.md") << provider;
  }
  // Same provider again: nothing to re-read, nothing to embed.
  auto same = cli({"memory", "index"});
  EXPECT_NE(same.out.find("0 re-indexed"), std::string::npos) << same.out;
}

TEST_F(MemoryE2E, ACorruptIndexIsRebuiltWithALogLine) {
  mock_ = std::make_unique<MockLlm>();
  home_.write("pincer.json", config(*mock_));
  home_.write("workspace/MEMORY.md", "- The boat is called Saltwater Sally.\n");
  ASSERT_EQ(cli({"memory", "index"}).exit_code, 0);
  home_.write("memory/main.sqlite", std::string(4096, 'Z'));
  std::error_code ec;
  fs::remove(home_.path() / "memory/main.sqlite-wal", ec);
  fs::remove(home_.path() / "memory/main.sqlite-shm", ec);
  auto r = cli({"memory", "search", "boat", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("was unreadable"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("rebuilt it from the Markdown files"), std::string::npos) << r.err;
  EXPECT_EQ(json::parse(r.out)["results"][0]["path"], "MEMORY.md") << r.out;
}

TEST_F(MemoryE2E, TheCliAnswersJsonForFilesThatAreNotUtf8) {
  // A note with Latin-1 bytes in its text and one with them in its name: the CLI's JSON replaces
  // them (U+FFFD) instead of aborting on nlohmann's type_error 316.
  mock_ = std::make_unique<MockLlm>();
  home_.write("pincer.json", config(*mock_));
  home_.write("workspace/memory/notes.md", "- zanzibar \xff\xfe caf\xc3 trip\n");
  home_.write("workspace/memory/n\xff" "ame.md", "- the quokka smiles\n");
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"memory", "search", "zanzibar", "--json"}, {"memory", "search", "quokka", "--json"},
           {"memory", "status", "--deep", "--json"}}) {
    auto r = cli(args);
    ASSERT_EQ(r.exit_code, 0) << args[2] << ": " << r.err;
    EXPECT_TRUE(json::accept(r.out)) << r.out;
  }
  EXPECT_NE(cli({"memory", "search", "zanzibar", "--json"}).out.find("zanzibar"), std::string::npos);
}

TEST_F(MemoryE2E, AFileNameCannotForgeLinesOfTheTextOutputAndAnEmptyQueryIsAnError) {
  // Found by a new-user pass: a note named "a.md:1-1  score 1\n  FAKE…" printed a fake hit line,
  // and `memory status --deep` printed a name's escape codes raw.
  mock_ = std::make_unique<MockLlm>();
  home_.write("pincer.json", config(*mock_));
  home_.write("workspace/memory/a.md:1-1  score 1\n  FAKE SNIPPET\nb.md", "- the marmoset naps\n");
  home_.write("workspace/memory/ev\x1b[2Jil.md", "- the marmoset naps too\n");
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"memory", "search", "marmoset"}, {"memory", "status", "--deep"}}) {
    auto r = cli(args);
    ASSERT_EQ(r.exit_code, 0) << args[1] << ": " << r.err;
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("\n  FAKE SNIPPET"), std::string::npos) << r.out;  // no line of its own
    EXPECT_NE(r.out.find("score 1\\n  FAKE SNIPPET\\nb.md"), std::string::npos) << r.out;  // shown escaped
  }
  for (const std::string& empty : {std::string(""), std::string("  \t ")}) {
    auto r = cli({"memory", "search", empty});
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.err.find("the query is empty"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace memory_test
}  // namespace pincer::test
