// The summariser of compaction (SPEC CX-9): LLM calls that turn the older part of a session
// into a structured summary, budgeted against the summariser's own window — a part larger than
// that window is summarised in pieces, each piece updating the summary of the ones before.
//
// Loop affinity: created, started and cancelled on the event-loop thread; `done` is called there,
// exactly once unless cancel() came first.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/http_client.h"
#include "core/result.h"
#include "llm/messages.h"
#include "llm/provider.h"

namespace pincer::context {

/// What to summarise and with which model.
struct SummaryJob {
  llm::ModelSpec model;               ///< the summariser (today the run's model)
  int64_t window_tokens = 0;          ///< its effective window (budget.h effective_window)
  std::string previous_summary;       ///< the summary being extended ("" = none)
  std::vector<std::string> messages;  ///< serialize_for_summary() of each message, oldest first
  std::string instructions;           ///< the user's (/compact …), may be empty
  int64_t max_summary_tokens = 0;     ///< output cap per call (0 = min(model.max_tokens, window / 4))
};

class Summarizer : public std::enable_shared_from_this<Summarizer> {
 public:
  /// `done` gets the final summary text, or an error: "SUMMARY_FAILED" (a call failed; the
  /// provider's message is in it), "SUMMARY_EMPTY" (the model answered nothing), "SUMMARY_BUDGET"
  /// (the summariser's window cannot hold even one piece beside the running summary).
  Summarizer(net::HttpClient& http, SummaryJob job, std::function<void(Result<std::string>)> done);

  void start();
  /// Stops the call in flight; `done` is not called.
  void cancel();

  /// Calls made so far (pieces), for logs and tests.
  int calls() const { return calls_; }

 private:
  void next();
  void on_done(const std::optional<net::TransportError>& error);
  void fail(Error error);

  net::HttpClient& http_;
  SummaryJob job_;
  std::function<void(Result<std::string>)> done_;
  const llm::ProviderApi* api_ = nullptr;
  std::vector<std::string> pieces_;
  std::size_t next_piece_ = 0;
  std::string summary_;
  std::unique_ptr<llm::StreamDecoder> decoder_;
  std::optional<net::HttpClient::RequestId> request_;
  int status_ = 0;
  std::string error_body_;
  std::optional<Error> stream_error_;
  bool cancelled_ = false;
  int calls_ = 0;
};

}  // namespace pincer::context
