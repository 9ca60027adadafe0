// `pincer config …`: inspect, validate and edit pincer.json.
#include <iostream>
#include <memory>

#include "app/commands.h"
#include "core/config.h"

namespace pincer::app {

void register_config_commands(CLI::App& app, Action& action) {
  auto* config = app.add_subcommand("config", "Inspect and edit the configuration");
  config->require_subcommand(1);
  auto* schema = config->add_subcommand("schema", "Print the configuration schema");
  auto markdown = std::make_shared<bool>(false);
  schema->add_flag("--markdown", *markdown, "Print the Markdown reference (docs/configuration.md) instead of JSON Schema");
  on_parsed(schema, action, [markdown] {
    std::cout << (*markdown ? config::markdown_reference() : config::json_schema().dump(2) + "\n");
    return 0;
  });
}

}  // namespace pincer::app
