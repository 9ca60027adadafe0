// `pincer pairing list|approve|reject` (SPEC CH-3): the owner's side of channel pairing. Works on
// the pairing store file directly (channels/pairing_store.h), so it needs no running gateway; the
// gateway reads the approvals on the sender's next message.
#include <iostream>
#include <memory>

#include "app/client_support.h"
#include "app/commands.h"
#include "channels/pairing_store.h"
#include "cli/invoked_command.h"

namespace pincer::app {
namespace {

channels::PairingStore store() {
  return channels::PairingStore(paths::state_dir(config::process_env()) / "channels" / "pairing.json");
}

int list(bool as_json) {
  auto pending = store().pending(SystemClock::instance().wall_ms());
  if (as_json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& p : pending) out.push_back(channels::to_json(p));
    return print_json({{"pending", out}});
  }
  if (pending.empty()) std::cout << "No pending pairing requests.\n";
  for (const auto& p : pending) {
    std::cout << p.code << "  " << p.channel << ":" << p.account_id << "  sender " << p.sender_id
              << (p.username.empty() ? "" : " (@" + p.username + ")") << "\n";
  }
  return 0;
}

int resolve(const std::string& channel, const std::string& code, bool approve) {
  auto s = store();
  const int64_t now = SystemClock::instance().wall_ms();
  auto r = approve ? s.approve(channel, code, now) : s.reject(channel, code, now);
  if (!r) return fail(1, r.error().message + " (see: " + cli::invoked_command() + " pairing list)");
  std::cout << (approve ? "Approved " : "Rejected ") << r->channel << " sender " << r->sender_id
            << (r->username.empty() ? "" : " (@" + r->username + ")") << "\n";
  return 0;
}

}  // namespace

void register_pairing_commands(CLI::App& app, Action& action) {
  auto* pairing = app.add_subcommand("pairing", "Approve or reject chat senders who asked to pair");
  pairing->require_subcommand(1);
  auto as_json = std::make_shared<bool>(false);
  auto* l = pairing->add_subcommand("list", "Pending pairing requests");
  l->add_flag("--json", *as_json, "Print JSON");
  on_parsed(l, action, [as_json] { return list(*as_json); });
  for (bool approve : {true, false}) {
    auto channel = std::make_shared<std::string>();
    auto code = std::make_shared<std::string>();
    auto* cmd = pairing->add_subcommand(approve ? "approve" : "reject", approve ? "Allow the sender of a code" : "Refuse a code");
    cmd->add_option("channel", *channel, "Channel id, e.g. telegram")->required();
    cmd->add_option("code", *code, "The code the sender received")->required();
    on_parsed(cmd, action, [channel, code, approve] { return resolve(*channel, *code, approve); });
  }
}

}  // namespace pincer::app
