// AgentRun's side of CLI backends (issue 17 item 5): when the run's model is a CLI backend
// (cli_backend_config.h), the model call runs that CLI (cli_model_call.h) instead of sending an
// HTTP request. The prompt is the turn's user text (the CLI keeps the conversation in its own
// session, resumed by the id stored per Pincer session); the system prompt goes with the first
// call of a CLI session; the turn's images go as files (cli_images.h, imageArg). Text deltas
// reach the run's sink like an HTTP stream's; the reply is recorded through handle_reply,
// failures go through handle_failure (retries, failover).
#include <spdlog/spdlog.h>

#include "agent/agent_run.h"
#include "agent/cli_images.h"
#include "agent/cli_model_call.h"
#include "llm/provider.h"
#include "core/ids.h"

namespace pincer::agent {

namespace detail_agent_run_cli {

/// The text of the user messages after the last assistant message (the turn's request, with its
/// turn-context block); their images go to `images` (passed to the CLI as files, cli_images.h).
std::string turn_prompt(const llm::MessageList& messages, std::vector<llm::ImageContent>& images) {
  std::size_t start = messages.size();
  while (start > 0 && std::holds_alternative<llm::UserMessage>(messages[start - 1])) --start;
  std::string out;
  for (std::size_t i = start; i < messages.size(); ++i) {
    for (const auto& block : std::get<llm::UserMessage>(messages[i]).content) {
      if (const auto* img = std::get_if<llm::ImageContent>(&block); img && !img->data.empty()) images.push_back(*img);
      const auto* t = std::get_if<llm::TextContent>(&block);
      if (!t || t->text.empty()) continue;
      out += (out.empty() ? "" : "\n\n") + t->text;
    }
  }
  return out;
}

/// Whether a failed resume says the CLI does not know the session (Claude Code: "No conversation
/// found with session ID: …"; codex: "no rollout found for thread id …").
bool forgot_session(const std::string& message) {
  std::string m = message;
  for (auto& c : m) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return m.find("no conversation found") != std::string::npos || m.find("no rollout found") != std::string::npos ||
         m.find("session not found") != std::string::npos;
}

constexpr const char* kCliToolsNote =
    "\n\n(You are running as a command-line backend of Pincer: the tools described above are not "
    "available to you here; use your own tools.)";

}  // namespace detail_agent_run_cli

bool AgentRun::cli_model() const { return in_.model.api == kCliBackendApi; }

void AgentRun::send_cli_request(const llm::Context& context) {
  static const nlohmann::json kNoConfig = nlohmann::json::object();
  auto backend = resolve_cli_backend(in_.model.provider, in_.config ? *in_.config : kNoConfig);
  if (!backend) {
    return finish_error("model " + in_.model.provider + "/" + in_.model.id + ": \"" + in_.model.provider +
                        "\" is not a CLI backend (agents.defaults.cliBackends)");
  }
  CliCallInput call;
  call.model_id = in_.model.id;
  call.thinking_level = std::string(llm::to_string(in_.thinking));  // thinkingArgs / thinkingEnv
  std::vector<llm::ImageContent> images;
  call.prompt = detail_agent_run_cli::turn_prompt(context.messages, images);
  call.system_prompt = context.system_prompt.empty() ? "" : context.system_prompt + detail_agent_run_cli::kCliToolsNote;
  auto stale_retried = std::make_shared<bool>(false);  // a forgotten CLI session is replaced once per call

  auto start_attempt = [this, settings = *backend, call, stale_retried, images]() mutable {
    ++attempt_;
    // The turn's images as files for this attempt; removed when its call object goes (done,
    // failed or aborted: the on_done handler below owns them).
    std::shared_ptr<CliImageFiles> image_files;
    if (!images.empty()) {
      auto written = CliImageFiles::write(images);
      if (!written) return finish_error("cannot pass the turn's images to " + settings.id + ": " + written.error().message);
      image_files = std::move(*written);
      call.image_paths = image_files->paths();
    }
    auto stored = in_.cli_sessions.find(settings.id);
    call.stored_session_id = stored != in_.cli_sessions.end() ? stored->second : "";
    status_ = 0;
    error_body_.clear();
    stream_error_.reset();
    reply_recorded_ = false;
    decoder_.reset();  // (an HTTP attempt before a failover to this CLI)
    cli_text_.clear();
    call.fresh_session_id = ids::uuid_v4();  // a retry must not reuse an id the failed attempt took
    CliInvocation inv = build_cli_invocation(settings, call);
    CliCallOptions options;
    options.cwd = in_.workspace;
    if (in_.tool_env) options.base_env = *in_.tool_env;
    options.watchdog_ms = (inv.resuming ? settings.resume_watchdog : settings.fresh_watchdog).limit_ms(in_.timeout_ms);
    options.timeout_ms = in_.timeout_ms;
    std::weak_ptr<AgentRun> weak = weak_from_this();
    auto on_delta = [weak](const std::string& delta, const std::string& text) {
      auto self = weak.lock();
      if (!self || self->aborted_) return;
      self->streamed_ = true;
      self->cli_text_ = text;
      RunEvent ev = self->event(RunEvent::Kind::AssistantDelta);
      ev.text = text;
      ev.delta = delta;
      self->checkpoint_partial(text);
      self->sink_(ev);
    };
    auto on_done = [weak, id = settings.id, sent = inv.session_id, resuming = !call.stored_session_id.empty(),
                    stale_retried, image_files](CliOutcome outcome) mutable {
      image_files.reset();  // the CLI has exited: its image files go now
      auto self = weak.lock();
      if (!self) return;
      if (!outcome.reply && resuming && !*stale_retried && !self->aborted_ && !self->streamed_ &&
          detail_agent_run_cli::forgot_session(outcome.failure.message)) {
        // The CLI no longer has the stored session (deleted, another machine): start a new one.
        spdlog::warn("run {}: {} no longer knows session {}; starting a new CLI session", self->in_.run_id, id, sent);
        *stale_retried = true;
        self->in_.cli_sessions.erase(id);
        if (self->in_.on_cli_session) self->in_.on_cli_session(id, "");
        self->cli_call_.reset();
        --self->attempt_;
        return self->retry_();
      }
      if (outcome.reply) {  // the CLI session continues next turn
        const std::string session = outcome.reply->session_id.empty() ? sent : outcome.reply->session_id;
        if (!session.empty() && self->in_.cli_sessions[id] != session) {
          self->in_.cli_sessions[id] = session;
          if (self->in_.on_cli_session) self->in_.on_cli_session(id, session);
        }
      }
      self->on_cli_done(std::move(outcome));
    };
    CliBackendSettings call_settings = settings;
    for (const auto& [k, v] : inv.env) call_settings.env[k] = v;  // thinkingEnv of the session's level
    cli_call_ = std::make_shared<CliModelCall>(loop_, std::move(call_settings), std::move(inv), std::move(options), in_.model,
                                               std::move(on_delta), std::move(on_done));
    cli_call_->start();
  };
  start_attempt();
  retry_ = start_attempt;
}

void AgentRun::on_cli_done(CliOutcome outcome) {
  cli_call_.reset();
  if (aborted_) return finish_aborted();
  if (!outcome.reply) return handle_failure(outcome.failure);
  llm::AssistantMessage reply;
  reply.api = in_.model.api;
  reply.provider = in_.model.provider;
  reply.model = in_.model.id;
  reply.content.emplace_back(llm::TextContent{outcome.reply->text});
  reply.stop_reason = llm::StopReason::Stop;
  reply.usage = outcome.reply->usage;
  reply.timestamp = clock_.wall_ms();
  handle_reply(std::move(reply));
}

bool AgentRun::abort_cli() {
  if (!cli_call_) return false;
  cli_call_->cancel();
  cli_call_.reset();
  if (!cli_text_.empty() && !reply_recorded_) {  // keep what was shown, marked aborted (AG-9)
    llm::AssistantMessage partial;
    partial.api = in_.model.api;
    partial.provider = in_.model.provider;
    partial.model = in_.model.id;
    partial.content.emplace_back(llm::TextContent{cli_text_});
    partial.stop_reason = llm::StopReason::Aborted;
    partial.error_message = "aborted (" + abort_reason_ + ")";
    partial.timestamp = clock_.wall_ms();
    record(partial);
    reply_recorded_ = true;
  }
  finish_aborted();
  return true;
}

}  // namespace pincer::agent
