#!/usr/bin/env node
// The example tool-session harness, in plain Node.js (no Deno, no dependencies), so the
// bundled example runs wherever the toolhost CLI runs: `deno task demo`, the npm build and
// the single binary (`deno task install`). `start` launches the counter web app
// (counter_app.mjs, a separate long-running program on an OS-chosen port) and keeps it for
// the session; the bound actions act on it over HTTP and see each other's effects; `stop`
// shuts the app down.
//
// Declared in examples/toolhost.toml as session `web` of Artifact `app`, with the bound
// tools counter_add_app, counter_get_app and page_app.
//
// - "app_harness.mjs start" reads the request envelope on stdin, listens on a Unix socket in
//   $ARTIFACTIZE_SESSION_DIR, prints ONE readiness line and keeps running (its exit ends the
//   session).
// - "app_harness.mjs counter_add|counter_get|page" are the bound json-protocol tools: each
//   forwards its request to the start process and prints the result object it gets back.
// - "app_harness.mjs stop" asks the start process to stop the app and finish.
//
// The same harness in TypeScript is a few lines with harness-kit's
// sessionHarness({ start, actions, stop }) (`import { sessionHarness } from "toolhost/harness-kit"`),
// which does the plumbing below.
import { spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const APP = fileURLToPath(new URL("./counter_app.mjs", import.meta.url));

/** The bound actions: return content blocks, or throw to report an error. */
const actions = {
  async counter_add(args, app) {
    const r = await http(app, "POST", `/counter?by=${args.by ?? 1}`);
    if (r.status !== 200) throw new Error(`The app refused the change (HTTP ${r.status}).`);
    const { value } = JSON.parse(r.body);
    return [{ type: "text", text: `The counter is now ${value}.` }, {
      type: "json",
      data: { value },
    }];
  },
  async counter_get(_args, app) {
    const { value } = JSON.parse((await http(app, "GET", "/counter")).body);
    return [{ type: "text", text: `The counter is ${value}.` }, { type: "json", data: { value } }];
  },
  async page(args, app) {
    const r = await http(app, "GET", typeof args.path === "string" ? args.path : "/");
    return [{ type: "text", text: `HTTP ${r.status}\n${r.body}` }];
  },
};

/** Start the counter app; resolves to { child, port } once it printed its port. */
function launch() {
  const child = spawn(process.execPath, [APP], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let buf = "";
    child.once("error", reject);
    child.once("exit", () => reject(new Error("the counter app exited while starting")));
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      buf += chunk;
      const nl = buf.indexOf("\n");
      if (nl >= 0) resolve({ child, port: JSON.parse(buf.slice(0, nl)).port });
    });
  });
}

async function http(app, method, path) {
  const res = await fetch(`http://127.0.0.1:${app.port}${path}`, { method });
  return { status: res.status, body: await res.text() };
}

function fail(message) {
  console.error(`app_harness: ${message}`);
  process.exit(2);
}

/** The request envelope on stdin, and the socket in the session directory. */
function readRequest() {
  let request;
  try {
    request = JSON.parse(readFileSync(0, "utf8"));
  } catch {
    fail("stdin is not a toolhost request; run it with toolhost");
  }
  const dir = process.env.ARTIFACTIZE_SESSION_DIR || process.env.TOOLHOST_SESSION_DIR;
  if (!dir) fail("ARTIFACTIZE_SESSION_DIR is not set; run it with toolhost");
  // Socket paths are limited to about 100 bytes: fall back to a path relative to the
  // Artifact folder, the working directory that start and the bound tools share.
  const socket = join(dir, "harness.sock");
  return {
    args: request.args ?? {},
    socket: Buffer.byteLength(socket) <= 100 ? socket : relative(".", socket),
  };
}

async function run(action, args, app) {
  try {
    if (!Object.hasOwn(actions, action)) throw new Error("The harness has no such action.");
    return { content: await actions[action](args ?? {}, app) };
  } catch (error) {
    const text = error instanceof Error && error.message ? error.message : "The action failed.";
    return { isError: true, content: [{ type: "text", text }] };
  }
}

async function start({ socket }) {
  const app = await launch();
  const stopApp = () =>
    app.child.exitCode !== null || app.child.signalCode !== null
      ? Promise.resolve()
      : new Promise((resolve) => {
        app.child.once("exit", resolve);
        app.child.kill("SIGTERM");
      });
  const server = createServer((conn) => {
    let line = "";
    conn.setEncoding("utf8").on("error", () => {}).on("data", async (chunk) => {
      line += chunk;
      if (!line.includes("\n")) return;
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        return conn.destroy();
      }
      if (message.op === "stop") return conn.end("{}\n", shutdown);
      conn.end(JSON.stringify(await run(message.action, message.args, app)) + "\n");
    });
  });
  let stopping = false;
  const shutdown = () => {
    stopping = true;
    stopApp().then(() => server.close(() => process.exit(0)));
  };
  process.on("SIGTERM", shutdown).on("SIGINT", shutdown);
  app.child.once("exit", () => stopping || process.exit(1)); // the app died: the session ends
  rmSync(socket, { force: true });
  server.listen(socket, () => process.stdout.write("ready\n"));
}

/** Send one request line to the start process; resolves to its reply line. */
function send(socket, message) {
  return new Promise((resolve, reject) => {
    let reply = "";
    const conn = createConnection(socket, () => conn.write(JSON.stringify(message) + "\n"));
    conn.setEncoding("utf8").on("data", (chunk) => (reply += chunk));
    conn.on("end", () => resolve(reply)).on("error", reject);
  });
}

const role = process.argv[2] ?? "";
if (role === "start") {
  await start(readRequest());
} else if (role === "stop") {
  await send(readRequest().socket, { op: "stop" }).catch(() => {}); // not running: done
} else if (Object.hasOwn(actions, role)) {
  const { args, socket } = readRequest();
  const result = await send(socket, { op: "act", action: role, args }).then(JSON.parse).catch(
    () => ({ isError: true, content: [{ type: "text", text: "The web session is not running." }] }),
  );
  process.stdout.write(JSON.stringify(result) + "\n");
} else {
  fail(`usage: app_harness.mjs start | stop | ${Object.keys(actions).join(" | ")}`);
}
