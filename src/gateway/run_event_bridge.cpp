#include "gateway/run_event_bridge.h"

#include <chrono>
#include <memory>
#include <optional>

#include "agent/silent_reply.h"
#include "core/event_loop.h"
#include "core/redact.h"
#include "gateway/gateway.h"
#include "core/json_dump.h"

namespace pincer::gateway {
namespace {

using agent::RunEvent;
using nlohmann::json;

/// Per-run state shared by the sink's copies.
struct RunState {
  RunState(Gateway& g, std::function<void(const RunEvent&)> t) : gateway(g), on_terminal(std::move(t)) {}
  Gateway& gateway;
  std::function<void(const RunEvent&)> on_terminal;
  int64_t seq = 0;
  std::string text;          // assistant text so far (current model step)
  std::string sent_text;     // what the last chat delta carried
  std::string pending_delta; // chat deltaText not yet sent
  int64_t last_delta_ms = 0;
  std::optional<EventLoop::TimerId> timer;
  // Agent assistant events: the last one sent (steady ms) and the ones merged since.
  std::optional<int64_t> assistant_sent_ms;
  std::optional<RunEvent> assistant_buffered;  // the latest delta event (its text, ts)
  std::string assistant_delta;                 // the buffered deltas, joined
  std::optional<EventLoop::TimerId> assistant_timer;

  static int64_t steady_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  void send_assistant(const RunEvent& e, const std::string& delta) {
    agent_event_with(e, "assistant", [&](json_dump::Writer& w) {
      w.begin_object().key("delta").string(delta).key("text").string(e.text).end_object();
    });
    assistant_sent_ms = steady_ms();
  }
  /// Sends the merged assistant event, if any (before any other event of the run, and when the
  /// pacing window ends).
  void flush_assistant() {
    if (assistant_timer && gateway.loop()) gateway.loop()->cancel(*assistant_timer);
    assistant_timer.reset();
    if (!assistant_buffered) return;
    RunEvent e = std::move(*assistant_buffered);
    assistant_buffered.reset();
    send_assistant(e, assistant_delta);
    assistant_delta.clear();
  }

  static json assistant_message(const std::string& text, int64_t ts) {
    return json{{"role", "assistant"}, {"content", json::array({json{{"type", "text"}, {"text", text}}})}, {"timestamp", ts}};
  }
  /// An `agent` event whose `data` `write_data` writes. The payload is written straight to text
  /// (keys in sorted order, as a dump of the same object): streamed deltas send one per chunk.
  template <typename WriteData>
  void agent_event_with(const RunEvent& e, const char* stream, WriteData&& write_data, bool tool = false) {
    ++seq;
    std::string out;
    out.reserve(192 + e.text.size() + e.delta.size());
    json_dump::Writer w(out);
    w.begin_object().key("agentId").string(e.agent_id).key("data");
    write_data(w);
    w.key("runId").string(e.run_id).key("seq").integer(seq);
    if (!e.session_id.empty()) w.key("sessionId").string(e.session_id);
    w.key("sessionKey").string(e.session_key).key("stream").string(stream).key("ts").integer(e.ts).end_object();
    gateway.broadcast_run_event("agent", out, tool);
  }
  void agent_event(const RunEvent& e, const char* stream, const json& data, bool tool = false) {
    agent_event_with(e, stream, [&](json_dump::Writer& w) { w.value(data); }, tool);
  }
  /// OpenClaw's `sessions.changed` for subscribed clients: phase start | end | error of a run,
  /// with the session row's run state as OpenClaw projects it (status running | done | killed |
  /// failed, hasActiveRun, activeRunIds): the Control UI ends its "Working…" state on it.
  void session_changed(const RunEvent& e, const char* phase) {
    if (!gateway.has_session_event_readers()) return;  // built only for subscribers
    const bool start = std::string_view(phase) == "start";
    const char* status = start                              ? "running"
                         : std::string_view(phase) == "error" ? "failed"
                         : e.stop_reason == "aborted"         ? "killed"
                                                              : "done";
    json p = {{"sessionKey", e.session_key}, {"agentId", e.agent_id}, {"phase", phase},
              {"runId", e.run_id},           {"clientRunId", e.run_id}, {"updatedAt", e.ts},
              {"status", status},            {"hasActiveRun", start},
              {"activeRunIds", start ? json::array({e.run_id}) : json::array()}};
    if (!e.session_id.empty()) p["sessionId"] = e.session_id;
    gateway.broadcast_session_event("sessions.changed", p);
  }
  /// Writes `{"content":[{"text":…,"type":"text"}],"role":"assistant","timestamp":ts}`, as a
  /// dump of assistant_message(text, ts) would.
  static void write_assistant_message(json_dump::Writer& w, const std::string& text, int64_t ts) {
    w.begin_object().key("content").begin_array().begin_object().key("text").string(text).key("type").string("text");
    w.end_object().end_array().key("role").string("assistant").key("timestamp").integer(ts).end_object();
  }
  /// The run's terminal `chat` event, written straight to text as a dump of {agentId, runId, seq, sessionKey,
  /// state, stopReason, errorMessage, message, usage} would be (keys in sorted order).
  void terminal_chat_event(const RunEvent& e, const char* state, const std::string* error) {
    std::string out;
    out.reserve(224 + e.text.size() + (error ? error->size() : 0));
    json_dump::Writer w(out);
    w.begin_object().key("agentId").string(e.agent_id);
    if (error) w.key("errorMessage").string(*error);
    if (!error && !e.text.empty()) {  // none: silent
      w.key("message");
      write_assistant_message(w, e.text, e.ts);
    }
    w.key("runId").string(e.run_id).key("seq").integer(seq).key("sessionKey").string(e.session_key);
    w.key("state").string(state);
    if (!error) w.key("stopReason").string(e.stop_reason);
    if (e.kind == RunEvent::Kind::End) {
      w.key("usage").begin_object().key("input").integer(e.usage.input).key("output").integer(e.usage.output);
      w.key("totalTokens").integer(e.usage.total_tokens).end_object();
    }
    w.end_object();
    gateway.broadcast_run_event("chat", out);
  }
  /// The `agent` lifecycle event of a run's end: data {aborted?, endedAt, error?, phase,
  /// stopReason?} (keys in sorted order).
  void lifecycle_end_event(const RunEvent& e, const char* phase, const std::string* error, bool aborted) {
    auto write = [&](json_dump::Writer& w) {
      w.begin_object();
      if (aborted) w.key("aborted").boolean(true);
      w.key("endedAt").integer(e.ts);
      if (error) w.key("error").string(*error);
      w.key("phase").string(phase);
      if (!error) w.key("stopReason").string(e.stop_reason);
      w.end_object();
    };
    agent_event_with(e, "lifecycle", write);
  }
  void flush_delta(const RunEvent& e) {
    if (pending_delta.empty()) return;
    // {agentId, runId, seq, sessionKey} + state, deltaText and the message so far, written as a dump of that object would be.
    std::string out;
    out.reserve(192 + text.size() + pending_delta.size());
    json_dump::Writer w(out);
    w.begin_object().key("agentId").string(e.agent_id).key("deltaText").string(pending_delta).key("message");
    write_assistant_message(w, text, e.ts);
    w.key("runId").string(e.run_id).key("seq").integer(seq).key("sessionKey").string(e.session_key);
    w.key("state").string("delta").end_object();
    gateway.broadcast_run_event("chat", out);
    sent_text = text;
    pending_delta.clear();
    last_delta_ms = e.ts;
  }
};

}  // namespace

agent::RunEventSink make_run_event_sink(Gateway& gateway, std::function<void(const RunEvent&)> on_terminal) {
  auto state = std::make_shared<RunState>(gateway, std::move(on_terminal));
  // CX-10: clients see no NO_REPLY / HEARTBEAT_OK (the transcript keeps it).
  return agent::without_silent_replies([state](const RunEvent& e) {
    RunState& s = *state;
    // Merged assistant text goes out before anything else the run says.
    if (e.kind != RunEvent::Kind::AssistantDelta) s.flush_assistant();
    switch (e.kind) {
      case RunEvent::Kind::Start:
        s.agent_event_with(e, "lifecycle", [&](json_dump::Writer& w) {
          w.begin_object().key("phase").string("start").key("startedAt").integer(e.ts).end_object();
        });
        s.session_changed(e, "start");
        break;
      case RunEvent::Kind::AssistantDelta: {
        s.text = e.text;
        s.pending_delta += e.delta;
        EventLoop* loop = s.gateway.loop();
        const int64_t since = s.assistant_sent_ms ? RunState::steady_ms() - *s.assistant_sent_ms : kLiveTextPacingMs;
        if (loop && since < kLiveTextPacingMs) {  // merged into one event at the window's end
          s.assistant_delta += e.delta;
          s.assistant_buffered = e;
          if (!s.assistant_timer) {
            s.assistant_timer = loop->after(kLiveTextPacingMs - since, [state] {
              state->assistant_timer.reset();
              state->flush_assistant();
            });
          }
        } else {
          s.flush_assistant();
          s.send_assistant(e, e.delta);
        }
        if (!loop || e.ts - s.last_delta_ms >= kLiveTextPacingMs) {
          s.flush_delta(e);
        } else if (!s.timer) {
          // Send the coalesced delta when the throttle window ends.
          const int64_t wait = kLiveTextPacingMs - (e.ts - s.last_delta_ms);
          RunEvent later = e;
          s.timer = loop->after(wait, [state, later]() mutable {
            state->timer.reset();
            later.ts += kLiveTextPacingMs;
            state->flush_delta(later);
          });
        }
        break;
      }
      case RunEvent::Kind::ToolStart:
        // A new model step follows the tools: its text starts afresh.
        s.flush_delta(e);
        s.text.clear();
        s.sent_text.clear();
        s.agent_event(e, "tool", {{"phase", "start"}, {"name", e.tool_name}, {"toolCallId", e.tool_call_id}, {"args", e.tool_args}},
                      /*tool=*/true);
        break;
      case RunEvent::Kind::ToolResult:
        s.agent_event(e, "tool",
                      {{"phase", "result"}, {"name", e.tool_name}, {"toolCallId", e.tool_call_id},
                       {"isError", e.tool_error}, {"result", e.tool_result}},
                      /*tool=*/true);
        break;
      case RunEvent::Kind::Compaction:
        s.agent_event(e, "compaction", e.data);  // OpenClaw's stream: phase start|end (willRetry)
        break;
      case RunEvent::Kind::Failover: {  // PV-5: another model or auth profile answers, and why
        json data = e.data;
        data["phase"] = "fallback";
        s.agent_event(e, "lifecycle", std::move(data));
        break;
      }
      case RunEvent::Kind::Steered:
        // The steering message is a user message in the transcript (chat.history shows it); the
        // OpenClaw protocol has no agent stream for it, so clients are not told here.
        break;
      case RunEvent::Kind::End:
      case RunEvent::Kind::Error:
      case RunEvent::Kind::Aborted: {
        if (s.timer && s.gateway.loop()) s.gateway.loop()->cancel(*s.timer);
        s.timer.reset();
        if (e.kind != RunEvent::Kind::Error) {
          if (s.text != e.text && e.text.size() >= s.text.size() && e.text.compare(0, s.text.size(), s.text) == 0) {
            s.pending_delta += e.text.substr(s.text.size());
          }
          s.text = e.text;
          s.flush_delta(e);  // catch-up delta: the final is preceded by the complete text
        }
        const char* state = "final";
        std::string error;
        if (e.kind == RunEvent::Kind::End) {
          s.lifecycle_end_event(e, "end", nullptr, /*aborted=*/false);
        } else if (e.kind == RunEvent::Kind::Error) {
          // Operators get the detail, masked once more (errors from any layer end here).
          error = redact::apply(e.error);
          s.lifecycle_end_event(e, "error", &error, /*aborted=*/false);
          state = "error";
        } else {
          s.lifecycle_end_event(e, "end", nullptr, /*aborted=*/true);
          state = "aborted";
        }
        const bool has_message = e.kind != RunEvent::Kind::Error && !e.text.empty();
        if (has_message && s.gateway.has_session_event_readers()) {
          // The reply as it is now in the transcript (OpenClaw's session.message), then the run's end.
          json m = {{"sessionKey", e.session_key}, {"agentId", e.agent_id}, {"runId", e.run_id},
                    {"message", RunState::assistant_message(e.text, e.ts)}, {"updatedAt", e.ts}};
          if (!e.session_id.empty()) m["sessionId"] = e.session_id;
          s.gateway.broadcast_session_event("session.message", m);
        }
        // The run's final chat event, then the session's idle state (OpenClaw publishes the
        // terminal sessions.changed after the run's end is persisted): a client that saw the
        // session go idle first (openclaw tui) would no longer match the final to its message.
        s.terminal_chat_event(e, state, e.kind == RunEvent::Kind::Error ? &error : nullptr);
        s.session_changed(e, e.kind == RunEvent::Kind::Error ? "error" : "end");
        if (s.on_terminal) s.on_terminal(e);
        break;
      }
    }
  });
}

}  // namespace pincer::gateway
