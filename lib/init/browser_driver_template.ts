/**
 * Template of `toolhost init harness NAME --template browser`: `NAME_browser.mjs`, which
 * starts Chromium and drives its tab over the DevTools protocol on a pipe
 * (`--remote-debugging-pipe`): no WebSocket (absent from Node 20) and no DevTools port
 * another local process could connect to.
 *
 * @module
 */

/**
 * The Chromium driver module (`NAME_browser.mjs`).
 *
 * @example
 * ```ts
 * import { BROWSER_DRIVER } from "./browser_driver_template.ts";
 * console.log(BROWSER_DRIVER.includes("--remote-debugging-pipe")); // true
 * ```
 */
export const BROWSER_DRIVER: string = String
  .raw`// {{NAME}}_browser.mjs: the headless Chromium of the {{NAME}} session, driven over the
// DevTools protocol on a pipe (--remote-debugging-pipe: commands on fd 3, replies on fd 4).
// No WebSocket and no DevTools port: no other local process can drive this browser, and
// it runs on Node 20 as on Node 22+ (and Deno). Part of the harness {{PROGRAM_PATH}}.
import { spawn } from "node:child_process";
import { join } from "node:path";

/** Largest text result (snapshot, console log), bytes, marker included: the 64 KiB rule. */
export const MAX_TEXT_BYTES = 64 * 1024;
/** Largest screenshot, bytes: the 4 MiB image rule. */
export const MAX_IMAGE_BYTES = 4 * 1024 * 1024;
const MAX_CONSOLE_ENTRIES = 200;
const MAX_CONSOLE_CHARS = 1000;
/** A DevTools message larger than this ends the connection (a 4 MiB PNG is ~5.6 MB). */
const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
const MAX_STDERR_CHARS = 4096;
const COMMAND_TIMEOUT_MS = 30_000;
/** Length of "/org.chromium.Chromium.XXXXXX/SingletonSocket" below TMPDIR. */
const SINGLETON_SUFFIX = 46;

/** Cut s to at most max UTF-8 bytes, with a marker saying so. */
export function boundText(s, max, what) {
  const bytes = Buffer.from(s, "utf8");
  if (bytes.length <= max) return s;
  const marker = "\n[" + what + " truncated: " + bytes.length + " bytes, first part shown]";
  let cut = bytes.subarray(0, max - Buffer.byteLength(marker)).toString("utf8");
  if (cut.endsWith("\uFFFD")) cut = cut.slice(0, -1);
  return cut + marker;
}

/** Chromium's arguments: profile in the session directory, no port, no extras. */
function chromiumArgs(sessionDir, width, height) {
  const args = [
    "--headless=new",
    "--remote-debugging-pipe",
    "--user-data-dir=" + join(sessionDir, "chromium-profile"),
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-extensions",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-breakpad",
    "--mute-audio",
    "--hide-scrollbars",
    "--window-size=" + width + "," + height,
  ];
  // Chromium refuses its own sandbox as root (containers, CI); toolhost's sandbox remains.
  if (process.getuid?.() === 0) args.push("--no-sandbox");
  return [...args, "about:blank"];
}

/** A DevTools connection over Chromium's pipe: NUL-terminated JSON messages. */
class Cdp {
  #out;
  #next = 1;
  #pending = new Map();
  #listeners = new Map();
  #closed = false;

  constructor(out, input) {
    this.#out = out;
    out.on("error", () => this.#fail("the browser closed its pipe"));
    let chunks = [];
    let size = 0;
    input.on("data", (chunk) => {
      let start = 0;
      for (let end = chunk.indexOf(0); end !== -1; end = chunk.indexOf(0, start)) {
        chunks.push(chunk.subarray(start, end));
        this.#receive(Buffer.concat(chunks).toString("utf8"));
        chunks = [];
        size = 0;
        start = end + 1;
      }
      if (start < chunk.length) {
        chunks.push(chunk.subarray(start));
        size += chunk.length - start;
        if (size > MAX_MESSAGE_BYTES) {
          this.#fail("the browser sent an oversized message");
          input.destroy();
        }
      }
    });
    input.on("close", () => this.#fail("the browser closed its pipe"));
    input.on("error", () => this.#fail("the browser closed its pipe"));
  }

  /** Send a command (to sessionId's target when given); rejects after timeoutMs. */
  send(method, params = {}, sessionId, timeoutMs = COMMAND_TIMEOUT_MS) {
    if (this.#closed) return Promise.reject(new Error("The browser is not running."));
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error("The browser did not answer " + method + " in time."));
      }, timeoutMs);
      this.#pending.set(id, { resolve, reject, timer });
      const message = { id, method, params };
      if (sessionId) message.sessionId = sessionId;
      this.#out.write(JSON.stringify(message) + "\0");
    });
  }

  /** Listen to an event; returns a function that stops listening. */
  on(method, listener) {
    if (!this.#listeners.has(method)) this.#listeners.set(method, new Set());
    this.#listeners.get(method).add(listener);
    return () => this.#listeners.get(method).delete(listener);
  }

  #receive(raw) {
    let msg;
    try {
      msg = JSON.parse(raw);
    } catch {
      return;
    }
    if (typeof msg.id === "number") {
      const p = this.#pending.get(msg.id);
      if (p === undefined) return;
      this.#pending.delete(msg.id);
      clearTimeout(p.timer);
      if (msg.error) p.reject(new Error("The browser refused the command."));
      else p.resolve(msg.result ?? {});
    } else if (typeof msg.method === "string") {
      for (const l of this.#listeners.get(msg.method) ?? []) l(msg.params ?? {}, msg.sessionId);
    }
  }

  #fail(reason) {
    this.#closed = true;
    for (const p of this.#pending.values()) {
      clearTimeout(p.timer);
      p.reject(new Error(reason));
    }
    this.#pending.clear();
  }
}

/** Runs in the page: a text outline of the DOM (tags, ids, roles, values, links, text). */
function outlinePage() {
  const out = [];
  const walk = (n, depth) => {
    if (n.nodeType === 3) {
      const t = n.textContent.replace(/\s+/g, " ").trim();
      if (t) out.push("  ".repeat(depth) + JSON.stringify(t));
      return;
    }
    if (n.nodeType !== 1) return;
    const tag = n.tagName.toLowerCase();
    if (tag === "script" || tag === "style" || tag === "head") return;
    let line = tag + (n.id ? "#" + n.id : "");
    const role = n.getAttribute("role");
    if (role) line += " role=" + role;
    if (tag === "input" || tag === "textarea") line += " value=" + JSON.stringify(n.value);
    if (tag === "a" && n.href) line += " href=" + JSON.stringify(n.href);
    out.push("  ".repeat(depth) + line);
    for (const c of n.childNodes) walk(c, depth + 1);
  };
  walk(document.body || document.documentElement, 0);
  return document.title + "\n" + location.href + "\n" + out.join("\n");
}

/** Runs in the page: click the first match of selector; false when none. */
function clickIn(selector) {
  let el;
  try {
    el = document.querySelector(selector);
  } catch {
    return false;
  }
  if (!el) return false;
  el.scrollIntoView({ block: "center" });
  el.click();
  return true;
}

/** Runs in the page: focus the first match of selector; false when none takes focus. */
function focusIn(selector) {
  let el;
  try {
    el = document.querySelector(selector);
  } catch {
    return false;
  }
  if (!el) return false;
  el.focus();
  return document.activeElement === el;
}

/** The expression calling fn (defined above, run in the page) with JSON arguments. */
function call(fn, ...args) {
  return "(" + fn.toString() + ")(" + args.map((a) => JSON.stringify(a)).join(", ") + ")";
}

/** One tab, attached over a flattened DevTools session (exported for tests). */
export class Page {
  #cdp;
  #session;
  #logs = [];
  #dropped = 0;

  constructor(cdp, session) {
    this.#cdp = cdp;
    this.#session = session;
    cdp.on("Runtime.consoleAPICalled", (p, s) => {
      if (s !== session) return;
      const args = (p.args ?? []).map((a) => a.description ?? String(a.value));
      this.#log(p.type + ": " + args.join(" "));
    });
    cdp.on("Runtime.exceptionThrown", (p, s) => {
      if (s !== session) return;
      const d = p.exceptionDetails ?? {};
      this.#log("exception: " + (d.exception?.description ?? d.text ?? "unknown"));
    });
  }

  #send(method, params = {}) {
    return this.#cdp.send(method, params, this.#session);
  }

  #log(line) {
    this.#logs.push(line.slice(0, MAX_CONSOLE_CHARS));
    if (this.#logs.length > MAX_CONSOLE_ENTRIES) {
      this.#logs.shift();
      this.#dropped++;
    }
  }

  async #eval(expression) {
    const r = await this.#send("Runtime.evaluate", {
      expression,
      returnByValue: true,
      awaitPromise: true,
    });
    if (r.exceptionDetails !== undefined) throw new Error("The page script failed.");
    return r.result?.value;
  }

  /** Enable the domains the tools use, with a fixed viewport. */
  async init(width, height) {
    await this.#send("Page.enable");
    await this.#send("Runtime.enable");
    await this.#send("Emulation.setDeviceMetricsOverride", {
      width,
      height,
      deviceScaleFactor: 1,
      mobile: false,
    });
  }

  /** Navigate and wait for the load event (at most 30 s); the final URL and title. */
  async open(url) {
    let off = () => {};
    let timer;
    const loaded = new Promise((resolve, reject) => {
      off = this.#cdp.on("Page.loadEventFired", (_p, s) => s === this.#session && resolve());
      timer = setTimeout(() => reject(new Error("The page did not finish loading in 30 s.")), 30_000);
    });
    loaded.catch(() => {}); // awaited below, unless navigate fails first
    try {
      let r = await this.#send("Page.navigate", { url });
      // The tab's first navigation (about:blank) may still be committing and abort ours.
      for (let i = 0; i < 3 && r.errorText === "net::ERR_ABORTED"; i++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        r = await this.#send("Page.navigate", { url });
      }
      if (typeof r.errorText === "string") throw new Error("The page did not load (" + r.errorText + ").");
      await loaded;
    } finally {
      off();
      clearTimeout(timer);
    }
    return await this.#eval("({ url: location.href, title: document.title })");
  }

  /** Click the first element matching selector; false when none matches. */
  async click(selector) {
    return await this.#eval(call(clickIn, selector)) === true;
  }

  /** Focus the element matching selector and type text as real input; false when none. */
  async type(selector, text) {
    if (await this.#eval(call(focusIn, selector)) !== true) return false;
    await this.#send("Input.insertText", { text });
    return true;
  }

  /** The DOM outline, at most MAX_TEXT_BYTES. */
  async snapshot() {
    return boundText(String(await this.#eval(call(outlinePage))), MAX_TEXT_BYTES, "snapshot");
  }

  /** A PNG of the viewport, downscaled until it fits MAX_IMAGE_BYTES. */
  async screenshot() {
    const m = await this.#send("Page.getLayoutMetrics");
    const { clientWidth: width, clientHeight: height } = m.cssLayoutViewport;
    for (const scale of [1, 0.5, 0.25, 0.125]) {
      const clip = { x: 0, y: 0, width, height, scale };
      const r = await this.#send("Page.captureScreenshot", { format: "png", clip });
      const png = Buffer.from(String(r.data), "base64");
      if (png.length <= MAX_IMAGE_BYTES) return { png, scale, width: Math.round(width * scale), height: Math.round(height * scale) };
    }
    throw new Error("The screenshot stays above 4 MiB even downscaled to 1/8.");
  }

  /** The console lines kept since the last call (and how many older ones were dropped). */
  consoleLogs() {
    const out = { lines: this.#logs.splice(0), dropped: this.#dropped };
    this.#dropped = 0;
    return out;
  }
}

/**
 * Start Chromium (CHROMIUM, else "chromium") with its profile in sessionDir, attach to its
 * tab and return { child, page, close }. Chromium stays in this process group, so
 * toolhost's cleanup of the session reaches its zygote and renderers too.
 */
export async function launchBrowser({ sessionDir, width = 800, height = 600 }) {
  const exe = process.env.CHROMIUM || "chromium";
  // Chromium's singleton socket lives in TMPDIR and must fit a Unix socket path.
  const tmp = Buffer.byteLength(sessionDir) + SINGLETON_SUFFIX <= 107 ? sessionDir : "/tmp";
  const child = spawn(exe, chromiumArgs(sessionDir, width, height), {
    stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"],
    env: { ...process.env, TMPDIR: tmp },
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (s) => (stderr = (stderr + s).slice(-MAX_STDERR_CHARS)));
  const started = new Promise((_resolve, reject) => {
    child.once("error", () => reject(new Error("could not start " + exe + ": is Chromium installed? (apt-get install chromium, or set CHROMIUM)")));
    child.once("exit", () => reject(new Error("Chromium exited while starting.")));
  });
  started.catch(() => {});
  const cdp = new Cdp(child.stdio[3], child.stdio[4]);
  const attach = async () => {
    const { targetInfos } = await cdp.send("Target.getTargets", {}, undefined, 60_000);
    let targetId = targetInfos.find((t) => t.type === "page")?.targetId;
    if (targetId === undefined) {
      targetId = (await cdp.send("Target.createTarget", { url: "about:blank" })).targetId;
    }
    const { sessionId } = await cdp.send("Target.attachToTarget", { targetId, flatten: true });
    const page = new Page(cdp, sessionId);
    await page.init(width, height);
    return page;
  };
  let page;
  try {
    page = await Promise.race([attach(), started]);
  } catch (error) {
    child.kill("SIGKILL");
    // The author's diagnostics: the harness's stderr (toolhost never puts it in a result).
    if (stderr !== "") console.error(stderr);
    throw error;
  }
  /** Close the browser: Browser.close, SIGKILL after 5 s. */
  async function close() {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    cdp.send("Browser.close", {}, undefined, 5_000).catch(() => child.kill("SIGKILL"));
    await exited;
    clearTimeout(timer);
  }
  return { child, page, close };
}
`;
