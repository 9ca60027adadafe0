// The default context engine (SPEC CX-1, CX-7..CX-9): the session's history kept linear — the
// latest compaction summary, then every message since its cut — pruned of old tool results
// (CX-8) and compacted when it does not fit (CX-9 L1, and on the runner's request for L2/L3).
// See context_engine.h for the contract and docs/context.md for the behaviour.
#pragma once

#include <memory>
#include <optional>

#include "context/context_engine.h"
#include "context/summarizer.h"

namespace pincer::context {

/// The text the model sees for a compaction summary; the same as store::to_llm_messages writes
/// for a `compactionSummary` message (pi's convertToLlm), so a reloaded session reads the same.
std::string summary_message_text(const std::string& summary);

/// CX-8 soft prune of one text: head + "\n…\n" + tail when longer than head + tail + 64 chars.
std::string soft_prune(const std::string& text, std::size_t head_chars, std::size_t tail_chars);

class DefaultEngine final : public ContextEngine {
 public:
  explicit DefaultEngine(EngineConfig config);
  ~DefaultEngine() override;

  std::string_view id() const override { return kDefaultEngineId; }
  void attach(EngineHost host) override { host_ = std::move(host); }
  void bootstrap(SessionHistory history) override;
  void ingest(const llm::Message& message, const std::string& entry_id) override;
  void assemble(const RequestFrame& frame, int64_t budget, std::function<void(Assembled)> done) override;
  void compact(const CompactRequest& request, std::function<void(CompactResult)> done) override;
  int64_t estimate(const RequestFrame& frame) const override;
  void truncate_tool_results() override { truncate_all_ = true; }
  std::optional<int64_t> earlier_tokens() const override;
  void after_turn() override {}
  void cancel() override;

  /// The usage correction in force (1.0 until a call reported usage); for tests.
  double correction() const { return correction_; }
  /// The current summary ("" = none) and the messages after it; for tests.
  const std::string& summary() const { return summary_; }
  std::size_t message_count() const { return items_.size(); }

 private:
  enum class Prune { None, Soft, Hard };
  /// Calls `emit` with each message of the request as rendered (CX-8 pruning): the stored message
  /// itself when it is kept as it is, else a pruned copy.
  void render_each(Prune prune, bool truncate_recent, const std::function<void(const llm::SharedMessage&)>& emit) const;
  llm::MessageList render(Prune prune, bool truncate_recent) const;
  /// Uncorrected tokens of the frame plus the rendered messages, without copying kept messages.
  int64_t raw_tokens(const RequestFrame& frame, Prune prune, bool truncate_recent) const;
  int64_t raw_tokens(const RequestFrame& frame, const llm::MessageList& messages) const;
  void calibrate_from_history(const RequestFrame& frame);
  void finish_assemble(const RequestFrame& frame, int64_t budget, OverflowRoute route,
                       const std::function<void(Assembled)>& done);

  EngineConfig config_;
  EngineHost host_;
  std::string summary_;
  std::vector<EngineMessage> items_;
  std::size_t live_from_ = 0;
  bool calibrated_ = false;
  double correction_ = 1.0;
  int64_t last_raw_estimate_ = 0;  ///< of the last assembled request, uncorrected
  bool truncate_all_ = false;
  /// After a provider's overflow error: the window is at most this (0 = as configured).
  int64_t window_cap_ = 0;
  int64_t window() const;
  std::shared_ptr<Summarizer> summarizer_;
};

}  // namespace pincer::context
