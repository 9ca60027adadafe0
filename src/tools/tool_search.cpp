#include "tools/tool_search.h"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <set>

namespace pincer::tools {

namespace detail_tool_search {

using nlohmann::json;

std::string lowercase(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> words_of(const std::string& query) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : query) {
    if (c == ' ' || c == ',' || c == '\t' || c == '\n' || c == ';') {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

std::string cut_utf8(std::string_view s, std::size_t n) {
  if (s.size() <= n) return std::string(s);
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return std::string(s.substr(0, n));
}

/// `tool_search`: the catalogue in its description; answers with schemas and loads what it found.
class ToolSearchTool final : public Tool {
 public:
  using Load = std::function<std::vector<const Tool*>(const std::string& query, std::size_t limit)>;

  ToolSearchTool(const std::string& catalogue, Load load) : load_(std::move(load)) {
    description_ =
        "Loads tools of this catalogue by exact name (or words for the task): the answer has their parameters, "
        "and they are callable from your next step.\n\nCatalogue:\n" +
        catalogue;
  }

  std::string_view name() const override { return "tool_search"; }
  std::string_view description() const override { return description_; }
  const json& parameters() const override {
    // The same for every instance (one is made per run): built once.
    static const json kSchema = {
        {"type", "object"},
        {"properties",
         {{"query", {{"type", "string"}, {"description", "Catalogue names (space or comma separated) or task words."}}},
          {"limit", {{"type", "integer"}, {"description", "Most tools to load (max 8)."}}}}},
        {"required", json::array({"query"})}};
    return kSchema;
  }
  std::string_view group() const override { return "tool_search"; }

  ToolOutput run(const json& args, ToolContext&) const override {
    const std::string query = arg_or<std::string>(args, "query", "");
    const int64_t limit = std::clamp<int64_t>(arg_or<int64_t>(args, "limit", kMaxSearchResults), 1, kMaxSearchResults);
    auto found = load_(query, static_cast<std::size_t>(limit));
    if (found.empty()) {
      return ToolOutput::ok("No tool in the catalogue matches \"" + query + "\". Use names as the catalogue lists them.",
                            {{"found", json::array()}});
    }
    std::string text = "Loaded " + std::to_string(found.size()) + " tool" + (found.size() == 1 ? "" : "s") +
                       "; call them from your next step.\n";
    json names = json::array();
    for (const Tool* t : found) {
      text += "\n## " + std::string(t->name()) + "\n" + std::string(t->description()) + "\nParameters (JSON Schema): " +
              t->parameters().dump() + "\n";
      names.push_back(std::string(t->name()));
    }
    return ToolOutput::ok(std::move(text), {{"found", names}});
  }

 private:
  std::string description_;
  Load load_;
};

/// The catalogue's lines ("- name: first sentence"), kept for the last set of tools seen on this
/// thread: every run makes a new tool set, and its catalogue is the same unless a tool (its name
/// or description, compared as text) changed.
const std::string& catalogue_text(const std::vector<const Tool*>& tools) {
  struct Kept {
    std::vector<std::pair<std::string, std::string>> tools;  // name, description
    std::string text;
  };
  thread_local Kept kept;
  const bool same = kept.tools.size() == tools.size() &&
                    std::equal(tools.begin(), tools.end(), kept.tools.begin(), [](const Tool* t, const auto& k) {
                      return t->name() == k.first && t->description() == k.second;
                    });
  if (!same) {
    kept.tools.clear();
    kept.text.clear();
    for (const Tool* t : tools) {
      kept.tools.emplace_back(std::string(t->name()), std::string(t->description()));
      kept.text += "- " + catalogue_line(*t) + "\n";
    }
  }
  return kept.text;
}

class SearchableToolSet final : public RunToolSet, public std::enable_shared_from_this<SearchableToolSet> {
 public:
  SearchableToolSet(std::vector<const Tool*> deferred, std::shared_ptr<RunToolSet> inner,
                    std::function<bool(const Tool&)> allowed)
      : deferred_(std::move(deferred)), inner_(std::move(inner)), allowed_(std::move(allowed)) {}

  void prepare(std::function<void()> ready) override {
    if (!inner_) return ready();
    inner_->prepare(std::move(ready));
  }

  std::vector<const Tool*> offered() override {
    std::vector<const Tool*> out = inner_ ? inner_->offered() : std::vector<const Tool*>{};
    std::vector<const Tool*> catalogue = catalogued();
    if (catalogue.empty()) return out;
    std::lock_guard lock(mu_);
    // The same tools (Tool objects are immutable): the same catalogue, no need to write it again.
    if (!search_tool_ || catalogue != catalogue_) {
      std::weak_ptr<SearchableToolSet> weak = weak_from_this();
      auto tool = std::make_shared<ToolSearchTool>(catalogue_text(catalogue), [weak](const std::string& query, std::size_t limit) {
        auto self = weak.lock();
        return self ? self->load(query, limit) : std::vector<const Tool*>{};
      });
      if (allowed_ && !allowed_(*tool)) {  // tool_search itself denied: every schema, as without it
        out.insert(out.end(), catalogue.begin(), catalogue.end());
        return out;
      }
      catalogue_ = catalogue;
      search_tool_ = tool;
      old_search_tools_.push_back(std::move(tool));  // a run may still be calling an older one
    }
    out.push_back(search_tool_.get());
    for (const Tool* t : catalogue_) {
      if (loaded_.count(std::string(t->name()))) out.push_back(t);
    }
    return out;
  }

  std::vector<const Tool*> catalogued() override {
    std::vector<const Tool*> out = deferred_;
    if (inner_) {
      for (const Tool* t : inner_->catalogued()) out.push_back(t);
    }
    return out;
  }

  /// Worker thread (tool_search's run).
  std::vector<const Tool*> load(const std::string& query, std::size_t limit) {
    std::lock_guard lock(mu_);
    std::vector<std::string> names, lines;
    for (const Tool* t : catalogue_) {
      names.emplace_back(t->name());
      lines.push_back(catalogue_line(*t));
    }
    std::vector<const Tool*> out;
    for (std::size_t i : search_catalogue(names, lines, query, limit)) {
      loaded_.insert(names[i]);
      out.push_back(catalogue_[i]);
    }
    return out;
  }

 private:
  const std::vector<const Tool*> deferred_;
  const std::shared_ptr<RunToolSet> inner_;
  const std::function<bool(const Tool&)> allowed_;
  std::mutex mu_;
  std::vector<const Tool*> catalogue_;
  std::shared_ptr<ToolSearchTool> search_tool_;
  std::vector<std::shared_ptr<ToolSearchTool>> old_search_tools_;
  std::set<std::string> loaded_;
};

}  // namespace detail_tool_search

std::string one_line(std::string_view description, std::size_t max_chars) {
  std::size_t start = description.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return "";
  std::string_view rest = description.substr(start);
  std::string line(rest.substr(0, rest.find_first_of("\r\n")));
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.pop_back();
  if (line.size() <= max_chars) return line;
  return detail_tool_search::cut_utf8(line, max_chars > 3 ? max_chars - 3 : 0) + "\u2026";
}

std::string catalogue_line(const Tool& tool) {
  std::string_view text = tool.description();
  const std::size_t start = text.find_first_not_of(" \t\r\n");
  text.remove_prefix(start == std::string_view::npos ? text.size() : start);
  // The first sentence is enough to choose by; tool_search's answer carries the rest.
  if (const std::size_t stop = text.find(". "); stop != std::string_view::npos) text = text.substr(0, stop + 1);
  const std::string line = one_line(text, kCatalogueLineChars);
  return line.empty() ? std::string(tool.name()) : std::string(tool.name()) + ": " + line;
}

std::vector<std::size_t> search_catalogue(const std::vector<std::string>& names, const std::vector<std::string>& lines,
                                          const std::string& query, std::size_t limit) {
  namespace d = detail_tool_search;
  const std::vector<std::string> words = d::words_of(query);
  std::vector<std::size_t> out;
  std::set<std::size_t> taken;
  for (const auto& w : words) {  // exact names first, in the order given
    for (std::size_t i = 0; i < names.size() && out.size() < limit; ++i) {
      if (!taken.count(i) && d::lowercase(names[i]) == d::lowercase(w)) {
        out.push_back(i);
        taken.insert(i);
      }
    }
  }
  if (!out.empty()) return out;  // names given: just those
  std::vector<std::pair<int, std::size_t>> scored;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string line = d::lowercase(lines[i]);
    int score = 0;
    for (const auto& w : words) {
      if (line.find(d::lowercase(w)) != std::string::npos) ++score;
    }
    if (score > 0) scored.emplace_back(-score, i);
  }
  std::stable_sort(scored.begin(), scored.end());
  for (const auto& [neg, i] : scored) {
    if (out.size() >= limit) break;
    out.push_back(i);
  }
  return out;
}

bool tool_search_enabled(const nlohmann::json& config) {
  const auto tools = config.find("tools");
  if (tools == config.end() || !tools->is_object()) return true;
  const auto v = tools->find("toolSearch");
  if (v == tools->end()) return true;
  if (v->is_boolean()) return v->get<bool>();
  if (v->is_object()) return v->value("enabled", true);
  return true;
}

std::vector<const Tool*> take_catalogued_builtins(std::vector<const Tool*>& tools) {
  std::vector<const Tool*> direct, catalogued;
  for (const Tool* t : tools) {
    const std::string_view g = t->group();
    const bool core = g == "fs" || g == "runtime" || g == "memory" || g == "messaging" || t->name() == "tool_search";
    (core ? direct : catalogued).push_back(t);
  }
  tools = std::move(direct);
  return catalogued;
}

std::shared_ptr<RunToolSet> make_searchable_tool_set(std::vector<const Tool*> deferred,
                                                     std::shared_ptr<RunToolSet> inner,
                                                     std::function<bool(const Tool&)> allowed) {
  return std::make_shared<detail_tool_search::SearchableToolSet>(std::move(deferred), std::move(inner),
                                                                 std::move(allowed));
}

}  // namespace pincer::tools
