// `pincer onboard`: first-time setup (logic in cli/onboard.h; docs/cli.md "pincer onboard").
// Interactive when stdin is a terminal (unless --non-interactive or --json); every answer can be
// given as a flag instead. Exit codes: 0 done, 1 I/O failure, 2 bad option or invalid config.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <memory>

#include "app/commands.h"
#include "cli/onboard.h"
#include "core/config.h"
#include "core/paths.h"
#include "core/utf8.h"

namespace pincer::app {
namespace {

using nlohmann::json;

struct OnboardFlags {
  cli::OnboardOptions options;
  bool non_interactive = false;
  bool json = false;
};

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

/// Asks on the terminal; re-asks (at most 5 times) while the answer is not one of `choices`.
std::string terminal_prompt(const std::string& question, const std::string& default_value,
                            const std::vector<std::string>& choices) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    std::cout << question;
    if (!choices.empty()) {
      std::string list;
      for (const auto& c : choices) list += (list.empty() ? "" : "/") + c;
      std::cout << " (" << list << ")";
    }
    if (!default_value.empty()) std::cout << " [" << default_value << "]";
    std::cout << ": " << std::flush;
    std::string line;
    if (!std::getline(std::cin, line)) {
      std::cout << "\n";
      return default_value;
    }
    line = trimmed(line);
    if (const std::string problem = utf8::describe_invalid(line); !problem.empty()) {
      std::cout << "That answer is not UTF-8 text (" << problem << "); please type it again.\n";
      continue;
    }
    if (line.empty()) return default_value;
    if (choices.empty()) return line;
    // A choice in any case ("Custom", "OLLAMA") is that choice.
    for (const auto& c : choices) {
      if (c.size() == line.size() &&
          std::equal(c.begin(), c.end(), line.begin(), [](char a, char b) {
            return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
          })) {
        return c;
      }
    }
    std::cout << "Please answer one of the choices.\n";
  }
  return default_value;
}

void print_summary(const cli::OnboardResult& r) {
  if (r.created) {
    std::cout << "Created " << r.config_file.string() << " (with a new gateway token)\n";
  } else if (r.changed.empty()) {
    std::cout << r.config_file.string() << " is already up to date\n";
  } else {
    std::cout << "Updated " << r.config_file.string() << ":";
    for (const auto& p : r.changed) std::cout << " " << p;
    std::cout << "\n";
    if (r.token_generated) std::cout << "Generated a new gateway token (gateway.auth.token)\n";
  }
  if (!r.provider.empty()) {
    std::cout << "  provider:  " << r.provider << " (" << r.api << ") at " << r.base_url;
    if (!r.api_key.empty()) std::cout << ", API key " << r.api_key;
    std::cout << "\n";
  }
  std::cout << "  model:     " << (r.model.empty() ? "(none)" : r.model) << "\n";
  std::cout << "  workspace: " << r.workspace.string();
  if (!r.workspace_created.empty()) {
    std::cout << " (created";
    for (const auto& f : r.workspace_created) std::cout << " " << f;
    std::cout << ")";
  }
  if (!r.workspace_given.empty()) {
    std::cout << "\n             (" << r.workspace_given << " is relative: resolved from the current directory "
              << r.workspace_cwd.string() << "; agents.defaults.workspace holds the absolute path)";
  }
  std::cout << "\n  gateway:   port " << r.port << "\n";
  for (const auto& w : r.warnings) std::cerr << "pincer: warning: " << w << "\n";
  std::cout << "\nNext steps:\n";
  for (std::size_t i = 0; i < r.next_steps.size(); ++i) std::cout << "  " << i + 1 << ". " << r.next_steps[i] << "\n";
}

int run_onboard(const OnboardFlags& f) {
  const auto env = config::process_env();
  const bool interactive = !f.non_interactive && !f.json && ::isatty(STDIN_FILENO) == 1;
  cli::Prompt prompt;
  if (interactive) {
    std::cout << "Pincer setup — press Enter to accept the [default].\n";
    prompt = terminal_prompt;
  }
  cli::OnboardOptions options = f.options;
  options.no_terminal = !interactive && !f.non_interactive && !f.json;
  auto result = cli::onboard(options, paths::state_dir(env), env, prompt);
  if (!result) {
    const auto& code = result.error().code;
    std::cerr << "pincer: onboard: " << result.error().message << "\n";
    return code == "INVALID_ARGUMENT" || code == "CONFIG_INVALID" ? 2 : 1;
  }
  if (f.json) {
    std::cout << result->to_json().dump(2) << "\n";
  } else {
    print_summary(*result);
  }
  return 0;
}

}  // namespace

void register_onboard_command(CLI::App& app, Action& action) {
  auto f = std::make_shared<OnboardFlags>();
  auto& o = f->options;
  auto* cmd = app.add_subcommand("onboard", "Set up pincer.json, the gateway token, a model provider and the workspace");
  cmd->add_flag("--non-interactive", f->non_interactive, "Never prompt: use the flags and defaults");
  cmd->add_option("--provider", o.provider, "openai | anthropic | ollama | custom (any OpenAI-compatible server)")
      ->transform(CLI::IsMember({"openai", "anthropic", "ollama", "custom"}, CLI::ignore_case));
  cmd->add_option("--base-url", o.base_url, "Base URL of the provider's API (default: the provider's own)");
  auto* key_env = cmd->add_option("--api-key-env", o.api_key_env,
                  "Environment variable holding the API key; stored as \"${NAME}\", never the key itself");
  cmd->add_option("--api-key", o.api_key, "The API key itself, stored in pincer.json (prefer --api-key-env)")
      ->excludes(key_env);
  cmd->add_option("--model", o.model, "Model id as the provider names it, e.g. gpt-4.1 or llama3.2");
  cmd->add_option("--workspace", o.workspace, "Workspace directory of the default agent (default $PINCER_HOME/workspace)");
  cmd->add_option("--port", o.port, "Gateway port (default 18789)")->check(CLI::Range(1, 65535));
  cmd->add_option("--ollama-url", o.ollama_url, "Where to look for a local Ollama (default http://127.0.0.1:11434)");
  cmd->add_flag("--json", f->json, "Print a JSON summary (implies --non-interactive)");
  on_parsed(cmd, action, [f] { return run_onboard(*f); });
}

}  // namespace pincer::app
