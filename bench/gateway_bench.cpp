// gateway_bench — one client, two gateways: measures an OpenClaw-protocol gateway (the reference
// OpenClaw or Pincer) the same way, so `make bench` compares like with like.
//
//   gateway_bench --cmd "<command starting the gateway in the foreground>" --port P --token T
//                 [--env K=V]... [--starts 5] [--warmup-starts 0] [--stop-delay-secs 2] [--settle-secs 5]
//                 [--rpc-secs 5] [--rpc-warmup-secs 1] [--inflight 1,8] [--label NAME] [--log FILE] [--json FILE]
//
// Figures (all timings with std::chrono::steady_clock, all on 127.0.0.1):
//   cold start  spawn of the command -> first authenticated `connect` answered by `hello-ok`.
//               The client retries in a tight loop: TCP refused -> sleep --retry-us (200 µs; once
//               more than 0.2 s have passed, 0.1 % of the elapsed time, at most 5 ms);
//               a `connect` answered with a retryable error (OpenClaw: UNAVAILABLE "startup-sidecars")
//               -> sleep --unavailable-retry-ms (5 ms), reconnect. --warmup-starts starts are run
//               first and reported apart; then --starts starts, median reported. State is kept
//               between starts (nothing is wiped here). Each gateway is stopped with SIGTERM
//               --stop-delay-secs (2 s) after its hello-ok, so post-ready startup work is not cut off.
//   idle RSS    VmRSS of the spawned process (and the sum over its process tree) --settle-secs
//               after the last start's hello-ok, from /proc/<pid>/status.
//   health RPC  one new connection, closed loop with N requests outstanding for --rpc-secs each
//               (`{"type":"req","id":"<n>","method":"health","params":{}}`), after --rpc-warmup-secs
//               unmeasured at the largest N; `res` frames are matched by id, `event` frames ignored;
//               throughput = responses / elapsed, latency = send -> matching res, median and p99.
//               The cold-start probes use Beast; the RPC connection uses RawWs (below), which batches
//               its sends, so that the client costs as little CPU as possible.
//   chat turns  (--turns N > 0; the gateway's model must be a mock LLM whose reply ends with "[X]" for a
//               message containing "ECHO:X", as bench/reference/mock-llm.mjs does.) A new connection sends
//               `chat.send {sessionKey, message:"bench turn i ECHO:ti", idempotencyKey}` and waits for the `chat`
//               event of that runId with a terminal state; a turn counts as good when the state is "final" and
//               the text ends with "[ti]". --turn-warmup turns first (reported apart), then N turns in the same
//               session, one after the other: latency = request queued -> final event parsed (p50/p90/min/max),
//               ack = -> `res` {runId, status:"started"}. Then, after --turn-settle-secs, the RSS snapshot.
//   mock alone  (--mock-port P) the body of the gateway's last model request is fetched from the mock
//               (GET /__bench/last-chat-request) and replayed by this client as a streamed POST
//               /v1/chat/completions, --mock-requests times on one keep-alive connection and as many times
//               with a new connection each, timed until the end of the chunked response. Gateway overhead =
//               turn p50 - keep-alive replay p50 (the lower baseline, so the overhead is not understated).
//   concurrency (--sessions S) S sessions (distinct sessionKeys) in parallel over --conc-conns connections
//               (one thread, poll()), each making --session-turns turns one after the other; counts errors
//               (rejected chat.send, state error/aborted, wrong text) and turns not done within
//               --conc-timeout-secs (the run is then cut short and reported as capped).
//
// Command: if --cmd contains only plain words (no quotes or shell metacharacters), it is split on
// spaces and exec'd directly (posix_spawnp; leading NAME=value words become environment); otherwise
// it runs as /bin/sh -c "exec <cmd>". The spawned process must be (or exec into) the gateway and
// stay in the foreground. --env adds environment variables in both modes.
//
// Not part of the test suite; never asserts timings.
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <spawn.h>
#include <sstream>
#include <string>
#include <string_view>
#include <sys/resource.h>
#include <sys/socket.h>
#include <poll.h>
#include <unordered_map>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <random>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = net::ip::tcp;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0, Clock::time_point t1 = Clock::now()) {
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}
double round1(double x) { return std::round(x * 10.0) / 10.0; }
double round3(double x) { return std::round(x * 1000.0) / 1000.0; }

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}
double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
  return v[std::min(v.size() - 1, i == 0 ? 0 : i - 1)];
}

[[noreturn]] void die(const std::string& msg);

// ---------------------------------------------------------------------------------------------
// Options
struct Options {
  std::string cmd;
  std::vector<std::string> env;
  int port = 0;
  std::string token;
  std::string label = "gateway";
  int starts = 5;
  int warmup_starts = 0;
  double settle_secs = 5;
  double rpc_secs = 5;
  double rpc_warmup_secs = 1;
  std::vector<int> inflight = {1, 8};
  int retry_us = 200;
  int unavailable_retry_ms = 5;
  double start_timeout_secs = 120;
  double stop_timeout_secs = 20;
  double stop_delay_secs = 2;
  std::string log = "/dev/null";
  std::string json_out;
  // agent turns (chat.send against a mock LLM); 0 turns = skipped
  int turns = 0;
  int turn_warmup = 1;
  double turn_timeout_secs = 120;
  double turn_settle_secs = 1;
  int mock_port = 0;         // mock LLM to time alone (replays the gateway's last request); 0 = skipped
  int mock_requests = 0;     // 0 = max(--turns, 20)
  int sessions = 0;          // concurrency run: sessions in parallel (0 = skipped)
  int session_turns = 10;    // turns per session, one after the other
  int conc_conns = 4;        // client connections the sessions are spread over
  double conc_timeout_secs = 300;  // cap of the concurrency run
};

void usage() {
  std::cerr << "usage: gateway_bench --cmd \"<gateway command>\" --port P --token T [--env K=V]...\n"
               "         [--starts 5] [--warmup-starts 0] [--settle-secs 5] [--rpc-secs 5] [--rpc-warmup-secs 1]\n"
               "         [--inflight 1,8] [--retry-us 200] [--unavailable-retry-ms 5] [--start-timeout-secs 120]\n"
               "         [--stop-delay-secs 2] [--stop-timeout-secs 20]\n"
               "         [--turns 0] [--turn-warmup 1] [--turn-timeout-secs 120] [--turn-settle-secs 1]\n"
               "         [--mock-port 0] [--mock-requests 0]\n"
               "         [--sessions 0] [--session-turns 10] [--conc-conns 4] [--conc-timeout-secs 300]\n"
               "         [--label NAME] [--log FILE] [--json FILE]\n";
}

Options parse_args(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) die("missing value for " + a);
      return argv[++i];
    };
    if (a == "--cmd") o.cmd = val();
    else if (a == "--env") o.env.push_back(val());
    else if (a == "--port") o.port = std::stoi(val());
    else if (a == "--token") o.token = val();
    else if (a == "--label") o.label = val();
    else if (a == "--starts") o.starts = std::stoi(val());
    else if (a == "--warmup-starts") o.warmup_starts = std::stoi(val());
    else if (a == "--settle-secs") o.settle_secs = std::stod(val());
    else if (a == "--rpc-secs") o.rpc_secs = std::stod(val());
    else if (a == "--rpc-warmup-secs") o.rpc_warmup_secs = std::stod(val());
    else if (a == "--retry-us") o.retry_us = std::stoi(val());
    else if (a == "--unavailable-retry-ms") o.unavailable_retry_ms = std::stoi(val());
    else if (a == "--start-timeout-secs") o.start_timeout_secs = std::stod(val());
    else if (a == "--stop-timeout-secs") o.stop_timeout_secs = std::stod(val());
    else if (a == "--stop-delay-secs") o.stop_delay_secs = std::stod(val());
    else if (a == "--log") o.log = val();
    else if (a == "--json") o.json_out = val();
    else if (a == "--turns") o.turns = std::stoi(val());
    else if (a == "--turn-warmup") o.turn_warmup = std::stoi(val());
    else if (a == "--turn-timeout-secs") o.turn_timeout_secs = std::stod(val());
    else if (a == "--turn-settle-secs") o.turn_settle_secs = std::stod(val());
    else if (a == "--mock-port") o.mock_port = std::stoi(val());
    else if (a == "--mock-requests") o.mock_requests = std::stoi(val());
    else if (a == "--sessions") o.sessions = std::stoi(val());
    else if (a == "--session-turns") o.session_turns = std::stoi(val());
    else if (a == "--conc-conns") o.conc_conns = std::stoi(val());
    else if (a == "--conc-timeout-secs") o.conc_timeout_secs = std::stod(val());
    else if (a == "--inflight") {
      o.inflight.clear();
      std::stringstream ss(val());
      for (std::string x; std::getline(ss, x, ',');) o.inflight.push_back(std::stoi(x));
    } else if (a == "-h" || a == "--help") {
      usage();
      std::exit(0);
    } else {
      usage();
      die("unknown argument: " + a);
    }
  }
  if (o.cmd.empty() || o.port <= 0 || o.token.empty()) {
    usage();
    die("--cmd, --port and --token are required");
  }
  if (o.starts < 1) die("--starts must be >= 1");
  for (int n : o.inflight)
    if (n < 1 || n > 4096) die("--inflight values must be in 1..4096");
  if (o.turns < 0 || o.turn_warmup < 0 || o.sessions < 0 || o.session_turns < 1 || o.mock_requests < 0)
    die("--turns, --turn-warmup, --sessions, --mock-requests must be >= 0, --session-turns >= 1");
  if (o.conc_conns < 1 || o.conc_conns > 64) die("--conc-conns must be in 1..64");
  if (o.mock_requests == 0) o.mock_requests = std::max(o.turns, 20);
  return o;
}

// ---------------------------------------------------------------------------------------------
// /proc helpers
long read_status_kib(pid_t pid, const char* field) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  size_t n = std::strlen(field);
  while (std::getline(f, line))
    if (line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':') return std::atol(line.c_str() + n + 1);
  return 0;
}

struct StatInfo {
  pid_t ppid = 0;
  double cpu_secs = 0;
  bool ok = false;
};
StatInfo read_stat(pid_t pid) {
  StatInfo s;
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  auto rp = all.rfind(')');
  if (rp == std::string::npos || rp + 2 >= all.size()) return s;
  std::istringstream ss(all.substr(rp + 2));
  std::vector<std::string> fld;
  for (std::string x; ss >> x;) fld.push_back(x);
  if (fld.size() < 13) return s;
  static const double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
  s.ppid = std::atoi(fld[1].c_str());
  s.cpu_secs = (std::atof(fld[11].c_str()) + std::atof(fld[12].c_str())) / hz;  // utime + stime
  s.ok = true;
  return s;
}

std::string read_cmdline(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/cmdline");
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  for (char& c : s)
    if (c == '\0') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s.size() > 160 ? s.substr(0, 160) + "..." : s;
}

std::vector<pid_t> process_tree(pid_t root) {
  std::multimap<pid_t, pid_t> children;
  if (DIR* d = opendir("/proc")) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
      pid_t p = std::atoi(e->d_name);
      StatInfo st = read_stat(p);
      if (st.ok) children.emplace(st.ppid, p);
    }
    closedir(d);
  }
  std::vector<pid_t> out, stack{root};
  while (!stack.empty()) {
    pid_t p = stack.back();
    stack.pop_back();
    out.push_back(p);
    auto [b, e] = children.equal_range(p);
    for (auto it = b; it != e; ++it) stack.push_back(it->second);
  }
  return out;
}

json mem_snapshot(pid_t pid) {
  json procs = json::array();
  long tree_kib = 0;
  for (pid_t p : process_tree(pid)) {
    long kib = read_status_kib(p, "VmRSS");
    tree_kib += kib;
    procs.push_back({{"pid", p}, {"rss_kib", kib}, {"cmd", read_cmdline(p)}});
  }
  return {{"main_rss_kib", read_status_kib(pid, "VmRSS")},
          {"main_hwm_kib", read_status_kib(pid, "VmHWM")},
          {"tree_rss_kib", tree_kib},
          {"nprocs", procs.size()},
          {"cpu_secs", round3(read_stat(pid).cpu_secs)},
          {"procs", procs}};
}

// ---------------------------------------------------------------------------------------------
// Gateway process control
std::atomic<pid_t> g_child{0};

void on_signal(int sig) {
  pid_t c = g_child.load();
  if (c > 0) kill(c, SIGTERM);
  _exit(128 + sig);
}

[[noreturn]] void die(const std::string& msg) {
  std::cerr << "gateway_bench: " << msg << std::endl;
  pid_t c = g_child.load();
  if (c > 0) {
    kill(c, SIGTERM);
    for (int i = 0; i < 2000; ++i) {  // <= 10 s
      if (waitpid(c, nullptr, WNOHANG) == c) break;
      usleep(5000);
    }
    kill(c, SIGKILL);
  }
  std::exit(2);
}

bool is_plain_command(const std::string& cmd) {
  for (unsigned char c : cmd)
    if (!(std::isalnum(c) || std::strchr(" _./=:,@%+-", c))) return false;
  return true;
}

struct Spawned {
  pid_t pid = 0;
  Clock::time_point t0;
  double spawn_ms = 0;  // t0 -> posix_spawnp returned (the child has exec'd by then)
  bool exited = false;
  int status = 0;
};

struct Launcher {
  std::vector<std::string> argv_s;
  std::vector<std::string> env_s;
  std::string mode;
  std::string log;

  explicit Launcher(const Options& o) : log(o.log) {
    std::map<std::string, std::string> env;
    for (char** e = environ; *e; ++e) {
      std::string kv = *e;
      auto eq = kv.find('=');
      if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    auto add_env = [&](const std::string& kv) {
      auto eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) die("bad environment assignment: " + kv);
      env[kv.substr(0, eq)] = kv.substr(eq + 1);
    };
    if (is_plain_command(o.cmd)) {
      mode = "direct";
      std::istringstream ss(o.cmd);
      bool leading = true;
      for (std::string w; ss >> w;) {
        auto eq = w.find('=');
        bool assign = leading && eq != std::string::npos && eq > 0 && w.find('/') > eq;
        if (assign) add_env(w);
        else {
          leading = false;
          argv_s.push_back(w);
        }
      }
      if (argv_s.empty()) die("empty command");
    } else {
      mode = "sh";
      argv_s = {"/bin/sh", "-c", "exec " + o.cmd};
    }
    for (const auto& kv : o.env) add_env(kv);
    for (auto& [k, v] : env) env_s.push_back(k + "=" + v);
  }

  Spawned spawn() {
    std::vector<char*> av, ev;
    for (auto& s : argv_s) av.push_back(s.data());
    av.push_back(nullptr);
    for (auto& s : env_s) ev.push_back(s.data());
    ev.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    Spawned s;
    s.t0 = Clock::now();
    int rc = posix_spawnp(&s.pid, av[0], &fa, nullptr, av.data(), ev.data());
    s.spawn_ms = ms_since(s.t0);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) die(std::string("posix_spawnp ") + av[0] + ": " + std::strerror(rc));
    g_child = s.pid;
    return s;
  }
};

bool poll_exit(Spawned& s) {
  if (s.exited) return true;
  int st = 0;
  if (waitpid(s.pid, &st, WNOHANG) == s.pid) {
    s.exited = true;
    s.status = st;
    g_child = 0;
  }
  return s.exited;
}

std::string exit_text(int st) {
  if (WIFEXITED(st)) return "exit code " + std::to_string(WEXITSTATUS(st));
  if (WIFSIGNALED(st)) return std::string("signal ") + strsignal(WTERMSIG(st));
  return "status " + std::to_string(st);
}

// SIGTERM, wait (bounded), SIGKILL what is left of the tree (by pid). Returns ms until the main process exited.
double stop_gateway(Spawned& s, double timeout_secs) {
  std::vector<pid_t> tree = process_tree(s.pid);
  auto t0 = Clock::now();
  if (!poll_exit(s)) kill(s.pid, SIGTERM);
  while (!poll_exit(s) && ms_since(t0) < timeout_secs * 1000) usleep(1000);
  double ms = ms_since(t0);
  if (!s.exited) {
    std::cerr << "  gateway did not exit " << timeout_secs << " s after SIGTERM: SIGKILL\n";
    kill(s.pid, SIGKILL);
    waitpid(s.pid, &s.status, 0);
    s.exited = true;
    g_child = 0;
  }
  // helpers of the gateway that outlived it (reparented): give them a moment, then SIGKILL by pid
  for (int i = 0; i < 200; ++i) {
    bool any = false;
    for (pid_t p : tree)
      if (p != s.pid && kill(p, 0) == 0) any = true;
    if (!any) break;
    usleep(10000);
  }
  for (pid_t p : tree)
    if (p != s.pid && kill(p, 0) == 0) kill(p, SIGKILL);
  return ms;
}

// ---------------------------------------------------------------------------------------------
// Deadline: a helper thread that shuts a socket down when an operation overruns, so the blocking
// (synchronous, fastest) Beast calls below never hang.
class Watchdog {
 public:
  Watchdog() : th_([this] { loop(); }) {}
  ~Watchdog() {
    {
      std::lock_guard lk(m_);
      stop_ = true;
    }
    cv_.notify_all();
    th_.join();
  }
  void arm(int fd, double secs) {
    {
      std::lock_guard lk(m_);
      fd_ = fd;
      fired_ = false;
      deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(secs));
    }
    cv_.notify_all();
  }
  bool disarm() {
    std::lock_guard lk(m_);
    fd_ = -1;
    return fired_;
  }

 private:
  void loop() {
    std::unique_lock lk(m_);
    while (!stop_) {
      if (fd_ < 0) {
        cv_.wait(lk);
        continue;
      }
      auto dl = deadline_;
      if (cv_.wait_until(lk, dl) == std::cv_status::timeout && fd_ >= 0 && deadline_ == dl) {
        ::shutdown(fd_, SHUT_RDWR);
        fired_ = true;
        fd_ = -1;
      }
    }
  }
  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool fired_ = false;
  int fd_ = -1;
  Clock::time_point deadline_;
  std::thread th_;
};

// ---------------------------------------------------------------------------------------------
// Minimal top-level field scan: "type", "id" (string values) and "ok" (bool) of a frame, without a
// full JSON parse, stopping as soon as all three are seen (keeps the client cheap at 100k+ msg/s).
struct FrameHead {
  std::string_view type, id;
  int ok = -1;  // -1 absent, 0 false, 1 true
};

size_t skip_ws(std::string_view s, size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')) ++i;
  return i;
}
size_t skip_string(std::string_view s, size_t i) {  // s[i] == '"'; returns index after closing quote
  for (++i; i < s.size(); ++i) {
    if (s[i] == '\\') ++i;
    else if (s[i] == '"') return i + 1;
  }
  return std::string_view::npos;
}
size_t skip_value(std::string_view s, size_t i) {
  if (i >= s.size()) return std::string_view::npos;
  if (s[i] == '"') return skip_string(s, i);
  if (s[i] == '{' || s[i] == '[') {
    int depth = 0;
    for (; i < s.size(); ++i) {
      char c = s[i];
      if (c == '"') {
        i = skip_string(s, i);
        if (i == std::string_view::npos) return i;
        --i;
      } else if (c == '{' || c == '[') ++depth;
      else if (c == '}' || c == ']') {
        if (--depth == 0) return i + 1;
      }
    }
    return std::string_view::npos;
  }
  while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' && s[i] != '\n') ++i;
  return i;
}

bool scan_head(std::string_view s, FrameHead& h) {
  size_t i = skip_ws(s, 0);
  if (i >= s.size() || s[i] != '{') return false;
  i = skip_ws(s, i + 1);
  bool have_type = false, have_id = false;
  while (i < s.size() && s[i] == '"') {
    size_t ke = skip_string(s, i);
    if (ke == std::string_view::npos) return false;
    std::string_view key = s.substr(i + 1, ke - i - 2);
    i = skip_ws(s, ke);
    if (i >= s.size() || s[i] != ':') return false;
    i = skip_ws(s, i + 1);
    if (i >= s.size()) return false;
    size_t ve = skip_value(s, i);
    if (ve == std::string_view::npos) return false;
    if (key == "type" && s[i] == '"') h.type = s.substr(i + 1, ve - i - 2), have_type = true;
    else if (key == "id" && s[i] == '"') h.id = s.substr(i + 1, ve - i - 2), have_id = true;
    else if (key == "ok") h.ok = s[i] == 't' ? 1 : 0;
    if (have_type && (h.type != "res" || (have_id && h.ok >= 0))) return true;
    i = skip_ws(s, ve);
    if (i < s.size() && s[i] == ',') i = skip_ws(s, i + 1);
    else break;
  }
  return have_type;
}

// ---------------------------------------------------------------------------------------------
// Client
struct Client {
  net::io_context& ioc;
  std::optional<websocket::stream<tcp::socket>> ws;
  beast::flat_buffer buf;

  explicit Client(net::io_context& c) : ioc(c) {}

  int fd() { return ws ? static_cast<int>(beast::get_lowest_layer(*ws).native_handle()) : -1; }

  // TCP connect only; false when refused (not listening yet). Plain syscalls (cheap: this runs
  // thousands of times while a gateway starts); the connected socket is then handed to Beast.
  bool tcp_connect(int port, beast::error_code& ec) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) die(std::string("socket: ") + std::strerror(errno));
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      ec = beast::error_code(errno, boost::system::system_category());
      ::close(fd);
      return false;
    }
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ws.emplace(ioc);
    beast::get_lowest_layer(*ws).assign(tcp::v4(), fd, ec);
    if (ec) die("socket assign: " + ec.message());
    return true;
  }
  void handshake(int port, beast::error_code& ec) {
    ws->set_option(websocket::stream_base::decorator(
        [](websocket::request_type& req) { req.set(beast::http::field::user_agent, "pincer-gateway-bench"); }));
    ws->secure_prng(false);
    ws->auto_fragment(false);
    ws->read_message_max(64u << 20);
    ws->text(true);
    ws->handshake("127.0.0.1:" + std::to_string(port), "/", ec);
  }
  std::string_view read(beast::error_code& ec) {
    buf.consume(buf.size());
    ws->read(buf, ec);
    if (ec) return {};
    return {static_cast<const char*>(buf.data().data()), buf.size()};
  }
  void write(std::string_view s, beast::error_code& ec) { ws->write(net::buffer(s.data(), s.size()), ec); }
  void close() {
    if (!ws) return;
    beast::error_code ec;
    auto& sock = beast::get_lowest_layer(*ws);
    sock.shutdown(tcp::socket::shutdown_both, ec);
    sock.close(ec);
    ws.reset();
  }
};

std::string connect_frame(const std::string& token) {
  json j = {{"type", "req"},
            {"id", "c1"},
            {"method", "connect"},
            {"params",
             {{"minProtocol", 3},
              {"maxProtocol", 4},
              {"client", {{"id", "cli"}, {"version", "bench"}, {"platform", "linux"}, {"mode", "cli"}}},
              {"role", "operator"},
              {"scopes", {"operator.admin", "operator.read", "operator.write"}},
              {"caps", json::array()},
              {"auth", {{"token", token}}}}}};
  return j.dump();
}

enum class Attempt { Refused, Closed, Retryable, HelloOk };

struct AttemptResult {
  Attempt kind = Attempt::Refused;
  bool got_challenge = false;
  json hello;        // payload of hello-ok
  std::string info;  // error text
};

// One connect attempt: TCP, WS upgrade, connect.challenge, connect -> hello-ok. Fatal errors die().
AttemptResult try_connect(Client& c, Watchdog& wd, const Options& o, double timeout_secs) {
  AttemptResult r;
  beast::error_code ec;
  if (!c.tcp_connect(o.port, ec)) {
    c.close();
    r.kind = Attempt::Refused;
    r.info = ec.message();
    return r;
  }
  wd.arm(c.fd(), timeout_secs);
  auto fail = [&](Attempt k, std::string info) {
    bool fired = wd.disarm();
    c.close();
    r.kind = k;
    r.info = fired ? "timeout: " + info : info;
    return r;
  };
  c.handshake(o.port, ec);
  if (ec) return fail(Attempt::Closed, "ws handshake: " + ec.message());
  // server speaks first: connect.challenge
  for (;;) {
    auto m = c.read(ec);
    if (ec) return fail(Attempt::Closed, "waiting for connect.challenge: " + ec.message());
    json j = json::parse(m, nullptr, false);
    if (j.is_object() && j.value("type", "") == "event" && j.value("event", "") == "connect.challenge") break;
  }
  r.got_challenge = true;
  c.write(connect_frame(o.token), ec);
  if (ec) return fail(Attempt::Closed, "send connect: " + ec.message());
  for (;;) {
    auto m = c.read(ec);
    if (ec) return fail(Attempt::Closed, "waiting for connect res: " + ec.message());
    json j = json::parse(m, nullptr, false);
    if (!j.is_object() || j.value("type", "") != "res" || j.value("id", "") != "c1") continue;
    if (j.value("ok", false) && j.contains("payload") && j["payload"].is_object() &&
        j["payload"].value("type", "") == "hello-ok") {
      wd.disarm();
      r.kind = Attempt::HelloOk;
      r.hello = std::move(j["payload"]);
      return r;
    }
    json err = j.value("error", json::object());
    bool retryable = err.is_object() && (err.value("retryable", false) || err.value("code", "") == "UNAVAILABLE");
    std::string text = err.dump();
    if (!retryable) {
      wd.disarm();
      c.close();
      die("connect rejected (not retryable): " + text);
    }
    if (err.is_object() && err.contains("details") && err["details"].is_object())
      text = err.value("code", "") + ":" + err["details"].value("reason", "");
    else if (err.is_object())
      text = err.value("code", "");
    return fail(Attempt::Retryable, text);
  }
}

// ---------------------------------------------------------------------------------------------
double self_cpu_secs();

struct StartSample {
  double tcp_ms = -1, challenge_ms = -1, hello_ms = -1, cpu_secs = 0, client_cpu_secs = 0;
  int attempts = 0, refused = 0, retryable = 0, closed = 0;
  std::map<std::string, double> first_seen;  // distinct non-ready answers -> first time seen (ms)
  json hello;
};

StartSample cold_start(Launcher& L, Spawned& s, Client& c, Watchdog& wd, const Options& o) {
  StartSample r;
  double cpu0 = self_cpu_secs();
  s = L.spawn();
  for (;;) {
    double now = ms_since(s.t0);
    if (now > o.start_timeout_secs * 1000) die("gateway not ready after " + std::to_string(o.start_timeout_secs) + " s (log: " + o.log + ")");
    if (poll_exit(s)) die("gateway exited during start: " + exit_text(s.status) + " (log: " + o.log + ")");
    ++r.attempts;
    AttemptResult a = try_connect(c, wd, o, 10.0);
    double t = ms_since(s.t0);
    if (a.kind != Attempt::Refused && r.tcp_ms < 0) r.tcp_ms = t;
    if (a.got_challenge && r.challenge_ms < 0) r.challenge_ms = t;
    if (a.kind == Attempt::HelloOk) {
      r.hello_ms = t;
      r.hello = std::move(a.hello);
      r.cpu_secs = read_stat(s.pid).cpu_secs;
      r.client_cpu_secs = self_cpu_secs() - cpu0;
      c.close();
      return r;
    }
    std::string key = a.kind == Attempt::Refused ? "refused" : a.info.substr(0, 80);
    if (!r.first_seen.count(key)) r.first_seen[key] = round3(t);
    if (a.kind == Attempt::Refused) {
      ++r.refused;
      // --retry-us, but at most 0.1 % of the time elapsed so far (capped at 5 ms): keeps the
      // resolution where it matters (fast starts) and the client's CPU use low during slow ones.
      auto elapsed_us = static_cast<long>(t * 1000.0);
      std::this_thread::sleep_for(std::chrono::microseconds(std::max<long>(o.retry_us, std::min<long>(5000, elapsed_us / 1000))));
    } else if (a.kind == Attempt::Retryable) {
      ++r.retryable;
      std::this_thread::sleep_for(std::chrono::milliseconds(o.unavailable_retry_ms));
    } else {
      ++r.closed;
      std::this_thread::sleep_for(std::chrono::microseconds(o.retry_us));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// RawWs: the connection used for the RPC throughput test. A minimal RFC 6455 client on a plain
// blocking socket, so that the client can batch: it parses every frame already received, queues
// the follow-up requests, and sends them with one send() before it blocks in recv() again.
// (Beast's synchronous stream costs one syscall per message; with the 2 cores shared by client and
// gateway the client would then be the bottleneck at high rates.) Client frames are masked; server
// pings are answered with pongs; fragmented messages are reassembled.
class RawWs {
 public:
  ~RawWs() { close(); }
  int fd() const { return fd_; }
  uint64_t recvs = 0, sends = 0;  // syscalls, to see how well requests/responses batch

  void open(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) die(std::string("socket: ") + std::strerror(errno));
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) die(std::string("rpc connect: ") + std::strerror(errno));
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    std::random_device rd;
    mask_ = rd();
    std::string key = "dGhlIHNhbXBsZSBub25jZQ==";  // any 16-byte base64 value is valid
    std::string req = "GET / HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                      "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " + key +
                      "\r\nSec-WebSocket-Version: 13\r\nUser-Agent: pincer-gateway-bench\r\n\r\n";
    out_ = req;
    flush();
    size_t end;
    while ((end = std::string_view(in_.data(), end_).find("\r\n\r\n")) == std::string_view::npos) fill("upgrade response");
    std::string head(in_.data(), end);
    if (head.compare(0, 12, "HTTP/1.1 101") != 0) die("rpc: websocket upgrade refused: " + head.substr(0, 200));
    pos_ = end + 4;
  }

  // Append one masked text frame to the send queue.
  void queue_text(std::string_view payload) {
    size_t n = payload.size();
    out_.push_back(static_cast<char>(0x81));  // FIN | text
    if (n < 126) out_.push_back(static_cast<char>(0x80 | n));
    else if (n < 65536) {
      out_.push_back(static_cast<char>(0x80 | 126));
      out_.push_back(static_cast<char>((n >> 8) & 0xff));
      out_.push_back(static_cast<char>(n & 0xff));
    } else {
      out_.push_back(static_cast<char>(0x80 | 127));
      for (int s = 56; s >= 0; s -= 8) out_.push_back(static_cast<char>((static_cast<uint64_t>(n) >> s) & 0xff));
    }
    append_masked(payload, 0);
  }
  bool pending() const { return !out_.empty(); }
  void flush() {
    ++sends;
    size_t off = 0;
    while (off < out_.size()) {
      ssize_t w = ::send(fd_, out_.data() + off, out_.size() - off, MSG_NOSIGNAL);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) die(std::string("rpc send: ") + std::strerror(errno));
      off += static_cast<size_t>(w);
    }
    out_.clear();
  }

  // Next complete text/binary message, or false when none is fully buffered (no syscall).
  bool next(std::string_view& msg) {
    for (;;) {
      size_t avail = end_ - pos_;
      if (avail < 2) return false;
      auto* p = reinterpret_cast<const unsigned char*>(in_.data() + pos_);
      bool fin = p[0] & 0x80;
      int op = p[0] & 0x0f;
      bool masked = p[1] & 0x80;
      uint64_t len = p[1] & 0x7f;
      size_t hdr = 2;
      if (len == 126) {
        if (avail < 4) return false;
        len = (uint64_t{p[2]} << 8) | p[3];
        hdr = 4;
      } else if (len == 127) {
        if (avail < 10) return false;
        len = 0;
        for (int i = 0; i < 8; ++i) len = (len << 8) | p[2 + i];
        hdr = 10;
      }
      size_t mhdr = hdr + (masked ? 4 : 0);
      if (avail < mhdr || avail - mhdr < len) return false;
      char* data = in_.data() + pos_ + mhdr;
      if (masked)
        for (uint64_t i = 0; i < len; ++i) data[i] = static_cast<char>(data[i] ^ p[hdr + (i & 3)]);
      std::string_view payload(data, len);
      pos_ += mhdr + len;
      if (op == 0x9) {  // ping -> pong (sent with the next flush)
        out_.push_back(static_cast<char>(0x8A));
        out_.push_back(static_cast<char>(0x80 | std::min<size_t>(len, 125)));
        append_masked(payload.substr(0, 125), 0);
        continue;
      }
      if (op == 0xA) continue;  // pong
      if (op == 0x8) die("rpc: server closed the connection: " + std::string(payload.substr(payload.size() >= 2 ? 2 : 0)));
      if (op == 0x0 || !fin) {  // fragmented message
        frag_.append(payload);
        if (!fin) continue;
        msg_.swap(frag_);
        frag_.clear();
        msg = msg_;
        return true;
      }
      msg = payload;
      return true;
    }
  }

  // Block until more bytes arrive (previously returned views stay valid until the next fill()).
  void fill(const char* what) {
    if (pos_ == end_) pos_ = end_ = 0;
    if (in_.size() - end_ < kChunk) {  // make room: move the partial frame to the front, grow if needed
      std::memmove(in_.data(), in_.data() + pos_, end_ - pos_);
      end_ -= pos_;
      pos_ = 0;
      if (in_.size() - end_ < kChunk) in_.resize(std::max(in_.size() * 2, end_ + kChunk));
    }
    ssize_t r;
    do r = ::recv(fd_, in_.data() + end_, in_.size() - end_, 0);
    while (r < 0 && errno == EINTR);
    if (r == 0) die(std::string("rpc: connection closed while waiting for ") + what);
    if (r < 0) die(std::string("rpc recv (") + what + "): " + std::strerror(errno));
    end_ += static_cast<size_t>(r);
    ++recvs;
  }

  // Blocking: next message.
  std::string_view read(const char* what) {
    std::string_view m;
    while (!next(m)) {
      if (pending()) flush();
      fill(what);
    }
    return m;
  }

  void close() {
    if (fd_ >= 0) {
      ::shutdown(fd_, SHUT_RDWR);
      ::close(fd_);
      fd_ = -1;
    }
  }

 private:
  static constexpr size_t kChunk = 64 * 1024;
  void append_masked(std::string_view payload, int) {
    unsigned char m[4] = {static_cast<unsigned char>(mask_ >> 24), static_cast<unsigned char>(mask_ >> 16),
                          static_cast<unsigned char>(mask_ >> 8), static_cast<unsigned char>(mask_)};
    for (unsigned char b : m) out_.push_back(static_cast<char>(b));
    size_t base = out_.size();
    out_.append(payload);
    for (size_t i = 0; i < payload.size(); ++i) out_[base + i] = static_cast<char>(out_[base + i] ^ m[i & 3]);
  }
  int fd_ = -1;
  uint32_t mask_ = 0;
  std::vector<char> in_ = std::vector<char>(4 * kChunk);  // received bytes: [pos_, end_) not parsed yet
  size_t pos_ = 0, end_ = 0;
  std::string out_, frag_, msg_;
};

// Open the RPC connection: upgrade, connect.challenge, connect -> hello-ok.
void raw_connect(RawWs& ws, Watchdog& wd, const Options& o) {
  ws.open(o.port);
  wd.arm(ws.fd(), 30);
  for (;;) {
    json j = json::parse(ws.read("connect.challenge"), nullptr, false);
    if (j.is_object() && j.value("type", "") == "event" && j.value("event", "") == "connect.challenge") break;
  }
  ws.queue_text(connect_frame(o.token));
  ws.flush();
  for (;;) {
    json j = json::parse(ws.read("connect response"), nullptr, false);
    if (!j.is_object() || j.value("type", "") != "res" || j.value("id", "") != "c1") continue;
    if (j.value("ok", false) && j["payload"].is_object() && j["payload"].value("type", "") == "hello-ok") break;
    die("rpc connection: connect rejected: " + j.dump().substr(0, 400));
  }
  wd.disarm();
}

// ---------------------------------------------------------------------------------------------
// health RPC closed loop
double self_cpu_secs() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

double tree_cpu_secs(pid_t pid) {
  double sum = 0;
  for (pid_t p : process_tree(pid)) sum += read_stat(p).cpu_secs;
  return sum;
}

// Whole machine, from /proc/stat: CPU seconds busy (not idle/iowait) and wall seconds x cores, so a phase can
// say how much of the machine other processes (and the mock) used meanwhile: the main source of noise here.
struct SysCpu {
  double busy = 0, total = 0;
};
SysCpu sys_cpu() {
  std::ifstream f("/proc/stat");
  std::string cpu;
  SysCpu r;
  f >> cpu;
  if (cpu != "cpu") return r;
  static const double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
  double v[8] = {0};
  for (double& x : v) f >> x;
  for (double x : v) r.total += x;
  r.busy = (r.total - v[3] - v[4]) / hz;  // minus idle, iowait
  r.total /= hz;
  return r;
}
// The process listening on 127.0.0.1:port (the mock LLM), from /proc/net/tcp and /proc/*/fd; 0 if not found.
pid_t pid_listening_on(int port) {
  std::ifstream f("/proc/net/tcp");
  std::string line, inode;
  std::getline(f, line);  // header
  while (std::getline(f, line)) {
    std::istringstream ss(line);
    std::vector<std::string> fld;
    for (std::string x; ss >> x;) fld.push_back(x);
    if (fld.size() < 10 || fld[3] != "0A") continue;  // LISTEN
    auto colon = fld[1].find(':');
    if (colon == std::string::npos || std::stoi(fld[1].substr(colon + 1), nullptr, 16) != port) continue;
    inode = fld[9];
    break;
  }
  if (inode.empty()) return 0;
  std::string want = "socket:[" + inode + "]";
  pid_t found = 0;
  if (DIR* d = opendir("/proc")) {
    for (dirent* e = readdir(d); !found && e; e = readdir(d)) {
      if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
      std::string fdir = std::string("/proc/") + e->d_name + "/fd";
      if (DIR* fd = opendir(fdir.c_str())) {
        while (dirent* x = readdir(fd)) {
          char buf[64];
          ssize_t n = readlink((fdir + "/" + x->d_name).c_str(), buf, sizeof buf - 1);
          if (n > 0 && want.compare(0, std::string::npos, buf, static_cast<size_t>(n)) == 0) {
            found = std::atoi(e->d_name);
            break;
          }
        }
        closedir(fd);
      }
    }
    closedir(d);
  }
  return found;
}
pid_t g_mock_pid = 0;
double mock_cpu_secs() { return g_mock_pid > 0 ? read_stat(g_mock_pid).cpu_secs : 0; }

// What used the CPUs during a phase: the whole machine, the gateway (process tree), this client, the mock
// LLM and everything else (other processes: builds etc.).
json cpu_share(const SysCpu& a, const SysCpu& b, double gateway, double client, double mock) {
  double busy = b.busy - a.busy, total = b.total - a.total;
  return {{"machine_busy_secs", round3(busy)},
          {"machine_secs", round3(total)},
          {"gateway_secs", round3(gateway)},
          {"client_secs", round3(client)},
          {"mock_secs", round3(mock)},
          {"others_secs", round3(std::max(0.0, busy - gateway - client - mock))}};
}

struct RpcStats {
  int inflight = 0;
  double client_cpu_secs = 0, server_cpu_secs = 0;
  long responses = 0, errors = 0, events = 0;
  uint64_t recvs = 0, sends = 0;
  double secs = 0, per_sec = 0, median_ms = 0, p99_ms = 0, mean_ms = 0;
  size_t first_res_bytes = 0;
};

RpcStats rpc_loop(RawWs& c, Watchdog& wd, pid_t server, int inflight, double secs, uint64_t& next_id) {
  constexpr size_t kRing = 1u << 16;
  static std::vector<Clock::time_point> sent(kRing);
  RpcStats st;
  st.inflight = inflight;
  std::vector<double> lat;
  lat.reserve(static_cast<size_t>(std::max(1.0, secs) * 400000));
  std::string frame;
  frame.reserve(96);
  auto send_one = [&] {  // queued; flushed (one send() per batch) before the client blocks in recv()
    uint64_t id = next_id++;
    frame.assign(R"({"type":"req","id":")");
    char num[24];
    auto [e, _] = std::to_chars(num, num + sizeof num, id);
    frame.append(num, e);
    frame += R"(","method":"health","params":{}})";
    sent[id & (kRing - 1)] = Clock::now();
    c.queue_text(frame);
  };
  uint64_t first_id = next_id;
  wd.arm(c.fd(), secs + 30);
  double cpu0 = self_cpu_secs(), scpu0 = tree_cpu_secs(server);
  uint64_t recv0 = c.recvs, send0 = c.sends;
  auto t0 = Clock::now();
  auto t_end = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(secs));
  int outstanding = 0;
  for (int i = 0; i < inflight; ++i, ++outstanding) send_one();
  c.flush();
  bool sending = true;
  Clock::time_point t_stop = t_end;
  bool validated = false;
  while (outstanding > 0) {
    auto m = c.read("health responses");
    FrameHead h;
    if (!scan_head(m, h)) die("rpc: unparsable frame: " + std::string(m.substr(0, 200)));
    if (h.type != "res") {
      ++st.events;
      continue;
    }
    uint64_t id = 0;
    auto [p, perr] = std::from_chars(h.id.data(), h.id.data() + h.id.size(), id);
    if (perr != std::errc() || id < first_id || id >= next_id) continue;  // not ours
    auto now = Clock::now();
    --outstanding;
    if (!validated) {  // check one full response per run
      json j = json::parse(m, nullptr, false);
      if (!j.is_object() || !j.contains("payload")) die("rpc: unexpected health response: " + std::string(m.substr(0, 300)));
      st.first_res_bytes = m.size();
      validated = true;
    }
    if (!sending) continue;  // draining after the deadline: not counted
    if (h.ok != 1) ++st.errors;
    ++st.responses;
    lat.push_back(ms_since(sent[id & (kRing - 1)], now));
    if (now >= t_end) {
      sending = false;
      t_stop = now;
      continue;
    }
    send_one();
    ++outstanding;
  }
  wd.disarm();
  st.client_cpu_secs = self_cpu_secs() - cpu0;
  st.recvs = c.recvs - recv0;
  st.sends = c.sends - send0;
  st.server_cpu_secs = tree_cpu_secs(server) - scpu0;
  st.secs = std::chrono::duration<double>(t_stop - t0).count();
  st.per_sec = st.responses / st.secs;
  st.median_ms = median(lat);
  st.p99_ms = percentile(lat, 99);
  double sum = 0;
  for (double x : lat) sum += x;
  st.mean_ms = lat.empty() ? 0 : sum / static_cast<double>(lat.size());
  return st;
}

std::string fmt(double x, int prec = 1) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", prec, x);
  return b;
}

std::string now_iso() {
  std::time_t t = std::time(nullptr);
  char b[64];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return b;
}

// ---------------------------------------------------------------------------------------------
// Agent turns: chat.send -> terminal `chat` event, against the mock LLM.

// Next message, waiting at most until `deadline`; false on timeout (a server close still dies).
bool read_until(RawWs& ws, std::string_view& m, Clock::time_point deadline, const char* what) {
  while (!ws.next(m)) {
    if (ws.pending()) ws.flush();
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{ws.fd(), POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 60000)));
    if (r < 0 && errno != EINTR) die(std::string("poll: ") + std::strerror(errno));
    if (r > 0) ws.fill(what);
  }
  return true;
}

std::string chat_send_frame(const std::string& id, const std::string& session, const std::string& message,
                            const std::string& key) {
  json j = {{"type", "req"},
            {"id", id},
            {"method", "chat.send"},
            {"params", {{"sessionKey", session}, {"message", message}, {"idempotencyKey", key}}}};
  return j.dump();
}

// Cheap pre-filter: does this frame look like a terminal `chat` event? (confirmed by a full parse)
bool maybe_terminal(std::string_view m) {
  return m.find("\"state\":\"final\"") != std::string_view::npos || m.find("\"state\":\"error\"") != std::string_view::npos ||
         m.find("\"state\":\"aborted\"") != std::string_view::npos;
}

// payload of a `chat` event frame with a terminal state, or null
json terminal_chat_payload(std::string_view m) {
  if (!maybe_terminal(m)) return nullptr;
  json j = json::parse(m, nullptr, false);
  if (!j.is_object() || j.value("type", "") != "event" || j.value("event", "") != "chat") return nullptr;
  auto it = j.find("payload");
  if (it == j.end() || !it->is_object()) return nullptr;
  std::string st = it->value("state", "");
  if (st != "final" && st != "error" && st != "aborted") return nullptr;
  return std::move(*it);
}

std::string message_text(const json& payload) {
  auto it = payload.find("message");
  if (it == payload.end()) return "";
  const json& msg = *it;
  if (msg.is_string()) return msg.get<std::string>();
  if (!msg.is_object()) return "";
  auto c = msg.find("content");
  if (c == msg.end()) return "";
  if (c->is_string()) return c->get<std::string>();
  std::string out;
  if (c->is_array())
    for (const auto& part : *c)
      if (part.is_object() && part.contains("text") && part["text"].is_string()) out += part["text"].get<std::string>();
  return out;
}

bool ends_with_marker(std::string text, const std::string& marker) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  std::string want = "[" + marker + "]";
  return text.size() >= want.size() && text.compare(text.size() - want.size(), want.size(), want) == 0;
}

std::string terminal_error(const json& payload, const std::string& marker) {
  std::string st = payload.value("state", "");
  if (st == "final") {
    std::string text = message_text(payload);
    if (ends_with_marker(text, marker)) return "";
    return "final text does not end with [" + marker + "]: " + text.substr(0, 200);
  }
  std::string msg = payload.value("errorMessage", "");
  if (msg.empty() && payload.contains("stopReason") && payload["stopReason"].is_string()) msg = payload["stopReason"].get<std::string>();
  return "state " + st + (msg.empty() ? "" : ": " + msg.substr(0, 200));
}

std::string g_key_prefix;  // unique per bench invocation: idempotency keys never repeat across runs
uint64_t g_key_seq = 0;
std::string next_key() { return g_key_prefix + "-" + std::to_string(++g_key_seq); }

struct TurnResult {
  double ack_ms = -1, first_delta_ms = -1, final_ms = -1;
  std::string error;  // "" = good turn
};

// One turn on `ws`, in `session`; blocks until the terminal event (and the ack) or the timeout.
TurnResult run_turn(RawWs& ws, const std::string& session, int i, double timeout_secs) {
  TurnResult r;
  std::string marker = "t" + std::to_string(i);
  std::string key = next_key(), id = "turn" + std::to_string(g_key_seq);
  std::string run_id = key;
  ws.queue_text(chat_send_frame(id, session, "bench turn " + std::to_string(i) + " ECHO:" + marker, key));
  auto t0 = Clock::now();
  ws.flush();
  auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_secs));
  bool acked = false, terminal = false;
  while (!(acked && terminal)) {
    std::string_view m;
    if (!read_until(ws, m, deadline, "chat turn")) {
      r.error = std::string("timeout after ") + fmt(timeout_secs, 0) + " s (" + (acked ? "acked" : "no ack") + ", no terminal chat event)";
      return r;
    }
    auto now = Clock::now();
    FrameHead h;
    if (!scan_head(m, h)) continue;
    if (h.type == "res") {
      if (h.id != id) continue;
      r.ack_ms = ms_since(t0, now);
      acked = true;
      json j = json::parse(m, nullptr, false);
      if (h.ok != 1 || !j.is_object()) {
        r.error = "chat.send rejected: " + std::string(m.substr(0, 300));
        return r;
      }
      if (j.contains("payload") && j["payload"].is_object() && j["payload"].contains("runId") && j["payload"]["runId"].is_string())
        run_id = j["payload"]["runId"].get<std::string>();
      continue;
    }
    if (h.type != "event") continue;
    if (r.first_delta_ms < 0 && m.find("\"state\":\"delta\"") != std::string_view::npos && m.find(run_id) != std::string_view::npos)
      r.first_delta_ms = ms_since(t0, now);
    json p = terminal_chat_payload(m);
    if (p.is_null() || (p.value("runId", "") != run_id && p.value("runId", "") != key)) continue;
    r.final_ms = ms_since(t0, now);
    r.error = terminal_error(p, marker);
    terminal = true;
  }
  return r;
}

json dist(const std::vector<double>& v) {
  if (v.empty()) return {{"n", 0}};
  double sum = 0;
  for (double x : v) sum += x;
  return {{"n", v.size()},
          {"p50_ms", round3(median(v))},
          {"p90_ms", round3(percentile(v, 90))},
          {"p99_ms", round3(percentile(v, 99))},
          {"min_ms", round3(*std::min_element(v.begin(), v.end()))},
          {"max_ms", round3(*std::max_element(v.begin(), v.end()))},
          {"mean_ms", round3(sum / static_cast<double>(v.size()))}};
}

// The single-session series: --turn-warmup + --turns turns on one new connection.
json turn_series(const Options& o, Watchdog& wd, pid_t server) {
  RawWs ws;
  raw_connect(ws, wd, o);
  std::string session = "bench-turns-" + g_key_prefix;
  json warm = json::array(), all = json::array(), errs = json::array();
  std::vector<double> lat, ack, delta;
  int errors = 0;
  double scpu0 = 0, ccpu0 = 0, mcpu0 = 0;
  SysCpu sys0;
  auto tseries = Clock::now();
  for (int i = 0; i < o.turn_warmup + o.turns; ++i) {
    bool warmup = i < o.turn_warmup;
    if (i == o.turn_warmup) {
      scpu0 = tree_cpu_secs(server);
      ccpu0 = self_cpu_secs();
      sys0 = sys_cpu();
      mcpu0 = mock_cpu_secs();
      tseries = Clock::now();
    }
    TurnResult r = run_turn(ws, session, i, o.turn_timeout_secs);
    json jt = {{"turn", i}, {"ack_ms", round3(r.ack_ms)}, {"first_delta_ms", round3(r.first_delta_ms)}, {"final_ms", round3(r.final_ms)}};
    if (!r.error.empty()) jt["error"] = r.error;
    std::cerr << "[" << o.label << "] " << (warmup ? "warm-up turn " : "turn ") << i << ": " << fmt(r.final_ms, 3) << " ms (ack "
              << fmt(r.ack_ms, 3) << ")" << (r.error.empty() ? "" : " ERROR " + r.error) << "\n";
    (warmup ? warm : all).push_back(jt);
    bool timed_out = r.error.compare(0, 7, "timeout") == 0;
    if (!warmup && !r.error.empty()) {
      ++errors;
      if (errs.size() < 5) errs.push_back(r.error);
    }
    if (timed_out) {  // a gateway that does not answer within --turn-timeout-secs: do not wait that long again and again
      int left = o.turn_warmup + o.turns - i - 1;
      errors += std::min(left, o.turns);
      if (left > 0) errs.push_back(std::to_string(left) + " turns not run after the timeout");
      std::cerr << "[" << o.label << "] turn series stopped after a timeout\n";
      break;
    }
    if (warmup || !r.error.empty()) continue;
    lat.push_back(r.final_ms);
    ack.push_back(r.ack_ms);
    if (r.first_delta_ms >= 0) delta.push_back(r.first_delta_ms);
  }
  double series_secs = std::chrono::duration<double>(Clock::now() - tseries).count();
  double scpu = tree_cpu_secs(server) - scpu0, ccpu = self_cpu_secs() - ccpu0;
  json cpu = cpu_share(sys0, sys_cpu(), scpu, ccpu, mock_cpu_secs() - mcpu0);
  ws.close();
  json out = {{"session", session},
              {"warmup", warm},
              {"turns", all},
              {"n", o.turns},
              {"good", lat.size()},
              {"errors", errors},
              {"error_samples", errs},
              {"latency", dist(lat)},
              {"ack", dist(ack)},
              {"first_delta", dist(delta)},
              {"series_secs", round3(series_secs)},
              {"server_cpu_ms_per_turn", o.turns ? round3(scpu * 1000 / o.turns) : 0},
              {"client_cpu_ms_per_turn", o.turns ? round3(ccpu * 1000 / o.turns) : 0},
              {"cpu", cpu}};
  std::cerr << "[" << o.label << "] chat turn p50 " << fmt(median(lat), 3) << " ms over " << lat.size() << " turns (p90 "
            << fmt(percentile(lat, 90), 3) << ", ack p50 " << fmt(median(ack), 3) << ", errors " << errors << ")\n";
  return out;
}

// ---- the mock LLM alone: plain HTTP/1.1 on a blocking socket
int tcp_open(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) die(std::string("socket: ") + std::strerror(errno));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  timeval tv{30, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

struct HttpResponse {
  int status = 0;
  std::string body;
  bool keep_alive = true;
  std::string error;
};

// Send `request` on fd and read one complete response (Content-Length or chunked).
HttpResponse http_exchange(int fd, const std::string& request) {
  HttpResponse r;
  size_t off = 0;
  while (off < request.size()) {
    ssize_t w = ::send(fd, request.data() + off, request.size() - off, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      r.error = std::string("send: ") + std::strerror(errno);
      return r;
    }
    off += static_cast<size_t>(w);
  }
  std::string in;
  char buf[65536];
  auto more = [&]() -> bool {
    ssize_t n;
    do n = ::recv(fd, buf, sizeof buf, 0);
    while (n < 0 && errno == EINTR);
    if (n <= 0) {
      r.error = n == 0 ? "connection closed" : std::string("recv: ") + std::strerror(errno);
      return false;
    }
    in.append(buf, static_cast<size_t>(n));
    return true;
  };
  size_t hend;
  while ((hend = in.find("\r\n\r\n")) == std::string::npos)
    if (!more()) return r;
  std::string head = in.substr(0, hend);
  for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (head.compare(0, 9, "http/1.1 ") != 0 && head.compare(0, 9, "http/1.0 ") != 0) {
    r.error = "bad status line";
    return r;
  }
  r.status = std::atoi(head.c_str() + 9);
  r.keep_alive = head.find("\r\nconnection: close") == std::string::npos;
  size_t pos = hend + 4;
  if (head.find("\r\ntransfer-encoding: chunked") != std::string::npos) {
    for (;;) {
      size_t le;
      while ((le = in.find("\r\n", pos)) == std::string::npos)
        if (!more()) return r;
      size_t n = std::strtoul(in.c_str() + pos, nullptr, 16);
      size_t need = le + 2 + n + 2;
      while (in.size() < need)
        if (!more()) return r;
      if (n == 0) break;  // (no trailers from Node)
      r.body.append(in, le + 2, n);
      pos = need;
    }
  } else {
    size_t cl = 0, i = head.find("\r\ncontent-length:");
    if (i != std::string::npos) cl = std::strtoul(head.c_str() + i + 17, nullptr, 10);
    while (in.size() < pos + cl)
      if (!more()) return r;
    r.body = in.substr(pos, cl);
  }
  return r;
}

json mock_baseline(const Options& o, double turn_p50) {
  int fd = tcp_open(o.mock_port);
  if (fd < 0) return {{"error", "mock LLM not reachable on port " + std::to_string(o.mock_port)}};
  std::string host = "127.0.0.1:" + std::to_string(o.mock_port);
  HttpResponse last = http_exchange(fd, "GET /__bench/last-chat-request HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
  ::close(fd);
  if (last.status != 200 || last.body.empty())
    return {{"error", "could not fetch the gateway's last model request from the mock (status " + std::to_string(last.status) + " " + last.error + ")"}};
  json jb = json::parse(last.body, nullptr, false);
  std::string request = "POST /v1/chat/completions HTTP/1.1\r\nHost: " + host +
                        "\r\nContent-Type: application/json\r\nAuthorization: Bearer mock-local\r\nAccept: text/event-stream\r\n"
                        "Content-Length: " + std::to_string(last.body.size()) + "\r\n\r\n" + last.body;
  json out = {{"request_bytes", last.body.size()},
              {"request_stream", jb.is_object() ? jb.value("stream", false) : false},
              {"request_messages", jb.is_object() && jb.contains("messages") ? jb["messages"].size() : 0},
              {"request_tools", jb.is_object() && jb.contains("tools") ? jb["tools"].size() : 0}};
  int errors = 0;
  std::string err_sample;
  size_t resp_bytes = 0;
  auto check = [&](const HttpResponse& r) {
    bool ok = r.error.empty() && r.status == 200 && r.body.find("[DONE]") != std::string::npos;
    if (!ok) {
      ++errors;
      if (err_sample.empty()) err_sample = "status " + std::to_string(r.status) + " " + r.error + " " + r.body.substr(0, 200);
    }
    resp_bytes = r.body.size();
    return ok;
  };
  // 1) one keep-alive connection (one warm-up request, not counted)
  std::vector<double> ka, fresh;
  fd = -1;
  for (int i = 0; i <= o.mock_requests; ++i) {
    auto t0 = Clock::now();
    if (fd < 0 && (fd = tcp_open(o.mock_port)) < 0) {
      check(HttpResponse{0, "", false, "connect failed"});
      continue;
    }
    HttpResponse r = http_exchange(fd, request);
    double ms = ms_since(t0);
    if (!r.keep_alive || !r.error.empty()) {
      ::close(fd);
      fd = -1;
    }
    if (check(r) && i > 0) ka.push_back(ms);
  }
  if (fd >= 0) ::close(fd);
  // 2) a new connection per request (connect + request + response)
  for (int i = 0; i <= o.mock_requests; ++i) {
    auto t0 = Clock::now();
    int f = tcp_open(o.mock_port);
    if (f < 0) {
      check(HttpResponse{0, "", false, "connect failed"});
      continue;
    }
    HttpResponse r = http_exchange(f, request);
    double ms = ms_since(t0);
    ::close(f);
    if (check(r) && i > 0) fresh.push_back(ms);
  }
  out["response_body_bytes"] = resp_bytes;
  out["keepalive"] = dist(ka);
  out["new_connection"] = dist(fresh);
  out["errors"] = errors;
  if (!err_sample.empty()) out["error_sample"] = err_sample;
  if (!ka.empty() && turn_p50 > 0) {
    out["overhead_p50_ms"] = round3(turn_p50 - median(ka));
    if (!fresh.empty()) out["overhead_vs_new_connection_p50_ms"] = round3(turn_p50 - median(fresh));
  }
  return out;
}

// ---- concurrency: S sessions x T turns over C connections, one thread
json concurrency_run(const Options& o, Watchdog& wd, pid_t server) {
  struct Sess {
    std::string key_session, run_key, run_id, req_id;
    int conn = 0, turn = 0, good = 0, errors = 0;
    Clock::time_point t0;
    bool acked = false, terminal = false, done = false;
  };
  int C = std::min(o.conc_conns, o.sessions), S = o.sessions, T = o.session_turns;
  std::vector<std::unique_ptr<RawWs>> conns;
  for (int c = 0; c < C; ++c) {
    conns.push_back(std::make_unique<RawWs>());
    raw_connect(*conns.back(), wd, o);
  }
  std::vector<Sess> ss(static_cast<size_t>(S));
  std::unordered_map<std::string, int> by_run;
  by_run.reserve(static_cast<size_t>(S * T * 2));
  std::vector<double> lat, ack;
  lat.reserve(static_cast<size_t>(S * T));
  json errs = json::array();
  long errors = 0, good = 0, aborted_at_cap = 0, good_after_cap = 0;
  std::map<std::string, long> error_kinds;
  auto note_error = [&](const std::string& e) {
    ++errors;
    if (errs.size() < 8) errs.push_back(e);
    error_kinds[e.substr(0, std::min<size_t>(e.find(':'), 40))]++;
  };
  auto send_turn = [&](int i) {
    Sess& s = ss[static_cast<size_t>(i)];
    std::string marker = "s" + std::to_string(i) + "t" + std::to_string(s.turn);
    s.run_key = next_key();
    s.run_id = s.run_key;
    s.req_id = "c" + std::to_string(i) + "_" + std::to_string(s.turn);
    s.acked = s.terminal = false;
    by_run[s.run_key] = i;
    conns[static_cast<size_t>(s.conn)]->queue_text(chat_send_frame(
        s.req_id, s.key_session, "bench session " + std::to_string(i) + " turn " + std::to_string(s.turn) + " ECHO:" + marker, s.run_key));
    s.t0 = Clock::now();
  };
  int active = S;
  bool capped = false, draining = false;
  auto t_start = Clock::now();
  auto t_last = t_start;
  auto deadline = t_start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.conc_timeout_secs));
  auto advance = [&](int i) {  // the session's current turn is over (good or not)
    Sess& s = ss[static_cast<size_t>(i)];
    ++s.turn;
    if (!draining && s.turn < T && Clock::now() < deadline) send_turn(i);
    else {
      s.done = true;
      --active;
    }
  };
  auto handle = [&](int c, std::string_view m, Clock::time_point now) {
    FrameHead h;
    if (!scan_head(m, h)) return;
    if (h.type == "res") {  // id "c<session>_<turn>" (chat.send) or "a<session>" (chat.abort, ignored)
      if (h.id.size() < 4 || h.id[0] != 'c') return;
      int i = std::atoi(std::string(h.id.substr(1)).c_str());
      if (i < 0 || i >= S) return;
      Sess& s = ss[static_cast<size_t>(i)];
      if (s.done || h.id != s.req_id || s.acked) return;
      s.acked = true;
      ack.push_back(ms_since(s.t0, now));
      json j = json::parse(m, nullptr, false);
      if (h.ok != 1 || !j.is_object()) {
        note_error("chat.send rejected: " + std::string(m.substr(0, 300)));
        ++s.errors;
        advance(i);
        return;
      }
      if (j.contains("payload") && j["payload"].is_object() && j["payload"].contains("runId") && j["payload"]["runId"].is_string()) {
        std::string rid = j["payload"]["runId"].get<std::string>();
        if (rid != s.run_key) {
          s.run_id = rid;
          by_run[rid] = i;
        }
      }
      if (s.terminal) advance(i);
      return;
    }
    if (h.type != "event") return;
    json p = terminal_chat_payload(m);
    if (p.is_null()) return;
    std::string rid = p.value("runId", "");
    auto it = by_run.find(rid);
    if (it == by_run.end()) return;
    int i = it->second;
    Sess& s = ss[static_cast<size_t>(i)];
    // every connection gets every run's events: act on the copy sent to the session's own connection
    if (s.conn != c || s.done || s.terminal || (rid != s.run_id && rid != s.run_key)) return;
    s.terminal = true;
    std::string e = terminal_error(p, "s" + std::to_string(i) + "t" + std::to_string(s.turn));
    if (draining) {  // after the cap: our chat.abort ended it, or it finished meanwhile
      if (e.empty()) ++good_after_cap;
      else ++aborted_at_cap;
      s.acked = true;
    } else if (e.empty()) {
      t_last = now;
      ++good;
      ++s.good;
      lat.push_back(ms_since(s.t0, now));
    } else {
      t_last = now;
      note_error(e);
      ++s.errors;
    }
    if (s.acked) advance(i);
  };
  std::vector<pollfd> pfds(static_cast<size_t>(C));
  size_t frames = 0;
  // poll all connections and handle every frame until no session is active or `until` passes
  auto pump = [&](Clock::time_point until) {
    while (active > 0) {
      for (auto& c : conns)
        if (c->pending()) c->flush();
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
      if (left <= 0) return false;
      for (int c = 0; c < C; ++c) pfds[static_cast<size_t>(c)] = {conns[static_cast<size_t>(c)]->fd(), POLLIN, 0};
      int r = ::poll(pfds.data(), pfds.size(), static_cast<int>(std::min<long long>(left, 1000)));
      if (r < 0 && errno != EINTR) die(std::string("poll: ") + std::strerror(errno));
      if (r <= 0) continue;
      for (int c = 0; c < C; ++c) {
        if (!(pfds[static_cast<size_t>(c)].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        RawWs& ws = *conns[static_cast<size_t>(c)];
        ws.fill("concurrent turns");
        std::string_view m;
        while (ws.next(m)) {
          ++frames;
          handle(c, m, Clock::now());
        }
      }
    }
    return true;
  };
  double scpu0 = tree_cpu_secs(server), ccpu0 = self_cpu_secs();
  SysCpu sys0 = sys_cpu();
  double mcpu0 = mock_cpu_secs();
  for (int i = 0; i < S; ++i) {
    ss[static_cast<size_t>(i)].conn = i % C;
    ss[static_cast<size_t>(i)].key_session = "bench-conc-" + g_key_prefix + "-" + std::to_string(i);
    send_turn(i);
  }
  capped = !pump(deadline);
  double wall = std::chrono::duration<double>((capped ? Clock::now() : t_last) - t_start).count();
  double scpu = tree_cpu_secs(server) - scpu0, ccpu = self_cpu_secs() - ccpu0;
  json cpu = cpu_share(sys0, sys_cpu(), scpu, ccpu, mock_cpu_secs() - mcpu0);
  long unfinished = 0, in_flight = 0;
  int sessions_complete = 0;
  for (auto& s : ss) {
    unfinished += T - s.good - s.errors;
    if (!s.done) ++in_flight;
    if (s.good == T) ++sessions_complete;
  }
  // Capped: abort what is still running (chat.abort, as a client would) and wait up to 30 s for those runs to end,
  // so that the gateway is quiet again for the RSS snapshot and the stop.
  double drain_secs = 0;
  bool drained = true;
  if (capped) {
    draining = true;
    auto t0 = Clock::now();
    for (int i = 0; i < S; ++i) {
      Sess& s = ss[static_cast<size_t>(i)];
      if (s.done) continue;
      json j = {{"type", "req"}, {"id", "a" + std::to_string(i)}, {"method", "chat.abort"}, {"params", {{"sessionKey", s.key_session}, {"runId", s.run_id}}}};
      conns[static_cast<size_t>(s.conn)]->queue_text(j.dump());
    }
    drained = pump(t0 + std::chrono::seconds(30));
    drain_secs = std::chrono::duration<double>(Clock::now() - t0).count();
  }
  for (auto& c : conns) c->close();
  json kinds = json::object();
  for (auto& [k, n] : error_kinds) kinds[k] = n;
  json out = {{"sessions", S},
              {"turns_per_session", T},
              {"connections", C},
              {"planned_turns", S * T},
              {"good_turns", good},
              {"errors", errors},
              {"not_done", unfinished},
              {"errors_and_not_done", errors + unfinished},
              {"sessions_complete", sessions_complete},
              {"in_flight_at_end", in_flight},
              {"capped", capped},
              {"timeout_secs", o.conc_timeout_secs},
              {"wall_secs", round3(wall)},
              {"good_turns_per_sec", wall > 0 ? round1(static_cast<double>(good) / wall) : 0},
              {"latency", dist(lat)},
              {"ack", dist(ack)},
              {"error_samples", errs},
              {"error_kinds", kinds},
              {"frames_received", frames},
              {"server_cpu_secs", round3(scpu)},
              {"client_cpu_secs", round3(ccpu)},
              {"cpu", cpu}};
  if (capped)
    out["after_cap"] = {{"aborted", aborted_at_cap}, {"finished_anyway", good_after_cap}, {"drain_secs", round3(drain_secs)}, {"all_ended", drained}};
  std::cerr << "[" << o.label << "] concurrency " << S << " sessions x " << T << " turns over " << C << " connections: " << good
            << " good, " << errors << " errors, " << unfinished << " not done"
            << (capped ? " (CAPPED at " + fmt(o.conc_timeout_secs, 0) + " s; " + std::to_string(in_flight) + " runs aborted with chat.abort, ended after " +
                             fmt(drain_secs, 1) + " s" + (drained ? "" : " - NOT ALL") + ")"
                       : "")
            << " in " << fmt(wall, 2) << " s; turn p50 " << fmt(median(lat), 2) << " ms, p90 " << fmt(percentile(lat, 90), 2) << " ms\n";
  return out;
}
}  // namespace

int main(int argc, char** argv) {
  Options o = parse_args(argc, argv);
  if (o.mock_port > 0) g_mock_pid = pid_listening_on(o.mock_port);  // for the CPU accounting of each phase
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::signal(SIGPIPE, SIG_IGN);

  net::io_context ioc;
  Watchdog wd;
  Client c(ioc);
  Launcher L(o);

  json out = {{"label", o.label},
              {"date", now_iso()},
              {"cmd", o.cmd},
              {"spawn_mode", L.mode},
              {"env_added", o.env},
              {"port", o.port},
              {"config",
               {{"starts", o.starts},
                {"warmup_starts", o.warmup_starts},
                {"settle_secs", o.settle_secs},
                {"rpc_secs", o.rpc_secs},
                {"rpc_warmup_secs", o.rpc_warmup_secs},
                {"inflight", o.inflight},
                {"retry_us", o.retry_us},
                {"stop_delay_secs", o.stop_delay_secs},
                {"unavailable_retry_ms", o.unavailable_retry_ms},
                {"turns", o.turns},
                {"turn_warmup", o.turn_warmup},
                {"turn_settle_secs", o.turn_settle_secs},
                {"mock_port", o.mock_port},
                {"mock_requests", o.mock_requests},
                {"sessions", o.sessions},
                {"session_turns", o.session_turns},
                {"conc_conns", o.conc_conns},
                {"conc_timeout_secs", o.conc_timeout_secs}}}};

  {  // the port must be free, or we would measure someone else's gateway
    beast::error_code ec;
    if (c.tcp_connect(o.port, ec)) die("port " + std::to_string(o.port) + " is already in use");
    c.close();
  }

  std::cerr << "[" << o.label << "] " << L.mode << " spawn: " << o.cmd << "\n";
  // 1) cold starts
  json starts = json::array(), warmups = json::array();
  std::vector<double> hello, challenge, tcpv;
  Spawned s;
  json hello_payload;
  int total = o.warmup_starts + o.starts;
  for (int i = 0; i < total; ++i) {
    bool warm = i < o.warmup_starts;
    StartSample r = cold_start(L, s, c, wd, o);
    json js = {{"hello_ok_ms", round3(r.hello_ms)},
               {"challenge_ms", round3(r.challenge_ms)},
               {"tcp_ms", round3(r.tcp_ms)},
               {"spawn_ms", round3(s.spawn_ms)},
               {"attempts", r.attempts},
               {"refused", r.refused},
               {"retryable", r.retryable},
               {"closed", r.closed},
               {"cpu_secs_at_ready", round3(r.cpu_secs)},
               {"client_cpu_secs", round3(r.client_cpu_secs)},
               {"first_seen_ms", r.first_seen},
               {"pid", s.pid}};
    std::cerr << "[" << o.label << "] " << (warm ? "warm-up start " : "start ") << (warm ? i + 1 : i - o.warmup_starts + 1)
              << ": hello-ok " << fmt(r.hello_ms, 3) << " ms (tcp " << fmt(r.tcp_ms, 3) << ", challenge "
              << fmt(r.challenge_ms, 3) << ", attempts " << r.attempts << ", retryable " << r.retryable << ")\n";
    if (!warm) {
      hello.push_back(r.hello_ms);
      challenge.push_back(r.challenge_ms);
      tcpv.push_back(r.tcp_ms);
    }
    hello_payload = std::move(r.hello);
    if (i + 1 < total) {
      std::this_thread::sleep_for(std::chrono::duration<double>(o.stop_delay_secs));
      js["stop_ms"] = round1(stop_gateway(s, o.stop_timeout_secs));
    }
    (warm ? warmups : starts).push_back(js);
  }
  out["warmup_starts"] = warmups;
  out["starts"] = starts;
  out["start"] = {{"median_ms", round3(median(hello))},
                  {"min_ms", round3(*std::min_element(hello.begin(), hello.end()))},
                  {"max_ms", round3(*std::max_element(hello.begin(), hello.end()))},
                  {"challenge_median_ms", round3(median(challenge))},
                  {"tcp_median_ms", round3(median(tcpv))},
                  {"n", hello.size()}};
  if (hello_payload.is_object()) {
    json srv = hello_payload.value("server", json::object());
    out["server"] = {{"version", srv.is_object() ? srv.value("version", "") : ""},
                     {"protocol", hello_payload.value("protocol", 0)},
                     {"hello_ok_bytes", hello_payload.dump().size()}};
  }
  std::cerr << "[" << o.label << "] cold start median " << fmt(median(hello), 3) << " ms over " << hello.size() << " starts\n";

  // 2) idle RSS, settle after the last start's hello-ok
  std::this_thread::sleep_for(std::chrono::duration<double>(o.settle_secs));
  if (poll_exit(s)) die("gateway exited while idle: " + exit_text(s.status));
  out["idle"] = mem_snapshot(s.pid);
  std::cerr << "[" << o.label << "] idle RSS: main " << out["idle"]["main_rss_kib"] << " KiB, tree "
            << out["idle"]["tree_rss_kib"] << " KiB (" << out["idle"]["nprocs"] << " procs)\n";

  // 3) health RPC/s, one connection
  RawWs rws;
  raw_connect(rws, wd, o);
  uint64_t next_id = 1;
  if (o.rpc_warmup_secs > 0) {
    RpcStats w = rpc_loop(rws, wd, s.pid, o.inflight.empty() ? 1 : o.inflight.back(), o.rpc_warmup_secs, next_id);
    out["rpc_warmup"] = {{"secs", round3(w.secs)}, {"per_sec", round1(w.per_sec)}, {"inflight", w.inflight}};
  }
  json rpc = json::object();
  for (int n : o.inflight) {
    SysCpu sys0 = sys_cpu();
    double mcpu0 = mock_cpu_secs();
    RpcStats st = rpc_loop(rws, wd, s.pid, n, o.rpc_secs, next_id);
    json cpu = cpu_share(sys0, sys_cpu(), st.server_cpu_secs, st.client_cpu_secs, mock_cpu_secs() - mcpu0);
    rpc["inflight" + std::to_string(n)] = {{"inflight", n},
                                           {"responses", st.responses},
                                           {"errors", st.errors},
                                           {"events_ignored", st.events},
                                           {"secs", round3(st.secs)},
                                           {"per_sec", round1(st.per_sec)},
                                           {"median_ms", round3(st.median_ms)},
                                           {"p99_ms", round3(st.p99_ms)},
                                           {"mean_ms", round3(st.mean_ms)},
                                           {"response_bytes", st.first_res_bytes},
                                           {"client_cpu_secs", round3(st.client_cpu_secs)},
                                           {"client_recv_calls", st.recvs},
                                           {"client_send_calls", st.sends},
                                           {"server_cpu_secs", round3(st.server_cpu_secs)},
                                           {"cpu", cpu}};
    std::cerr << "[" << o.label << "] health x" << n << " in flight: " << fmt(st.per_sec) << " /s (median "
              << fmt(st.median_ms, 3) << " ms, p99 " << fmt(st.p99_ms, 3) << " ms, errors " << st.errors << "; cpu s: client "
              << fmt(st.client_cpu_secs, 2) << ", gateway " << fmt(st.server_cpu_secs, 2) << ")\n";
    if (st.errors) std::cerr << "[" << o.label << "] WARNING: " << st.errors << " health responses had ok != true\n";
  }
  out["rpc"] = rpc;
  rws.close();
  out["after_rpc"] = mem_snapshot(s.pid);

  // 4) agent turns against the mock LLM, the mock alone, then the concurrency run
  g_key_prefix = "b" + std::to_string(std::time(nullptr)) + "-" + std::to_string(getpid());
  if (o.turns > 0) {
    json t = turn_series(o, wd, s.pid);
    std::this_thread::sleep_for(std::chrono::duration<double>(o.turn_settle_secs));
    if (poll_exit(s)) die("gateway exited after the chat turns: " + exit_text(s.status));
    json mem = mem_snapshot(s.pid);
    mem["turns"] = o.turn_warmup + o.turns;
    out["after_turns"] = mem;
    std::cerr << "[" << o.label << "] RSS after " << o.turn_warmup + o.turns << " turns: main " << mem["main_rss_kib"] << " KiB, tree "
              << mem["tree_rss_kib"] << " KiB\n";
    double p50 = t["latency"].value("p50_ms", 0.0);
    out["turns"] = std::move(t);
    if (o.mock_port > 0) {
      json b = mock_baseline(o, p50);
      if (b.contains("keepalive"))
        std::cerr << "[" << o.label << "] mock alone (" << b["request_bytes"] << "-byte request replayed): p50 "
                  << fmt(b["keepalive"].value("p50_ms", 0.0), 3) << " ms keep-alive, " << fmt(b["new_connection"].value("p50_ms", 0.0), 3)
                  << " ms new connection; gateway overhead p50 " << fmt(b.value("overhead_p50_ms", 0.0), 3) << " ms\n";
      else
        std::cerr << "[" << o.label << "] mock alone: " << b.value("error", "?") << "\n";
      out["mock_baseline"] = std::move(b);
    }
  }
  if (o.sessions > 0) {
    out["concurrency"] = concurrency_run(o, wd, s.pid);
    if (poll_exit(s)) die("gateway exited during the concurrency run: " + exit_text(s.status));
    out["after_concurrency"] = mem_snapshot(s.pid);
  }
  out["stop_ms"] = round1(stop_gateway(s, o.stop_timeout_secs));
  out["exit"] = exit_text(s.status);

  std::string text = out.dump(2);
  if (!o.json_out.empty()) {
    std::ofstream f(o.json_out);
    f << text << "\n";
    if (!f) die("cannot write " + o.json_out);
    std::cerr << "[" << o.label << "] wrote " << o.json_out << "\n";
  } else {
    std::cout << text << "\n";
  }
  return 0;
}
