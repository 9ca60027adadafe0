#include "interop/mcp/mcp_manager.h"

#include <algorithm>
#include <map>
#include <optional>
#include <spdlog/spdlog.h>

#include "interop/mcp/mcp_client.h"
#include "interop/mcp/mcp_config.h"
#include "interop/mcp/mcp_mapping.h"
#include "interop/mcp/mcp_tools.h"

namespace pincer::interop::mcp {

using nlohmann::json;

namespace detail_mcp_manager {

constexpr int64_t kFirstBackoffMs = 1000;
constexpr int64_t kMaxBackoffMs = 5 * 60 * 1000;

enum class State { Idle, Starting, Ready, Unavailable, Disabled };

const char* to_string(State s) {
  switch (s) {
    case State::Idle: return "idle";
    case State::Starting: return "starting";
    case State::Ready: return "ready";
    case State::Unavailable: return "unavailable";
    case State::Disabled: return "disabled";
  }
  return "idle";
}

struct Slot {
  ServerConfig config;
  State state = State::Idle;
  std::string reason;
  std::shared_ptr<Client> client;
  std::vector<ServerTool> server_tools;
  uint64_t generation = 0;
  int failures = 0;
  std::optional<EventLoop::TimerId> restart_timer;
  int64_t restart_at_ms = 0;
  std::vector<std::function<void()>> waiters;
  bool relisting = false;
};

}  // namespace detail_mcp_manager

struct ManagerImpl final : ToolCaller, RunSource, std::enable_shared_from_this<ManagerImpl> {
  using Slot = detail_mcp_manager::Slot;
  using State = detail_mcp_manager::State;

  ManagerImpl(EventLoop& loop, net::HttpClient& http, const Clock& clock, std::string state_dir)
      : loop(loop), http(http), clock(clock), state_dir(std::move(state_dir)) {}

  EventLoop& loop;
  net::HttpClient& http;
  const Clock& clock;
  std::string state_dir;
  int eager_limit = 32;
  std::map<std::string, Slot> slots;
  std::vector<std::shared_ptr<const McpTool>> tools;  // every ready server's, rebuilt on change

  void apply(const json& config) {
    Settings s = read_settings(config);
    eager_limit = s.eager_tool_limit;
    std::map<std::string, ServerConfig> wanted;
    for (auto& c : s.servers) wanted.emplace(c.name, std::move(c));
    for (auto it = slots.begin(); it != slots.end();) {
      auto w = wanted.find(it->first);
      if (w != wanted.end() && w->second == it->second.config) {
        ++it;
        continue;
      }
      stop(it->second, "removed from the configuration");
      it = slots.erase(it);
    }
    for (auto& [name, cfg] : wanted) {
      if (slots.count(name)) continue;
      Slot slot;
      slot.config = cfg;
      if (!cfg.enabled) {
        slot.state = State::Disabled;
        slot.reason = "enabled: false";
      } else if (!cfg.problem.empty()) {
        slot.state = State::Disabled;
        slot.reason = cfg.problem;
      }
      slots.emplace(name, std::move(slot));
    }
    rebuild_tools();
  }

  void stop(Slot& slot, const std::string& why) {
    ++slot.generation;
    if (slot.restart_timer) loop.cancel(*slot.restart_timer);
    slot.restart_timer.reset();
    if (slot.client) {
      auto client = std::move(slot.client);
      client->close(why);
      loop.post([client] {});  // destroyed outside any of its own callbacks
    }
    release_waiters(slot);
  }

  void release_waiters(Slot& slot) {
    auto waiters = std::move(slot.waiters);
    slot.waiters.clear();
    for (auto& w : waiters) loop.post(std::move(w));
  }

  void start(const std::string& name) {
    Slot& slot = slots.at(name);
    if (slot.state == State::Starting || slot.state == State::Ready || slot.state == State::Disabled) return;
    slot.restart_timer.reset();
    slot.state = State::Starting;  // the last failure's reason stays visible until it is ready
    const uint64_t gen = ++slot.generation;
    std::unique_ptr<Transport> transport =
        slot.config.transport == TransportKind::Stdio ? make_stdio_transport(loop, slot.config, state_dir)
                                                      : make_http_transport(loop, http, slot.config);
    slot.client = std::make_shared<Client>(loop, std::move(transport), name, slot.config.connection_timeout_ms);
    std::weak_ptr<ManagerImpl> weak = weak_from_this();
    slot.client->on_closed = [weak, name, gen](const std::string& reason) {
      if (auto self = weak.lock()) self->failed(name, gen, reason);
    };
    slot.client->on_tools_changed = [weak, name, gen] {
      if (auto self = weak.lock()) self->relist(name, gen);
    };
    spdlog::info("mcp {}: starting ({})", name, slot.config.transport == TransportKind::Stdio ? "stdio" : "streamable HTTP");
    slot.client->connect([weak, name, gen](Status st) {
      auto self = weak.lock();
      if (!self) return;
      if (!st) return self->failed(name, gen, st.error().message);
      self->relist(name, gen);
    });
  }

  void relist(const std::string& name, uint64_t gen) {
    auto it = slots.find(name);
    if (it == slots.end() || it->second.generation != gen || !it->second.client) return;
    if (it->second.relisting) return;
    it->second.relisting = true;
    std::weak_ptr<ManagerImpl> weak = weak_from_this();
    it->second.client->list_tools([weak, name, gen](Result<std::vector<ServerTool>> r) {
      auto self = weak.lock();
      if (!self) return;
      auto it = self->slots.find(name);
      if (it == self->slots.end() || it->second.generation != gen) return;
      Slot& slot = it->second;
      slot.relisting = false;
      if (!r) return self->failed(name, gen, "tools/list: " + r.error().message);
      const bool first = slot.state != State::Ready;
      slot.server_tools = std::move(*r);
      slot.state = State::Ready;
      slot.reason.clear();
      slot.failures = 0;
      spdlog::info("mcp {}: {} with {} tools (protocol {})", name, first ? "ready" : "tools changed",
                   slot.server_tools.size(), slot.client->protocol_version());
      self->rebuild_tools();
      self->release_waiters(slot);
    });
  }

  void failed(const std::string& name, uint64_t gen, const std::string& reason) {
    auto it = slots.find(name);
    if (it == slots.end() || it->second.generation != gen) return;
    Slot& slot = it->second;
    spdlog::warn("mcp {}: unavailable: {}", name, reason);
    stop(slot, reason);
    slot.state = State::Unavailable;
    slot.reason = reason;
    slot.server_tools.clear();
    rebuild_tools();
    ++slot.failures;
    int64_t delay = detail_mcp_manager::kFirstBackoffMs;
    for (int i = 1; i < slot.failures && delay < detail_mcp_manager::kMaxBackoffMs; ++i) delay *= 2;
    delay = std::min(delay, detail_mcp_manager::kMaxBackoffMs);
    slot.restart_at_ms = clock.wall_ms() + delay;
    std::weak_ptr<ManagerImpl> weak = weak_from_this();
    const uint64_t after = slot.generation;
    slot.restart_timer = loop.after(delay, [weak, name, after] {
      auto self = weak.lock();
      if (!self) return;
      auto it = self->slots.find(name);
      if (it == self->slots.end() || it->second.generation != after || it->second.state != State::Unavailable) return;
      it->second.restart_timer.reset();
      self->start(name);
    });
  }

  void rebuild_tools() {
    std::vector<std::pair<std::string, std::string>> pairs;
    std::vector<const ServerTool*> sources;
    for (const auto& [name, slot] : slots) {
      if (slot.state != State::Ready) continue;
      for (const auto& t : slot.server_tools) {
        pairs.emplace_back(name, t.name);
        sources.push_back(&t);
      }
    }
    const std::vector<std::string> names = assign_tool_names(pairs);
    std::vector<std::shared_ptr<const McpTool>> next;
    std::weak_ptr<ToolCaller> caller = std::static_pointer_cast<ToolCaller>(shared_from_this());
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      next.push_back(std::make_shared<McpTool>(loop, caller, names[i], pairs[i].first, pairs[i].second,
                                               sources[i]->description, sources[i]->input_schema));
    }
    tools = std::move(next);
  }

  // ---- ToolCaller ----
  void call(const std::string& server, const std::string& tool, const json& args, std::size_t max_chars,
            std::shared_ptr<CallHandle> handle, std::function<void(tools::ToolOutput)> done) override {
    const std::string label = agent_tool_name(server, tool);
    auto it = slots.find(server);
    if (it == slots.end()) return done(tools::ToolOutput::failure(label, "the MCP server \"" + server + "\" is no longer configured", "MCP_UNAVAILABLE"));
    Slot& slot = it->second;
    if (slot.state != State::Ready || !slot.client) {
      return done(tools::ToolOutput::failure(
          label, "the MCP server \"" + server + "\" is " + detail_mcp_manager::to_string(slot.state) +
                     (slot.reason.empty() ? "" : ": " + slot.reason), "MCP_UNAVAILABLE"));
    }
    handle->client = slot.client;
    handle->request_id = slot.client->call_tool(tool, args, slot.config.tool_timeout_ms,
                                                [done, server, tool, max_chars, label](Result<json> r) {
      if (!r) return done(tools::ToolOutput::failure(label, r.error().message, r.error().code));
      done(map_call_result(*r, server, tool, max_chars));
    });
  }

  void cancel(const CallHandle& handle) override {
    if (auto client = handle.client.lock(); client && handle.request_id != 0) client->cancel(handle.request_id, "the run was stopped");
  }

  // ---- RunSource ----
  std::vector<std::shared_ptr<const McpTool>> current_tools() override { return tools; }
  int eager_tool_limit() const override { return eager_limit; }

  void when_settled(std::function<void()> done) override {
    std::vector<Slot*> starting;
    for (auto& [name, slot] : slots) {
      if (slot.state == State::Starting) starting.push_back(&slot);
    }
    if (starting.empty()) return done();
    auto left = std::make_shared<std::size_t>(starting.size());
    auto shared_done = std::make_shared<std::function<void()>>(std::move(done));
    for (Slot* s : starting) {
      s->waiters.push_back([left, shared_done] {
        if (--*left == 0) (*shared_done)();
      });
    }
  }

  void start_idle() {
    std::vector<std::string> names;
    for (const auto& [name, slot] : slots) {
      if (slot.state == State::Idle) names.push_back(name);
    }
    for (const auto& n : names) start(n);
  }

  json status() const {
    json servers = json::array();
    const int64_t now = clock.wall_ms();
    for (const auto& [name, slot] : slots) {
      json s = {{"name", name},
                {"transport", slot.config.transport == TransportKind::Stdio ? "stdio" : "streamable-http"},
                {"state", detail_mcp_manager::to_string(slot.state)},
                {"failures", slot.failures}};
      if (!slot.reason.empty()) s["reason"] = slot.reason;
      json names = json::array();
      for (const auto& t : tools) {
        if (t->server() == name) names.push_back(std::string(t->name()));
      }
      s["tools"] = names;
      s["toolCount"] = names.size();
      if (slot.client && slot.state == State::Ready) {
        s["protocolVersion"] = slot.client->protocol_version();
        s["serverInfo"] = slot.client->server_info();
        if (const int pid = slot.client->pid(); pid > 0) s["pid"] = pid;
      }
      if (slot.restart_timer) s["restartInMs"] = std::max<int64_t>(0, slot.restart_at_ms - now);
      servers.push_back(std::move(s));
    }
    return {{"eagerToolLimit", eager_limit}, {"servers", servers}};
  }
};

Manager::Manager(EventLoop& loop, net::HttpClient& http, const Clock& clock, const json& config, std::string state_dir)
    : impl_(std::make_shared<ManagerImpl>(loop, http, clock, std::move(state_dir))) {
  impl_->apply(config);
}

Manager::~Manager() {
  for (auto& [name, slot] : impl_->slots) impl_->stop(slot, "the gateway is stopping");
}

void Manager::reconfigure(const json& config) { impl_->apply(config); }

json Manager::status() const { return impl_->status(); }

void Manager::start_all() { impl_->start_idle(); }

std::vector<std::shared_ptr<const tools::Tool>> Manager::known_tools() const {
  return {impl_->tools.begin(), impl_->tools.end()};
}

std::vector<tools::DynamicToolSource::Pending> Manager::pending_sources() const {
  std::vector<Pending> out;
  for (const auto& [name, slot] : impl_->slots) {  // a std::map: name order
    using detail_mcp_manager::State;
    if (slot.state == State::Ready || slot.state == State::Disabled) continue;
    // A server restarting after a failure (Starting, its reason kept) counts as failed.
    const bool failed = slot.state == State::Unavailable || (slot.failures > 0 && !slot.reason.empty());
    out.push_back({name, failed, slot.reason});
  }
  return out;
}

std::shared_ptr<tools::RunToolSet> Manager::open_run(std::function<bool(const tools::Tool&)> allowed) {
  if (impl_->slots.empty()) return nullptr;
  impl_->start_idle();  // lazily: the first run that could use them
  return make_run_tool_set(std::weak_ptr<RunSource>(std::static_pointer_cast<RunSource>(impl_)), std::move(allowed));
}

}  // namespace pincer::interop::mcp
