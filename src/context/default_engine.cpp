#include "context/default_engine.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "agent/text_cut.h"

namespace pincer::context {

namespace {

std::size_t frame_fixed_chars(const RequestFrame& frame) {
  if (!frame.fixed_chars_memo) frame.fixed_chars_memo = fixed_chars(frame.system_prompt, frame.tools);
  return *frame.fixed_chars_memo;
}

}  // namespace

namespace {

/// Chars of a recent tool result kept (head + tail) when results must be cut to fit (CX-7).
constexpr std::size_t kTruncateHeadChars = 1500, kTruncateTailChars = 500;

std::string text_of(const std::vector<llm::ContentBlock>& blocks) {
  std::string out;
  for (const auto& b : blocks) {
    if (const auto* t = std::get_if<llm::TextContent>(&b)) out += t->text;
  }
  return out;
}

void set_text(llm::ToolResultMessage& r, std::string text) {
  std::erase_if(r.content, [](const llm::ContentBlock& b) { return std::holds_alternative<llm::TextContent>(b); });
  r.content.insert(r.content.begin(), llm::TextContent{std::move(text)});
}

int64_t reported_prompt_tokens(const llm::Message& m) {
  const auto* a = std::get_if<llm::AssistantMessage>(&m);
  if (!a || a->stop_reason == llm::StopReason::Error || a->stop_reason == llm::StopReason::Aborted) return 0;
  return a->usage.input + a->usage.cache_read + a->usage.cache_write;
}

}  // namespace

std::string_view to_string(CompactReason reason) {
  switch (reason) {
    case CompactReason::Threshold: return "threshold";
    case CompactReason::Timeout: return "timeout";
    case CompactReason::Overflow: return "overflow";
    case CompactReason::Manual: return "manual";
  }
  return "manual";
}

bool is_known_engine(std::string_view id) { return id == kDefaultEngineId || id == "legacy"; }

std::unique_ptr<ContextEngine> make_engine(std::string_view id, EngineConfig config) {
  (void)id;  // one engine today
  return std::make_unique<DefaultEngine>(std::move(config));
}

std::string summary_message_text(const std::string& summary) {
  return "The conversation history before this point was compacted into the following summary:\n\n<summary>\n" +
         summary + "\n</summary>";
}

std::string soft_prune(const std::string& text, std::size_t head_chars, std::size_t tail_chars) {
  if (text.size() <= head_chars + tail_chars + 64) return text;
  const std::string_view head = agent::text::head(text, head_chars);
  const std::string_view tail = agent::text::tail(text, tail_chars);
  return std::string(head) + "\n…[" + std::to_string(text.size() - head.size() - tail.size()) + " chars pruned]…\n" +
         std::string(tail);
}

DefaultEngine::DefaultEngine(EngineConfig config) : config_(std::move(config)) {}

DefaultEngine::~DefaultEngine() { cancel(); }

void DefaultEngine::bootstrap(SessionHistory history) {
  summary_ = std::move(history.summary);
  items_ = std::move(history.messages);
  live_from_ = std::min(history.live_from, items_.size());
  calibrated_ = false;
}

void DefaultEngine::ingest(const llm::Message& message, const std::string& entry_id) {
  items_.emplace_back(message, entry_id);
  // The provider's count for the request just answered corrects the estimator (CX-5).
  if (const int64_t reported = reported_prompt_tokens(message); reported > 0 && last_raw_estimate_ > 0) {
    correction_ = usage_correction(last_raw_estimate_, reported);
    calibrated_ = true;
  }
}

void DefaultEngine::calibrate_from_history(const RequestFrame& frame) {
  // A new run: the last reply recorded since the latest compaction tells how the provider counts.
  calibrated_ = true;
  for (std::size_t i = items_.size(); i-- > live_from_;) {
    const int64_t reported = reported_prompt_tokens(*items_[i].message);
    if (reported <= 0) continue;
    // The request that reply answered: the summary and the messages before it (counted in place).
    std::size_t chars = frame_fixed_chars(frame);
    if (!summary_.empty()) chars += summary_message_text(summary_).size();
    for (std::size_t k = 0; k < i; ++k) chars += message_chars(*items_[k].message);
    correction_ = usage_correction(estimate_tokens(chars), reported);
    return;
  }
}

void DefaultEngine::render_each(Prune prune, bool truncate_recent,
                                const std::function<void(const llm::SharedMessage&)>& emit) const {
  if (!summary_.empty()) {
    llm::UserMessage s;
    s.content.emplace_back(llm::TextContent{summary_message_text(summary_)});
    emit(std::make_shared<const llm::Message>(std::move(s)));
  }
  // Where the last keep_turns turns begin: results before it are "old" (CX-8).
  std::size_t recent_from = 0;
  int turns = 0;
  for (std::size_t i = items_.size(); i-- > 0;) {
    if (std::holds_alternative<llm::UserMessage>(*items_[i].message) && ++turns >= config_.prune.keep_turns) {
      recent_from = i;
      break;
    }
  }
  const bool prune_on = config_.prune.enabled && prune != Prune::None;
  for (std::size_t i = 0; i < items_.size(); ++i) {
    const llm::Message& m = *items_[i].message;
    const auto* r = std::get_if<llm::ToolResultMessage>(&m);
    const bool old = i < recent_from;
    if (!r || !((prune_on && old) || truncate_recent || truncate_all_)) {
      emit(items_[i].message);  // the stored message itself: shared, not copied
      continue;
    }
    llm::ToolResultMessage copy = *r;
    const std::string text = text_of(r->content);
    if (prune_on && old && prune == Prune::Hard) {
      set_text(copy, config_.prune.hard_placeholder);
    } else if (prune_on && old && text.size() > config_.prune.soft_max_chars) {
      set_text(copy, soft_prune(text, config_.prune.soft_head_chars, config_.prune.soft_tail_chars));
    } else if (truncate_recent || truncate_all_) {
      set_text(copy, soft_prune(text, kTruncateHeadChars, kTruncateTailChars));
    }
    emit(std::make_shared<const llm::Message>(std::move(copy)));
  }
}

llm::MessageList DefaultEngine::render(Prune prune, bool truncate_recent) const {
  llm::MessageList out;
  out.reserve(items_.size() + 1);
  render_each(prune, truncate_recent, [&](const llm::SharedMessage& m) { out.push_back(m); });
  return out;
}

int64_t DefaultEngine::raw_tokens(const RequestFrame& frame, Prune prune, bool truncate_recent) const {
  std::size_t chars = frame_fixed_chars(frame);
  render_each(prune, truncate_recent, [&](const llm::SharedMessage& m) { chars += message_chars(*m); });
  return estimate_tokens(chars);
}

int64_t DefaultEngine::raw_tokens(const RequestFrame& frame, const llm::MessageList& messages) const {
  std::size_t chars = frame_fixed_chars(frame);
  for (const auto& m : messages) chars += message_chars(m);
  return estimate_tokens(chars);
}

int64_t DefaultEngine::estimate(const RequestFrame& frame) const {
  return static_cast<int64_t>(static_cast<double>(raw_tokens(frame, Prune::None, false)) * correction_);
}

std::optional<int64_t> DefaultEngine::earlier_tokens() const {
  std::size_t latest_user = items_.size();  // none: everything is earlier
  for (std::size_t i = items_.size(); i-- > 0;) {
    if (std::holds_alternative<llm::UserMessage>(*items_[i].message)) {
      latest_user = i;
      break;
    }
  }
  std::size_t chars = summary_.empty() ? 0 : summary_message_text(summary_).size();
  for (std::size_t i = 0; i < latest_user; ++i) chars += message_chars(*items_[i].message);
  return estimate_tokens(chars);
}

int64_t DefaultEngine::window() const {
  return window_cap_ > 0 ? std::min(window_cap_, config_.window_tokens) : config_.window_tokens;
}

void DefaultEngine::assemble(const RequestFrame& frame, int64_t budget, std::function<void(Assembled)> done) {
  if (!calibrated_) calibrate_from_history(frame);
  if (window_cap_ > 0) budget = std::min(budget, prompt_budget(window(), config_.compaction.reserve_tokens));
  auto corrected = [&](Prune prune, bool truncate_recent) {
    return static_cast<int64_t>(static_cast<double>(raw_tokens(frame, prune, truncate_recent)) * correction_);
  };
  const int64_t full = corrected(Prune::None, false);
  // CX-7: how much the tool results could give up without a summary (pruned and cut ones).
  const int64_t floor = corrected(Prune::Hard, true);
  const OverflowRoute route = overflow_route(full, budget, full - floor);
  if (route == OverflowRoute::Fits) return finish_assemble(frame, budget, route, done);
  // CX-8 first: old results softly, then hard, before compaction is considered.
  if (corrected(Prune::Soft, false) <= budget || corrected(Prune::Hard, false) <= budget ||
      route == OverflowRoute::TruncateToolResultsOnly || !config_.compaction.enabled) {
    return finish_assemble(frame, budget, route, done);
  }
  CompactRequest request;
  request.reason = CompactReason::Threshold;
  request.frame = frame;
  compact(request, [this, frame, budget, route, done](const CompactResult&) {
    finish_assemble(frame, budget, route, done);  // compacted or not (loss-safe), the best we have
  });
}

void DefaultEngine::finish_assemble(const RequestFrame& frame, int64_t budget, OverflowRoute route,
                                    const std::function<void(Assembled)>& done) {
  // The least pruning that fits; when nothing fits, everything cut (the provider has the last word).
  Assembled out;
  out.budget = budget;
  out.route = route;
  for (auto [prune, truncate] : {std::pair{Prune::None, false}, std::pair{Prune::Soft, false},
                                 std::pair{Prune::Hard, false}, std::pair{Prune::Hard, true}}) {
    out.messages = render(prune, truncate);
    last_raw_estimate_ = raw_tokens(frame, out.messages);
    out.estimated_tokens = static_cast<int64_t>(static_cast<double>(last_raw_estimate_) * correction_);
    if (out.estimated_tokens <= budget) break;
  }
  done(std::move(out));
}

void DefaultEngine::compact(const CompactRequest& request, std::function<void(CompactResult)> done) {
  if (!calibrated_) calibrate_from_history(request.frame);
  CompactResult result;
  result.tokens_before = estimate(request.frame);
  result.tokens_after = result.tokens_before;
  auto refuse = [&](std::string why) {
    result.error = std::move(why);
    result.refused = true;
    return done(result);
  };
  if (summarizer_) return refuse("a compaction is already running");
  if (!host_.http) {
    result.error = "no summariser available";
    return done(result);
  }
  if (request.reason == CompactReason::Overflow && last_raw_estimate_ > 0) {
    // The provider refused the last request: its real window is smaller than that request.
    const auto sent = static_cast<int64_t>(static_cast<double>(last_raw_estimate_) * correction_);
    window_cap_ = std::max<int64_t>(1, window_cap_ > 0 ? std::min(window_cap_, sent * 9 / 10) : sent * 9 / 10);
  }
  const int64_t budget = prompt_budget(window(), config_.compaction.reserve_tokens);
  const int64_t frame_tokens = raw_tokens(request.frame, {});
  int64_t keep = keep_recent_tokens(config_.compaction.keep_recent_tokens, budget - frame_tokens);
  std::vector<llm::Message> messages;
  std::vector<int64_t> tokens;
  int64_t history_tokens = 0;
  for (const auto& item : items_) {
    messages.push_back(*item.message);
    tokens.push_back(static_cast<int64_t>(static_cast<double>(estimate_tokens(message_chars(*item.message))) * correction_));
    history_tokens += tokens.back();
  }
  // Asked for (/compact) in a window with room to spare: the older two thirds go into the summary.
  if (request.reason == CompactReason::Manual) keep = std::min(keep, std::max<int64_t>(1, history_tokens / 3));
  const auto cut = find_cut(messages, tokens, keep);
  if (!cut) return refuse("nothing to compact: the history is a single turn");
  if (items_[*cut].entry_id.empty()) return refuse("the history has no transcript entries to cut at");

  SummaryJob job;
  job.model = config_.model;
  job.window_tokens = window();
  job.previous_summary = summary_;
  job.instructions = request.instructions;
  std::string all = summary_;
  for (std::size_t i = 0; i < *cut; ++i) {
    job.messages.push_back(serialize_for_summary(*items_[i].message));
    all += "\n" + job.messages.back();
  }
  const std::vector<std::string> identifiers = extract_identifiers(all);
  const std::string first_kept = items_[*cut].entry_id;
  const std::size_t cut_at = *cut;
  if (host_.on_compaction) host_.on_compaction({false, request.reason, result.tokens_before, 0, false, ""});

  auto finish = [this, request, done, result](CompactResult r) mutable {
    summarizer_.reset();
    if (!r.compacted) spdlog::info("compaction ({}) not recorded: {}", to_string(request.reason), r.error);
    if (host_.on_compaction) {
      host_.on_compaction({true, request.reason, r.tokens_before, r.tokens_after, r.compacted, r.error});
    }
    done(std::move(r));
  };
  summarizer_ = std::make_shared<Summarizer>(
      *host_.http, std::move(job),
      [this, identifiers, first_kept, cut_at, request, result, finish](Result<std::string> summary) mutable {
        CompactResult r = result;
        if (!summary) {  // loss-safe: the original messages stay
          r.error = summary.error().message;
          return finish(std::move(r));
        }
        // The identifier check (CX-9): what the summary dropped is appended verbatim.
        std::size_t missing = 0;
        const std::size_t max_added = std::max<std::size_t>(400, static_cast<std::size_t>(window()) * 4 / 10);
        std::string text = ensure_identifiers(std::move(*summary), identifiers, max_added, &missing);
        // The estimate after: the new summary and what follows the cut.
        const std::string old_summary = std::exchange(summary_, text);
        std::vector<EngineMessage> kept(items_.begin() + static_cast<std::ptrdiff_t>(cut_at), items_.end());
        std::swap(items_, kept);
        r.tokens_after = estimate(request.frame);
        std::swap(items_, kept);
        summary_ = old_summary;
        if (r.tokens_after >= r.tokens_before) {  // strictly smaller, or not recorded
          r.error = "the summary would not make the context smaller (" + std::to_string(r.tokens_after) +
                    " ≥ " + std::to_string(r.tokens_before) + " tokens)";
          r.refused = true;
          r.tokens_after = r.tokens_before;
          return finish(std::move(r));
        }
        nlohmann::json details = {{"reason", to_string(request.reason)},
                                  {"identifiers", identifiers.size()},
                                  {"identifiersAppended", missing},
                                  {"tokensAfter", r.tokens_after}};
        auto entry = host_.append_compaction ? host_.append_compaction(text, first_kept, r.tokens_before, details)
                                             : Result<std::string>(Error{"IO_ERROR", "no transcript"});
        if (!entry) {
          r.error = "the compaction could not be saved: " + entry.error().message;
          r.tokens_after = r.tokens_before;
          return finish(std::move(r));
        }
        summary_ = std::move(text);
        items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(cut_at));
        live_from_ = items_.size();  // usage of the kept replies described the larger context
        r.compacted = true;
        r.entry_id = *entry;
        spdlog::info("compaction ({}): {} → {} tokens, {} messages summarised, {} identifiers appended",
                     to_string(request.reason), r.tokens_before, r.tokens_after, cut_at, missing);
        finish(std::move(r));
      });
  summarizer_->start();
}

void DefaultEngine::cancel() {
  if (summarizer_) {
    summarizer_->cancel();
    summarizer_.reset();
  }
}

}  // namespace pincer::context
