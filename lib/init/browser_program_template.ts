/**
 * Template of `toolhost init harness NAME --template browser`: the harness program
 * (`NAME.mjs`, mode 755) — start, stop and six bound json tools (open_url, click,
 * type_text, snapshot, screenshot, console_logs) driving one headless Chromium for the
 * session. Plain Node.js 20+ with no dependency, so a Node-only machine runs it. A
 * TypeScript string constant, so every build carries it (see fill.ts for placeholders).
 *
 * @module
 */

/**
 * The browser harness program (`NAME.mjs`).
 *
 * @example
 * ```ts
 * import { BROWSER_PROGRAM } from "./browser_program_template.ts";
 * console.log(BROWSER_PROGRAM.startsWith("#!/usr/bin/env node")); // true
 * ```
 */
export const BROWSER_PROGRAM: string = String.raw`#!/usr/bin/env node
// {{NAME}}: a browser tool session for toolhost — headless Chromium that stays open
// between calls. Declared in toolhost.toml as session
// [artifacts.{{ARTIFACT}}.views.agent_sessions.{{NAME}}] with six bound json tools (agents
// see them as {{NAME}}_open_url_{{ARTIFACT}}, ..._click_, ..._type_text_, ..._snapshot_,
// ..._screenshot_ and ..._console_logs_{{ARTIFACT}}).
//
// - "{{NAME}}.mjs start" (toolhost's start command) starts the local app (a web server on
//   a loopback port serving {{NAME}}.html) and Chromium with its profile in the session
//   directory, prints ONE readiness line and keeps running. Its exit ends the session.
// - "{{NAME}}.mjs ACTION" is a bound tool: it forwards its request to the start process
//   over a Unix socket in the session directory and prints the result.
// - "{{NAME}}.mjs stop" (toolhost's stop command) closes the browser and the app.
//
// Needs only Node.js 20+ and Chromium (Debian: apt-get install chromium; elsewhere set
// CHROMIUM to its path). The browser is driven over the DevTools protocol on a pipe
// ({{NAME}}_browser.mjs); URLs are checked in {{NAME}}_files.mjs. Edit the actions below.
//
// Test: node --test {{TEST_PATH}}
import { readFileSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { join, relative } from "node:path";
import { boundText, launchBrowser, MAX_TEXT_BYTES } from "./{{NAME}}_browser.mjs";
import { Refused, resolveUrl, scopeRoots, serveApp } from "./{{NAME}}_files.mjs";

const WIDTH = 800;
const HEIGHT = 600;

function text(s) {
  return { type: "text", text: s };
}

function stringArg(args, key, max) {
  const v = args[key];
  if (typeof v !== "string" || v.length > max) throw new Refused("Give " + key + " as a string of at most " + max + " characters.");
  return v;
}

/** The bound actions (edit these): return content blocks, or throw to report an error. */
const actions = {
  async open_url(args, s, scope) {
    const url = resolveUrl(stringArg(args, "url", 2000), s.app, scopeRoots(scope));
    const r = await s.browser.page.open(url);
    return [text("Opened " + r.url + " (title: " + JSON.stringify(r.title) + ")."), { type: "json", data: r }];
  },
  async click(args, s) {
    if (!await s.browser.page.click(stringArg(args, "selector", 500))) throw new Error("No element matches the selector.");
    return [text("Clicked.")];
  },
  async type_text(args, s) {
    const ok = await s.browser.page.type(stringArg(args, "selector", 500), stringArg(args, "text", 10_000));
    if (!ok) throw new Error("No focusable element matches the selector.");
    return [text("Typed.")];
  },
  async snapshot(_args, s) {
    return [text(await s.browser.page.snapshot())];
  },
  async screenshot(_args, s) {
    const { png, scale, width, height } = await s.browser.page.screenshot();
    return [
      { type: "image", mimeType: "image/png", data: png.toString("base64") },
      { type: "json", data: { bytes: png.length, width, height, scale } },
    ];
  },
  console_logs(_args, s) {
    const { lines, dropped } = s.browser.page.consoleLogs();
    if (lines.length === 0 && dropped === 0) return [text("No console output since the last call.")];
    const head = dropped > 0 ? "[" + dropped + " older entries dropped]\n" : "";
    return [text(boundText(head + lines.join("\n"), MAX_TEXT_BYTES, "console log"))];
  },
};

function fail(message) {
  console.error("{{NAME}}: " + message);
  process.exit(2);
}

/** The request envelope on stdin, and the socket in the session directory. */
function readRequest() {
  let request;
  try {
    request = JSON.parse(readFileSync(0, "utf8"));
  } catch {
    fail("stdin is not a toolhost request; run it with toolhost (see {{TEST_PATH}})");
  }
  const dir = process.env.ARTIFACTIZE_SESSION_DIR || process.env.TOOLHOST_SESSION_DIR;
  if (!dir) fail("ARTIFACTIZE_SESSION_DIR is not set; run it with toolhost");
  // Socket paths are limited to about 100 bytes: fall back to a path relative to the
  // Artifact folder, the working directory that start and the bound tools share.
  const socket = join(dir, "harness.sock");
  return {
    dir,
    args: request.args ?? {},
    scope: request.context?.scope ?? {},
    socket: Buffer.byteLength(socket) <= 100 ? socket : relative(".", socket),
  };
}

async function run(message, session) {
  try {
    if (!Object.hasOwn(actions, message.action)) throw new Error("The harness has no such action.");
    return { content: await actions[message.action](message.args ?? {}, session, message.scope) };
  } catch (error) {
    return { isError: true, content: [text(error.message || "The action failed.")] };
  }
}

async function start({ dir, socket }) {
  const session = { stopping: false };
  let queue = Promise.resolve(); // one action at a time: they share one tab
  const server = createServer((conn) => {
    let line = "";
    conn.setEncoding("utf8").on("error", () => {}).on("data", (chunk) => {
      line += chunk;
      if (!line.includes("\n")) return;
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        return conn.destroy();
      }
      if (message.op === "stop") return shutdown().then(() => conn.end("{}\n", () => process.exit(0)));
      queue = queue.then(async () => conn.end(JSON.stringify(await run(message, session)) + "\n"));
    });
  });
  async function shutdown() {
    session.stopping = true;
    server.close();
    await session.browser?.close();
    session.app?.close();
    rmSync(socket, { force: true });
  }
  const onSignal = () => shutdown().then(() => process.exit(0));
  process.on("SIGTERM", onSignal).on("SIGINT", onSignal);
  try {
    session.app = await serveApp();
    session.browser = await launchBrowser({ sessionDir: dir, width: WIDTH, height: HEIGHT });
  } catch (error) {
    session.app?.close();
    fail(error.message);
  }
  session.browser.child.once("exit", () => {
    if (session.stopping) return;
    console.error("{{NAME}}: Chromium exited; ending the session");
    process.exit(1);
  });
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
  const { args, scope, socket } = readRequest();
  const result = await send(socket, { op: "act", action: role, args, scope }).then(JSON.parse).catch(() => ({
    isError: true,
    content: [text("The {{NAME}} session is not running.")],
  }));
  process.stdout.write(JSON.stringify(result) + "\n");
} else {
  fail("usage: {{NAME}}.mjs start | stop | " + Object.keys(actions).join(" | "));
}
`;
