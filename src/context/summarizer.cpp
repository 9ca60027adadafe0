#include "context/summarizer.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "context/budget.h"
#include "context/compaction.h"
#include "llm/failover.h"

namespace pincer::context {

Summarizer::Summarizer(net::HttpClient& http, SummaryJob job, std::function<void(Result<std::string>)> done)
    : http_(http), job_(std::move(job)), done_(std::move(done)), api_(llm::find_api(job_.model.api)) {
  if (job_.max_summary_tokens <= 0) {
    job_.max_summary_tokens = std::max<int64_t>(64, std::min(job_.model.max_tokens, job_.window_tokens / 4));
  }
  summary_ = job_.previous_summary;
}

void Summarizer::start() {
  auto self = shared_from_this();  // `done` may drop the owner's reference
  if (!api_) return fail(Error{"SUMMARY_FAILED", "the summariser's model uses unknown api \"" + job_.model.api + "\""});
  // Each call must fit the summariser's prompt budget (CX-6, its reply reserved): the fixed
  // prompt, the running summary (which grows to at most max_summary_tokens) and one piece.
  const int64_t budget = prompt_budget(job_.window_tokens, job_.max_summary_tokens);
  const int64_t fixed = estimate_tokens(summary_system_prompt().size() + summary_request("", "x", job_.instructions).size());
  const int64_t running = std::max(estimate_tokens(summary_.size()), job_.max_summary_tokens);
  const int64_t room = budget - fixed - running;
  if (room < 64) {
    return fail(Error{"SUMMARY_BUDGET", "the summariser's window (" + std::to_string(job_.window_tokens) +
                                            " tokens) cannot hold a piece of the conversation beside its summary"});
  }
  // Tokens → chars, inverting the estimate (with its margin), so a piece estimates within `room`.
  const auto max_chars = static_cast<std::size_t>(static_cast<double>(room) * kCharsPerToken / kSafetyMargin);
  pieces_ = split_for_summary(job_.messages, max_chars);
  if (pieces_.empty()) return fail(Error{"SUMMARY_EMPTY", "nothing to summarise"});
  next();
}

void Summarizer::next() {
  if (cancelled_) return;
  auto self = shared_from_this();
  if (next_piece_ >= pieces_.size()) {
    auto done = std::move(done_);
    done_ = nullptr;
    if (done) done(summary_);
    return;
  }
  ++calls_;
  llm::Context context;
  context.system_prompt = summary_system_prompt();
  llm::UserMessage user;
  user.content.emplace_back(llm::TextContent{summary_request(pieces_[next_piece_], summary_, job_.instructions)});
  context.messages.emplace_back(std::move(user));
  llm::RequestOptions options;
  options.max_tokens = job_.max_summary_tokens;
  const llm::HttpRequest request = api_->build_request(job_.model, context, options);

  status_ = 0;
  error_body_.clear();
  stream_error_.reset();
  decoder_ = api_->make_decoder(job_.model, [](const llm::StreamEvent&, const llm::AssistantMessage&) {});
  std::weak_ptr<Summarizer> weak = weak_from_this();
  net::HttpRequestSpec spec;
  spec.method = request.method;
  spec.url = request.url;
  spec.headers = request.headers;
  spec.body = request.body;
  net::HttpCallbacks cb;
  cb.on_head = [weak](const net::HttpResponseHead& head) {
    if (auto self = weak.lock()) self->status_ = head.status;
  };
  cb.on_data = [weak](std::string_view bytes) {
    auto self = weak.lock();
    if (!self) return;
    if (self->status_ < 200 || self->status_ >= 300) {
      if (self->error_body_.size() < 64 * 1024) self->error_body_.append(bytes.substr(0, 64 * 1024));
    } else if (!self->stream_error_) {
      if (auto st = self->decoder_->feed(bytes); !st) self->stream_error_ = st.error();
    }
  };
  cb.on_done = [weak](const std::optional<net::TransportError>& error) {
    if (auto self = weak.lock()) self->on_done(error);
  };
  request_ = http_.start(std::move(spec), std::move(cb));
}

void Summarizer::on_done(const std::optional<net::TransportError>& error) {
  request_.reset();
  if (cancelled_) return;
  std::optional<llm::ProviderFailure> failure;
  if (error) failure = llm::classify_transport(job_.model, error->sys_errno, error->what, error->timed_out);
  else if (status_ < 200 || status_ >= 300) failure = llm::classify_http(job_.model, status_, error_body_, "");
  else if (stream_error_) failure = llm::classify_stream_error(job_.model, *stream_error_);
  if (failure) return fail(Error{"SUMMARY_FAILED", "the summary call failed: " + failure->message});
  auto reply = decoder_->finish();
  if (!reply) return fail(Error{"SUMMARY_FAILED", "the summary call failed: " + reply.error().message});
  std::string text = reply->text();
  const bool blank = std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isspace(c) != 0; });
  if (blank) return fail(Error{"SUMMARY_EMPTY", "the summariser answered with an empty summary"});
  summary_ = std::move(text);
  ++next_piece_;
  next();
}

void Summarizer::fail(Error error) {
  auto self = shared_from_this();
  spdlog::warn("compaction: {}", error.message);
  auto done = std::move(done_);
  done_ = nullptr;
  if (done) done(std::move(error));
}

void Summarizer::cancel() {
  cancelled_ = true;
  done_ = nullptr;
  if (request_) http_.cancel(*request_);
}

}  // namespace pincer::context
