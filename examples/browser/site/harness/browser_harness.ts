#!/usr/bin/env -S deno run --allow-all --no-config --quiet
/**
 * The browser tool-session harness, written with harness-kit. `start` serves the local
 * counter app (site/index.html on a loopback port), launches headless Chromium with its
 * profile in the session directory and attaches to its tab over the DevTools protocol
 * (raw CDP on Chromium's pipe: no dependency, no `WebSocket`, no DevTools port); the
 * bound actions drive that tab; `open_url` serves `file:` URLs of the scope through the
 * app (never opened by Chromium); `stop` closes the browser. If Chromium dies, the harness exits so toolhost ends the
 * session and sweeps its group; the next call starts a fresh one.
 *
 * Declared in examples/browser/toolhost.toml as session `browser` of Artifact `site`.
 * Runs with Deno (on PATH, including inside `npx -y deno@2.9.6 task ...`): Node 20 runs
 * no `.ts` file. The Node-only version of this harness is the scaffold of
 * `toolhost init harness NAME --template browser`.
 *
 * @module
 */

import process from "node:process";
import { image, json, sessionHarness, text } from "../../../../harness-kit/mod.ts";
import { type App, serveApp } from "./app_server.ts";
import type { Cdp } from "./cdp.ts";
import { type Browser, launchChromium } from "./chromium.ts";
import { boundText, MAX_SNAPSHOT_BYTES, Page } from "./page.ts";
import { scopeRoots } from "./scoped_file.ts";
import { allowedUrl } from "./url_policy.ts";

/** The session state. */
interface Session {
  app: App;
  browser: Browser;
  cdp: Cdp;
  page: Page;
  stopping: boolean;
}

const WIDTH = 800;
const HEIGHT = 600;
const SELECTOR = { type: "string", minLength: 1, maxLength: 500 };

async function start(sessionDir: string): Promise<Session> {
  const app = await serveApp();
  const browser = await launchChromium({ sessionDir, width: WIDTH, height: HEIGHT });
  const s = { app, browser, stopping: false } as Session;
  browser.child.once("exit", () => {
    if (s.stopping) return;
    console.error("toolhost browser harness: Chromium exited; ending the session");
    process.exit(1);
  });
  s.cdp = browser.cdp;
  s.page = await Page.attach(s.cdp, WIDTH, HEIGHT);
  return s;
}

async function stop(s: Session): Promise<void> {
  s.stopping = true;
  const { child } = s.browser;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      await s.cdp.send("Browser.close", {}, undefined, 5_000);
    } catch {
      child.kill("SIGKILL");
    }
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  }
  s.cdp.close();
  s.app.server.closeAllConnections();
  s.app.server.close();
}

await sessionHarness<Session>({
  start: ({ sessionDir }) => start(sessionDir),
  stop,
  actions: {
    open_url: {
      schema: {
        type: "object",
        properties: { url: { type: "string", minLength: 1, maxLength: 2000 } },
        required: ["url"],
        additionalProperties: false,
      },
      handler: async (args, { state, scope }) => {
        const url = allowedUrl(String(args.url), state.app, scopeRoots(scope));
        const r = await state.page.open(url);
        return [text(`Opened ${r.url} (title: ${JSON.stringify(r.title)}).`), json(r)];
      },
    },
    click: {
      schema: {
        type: "object",
        properties: { selector: SELECTOR },
        required: ["selector"],
        additionalProperties: false,
      },
      handler: async (args, { state }) => {
        if (!await state.page.click(String(args.selector))) {
          throw new Error("No element matches the selector.");
        }
        return "Clicked.";
      },
    },
    type_text: {
      schema: {
        type: "object",
        properties: { selector: SELECTOR, text: { type: "string", maxLength: 10_000 } },
        required: ["selector", "text"],
        additionalProperties: false,
      },
      handler: async (args, { state }) => {
        if (!await state.page.type(String(args.selector), String(args.text))) {
          throw new Error("No focusable element matches the selector.");
        }
        return "Typed.";
      },
    },
    snapshot: async (_args, { state }) => await state.page.snapshot(),
    screenshot: async (_args, { state }) => {
      const { png, scale, width, height } = await state.page.screenshot();
      return [image(png, "image/png"), json({ bytes: png.length, width, height, scale })];
    },
    console_logs: (_args, { state }) => {
      const { lines, dropped } = state.page.consoleLogs();
      const head = dropped > 0 ? `[${dropped} older entries dropped]\n` : "";
      return lines.length === 0 && dropped === 0
        ? "No console output since the last call."
        : boundText(head + lines.join("\n"), MAX_SNAPSHOT_BYTES, "console log");
    },
  },
});
