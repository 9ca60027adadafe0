// pincer — command-line entry point. Thin: build the CLI, parse, run the chosen action.
// Exit codes: see app/commands.h.
#include <sodium.h>
#include <sys/stat.h>

#include <iostream>

#include "app/client_support.h"
#include "app/commands.h"
#include "core/utf8.h"

namespace {

/// The name of the option whose value is argv[i] ("--message" for `-m <bad>` shows "-m"), or
/// "argument N" for a positional one: what to name when argv[i] is not UTF-8.
std::string argument_name(int argc, char** argv, int i) {
  const std::string arg = argv[i];
  if (arg.rfind("--", 0) == 0 && arg.find('=') != std::string::npos) return arg.substr(0, arg.find('='));
  if (arg.size() > 2 && arg[0] == '-' && arg[1] != '-') return arg.substr(0, 2);  // -mVALUE
  if (i > 1 && argv[i - 1][0] == '-' && argv[i - 1][1] != '\0' && std::string(argv[i - 1]) != "--") {
    return argv[i - 1];
  }
  (void)argc;
  return "argument " + std::to_string(i);
}

/// CLI11's message for `e`, in our words where its own is terse: a value that is not a number
/// ("Could not convert: --port = abc") names the option, the value and what it takes; an option
/// before any command ("A subcommand is required" for `pincer --bogus`) says a command comes first.
std::string parse_error_message(const CLI::ParseError& e, const CLI::App& app, const CLI::App& command, char** argv) {
  const std::string what = e.what();
  constexpr std::string_view kConvert = "Could not convert: ";
  if (what.rfind(kConvert, 0) == 0) {
    if (const auto eq = what.find(" = ", kConvert.size()); eq != std::string::npos) {
      const std::string name = what.substr(kConvert.size(), eq - kConvert.size());
      std::string expected = "a valid value for it";
      if (const CLI::Option* option = command.get_option_no_throw(name)) {
        const std::string type = option->get_type_name();
        if (type.rfind("INT", 0) == 0 || type.rfind("UINT", 0) == 0) expected = "a whole number";
        if (type.rfind("FLOAT", 0) == 0) expected = "a number";
      }
      return name + ": \"" + what.substr(eq + 3) + "\" is not " + expected;
    }
  }
  // CLI11 lists the unexpected words backwards ("x --since"): name the first one as typed and,
  // for an option, the options the command does take.
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr && &command != &app) {
    const std::vector<std::string> extras = command.remaining();
    std::string path;
    for (const CLI::App* c = &command; c != nullptr && c != &app; c = c->get_parent()) path = " " + c->get_name() + path;
    if (!extras.empty() && extras.front().size() > 1 && extras.front()[0] == '-') {
      const std::string word = extras.front().substr(0, extras.front().find('='));
      std::string options;
      for (const CLI::Option* o : command.get_options()) {
        const auto& longs = o->get_lnames();
        if (longs.empty() || longs.front() == "help") continue;
        options += (options.empty() ? "--" : ", --") + longs.front();
      }
      return "unknown option \"" + word + "\" for pincer" + path +
             (options.empty() ? " (it takes no options)" : " (its options: " + options + ")");
    }
    if (!extras.empty()) return "unexpected argument \"" + extras.front() + "\" for pincer" + path;
  }
  // A missing positional argument ("VALUE is required"): which argument of which command.
  constexpr std::string_view kRequired = " is required";
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr && &command != &app && what.size() > kRequired.size() &&
      what.compare(what.size() - kRequired.size(), kRequired.size(), kRequired) == 0) {
    const std::string name = what.substr(0, what.size() - kRequired.size());
    if (const CLI::Option* option = command.get_option_no_throw(name); option != nullptr && !option->nonpositional()) {
      std::string path;
      for (const CLI::App* c = &command; c != nullptr && c != &app; c = c->get_parent()) path = " " + c->get_name() + path;
      return "missing argument " + name + " of pincer" + path;
    }
  }
  // A command whose subcommand is mistyped ("pincer cron lst"): CLI11 says only that one is required.
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr && &command != &app) {
    const auto subs = command.get_subcommands([](const CLI::App*) { return true; });
    const std::vector<std::string> extras = command.remaining();
    if (!subs.empty() && !extras.empty() && !extras.front().empty() && extras.front()[0] != '-') {
      std::string path, names;
      for (const CLI::App* c = &command; c != nullptr && c != &app; c = c->get_parent()) path = " " + c->get_name() + path;
      for (const CLI::App* s : subs) names += (names.empty() ? "" : ", ") + s->get_name();
      return "unknown command \"" + extras.front() + "\" for pincer" + path + " (its commands: " + names + ")";
    }
  }
  if (&command == &app && argv[1] != nullptr && argv[1][0] == '-') {
    return "unknown option \"" + std::string(argv[1]) + "\": a command comes first (pincer <command> [options]; see pincer --help)";
  }
  return what;
}

/// Whether a bad command line asked for JSON: `command` takes --json and "--json" is one of the
/// words (before a "--"). Then its parse error is the JSON error the command prints for its own
/// errors (app::fail under JsonErrors), so a script reading stdout gets one JSON value either way.
bool cli_json_requested(int argc, char** argv, const CLI::App& command) {
  if (command.get_option_no_throw("--json") == nullptr) return false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "--") return false;
    if (word == "--json") return true;
  }
  return false;
}

/// Whether "--json" is one of the words before a "--": a mistake found before the command line is
/// parsed (an argument that is not UTF-8, an unknown command) is then printed as the JSON error
/// every --json command prints, on stdout.
bool json_word_given(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "--") return false;
    if (word == "--json") return true;
  }
  return false;
}

/// The "Usage:" line of `command`'s help with its whole name ("Usage: pincer config set [OPTIONS]
/// PATH VALUE"), or "" for the top level.
std::string usage_line(const CLI::App& app, const CLI::App& command, const std::string& path) {
  if (&command == &app) return "";
  const std::string help = command.help();
  const auto at = help.find("Usage:");
  if (at == std::string::npos) return "";
  std::string usage = help.substr(at, help.find('\n', at) - at);
  if (const auto name = usage.find(command.get_name()); name != std::string::npos) {
    usage.replace(name, command.get_name().size(), "pincer" + path);  // the whole command, not its last word
  }
  return usage;
}

/// `word` in single quotes for a POSIX shell (a ' inside written as '\'').
std::string cli_quote_word(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

int main(int argc, char** argv) {
  if (sodium_init() < 0) {
    std::cerr << "pincer: libsodium failed to initialise\n";
    return 1;
  }
  // Everything Pincer writes (config, state, sessions, logs) is private to the user.
  ::umask(0077);
  if (argc > 0 && std::string_view(argv[0]).find('/') != std::string_view::npos) {
    const std::string self = argv[0];
    pincer::app::invoked_command() = self.find_first_of(" \t'\"\\$`") == std::string::npos ? self : cli_quote_word(self);
  }
  CLI::App app{"Pincer — a local-first personal AI agent gateway"};
  app.set_version_flag("--version", std::string("pincer ") + PINCER_VERSION);
  app.require_subcommand(1);

  pincer::app::Action action;
  pincer::app::register_gateway_commands(app, action);
  pincer::app::register_service_commands(app, action);
  pincer::app::register_config_commands(app, action);
  pincer::app::register_client_commands(app, action);
  pincer::app::register_models_auth_commands(app, action);  // models auth … (PV-2, PV-3)
  pincer::app::register_chat_command(app, action);
  pincer::app::register_setup_commands(app, action);
  pincer::app::register_pairing_commands(app, action);
  pincer::app::register_onboard_command(app, action);
  pincer::app::register_devices_commands(app, action);
  pincer::app::register_import_command(app, action);
  pincer::app::register_memory_commands(app, action);
  pincer::app::register_sandbox_commands(app, action);
  pincer::app::register_tools_commands(app, action);
  pincer::app::register_cron_commands(app, action);
  pincer::app::register_agents_commands(app, action);
  pincer::app::register_skills_commands(app, action);  // skills list|info|check|stats (SK-1..4)
  pincer::app::register_mcp_serve_command(app, action);  // mcp serve (IX-1)
  pincer::app::register_mcp_status_command(app, action);  // mcp status (IX-2)
  pincer::app::register_acp_command(app, action);        // acp (IX-3)

  // Every argument ends up in JSON (a request, the config, a report) and JSON text is UTF-8: refuse
  // other bytes here, once for every command, naming the argument, instead of failing later.
  for (int i = 1; i < argc; ++i) {
    if (const std::string problem = pincer::utf8::describe_invalid(argv[i]); !problem.empty()) {
      pincer::app::JsonErrors json_errors(json_word_given(argc, argv));  // {"ok": false, "error"} on stdout
      return pincer::app::fail(2, argument_name(argc, argv, i) + ": " + problem + " (arguments must be UTF-8 text)");
    }
  }
  // An unknown command word gets its own message (CLI11 would say "a subcommand is required").
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::string names;
    for (auto* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      known = known || sub->check_name(argv[1]);
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      pincer::app::JsonErrors json_errors(json_word_given(argc, argv));  // {"ok": false, "error"} on stdout
      return pincer::app::fail(2, "unknown command \"" + std::string(argv[1]) + "\" (commands: " + names +
                                      "; see pincer --help)");
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // What was wrong, then the usage of the command that was misused (not only the top level's),
    // with the documented exit code for bad arguments.
    CLI::App* command = &app;
    while (!command->get_subcommands().empty()) command = command->get_subcommands().front();
    std::string path;
    for (CLI::App* c = command; c != nullptr && c != &app; c = c->get_parent()) path = " " + c->get_name() + path;
    const std::string message = parse_error_message(e, app, *command, argv);
    const std::string usage = usage_line(app, *command, path);
    if (cli_json_requested(argc, argv, *command)) {
      pincer::app::JsonErrors json_errors(true);
      // A missing argument shows what the command takes, as the text form's usage line does.
      const bool missing = message.rfind("missing argument ", 0) == 0 && !usage.empty();
      // {"ok": false, "error": {"code": "INVALID_REQUEST", "message"}}
      return pincer::app::fail(2, missing ? message + " (" + usage + ")" : message);
    }
    std::cerr << "pincer: " << message << "\n";
    if (!usage.empty()) std::cerr << usage << "\n";
    std::cerr << "See pincer" << path << " --help\n";
    return 2;
  }
  return action ? action() : 0;
}
