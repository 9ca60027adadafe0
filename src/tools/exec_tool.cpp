#include "tools/exec_tool.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>

#include <spdlog/spdlog.h>

#include "tools/process_table.h"
#include "tools/workspace_path.h"

namespace pincer::tools {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

constexpr std::string_view kDefaultPath = "/usr/local/bin:/usr/bin:/bin";
// One wait of a foreground command (it ends earlier with the process: its timeout, a stop).
constexpr milliseconds kForegroundWait{std::chrono::hours(24)};
constexpr int64_t kMaxPollWaitMs = 30'000;

/// A descriptor closed when it goes out of scope.
class ScopedFd {
 public:
  ScopedFd() = default;
  ~ScopedFd() { reset(); }
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

std::string upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string format_duration(milliseconds d) {
  const auto ms = d.count();
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + "s";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1fs", static_cast<double>(ms) / 1000.0);
  return buf;
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

bool valid_env_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

/// The model's `env` overrides. PATH and dynamic-loader variables are refused as in OpenClaw.
Result<std::map<std::string, std::string>> env_overrides(const json& args) {
  std::map<std::string, std::string> out;
  if (!has_arg(args, "env")) return out;
  for (const auto& [name, value] : args["env"].items()) {
    const std::string up = upper(name);
    if (!valid_env_name(name)) return Error{"TOOL_ARGS_INVALID", "env: invalid variable name \"" + name + "\""};
    if (up == "PATH" || up.rfind("LD_", 0) == 0 || up.rfind("DYLD_", 0) == 0) {
      return Error{"TOOL_ARGS_INVALID", "env: overriding " + name + " is not allowed"};
    }
    if (!value.is_string()) return Error{"TOOL_ARGS_INVALID", "env: value of " + name + " must be a string"};
    out[name] = value.get<std::string>();
  }
  return out;
}

/// Seconds (possibly fractional) from `timeoutSeconds` or its alias `timeout`, as milliseconds.
Result<milliseconds> timeout_arg(const json& args, int64_t default_ms) {
  const char* key = has_arg(args, "timeoutSeconds") ? "timeoutSeconds" : has_arg(args, "timeout") ? "timeout" : nullptr;
  if (key == nullptr) return milliseconds(std::max<int64_t>(default_ms, 0));
  const double seconds = args[key].get<double>();
  if (!std::isfinite(seconds) || seconds < 0)
    return Error{"TOOL_ARGS_INVALID", std::string(key) + " must be 0 or more"};
  return milliseconds(static_cast<int64_t>(std::min(seconds, 1e9) * 1000.0));
}

std::string status_line(const ProcessStatus& st, uint64_t omitted, uint64_t total) {
  std::string line = "[" + describe_status(st);
  if (omitted > 0) {
    line += "; " + std::to_string(omitted) + " of " + std::to_string(total) + " output bytes omitted";
  }
  return line + "]";
}

json status_details(const ProcessStatus& st) {
  json d = {{"pid", st.pid},
            {"running", !st.finished},
            {"durationMs", st.runtime.count()},
            {"timedOut", st.stopped_by == StopReason::kTimeout},
            {"cancelled", st.stopped_by == StopReason::kCancelled}};
  d["exitCode"] = st.exit_code ? json(*st.exit_code) : json(nullptr);
  d["signal"] = st.signal ? json(signal_name(*st.signal)) : json(nullptr);
  return d;
}

bool succeeded(const ProcessStatus& st) {
  return st.finished && st.exit_code == 0 && st.stopped_by == StopReason::kNone;
}

// ---------------------------------------------------------------------------------------------
// exec

class ExecTool final : public Tool {
 public:
  std::string_view name() const override { return "exec"; }
  std::string_view group() const override { return "runtime"; }
  std::string_view description() const override {
    return "Run a shell command (/bin/sh -c) in the workspace. Returns combined stdout+stderr (long output "
           "keeps its beginning and end) and the exit code. stdin is empty. Use background:true (or "
           "yieldMs) for long-running commands, then the process tool to poll or kill them.";
  }
  const json& parameters() const override {
    static const json schema = {
        {"type", "object"},
        {"properties",
         {{"command", {{"type", "string"}, {"description", "Shell command."}}},
          {"workdir",
           {{"type", "string"}, {"description", "Working directory inside the workspace; default: the workspace."}}},
          {"timeoutSeconds", {{"type", "number"}, {"description", "Process lifetime in seconds; 0 disables."}}},
          {"timeout", {{"type", "number"}, {"description", "Alias of timeoutSeconds."}}},
          {"background", {{"type", "boolean"}, {"description", "Start in the background and return a sessionId now."}}},
          {"yieldMs", {{"type", "integer"}, {"description", "Move to the background after this many milliseconds."}}},
          {"env",
           {{"type", "object"},
            {"additionalProperties", {{"type", "string"}}},
            {"description", "Environment overrides (literal values)."}}}}},
        {"required", {"command"}}};
    return schema;
  }

  ToolOutput run(const json& args, ToolContext& ctx) const override {
    ScopedFd workdir;  // entered by descriptor: a directory swapped for a symlink meanwhile is not followed
    auto options = spawn_options(args, ctx, workdir);
    if (!options) return ToolOutput::failure(name(), options.error().message, options.error().code);
    auto proc = ManagedProcess::spawn(std::move(*options));
    workdir.reset();
    if (!proc) {
      spdlog::warn("exec: {}", proc.error().message);
      return ToolOutput::failure(name(), proc.error().message, proc.error().code);
    }

    const bool can_background = ctx.processes != nullptr;
    if (can_background && arg_or<bool>(args, "background", false)) return to_background(*proc, ctx);
    std::optional<std::chrono::steady_clock::time_point> yield_at;
    if (can_background && has_arg(args, "yieldMs")) {
      yield_at = std::chrono::steady_clock::now() + milliseconds(std::max<int64_t>(args["yieldMs"].get<int64_t>(), 0));
    }
    // A stopped run stops the command at once (stop() is thread-safe and does not block); the
    // wait below then ends with the process.
    auto stop_on_cancel = ctx.on_cancel([p = *proc] { p->stop(StopReason::kCancelled); });
    if (yield_at) {
      const auto left = std::chrono::duration_cast<milliseconds>(*yield_at - std::chrono::steady_clock::now());
      if (!(*proc)->wait_for(std::max(left, milliseconds(0))) && !ctx.is_cancelled()) {
        if (auto id = ctx.processes->add(*proc)) return background_output(**proc, *id);
        // The table is full: keep waiting in the foreground.
      }
    }
    while (!(*proc)->wait_for(kForegroundWait)) {
    }
    return finished_output(**proc);
  }

 private:
  static Result<SpawnOptions> spawn_options(const json& args, const ToolContext& ctx, ScopedFd& workdir) {
    SpawnOptions o;
    o.command = args["command"].get<std::string>();
    if (o.command.find_first_not_of(" \t\r\n") == std::string::npos) {
      return Error{"TOOL_ARGS_INVALID", "command must not be empty"};
    }
    auto cwd = working_directory(args, ctx, workdir);
    if (!cwd) return cwd.error();
    o.cwd = std::move(*cwd);
    o.cwd_fd = workdir.get();
    auto overrides = env_overrides(args);
    if (!overrides) return overrides.error();
    std::map<std::string, std::string> set = ctx.skill_env;  // the owner's skill values, then the model's
    for (auto& [name, value] : *overrides) set[name] = std::move(value);
    o.env = child_environment(ctx.env, set);
    auto timeout = timeout_arg(args, ctx.default_timeout_ms);
    if (!timeout) return timeout.error();
    o.timeout = *timeout;
    if (ctx.sandbox) {  // TL-5: inside bwrap, or not at all
      if (auto st = sandbox::check_backend(*ctx.sandbox); !st) return st.error();
      if (auto st = sandbox::check_binds(*ctx.sandbox); !st) return st.error();
      if (ctx.sandbox->workspace_access == sandbox::WorkspaceAccess::kNone && !arg_or<std::string>(args, "workdir", "").empty()) {
        return Error{"SANDBOX_DENIED", "workdir: the workspace is not visible in this sandbox (workspaceAccess none)"};
      }
      auto bin = sandbox::backend_binary(*ctx.sandbox);
      if (!bin) return bin.error();
      auto root = resolve_workspace_path(ctx.workspace, ".");
      if (!root) return root.error();
      o.wrapper = sandbox::bwrap_wrapper(*ctx.sandbox, *bin, root->real, o.cwd);
    }
    const size_t cap = std::max<size_t>(ctx.exec_max_output_chars > 0 ? ctx.exec_max_output_chars : ctx.max_output_chars, 1024);
    o.head_bytes = cap / 4;
    o.tail_bytes = cap - o.head_bytes;
    return o;
  }

  static Result<std::filesystem::path> working_directory(const json& args, const ToolContext& ctx, ScopedFd& dir) {
    const auto workdir = arg_or<std::string>(args, "workdir", "");
    if (!workdir.empty() && workdir.find_first_not_of(" \t") == std::string::npos) {
      return Error{"TOOL_ARGS_INVALID", "workdir must not be blank"};
    }
    auto p = resolve_workspace_path(ctx.workspace, workdir.empty() ? "." : workdir);
    if (!p) return p.error();
    std::error_code ec;
    if (!std::filesystem::is_directory(p->real, ec)) {
      return Error{"NOT_A_DIRECTORY", "workdir \"" + workdir + "\" is not a directory"};
    }
    dir.reset(open_in_workspace(*p, O_PATH | O_DIRECTORY));
    if (dir.get() < 0) {
      const int err = errno;
      if (err == ELOOP || err == EXDEV || err == ENOTDIR) {
        return Error{"PATH_OUTSIDE_WORKSPACE", "workdir \"" + workdir + "\" changed into a symbolic link"};
      }
      return Error{"SPAWN_FAILED", "cannot open workdir \"" + workdir + "\": " + std::strerror(err)};
    }
    return p->real;
  }

  ToolOutput to_background(const std::shared_ptr<ManagedProcess>& proc, ToolContext& ctx) const {
    auto id = ctx.processes->add(proc);
    if (!id) {
      proc->stop(StopReason::kKilled);
      return ToolOutput::failure(name(), id.error().message, id.error().code);
    }
    return background_output(*proc, *id);
  }

  static ToolOutput background_output(const ManagedProcess& proc, const std::string& id) {
    const auto st = proc.status();
    std::string text = "Command running in background (sessionId \"" + id + "\", pid " + std::to_string(st.pid) + ").";
    if (st.timeout.count() > 0) text += " It is stopped after " + format_duration(st.timeout) + ".";
    text += " Use the process tool with sessionId \"" + id +
            "\": action \"poll\" for its output and exit status, \"kill\" to stop it.";
    json details = status_details(st);
    details["sessionId"] = id;
    return ToolOutput::ok(std::move(text), std::move(details));
  }

  static ToolOutput finished_output(const ManagedProcess& proc) {
    const auto st = proc.status();
    const uint64_t total = proc.output_total();
    const uint64_t dropped = proc.output_dropped();
    std::string text = proc.output();
    if (text.empty()) text = "(no output)";
    if (text.back() != '\n') text += '\n';
    text += "\n" + status_line(st, dropped, total);
    json details = status_details(st);
    details["outputBytes"] = total;
    details["omittedBytes"] = dropped;
    return ToolOutput{std::move(text), std::move(details), !succeeded(st)};
  }
};

// ---------------------------------------------------------------------------------------------
// process

class ProcessTool final : public Tool {
 public:
  std::string_view name() const override { return "process"; }
  std::string_view group() const override { return "runtime"; }
  std::string_view description() const override {
    return "Manage background exec sessions: list; poll (new output since the last poll, and the exit "
           "status; timeout waits up to N ms for output); log (all retained output); kill; remove.";
  }
  const json& parameters() const override {
    static const json schema = {
        {"type", "object"},
        {"properties",
         {{"action",
           {{"type", "string"},
            {"enum", {"list", "poll", "log", "kill", "remove"}},
            {"description", "Process action."}}},
          {"sessionId", {{"type", "string"}, {"description", "Required for every action except list."}}},
          {"timeout",
           {{"type", "integer"},
            {"minimum", 0},
            {"description", "For poll: wait up to this many milliseconds (max 30000)."}}}}},
        {"required", {"action"}}};
    return schema;
  }

  ToolOutput run(const json& args, ToolContext& ctx) const override {
    const auto action = args["action"].get<std::string>();
    if (action == "list") return list(ctx);
    if (!has_arg(args, "sessionId"))
      return ToolOutput::failure(name(), "action \"" + action + "\" needs a sessionId", "TOOL_ARGS_INVALID");
    const auto id = args["sessionId"].get<std::string>();
    if (ctx.processes == nullptr)
      return ToolOutput::failure(name(), "no background process with sessionId \"" + id + "\"", "NOT_FOUND");
    if (action == "poll")
      return poll(id, std::clamp<int64_t>(arg_or<int64_t>(args, "timeout", 0), 0, kMaxPollWaitMs), ctx);
    if (action == "remove") {
      if (auto st = ctx.processes->remove(id); !st) return ToolOutput::failure(name(), st.error().message, st.error().code);
      return ToolOutput::ok("Removed background session \"" + id + "\".");
    }
    auto proc = ctx.processes->find(id);
    if (!proc) return ToolOutput::failure(name(), proc.error().message, proc.error().code);
    if (action == "log") return log(**proc);
    return kill(id, **proc);
  }

 private:
  static std::string short_command(const std::string& command) {
    constexpr size_t kMax = 80;
    std::string s = command.substr(0, kMax);
    std::replace(s.begin(), s.end(), '\n', ' ');
    return command.size() > kMax ? s + "…" : s;
  }

  static ToolOutput list(const ToolContext& ctx) {
    auto rows = ctx.processes ? ctx.processes->list() : std::vector<ProcessTable::Info>{};
    if (rows.empty()) return ToolOutput::ok("No background processes.", {{"sessions", json::array()}});
    std::string text;
    json sessions = json::array();
    for (const auto& r : rows) {
      const std::string state = r.status.finished ? describe_status(r.status) : "running";
      text += r.id + "  " + state + "  " +
              format_duration(std::chrono::duration_cast<std::chrono::seconds>(r.status.runtime)) + "  " +
              short_command(r.command) + "\n";
      json row = status_details(r.status);
      row["sessionId"] = r.id;
      row["command"] = short_command(r.command);
      sessions.push_back(std::move(row));
    }
    text.pop_back();
    return ToolOutput::ok(std::move(text), {{"sessions", std::move(sessions)}});
  }

  ToolOutput poll(const std::string& id, int64_t wait_ms, const ToolContext& ctx) const {
    auto p =
        ctx.processes->poll(id, std::max<size_t>(ctx.max_output_chars, 1024), milliseconds(wait_ms), ctx.cancelled);
    if (!p) return ToolOutput::failure(name(), p.error().message, p.error().code);
    std::string text = p->output.empty() ? "(no new output)" : p->output;
    if (text.back() != '\n') text += '\n';
    text += "\n[" + describe_status(p->status) + "]";
    if (p->more) text += "\n[more output pending: poll again]";
    json details = status_details(p->status);
    details["sessionId"] = id;
    return ToolOutput::ok(std::move(text), std::move(details));
  }

  static ToolOutput log(const ManagedProcess& proc) {
    const auto st = proc.status();
    std::string text = proc.output();
    if (text.empty()) text = "(no output)";
    if (text.back() != '\n') text += '\n';
    text += "\n[" + describe_status(st) + "]";
    return ToolOutput::ok(std::move(text), status_details(st));
  }

  ToolOutput kill(const std::string& id, ManagedProcess& proc) const {
    if (proc.status().finished) {
      return ToolOutput::ok("Session \"" + id + "\" already finished: " + describe_status(proc.status()) + ".",
                            status_details(proc.status()));
    }
    proc.stop(StopReason::kKilled);
    proc.wait_for(milliseconds(3000));
    const auto st = proc.status();
    return ToolOutput::ok("Killed session \"" + id + "\": " + describe_status(st) + ".", status_details(st));
  }
};

}  // namespace

bool is_secret_env_name(std::string_view name) {
  const std::string up = upper(name);
  if (up.rfind("PINCER_GATEWAY_", 0) == 0) return true;
  for (std::string_view marker : {"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH"}) {
    if (up.find(marker) != std::string::npos) return true;
  }
  return false;
}

bool is_state_env_name(std::string_view name) {
  const std::string up = upper(name);
  return up.rfind("PINCER_", 0) == 0 || up == "OPENCLAW_STATE_DIR" || up == "OPENCLAW_CONFIG_PATH" ||
         up == "OPENCLAW_HOME";
}

std::vector<std::string> child_environment(const std::map<std::string, std::string>& base,
                                           const std::map<std::string, std::string>& overrides) {
  std::map<std::string, std::string> env;
  for (const auto& [k, v] : base) {
    if (valid_env_name(k) && !is_secret_env_name(k) && !is_state_env_name(k)) env[k] = v;
  }
  for (const auto& [k, v] : overrides) env[k] = v;
  if (!env.count("PATH")) env["PATH"] = kDefaultPath;
  std::vector<std::string> out;
  out.reserve(env.size());
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

std::string describe_status(const ProcessStatus& st) {
  if (!st.finished) return "still running";
  switch (st.stopped_by) {
    case StopReason::kTimeout: return "timed out after " + format_duration(st.timeout) + "; process group killed";
    case StopReason::kCancelled: return "cancelled; process group killed";
    case StopReason::kKilled: return "killed on request";
    case StopReason::kNone: break;
  }
  if (st.exit_code) return "exit code " + std::to_string(*st.exit_code);
  if (st.signal) return "terminated by signal " + std::to_string(*st.signal) + " (" + signal_name(*st.signal) + ")";
  return "finished";
}

std::vector<std::unique_ptr<Tool>> make_runtime_tools() {
  std::vector<std::unique_ptr<Tool>> tools;
  tools.push_back(std::make_unique<ExecTool>());
  tools.push_back(std::make_unique<ProcessTool>());
  return tools;
}

}  // namespace pincer::tools
