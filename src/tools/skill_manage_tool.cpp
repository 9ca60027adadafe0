#include "tools/skill_manage_tool.h"

#include <chrono>

#include "core/paths.h"
#include "skills/skill_loader.h"
#include "skills/skill_usage.h"
#include "skills/skill_write.h"
#include "store/atomic_file.h"

namespace pincer::tools {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::int64_t skill_manage_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class SkillManageTool final : public Tool {
 public:
  std::string_view name() const override { return "skill_manage"; }
  std::string_view group() const override { return "skills"; }
  std::string_view description() const override {
    return "Create, improve, view or list skills. Skills are SKILL.md instructions in the workspace's skills/ folder. "
           "After a complex or repeated task, save the procedure as a skill: action \"create\" with name "
           "(lowercase, digits, '-') and content (the whole SKILL.md: --- front matter with name and description "
           "---, then the steps). Action \"patch\" replaces old_text by new_text (or the whole file with content). "
           "New skills are scanned for unsafe content and start as candidates until they prove useful.";
  }
  const json& parameters() const override {
    static const json schema = {
        {"type", "object"},
        {"properties",
         {{"action", {{"type", "string"}, {"enum", {"create", "patch", "view", "list"}}}},
          {"name", {{"type", "string"}, {"description", "Skill name = folder name, e.g. \"release-checklist\"."}}},
          {"content", {{"type", "string"}, {"description", "The whole SKILL.md (create; patch without old_text)."}}},
          {"old_text", {{"type", "string"}, {"description", "patch: exact text to replace (must occur once)."}}},
          {"new_text", {{"type", "string"}, {"description", "patch: the replacement."}}}}},
        {"required", {"action"}}};
    return schema;
  }

  ToolOutput run(const json& args, ToolContext& ctx) const override {
    const auto action = args["action"].get<std::string>();
    const auto skill = arg_or<std::string>(args, "name", "");
    const fs::path state = paths::state_dir(config::process_env());
    if (action == "list") return list(ctx, state);
    if (skill.empty()) return ToolOutput::failure(name(), "action \"" + action + "\" needs a name", "TOOL_ARGS_INVALID");
    if (action == "view") return view(ctx, state, skill);
    Result<skills::SkillWrite> written = Error{};
    if (action == "create") {
      if (!has_arg(args, "content")) return ToolOutput::failure(name(), "create needs content", "TOOL_ARGS_INVALID");
      written = skills::create_skill(ctx.workspace, state, skill, args["content"].get<std::string>(), skill_manage_now_ms());
    } else {
      const auto old_text = arg_or<std::string>(args, "old_text", "");
      const auto new_text = old_text.empty() ? arg_or<std::string>(args, "content", "") : arg_or<std::string>(args, "new_text", "");
      if (old_text.empty() && !has_arg(args, "content")) {
        return ToolOutput::failure(name(), "patch needs old_text + new_text, or content", "TOOL_ARGS_INVALID");
      }
      written = skills::patch_skill(ctx.workspace, state, skill, old_text, new_text, skill_manage_now_ms());
    }
    if (!written) return ToolOutput::failure(name(), written.error().message, written.error().code);
    const std::string rel = "skills/" + skill + "/SKILL.md";
    return ToolOutput::ok(std::string(written->created ? "Created " : "Updated ") + rel +
                              " (status: candidate until it has been used successfully in " +
                              std::to_string(skills::trust_threshold(ctx.config ? *ctx.config : json::object())) +
                              " runs; it is listed from the next turn).",
                          {{"path", rel}, {"file", written->file.string()}, {"status", "candidate"}});
  }

 private:
  static skills::LoadOptions options(const ToolContext& ctx, const fs::path& state) {
    skills::LoadOptions o;
    o.workspace = ctx.workspace;
    o.state_dir = state;
    o.config = ctx.config;
    o.agent_id = ctx.agent_id;
    o.env = config::process_env();
    return o;
  }

  ToolOutput list(const ToolContext& ctx, const fs::path& state) const {
    auto report = skills::load_skills(options(ctx, state));
    std::vector<skills::SkillUsage> usage;
    if (auto u = skills::read_usage(state)) usage = std::move(*u);
    std::string text;
    json items = json::array();
    for (const auto& e : report.skills) {
      std::string status;
      for (const auto& u : usage) {
        if (u.file == e.file.string()) status = u.status;
      }
      text += "- " + e.manifest.name + " [" + skills::to_string(e.source) + (status.empty() ? "" : ", " + status) + "] " +
              (e.eligible ? "available" : "unavailable: " + e.reasons.front()) + "\n";
      items.push_back({{"name", e.manifest.name}, {"location", skills::to_string(e.source)}, {"status", status},
                       {"eligible", e.eligible}, {"file", e.file.string()}});
    }
    for (const auto& p : report.problems) text += "- (not loaded) " + p.describe() + "\n";
    if (text.empty()) text = "No skills yet.\n";
    return ToolOutput::ok(text, {{"skills", std::move(items)}});
  }

  ToolOutput view(const ToolContext& ctx, const fs::path& state, const std::string& skill) const {
    auto report = skills::load_skills(options(ctx, state));
    for (const auto& e : report.skills) {
      if (e.manifest.name != skill) continue;
      if (e.blocked) return ToolOutput::failure(name(), "skill \"" + skill + "\" is blocked: " + e.reasons.back(), "SKILL_BLOCKED");
      auto text = store::read_file(e.file, skills::kMaxSkillBytes * 4);
      if (!text) return ToolOutput::failure(name(), text.error().message, text.error().code);
      return ToolOutput::ok(sanitize_utf8(*text), {{"file", e.file.string()}});
    }
    return ToolOutput::failure(name(), "no skill named \"" + skill + "\"", "NOT_FOUND");
  }
};

}  // namespace

std::unique_ptr<Tool> make_skill_manage_tool() { return std::make_unique<SkillManageTool>(); }

}  // namespace pincer::tools
