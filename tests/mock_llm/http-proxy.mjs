// A minimal forward HTTP proxy for tests (no dependencies): CONNECT tunnels and absolute-form
// requests, counting what it forwarded. `node http-proxy.mjs --port 0` prints
// "http-proxy listening on http://127.0.0.1:PORT"; GET /__proxy/stats answers {connect, forward}.
import http from "node:http";
import net from "node:net";

const args = process.argv.slice(2);
const port = Number(args[args.indexOf("--port") + 1] ?? 0);
const stats = { connect: 0, forward: 0, authorization: null };

const server = http.createServer((req, res) => {
  if (req.url === "/__proxy/stats") {
    res.setHeader("content-type", "application/json");
    return res.end(JSON.stringify(stats));
  }
  if (!/^https?:\/\//.test(req.url)) {
    res.statusCode = 400;
    return res.end("absolute-form request expected\n");
  }
  stats.forward++;
  stats.authorization = req.headers["proxy-authorization"] ?? null;
  const headers = { ...req.headers };
  delete headers["proxy-authorization"];
  const upstream = http.request(req.url, { method: req.method, headers }, (up) => {
    res.writeHead(up.statusCode, up.headers);
    up.pipe(res);
  });
  upstream.on("error", (e) => { res.statusCode = 502; res.end(String(e)); });
  req.pipe(upstream);
});

server.on("connect", (req, socket, head) => {
  stats.connect++;
  const [host, p] = req.url.split(":");
  const upstream = net.connect(Number(p), host, () => {
    socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    upstream.write(head);
    upstream.pipe(socket);
    socket.pipe(upstream);
  });
  upstream.on("error", () => socket.end("HTTP/1.1 502 Bad Gateway\r\n\r\n"));
});

server.listen(port, "127.0.0.1", () => {
  console.log(`http-proxy listening on http://127.0.0.1:${server.address().port}`);
});
