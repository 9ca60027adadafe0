#include "channels/reply_stream.h"

#include <sodium.h>

#include <algorithm>

#include <spdlog/spdlog.h>

#include "channels/channel_accounts.h"
#include "delivery/chunker.h"
#include "delivery/text_units.h"

namespace pincer::channels {

using nlohmann::json;
using K = agent::RunEvent::Kind;

namespace {

constexpr const char* kStoppedNote = "⏹ Stopped.";

const json* key(const json& settings, const char* name) {
  return settings.is_object() && settings.contains(name) ? &settings[name] : nullptr;
}

std::size_t positive(const json& obj, const char* name, std::size_t fallback) {
  if (!obj.is_object() || !obj.contains(name) || !obj[name].is_number_integer()) return fallback;
  const int64_t v = obj[name].get<int64_t>();
  return v > 0 ? static_cast<std::size_t>(v) : fallback;
}

int64_t default_random(int64_t lo, int64_t hi) {
  const auto span = static_cast<uint32_t>(std::min<int64_t>(hi - lo + 1, UINT32_MAX));
  return lo + static_cast<int64_t>(randombytes_uniform(span));
}

}  // namespace

std::optional<StreamMode> parse_stream_mode(const std::string& name) {
  if (name == "off" || name == "progress") return StreamMode::Off;
  if (name == "partial") return StreamMode::Partial;
  if (name == "block") return StreamMode::Block;
  return std::nullopt;
}

std::string channel_error_text(const agent::RunEvent& e) {
  const std::string& r = e.error_reason;
  // Not a failure to hide: the user's own message is too large, and the text says by how much.
  if (r == "message_too_large") return "⚠️ " + e.error;
  const char* what = "something went wrong on the gateway";
  if (r == "auth" || r == "auth_permanent") what = "the model provider refused the gateway's credentials";
  else if (r == "billing") what = "the model provider account is out of credit";
  else if (r == "rate_limit") what = "the model provider is busy or rate-limited; try again in a moment";
  else if (r == "overloaded") what = "the model provider is overloaded; try again in a moment";
  else if (r == "timeout") what = "the model provider did not answer in time; try again in a moment";
  else if (r == "server_error") what = "the model provider had an internal error; try again in a moment";
  else if (r == "network") what = "the model provider could not be reached";
  else if (r == "context_overflow") what = "the conversation no longer fits the model; send /new to start afresh";
  else if (r == "model_not_found") what = "the configured model was not found at the provider";
  else if (r == "context_window_too_small") what = "the configured model's context window is too small for the system prompt and tools";
  else if (!r.empty()) what = "the model call failed";
  return std::string("⚠️ Sorry, I could not answer: ") + what + ". (The owner can find the details in the gateway log.)";
}

std::string failover_notice_text(const agent::RunEvent& e) {
  const std::string reason = e.data.value("reason", "");
  std::string why = "failed";
  if (reason == "rate_limit") why = "is rate-limited";
  else if (reason == "overloaded") why = "is overloaded";
  else if (reason == "timeout") why = "did not answer";
  else if (reason == "server_error") why = "had an internal error";
  else if (reason == "network") why = "could not be reached";
  else if (reason == "billing") why = "is out of credit";
  else if (reason == "auth" || reason == "auth_permanent") why = "refused its credentials";
  else if (reason == "model_not_found") why = "was not found";
  else if (reason == "unavailable") why = "is cooling down";
  return "ℹ️ " + e.data.value("fromModel", std::string("the model")) + " " + why + "; answering with " +
         e.data.value("toModel", std::string("another model")) + ".";
}

const char* to_string(StreamMode mode) {
  switch (mode) {
    case StreamMode::Off: return "off";
    case StreamMode::Partial: return "partial";
    case StreamMode::Block: return "block";
  }
  return "off";
}

ReplyStreamSettings stream_settings_from_json(const json& config, const std::string& channel, const std::string& account,
                                              const ChannelCapabilities& caps) {
  ReplyStreamSettings s;
  // The account's settings: the channel's, overridden by the account's own (channel_accounts.h).
  const json acct = channel_account_config(config.is_object() ? config.value("channels", json::object()) : json::object(),
                                           channel, account);
  const json agents = config.is_object() ? config.value("agents", json::object()) : json::object();
  const json defaults = agents.is_object() ? agents.value("defaults", json::object()) : json::object();

  // Mode.
  std::optional<StreamMode> mode;
  if (const json* v = key(acct, "streaming")) {
    if (v->is_string()) mode = parse_stream_mode(v->get<std::string>());
    else if (v->is_boolean()) mode = v->get<bool>() ? StreamMode::Partial : StreamMode::Off;
  }
  if (!mode) {
    if (const json* v = key(acct, "streamMode"); v && v->is_string()) mode = parse_stream_mode(v->get<std::string>());
  }
  s.mode = mode.value_or(caps.edit ? StreamMode::Partial : StreamMode::Off);
  bool block_on = defaults.is_object() && defaults.value("blockStreamingDefault", "off") == "on";
  if (const json* v = key(acct, "blockStreaming"); v && v->is_boolean()) block_on = v->get<bool>();
  if (block_on) s.mode = StreamMode::Block;
  if (s.mode == StreamMode::Partial && !caps.edit) s.mode = StreamMode::Off;
  if (caps.single_reply) s.mode = StreamMode::Off;

  // Blocks.
  const json chunk = defaults.is_object() ? defaults.value("blockStreamingChunk", json::object()) : json::object();
  std::size_t limit = caps.text_limit;
  if (const json* v = key(acct, "textChunkLimit"); v && v->is_number_integer() && v->get<int64_t>() > 0) {
    limit = std::min<std::size_t>(limit, v->get<int64_t>());
  }
  if (limit < caps.text_limit) s.text_limit = limit;
  auto& b = s.block;
  b.unit = caps.unit;
  b.max_chars = std::min(positive(chunk, "maxChars", delivery::kBlockStreamMaxChars), limit);
  b.min_chars = std::min(positive(chunk, "minChars", delivery::kBlockStreamMinChars), b.max_chars);
  const std::string pref = chunk.is_object() ? chunk.value("breakPreference", "paragraph") : "paragraph";
  b.break_preference = pref == "newline"    ? delivery::BreakPreference::Newline
                       : pref == "sentence" ? delivery::BreakPreference::Sentence
                                            : delivery::BreakPreference::Paragraph;
  // chunkMode "newline": one message per paragraph — for blocks as they are cut, and for every
  // message delivered (final replies, blocks, notes), as OpenClaw's chunkMarkdownTextWithMode.
  // (Not for a single-reply channel: its caller gets one answer, so the reply stays one message.)
  if (const json* v = key(acct, "chunkMode"); v && v->is_string() && *v == "newline" && !caps.single_reply) {
    b.flush_on_paragraph = true;
    s.chunk_mode = delivery::ChunkMode::Newline;
  }
  json coalesce = defaults.is_object() ? defaults.value("blockStreamingCoalesce", json::object()) : json::object();
  if (const json* v = key(acct, "blockStreamingCoalesce"); v && v->is_object()) coalesce = *v;
  b.coalesce_max_chars = std::min(positive(coalesce, "maxChars", b.max_chars), limit);
  b.coalesce_min_chars = std::min(positive(coalesce, "minChars", b.min_chars), b.coalesce_max_chars);
  if (coalesce.is_object() && coalesce.contains("idleMs") && coalesce["idleMs"].is_number_integer()) {
    b.idle_ms = std::max<int64_t>(0, coalesce["idleMs"].get<int64_t>());
  }

  // Human delay.
  const json delay = defaults.is_object() ? defaults.value("humanDelay", json::object()) : json::object();
  const std::string delay_mode = delay.is_object() ? delay.value("mode", "off") : "off";
  if (delay_mode == "natural") {
    s.human_delay_min_ms = kHumanDelayMinMs;
    s.human_delay_max_ms = kHumanDelayMaxMs;
  } else if (delay_mode == "custom") {
    s.human_delay_min_ms = delay.value("minMs", kHumanDelayMinMs);
    s.human_delay_max_ms = delay.value("maxMs", kHumanDelayMaxMs);
  }
  return s;
}

// ---- ReplyStream --------------------------------------------------------------------------------

std::shared_ptr<ReplyStream> ReplyStream::create(ReplyDelivery& delivery, const Clock& clock,
                                                 std::shared_ptr<StreamTimers> timers, ReplyTarget target,
                                                 ReplyStreamSettings settings,
                                                 std::function<int64_t(int64_t, int64_t)> random) {
  return std::shared_ptr<ReplyStream>(
      new ReplyStream(delivery, clock, std::move(timers), std::move(target), std::move(settings), std::move(random)));
}

ReplyStream::ReplyStream(ReplyDelivery& delivery, const Clock& clock, std::shared_ptr<StreamTimers> timers,
                         ReplyTarget target, ReplyStreamSettings settings, std::function<int64_t(int64_t, int64_t)> random)
    : delivery_(delivery),
      clock_(clock),
      timers_(std::move(timers)),
      target_(std::move(target)),
      settings_(std::move(settings)),
      random_(random ? std::move(random) : std::function<int64_t(int64_t, int64_t)>(default_random)) {
  if (settings_.mode == StreamMode::Partial) {
    if (Channel* ch = channel(); ch && !ch->capabilities().edit) settings_.mode = StreamMode::Off;
    if (settings_.mode == StreamMode::Partial) preview_id_ = target_.preview_id;  // left by a cut-off run
  }
  if (settings_.mode == StreamMode::Block) {
    streamer_ = std::make_unique<delivery::BlockStreamer>(clock_, settings_.block, [this](std::string block) {
      blocks_.push_back(std::move(block));
      pump_blocks();
    });
  }
}

Channel* ReplyStream::channel() const { return delivery_.find(target_.channel, target_.account_id); }

bool ReplyStream::idle() const {
  return ended_ && !preview_busy_ && (!final_ || final_done_) && blocks_.empty() && !block_busy_ && !delay_timer_;
}

void ReplyStream::deliver_whole(const std::string& markdown, const std::string& id_suffix) {
  Channel* ch = channel();
  if (!ch) {
    spdlog::error("{}[{}]: reply to {} lost: the channel is not running", target_.channel, target_.account_id,
                  target_.chat_id);
    return;
  }
  DeliverOptions options;
  options.text_limit_override = settings_.text_limit;
  options.chunk_mode = settings_.chunk_mode;
  options.media_roots = target_.media_roots;
  options.reply_to = target_.reply_to;
  if (auto st = delivery_.deliver(*ch, target_.reply_id + id_suffix, target_.chat_id, target_.thread_id, markdown,
                                  std::move(options));
      !st) {
    spdlog::error("{}[{}]: reply to {} not queued: {}", target_.channel, target_.account_id, target_.chat_id,
                  st.error().message);
  }
}

void ReplyStream::on_event(const agent::RunEvent& e, bool superseded) {
  if (ended_) return;
  if (e.kind == K::Failover && !superseded) {
    // PV-5: another model answers — say so before its reply (a rotated key of the same model is
    // the owner's business: the log has it).
    const std::string from = e.data.value("fromModel", ""), to = e.data.value("toModel", "");
    if (!from.empty() && from != to) deliver_whole(failover_notice_text(e), ":failover" + std::to_string(++failovers_));
    return;
  }
  const bool terminal = e.kind == K::End || e.kind == K::Error || e.kind == K::Aborted;
  const bool abort = e.kind == K::Aborted || (terminal && superseded);
  switch (settings_.mode) {
    case StreamMode::Off:
      if (terminal) ended_ = true;
      if (superseded) return;
      if (e.kind == K::End && !e.text.empty()) deliver_whole(e.text, "");
      if (e.kind == K::Error) deliver_whole(channel_error_text(e), "");
      return;

    case StreamMode::Partial:
      if (e.kind == K::AssistantDelta && !superseded) {
        text_ = e.text;  // the current step's text so far: a new step replaces the previous one's
        update_preview();
      } else if (abort) {
        ended_ = true;
        const bool has_preview = !preview_id_.empty() || preview_busy_;
        if (has_preview) finish_preview(e.kind == K::Aborted && !e.text.empty() ? e.text : text_, kStoppedNote);
        else final_done_ = true;
      } else if (e.kind == K::End) {
        ended_ = true;
        finish_preview(e.text, "");
      } else if (e.kind == K::Error) {
        ended_ = true;
        const bool has_preview = !preview_id_.empty() || preview_busy_;
        finish_preview(has_preview ? text_ : "", channel_error_text(e));
      }
      return;

    case StreamMode::Block:
      if (e.kind == K::AssistantDelta && !superseded) {
        append_block_text(e);
      } else if (e.kind == K::ToolStart && streamer_ && !superseded) {
        streamer_->flush();  // a tool call boundary: what was written so far goes out now
        step_text_.clear();
        arm_idle_timer();
      } else if (abort) {
        ended_ = true;
        blocks_.clear();  // stopped: nothing more of the reply
        end_blocks(blocks_handed_ > 0 ? kStoppedNote : "");
      } else if (e.kind == K::End) {
        ended_ = true;
        if (streamer_) {
          if (e.text.size() > step_text_.size() && e.text.starts_with(step_text_)) {
            streamer_->append(std::string_view(e.text).substr(step_text_.size()));
          }
          streamer_->flush();
        }
        end_blocks("");
      } else if (e.kind == K::Error) {
        ended_ = true;
        end_blocks(channel_error_text(e));
      }
      return;
  }
}

// ---- partial ------------------------------------------------------------------------------------

void ReplyStream::update_preview() {
  if (ended_ || preview_failed_ || preview_busy_) return;
  Channel* ch = channel();
  if (!ch) return;
  const ChannelCapabilities caps = ch->capabilities();
  if (delivery::measure(text_, caps.unit) < settings_.preview_min_chars) return;
  const int64_t now = clock_.steady_ms();
  if (!preview_id_.empty() && now < next_preview_ms_) return arm_preview_timer(next_preview_ms_ - now);
  delivery::ChunkOptions options;
  options.format = caps.format;
  options.unit = caps.unit;
  options.limit = settings_.text_limit ? std::min(settings_.text_limit, caps.text_limit) : caps.text_limit;
  auto chunks = delivery::chunk_text(render_for(caps.format, text_), options);
  if (!chunks || chunks->empty()) return;
  std::string preview = std::move((*chunks)[0]);  // over the limit: the preview shows the first part
  if (preview == shown_) return;
  preview_busy_ = true;
  next_preview_ms_ = now + settings_.preview_throttle_ms;
  auto self = shared_from_this();
  auto after_call = [self] {
    self->preview_busy_ = false;
    if (self->final_ && !self->final_started_) return self->run_final();
    self->update_preview();
  };
  if (preview_id_.empty()) {
    ch->send_text({target_.chat_id, target_.thread_id, preview, {}, target_.reply_to, true}, [self, preview, after_call](Result<std::string> sent) {
      if (sent && !sent->empty()) {
        self->preview_id_ = *sent;
        if (self->target_.on_preview) self->target_.on_preview(*sent);
        self->shown_ = preview;
      } else {
        self->preview_failed_ = true;  // the final reply is sent as usual
        spdlog::warn("{}[{}]: stream preview not sent ({}); the reply follows when complete", self->target_.channel,
                     self->target_.account_id, sent ? "no message id" : sent.error().message);
      }
      after_call();
    });
  } else {
    ch->edit_text(target_.chat_id, preview_id_, preview, [self, preview, after_call](Status edited) {
      if (edited) {
        self->shown_ = preview;
      } else if (edited.error().code == "RATE_LIMITED") {
        int64_t wait_s = 1;
        try {
          wait_s = std::max<int64_t>(1, std::stoll(edited.error().message));
        } catch (const std::exception&) {
        }
        self->next_preview_ms_ = self->clock_.steady_ms() + wait_s * 1000;
      } else {
        self->preview_failed_ = true;
        spdlog::warn("{}[{}]: stream preview edit failed ({}); the reply follows when complete", self->target_.channel,
                     self->target_.account_id, edited.error().message);
      }
      after_call();
    });
  }
}

void ReplyStream::arm_preview_timer(int64_t delay_ms) {
  if (preview_timer_) return;
  auto self = shared_from_this();
  preview_timer_ = timers_->after(std::max<int64_t>(0, delay_ms), [self] {
    self->preview_timer_.reset();
    self->update_preview();
  });
}

void ReplyStream::finish_preview(std::string body, const std::string& note) {
  if (preview_timer_) {
    timers_->cancel(*preview_timer_);
    preview_timer_.reset();
  }
  std::string md = std::move(body);
  if (!note.empty()) md = md.empty() ? note : md + "\n\n" + note;
  final_ = std::move(md);
  // An abort without a preview sends nothing, as without streaming.
  if (note == kStoppedNote) stopped_only_ = true;
  if (!preview_busy_) run_final();
}

void ReplyStream::run_final() {
  final_started_ = true;
  const bool has_preview = !preview_id_.empty();
  if (final_->empty() || (stopped_only_ && !has_preview)) {
    final_done_ = true;  // nothing to say (an empty reply leaves the preview as it is)
    return;
  }
  Channel* ch = channel();
  if (!ch) {
    final_done_ = true;
    spdlog::error("{}[{}]: reply to {} lost: the channel is not running", target_.channel, target_.account_id,
                  target_.chat_id);
    return;
  }
  DeliverOptions options;
  options.text_limit_override = settings_.text_limit;
  options.chunk_mode = settings_.chunk_mode;
  options.media_roots = target_.media_roots;
  options.reply_to = target_.reply_to;
  if (has_preview) {
    options.edit_message_id = preview_id_;
    options.edit_shown_text = shown_;
  }
  auto self = shared_from_this();
  options.on_done = [self] { self->final_done_ = true; };
  if (auto st = delivery_.deliver(*ch, target_.reply_id, target_.chat_id, target_.thread_id, *final_, std::move(options));
      !st) {
    final_done_ = true;
    spdlog::error("{}[{}]: reply to {} not queued: {}", target_.channel, target_.account_id, target_.chat_id,
                  st.error().message);
  }
}

// ---- block --------------------------------------------------------------------------------------

void ReplyStream::append_block_text(const agent::RunEvent& e) {
  if (!streamer_) return;
  if (e.text.size() >= step_text_.size() && e.text.starts_with(step_text_)) {
    streamer_->append(std::string_view(e.text).substr(step_text_.size()));
  } else {
    streamer_->append(e.delta);
  }
  step_text_ = e.text;
  arm_idle_timer();
}

void ReplyStream::arm_idle_timer() {
  if (idle_timer_) {
    timers_->cancel(*idle_timer_);
    idle_timer_.reset();
  }
  if (!streamer_ || ended_) return;
  const auto deadline = streamer_->next_deadline_ms();
  if (!deadline) return;
  auto self = shared_from_this();
  idle_timer_ = timers_->after(std::max<int64_t>(0, *deadline - clock_.steady_ms()), [self] {
    self->idle_timer_.reset();
    if (!self->streamer_ || self->ended_) return;
    self->streamer_->poll();
    self->arm_idle_timer();
  });
}

void ReplyStream::end_blocks(const std::string& note) {
  if (idle_timer_) {
    timers_->cancel(*idle_timer_);
    idle_timer_.reset();
  }
  streamer_.reset();  // the text not yet cut is dropped (End flushed it before)
  if (!note.empty()) blocks_.push_back(note);
  pump_blocks();
}

void ReplyStream::pump_blocks() {
  if (block_busy_ || delay_timer_ || blocks_.empty()) return;
  if (blocks_handed_ > 0 && !delay_done_ && settings_.human_delay_max_ms + settings_.human_delay_min_ms > 0) {
    const int64_t lo = std::max<int64_t>(0, settings_.human_delay_min_ms);
    const int64_t hi = settings_.human_delay_max_ms;
    const int64_t wait = hi <= lo ? lo : random_(lo, hi);
    if (wait > 0) {
      auto self = shared_from_this();
      delay_timer_ = timers_->after(wait, [self] {
        self->delay_timer_.reset();
        self->delay_done_ = true;
        self->pump_blocks();
      });
      return;
    }
  }
  std::string block = std::move(blocks_.front());
  blocks_.pop_front();
  delay_done_ = false;
  const std::string id = target_.reply_id + "-b" + std::to_string(++blocks_handed_);
  Channel* ch = channel();
  if (!ch) {
    spdlog::error("{}[{}]: block {} lost: the channel is not running", target_.channel, target_.account_id, id);
    return pump_blocks();
  }
  block_busy_ = true;
  DeliverOptions options;
  options.text_limit_override = settings_.text_limit;
  options.chunk_mode = settings_.chunk_mode;
  options.media_roots = target_.media_roots;
  options.reply_to = target_.reply_to;
  auto self = shared_from_this();
  options.on_done = [self] {
    self->block_busy_ = false;
    self->pump_blocks();
  };
  if (auto st = delivery_.deliver(*ch, id, target_.chat_id, target_.thread_id, block, std::move(options)); !st) {
    spdlog::error("{}[{}]: block {} not queued: {}", target_.channel, target_.account_id, id, st.error().message);
    block_busy_ = false;
    pump_blocks();
  }
}

}  // namespace pincer::channels
