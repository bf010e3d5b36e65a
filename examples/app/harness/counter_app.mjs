#!/usr/bin/env node
// A small long-running web application: a counter on a local HTTP port chosen by the OS
// (port 0). It prints {"port":N} once it listens. Runs on Node.js or Deno.
//   GET  /          an HTML page showing the counter
//   GET  /counter   {"value":N}
//   POST /counter?by=N   adds N (1..1000), returns {"value":N}
import { createServer } from "node:http";

let value = 0;
const server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://localhost");
  const send = (status, type, body) => {
    res.writeHead(status, { "content-type": type });
    res.end(body);
  };
  if (url.pathname === "/counter" && req.method === "POST") {
    const by = Number(url.searchParams.get("by") ?? "1");
    if (!Number.isInteger(by) || by < 1 || by > 1000) {
      return send(400, "text/plain", "by must be 1..1000\n");
    }
    value += by;
    return send(200, "application/json", JSON.stringify({ value }));
  }
  if (url.pathname === "/counter") return send(200, "application/json", JSON.stringify({ value }));
  if (url.pathname === "/") {
    return send(
      200,
      "text/html",
      `<!doctype html><title>Counter</title><h1>Counter: ${value}</h1>\n`,
    );
  }
  send(404, "text/plain", "not found\n");
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
for (const sig of ["SIGTERM", "SIGINT"]) process.on(sig, () => server.close(() => process.exit(0)));
