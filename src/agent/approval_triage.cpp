#include "agent/approval_triage.h"

#include <cctype>
#include <memory>

#include "llm/provider.h"

namespace pincer::agent {

using tools::approvals::Triage;

namespace {

constexpr const char* kTriagePrompt =
    "You review shell commands an AI agent wants to run on its owner's computer. Answer with one "
    "word first: SAFE (read-only or clearly harmless in the working directory), DANGEROUS "
    "(destroys or leaks data, changes the system, downloads and runs code, hides what it does), or "
    "ASK (anything you are not sure about). Then one short sentence why.";

}  // namespace

Triage parse_triage_answer(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size() && !std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
  std::string word;
  while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) {
    word += static_cast<char>(std::toupper(static_cast<unsigned char>(text[i++])));
  }
  std::string reason = text.substr(i);
  const auto b = reason.find_first_not_of(" \t\r\n:.-—");
  reason = b == std::string::npos ? "" : reason.substr(b);
  if (reason.size() > 300) reason.resize(300);
  if (word == "SAFE") return {"safe", reason};
  if (word == "DANGEROUS") return {"dangerous", reason};
  if (word == "ASK") return {"ask-human", reason};
  return {"", "unclear triage answer"};
}

tools::approvals::TriageHook make_triage_hook(EventLoop& loop, net::HttpClient& http, const ModelRegistry& models,
                                              const std::string* model_ref, const int64_t* timeout_ms) {
  return [&loop, &http, &models, model_ref, timeout_ms](const tools::approvals::ExecCall& call,
                                                        const tools::approvals::CommandAnalysis& analysis,
                                                        std::function<void(Triage)> done) {
    auto model = models.resolve(*model_ref);
    if (model_ref->empty() || !model) return done({"", model_ref->empty() ? "no triage model" : model.error().message});
    const llm::ProviderApi* api = llm::find_api(model->api);
    if (!api) return done({"", "unknown api " + model->api});
    llm::Context context;
    context.system_prompt = kTriagePrompt;
    std::string text = "Command: " + call.command + "\nWorking directory: " + call.cwd.string();
    for (const auto& [k, v] : call.env) text += "\nEnvironment: " + k + "=" + v;
    for (const auto& r : analysis.risks) text += "\nAnalyser: " + r;
    llm::UserMessage user;
    user.content.emplace_back(llm::TextContent{text});
    context.messages.emplace_back(std::move(user));
    const llm::HttpRequest request = api->build_request(*model, context, llm::RequestOptions{});
    struct State {
      std::unique_ptr<llm::StreamDecoder> decoder;
      int status = 0;
      bool answered = false;
      std::optional<net::HttpClient::RequestId> id;
      std::optional<EventLoop::TimerId> timer;
      std::function<void(Triage)> done;
    };
    auto st = std::make_shared<State>();
    st->done = std::move(done);
    st->decoder = api->make_decoder(*model, [](const llm::StreamEvent&, const llm::AssistantMessage&) {});
    auto finish = [&loop, st](Triage t) {
      if (st->answered) return;
      st->answered = true;
      if (st->timer) loop.cancel(*st->timer);
      st->done(std::move(t));
    };
    net::HttpRequestSpec spec;
    spec.method = request.method;
    spec.url = request.url;
    spec.headers = request.headers;
    spec.body = request.body;
    net::HttpCallbacks cb;
    cb.on_head = [st](const net::HttpResponseHead& head) { st->status = head.status; };
    cb.on_data = [st](std::string_view bytes) {
      if (st->status >= 200 && st->status < 300) (void)st->decoder->feed(bytes);
    };
    cb.on_done = [st, finish](const std::optional<net::TransportError>& error) {
      st->id.reset();
      if (error) return finish({"", "triage call failed: " + error->what});
      if (st->status < 200 || st->status >= 300) return finish({"", "triage call failed: HTTP " + std::to_string(st->status)});
      auto reply = st->decoder->finish();
      if (!reply) return finish({"", "triage answer unreadable: " + reply.error().message});
      finish(parse_triage_answer(reply->text()));
    };
    st->id = http.start(std::move(spec), std::move(cb));
    st->timer = loop.after(*timeout_ms, [&http, st, finish] {
      st->timer.reset();
      if (st->id) http.cancel(*st->id);
      finish({"", "triage timed out"});
    });
  };
}

}  // namespace pincer::agent
