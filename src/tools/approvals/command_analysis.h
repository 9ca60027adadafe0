// The shell-command analyser behind exec approvals (SPEC TL-3, TL-7): splits a `/bin/sh -c`
// command into its simple commands, names what each runs, and flags the constructs that hide
// what will really run — which an allowlist pattern must never auto-approve:
//   command substitution `$(…)` / backticks, process substitution `<(…)`, `eval`, data piped into
//   a shell or interpreter (`curl … | sh`, `base64 -d | bash`), base64/hex decoding, `$'…'` and
//   `\x` escapes, IFS tricks, a command name that is quoted, escaped or taken from a variable,
//   nested `sh -c` scripts, and input the analyser cannot parse (unbalanced quotes).
// The script preflight (TL-7) looks at the script a command runs: an interpreter that does not
// match the script (bash on a .py, python on a shell script), and shell variables expanded into
// code the shell hands to another interpreter (`python -c "…$VAR…"`).
//
// Pure functions except preflight_script (reads at most 64 KiB of one file). Thread-safe.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace pincer::tools::approvals {

/// One simple command of a pipeline or list.
struct SimpleCommand {
  std::vector<std::string> env;   ///< leading NAME=value assignments, as written (unquoted)
  std::vector<std::string> argv;  ///< words after quote removal; redirections left out
  std::vector<bool> expanded;     ///< per argv word: it holds a shell expansion ($X, $(…)) outside '…'
  std::string text;               ///< argv joined by single spaces (what patterns match)
  bool piped_input = false;       ///< reads the output of the previous command (`a | b`)
};

struct CommandAnalysis {
  std::vector<SimpleCommand> commands;
  std::vector<std::string> risks;  ///< one sentence per finding; empty = nothing hidden
  bool parsed = true;              ///< false: quotes or parentheses not balanced
  bool risky() const { return !risks.empty(); }
};

/// Analyses `command` (any bytes; never throws). Bounded: at most 64 KiB and 256 simple commands
/// are looked at; longer input is flagged as risky.
CommandAnalysis analyse_command(std::string_view command);

/// Whether an allowlist `pattern` covers one simple command. A pattern without spaces and `*`
/// names a program: it matches argv[0] or its basename ("git" covers "git status", "/usr/bin/git
/// log"). Otherwise it is a glob (`*` = any run of characters) over SimpleCommand::text
/// ("git status*", "ls *"). Case-sensitive.
bool pattern_matches(std::string_view pattern, const SimpleCommand& command);

/// True when `command` is not risky and every one of its simple commands is covered by one of
/// `patterns` (so "ls; rm -rf ~" is not covered by "ls*").
bool allowlisted(const CommandAnalysis& command, const std::vector<std::string>& patterns);

/// The script preflight (TL-7) for a command run in `workdir`: findings (empty = none) about the
/// script files it runs (`bash x.sh`, `python3 x.py`, `./x`): interpreter/script mismatch, and
/// shell-variable injection into inline code (`python -c "…$X…"`, `node -e "…${X}…"`).
std::vector<std::string> preflight_script(const CommandAnalysis& command, const std::filesystem::path& workdir);

}  // namespace pincer::tools::approvals
