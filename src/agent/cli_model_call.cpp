#include "agent/cli_model_call.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <set>

#include <spdlog/spdlog.h>

#include "store/atomic_file.h"
#include "tools/subprocess.h"

namespace pincer::agent {

namespace detail_cli_model_call {

int64_t steady_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// serialize: one running call per backend, the others wait in start order. Loop thread only.
struct Slot {
  bool busy = false;
  std::deque<std::weak_ptr<CliModelCall>> waiting;
};
std::map<std::string, Slot>& slots() {
  static std::map<std::string, Slot> s;
  return s;
}

std::string read_capped(const std::filesystem::path& p, std::size_t cap) {
  std::ifstream in(p, std::ios::binary);
  std::string out(cap, '\0');
  in.read(out.data(), static_cast<std::streamsize>(cap));
  out.resize(static_cast<std::size_t>(in.gcount()));
  return out;
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace detail_cli_model_call

CliModelCall::CliModelCall(EventLoop& loop, CliBackendSettings backend, CliInvocation invocation, CliCallOptions options,
                           llm::ModelSpec model, DeltaFn on_delta, DoneFn on_done)
    : loop_(loop),
      backend_(std::move(backend)),
      inv_(std::move(invocation)),
      opt_(std::move(options)),
      model_(std::move(model)),
      on_delta_(std::move(on_delta)),
      on_done_(std::move(on_done)),
      parser_(inv_.output, backend_.session_id_fields, [this](const std::string& d, const std::string& t) {
        if (!finished_ && on_delta_) on_delta_(d, t);
      }) {}

CliModelCall::~CliModelCall() { cleanup(); }

std::vector<std::string> CliModelCall::child_environment(const std::map<std::string, std::string>& base,
                                                         const std::vector<std::string>& clear,
                                                         const std::map<std::string, std::string>& set) {
  std::map<std::string, std::string> env = base;
  for (const auto& name : clear) env.erase(name);
  for (const auto& [k, v] : set) env[k] = v;
  std::vector<std::string> out;
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

void CliModelCall::start() {
  if (backend_.serialize) {
    auto& slot = detail_cli_model_call::slots()[backend_.id];
    if (slot.busy) {
      slot.waiting.push_back(weak_from_this());
      return;
    }
    slot.busy = true;
    holds_slot_ = true;
  }
  launch();
}

void CliModelCall::launch() {
  namespace d = detail_cli_model_call;
  std::error_code ec;
  std::string tmpl = (std::filesystem::temp_directory_path(ec) / "pincer-cli-XXXXXX").string();
  if (ec || ::mkdtemp(tmpl.data()) == nullptr) {
    return done({std::nullopt, failure("cannot create a temporary directory for the CLI call", "spawn failed")});
  }
  tmp_dir_ = tmpl;
  std::string command = "exec " + shell_join(inv_.argv);
  if (inv_.stdin_text) {
    const auto in = tmp_dir_ / "prompt";
    if (auto st = store::write_file_atomic(in, *inv_.stdin_text, 0600); !st) {
      return done({std::nullopt, failure("cannot write the prompt file: " + st.error().message, "spawn failed")});
    }
    command += " <" + shell_join({in.string()});
  } else {
    command += " </dev/null";
  }
  command += " 2>" + shell_join({(tmp_dir_ / "stderr").string()});

  tools::SpawnOptions so;
  so.command = command;
  so.cwd = std::filesystem::is_directory(opt_.cwd, ec) ? opt_.cwd : std::filesystem::path("/");
  so.env = child_environment(opt_.base_env, backend_.clear_env, backend_.env);
  so.timeout = std::chrono::milliseconds(std::max<int64_t>(opt_.timeout_ms, 1000));
  so.kill_grace = std::chrono::milliseconds(1000);
  so.head_bytes = 16u << 20;
  so.tail_bytes = 1u << 20;
  so.log = false;  // the command line holds the prompt: logged below without it
  // Output and the end wake the loop (one posted wake-up at a time); nothing polls.
  so.on_output = [&loop = loop_, weak = weak_from_this(), posted = wake_posted_] {
    if (posted->exchange(true)) return;
    loop.post([weak, posted] {
      posted->store(false);
      if (auto self = weak.lock()) self->drain();
    });
  };
  spdlog::info("cli backend {}: {} {} (model {}, session {}, prompt on {})", backend_.id, inv_.argv.front(),
               inv_.resuming ? "resume" : "fresh", model_.id, inv_.session_id.empty() ? "none" : inv_.session_id,
               inv_.stdin_text ? "stdin" : "argv");
  auto proc = tools::ManagedProcess::spawn(std::move(so));
  if (!proc) return done({std::nullopt, failure(proc.error().message, "spawn failed")});
  proc_ = std::move(*proc);
  last_output_ms_ = d::steady_now_ms();
  arm_watchdog(opt_.watchdog_ms);
  drain();  // (output that came before proc_ was set is read here; later output wakes the loop)
}

void CliModelCall::drain() {
  if (finished_ || !proc_) return;
  // Read what is there, then decide: the status is taken first so no output is missed after it.
  const tools::ProcessStatus status = proc_->status();
  for (;;) {
    auto slice = proc_->output_from(offset_, 256 * 1024);
    if (slice.text.empty()) break;
    offset_ = slice.next;
    last_output_ms_ = detail_cli_model_call::steady_now_ms();
    parser_.feed(slice.text);
    if (finished_) return;  // a delta callback cancelled the call
  }
  if (status.finished) return complete();
}

void CliModelCall::arm_watchdog(int64_t delay_ms) {
  if (timer_) loop_.cancel(*timer_);
  std::weak_ptr<CliModelCall> weak = weak_from_this();
  timer_ = loop_.after(std::max<int64_t>(delay_ms, 1), [weak] {
    if (auto self = weak.lock()) self->check_watchdog();
  });
}

void CliModelCall::check_watchdog() {
  timer_.reset();
  if (finished_ || !proc_ || watchdog_fired_) return;
  const int64_t silent = detail_cli_model_call::steady_now_ms() - last_output_ms_;
  if (silent < opt_.watchdog_ms) return arm_watchdog(opt_.watchdog_ms - silent);  // output came meanwhile
  watchdog_fired_ = true;
  spdlog::warn("cli backend {}: no output for {} ms, stopping the CLI (reliability.watchdog)", backend_.id, opt_.watchdog_ms);
  proc_->stop(tools::StopReason::kTimeout);  // its end wakes drain(), which completes the call
}

llm::ProviderFailure CliModelCall::failure(const std::string& text, const std::string& cause) const {
  llm::ProviderFailure f = llm::classify_stream_error(model_, Error{"PROVIDER_STREAM_ERROR", text});
  f.cause = cause;
  return f;
}

void CliModelCall::complete() {
  namespace d = detail_cli_model_call;
  const tools::ProcessStatus status = proc_->status();
  CliReply reply = parser_.finish();
  const std::string err = d::trimmed(d::read_capped(tmp_dir_ / "stderr", 16 * 1024));
  const std::string ref = model_.provider + "/" + model_.id;
  if (watchdog_fired_ || status.stopped_by == tools::StopReason::kTimeout) {
    llm::ProviderFailure f;
    f.reason = llm::FailoverReason::Timeout;
    f.retryable = true;
    f.cause = watchdog_fired_ ? "CLI watchdog" : "CLI timeout";
    f.message = watchdog_fired_ ? ref + ": the CLI printed nothing for " + std::to_string(opt_.watchdog_ms / 1000) +
                                      " s and was stopped (reliability.watchdog)"
                                : ref + ": the CLI did not finish in " + std::to_string(opt_.timeout_ms / 1000) + " s";
    return done({std::nullopt, f});
  }
  const int code = status.exit_code.value_or(-1);
  if (code == 126 || code == 127) {
    llm::ProviderFailure f;
    f.reason = llm::FailoverReason::ModelNotFound;
    f.cause = "CLI not found";
    f.message = ref + ": the CLI `" + backend_.command + "` could not be run (" +
                (err.empty() ? "exit " + std::to_string(code) : err.substr(0, 300)) +
                "); set agents.defaults.cliBackends." + backend_.id + ".command to its full path";
    return done({std::nullopt, f});
  }
  if (code != 0) {
    std::string text = reply.error.value_or("");
    if (!err.empty()) text += (text.empty() ? "" : "; ") + err;
    if (text.empty()) text = status.signal ? "killed by signal " + std::to_string(*status.signal) : "exit status " + std::to_string(code);
    return done({std::nullopt, failure(text, "CLI exit " + std::to_string(code))});
  }
  if (reply.error) return done({std::nullopt, failure(*reply.error, "CLI reported an error")});
  done({std::move(reply), {}});
}

void CliModelCall::done(CliOutcome outcome) {
  if (finished_) return;
  finished_ = true;
  cleanup();
  auto cb = std::move(on_done_);
  if (cb) cb(std::move(outcome));
}

void CliModelCall::cancel() {
  if (finished_) return;
  finished_ = true;
  on_done_ = nullptr;
  on_delta_ = nullptr;
  if (proc_) proc_->stop(tools::StopReason::kCancelled);
  cleanup();
}

void CliModelCall::cleanup() {
  if (timer_) {
    loop_.cancel(*timer_);
    timer_.reset();
  }
  if (proc_) {
    // A running child is stopped; its pump is joined off the loop (that may take the kill grace).
    auto proc = std::move(proc_);
    if (!proc->status().finished) {
      proc->stop(tools::StopReason::kCancelled);
      loop_.offload([proc] { proc->wait_for(std::chrono::milliseconds(3000)); }, [] {});
    }
  }
  if (!tmp_dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(tmp_dir_, ec);
    tmp_dir_.clear();
  }
  if (holds_slot_) {
    holds_slot_ = false;
    auto& slot = detail_cli_model_call::slots()[backend_.id];
    slot.busy = false;
    while (!slot.waiting.empty()) {
      auto next = slot.waiting.front().lock();
      slot.waiting.pop_front();
      if (!next || next->finished_) continue;
      slot.busy = true;
      next->holds_slot_ = true;
      loop_.post([next] {
        if (next->finished_) return next->cleanup();  // cancelled meanwhile: pass the slot on
        next->launch();
      });
      break;
    }
  }
}

}  // namespace pincer::agent
