// `pincer chat` (alias `tui`): the terminal chat (UI-2). Line editing and history come from
// libedit; the reply streams in as the gateway's events arrive (cli/chat_renderer.h).
// Ctrl-C during a run aborts it; a second Ctrl-C (or Ctrl-C / Ctrl-D at the prompt) quits.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <editline/readline.h>

#include <cerrno>
#include <atomic>
#include <clocale>
#include <condition_variable>
#include <iostream>
#include <memory>
#include <mutex>

#include "app/client_support.h"
#include "app/commands.h"
#include "cli/chat_renderer.h"
#include "core/ids.h"
#include "core/utf8.h"

namespace pincer::app {
namespace {

using nlohmann::json;

// libedit's character reader, replaced so that Ctrl-C at the prompt ends readline() (EOF) instead
// of being retried: the chat loop then sees the interrupt count.
int read_char(FILE* in) {
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

struct ChatOptions {
  std::string session = "main";
  std::string agent;
  std::string thinking;
};

constexpr const char* kHelp =
    "Commands:\n"
    "  /new            start a fresh session (a new session key)\n"
    "  /reset          start this session over (the transcript is archived)\n"
    "  /status         gateway, session, agent and model\n"
    "  /model          list the models\n"
    "  /think LEVEL    off|minimal|low|medium|high for the next turns\n"
    "  /abort          stop the running reply (or press Ctrl-C)\n"
    "  /agents         list the agents\n"
    "  /agent NAME     talk to another agent\n"
    "  /help           this list\n"
    "Ctrl-C aborts a run; Ctrl-C again or Ctrl-D quits.\n";

class Chat {
 public:
  Chat(const ClientFlags& flags, ChatOptions options, std::string history_file)
      : flags_(flags), opts_(std::move(options)), renderer_(std::cout), history_file_(std::move(history_file)) {}

  int run() {
    if (int rc = connect(); rc != 0) return rc;
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
      if (auto cmd = cli::parse_slash(line); !cmd.name.empty()) {
        if (cmd.name == "quit" || cmd.name == "exit") return 0;
        slash(cmd);
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
          if (renderer_.on_event(event, payload)) cv_.notify_all();
        },
        [this](int code, const std::string& reason) {
          std::lock_guard lock(mu_);
          lost_ = true;
          cv_.notify_all();
        });
    if (!client) {
      return fail(1, "cannot connect to the gateway at " + options->url + ": " + client.error().message +
                         (client.error().code == "UNREACHABLE" ? ". Is it running? Start it with: pincer gateway run" : ""));
    }
    client_ = std::move(*client);
    lost_ = false;
    return 0;
  }

  bool ensure_connected() {
    if (client_ && client_->connected()) return true;
    std::cout << "[reconnecting to " << flags_.url_shown << "]\n";
    client_.reset();
    return connect() == 0;
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
    if (!ensure_connected()) return Outcome::Done;
    const std::string run_id = ids::uuid_v4();
    {
      std::lock_guard lock(mu_);
      renderer_.begin_run(run_id);
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
    // Wait for the end of the run, watching Ctrl-C.
    bool abort_sent = false;
    std::unique_lock lock(mu_);
    while (renderer_.running() && !lost_) {
      cv_.wait_for(lock, std::chrono::milliseconds(50));
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
    if (lost_) {
      renderer_.begin_run("");
      std::cout << "\n[connection lost while the agent was replying: the reply may be incomplete]\n";
    }
    return Outcome::Done;
  }

  void print_result(const std::string& method, const Result<json>& r, const std::function<void(const json&)>& show) {
    if (!r) std::cout << "[error] " << method << ": " << r.error().message << "\n";
    else show(*r);
  }

  void slash(const cli::SlashCommand& cmd) {
    if (cmd.name == "help") {
      std::cout << kHelp;
      return;
    }
    if (!ensure_connected()) return;
    if (cmd.name == "new") {
      opts_.session = "chat-" + ids::uuid_v4().substr(0, 8);
      std::cout << "New session " << session_key() << "\n";
    } else if (cmd.name == "reset") {
      print_result("sessions.reset", client_->call("sessions.reset", {{"key", session_key()}}, flags_.timeout()),
                   [&](const json&) { std::cout << "Session " << session_key() << " reset.\n"; });
    } else if (cmd.name == "status") {
      print_result("status", client_->call("status", json::object(), flags_.timeout()), [&](const json& s) {
        std::cout << "gateway " << flags_.url_shown << " · pincer " << s.value("version", "?") << "\n"
                  << "session " << session_key() << " · thinking " << (opts_.thinking.empty() ? "default" : opts_.thinking)
                  << "\n";
      });
    } else if (cmd.name == "model" || cmd.name == "models") {
      if (!cmd.arg.empty()) {
        std::cout << "Per-session model switching is not available yet; set agents.defaults.model.primary "
                     "(pincer config set) and restart the gateway.\n";
      }
      print_result("models.list", client_->call("models.list", json::object(), flags_.timeout()), [](const json& r) {
        for (const auto& m : r["models"]) std::cout << "  " << m.value("provider", "?") << "/" << m.value("id", "?") << "\n";
      });
    } else if (cmd.name == "think") {
      static const std::vector<std::string> levels = {"off", "minimal", "low", "medium", "high"};
      if (std::find(levels.begin(), levels.end(), cmd.arg) == levels.end()) {
        std::cout << "Usage: /think off|minimal|low|medium|high\n";
      } else {
        opts_.thinking = cmd.arg;
        std::cout << "Thinking: " << cmd.arg << "\n";
      }
    } else if (cmd.name == "abort") {
      print_result("chat.abort", client_->call("chat.abort", {{"sessionKey", session_key()}}, flags_.timeout()),
                   [](const json& r) { std::cout << (r.value("aborted", false) ? "Aborted.\n" : "Nothing to abort.\n"); });
    } else if (cmd.name == "agents") {
      print_result("agents.list", client_->call("agents.list", json::object(), flags_.timeout()), [](const json& r) {
        for (const auto& a : r["agents"]) {
          std::cout << "  " << a.value("id", "?") << (a.value("id", "") == r.value("defaultId", "") ? " (default)" : "") << "\n";
        }
      });
    } else if (cmd.name == "agent") {
      if (cmd.arg.empty()) {
        std::cout << "Usage: /agent NAME\n";
        return;
      }
      opts_.agent = cmd.arg;
      opts_.session = "main";
      std::cout << "Talking to agent " << cmd.arg << " · session " << session_key() << "\n";
    } else {
      std::cout << "Unknown command /" << cmd.name << " — /help lists them.\n";
    }
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
  bool lost_ = false;
  std::string history_file_;
  std::chrono::steady_clock::time_point last_abort_{};  ///< when Ctrl-C last aborted a run
};

}  // namespace

void register_chat_command(CLI::App& app, Action& action) {
  auto flags = std::make_shared<ClientFlags>();
  auto opts = std::make_shared<ChatOptions>();
  auto* chat = app.add_subcommand("chat", "Chat with an agent in the terminal");
  chat->alias("tui");
  chat->add_option("--session", opts->session, "Session key (default: main)");
  chat->add_option("--agent", opts->agent, "Agent id (default: the default agent)");
  chat->add_option("--thinking", opts->thinking, "Thinking level")->check(CLI::IsMember({"off", "minimal", "low", "medium", "high"}));
  add_client_flags(chat, *flags, /*json_flag=*/false);
  on_parsed(chat, action, [flags, opts] {
    // UTF-8 input editing: the user's locale, else glibc's built-in C.UTF-8 (static binary).
    if (!std::setlocale(LC_CTYPE, "")) std::setlocale(LC_CTYPE, "C.UTF-8");
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
