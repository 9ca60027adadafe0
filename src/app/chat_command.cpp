// `pincer chat` (alias `tui`): the terminal chat (UI-2). Line editing and history come from
// libedit; the reply streams in as the gateway's events arrive (cli/chat_renderer.h).
// Ctrl-C during a run aborts it; a second Ctrl-C (or Ctrl-C / Ctrl-D at the prompt) quits.
#include <langinfo.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <editline/readline.h>

#include <cerrno>
#include <atomic>
#include <clocale>
#include <condition_variable>
#include <deque>
#include <sstream>
#include <iostream>
#include <memory>
#include <mutex>

#include "agent/chat_commands.h"
#include "app/client_support.h"
#include "app/commands.h"
#include "cli/chat_renderer.h"
#include "cli/invoked_command.h"
#include "core/ids.h"
#include "core/utf8.h"
#include "store/session_keys.h"
#include "tools/approvals/approval_manager.h"

namespace pincer::app {
namespace {

using nlohmann::json;

// libedit's character reader, replaced so that Ctrl-C at the prompt ends readline() (EOF) instead
// of being retried: the chat loop then sees the interrupt count. libedit takes what this returns
// as one whole character (a wchar_t), so a UTF-8 sequence is decoded here into its code point; a
// byte that begins no well-formed sequence becomes U+FFFD (a line is never sent as Latin-1).
int read_byte(FILE* in) {
  unsigned char c;
  while (true) {
    const ssize_t n = ::read(::fileno(in), &c, 1);
    if (n == 1) return c;
    if (n < 0 && errno == EINTR) {
      if (InterruptCounter::count() > 0) return EOF;
      continue;
    }
    return EOF;
  }
}

int pending_byte = EOF;  // a byte read past a broken sequence, handed out next

int read_char(FILE* in) {
  const int first = pending_byte != EOF ? pending_byte : read_byte(in);
  pending_byte = EOF;
  if (first == EOF || first < 0x80) return first;
  const std::size_t want = first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : first >= 0xC0 ? 2 : 1;
  std::string bytes(1, static_cast<char>(first));
  while (bytes.size() < want) {
    const int next = read_byte(in);
    if (next == EOF) return EOF;
    if ((next & 0xC0) != 0x80) {  // not a continuation: the sequence is broken, keep this byte
      pending_byte = next;
      break;
    }
    bytes.push_back(static_cast<char>(next));
  }
  if (utf8::sequence_length(bytes, 0) != bytes.size()) return 0xFFFD;
  std::uint32_t cp = static_cast<unsigned char>(bytes[0]) & (0x7F >> bytes.size());
  for (std::size_t k = 1; k < bytes.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(bytes[k]) & 0x3F);
  return static_cast<int>(cp);
}

struct ChatOptions {
  std::string session = "main";
  std::string agent;
  std::string thinking;
};

// /help: the command table every chat surface shares (agent/chat_commands.h), then the keys.
std::string help_text() {
  return agent::chat_commands_help(/*terminal=*/true) + "\nCtrl-C aborts a run; Ctrl-C again or Ctrl-D quits.\n";
}

class Chat {
 public:
  Chat(const ClientFlags& flags, ChatOptions options, std::string history_file)
      : flags_(flags), opts_(std::move(options)), renderer_(std::cout), history_file_(std::move(history_file)) {}

  int run() {
    if (int rc = connect(); rc != 0) return rc;
    // --agent names one of the gateway's agents: else the first line sent would be the first to fail.
    if (!opts_.agent.empty()) {
      if (auto ids = unknown_agent(opts_.agent)) {
        return fail(2, "--agent: no agent \"" + cli::terminal_safe(opts_.agent) + "\" on the gateway (agents: " +
                           cli::terminal_safe(*ids) + ")");
      }
    }
    std::cout << "pincer chat · " << flags_.url_shown << " · session " << session_key() << "\n"
              << "Type a message, /help for commands, Ctrl-D to quit.\n";
    show_history(10);
    InterruptCounter interrupts;  // Ctrl-C aborts a run / quits instead of killing the chat
    auto last_interrupt = std::chrono::steady_clock::time_point{};
    while (true) {
      InterruptCounter::reset();
      char* raw = readline("> ");  // ASCII: libedit cannot draw a multibyte prompt in the C locale
      if (!raw && InterruptCounter::count() > 0) {
        // Ctrl-C at the prompt: a second one within 2 s (e.g. right after an abort) quits.
        const auto now = std::chrono::steady_clock::now();
        if (now - std::max(last_interrupt, last_abort_) < std::chrono::seconds(2)) {
          std::cout << "\n";
          return 130;
        }
        last_interrupt = now;
        last_abort_ = {};
        std::cout << "\n(Ctrl-C again to quit)\n";
        continue;
      }
      if (!raw) {  // Ctrl-D
        std::cout << "\n";
        return 0;
      }
      std::string line(raw);
      std::free(raw);
      if (line.find_first_not_of(" \t") == std::string::npos) continue;
      if (const std::string problem = utf8::describe_invalid(line); !problem.empty()) {
        std::cout << "[error] that line is not UTF-8 text (" << problem << "); nothing was sent\n";
        continue;
      }
      add_history(line.c_str());
      remember_line();
      if (auto cmd = agent::parse_chat_command(line)) {
        if (cmd->command->name == "quit") return 0;
        if (slash(*cmd, line) == Outcome::Quit) return 130;
        continue;
      }
      if (send(line) == Outcome::Quit) return 130;
    }
  }

 private:
  enum class Outcome { Done, Quit };

  std::string session_key() const {
    if (opts_.agent.empty() || opts_.session.rfind("agent:", 0) == 0) return opts_.session;
    return "agent:" + opts_.agent + ":" + opts_.session;
  }

  int connect() {
    auto options = cli::resolve_connection(flags_.conn, config::process_env());
    if (!options) return fail(2, options.error().message);
    options->client_id = "openclaw-tui";
    options->client_mode = "ui";
    options->caps = {"tool-events"};
    flags_.url_shown = options->url;
    auto client = cli::GatewayClient::connect(
        *options,
        [this](const std::string& event, const json& payload) {
          std::lock_guard lock(mu_);
          if (event == "exec.approval.requested") {
            // Asked here when it is about the run this terminal started (TL-3).
            if (payload.value("request", json::object()).value("runId", "") == renderer_run_) {
              approvals_.push_back(payload);
              cv_.notify_all();
            }
            return;
          }
          if (renderer_.on_event(event, payload)) cv_.notify_all();
        },
        [this](int code, const std::string& reason) {
          std::lock_guard lock(mu_);
          lost_ = true;
          cv_.notify_all();
        });
    if (!client) {
      const bool unreachable = client.error().code == "UNREACHABLE" || client.error().code == "TIMEOUT";
      const std::string note = unreachable ? "" : no_credentials_note(flags_, *options);
      // This home's gateway may be shutting down or listen elsewhere (its lock file says): that, not "start it".
      std::string hint;
      if (client.error().code == "UNREACHABLE") {
        const auto given_url = config::process_env()("PINCER_GATEWAY_URL");
        const bool from_config = !flags_.conn.url && (!given_url || given_url->empty());
        const std::string running = from_config ? cli::running_gateway_note(config::process_env(), options->url) : "";
        hint = running.empty() ? ". Is it running? Start it with: " + cli::invoked_command() + " gateway run" : "; " + running;
      }
      return fail(1, "cannot connect to the gateway at " + options->url + ": " + client.error().message + hint +
                         (note.empty() ? "" : " — " + note));
    }
    client_ = std::move(*client);
    lost_ = false;
    return 0;
  }

  bool ensure_connected() {
    if (client_ && client_->connected()) return true;
    std::cout << "[reconnecting to " << flags_.url_shown << "]\n";
    client_.reset();
    if (connect() != 0) return false;
    if (!cut_run_.empty()) catch_up();
    return true;
  }

  /// After a reconnect, the reply to the run the lost connection cut off: a restarted gateway
  /// resumes that run from its run journal (same run id), so it is either finished — shown from
  /// the history — or still running — followed live, as if it had not been cut.
  void catch_up() {
    const std::string run = std::exchange(cut_run_, "");
    const std::string text = std::exchange(cut_text_, "");
    // The restarted gateway answers the message again from the start: the part of the first answer
    // already on the screen is not part of the conversation any more, and is said to be.
    const std::string discarded =
        std::exchange(cut_partial_, false) ? "[interrupted — the partial reply above was discarded; " : "";
    {
      std::lock_guard lock(mu_);
      // Before asking, its events are followed, but held until the answer says whether the run is
      // still going: one that ends while the question is on its way is shown from the history only.
      renderer_.begin_run(run);
      renderer_.hold();
      renderer_run_ = run;
    }
    auto r = client_->call("chat.history", {{"sessionKey", session_key()}, {"limit", 50}, {"inputRunIds", json::array({run})}},
                           flags_.timeout());
    bool pending = false;
    if (r) {
      for (const auto& receipt : r->value("inputReceipts", json::array())) {
        pending |= receipt.value("runId", "") == run && receipt.value("state", "") == "pending";
      }
    }
    if (pending) {
      {
        std::lock_guard lock(mu_);  // the heading, then what came before the answer, then live
        std::cout << (discarded.empty() ? "[the gateway is still answering your last message]\n"
                                        : discarded + "the gateway answers your last message again:]\n")
                  << std::flush;
        renderer_.release(/*show=*/true);
      }
      (void)wait_for_run(run);  // (a double Ctrl-C here stops waiting; the chat goes on)
      note_if_cut(run, text);
      return;
    }
    {
      std::lock_guard lock(mu_);
      renderer_.release(/*show=*/false);
      renderer_.begin_run("");
    }
    if (!r) return;
    // The reply: the assistant messages after the last user message that carries the cut text.
    const json& messages = (*r)["messages"];
    std::size_t from = messages.size();
    for (std::size_t i = messages.size(); i-- > 0;) {
      if (messages[i].value("role", "") == "user" && history_text(messages[i]).find(text) != std::string::npos) {
        from = i + 1;
        break;
      }
    }
    std::string reply;
    for (std::size_t i = from; i < messages.size(); ++i) {
      if (messages[i].value("role", "") == "assistant") reply += (reply.empty() ? "" : "\n") + history_text(messages[i]);
    }
    if (reply.empty()) {
      std::cout << (discarded.empty() ? "[" : discarded) << "no reply was saved for your last message]\n";
    } else {
      std::cout << (discarded.empty() ? "[the reply" : discarded + "the reply")
                << " to your last message, finished while the chat was disconnected:]\n"
                << cli::terminal_safe(reply) << "\n";
    }
  }

  void show_history(int limit) {
    auto r = client_->call("chat.history", {{"sessionKey", session_key()}, {"limit", limit}}, flags_.timeout());
    if (!r) return;
    for (const auto& m : (*r)["messages"]) {
      const std::string role = m.value("role", "");
      if (role != "user" && role != "assistant") continue;
      std::cout << (role == "user" ? "> " : "") << cli::terminal_safe(history_text(m)) << "\n";
    }
  }


  Outcome send(const std::string& text) {
    if (!ensure_connected()) {
      std::cout << "[not sent: type it again once the gateway is back (your input history has it: up arrow)]\n";
      return Outcome::Done;
    }
    const std::string run_id = ids::uuid_v4();
    {
      std::lock_guard lock(mu_);
      renderer_.begin_run(run_id);
      renderer_run_ = run_id;
      approvals_.clear();
    }
    json params = {{"sessionKey", session_key()}, {"message", text}, {"idempotencyKey", run_id}};
    if (!opts_.thinking.empty()) params["thinking"] = opts_.thinking;
    auto ack = client_->call("chat.send", params, flags_.timeout());
    if (!ack) {
      std::lock_guard lock(mu_);
      renderer_.begin_run("");
      std::cout << "[error] " << ack.error().message << "\n";
      return Outcome::Done;
    }
    if (!ack->contains("runId")) {  // a stop request ("/stop") answers at once, without a run
      std::lock_guard lock(mu_);
      renderer_.begin_run("");
      std::cout << (ack->value("aborted", false) ? "Stopped.\n" : "Nothing to stop.\n");
      return Outcome::Done;
    }
    const Outcome outcome = wait_for_run(run_id);
    note_if_cut(run_id, text);
    return outcome;
  }

  /// After wait_for_run: if the connection was lost, remembers the run for catch_up().
  void note_if_cut(const std::string& run_id, const std::string& text) {
    std::lock_guard lock(mu_);
    if (!lost_) return;
    cut_partial_ = renderer_.printed();  // before begin_run("") forgets it
    renderer_.begin_run("");
    cut_run_ = run_id;
    cut_text_ = text;
    std::cout << "\n[connection lost while the agent was replying; a restarted gateway answers your message again, "
                 "and the chat shows it when it reconnects (on your next line)]\n";
  }

  /// Waits for the end of run `run_id` (its events shown by the renderer), answering its exec
  /// approvals and watching Ctrl-C: one aborts the run, two quit. Returns at once when the
  /// connection is lost (lost_).
  Outcome wait_for_run(const std::string& run_id) {
    bool abort_sent = false;
    std::unique_lock lock(mu_);
    while (renderer_.running() && !lost_) {
      cv_.wait_for(lock, std::chrono::milliseconds(50));
      if (!approvals_.empty()) {
        json request = approvals_.front();
        approvals_.pop_front();
        lock.unlock();
        answer_approval(request);
        lock.lock();
        continue;
      }
      const int interrupts = InterruptCounter::count();
      if (interrupts >= 2) {
        std::cout << "\n";
        return Outcome::Quit;
      }
      if (interrupts == 1 && !abort_sent) {
        last_abort_ = std::chrono::steady_clock::now();
        abort_sent = true;
        lock.unlock();
        std::cout << "\n[aborting — Ctrl-C again to quit]\n" << std::flush;
        client_->call_async("chat.abort", {{"sessionKey", session_key()}, {"runId", run_id}});
        lock.lock();
      }
    }
    return Outcome::Done;
  }

  /// Shows an exec approval request exactly as the command will run and sends the answer:
  /// o = allow once, a = allow always (add "1h"/"30m" for a time-bounded grant, "session" to
  /// keep it to this session), anything else = deny.
  void answer_approval(const json& payload) {
    const json& req = payload.value("request", json::object());
    std::cout << "\n[approval needed] the agent wants to run:\n  command: " << cli::terminal_safe(req.value("command", ""))
              << "\n  cwd:     " << cli::terminal_safe(req.value("cwd", "")) << "\n";
    const json env = req.value("env", json::object());
    for (const auto& [k, v] : env.items()) {
      std::cout << "  env:     " << cli::terminal_safe(k + "=" + (v.is_string() ? v.get<std::string>() : v.dump())) << "\n";
    }
    for (const auto& r : req.value("risks", json::array())) std::cout << "  risk:    " << cli::terminal_safe(r.get<std::string>()) << "\n";
    for (const auto& r : req.value("preflight", json::array())) std::cout << "  check:   " << cli::terminal_safe(r.get<std::string>()) << "\n";
    std::cout << std::flush;
    char* raw = readline("allow? [o]nce, [a]lways [1h|session], [d]eny > ");
    std::string answer = raw ? raw : "";
    std::free(raw);
    std::istringstream words(answer);
    std::string first, extra;
    words >> first;
    json params = {{"id", payload.value("id", "")}, {"decision", "deny"}};
    if (first == "o" || first == "once" || first == "y" || first == "yes") params["decision"] = "allow-once";
    if (first == "a" || first == "always") params["decision"] = "allow-always";
    while (words >> extra) {
      if (extra == "session") params["scope"] = "session";
      else if (auto ms = tools::approvals::parse_duration_ms(extra)) params["ttlMs"] = *ms;
    }
    auto r = client_->call("exec.approval.resolve", params, flags_.timeout());
    if (!r) std::cout << "[error] " << r.error().message << "\n";
    else std::cout << "[" << params["decision"].get<std::string>() << "]\n";
  }

  // Terminal-only commands are handled here; the others go to the gateway like any message
  // (chat.send runs them, agent/chat_commands.h) and their answer is rendered as a reply.
  Outcome slash(const agent::CommandInvocation& cmd, const std::string& line) {
    const std::string& name = cmd.command->name;
    if (name == "help") {
      std::cout << help_text();
      return Outcome::Done;
    }
    if (name == "agent") {
      if (cmd.arg.empty()) {
        std::cout << "Usage: /agent NAME\n";
        return Outcome::Done;
      }
      // Only an agent the gateway has: else the chat would go to the default agent unnoticed.
      if (!ensure_connected()) return Outcome::Done;
      if (auto ids = unknown_agent(cmd.arg)) {
        std::cout << "No agent \"" << cli::terminal_safe(cmd.arg) << "\". Agents: " << cli::terminal_safe(*ids) << "\n";
        return Outcome::Done;
      }
      opts_.agent = store::normalize_agent_id(cmd.arg);
      opts_.session = "main";
      std::cout << "Talking to agent " << opts_.agent << " · session " << session_key() << "\n";
      return Outcome::Done;
    }
    return send(line);
  }

  /// The gateway's agent ids joined by ", " when it has no agent `id` (as normalised), else
  /// nullopt — also when agents.list does not answer (a send then says what is wrong).
  std::optional<std::string> unknown_agent(const std::string& id) {
    auto listed = client_->call("agents.list", json::object(), flags_.timeout());
    if (!listed) return std::nullopt;
    std::string ids;
    bool found = false;
    for (const auto& a : listed->value("agents", json::array())) {
      const std::string known = a.value("id", "");
      found = found || known == store::normalize_agent_id(id);
      ids += (ids.empty() ? "" : ", ") + known;
    }
    if (found) return std::nullopt;
    return ids;
  }

  /// Appends the line just added to the history file at once, so that a crash or a kill of the
  /// chat loses none of it (the file is rewritten, trimmed, on a clean exit).
  void remember_line() {
    if (!history_file_.empty()) (void)append_history(1, history_file_.c_str());
  }

  const ClientFlags& flags_;
  ChatOptions opts_;
  std::unique_ptr<cli::GatewayClient> client_;
  std::mutex mu_;
  std::condition_variable cv_;
  cli::ChatRenderer renderer_;
  std::string renderer_run_;      ///< the run this terminal waits for
  std::deque<json> approvals_;    ///< exec.approval.requested of that run, not answered yet
  bool lost_ = false;
  std::string cut_run_, cut_text_;  ///< the run the lost connection cut off, and its message
  bool cut_partial_ = false;         ///< whether part of its reply was on the screen when it was cut
  std::string history_file_;
  std::chrono::steady_clock::time_point last_abort_{};  ///< when Ctrl-C last aborted a run
};

}  // namespace

void register_chat_command(CLI::App& app, Action& action) {
  auto flags = std::make_shared<ClientFlags>();
  auto opts = std::make_shared<ChatOptions>();
  auto* chat = app.add_subcommand("chat", "Chat with an agent in the terminal");
  chat->alias("tui");
  chat->add_option("--session", opts->session, "Session key (default: main)")->check(session_key_check());
  chat->add_option("--agent", opts->agent, "Agent id (default: the default agent)");
  chat->add_option("--thinking", opts->thinking, "Thinking level: off|minimal|low|medium|high|xhigh")->check(thinking_level_check());
  add_client_flags(chat, *flags, /*json_flag=*/false);
  on_parsed(chat, action, [flags, opts] {
    if (auto problem = store::session_key_problem(opts->session)) return fail(2, "--session: " + *problem);
    // UTF-8 input editing: the user's locale, else glibc's built-in C.UTF-8 (static binary).
    // libedit encodes what it reads in LC_CTYPE's charset: under "C" it would drop non-ASCII.
    const char* locale = std::setlocale(LC_CTYPE, "");
    if (!locale || std::string_view(nl_langinfo(CODESET)) != "UTF-8") std::setlocale(LC_CTYPE, "C.UTF-8");
    rl_catch_signals = 0;         // before libedit initialises (using_history does)
    rl_getc_function = read_char;
    using_history();
    // Input history survives restarts and crashes: <state>/chat_history, private (libedit makes
    // it 0600), each line appended as it is entered, the last 1000 kept.
    const auto history_file = paths::state_dir(config::process_env()) / "chat_history";
    read_history(history_file.c_str());
    stifle_history(1000);
    const int rc = Chat(*flags, *opts, history_file.string()).run();
    const mode_t old_mask = ::umask(077);
    write_history(history_file.c_str());
    ::umask(old_mask);
    return rc;
  });
}

}  // namespace pincer::app
