#include "agent/request_frame_cache.h"

#include "agent/agent_run.h"

namespace pincer::agent {
namespace {

bool same_frame(const context::RequestFrame& f, const std::string& system_prompt, const std::vector<const tools::Tool*>& tools) {
  if (f.system_prompt != system_prompt || f.tools.size() != tools.size()) return false;
  for (std::size_t i = 0; i < tools.size(); ++i) {
    const llm::ToolDefinition& d = f.tools[i];
    if (d.name != tools[i]->name() || d.description != tools[i]->description() || d.parameters() != tools[i]->parameters()) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::shared_ptr<const context::RequestFrame> RequestFrameCache::get(const std::string& session_key,
                                                                     const std::string& system_prompt,
                                                                     const std::vector<const tools::Tool*>& tools) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->session_key != session_key) continue;
    if (!same_frame(*it->frame, system_prompt, tools)) it->frame = make_request_frame(system_prompt, tools);
    entries_.splice(entries_.begin(), entries_, it);
    return entries_.front().frame;
  }
  entries_.push_front({session_key, make_request_frame(system_prompt, tools)});
  if (entries_.size() > max_) entries_.pop_back();
  return entries_.front().frame;
}

}  // namespace pincer::agent
