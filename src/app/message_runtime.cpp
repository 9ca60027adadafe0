#include "app/message_runtime.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <future>
#include <sstream>

#include <spdlog/spdlog.h>

#include "agent/session_tools_policy.h"
#include "channels/channel_accounts.h"
#include "core/ids.h"
#include "store/atomic_file.h"
#include "store/file_util.h"
#include "tools/sessions/session_tools.h"

namespace pincer::app {

using nlohmann::json;

struct MessageRuntime::State {
  EventLoop& loop;
  agent::AgentService& agents;
  channels::ChannelManager& channels;
  json config;
  std::filesystem::path record;  ///< <state>/channels/message-tool.jsonl
  std::set<std::string> sent;
  std::deque<std::string> order;  ///< `sent` in recording order (oldest first)
  bool alive = true;
  State(EventLoop& l, agent::AgentService& a, channels::ChannelManager& c) : loop(l), agents(a), channels(c) {}
};

namespace message_runtime_detail {  // named: the unity build joins several files into one unit

using State = MessageRuntime::State;

constexpr std::size_t kKeptIds = 2000;
constexpr auto kCallTimeout = std::chrono::seconds(30);

void load_record(State& s) {
  auto text = store::read_file(s.record);
  if (!text) return;  // none yet
  std::istringstream in(*text);
  for (std::string line; std::getline(in, line);) {
    auto j = json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("id") || !j["id"].is_string()) continue;  // a torn last line
    if (s.sent.insert(j["id"].get<std::string>()).second) s.order.push_back(j["id"].get<std::string>());
  }
  while (s.order.size() > kKeptIds) {
    s.sent.erase(s.order.front());
    s.order.pop_front();
  }
  std::string compact;
  for (const auto& id : s.order) compact += json{{"id", id}}.dump() + "\n";
  if (auto st = store::write_file_atomic(s.record, compact); !st)
    spdlog::warn("message tool: cannot compact {}: {}", s.record.string(), st.error().message);
}

Status remember(State& s, const std::string& id) {
  std::error_code ec;
  std::filesystem::create_directories(s.record.parent_path(), ec);
  const int fd = ::open(s.record.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return store::io_error(s.record, "open");
  const std::string line = json{{"id", id}, {"ts", std::chrono::duration_cast<std::chrono::milliseconds>(
                                                        std::chrono::system_clock::now().time_since_epoch()).count()}}
                               .dump() + "\n";
  const bool ok = store::write_all(fd, line) && ::fsync(fd) == 0;
  const int err = errno;
  ::close(fd);
  if (!ok) return store::io_error(s.record, "append", err);
  s.sent.insert(id);
  s.order.push_back(id);
  return Ok{};
}

std::string arg(const json& args, const char* key) {
  auto it = args.find(key);
  return it != args.end() && it->is_string() ? it->get<std::string>() : std::string();
}

/// Sends on the loop. The answer JSON or the error.
Result<json> send_message(State& s, const json& args, const tools::ToolOrigin& origin, const std::string& run_id,
                          const std::string& session_key, const std::string& agent_id) {
  std::string channel = arg(args, "channel");
  if (channel.empty()) channel = origin.channel;
  if (channel.empty())
    return Error{"NOT_FOUND", "no channel given and this conversation did not come from a chat "
                              "(give channel and target)"};
  const bool same_channel = channel == origin.channel;
  std::string to = arg(args, "target");
  if (to.empty()) to = arg(args, "to");
  const bool same_chat = same_channel && (to.empty() || to == origin.chat_id);
  if (to.empty() && same_channel) to = origin.chat_id;
  if (to.empty()) return Error{"NOT_FOUND", "no target given for channel " + channel};
  std::string account = arg(args, "accountId");
  if (account.empty() && same_channel) account = origin.account_id;
  std::string thread = arg(args, "threadId");
  if (thread.empty() && same_chat) thread = origin.thread_id;
  // Only configured, enabled accounts are addressed.
  const auto accounts = channels::list_channel_accounts(s.config.value("channels", json::object()));
  bool channel_known = false, account_known = account.empty();
  for (const auto& a : accounts) {
    if (a.channel != channel) continue;
    channel_known = true;
    account_known = account_known || a.account_id == account;
  }
  if (!channel_known)
    return Error{"NOT_FOUND", "channel \"" + channel + "\" is not configured (no enabled account in channels." +
                                  channel + ")"};
  if (!account_known)
    return Error{"NOT_FOUND", "account \"" + account + "\" of channel " + channel +
                                  " is not configured (channels." + channel + ".accounts)"};
  // Configured but down (a refused token, an unreachable server, restarting): say so now rather
  // than answer "sent" for a message that waits in the outbox (pincer channels status says why).
  if (s.channels.running_account(channel, account) == nullptr)
    return Error{"NOT_FOUND", "channel " + channel + (account.empty() ? "" : " account " + account) +
                                  " is not running now (pincer channels status shows why); nothing was sent"};
  const std::string text = arg(args, "message");
  const std::string id = "message-" + ids::sha256_hex(run_id + "\n" + session_key + "\n" + channel + "\n" + account +
                                                      "\n" + to + "\n" + thread + "\n" + text)
                                          .substr(0, 32);
  json answer = {{"ok", true}, {"action", "send"}, {"channel", channel}, {"to", to}, {"messageId", id}};
  if (!account.empty()) answer["accountId"] = account;
  if (!thread.empty()) answer["threadId"] = thread;
  if (s.sent.contains(id)) {
    answer["duplicate"] = true;  // the same call of the same run again (a resumed turn): sent once
    return answer;
  }
  if (auto st = remember(s, id); !st) return Error{"DELIVERY_FAILED", st.error().message};
  if (auto st = s.channels.announce(agent_id, channel, account, to, thread, text, id); !st)
    return Error{st.error().code, st.error().message};
  return answer;
}

/// Reacts on the loop (CH-8): to `messageId`/`message_id`, else the message the run answers, in
/// the chat named by channel/target (default: the run's). `done` gets the answer or the error.
void react_to_message(State& s, const json& args, const tools::ToolOrigin& origin,
                      std::function<void(Result<json>)> done) {
  std::string channel = arg(args, "channel");
  if (channel.empty()) channel = origin.channel;
  if (channel.empty()) return done(Error{"NOT_FOUND", "react: this conversation did not come from a chat (give channel and target)"});
  const bool same_channel = channel == origin.channel;
  std::string to = arg(args, "target");
  if (to.empty()) to = arg(args, "to");
  if (to.empty() && same_channel) to = origin.chat_id;
  if (to.empty()) return done(Error{"NOT_FOUND", "react: no target given for channel " + channel});
  std::string account = arg(args, "accountId");
  if (account.empty() && same_channel) account = origin.account_id;
  std::string message_id = arg(args, "messageId");
  if (message_id.empty()) message_id = arg(args, "message_id");
  if (message_id.empty() && same_channel && to == origin.chat_id) message_id = origin.message_id;
  if (message_id.empty()) return done(Error{"TOOL_ARGS_INVALID", "react: give messageId (no message of that chat is being answered)"});
  channels::Channel* target = s.channels.running_account(channel, account);
  if (target == nullptr)
    return done(Error{"NOT_FOUND", "react: channel " + channel + (account.empty() ? "" : " account " + account) +
                                       " is not configured or not running now (pincer channels status shows why)"});
  if (!target->capabilities().reactions) return done(Error{"NOT_FOUND", "react: channel " + channel + " has no reactions"});
  const std::string emoji = arg(args, "emoji");
  const bool remove = args.value("remove", false);
  json answer = {{"ok", true}, {"action", "react"}, {"channel", channel}, {"to", to}, {"messageId", message_id},
                 {"emoji", emoji}, {"removed", remove}};
  target->react(to, message_id, emoji, remove, [answer = std::move(answer), done = std::move(done)](Status st) {
    if (!st) return done(Error{st.error().code == "REJECTED" ? "DELIVERY_FAILED" : st.error().code, "react: " + st.error().message});
    done(answer);
  });
}

}  // namespace message_runtime_detail


MessageRuntime::MessageRuntime(EventLoop& loop, agent::AgentService& agents, channels::ChannelManager& channels,
                               const json& config, const std::filesystem::path& state_dir)
    : state_(std::make_shared<State>(loop, agents, channels)) {
  state_->config = config;
  state_->record = state_dir / "channels" / "message-tool.jsonl";
  message_runtime_detail::load_record(*state_);
}

MessageRuntime::~MessageRuntime() {
  state_->alive = false;
  if (state_->agents.session_backends().messages == this) state_->agents.session_backends().messages = nullptr;
}

void MessageRuntime::reconfigure(const json& config) { state_->config = config; }

Result<json> MessageRuntime::call(std::string_view tool, const json& args, const tools::ToolContext& ctx) {
  if (tool != "message") return Error{"TOOL_ARGS_INVALID", "not the message tool"};
  if (auto st = tools::check_session_tool_args(tool, args); !st) return st.error();
  auto promise = std::make_shared<std::promise<Result<json>>>();
  auto future = promise->get_future();
  std::weak_ptr<State> weak = state_;
  state_->loop.post([weak, promise, args, origin = ctx.origin, run_id = ctx.run_id, key = ctx.session_key,
                     agent = ctx.agent_id] {
    auto s = weak.lock();
    if (!s || !s->alive) return promise->set_value(Error{"UNAVAILABLE", "the gateway is stopping"});
    if (args.value("action", "send") == "react") {
      return message_runtime_detail::react_to_message(*s, args, origin, [promise](Result<json> r) { promise->set_value(std::move(r)); });
    }
    promise->set_value(message_runtime_detail::send_message(*s, args, origin, run_id, key, agent));
  });
  if (future.wait_for(message_runtime_detail::kCallTimeout) != std::future_status::ready)
    return Error{"UNAVAILABLE", "the gateway did not answer within 30 s"};
  return future.get();
}

agent::SessionAnnouncer MessageRuntime::session_announcer() {
  std::weak_ptr<State> weak = state_;
  return [weak](const std::string& agent_id, const std::string& session_key, const std::string& text,
                const std::string& id) -> Status {
    auto s = weak.lock();
    if (!s || !s->alive) return Error{"UNAVAILABLE", "the gateway is stopping"};
    auto chat = agent::session_chat(session_key);
    if (!chat) return Error{"NOT_FOUND", "session " + session_key + " has no chat"};
    return s->channels.announce(agent_id, chat->channel == "last" ? "" : chat->channel, chat->account_id, chat->to,
                                chat->thread_id, text, id);
  };
}

}  // namespace pincer::app
