#!/usr/bin/env -S deno run --allow-all --no-config --quiet
/**
 * The example tool-session harness, written with harness-kit. `start` launches the
 * counter web app (counter_app.mjs, a separate long-running program on an OS-chosen
 * port) and keeps it for the session; the bound actions act on it over HTTP and see each
 * other's effects; `stop` shuts the app down.
 *
 * Declared in examples/toolhost.toml as session `web` of Artifact `app`, with the bound
 * tools counter_add_app, counter_get_app and page_app.
 *
 * Runs with Deno (on PATH, including inside `npx -y deno@2.9.6 task ...`).
 *
 * @module
 */

import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import process from "node:process";
import { json, sessionHarness, text } from "../../../harness-kit/mod.ts";

/** The session state: the running app and its port. */
interface App {
  child: ChildProcess;
  port: number;
}

const APP = fileURLToPath(new URL("./counter_app.mjs", import.meta.url));

function launch(): Promise<App> {
  const args = process.versions.deno
    ? ["run", "--allow-net", "--no-config", "--quiet", APP]
    : [APP];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let buf = "";
    child.once("error", reject);
    child.once("exit", () => reject(new Error("the counter app exited while starting")));
    child.stdout!.on("data", (chunk) => {
      buf += chunk;
      const nl = buf.indexOf("\n");
      if (nl >= 0) resolve({ child, port: JSON.parse(buf.slice(0, nl)).port });
    });
  });
}

async function http(
  app: App,
  method: string,
  path: string,
): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${app.port}${path}`, { method });
  return { status: res.status, body: await res.text() };
}

await sessionHarness<App>({
  start: () => launch(),
  actions: {
    counter_add: {
      schema: {
        type: "object",
        properties: { by: { type: "integer", minimum: 1, maximum: 1000 } },
        additionalProperties: false,
      },
      handler: async (args, { state }) => {
        const r = await http(state, "POST", `/counter?by=${args.by ?? 1}`);
        if (r.status !== 200) throw new Error(`The app refused the change (HTTP ${r.status}).`);
        const { value } = JSON.parse(r.body);
        return [text(`The counter is now ${value}.`), json({ value })];
      },
    },
    counter_get: async (_args, { state }) => {
      const { value } = JSON.parse((await http(state, "GET", "/counter")).body);
      return [text(`The counter is ${value}.`), json({ value })];
    },
    page: {
      schema: {
        type: "object",
        properties: { path: { type: "string", pattern: "^/[A-Za-z0-9/_-]*$", maxLength: 200 } },
        additionalProperties: false,
      },
      handler: async (args, { state }) => {
        const r = await http(state, "GET", typeof args.path === "string" ? args.path : "/");
        return `HTTP ${r.status}\n${r.body}`;
      },
    },
  },
  stop: async ({ child }) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  },
});
