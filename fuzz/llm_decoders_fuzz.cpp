// libFuzzer target: the four provider stream decoders (llm/). Byte 0 picks the wire API, byte 1 a
// chunk size; the rest is a response body. Properties: no crash, deltas always point at existing
// content blocks, and the outcome (events + final message or error) does not depend on chunking.
// Text and thinking deltas of one block that arrive in one read are reported as one delta (the
// decoders flush per feed), so consecutive deltas of the same kind and block are merged first.
#include <cstdint>
#include <cstdio>
#include <string>
#include "llm/provider.h"
using namespace pincer::llm;
static std::string outcome(const ModelSpec& m, std::string_view body, size_t step) {
  std::string ev, merged;  // ev: the events before the open text/thinking run; merged: that run
  int run_kind = -1; size_t run_index = 0;
  auto close_run = [&] { if (run_kind >= 0) ev += std::to_string(run_kind) + ":" + std::to_string(run_index) + ":" + merged + "|"; run_kind = -1; merged.clear(); };
  auto d = find_api(m.api)->make_decoder(m, [&](const StreamEvent& e, const AssistantMessage& p) {
    if (e.content_index >= p.content.size()) __builtin_trap();
    bool mergeable = e.kind == StreamEvent::Kind::TextDelta || e.kind == StreamEvent::Kind::ThinkingDelta;
    if (mergeable && run_kind == (int)e.kind && run_index == e.content_index) { merged += e.delta; return; }
    close_run();
    if (mergeable) { run_kind = (int)e.kind; run_index = e.content_index; merged = e.delta; return; }
    ev += std::to_string((int)e.kind) + ":" + std::to_string(e.content_index) + ":" + e.delta + "|"; });
  size_t pos = 0;
  while (pos < body.size()) { size_t n = step ? step : body.size(); auto s = d->feed(body.substr(pos, n)); pos += n; if (!s.ok()) { close_run(); return ev + "E" + s.error().code + s.error().message; } }
  auto r = d->finish(); close_run();
  if (!r.ok()) return ev + "F" + r.error().code + r.error().message;
  auto j = to_json(Message{r.value()}); j["timestamp"] = 0;
  for (auto& b : j["content"]) if (b["type"] == "toolCall") b["id"] = m.api == "ollama" ? "X" : b["id"];
  return ev + j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  static const char* apis[] = {"openai-completions", "openai-responses", "anthropic-messages", "ollama"};
  ModelSpec m; m.api = apis[data[0] % 4]; m.provider = "p"; m.id = "m";
  size_t step = 1 + data[1] % 17;
  std::string_view body(reinterpret_cast<const char*>(data + 2), size - 2);
  auto a = outcome(m, body, 0), b = outcome(m, body, step); if (a != b) { fprintf(stderr, "WHOLE %s\nSTEP%zu %s\n", a.c_str(), step, b.c_str()); __builtin_trap(); }
  return 0;
}
