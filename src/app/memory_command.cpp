// pincer memory status|index|search|reset|promote|promote-explain|rem-backfill (SPEC MM-4, DR-1,
// DR-5; docs/memory.md). Works on the files and the index directly (no gateway needed); SQLite's
// locking makes it safe beside a running gateway.
#include <spdlog/spdlog.h>

#include <iostream>
#include <string>

#include "agent/agents_config.h"
#include "app/client_support.h"
#include "app/commands.h"
#include "app/memory_dreaming_command.h"
#include "cli/chat_renderer.h"
#include "cli/config_file.h"
#include "cli/invoked_command.h"
#include "core/config.h"
#include "core/log.h"
#include "core/paths.h"
#include "memory/capture.h"
#include "memory/memory_service.h"

namespace pincer::app {
namespace {

using nlohmann::json;

/// A file name or session key for one line of text output: terminal controls stripped, and line
/// breaks and tabs shown as \n, \r, \t, so a name cannot start a fake line of its own.
std::string one_line(const std::string& name) {
  std::string out;
  for (char c : cli::terminal_safe(memory::strip_terminal_controls(name))) {
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else out += c;
  }
  return out;
}

struct MemoryFlags {
  std::string agent;
  bool json = false;
  bool deep = false;
  bool force = false;
  std::string query;
  int max_results = 0;
  double min_score = -1;
  std::string corpus;
  bool apply = false;  // promote --apply
  int limit = 0;       // promote --limit
  std::string path;    // rem-backfill --path
  bool stage_short_term = false, rollback = false, rollback_short_term = false;
};

struct Loaded {
  std::filesystem::path state;
  json config;
  agent::AgentsConfig agents;
};

std::optional<Loaded> load_all() {
  // Log lines (rebuilds, re-indexing) go to stderr in the format of every other command
  // (core/log.h): stdout is the command's output (--json).
  (void)log::init(log::Options{});
  const auto env = config::process_env();
  Loaded l;
  l.state = paths::state_dir(env);
  // Nothing to search in a state dir that does not exist, and no reason to create one (a
  // mistyped PINCER_HOME would quietly get a new index).
  if (std::error_code ec; !std::filesystem::is_directory(l.state, ec)) {
    std::cerr << "pincer: state directory " << l.state.string()
              << " does not exist (PINCER_HOME, default ~/.pincer; `" + cli::invoked_command() + " onboard` creates it)\n";
    return std::nullopt;
  }
  auto loaded = cli::load_for_local_command(paths::config_file(l.state), env);  // an unrelated unset secret only warns
  if (!loaded) {
    std::cerr << "pincer: " << loaded.error().message << "\n";
    return std::nullopt;
  }
  l.config = loaded->effective;
  auto agents = agent::resolve_agents(l.config, l.state, env);
  if (!agents) {
    std::cerr << "pincer: " << agents.error().message << "\n";
    return std::nullopt;
  }
  l.agents = std::move(*agents);
  return l;
}

/// The agents a command applies to: --agent, else every agent (all = true) or the default one.
std::optional<std::vector<const agent::AgentSettings*>> pick(const Loaded& l, const std::string& id, bool all) {
  std::vector<const agent::AgentSettings*> out;
  if (!id.empty()) {
    const auto* a = l.agents.find(id);
    if (!a) {
      std::cerr << "pincer: unknown agent \"" << id << "\" (see agents.list in pincer.json)\n";
      return std::nullopt;
    }
    out.push_back(a);
  } else if (all) {
    for (const auto& a : l.agents.agents) out.push_back(&a);
  } else {
    out.push_back(&l.agents.default_agent());
  }
  return out;
}

int run_status(const MemoryFlags& f) {
  auto l = load_all();
  if (!l) return 2;
  auto agents = pick(*l, f.agent, true);
  if (!agents) return 2;
  memory::MemoryService svc(l->config, l->state, memory::memory_env_from_process(), false);
  json rows = json::array();
  for (const auto* a : *agents) {
    if (!svc.enabled(a->id, a->workspace)) {
      rows.push_back({{"agentId", a->id}, {"enabled", false}});
      continue;
    }
    auto idx = svc.index(a->id, a->workspace);
    if (!idx) {
      rows.push_back({{"agentId", a->id}, {"enabled", true}, {"error", idx.error().message}});
      continue;
    }
    if (auto r = (*idx)->sync(false); !r) {
      rows.push_back({{"agentId", a->id}, {"enabled", true}, {"error", r.error().message}});
      continue;
    }
    json st = (*idx)->status(f.deep);
    st["enabled"] = true;
    rows.push_back(std::move(st));
  }
  if (f.deep) {  // Dreaming: next sweep or why none, the recall store (DR-1)
    for (std::size_t i = 0; i < rows.size() && i < agents->size(); ++i) {
      rows[i]["dreaming"] = dreaming_status_json(l->config, (*agents)[i]->workspace);
    }
  }
  if (f.json) {
    std::cout << rows.dump(2, ' ', false, json::error_handler_t::replace) << "\n";  // file names and text may not be UTF-8
    return 0;
  }
  for (const auto& r : rows) {
    // With --deep the agent's lines follow its name; without, its one-line summary does.
    std::cout << "Agent " << r.value("agentId", "") << (r.contains("dreaming") ? ":" : ": ");
    if (r.contains("dreaming")) std::cout << "\n" << dreaming_status_text(r["dreaming"]) << "  ";
    if (!r.value("enabled", true)) {
      std::cout << "memory disabled\n";
      continue;
    }
    if (r.contains("error")) {
      std::cout << "error: " << r["error"].get<std::string>() << "\n";
      continue;
    }
    std::cout << r.value("files", 0) << " files, " << r.value("chunks", 0) << " chunks; provider "
              << r.value("provider", "none");
    if (!r.value("model", "").empty()) std::cout << " (" << r.value("model", "") << ")";
    if (r.contains("vectors")) std::cout << ", " << r.value("vectors", 0) << " vectors of " << r.value("dims", 0) << " dims";
    std::cout << "\n  index: " << r.value("dbPath", "") << "\n";
    if (r.contains("embeddingProbe")) {
      const auto& p = r["embeddingProbe"];
      std::cout << "  embeddings: " << (p.value("ok", false) ? "ok" : "failing: " + p.value("error", "")) << "\n";
    }
    if (r.contains("fileList")) {
      for (const auto& file : r["fileList"]) {
        std::cout << "  " << one_line(file.value("path", "")) << " (" << file.value("chunks", 0) << " chunks)\n";
      }
    }
  }
  return 0;
}

int run_index(const MemoryFlags& f) {
  auto l = load_all();
  if (!l) return 2;
  auto agents = pick(*l, f.agent, true);
  if (!agents) return 2;
  memory::MemoryService svc(l->config, l->state, memory::memory_env_from_process(), false);
  int rc = 0;
  for (const auto* a : *agents) {
    if (!svc.enabled(a->id, a->workspace)) continue;
    auto idx = svc.index(a->id, a->workspace);
    if (!idx) {
      std::cerr << "pincer: agent " << a->id << ": " << idx.error().message << "\n";
      rc = 1;
      continue;
    }
    auto r = (*idx)->sync(f.force);
    if (!r) {
      std::cerr << "pincer: agent " << a->id << ": " << r.error().message << "\n";
      rc = 1;
      continue;
    }
    auto e = (*idx)->embed_pending();
    std::cout << "Agent " << a->id << ": " << r->files << " files, " << r->changed << " re-indexed, " << r->removed
              << " removed, " << r->chunks << " chunks";
    if (e && *e > 0) std::cout << ", " << *e << " embedded";
    std::cout << "\n";
    if (!e) {
      std::cerr << "pincer: agent " << a->id << ": embeddings: " << e.error().message
                << " (keyword search still works)\n";
      rc = 1;
    }
  }
  return rc;
}

int run_search(const MemoryFlags& f) {
  if (f.query.find_first_not_of(" \t\r\n") == std::string::npos) {
    std::cerr << "pincer: memory search: the query is empty (give the words to look for)\n";
    return 2;
  }
  auto l = load_all();
  if (!l) return 2;
  auto agents = pick(*l, f.agent, false);
  if (!agents) return 2;
  const auto* a = agents->front();
  memory::MemoryService svc(l->config, l->state, memory::memory_env_from_process(), false);
  json args = {{"query", f.query}};
  if (f.max_results > 0) args["maxResults"] = f.max_results;
  if (f.min_score >= 0) args["minScore"] = f.min_score;
  if (!f.corpus.empty()) args["corpus"] = f.corpus;
  json r = svc.search(a->id, a->workspace, args);
  if (f.json) {
    std::cout << r.dump(2, ' ', false, json::error_handler_t::replace) << "\n";  // file names and text may not be UTF-8
    return r.value("disabled", false) ? 1 : 0;
  }
  if (r.value("disabled", false)) {
    // Said to the user (the tool's `action`, in --json, is written for the model).
    const auto settings = memory::resolve_memory_settings(l->config, a->id, a->workspace, l->state, memory::memory_env_from_process());
    if (!settings.enabled) {
      std::cerr << "pincer: memory search: memory is off for agent " << a->id << ": " << memory::disabled_reason(settings)
                << " in pincer.json (docs/memory.md)\n";
    } else if (f.corpus == "sessions" && !settings.sessions_source) {
      std::cerr << "pincer: memory search: the sessions corpus is off: set memory.search.sources to include \"sessions\" "
                   "and memory.search.experimental.sessionMemory to true (docs/memory.md), or search --corpus memory\n";
    } else {
      std::cerr << "pincer: " << cli::terminal_safe(r.value("warning", "memory unavailable")) << "\n";
    }
    return 1;
  }
  if (r.value("partial", false)) std::cerr << "pincer: " << cli::terminal_safe(r.value("warning", "")) << "\n";
  if (r["results"].empty()) std::cout << "No matches.\n";
  // Notes hold what anyone wrote (a channel's sender, a model): never raw control codes to the terminal.
  for (const auto& h : r["results"]) {
    std::cout << one_line(h.value("path", "")) << ":" << h.value("startLine", 0) << "-"
              << h.value("endLine", 0) << "  score " << h.value("score", 0.0) << "\n";
    if (h.value("source", "") == "sessions") {
      const std::string who = h.value("sessionKey", "").empty() ? h.value("sessionId", "") : h.value("sessionKey", "");
      std::cout << "  session " << one_line(who) << ", turn " << h.value("turn", 0)
                << "\n";
    }
    std::string snip = cli::terminal_safe(memory::strip_terminal_controls(h.value("snippet", "")));
    std::size_t pos = 0;
    while (pos < snip.size()) {
      auto nl = snip.find('\n', pos);
      std::cout << "  " << snip.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos) << "\n";
      if (nl == std::string::npos) break;
      pos = nl + 1;
    }
  }
  return 0;
}

/// The agents of a promote command (--agent, else the default one) as id and workspace.
std::optional<std::pair<Loaded, std::vector<DreamingAgent>>> dreaming_agents(const MemoryFlags& f) {
  auto l = load_all();
  if (!l) return std::nullopt;
  auto agents = pick(*l, f.agent, false);
  if (!agents) return std::nullopt;
  std::vector<DreamingAgent> out;
  for (const auto* a : *agents) out.emplace_back(a->id, a->workspace);
  return std::make_pair(std::move(*l), std::move(out));
}

int run_reset(const MemoryFlags& f) {
  auto l = load_all();
  if (!l) return 2;
  auto agents = pick(*l, f.agent, true);
  if (!agents) return 2;
  memory::MemoryService svc(l->config, l->state, memory::memory_env_from_process(), false);
  for (const auto* a : *agents) {
    if (auto st = svc.reset(a->id, a->workspace); !st) {
      std::cerr << "pincer: " << st.error().message << "\n";
      return 1;
    }
    std::cout << "Agent " << a->id << ": memory index deleted (the Markdown files are kept; it is rebuilt on next use)\n";
  }
  return 0;
}

}  // namespace

void register_memory_commands(CLI::App& app, Action& action) {
  auto flags = std::make_shared<MemoryFlags>();
  CLI::App* mem = app.add_subcommand("memory", "Memory index: status, index, search, reset");
  mem->require_subcommand(1);
  CLI::App* status = mem->add_subcommand("status", "Files, chunks, vectors and provider of each agent's memory index");
  status->add_flag("--deep", flags->deep, "Also list the files, probe the embedding provider and show dreaming (next sweep)");
  status->add_flag("--json", flags->json, "Print JSON");
  status->add_option("--agent", flags->agent, "Only this agent");
  on_parsed(status, action, [flags] { return run_status(*flags); });
  CLI::App* index = mem->add_subcommand("index", "Bring the index up to date with the files (and embed)");
  index->add_flag("--force", flags->force, "Rebuild from scratch");
  index->add_option("--agent", flags->agent, "Only this agent");
  on_parsed(index, action, [flags] { return run_index(*flags); });
  CLI::App* search = mem->add_subcommand("search", "Search an agent's memory (the default agent unless --agent)");
  search->add_option("query", flags->query, "What to look for")->required();
  search->add_option("--agent", flags->agent, "Agent id");
  search->add_option("--max-results", flags->max_results, "At most this many hits")
      ->check(whole_number_check(1, 100, "", "N"));
  search->add_option("--corpus", flags->corpus, "memory | sessions | all (default: memory.search.sources)")
      ->check(CLI::IsMember({"memory", "sessions", "all"}));
  search->add_option("--min-score", flags->min_score, "Lowest score, 0..1")->check(CLI::Validator(
                    [](std::string& v) -> std::string {
                      std::size_t used = 0;
                      double x = -1;
                      try {
                        x = std::stod(v, &used);
                      } catch (const std::exception&) {
                        used = 0;
                      }
                      if (used == 0 || used != v.size()) return "\"" + v + "\" is not a number (a score from 0 to 1)";
                      return x >= 0 && x <= 1 ? "" : "\"" + v + "\" is not between 0 and 1";
                    },
                    "SCORE"));
  search->add_flag("--json", flags->json, "Print the memory_search result object");
  on_parsed(search, action, [flags] { return run_search(*flags); });
  CLI::App* promote = mem->add_subcommand("promote", "Dreaming: the short-term recalls that pass every promotion gate "
                                                     "(a preview; --apply appends them to MEMORY.md)");
  promote->add_flag("--apply", flags->apply, "Promote them now (re-reads each daily note first)");
  promote->add_option("--limit", flags->limit, "At most this many")->check(CLI::Range(1, 1000));
  promote->add_option("--agent", flags->agent, "Agent id (default: the default agent)");
  promote->add_flag("--json", flags->json, "Print JSON");
  on_parsed(promote, action, [flags] {
    auto a = dreaming_agents(*flags);
    return a ? run_memory_promote(a->first.config, a->second, flags->apply, flags->limit, flags->json) : 2;
  });
  CLI::App* explain = mem->add_subcommand("promote-explain", "Dreaming: why the recalls matching TEXT would or would "
                                                             "not be promoted (each gate with its value and threshold)");
  explain->add_option("text", flags->query, "Words of the snippet, its path or its key")->required();
  explain->add_option("--agent", flags->agent, "Agent id (default: the default agent)");
  explain->add_flag("--json", flags->json, "Print JSON");
  on_parsed(explain, action, [flags] {
    auto a = dreaming_agents(*flags);
    return a ? run_memory_promote_explain(a->first.config, a->second, flags->query, flags->json) : 2;
  });
  CLI::App* backfill = mem->add_subcommand("rem-backfill", "Dreaming: replay historical daily notes into the DREAMS.md "
                                                           "diary (reversible; --stage-short-term also stages them as recalls)");
  backfill->add_option("--path", flags->path, "A daily note (YYYY-MM-DD.md) or a folder of them");
  backfill->add_flag("--stage-short-term", flags->stage_short_term, "Also stage their lines as grounded recalls");
  backfill->add_flag("--rollback", flags->rollback, "Remove the backfill diary blocks");
  backfill->add_flag("--rollback-short-term", flags->rollback_short_term, "Remove the grounded recalls staged by a backfill");
  backfill->add_option("--agent", flags->agent, "Agent id (default: the default agent)");
  backfill->add_flag("--json", flags->json, "Print JSON");
  on_parsed(backfill, action, [flags] {
    auto a = dreaming_agents(*flags);
    return a ? run_memory_rem_backfill(a->first.config, a->second, flags->path, flags->stage_short_term, flags->rollback,
                                       flags->rollback_short_term, flags->json)
             : 2;
  });
  CLI::App* reset = mem->add_subcommand("reset", "Delete the index (the Markdown files stay; rebuilt on next use)");
  reset->add_option("--agent", flags->agent, "Only this agent");
  on_parsed(reset, action, [flags] { return run_reset(*flags); });
}

}  // namespace pincer::app
