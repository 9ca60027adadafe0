// Which SKILL.md names load (src/skills/skill_loader.cpp): OpenClaw's loader takes any non-empty
// name, so "My Skill" (capitals, a space) and "dash--x" load as they do there — the command word
// is sanitized separately (skill_commands.h). Only a name that is a path or holds a control
// character is skipped, and a skipped skill is reported with its reason: in the report (`pincer
// skills list|check`), by doctor, and once in the gateway's log (the session snapshot).
#include <fstream>
#include <set>

#include <gtest/gtest.h>

#include "cli/doctor.h"
#include "core/ids.h"
#include "skills/skill_commands.h"
#include "skills/skill_loader.h"
#include "skills/snapshot.h"
#include "test_helpers.h"

namespace pincer::skills {
namespace skill_names_test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class SkillNamesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() / ("pincer-skill-names-" + ids::random_token(6));
    fs::create_directories(base_ / "ws");
    fs::create_directories(base_ / "state");
    clear_snapshots();
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(base_, ec);
  }
  void skill(const std::string& folder, const std::string& name_line) {
    const fs::path file = base_ / "ws" / "skills" / folder / "SKILL.md";
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << "---\nname: " << name_line << "\ndescription: Does " << folder
                                          << ".\n---\nSteps.\n";
  }
  LoadOptions options() const {
    LoadOptions o;
    o.workspace = base_ / "ws";
    o.state_dir = base_ / "state";
    o.config = std::make_shared<const json>(json::object());
    o.agent_id = "main";
    o.env = test_helpers::env_of({{"PATH", (base_ / "bin").string()}});
    o.platform = "linux";
    o.materialize_bundled = false;
    return o;
  }
  static const SkillEntry* find(const SkillsReport& r, const std::string& name) {
    for (const auto& e : r.skills) {
      if (e.manifest.name == name) return &e;
    }
    return nullptr;
  }
  fs::path base_;
};

TEST_F(SkillNamesTest, NamesOpenClawLoadsLoadHereToo) {
  skill("my-skill", "My Skill");
  skill("dash--x", "dash--x");
  skill("upper", "PDF_Tools");
  const SkillsReport r = load_skills(options());
  EXPECT_TRUE(r.problems.empty()) << r.problems.front().describe();
  ASSERT_NE(find(r, "My Skill"), nullptr) << "capitals and a space: OpenClaw loads it";
  EXPECT_TRUE(find(r, "My Skill")->eligible);
  ASSERT_NE(find(r, "dash--x"), nullptr);
  ASSERT_NE(find(r, "PDF_Tools"), nullptr);
  // Its command word is sanitized on its own.
  std::set<std::string> words;
  for (const auto& c : skill_commands(r, {})) words.insert(c.name);
  EXPECT_TRUE(words.contains("my_skill")) << ::testing::PrintToString(words);
}

TEST_F(SkillNamesTest, ASkippedSkillIsReportedWithItsReason) {
  skill("good", "good");
  skill("escape", "\"../../etc/evil\"");
  skill("slash", "a/b");
  skill("control", "\"bell\\x07\"");
  const SkillsReport r = load_skills(options());
  ASSERT_NE(find(r, "good"), nullptr);
  ASSERT_EQ(r.problems.size(), 3u);
  std::map<std::string, std::string> why;
  for (const auto& p : r.problems) why[p.file.parent_path().filename().string()] = p.describe();
  EXPECT_NE(why["escape"].find("skill name \"../../etc/evil\" is a path"), std::string::npos) << why["escape"];
  EXPECT_NE(why["slash"].find("skill name \"a/b\" is a path"), std::string::npos) << why["slash"];
  EXPECT_NE(why["control"].find("the skill name contains a control character (0x07)"), std::string::npos) << why["control"];
  EXPECT_NE(why["control"].find("control/SKILL.md:1: "), std::string::npos) << "file and line: " << why["control"];
}

TEST_F(SkillNamesTest, DoctorNamesEachSkillThatIsNotLoaded) {
  skill("good", "My Good Skill");
  skill("escape", "\"../x\"");
  const json config = {{"agents", {{"defaults", {{"workspace", (base_ / "ws").string()}}},
                                   {"list", {{{"id", "main"}}, {{"id", "work"}, {"workspace", (base_ / "ws").string()}}}}}}};
  const auto found = cli::check_skills(config, base_ / "state", test_helpers::env_of({}));
  ASSERT_EQ(found.size(), 1u) << "one finding, though two agents share the folder";
  EXPECT_EQ(found[0].check, "skills");
  EXPECT_EQ(found[0].status, "warn");
  EXPECT_NE(found[0].message.find("escape/SKILL.md:1: skill name \"../x\" is a path"), std::string::npos)
      << found[0].message;
  EXPECT_FALSE(fs::exists(base_ / "state" / "bundled-skills")) << "doctor writes nothing";
  skill("escape", "fixed");
  EXPECT_TRUE(cli::check_skills(config, base_ / "state", test_helpers::env_of({})).empty());
}

}  // namespace
}  // namespace skill_names_test
}  // namespace pincer::skills
