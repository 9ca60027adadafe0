#include "agent/chat_commands.h"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "agent/agent_service.h"
#include "agent/agent_skills.h"
#include "agent/auth_profile_pin.h"
#include "agent/skill_command_input.h"
#include "agent/subagents.h"
#include "core/clock.h"
#include "memory/dreaming/dreaming_command.h"

namespace pincer::agent {
namespace {

using nlohmann::json;

// (Helpers named command_*: the unity build joins this file with others that have a trim/lower.)

std::string command_lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string command_trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

CommandReply reset(CommandContext& c) {
  auto r = c.agents.reset_session(c.session_key);
  if (r || r.error().code == "SESSION_NOT_FOUND") return {"Started a fresh session."};
  return {"⚠️ " + r.error().message, false};
}

CommandReply stop(CommandContext& c) {
  if (c.drop_queued) c.drop_queued();
  auto r = c.agents.abort(c.session_key, "", "stop");
  if (!r) return {"⚠️ " + r.error().message, false};
  return {r->empty() ? "Nothing to stop." : "Stopped."};
}

CommandReply status(CommandContext& c) {
  const json s = c.agents.session_status(c.session_key);
  std::string text = "Agent `" + s.value("agentId", "") + "` · session `" + s.value("sessionKey", "") + "`";
  if (s.contains("sessionId")) {
    text += " (" + std::to_string(s.value("messages", 0)) + " messages)";
  } else {
    text += " (no messages yet)";
  }
  const std::string model = s.value("model", "");
  text += model.empty() ? " · no model: " + s.value("modelError", "") : " · model `" + model + "`";
  if (s.contains("authProfile")) text += " · auth profile `" + s.value("authProfile", "") + "` (pinned)";
  text += " · thinking " + s.value("thinkingLevel", "off");
  if (s.contains("contextTokens")) text += " · context window " + std::to_string(s.value("contextTokens", 0)) + " tokens";
  if (s.contains("contextWarning")) text += "\n⚠️ " + s.value("contextWarning", "");
  if (s.contains("lastFailover")) {  // PV-5: the last switch of model or credential, and why
    const json& f = s["lastFailover"];
    text += "\n↪ last failover: " + f.value("from", "") + " → " + f.value("to", "") + " (" + f.value("reason", "") + ")";
  }
  return {text};
}

/// The sink of work a command queued: its terminal event becomes the context's follow_up
/// (nullptr without one: the service's own log is all there is).
RunEventSink follow_up_sink(const CommandContext& c, const std::string& what) {
  if (!c.follow_up) return nullptr;
  return [done = c.follow_up, what](const RunEvent& e) {
    switch (e.kind) {
      case RunEvent::Kind::End: return done({e.text, true});
      case RunEvent::Kind::Error: return done({"⚠️ " + what + " failed: " + e.error, false});
      case RunEvent::Kind::Aborted:
        return done({"⚠️ " + what + " was stopped before it was done" +
                         (e.stop_reason == "shutdown" ? std::string(" (the gateway is stopping)") : std::string()) + ".",
                     false});
      default: return;
    }
  };
}

CommandReply compact(CommandContext& c, const std::string& instructions) {
  auto r = c.agents.compact_session(c.session_key, instructions, follow_up_sink(c, "/compact"));
  if (!r && r.error().code == "NOTHING_TO_COMPACT") return {"Nothing to compact: this session has no messages yet."};
  if (!r && r.error().code == "SINGLE_TURN") {
    return {"Nothing to compact yet: this session has one turn since its last summary, and the latest turn is always "
            "kept as it is."};
  }
  if (!r) return {"⚠️ " + r.error().message, false};
  return {"Compacting the session" + std::string(r->queued ? " after the current reply" : "") + "…", true,
          static_cast<bool>(c.follow_up)};
}

/// `/tree` lists the branches (SS-4); `/tree ID` switches to one, or to before a message.
CommandReply tree(CommandContext& c, const std::string& arg) {
  if (!arg.empty()) {
    auto r = c.agents.switch_branch(c.session_key, arg, follow_up_sink(c, "/tree"));
    if (!r) return {"⚠️ " + r.error().message, false};
    return {"Switching branch" + std::string(r->queued ? " after the current reply" : "") + "…", true,
            static_cast<bool>(c.follow_up)};
  }
  auto view = c.agents.session_tree(c.session_key);
  if (!view) return {view.error().code == "SESSION_NOT_FOUND" ? "No messages yet: nothing to branch from." : "⚠️ " + view.error().message,
                     view.error().code == "SESSION_NOT_FOUND"};
  std::string text = "This branch (the latest last):";
  const json& turns = (*view)["turns"];
  const std::size_t shown = std::min<std::size_t>(turns.size(), 10);
  if (turns.size() > shown) text += "\n  … " + std::to_string(turns.size() - shown) + " earlier messages";
  for (std::size_t i = turns.size() - shown; i < turns.size(); ++i) {
    text += "\n  " + turns[i].value("entryId", "") + "  " + turns[i].value("text", "");
  }
  if (turns.empty()) text += "\n  (no messages)";
  const json& branches = (*view)["branches"];
  if (!branches.empty()) text += "\nOther branches:";
  for (const auto& b : branches) {
    const std::string fork = b.value("forkId", "");
    text += "\n  " + b.value("leafId", "") + "  " + std::to_string(b.value("messages", 0)) + " messages" +
            (fork.empty() ? "" : " after " + fork) + (b.value("text", "").empty() ? "" : ": " + b.value("text", ""));
  }
  text += "\n/tree ID goes on from before that message, or from the end of that branch; what the branch you "
          "leave learned is summarised for the model.";
  return {text};
}

CommandReply models(CommandContext& c, const std::string& arg) {
  const json list = c.agents.list_models();
  std::string text;
  if (!arg.empty()) {
    // AG-6: the session's model from now on; the running reply switches too while it is clean.
    auto r = arg == "default" || arg == "reset" ? c.agents.patch_session(c.session_key, json{{"model", nullptr}})
                                                : c.agents.patch_session(c.session_key, json{{"model", arg}});
    if (!r) {
      std::string why = r.error().message;
      if (why.rfind("sessions.patch: model: ", 0) == 0) why = why.substr(23);
      return {"⚠️ " + why + " (/model lists the models)", false};
    }
    const json& resolved = (*r)["resolved"];
    const std::string id = resolved["model"].is_string()
                               ? resolved.value("modelProvider", "") + "/" + resolved.value("model", "")
                               : std::string("(none)");
    if (r->value("liveSwitch", false)) return {"Model: `" + id + "` (the reply in progress switched too)."};
    const bool busy = c.agents.session_status(c.session_key).value("running", false);
    const std::string pin = split_model_profile(arg).profile;  // `/model ref@profile` (auth_profile_pin.h)
    return {"Model: `" + id + "`" + (pin.empty() ? "" : " with auth profile `" + pin + "`") +
            (busy ? " from the next message (the reply in progress keeps its model)." : ".")};
  }
  const std::string current = c.agents.session_status(c.session_key).value("model", "");
  text += "Models:";
  for (const auto& m : list.value("models", json::array())) {
    const std::string id = m.value("provider", "?") + "/" + m.value("id", "?");
    text += "\n  " + id + (id == current ? " (this session)" : "");
  }
  if (list.value("models", json::array()).empty()) text += " none configured (pincer onboard adds a provider)";
  return {text};
}

CommandReply think(CommandContext& c, const std::string& arg) {
  if (arg.empty()) {
    return {"Thinking: " + c.agents.session_status(c.session_key).value("thinkingLevel", "off") +
            " (set it with /think off|minimal|low|medium|high|xhigh)"};
  }
  if (auto st = c.agents.set_session_thinking(c.session_key, command_lower(arg)); !st) return {"⚠️ " + st.error().message, false};
  // A model not marked `reasoning: true` gets no thinking setting at all (llm/*: the request
  // omits it): say so rather than promise a level that changes nothing.
  const json s = c.agents.session_status(c.session_key);
  if (command_lower(arg) != "off" && s.contains("reasoning") && !s.value("reasoning", false)) {
    return {"Thinking: " + command_lower(arg) + " — but model `" + s.value("model", "") +
            "` is not marked `reasoning: true` in models.providers, so nothing is sent to it; the level applies when "
            "the session uses a reasoning model"};
  }
  return {"Thinking: " + command_lower(arg)};
}

CommandReply agents(CommandContext& c) {
  const json list = c.agents.list_agents();
  std::string text = "Agents:";
  for (const auto& a : list.value("agents", json::array())) {
    text += "\n  " + a.value("id", "?") + (a.value("id", "") == list.value("defaultId", "") ? " (default)" : "");
  }
  return {text};
}

}  // namespace

bool is_blank_message(std::string_view text) { return text.find_first_not_of(" \t\r\n\v\f") == std::string_view::npos; }

const std::vector<ChatCommand>& chat_commands() {
  static const std::vector<ChatCommand> table = {
      {"new", {}, "", "start a fresh session (the transcript is archived)"},
      {"reset", {}, "", "the same as /new"},
      {"stop", {"abort"}, "", "stop the running reply (and drop queued messages)"},
      {"status", {}, "", "agent, session, message count, model and thinking level"},
      {"model", {"models"}, "[NAME[@PROFILE]]",
       "list the models, or switch this session to NAME (`default` = the agent's); @PROFILE pins an auth profile"},
      {"think", {}, "LEVEL", "off|minimal|low|medium|high|xhigh for this session's next replies"},
      {"agents", {}, "", "list the agents"},
      {"compact", {}, "[INSTRUCTIONS]", "summarise the older part of this session now (what to keep: INSTRUCTIONS)"},
      {"tree", {}, "[ID]", "list this session's branches, or go on from message or branch ID"},
      {"skills", {}, "", "the skills this agent can use"},
      {"subagents", {}, "[list|kill ID|steer ID TEXT]", "this session's subagents: list, stop or steer them"},
      {"dreaming", {}, "[status|on|off]", "memory consolidation: its status, or turn it on or off (owner only)"},
      {"agent", {}, "NAME", "talk to another agent", /*terminal_only=*/true},
      {"quit", {"exit"}, "", "leave the chat (or press Ctrl-D)", /*terminal_only=*/true},
      {"help", {}, "", "this list"},
  };
  return table;
}

std::string normalize_command_text(std::string_view text) {
  std::string line = command_trim(text);
  if (line.size() < 2 || line[0] != '/') return line;
  // OpenClaw's "/cmd: args" spelling: a colon right after the command word (spaces allowed
  // before it, none inside the word) is read as the space after it.
  std::size_t word_end = 1;
  while (word_end < line.size() && line[word_end] != ':' && !std::isspace(static_cast<unsigned char>(line[word_end]))) {
    ++word_end;
  }
  std::size_t colon = word_end;
  while (colon < line.size() && (line[colon] == ' ' || line[colon] == '\t')) ++colon;
  if (word_end == 1 || colon >= line.size() || line[colon] != ':') return line;
  const std::string rest = command_trim(std::string_view(line).substr(colon + 1));
  return line.substr(0, word_end) + (rest.empty() ? "" : " " + rest);
}

std::optional<CommandInvocation> parse_chat_command(std::string_view text, bool addressed_to_us) {
  const std::string line = normalize_command_text(text);
  if (line.size() < 2 || line[0] != '/') return std::nullopt;
  std::size_t end = line.find_first_of(" \t\n@");
  std::string word = command_lower(line.substr(1, end == std::string::npos ? std::string::npos : end - 1));
  if (end != std::string::npos && line[end] == '@') {
    // "/new@OtherBot" is addressed to another bot (the channel saw no mention of ours).
    if (!addressed_to_us) return std::nullopt;
    end = line.find_first_of(" \t\n", end);
  }
  for (const auto& c : chat_commands()) {
    if (c.name != word && std::find(c.aliases.begin(), c.aliases.end(), word) == c.aliases.end()) continue;
    return CommandInvocation{&c, end == std::string::npos ? "" : command_trim(std::string_view(line).substr(end)), ""};
  }
  // "/bogus": a command word that names no command gets one answer on every surface. A path
  // ("/usr/bin/ls …") or other text with "/" goes to the model.
  const bool command_word = !word.empty() && word.size() <= 32 && std::all_of(word.begin(), word.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '-';
  });
  if (command_word) {
    return CommandInvocation{&unknown_command(), word, end == std::string::npos ? "" : command_trim(std::string_view(line).substr(end))};
  }
  return std::nullopt;
}

const ChatCommand& unknown_command() {
  static const ChatCommand unknown{"", {}, "", "", false};
  return unknown;
}

std::string chat_commands_help(bool terminal) {
  std::string out = "Commands:";
  for (const auto& c : chat_commands()) {
    if (c.terminal_only && !terminal) continue;
    std::string usage = "/" + c.name + (c.args.empty() ? "" : " " + c.args);
    for (const auto& a : c.aliases) usage += ", /" + a;
    out += "\n  " + usage + std::string(usage.size() < 18 ? 18 - usage.size() : 1, ' ') + c.help;
  }
  return out;
}

CommandReply run_chat_command(const CommandInvocation& inv, CommandContext& context) {
  if (inv.command == &unknown_command()) {
    // /dock_<channel> is the inbound pipeline's (channels/inbound_dock.cpp, RT-5): only a chat
    // channel's message reaches it, so here (web chat, pincer agent/chat) it is unknown — say why.
    if (inv.arg.rfind("dock_", 0) == 0 || inv.arg.rfind("dock-", 0) == 0) {
      return {"/" + inv.arg + " works in a chat channel (Telegram, Discord …): it moves that conversation's replies to "
              "your linked account on another channel. This surface has no channel address to move.",
              false};
    }
    // A skill typed by a name with spaces, or one this agent has but cannot run: say what to type,
    // or why and where (skills::skill_command_miss).
    if (auto hint = skill_command_hint(inv.arg, inv.rest, context.agents.canonical_key(context.session_key))) {
      return {*hint, false};
    }
    // "/skill NAME" that names no skill command of this agent (agent/skill_command_input.h).
    if (inv.arg == "skill") {
      return {"No such skill command. Usage: /skill NAME [input] — /skills lists the skills you can run.", false};
    }
    return {"Unknown command /" + inv.arg + " — /help lists them.", false};
  }
  const std::string& name = inv.command->name;
  if (inv.command->terminal_only) return {"/" + name + " works only in the terminal chat (pincer chat).", false};
  try {
    if (name == "new" || name == "reset") return reset(context);
    if (name == "stop") return stop(context);
    if (name == "status") return status(context);
    if (name == "model") return models(context, inv.arg);
    if (name == "think") return think(context, inv.arg);
    if (name == "agents") return agents(context);
    if (name == "compact") return compact(context, inv.arg);
    if (name == "tree") return tree(context, inv.arg);
    if (name == "subagents") {  // MA-3 (agent/subagents.h)
      auto [text, ok] = context.agents.subagents().chat_command(context.agents.canonical_key(context.session_key), inv.arg);
      return {text, ok};
    }
    if (name == "skills") {  // SK-1 (agent/agent_skills.h)
      auto view = load_skills_view_from_disk(skills_agent_of(context.agents.canonical_key(context.session_key)));
      return view ? CommandReply{skills_chat_text(*view)} : CommandReply{"⚠️ " + view.error().message, false};
    }
    if (name == "dreaming") {  // DR-1 (memory/dreaming/dreaming_command.h)
      const auto r = memory::dreaming::dreaming_command(context.agents.effective_config(), inv.arg,
                                                        {context.may_change_config, context.patch_config},
                                                        SystemClock::instance().wall_ms());
      return {r.text, r.ok};
    }
    if (name == "help") return {chat_commands_help(false)};
  } catch (const std::exception& e) {
    return {"⚠️ /" + name + " failed: " + e.what(), false};
  }
  return {"/" + name + " has no handler", false};
}

}  // namespace pincer::agent
