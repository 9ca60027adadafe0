#include "agent/cli_backend_invocation.h"

namespace pincer::agent {

namespace detail_cli_backend_invocation {

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size())) {
    s.replace(pos, from.size(), to);
  }
  return s;
}

std::string quote_word(const std::string& w) {
  if (!w.empty() && w.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-./=:,+@%") ==
                        std::string::npos) {
    return w;
  }
  std::string out = "'";
  for (char c : w) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

}  // namespace detail_cli_backend_invocation

CliInvocation build_cli_invocation(const CliBackendSettings& b, const CliCallInput& call) {
  using detail_cli_backend_invocation::replace_all;
  CliInvocation inv;
  const bool stored = !call.stored_session_id.empty();
  std::string session;
  switch (b.session_mode) {
    case CliSessionMode::Always: session = stored ? call.stored_session_id : call.fresh_session_id; break;
    case CliSessionMode::Existing: session = call.stored_session_id; break;
    case CliSessionMode::None: break;
  }
  inv.session_id = session;
  inv.resuming = stored && !session.empty() && !b.resume_args.empty();
  inv.output = inv.resuming && b.resume_output ? *b.resume_output : b.output;

  // Images named in the prompt when no flag passes them (or the prompt goes on stdin).
  std::string prompt = call.prompt;
  const bool images_as_args = !b.image_arg.empty() && b.image_arg != "@" && b.input != CliInput::Stdin;
  if (!call.image_paths.empty() && !images_as_args) {
    while (!prompt.empty() && (prompt.back() == ' ' || prompt.back() == '\n' || prompt.back() == '\t')) prompt.pop_back();
    std::string lines;
    for (const auto& path : call.image_paths) {
      if (!lines.empty()) lines += '\n';
      lines += (b.image_arg == "@" ? "@" : "") + path;
    }
    prompt += (prompt.empty() ? "" : "\n\n") + lines;
  }
  const bool prompt_on_stdin =
      b.input == CliInput::Stdin ||
      (b.max_prompt_arg_chars > 0 && static_cast<int64_t>(prompt.size()) > b.max_prompt_arg_chars);
  bool prompt_placed = false;
  inv.argv.push_back(b.command);
  for (const auto& a : inv.resuming ? b.resume_args : b.args) {
    std::string arg = replace_all(a, "{sessionId}", session);
    if (!prompt_on_stdin && arg.find("{prompt}") != std::string::npos) {
      arg = replace_all(arg, "{prompt}", prompt);
      prompt_placed = true;
    }
    inv.argv.push_back(std::move(arg));
  }
  if (const auto* thinking = b.thinking_args_for(call.thinking_level)) {
    inv.argv.insert(inv.argv.end(), thinking->begin(), thinking->end());
  }
  if (const auto* env = b.thinking_env_for(call.thinking_level)) inv.env = *env;
  if (!b.model_arg.empty() && !call.model_id.empty()) {
    inv.argv.push_back(b.model_arg);
    inv.argv.push_back(b.cli_model(call.model_id));
  }
  const bool send_system = !b.system_prompt_arg.empty() && !call.system_prompt.empty() &&
                           (b.system_prompt_when == CliSystemPromptWhen::Always ||
                            (b.system_prompt_when == CliSystemPromptWhen::First && !stored));
  if (send_system) {
    inv.argv.push_back(b.system_prompt_arg);
    inv.argv.push_back(call.system_prompt);
  }
  if (!session.empty() && !inv.resuming) {
    if (!b.session_args.empty()) {
      for (const auto& a : b.session_args) inv.argv.push_back(replace_all(a, "{sessionId}", session));
    } else if (!b.session_arg.empty()) {
      inv.argv.push_back(b.session_arg);
      inv.argv.push_back(session);
    }
  }
  if (prompt_on_stdin) inv.stdin_text = prompt;
  else if (!prompt_placed) inv.argv.push_back(prompt);
  if (images_as_args && !call.image_paths.empty()) {
    if (b.image_list) {
      std::string joined;
      for (const auto& path : call.image_paths) joined += (joined.empty() ? "" : ",") + path;
      inv.argv.push_back(b.image_arg);
      inv.argv.push_back(joined);
    } else {
      for (const auto& path : call.image_paths) {
        inv.argv.push_back(b.image_arg);
        inv.argv.push_back(path);
      }
    }
  }
  return inv;
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& w : argv) {
    if (!out.empty()) out += ' ';
    out += detail_cli_backend_invocation::quote_word(w);
  }
  return out;
}

}  // namespace pincer::agent
