#include "agent/agent_run.h"
#include "agent/attachments.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include <spdlog/spdlog.h>

#include "agent/thinking_levels.h"
#include "agent/tool_result_cap.h"
#include "core/identity_memo.h"
#include "core/utf8.h"
#include "store/atomic_file.h"

namespace pincer::agent {

using nlohmann::json;

namespace {

bool has_text(const llm::AssistantMessage& m) {
  for (const auto& block : m.content) {
    if (const auto* t = std::get_if<llm::TextContent>(&block); t && !t->text.empty()) return true;
  }
  return false;
}

}  // namespace

AgentRun::AgentRun(EventLoop& loop, net::HttpClient& http, const Clock& clock, RunInputs inputs,
                   std::vector<llm::Message> history, store::TranscriptWriter transcript, RunEventSink sink,
                   std::function<void()> on_finished)
    : loop_(loop),
      http_(http),
      clock_(clock),
      in_(std::move(inputs)),
      messages_(std::move(history)),
      transcript_(std::move(transcript)),
      sink_(std::move(sink)),
      on_finished_(std::move(on_finished)),
      api_(llm::find_api(in_.model.api)),
      engine_(in_.engine) {
  attach_engine();
}

RunEvent AgentRun::event(RunEvent::Kind kind) const {
  RunEvent e;
  e.kind = kind;
  e.run_id = in_.run_id;
  e.session_key = in_.session_key;
  e.agent_id = in_.agent_id;
  e.session_id = in_.session_id;
  e.provider = in_.model.provider;
  e.model = in_.model.id;
  e.ts = clock_.wall_ms();
  return e;
}

bool AgentRun::record(const llm::Message& message) {
  // Appends are small and go to the page cache (FsyncPolicy::None); the turn's end is synced in
  // finish() (in the background), queued before the run journal's sync of the turn answered. A torn last line after a power
  // loss is detected and skipped on the next load (SS-6). A failed append (a full disk) is
  // taken back by the writer and fails the turn: a reply that is not saved must not look saved.
  auto r = transcript_.append_message(llm::to_json(message));
  if (!r) {
    spdlog::error("run {}: {}", in_.run_id, r.error().message);
    if (save_error_.empty()) {
      save_error_ = "the conversation could not be saved (" + r.error().message + "); this turn is not in the session";
    }
    return false;
  }
  engine_->ingest(message, *r);
  last_recorded_assistant_ = std::holds_alternative<llm::AssistantMessage>(message);
  if (last_recorded_assistant_) drop_partial();  // the transcript has the reply now
  return true;
}

void AgentRun::close_turn(llm::StopReason reason, const std::string& error_message) {
  // A turn ends in an assistant message, even when nothing was answered: otherwise the next turn
  // would send two user messages in a row and the model would answer the lost one again.
  if (last_recorded_assistant_) return;  // (after a failed save too: this small entry may fit)
  llm::AssistantMessage closing;
  closing.api = in_.model.api;
  closing.provider = in_.model.provider;
  closing.model = in_.model.id;
  closing.stop_reason = reason;
  closing.error_message = error_message;
  closing.timestamp = clock_.wall_ms();
  record(closing);
}

void AgentRun::start(const std::string& user_message) {
  llm::UserMessage user;
  // Bytes that are not UTF-8 (a raw IRC line, say) are replaced here, deliberately, so that the
  // transcript and the provider request carry the same text.
  if (!user_message.empty() || in_.attachments.empty()) user.content.emplace_back(llm::TextContent{utf8::replace_invalid(user_message)});
  user.content.insert(user.content.end(), in_.attachments.begin(), in_.attachments.end());  // attachments.h
  user.content_is_string = user.content.size() == 1 && std::holds_alternative<llm::TextContent>(user.content[0]);
  user.timestamp = clock_.wall_ms();
  turn_message_ms_ = user.timestamp;
  const llm::Message message(std::move(user));
  if (refuse_oversized(message)) return;  // alone larger than the window: refused, not recorded (agent_run_fit.cpp)
  turn_parent_ = transcript_.leaf_id();
  const bool saved = record(message);
  sink_(event(RunEvent::Kind::Start));
  if (!saved) return finish_error(save_error_);
  begin();
}

void AgentRun::resume(int64_t user_message_ms, const std::vector<std::pair<std::string, std::string>>& lost_calls) {
  turn_message_ms_ = user_message_ms;
  sink_(event(RunEvent::Kind::Start));
  for (const auto& [id, name] : lost_calls) {
    llm::ToolResultMessage lost;
    lost.tool_call_id = id;
    lost.tool_name = name;
    lost.content.emplace_back(llm::TextContent{kRestartLostResult});
    lost.is_error = true;
    lost.timestamp = clock_.wall_ms();
    if (!record(lost)) return finish_error(save_error_);
  }
  begin();
}

void AgentRun::begin() {
  if (auto hook = std::exchange(in_.hooks.before_first_call, nullptr)) {  // active recall (active_recall_hook.h)
    auto called = std::make_shared<bool>(false);  // `go` may come at once (a cached recall)
    auto stop = hook([weak = weak_from_this(), called](std::string prefix) {
      *called = true;
      auto run = weak.lock();
      if (!run || run->finished_) return;
      run->stop_first_call_hook_ = nullptr;
      if (!prefix.empty()) {  // before the run's own message only, after its turn context
        run->in_.turn_context = [base = std::move(run->in_.turn_context), prefix](int64_t ms, bool current) {
          return (base ? base(ms, current) : std::string()) + (current ? prefix : std::string());
        };
      }
      run->begin();
    });
    if (!*called && !finished_) stop_first_call_hook_ = std::move(stop);
    return;
  }
  if (in_.failover) use_candidate(/*announce=*/!in_.failover->switches().empty());
  if (!api_ && !cli_model()) {
    return finish_error("model " + in_.model.provider + "/" + in_.model.id + " uses unknown api \"" + in_.model.api +
                        "\"");
  }
  auto self = shared_from_this();
  deadline_timer_ = loop_.after(in_.timeout_ms, [self] {
    self->deadline_timer_.reset();
    self->abort("timeout");
  });
  if (in_.dynamic_tools) {  // servers still starting are awaited (bounded by their connection timeouts)
    std::weak_ptr<AgentRun> weak = weak_from_this();
    return in_.dynamic_tools->prepare([weak] {
      if (auto run = weak.lock(); run && !run->finished_) run->call_model();
    });
  }
  call_model();
}

void AgentRun::call_model() {
  if (aborted_) return finish_aborted();
  if (++model_calls_ > in_.max_model_calls) {
    return finish_error("stopped after " + std::to_string(in_.max_model_calls) +
                        " model calls in one run (the model kept calling tools)");
  }
  attempt_ = 0;
  streamed_ = false;
  // The engine gives the messages within the prompt budget (CX-6), compacting first when they do
  // not fit (CX-9 L1); the callback may come later (a summary call).
  const int64_t window = in_.context_window > 0 ? in_.context_window : in_.model.context_window;
  std::weak_ptr<AgentRun> weak = weak_from_this();
  engine_->assemble(frame(), context::prompt_budget(window, in_.reserve_tokens), [weak](context::Assembled assembled) {
    if (auto self = weak.lock()) self->send_model_request(std::move(assembled));
  });
}

namespace {

/// A stored user message with its turn-context note first (CX-3/CX-4), kept per message while its
/// note reads the same (core/identity_memo.h): the request then carries the same object every
/// turn, and its wire form is written once (llm/wire_memo.h). One per thread; bounded (bytes).
struct NotedMessage {
  std::string note;
  llm::SharedMessage message;
};
constexpr std::size_t kNotedMessagesBytes = 1024 * 1024;

std::size_t content_bytes(const llm::UserMessage& m) {
  std::size_t n = 64;
  for (const auto& block : m.content) {
    if (const auto* t = std::get_if<llm::TextContent>(&block)) n += t->text.size();
    else if (const auto* img = std::get_if<llm::ImageContent>(&block)) n += img->data.size() + img->ref.size();
  }
  return n;
}

llm::SharedMessage with_turn_note(const llm::SharedMessage& stored, std::string note) {
  thread_local IdentityMemo<llm::Message, NotedMessage> noted(kNotedMessagesBytes);
  if (const NotedMessage* kept = noted.find(stored.get()); kept && kept->note == note) return kept->message;
  llm::UserMessage copy = std::get<llm::UserMessage>(*stored);
  copy.content.insert(copy.content.begin(), llm::TextContent{note});
  const std::size_t cost = content_bytes(copy);
  auto message = std::make_shared<const llm::Message>(std::move(copy));
  noted.put(stored, NotedMessage{std::move(note), message}, cost);
  return message;
}

}  // namespace

void AgentRun::send_model_request(context::Assembled assembled) {
  if (finished_) return;
  if (aborted_) return finish_aborted();
  if (!cli_model() && oauth_refresh_due()) {  // PV-2: a fresh access token first (agent_run_oauth.cpp)
    auto held = std::make_shared<context::Assembled>(std::move(assembled));
    return refresh_oauth(/*force=*/false, [this, held] { send_model_request(std::move(*held)); });
  }
  llm::Context context;
  context.system_prompt = in_.system_prompt;
  // CX-3/CX-4: each user message gets its turn-context block in the request only (never stored).
  llm::MessageList history = std::move(assembled.messages);  // shared with the engine: changed by copy
  for (std::size_t i = 0; i < history.size() && in_.turn_context; ++i) {
    const auto* user = std::get_if<llm::UserMessage>(&history[i]);
    if (!user || user->timestamp <= 0) continue;
    if (std::string note = in_.turn_context(user->timestamp, user->timestamp == turn_message_ms_); !note.empty()) {
      history.replace(i, with_turn_note(history.shared(i), std::move(note)));
    }
  }
  context.messages = sanitize_history(std::move(history));
  images_for_model(context.messages, in_.model);  // a text-only model gets a notice per image (attachments.h)
  context.tools = frame().tools;
  if (in_.hooks.transform_context) in_.hooks.transform_context(context);
  if (cli_model()) return send_cli_request(context);  // a CLI backend instead of HTTP (agent_run_cli.cpp)
  llm::RequestOptions options;
  options.thinking = in_.thinking;
  options.session_id = in_.session_id;
  // Shared by every attempt (a retry re-sends it): the body repeats the whole history.
  const auto request = std::make_shared<const llm::HttpRequest>(api_->build_request(in_.model, context, options));
  if (in_.hooks.before_request) in_.hooks.before_request(in_.model, context, *request);

  auto start_attempt = [this, request]() {
    ++attempt_;
    status_ = 0;
    error_body_.clear();
    body_head_.clear();
    retry_after_.clear();
    stream_error_.reset();
    reply_recorded_ = false;
    std::weak_ptr<AgentRun> weak = weak_from_this();
    decoder_ = api_->make_decoder(in_.model, [weak](const llm::StreamEvent& e, const llm::AssistantMessage& partial) {
      auto self = weak.lock();
      if (!self || self->aborted_ || e.kind != llm::StreamEvent::Kind::TextDelta) return;
      self->streamed_ = true;
      RunEvent ev = self->event(RunEvent::Kind::AssistantDelta);
      ev.text = partial.text();
      ev.delta = e.delta;
      self->checkpoint_partial(ev.text);
      self->sink_(ev);
    });
    net::HttpRequestSpec spec;
    spec.method = request->method;
    spec.url = request->url;
    spec.headers = request->headers;
    spec.body = request->body;
    net::HttpCallbacks cb;
    cb.on_head = [weak](const net::HttpResponseHead& head) {
      if (auto self = weak.lock()) {
        self->status_ = head.status;
        self->retry_after_ = head.header("retry-after");
      }
    };
    cb.on_data = [weak](std::string_view bytes) {
      auto self = weak.lock();
      if (!self) return;
      if (self->status_ < 200 || self->status_ >= 300) {
        if (self->error_body_.size() < 64 * 1024) self->error_body_.append(bytes.substr(0, 64 * 1024));
      } else if (!self->stream_error_) {
        if (self->body_head_.size() < kBodyHeadBytes) self->body_head_.append(bytes.substr(0, kBodyHeadBytes - self->body_head_.size()));
        if (auto st = self->decoder_->feed(bytes); !st) self->stream_error_ = st.error();
      }
    };
    cb.on_done = [weak](const std::optional<net::TransportError>& error) {
      if (auto self = weak.lock()) self->on_model_done(error);
    };
    request_ = http_.start(std::move(spec), std::move(cb));
  };
  start_attempt();
  retry_ = start_attempt;
}

void AgentRun::on_model_done(const std::optional<net::TransportError>& error) {
  request_.reset();
  if (aborted_) return finish_aborted();
  if (switch_to_) {  // a live model switch (AG-6) cancelled this call: make it again
    in_.model = std::move(*switch_to_);
    switch_to_.reset();
    api_ = llm::find_api(in_.model.api);
    --model_calls_;
    if (!api_ && !cli_model()) return finish_error("model " + in_.model.provider + "/" + in_.model.id + " uses unknown api \"" + in_.model.api + "\"");
    return call_model();
  }
  if (error) return handle_failure(llm::classify_transport(in_.model, error->sys_errno, error->what, error->timed_out));
  if (status_ < 200 || status_ >= 300) {
    return handle_failure(llm::classify_http(in_.model, status_, error_body_, retry_after_));
  }
  // A 2xx whose body is an error object (some proxies answer so) is classified by that object.
  auto stream_failure = [this](const Error& e) {
    if (e.code != "PROVIDER_STREAM_ERROR") {
      if (auto f = llm::classify_error_body(in_.model, body_head_)) return *f;
    }
    return llm::classify_stream_error(in_.model, e);
  };
  if (stream_error_) return handle_failure(stream_failure(*stream_error_));
  auto reply = decoder_->finish();
  if (!reply) return handle_failure(stream_failure(reply.error()));
  handle_reply(std::move(*reply));
}

void AgentRun::handle_failure(const llm::ProviderFailure& failure) {
  // AG-7: the provider does not take this thinking level; nothing was shown yet, so call again
  // one level lower (the error body may name the levels it does take).
  if (!streamed_ && in_.thinking != llm::ThinkingLevel::Off && is_thinking_rejection(status_, error_body_)) {
    const llm::ThinkingLevel lower = *step_down_thinking(in_.thinking, error_body_);
    spdlog::warn("run {}: {}/{} rejected thinking level {}; retrying with {}", in_.run_id, in_.model.provider,
                 in_.model.id, llm::to_string(in_.thinking), llm::to_string(lower));
    in_.thinking = lower;
    thinking_stepped_down_ = true;
    --model_calls_;
    return call_model();
  }
  if (take_oauth_retry(failure)) {  // PV-2: a 401 on an oauth profile: one refresh, one new call
    spdlog::warn("run {}: {} refused the OAuth access token of profile {}; refreshing it once", in_.run_id,
                 in_.model.provider, in_.failover->current().profile_id);
    return refresh_oauth(/*force=*/true, [this] {
      --model_calls_;
      call_model();
    });
  }
  spdlog::warn("run {}: model call failed: {} (failover reason {}, attempt {} of {}{}): {}", in_.run_id,
               failure.cause.empty() ? "unknown cause" : failure.cause, llm::to_string(failure.reason), attempt_,
               in_.max_attempts, failure.retryable && !streamed_ && attempt_ < in_.max_attempts ? ", retrying" : "",
               failure.message);
  if (!streamed_ && recover_context(failure)) return;  // L2/L3: compact (or cut) and call again
  // Retry or fail over only while nothing of this reply has been shown: a retry after visible
  // deltas would repeat text to the user.
  const int64_t wait = failure.retryable && !streamed_ && attempt_ < in_.max_attempts ? llm::backoff_ms(attempt_, failure) : 0;
  if (!streamed_ && in_.failover) {
    if (fail_over(failure, wait)) return;
  } else if (wait > 0) {
    return schedule_retry(wait);
  }
  // Keep what was streamed (if anything) and the error in the transcript, as pi does.
  llm::AssistantMessage failed = decoder_ ? decoder_->partial() : llm::AssistantMessage{};
  if (!decoder_ && !cli_text_.empty()) failed.content.emplace_back(llm::TextContent{cli_text_});  // a CLI backend's
  failed.api = in_.model.api;
  failed.provider = in_.model.provider;
  failed.model = in_.model.id;
  failed.stop_reason = llm::StopReason::Error;
  failed.error_message = failure.message;
  if (failed.timestamp == 0) failed.timestamp = clock_.wall_ms();
  record(failed);
  reply_recorded_ = true;
  const std::string message = failure.message + failover_summary();
  finish_error(save_error_.empty() ? message : message + "; " + save_error_, llm::to_string(failure.reason));
}

void AgentRun::handle_reply(llm::AssistantMessage reply) {
  if (in_.failover) in_.failover->on_success(clock_.wall_ms());
  usage_.input += reply.usage.input;
  usage_.output += reply.usage.output;
  usage_.cache_read += reply.usage.cache_read;
  usage_.cache_write += reply.usage.cache_write;
  usage_.total_tokens += reply.usage.total_tokens;
  const bool saved = record(reply);
  reply_recorded_ = true;
  if (!saved) return finish_error(save_error_);
  pending_tools_.clear();
  for (const auto* call : reply.tool_calls()) pending_tools_.push_back(*call);
  if (pending_tools_.empty()) return finish_ok(reply);
  next_tool_ = 0;
  run_next_tool();
}

void AgentRun::run_next_tool() {
  if (aborted_) return finish_aborted();
  // A boundary (AG-4): a tool of this reply has completed. Steering needs one more model call.
  if (next_tool_ > 0 && !steering_.empty() && model_calls_ < in_.max_model_calls) return inject_steering();
  if (next_tool_ >= pending_tools_.size()) return call_model();
  const llm::ToolCall call = pending_tools_[next_tool_++];

  RunEvent started = event(RunEvent::Kind::ToolStart);
  started.tool_name = call.name;
  started.tool_call_id = call.id;
  started.tool_args = call.arguments;
  sink_(started);

  const tools::Tool* tool = nullptr;
  for (const auto* t : in_.tools) {
    if (t->name() == call.name) tool = t;
  }
  if (!tool && in_.dynamic_tools) {  // what the last model call was offered, or its catalogue (tool_search.h)
    for (const auto* t : in_.dynamic_tools->offered()) {
      if (t->name() == call.name) tool = t;
    }
    for (const auto* t : tool ? std::vector<const tools::Tool*>{} : in_.dynamic_tools->catalogued()) {
      if (t->name() == call.name) tool = t;
    }
  }
  std::optional<std::string> denied;
  if (in_.hooks.before_tool_call) denied = in_.hooks.before_tool_call(call);
  if (!denied && tool && in_.hooks.gate_tool_call) {
    std::weak_ptr<AgentRun> weak = weak_from_this();
    return in_.hooks.gate_tool_call(call, [weak, call, tool](std::optional<std::string> verdict) {
      auto self = weak.lock();
      if (!self || self->finished_) return;  // aborted while it waited: already finished
      self->execute_tool(call, tool, std::move(verdict));
    });
  }
  execute_tool(call, tool, std::move(denied));
}

void AgentRun::execute_tool(const llm::ToolCall& call, const tools::Tool* tool, std::optional<std::string> denied) {
  if (aborted_) return finish_aborted();
  auto output = std::make_shared<tools::ToolOutput>();
  auto work = [tool, call, output, denied, flag = cancel_flag_, workspace = in_.workspace, env = in_.tool_env,
               timeout = in_.exec_timeout_ms, processes = in_.processes, memory = in_.memory,
               agent = in_.agent_id, exec_cap = in_.exec_max_output_chars, sandbox = in_.sandbox, config = in_.config,
               cron = in_.cron, key = in_.session_key, origin = in_.origin, run_id = in_.run_id, lane = in_.lane,
               backends = in_.session_backends, skill_env = in_.skill_env] {
    if (denied) {
      *output = tools::ToolOutput::error(*denied);
      return;
    }
    if (!tool) {
      *output = tools::ToolOutput::error("unknown tool \"" + call.name + "\" (not available to this agent)");
      return;
    }
    tools::ToolContext ctx;
    ctx.workspace = workspace;
    ctx.cancelled = flag.get();
    if (env) ctx.env = *env;
    ctx.skill_env = skill_env;
    ctx.default_timeout_ms = timeout;
    ctx.processes = processes;
    ctx.memory = memory;
    ctx.agent_id = agent;
    ctx.exec_max_output_chars = exec_cap;
    ctx.sandbox = sandbox;
    ctx.config = config;
    ctx.cron = cron;
    ctx.session_key = key;
    ctx.origin = origin;
    ctx.run_id = run_id;
    ctx.lane = lane;
    ctx.session_backends = backends;
    *output = tools::invoke_tool(*tool, call.arguments, ctx);
  };
  tool_running_ = true;
  auto self = shared_from_this();
  loop_.offload(std::move(work), [self, call, output] {
    self->tool_running_ = false;
    if (self->in_.hooks.after_tool_call) self->in_.hooks.after_tool_call(call, *output);
    const CappedText capped = cap_tool_result(
        output->text, self->in_.context_window > 0 ? self->in_.context_window : self->in_.model.context_window);
    llm::ToolResultMessage result;
    result.tool_call_id = call.id;
    result.tool_name = call.name;
    result.content.emplace_back(llm::TextContent{capped.text});
    result.details = output->details;
    result.is_error = output->is_error;
    result.timestamp = self->clock_.wall_ms();
    if (!self->record(result)) return self->finish_error(self->save_error_);
    RunEvent done = self->event(RunEvent::Kind::ToolResult);
    done.tool_name = call.name;
    done.tool_call_id = call.id;
    done.tool_result = capped.text;
    done.tool_error = output->is_error;
    self->sink_(done);
    self->run_next_tool();
  });
}

void AgentRun::inject_steering() {
  // The reply's calls not run yet get an error result: providers reject a call without one.
  const size_t skipped_count = pending_tools_.size() - next_tool_;
  for (; next_tool_ < pending_tools_.size(); ++next_tool_) {
    const llm::ToolCall& call = pending_tools_[next_tool_];
    llm::ToolResultMessage skipped;
    skipped.tool_call_id = call.id;
    skipped.tool_name = call.name;
    skipped.content.emplace_back(llm::TextContent{kSteeringSkippedResult});
    skipped.is_error = true;
    skipped.timestamp = clock_.wall_ms();
    if (!record(skipped)) return finish_error(save_error_);
  }
  std::vector<std::string> texts = std::move(steering_);
  steering_.clear();
  std::vector<llm::ContentBlock> media = std::move(steering_media_);
  steering_media_.clear();
  std::string joined;
  for (const auto& text : texts) {
    if (!text.empty()) joined += (joined.empty() ? "" : "\n\n") + text;
  }
  llm::UserMessage user;
  if (!joined.empty() || media.empty()) user.content.emplace_back(llm::TextContent{utf8::replace_invalid(joined)});  // as in start()
  user.content.insert(user.content.end(), std::make_move_iterator(media.begin()), std::make_move_iterator(media.end()));
  user.timestamp = clock_.wall_ms();
  if (!record(user)) return finish_error(save_error_);
  spdlog::info("run {}: {} steering message(s) injected, {} tool call(s) skipped", in_.run_id, texts.size(),
               skipped_count);
  for (auto& text : texts) {
    RunEvent e = event(RunEvent::Kind::Steered);
    e.text = std::move(text);
    sink_(e);
  }
  call_model();
}

bool AgentRun::switch_model(llm::ModelSpec model) {
  // Clean (AG-6): the first model call, nothing streamed, no reply recorded (so no tool ran), not
  // between retries. Approval prompts come from tools, so a run that ran none has shown none.
  if (finished_ || aborted_ || switch_to_ || model_calls_ != 1 || streamed_ || reply_recorded_ || !request_) return false;
  switch_to_ = std::move(model);
  http_.cancel(*request_);  // on_model_done makes the call again with the new model
  return true;
}

bool AgentRun::steer(std::string text, std::vector<llm::ContentBlock> media) {
  if (finished_ || aborted_) return false;
  steering_.push_back(std::move(text));
  steering_media_.insert(steering_media_.end(), std::make_move_iterator(media.begin()), std::make_move_iterator(media.end()));
  return true;
}

void AgentRun::abort(const std::string& reason) {
  if (finished_ || aborted_) return;
  aborted_ = true;
  abort_reason_ = reason;
  cancel_flag_->cancel();
  if (stop_first_call_hook_) {  // waiting for the recall: it ends with the turn, now
    std::exchange(stop_first_call_hook_, nullptr)();
    return finish_aborted();
  }
  if (retry_timer_) {
    loop_.cancel(*retry_timer_);
    retry_timer_.reset();
    return finish_aborted();
  }
  if (abort_cli()) return;  // a CLI backend's call (agent_run_cli.cpp)
  if (request_) {
    http_.cancel(*request_);  // on_model_done follows with the partial reply
    return;
  }
  if (!tool_running_) finish_aborted();  // a running tool sees the flag and its callback finishes
}

void AgentRun::finish_ok(const llm::AssistantMessage& reply) {
  RunEvent e = event(RunEvent::Kind::End);
  e.text = reply.text();
  e.stop_reason = std::string(llm::to_string(reply.stop_reason));
  finish(std::move(e));
}

void AgentRun::finish_error(const std::string& message, std::string_view reason) {
  if (finished_) return;
  close_turn(llm::StopReason::Error, message);
  RunEvent e = event(RunEvent::Kind::Error);
  e.error = message;
  e.error_reason = reason;
  e.stop_reason = "error";
  finish(std::move(e));
}

void AgentRun::finish_aborted() {
  if (finished_) return;
  engine_->cancel();  // a summary in flight is dropped, never recorded after the run
  // Keep the partial reply, marked aborted (AG-9).
  std::string partial_text;
  if (decoder_ && !reply_recorded_) {
    llm::AssistantMessage partial = decoder_->partial();
    std::erase_if(partial.content, [](const llm::ContentBlock& b) { return std::holds_alternative<llm::ToolCall>(b); });
    if (has_text(partial)) {
      partial.stop_reason = llm::StopReason::Aborted;
      partial.error_message = "aborted (" + abort_reason_ + ")";
      partial_text = partial.text();
      record(partial);
    }
  }
  close_turn(llm::StopReason::Aborted, "aborted (" + abort_reason_ + ")");
  RunEvent e = event(RunEvent::Kind::Aborted);
  e.text = partial_text;
  e.stop_reason = abort_reason_;
  finish(std::move(e));
}

void AgentRun::finish(RunEvent e) {
  if (finished_) return;
  finished_ = true;
  if (stop_first_call_hook_) std::exchange(stop_first_call_hook_, nullptr)();
  engine_->cancel();
  if (branch_summarizer_) branch_summarizer_->cancel();
  if (e.kind != RunEvent::Kind::Aborted) engine_->after_turn();
  if (deadline_timer_) loop_.cancel(*deadline_timer_);
  if (retry_timer_) loop_.cancel(*retry_timer_);
  if (partial_timer_) loop_.cancel(*partial_timer_);
  e.usage = usage_;
  e.thinking = std::string(llm::to_string(in_.thinking));
  e.thinking_stepped_down = thinking_stepped_down_;
  // The turn's lines are in the page cache (every reader sees them; a process crash keeps them);
  // they reach the disk in the background, beside the run journal's `answered`, so that the final
  // event does not wait for the disk (store/background_sync.h: what a power loss in that moment
  // can cost).
  transcript_.sync_in_background();
  sink_(e);
  decoder_.reset();
  if (on_finished_) on_finished_();
}

}  // namespace pincer::agent
