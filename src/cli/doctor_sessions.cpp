// `pincer doctor`'s sessions check (SS-1): each agent's sessions.json — damaged now (the gateway
// rebuilds it from the transcripts at its next use of the agent), or damaged earlier and rebuilt
// (its damaged copy `sessions.json.corrupt.<ts>` is still beside it). Read only.
#include "cli/doctor.h"

#include "cli/invoked_command.h"
#include "core/clock.h"
#include "store/session_index.h"
#include "store/session_recovery.h"

namespace pincer::cli {

std::vector<Finding> check_session_indexes(const std::filesystem::path& state_dir) {
  std::vector<Finding> out;
  std::error_code ec;
  for (const auto& agent_dir : std::filesystem::directory_iterator(state_dir / "agents", ec)) {
    const std::string agent_id = agent_dir.path().filename().string();
    const auto dir = agent_dir.path() / "sessions";
    const auto file = dir / "sessions.json";
    if (std::filesystem::exists(file, ec)) {
      store::SessionIndex index(file, SystemClock::instance());
      if (auto loaded = index.load(); !loaded) {
        const std::size_t found = store::sessions_from_transcripts(dir, agent_id).size();
        out.push_back({"sessions", "fail",
                       "the sessions index of agent \"" + agent_id + "\" is damaged: " + loaded.error().message + " (" +
                           std::to_string(found) + " session(s) can be rebuilt from the transcripts beside it)",
                       "start the gateway (" + invoked_command() + " gateway run): its first use of agent \"" +
                           agent_id + "\" keeps the damaged file as " + file.filename().string() +
                           ".corrupt.<time> and rebuilds the index from the transcripts; or repair " + file.string() +
                           " by hand"});
        continue;
      }
    }
    if (auto copy = store::damaged_index_copy(dir)) {
      out.push_back({"sessions", "warn",
                     "the sessions index of agent \"" + agent_id + "\" was damaged and has been rebuilt from the "
                         "transcripts; the damaged file is kept at " + copy->string(),
                     "check " + invoked_command() + " sessions list (sessions whose transcript did not name their key "
                         "are listed as agent:" + agent_id + ":recovered:<sessionId>), then delete " + copy->string()});
    }
  }
  return out;
}

}  // namespace pincer::cli
