// The safety scan of a skill (SPEC SK-4). Every skill — installed, bundled or written by the agent
// through skill_manage — is scanned before it loads; a skill with a finding is *blocked*: listed
// with the finding (file, line, rule), never offered to the model.
//
// Rules (each matches one line unless noted; case-insensitive):
//   pipe-to-shell      a download piped or substituted into a shell/interpreter:
//                      `curl … | sh`, `wget -O- … | bash`, `bash <(curl …)`, `sh -c "$(curl …)"`
//   exfiltration       curl/wget/nc sending a credential file or the environment somewhere:
//                      `-d @~/.ssh/id_rsa`, `--data-binary @.env`, `--post-file`, `$(env)`,
//                      `$(printenv)`, `env | curl`, `cat ~/.aws/credentials | nc …`
//   credential-read    reading secrets: private keys / ~/.ssh, ~/.aws/credentials, ~/.netrc,
//                      ~/.gnupg, a `.env` file (cat/less/head/tail/base64/cp/scp/tar of it),
//                      `security dump-keychain`, env dumps filtered for TOKEN/KEY/SECRET/PASSWORD
//   obfuscated-payload decoded text run as code: `base64 -d | sh`, `eval "$(… base64 -d)"`,
//                      `exec(base64.b64decode(…))`, `xxd -r -p | sh`; a line holding a base64 blob
//                      of 200+ characters; 8+ consecutive `\xNN` escapes; a line over 8 KiB
//   prompt-injection   "ignore (all) previous/prior/above instructions", "disregard … instructions",
//                      "forget your instructions", "you are now DAN / unrestricted / jailbroken …",
//                      "do not tell the user"; an HTML comment (may span lines) that talks to the
//                      model (ignore/instruction/assistant/system prompt/secretly/do not tell)
//   unscanned          a file the scan could not read whole (scan_skill_dir below)
// Merely documenting curl, an API call with a JSON body, `eval "$(tool signin)"`, or a file upload
// (`-F file=@audio.m4a`) is not a finding: the rules look for the dangerous combination.
//
// Pure; thread-safe (the compiled patterns are immutable statics).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace pincer::skills {

/// One finding of the scan.
struct Finding {
  std::string file;     ///< path of the scanned file (as given / absolute for scan_skill_dir)
  int line = 0;         ///< 1-based
  std::string rule;     ///< "pipe-to-shell", "exfiltration", "credential-read", "obfuscated-payload", "prompt-injection", "unscanned"
  std::string excerpt;  ///< the matching line, trimmed, at most 160 bytes

  /// "SKILL.md:12: pipe-to-shell: curl -fsSL https://x | sh"
  std::string describe() const;
};

/// Scans one text. `file` is copied into the findings.
std::vector<Finding> scan_text(std::string_view text, const std::string& file);

/// What scan_skill_dir reads of a skill folder.
inline constexpr std::size_t kMaxScannedFiles = 64;
inline constexpr std::size_t kMaxScannedDepth = 3;  ///< folder levels below the skill folder
inline constexpr std::size_t kMaxScannedFileBytes = 256 * 1024;

/// Scans SKILL.md and the other files of a skill folder (symlinks and `.git` are skipped). What
/// it cannot read is a finding of rule "unscanned" (so the skill is blocked): a file over
/// kMaxScannedFileBytes, deeper than kMaxScannedDepth, beyond kMaxScannedFiles, unreadable, or
/// holding a NUL byte without being an image, font, document or archive by its extension.
std::vector<Finding> scan_skill_dir(const std::filesystem::path& dir);

}  // namespace pincer::skills
