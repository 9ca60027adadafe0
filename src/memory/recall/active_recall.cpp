// One bounded memory recall before a reply (SPEC DR-6); see active_recall.h.
#include "memory/recall/active_recall.h"

#include <algorithm>
#include <optional>

#include <spdlog/spdlog.h>

#include "llm/provider.h"

namespace pincer::memory::recall {

using nlohmann::json;
using SteadyClock = std::chrono::steady_clock;

namespace detail_active_recall {

constexpr std::size_t kMaxCacheEntries = 1000;
constexpr std::size_t kMaxSnippetChars = 400;
constexpr std::size_t kMaxHitsBytes = 4000;
constexpr int64_t kMaxAnswerTokens = 512;  ///< a ≤ 1000-character note, with room for a reasoning model

std::string cache_key(const RecallRequest& r, const SearchPlan& plan, const std::string& conversation) {
  return r.agent_id + '\n' + r.session_key + '\n' + std::string(to_string(r.settings.prompt_style)) + '\n' +
         r.model.provider + '/' + r.model.id + '\n' + plan.query + '\n' + conversation;
}

}  // namespace detail_active_recall

using namespace detail_active_recall;

struct ActiveRecall::Job {
  RecallRequest request;
  SearchPlan plan;
  std::string conversation;
  std::string key;
  std::function<void(RecallOutcome)> done;
  SteadyClock::time_point started;
  bool finished = false;
  std::optional<EventLoop::TimerId> timer;
  std::optional<net::HttpClient::RequestId> call;
  std::unique_ptr<llm::StreamDecoder> decoder;
  int status = 0;
  std::string error_body;
};

ActiveRecall::ActiveRecall(EventLoop& loop, net::HttpClient& http, tools::MemoryBackend& memory)
    : loop_(loop), http_(http), memory_(memory) {}

ActiveRecall::~ActiveRecall() { *alive_ = false; }

std::size_t ActiveRecall::cached() const {
  const auto now = SteadyClock::now();
  return static_cast<std::size_t>(
      std::count_if(cache_.begin(), cache_.end(), [&](const auto& e) { return e.second.expires > now; }));
}

std::function<void()> ActiveRecall::recall(RecallRequest request, std::function<void(RecallOutcome)> done) {
  auto job = std::make_shared<Job>();
  std::weak_ptr<bool> alive = alive_;
  // The stop function: the turn this recall was for has ended (an abort); nothing may outlive it.
  auto stop = [this, alive, weak = std::weak_ptr<Job>(job)] {
    auto j = weak.lock();
    if (!j || alive.expired() || !*alive.lock() || !end_job(j)) return;
    j->done = nullptr;
    const auto elapsed =
        std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - j->started).count();
    if (j->request.settings.logging) {
      spdlog::info("active-memory: agent={} session={} status=stopped elapsedMs={} (the turn was aborted)",
                   j->request.agent_id, j->request.session_key, elapsed);
    }
  };
  job->started = SteadyClock::now();
  job->plan = plan_search(request.settings, request.latest, request.turns);
  job->conversation = conversation_excerpt(request.settings, request.latest, request.turns);
  job->request = std::move(request);
  job->done = std::move(done);
  if (job->plan.query.empty()) {
    finish(job, {"empty", "", "", false});
    return stop;
  }
  job->key = cache_key(job->request, job->plan, job->conversation);
  if (auto it = cache_.find(job->key); it != cache_.end()) {
    if (it->second.expires > job->started) {
      RecallOutcome hit = it->second.outcome;
      hit.cached = true;
      finish(job, std::move(hit));
      return stop;
    }
    cache_.erase(it);
  }
  job->timer = loop_.after(job->request.settings.timeout_ms, [this, alive, job] {
    if (alive.expired() || !*alive.lock()) return;
    job->timer.reset();
    finish(job, {"timeout", "", "no answer within " + std::to_string(job->request.settings.timeout_ms) + " ms", false});
  });
  json args = {{"query", job->plan.query}, {"maxResults", job->plan.max_results}, {"corpus", "memory"}};
  if (job->plan.min_score) args["minScore"] = *job->plan.min_score;
  auto result = std::make_shared<json>();
  tools::MemoryBackend* memory = &memory_;
  const std::string agent = job->request.agent_id;
  const std::filesystem::path workspace = job->request.workspace;
  loop_.offload(
      [memory, agent, workspace, args, result] {
        try {
          *result = memory->search(agent, workspace, args);
        } catch (const std::exception& e) {
          *result = {{"error", e.what()}};
        }
      },
      [this, alive, job, result] {
        if (alive.expired() || !*alive.lock() || job->finished) return;  // timed out or stopped meanwhile
        search_done(job, *result);
      });
  return stop;
}

void ActiveRecall::search_done(const std::shared_ptr<Job>& job, const json& result) {
  if (!result.is_object() || !result.contains("results") || !result["results"].is_array() ||
      result.value("disabled", false) || result.value("unavailable", false)) {
    std::string why = result.is_object() ? result.value("error", "") : "";
    return finish(job, {"failed", "", "memory search failed" + (why.empty() ? "" : ": " + why), false});
  }
  std::string hits;
  int kept = 0;
  for (const auto& hit : result["results"]) {
    if (!hit.is_object()) continue;
    const std::string snippet = cut_code_points(hit.value("snippet", ""), kMaxSnippetChars);
    if (job->plan.preferences_only && !reads_as_preference(snippet)) continue;
    std::string line = "- " + hit.value("path", std::string("memory")) + "#L" + std::to_string(hit.value("startLine", 1)) +
                       ": ";
    for (char c : snippet) line += (c == '\n' || c == '\r') ? ' ' : c;
    if (hits.size() + line.size() + 1 > kMaxHitsBytes) break;
    hits += line + "\n";
    ++kept;
  }
  if (kept == 0) return finish(job, {"empty", "", "", false});
  call_model(job, hits);
}

void ActiveRecall::call_model(const std::shared_ptr<Job>& job, const std::string& hits) {
  const llm::ModelSpec& model = job->request.model;
  const llm::ProviderApi* api = llm::find_api(model.api);
  if (!api) return finish(job, {"failed", "", "the recall model " + model.provider + "/" + model.id +
                                                   " has no HTTP api (\"" + model.api + "\")", false});
  llm::Context context;
  context.system_prompt = recall_instructions(job->request.settings);
  llm::UserMessage user;
  user.content.emplace_back(llm::TextContent{recall_request(job->plan.query, hits, job->conversation)});
  user.content_is_string = true;
  context.messages.emplace_back(std::move(user));
  llm::RequestOptions options;
  options.max_tokens = std::min<int64_t>(kMaxAnswerTokens, std::max<int64_t>(64, model.max_tokens));
  const llm::HttpRequest request = api->build_request(model, context, options);
  job->decoder = api->make_decoder(model, [](const llm::StreamEvent&, const llm::AssistantMessage&) {});
  std::weak_ptr<bool> alive = alive_;
  net::HttpRequestSpec spec;
  spec.method = request.method;
  spec.url = request.url;
  spec.headers = request.headers;
  spec.body = request.body;
  net::HttpCallbacks cb;
  cb.on_head = [job](const net::HttpResponseHead& head) { job->status = head.status; };
  cb.on_data = [job](std::string_view bytes) {
    if (job->status >= 200 && job->status < 300) {
      (void)job->decoder->feed(bytes);
    } else if (job->error_body.size() < 4096) {
      job->error_body.append(bytes.substr(0, 4096));
    }
  };
  cb.on_done = [this, alive, job](const std::optional<net::TransportError>& error) {
    job->call.reset();
    if (alive.expired() || !*alive.lock() || job->finished) return;
    if (error) return finish(job, {"failed", "", "recall model call failed: " + error->what, false});
    if (job->status < 200 || job->status >= 300) {
      return finish(job, {"failed", "", "recall model call failed: HTTP " + std::to_string(job->status), false});
    }
    auto reply = job->decoder->finish();
    if (!reply) return finish(job, {"failed", "", "recall model answer unreadable: " + reply.error().message, false});
    if (auto summary = read_summary(reply->text(), job->request.settings.max_summary_chars)) {
      return finish(job, {"ok", *summary, "", false});
    }
    finish(job, {"none", "", "", false});
  };
  job->call = http_.start(std::move(spec), std::move(cb));
}

bool ActiveRecall::end_job(const std::shared_ptr<Job>& job) {
  if (job->finished) return false;
  job->finished = true;
  if (job->timer) {
    loop_.cancel(*job->timer);
    job->timer.reset();
  }
  if (job->call) {
    const auto id = *job->call;
    job->call.reset();
    http_.cancel(id);  // its on_done sees `finished` and does nothing
  }
  return true;
}

void ActiveRecall::finish(const std::shared_ptr<Job>& job, RecallOutcome outcome) {
  if (!end_job(job)) return;
  const auto now = SteadyClock::now();
  const bool cacheable = !outcome.cached && (outcome.status == "ok" || outcome.status == "none" || outcome.status == "empty");
  if (cacheable && !job->key.empty()) {
    if (cache_.size() >= kMaxCacheEntries) {
      std::erase_if(cache_, [&](const auto& e) { return e.second.expires <= now; });
      if (cache_.size() >= kMaxCacheEntries) cache_.erase(cache_.begin());
    }
    cache_[job->key] = {now + std::chrono::milliseconds(job->request.settings.cache_ttl_ms), outcome};
  }
  const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(now - job->started).count();
  if (job->request.settings.logging) {
    spdlog::info("active-memory: agent={} session={} status={}{} elapsedMs={} mode={} style={} summaryChars={}{}",
                 job->request.agent_id, job->request.session_key, outcome.status, outcome.cached ? " (cached)" : "",
                 elapsed, to_string(job->request.settings.query_mode), to_string(job->request.settings.prompt_style),
                 outcome.summary.size(), outcome.error.empty() ? "" : " error=" + outcome.error);
  } else if (outcome.status == "failed" || outcome.status == "timeout") {
    spdlog::debug("active-memory: agent={} session={} status={} {}", job->request.agent_id, job->request.session_key,
                  outcome.status, outcome.error);
  }
  auto done = std::move(job->done);
  job->done = nullptr;
  if (done) done(std::move(outcome));
}

}  // namespace pincer::memory::recall
