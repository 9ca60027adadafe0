// `pincer agent|status|health|sessions|models`: one-shot requests to a running gateway.
#include "app/commands.h"

namespace pincer::app {

void register_client_commands(CLI::App& app, Action& action) {}

}  // namespace pincer::app
