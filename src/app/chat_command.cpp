// `pincer chat` (alias `tui`): the terminal chat.
#include "app/commands.h"

namespace pincer::app {

void register_chat_command(CLI::App& app, Action& action) {}

}  // namespace pincer::app
