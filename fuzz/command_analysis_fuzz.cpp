// libFuzzer target for the exec-approval command analyser (src/tools/approvals/command_analysis.h).
// Input: any bytes, taken as a shell command. Checked on every input:
// - nothing crashes, throws or runs away (the analyser bounds its input);
// - an input the analyser could not parse is always risky;
// - a risky command is never allowlisted, even by the pattern "*" that matches everything;
// - prefixing `eval ` or piping the command into `sh` makes it risky (obfuscation stays visible
//   however the rest is written);
// - the preflight of any command terminates (it reads no file here: the directory is empty).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "tools/approvals/command_analysis.h"

using namespace pincer::tools::approvals;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string command(reinterpret_cast<const char*>(data), size);
  const CommandAnalysis a = analyse_command(command);
  if (!a.parsed && !a.risky()) std::abort();
  if (a.risky() && allowlisted(a, {"*"})) std::abort();
  for (const auto& c : a.commands) {
    if (c.argv.size() != c.expanded.size()) std::abort();
  }
  // A command that parses on its own: wrapping it must stay visible.
  if (a.parsed && !a.commands.empty() && command.find('#') == std::string::npos && command.find('\\') == std::string::npos &&
      command.find("<<") == std::string::npos) {
    if (!analyse_command("eval " + command).risky()) std::abort();
    if (!analyse_command(command + " | sh").risky()) std::abort();
  }
  (void)preflight_script(a, "/nonexistent-pincer-fuzz-dir");
  return 0;
}
