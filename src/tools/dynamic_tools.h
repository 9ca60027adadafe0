// Tools that come and go while the gateway runs (the MCP client's servers, docs/interop.md): the
// narrow interface between their owner (interop/mcp) and the agent runtime. The registry
// (registry.h) holds the built-in tools, fixed at start-up; a DynamicToolSource adds, per run, a
// RunToolSet whose tools may change between the run's model calls (a server became ready, the
// model loaded tools through `tool_search`, tool_search.h).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tools/tool.h"

namespace pincer::tools {

/// The dynamic tools of one run. Owns (or shares) the Tool objects it hands out: a pointer from
/// offered() stays valid while the set lives (the run holds it).
class RunToolSet {
 public:
  virtual ~RunToolSet() = default;
  /// Loop thread, once, before the run's first model call: `ready` is called on the loop when the
  /// tools the run could use are known (servers that were starting have answered or given up;
  /// bounded by their connection timeouts), possibly inline.
  virtual void prepare(std::function<void()> ready) = 0;
  /// Loop thread: the tools to offer in the next model call, after the run's fixed tools, already
  /// filtered by the run's tool policy.
  virtual std::vector<const Tool*> offered() = 0;
  /// Loop thread: tools the run may call that are not offered with their schemas but through
  /// `tool_search`'s catalogue (tool_search.h), already filtered by the run's tool policy.
  virtual std::vector<const Tool*> catalogued() { return {}; }
};

class DynamicToolSource {
 public:
  virtual ~DynamicToolSource() = default;
  /// Loop thread, when a run starts (lazily starts what the run could use). `allowed` is the
  /// run's tool policy for one tool (thread-safe, pure). nullptr: nothing for this run.
  virtual std::shared_ptr<RunToolSet> open_run(std::function<bool(const Tool&)> allowed) = 0;
  /// Loop thread: the tools known now (of the servers that are ready), starting nothing — what
  /// tools.effective lists. Unfiltered: the caller applies the policy.
  virtual std::vector<std::shared_ptr<const Tool>> known_tools() const { return {}; }
  /// A configured, enabled source whose tools known_tools() does not have yet.
  struct Pending {
    std::string name;
    bool failed = false;  ///< it tried and failed (`reason` says why); else not started or starting
    std::string reason;
  };
  /// Loop thread: the sources (MCP servers) configured and enabled but not ready, in name order:
  /// tools.effective's notice that their tools appear after a run connects them.
  virtual std::vector<Pending> pending_sources() const { return {}; }
};

}  // namespace pincer::tools
