// The lifecycle every platform channel repeats (SPEC CH-1, CH-7), in one place: a run starts with
// Channel::start() and ends with Channel::stop() or a failure; callbacks of a finished run (HTTP
// answers, timers, WebSocket frames that arrive late) must do nothing, a failure is reported to
// the manager exactly once and from the loop — never from inside the callback that found it —
// and status() shows `running` and the last error.
//
// How a channel uses it (discord/, slack/, matrix/ and telegram/ do exactly this):
//
//   class FooChannel final : public Channel {
//     ChannelRun run_{loop_, "foo[" + settings_.account_id + "]", [this] { stop(); }};  // after loop_, settings_
//     void start(ChannelHost& host, std::function<void(const std::string&)> on_failed) override {
//       stop();
//       host_ = &host;
//       run_.begin(std::move(on_failed));
//       std::weak_ptr<bool> alive = run_.token();
//       http_.get(…, [this, alive](…) {
//         if (!ChannelRun::live(alive)) return;       // stopped, failed or restarted meanwhile
//         if (answer.status == 401) return run_.fail("the token was refused: check channels.foo.token",
//                                                    FailureKind::Permanent);
//         if (!answer.ok) return run_.fail("cannot reach foo.example: " + answer.error);  // retried
//       });
//     }
//     void stop() override { run_.end(); /* cancel timers, drop clients */ }
//     bool failed_permanently() const override { return run_.permanent(); }
//     nlohmann::json status() const override {
//       nlohmann::json s = {{"channel", "foo"}, {"accountId", …}, …};
//       run_.add_status(s);  // running, lastError?
//       return s;
//     }
//   };
//
// Permanent failures (FailureKind::Permanent): the platform refused the account's credentials (a
// revoked or mistyped token). The channel manager then does not restart the account until the
// config is reloaded (channel.h failed_permanently); use it only when retrying cannot help.
//
// Loop affinity: every method on the event-loop thread.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "core/event_loop.h"

namespace pincer::channels {

/// Whether retrying can fix a failure (channel.h Channel::failed_permanently).
enum class FailureKind {
  Transient,  ///< network errors, 5xx, timeouts: the manager restarts with backoff (1 s … 5 min)
  Permanent,  ///< the platform refused the credentials: stopped until the config is reloaded
};

class ChannelRun {
 public:
  /// `label` prefixes every reported failure ("discord[default]" → "discord[default]: <why>");
  /// `stop_owner` is the owning channel's stop(), called before on_failed (it must call end()).
  ChannelRun(EventLoop& loop, std::string label, std::function<void()> stop_owner);
  /// Ends the run; a failure report still queued on the loop is dropped.
  ~ChannelRun();
  ChannelRun(const ChannelRun&) = delete;
  ChannelRun& operator=(const ChannelRun&) = delete;

  /// Starts a new run: a fresh liveness token (the previous run's callbacks see theirs dead),
  /// `on_failed` remembered for fail(), the permanent mark of the last failure cleared. Call
  /// end() (the owner's stop()) first when a run may still be going.
  void begin(std::function<void(const std::string& why)> on_failed);
  /// Ends the run: its token reads dead, no failure is reported any more. Idempotent. The last
  /// error and the permanent mark stay (status() and the manager read them after a failure).
  void end();

  /// Whether the current run is going (begun, neither ended nor failed).
  bool running() const { return alive_ && *alive_; }
  /// The current run's liveness token for callbacks: ChannelRun::live(token) is false once that
  /// run ended or failed, or a newer run began. An empty token (no run) is never live.
  std::weak_ptr<bool> token() const { return alive_; }
  /// Whether `token` belongs to a run that is still going.
  static bool live(const std::weak_ptr<bool>& token) {
    auto t = token.lock();
    return t && *t;
  }
  /// Expires when this ChannelRun (so its channel) is destroyed: for callbacks that must not
  /// touch a destroyed channel but may outlive a run (a send's answer after a restart).
  std::weak_ptr<int> life() const { return life_; }

  /// The run cannot go on: records `why` as the last error and marks the run dead at once (later
  /// callbacks of it do nothing); then, from the loop, calls the owner's stop() and on_failed
  /// with "<label>: <why>" — once per run (a second fail() only updates the last error), never
  /// when the run ended or a newer one began before the loop got to it, or the channel is gone.
  /// `kind` Permanent marks the failure as one retrying cannot fix (permanent()).
  void fail(const std::string& why, FailureKind kind = FailureKind::Transient);

  /// Whether the last failure was FailureKind::Permanent (cleared by begin()).
  bool permanent() const { return permanent_; }
  /// The last error ("" = none): set by fail() and by the owner for problems it retries itself
  /// (a lost connection it reopens); clear it when the platform works again.
  const std::string& last_error() const { return last_error_; }
  void set_last_error(std::string why) { last_error_ = std::move(why); }
  void clear_last_error() { last_error_.clear(); }

  /// Adds the fields every channel status has: `running` (bool) and `lastError` (string, only
  /// when there is one).
  void add_status(nlohmann::json& status) const;

 private:
  EventLoop& loop_;
  std::string label_;
  std::function<void()> stop_owner_;
  std::function<void(const std::string&)> on_failed_;
  std::shared_ptr<bool> alive_;  ///< the current run: false once ended or failed
  std::shared_ptr<int> life_ = std::make_shared<int>(0);
  std::string last_error_;
  bool permanent_ = false;
};

}  // namespace pincer::channels
