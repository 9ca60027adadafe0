// floor_gateway — the least a gateway can do for one chat turn of `gateway_bench`, to measure the
// floor that the machine (its kernel, loopback TCP, process wake-ups) puts under Pincer's
// "gateway overhead per turn" (docs/benchmarks.md; issue 17's target ≤ 0.5 ms).
//
//   floor_gateway --port P --mock-port M --body FILE [--frames N]
//
// It speaks just enough of the OpenClaw protocol for gateway_bench: `connect.challenge`, `connect` →
// `hello-ok` (any token), and `chat.send` → `res` {runId, status:"started"}, then the same wire work a
// gateway's turn needs: one streamed POST /v1/chat/completions to the mock LLM on a keep-alive
// connection, and the turn's WebSocket frames to the client. The request body is FILE (a real
// gateway's last request, from the mock's GET /__bench/last-chat-request) with its last `bench turn …`
// user text replaced by this turn's message, so the mock reads and answers the same bytes. No
// sessions, no transcript, no history, no tools, no JSON trees on the turn's path: blocking system
// calls on one thread per connection. --frames: how many frames a turn sends to the client in all,
// the `res` and the final `chat` event included (default 6: Pincer's count for the bench's short
// reply, see docs/benchmarks.md); the ones between are `agent` events of about Pincer's size.
//
// Not part of the test suite; never asserts timings.
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using nlohmann::json;

namespace {

struct Options {
  unsigned short port = 0, mock_port = 0;
  std::string body_template;  // the captured request body
  int frames = 6;
};

// JSON string contents for plain text (the bench's messages are ASCII; quotes and backslashes escaped).
std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// The captured body with its last "bench turn …" user text replaced by `message`.
std::string request_body(const std::string& tmpl, const std::string& message) {
  const std::string needle = "\"bench turn ";
  auto at = tmpl.rfind(needle);
  if (at == std::string::npos) return tmpl;
  auto end = tmpl.find('"', at + needle.size());
  return tmpl.substr(0, at + 1) + escape(message) + tmpl.substr(end);
}

// The assistant text of an OpenAI Chat Completions SSE stream: the `content` of each chunk's delta.
void collect_text(std::string& buffer, std::string& text, bool& done) {
  for (;;) {
    auto end = buffer.find("\n\n");
    if (end == std::string::npos) return;
    std::string event = buffer.substr(0, end);
    buffer.erase(0, end + 2);
    if (event.rfind("data: ", 0) != 0) continue;
    std::string data = event.substr(6);
    if (data == "[DONE]") {
      done = true;
      continue;
    }
    json chunk = json::parse(data, nullptr, false);
    if (!chunk.is_object() || !chunk.contains("choices") || chunk["choices"].empty()) continue;
    const json& delta = chunk["choices"][0].value("delta", json::object());
    if (delta.contains("content") && delta["content"].is_string()) text += delta["content"].get<std::string>();
  }
}

class Turns {
 public:
  explicit Turns(const Options& o) : o_(o), mock_(io_) {}

  // One model call on the keep-alive connection; the reply's text.
  std::string call_model(const std::string& message) {
    if (!mock_.is_open()) mock_.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), o_.mock_port));
    mock_.set_option(tcp::no_delay(true));
    http::request<http::string_body> req{http::verb::post, "/v1/chat/completions", 11};
    req.set(http::field::host, "127.0.0.1");
    req.set(http::field::content_type, "application/json");
    req.set(http::field::authorization, "Bearer bench");
    req.keep_alive(true);
    req.body() = request_body(o_.body_template, message);
    req.prepare_payload();
    http::write(mock_, req);
    http::response_parser<http::buffer_body> parser;
    parser.body_limit(boost::none);
    http::read_header(mock_, buf_, parser);
    std::string sse, text;
    char chunk[16384];
    bool done = false;
    while (!parser.is_done()) {
      parser.get().body().data = chunk;
      parser.get().body().size = sizeof chunk;
      beast::error_code ec;
      http::read_some(mock_, buf_, parser, ec);
      if (ec && ec != http::error::need_buffer) throw beast::system_error(ec);
      sse.append(chunk, sizeof chunk - parser.get().body().size);
      collect_text(sse, text, done);
    }
    if (!parser.get().keep_alive()) mock_.close();
    return text;
  }

 private:
  const Options& o_;
  asio::io_context io_;
  tcp::socket mock_;
  beast::flat_buffer buf_;
};

void serve(tcp::socket socket, const Options& o) {
  try {
    socket.set_option(tcp::no_delay(true));
    websocket::stream<tcp::socket> ws(std::move(socket));
    ws.accept();
    ws.text(true);
    ws.write(asio::buffer(std::string(
        R"({"type":"event","event":"connect.challenge","payload":{"nonce":"floor","ts":0}})")));
    Turns turns(o);
    beast::flat_buffer in;
    for (int seq = 0;; ++seq) {
      in.clear();
      ws.read(in);
      json req = json::parse(beast::buffers_to_string(in.data()), nullptr, false);
      if (!req.is_object() || req.value("type", "") != "req") continue;
      const std::string id = req.value("id", "");
      const std::string method = req.value("method", "");
      if (method == "connect") {
        ws.write(asio::buffer(json{{"type", "res"}, {"id", id}, {"ok", true},
                                   {"payload", {{"type", "hello-ok"}, {"protocol", 3}}}}.dump()));
        continue;
      }
      if (method != "chat.send") {  // `health` and the rest: ok, nothing
        ws.write(asio::buffer(json{{"type", "res"}, {"id", id}, {"ok", true}, {"payload", json::object()}}.dump()));
        continue;
      }
      const json& params = req["params"];
      const std::string run_id = params.value("idempotencyKey", "run");
      const std::string session = params.value("sessionKey", "main");
      ws.write(asio::buffer(R"({"type":"res","id":")" + id + R"(","ok":true,"payload":{"runId":")" + run_id +
                            R"(","status":"started"}})"));
      const std::string text = turns.call_model(params.value("message", ""));
      // The frames between the ack and the final event: `agent` events of about Pincer's size.
      for (int i = 0; i < o.frames - 2; ++i) {
        ws.write(asio::buffer(R"({"type":"event","event":"agent","payload":{"runId":")" + run_id +
                              R"(","stream":"lifecycle","data":{"phase":"floor","n":)" + std::to_string(i) +
                              R"(},"sessionKey":")" + session + R"(","seq":)" + std::to_string(seq) + "}}"));
      }
      ws.write(asio::buffer(R"({"type":"event","event":"chat","payload":{"runId":")" + run_id + R"(","sessionKey":")" +
                            session + R"(","state":"final","message":{"role":"assistant","content":[{"type":"text","text":")" +
                            escape(text) + R"("}]}}})"));
    }
  } catch (const std::exception&) {
    // the client closed the connection
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  std::string body_file;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--port") o.port = static_cast<unsigned short>(std::stoi(v));
    else if (k == "--mock-port") o.mock_port = static_cast<unsigned short>(std::stoi(v));
    else if (k == "--body") body_file = v;
    else if (k == "--frames") o.frames = std::max(2, std::stoi(v));
    else {
      std::cerr << "floor_gateway: unknown option " << k << "\n";
      return 2;
    }
  }
  std::ifstream f(body_file);
  if (!o.port || !o.mock_port || !f) {
    std::cerr << "usage: floor_gateway --port P --mock-port M --body FILE [--frames N]\n";
    return 2;
  }
  std::stringstream ss;
  ss << f.rdbuf();
  o.body_template = ss.str();
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), o.port));
  for (;;) {
    tcp::socket s(io);
    acceptor.accept(s);
    std::thread(serve, std::move(s), std::cref(o)).detach();
  }
}
