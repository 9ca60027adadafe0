// `pincer onboard`, `pincer doctor`, `pincer logs`.
#include "app/commands.h"

namespace pincer::app {

void register_setup_commands(CLI::App& app, Action& action) {}

}  // namespace pincer::app
