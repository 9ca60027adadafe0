// SKILL.md parsing (SPEC SK-1): the AgentSkills format. A skill is a folder holding SKILL.md, whose
// text starts with YAML front matter between two `---` lines:
//
//   ---
//   name: weather
//   description: "Current weather and forecasts …"
//   metadata: {"openclaw": {"requires": {"bins": ["curl"], "anyBins": [...], "env": [...],
//              "config": [...]}, "os": ["linux", "darwin"], "primaryEnv": "X_API_KEY",
//              "always": false, "skillKey": "weather", "emoji": "☔"}}
//   ---
//   # Body …
//
// The front matter is parsed with yaml-cpp (never by hand). `metadata` may be a YAML mapping or, as
// OpenClaw also accepts, a string holding JSON5; its requirements block is read from the
// "openclaw" key (or the legacy "clawdbot"). String lists may also be written "a, b" (one string).
// `disable-model-invocation: true` keeps a skill out of the model's prompt; `user-invocable: false`
// gives it no slash command (skills/skill_commands.h); `command-dispatch: tool` + `command-tool`
// are read and shown, as OpenClaw's front matter has them. Booleans may also be written as the
// strings true/yes/1 and false/no/0, as OpenClaw reads them.
//
// Pure functions; thread-safe; never throw.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pincer::skills {

/// What a skill needs to be eligible (OpenClaw's metadata.openclaw.requires + os).
struct Requirements {
  std::vector<std::string> bins;      ///< every one on PATH
  std::vector<std::string> any_bins;  ///< at least one on PATH
  std::vector<std::string> env;       ///< every one set (process env or skills.entries.<key>.env/apiKey)
  std::vector<std::string> config;    ///< every config path truthy ("skills.entries.x.enabled")
  std::vector<std::string> os;        ///< node's process.platform names: linux, darwin, win32; empty = any
  bool always = false;                ///< skip bins/env/config checks (the OS check still applies)
};

/// The front matter of one SKILL.md.
struct SkillManifest {
  std::string name;
  std::string description;
  std::string skill_key;    ///< metadata.openclaw.skillKey, else the name: the key of skills.entries
  std::string primary_env;  ///< metadata.openclaw.primaryEnv: the variable skills.entries.<key>.apiKey fills
  std::string emoji;
  std::string homepage;
  bool model_invocable = true;  ///< false: `disable-model-invocation: true` (not listed in the prompt)
  bool user_invocable = true;   ///< false: `user-invocable: false` (no /command for it)
  /// `command-tool` when `command-dispatch: tool`: OpenClaw runs that tool with the command's raw
  /// input instead of a model turn; Pincer sends such a command through the model (docs/skills.md).
  std::string dispatch_tool;
  Requirements requirements;
  std::size_t body_line = 0;  ///< 1-based line where the body starts (after the closing ---)
};

/// A parse failure: `line` is 1-based in SKILL.md (0 = the whole file).
struct ParseProblem {
  int line = 0;
  std::string message;  ///< e.g. "no YAML front matter (the file must start with a --- line)"
};

/// Parses SKILL.md text. Errors: no front matter / unterminated front matter, a YAML error (line
/// of the error), front matter that is not a mapping, a missing or empty `name` or `description`.
/// A bad `metadata` block is not an error (OpenClaw ignores it too): the skill then has no
/// requirements.
struct ParseResult {
  std::optional<SkillManifest> manifest;
  std::optional<ParseProblem> problem;
};
ParseResult parse_skill_md(std::string_view text);

/// The front matter's text (between the --- lines) and the body, or nullopt without front matter.
struct FrontMatterSplit {
  std::string yaml;
  std::string body;
  int body_line = 0;  ///< 1-based
};
std::optional<FrontMatterSplit> split_front_matter(std::string_view text);

}  // namespace pincer::skills
