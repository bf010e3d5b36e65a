/**
 * The browser session (examples/browser, and the scaffold of `toolhost init harness web
 * --template browser`) against Playwright MCP, on the same page with the same Chromium,
 * all driven by the MCP SDK client over stdio:
 *
 * - toolhost: `toolhost serve --repo examples/browser --eval site/review`; the page is
 *   the harness's own app at `/`. The scaffold likewise (Node harness). Both confined as
 *   declared where bubblewrap runs, else with their sandbox keys removed.
 * - Playwright MCP: `@playwright/mcp` (PINNED below, installed once with npm into a
 *   cache folder, browsers never downloaded) with `--executable-path` the same Chromium,
 *   `--headless --isolated`, an 800×600 viewport; the page is the same index.html from
 *   a loopback server.
 *
 * Per round, a fresh server: start-to-ready = the first navigation (the browser starts
 * with it, on both) minus a steady one; then a screenshot call. Medians of ROUNDS,
 * interleaved, and the ratios toolhost / Playwright MCP. After each close, processes
 * still carrying the round's marker (an environment variable every child inherits) are
 * counted, then killed.
 *
 * SKIPs (with the reason) without Chromium; the Playwright half SKIPs when it cannot be
 * installed. Run alone: `deno run -A bench/browser_bench.ts` (BENCH_QUICK=1: 2 rounds);
 * in `deno task bench` as section `browser`. BENCH_PLAYWRIGHT_MCP names an installed
 * `@playwright/mcp/cli.js` to use instead.
 *
 * @module
 */

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { scaffold } from "../lib/init/scaffold.ts";
import { sandboxSupport } from "../lib/sandbox/detect.ts";
import {
  chromiumMissing,
  exampleCopy,
  markedProcesses,
  toolEnv,
  WORKSPACE,
} from "../tests/browser/_helpers.ts";

/** The Playwright MCP compared against (pinned: figures name a version). */
export const PLAYWRIGHT_MCP = "@playwright/mcp@0.0.83";
const ROUNDS = Deno.env.get("BENCH_QUICK") ? 2 : 5;
const CALL_TIMEOUT_MS = 120_000;
const REPO = new URL("../", import.meta.url).pathname;

type Result = { content: { type: string; data?: string }[]; isError?: boolean };

interface Sample {
  start: number;
  nav: number;
  shot: number;
  left: number;
}

interface Server {
  label: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  navigate: { name: string; arguments: Record<string, unknown> };
  screenshot: { name: string; arguments: Record<string, unknown> };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** One round: connect, navigate twice, screenshot, close; count what outlived it. */
async function round(s: Server): Promise<Sample> {
  // Not a TOOLHOST_* name: toolhost strips those from a tool's environment, and the
  // marker must reach the harness and Chromium to count what outlived the round.
  const marker = `BROWSER_BENCH_MARK=${crypto.randomUUID()}`;
  const [k, v] = marker.split("=");
  const transport = new StdioClientTransport({
    command: s.command,
    args: s.args,
    env: { ...s.env, [k]: v },
    stderr: "ignore",
  });
  const client = new Client({ name: "browser-bench", version: "1" });
  await client.connect(transport);
  const call = async (c: Server["navigate"]): Promise<number> => {
    const t0 = performance.now();
    const r = await client.callTool(c, undefined, { timeout: CALL_TIMEOUT_MS }) as Result;
    if (r.isError) throw new Error(`${s.label}: ${c.name} failed`);
    if (c === s.screenshot && !r.content.some((b) => b.type === "image")) {
      throw new Error(`${s.label}: the screenshot has no image block`);
    }
    return performance.now() - t0;
  };
  let sample: Sample;
  try {
    const first = await call(s.navigate);
    const nav = await call(s.navigate);
    sample = { start: first - nav, nav, shot: await call(s.screenshot), left: 0 };
  } finally {
    await client.close();
  }
  const end = Date.now() + 10_000;
  while (markedProcesses(marker).length > 0 && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 100));
  }
  const left = markedProcesses(marker);
  for (const pid of left) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch { /* gone */ }
  }
  // Until they are gone (bounded): a browser still dying could write into a profile being removed.
  const killed = Date.now() + 10_000;
  while (markedProcesses(marker).length > 0 && Date.now() < killed) {
    await new Promise((r) => setTimeout(r, 50));
  }
  return { ...sample, left: left.length };
}

/** The cli.js of the pinned Playwright MCP, installing it once; or why it cannot run. */
function playwrightCli(): { cli?: string; why?: string } {
  const given = Deno.env.get("BENCH_PLAYWRIGHT_MCP");
  if (given !== undefined) {
    return existsSync(given) ? { cli: given } : { why: `${given} is missing` };
  }
  const cache = Deno.env.get("XDG_CACHE_HOME") ?? join(homedir(), ".cache");
  const dir = join(cache, "toolhost-bench", PLAYWRIGHT_MCP.replace(/[@/]/g, "_"));
  const cli = join(dir, "node_modules/@playwright/mcp/cli.js");
  if (existsSync(cli)) return { cli };
  try {
    mkdirSync(dir, { recursive: true });
    execFileSync("npm", [
      "install",
      "--no-save",
      "--no-audit",
      "--no-fund",
      "--prefix",
      dir,
      PLAYWRIGHT_MCP,
    ], {
      stdio: "ignore",
      timeout: 300_000,
      env: { ...Deno.env.toObject(), PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1" },
    });
  } catch {
    return { why: `npm install ${PLAYWRIGHT_MCP} failed (no npm or no registry)` };
  }
  return existsSync(cli) ? { cli } : { why: `${PLAYWRIGHT_MCP} has no cli.js` };
}

/** Serve examples/browser's page on loopback for Playwright MCP. */
async function servePage(): Promise<{ url: string; close: () => void }> {
  const html = readFileSync(join(WORKSPACE, "site/index.html"));
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, close: () => server.close() };
}

function toolhostServer(state: string, repo = WORKSPACE, evalId = "site/review"): Server {
  return {
    label: "toolhost",
    command: Deno.execPath(),
    args: [
      "run",
      "-A",
      "--config",
      `${REPO}deno.json`,
      `${REPO}cli.ts`,
      "serve",
      "--repo",
      repo,
      "--eval",
      evalId,
      "--state-dir",
      state,
    ],
    env: { ...Deno.env.toObject(), ...toolEnv() },
    navigate: { name: "open_url_site", arguments: { url: "/" } },
    screenshot: { name: "screenshot_site", arguments: {} },
  };
}

function playwrightServer(cli: string, url: string, out: string): Server {
  const exe = Deno.env.get("CHROMIUM") ?? "/usr/bin/chromium";
  return {
    label: "Playwright MCP",
    command: "node",
    args: [
      cli,
      "--headless",
      "--isolated",
      "--executable-path",
      exe,
      "--viewport-size",
      "800x600",
      "--output-dir",
      out,
      ...(Deno.uid() === 0 ? ["--no-sandbox"] : []),
    ],
    env: { ...Deno.env.toObject(), PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1" },
    navigate: { name: "browser_navigate", arguments: { url } },
    screenshot: { name: "browser_take_screenshot", arguments: {} },
  };
}

/** A workspace scaffolded by `toolhost init harness web --template browser`. */
function scaffoldServer(root: string, state: string): Server {
  return {
    ...toolhostServer(state, root, "tools/agent"),
    label: "toolhost, init --template browser",
    navigate: { name: "web_open_url_tools", arguments: { url: "/" } },
    screenshot: { name: "web_screenshot_tools", arguments: {} },
  };
}

/**
 * The `browser` section of `deno task bench`: its report lines.
 *
 * @example
 * ```ts ignore
 * import { benchBrowser } from "./browser_bench.ts";
 * for (const line of await benchBrowser()) console.log(line);
 * ```
 */
export async function benchBrowser(): Promise<string[]> {
  const missing = chromiumMissing();
  if (missing !== undefined) return [`browser: SKIP (${missing})`];
  const pw = playwrightCli();
  const out: string[] = [];
  if (pw.cli === undefined) out.push(`browser: Playwright MCP SKIP (${pw.why})`);
  const page = await servePage();
  const tmp = mkdtempSync(join(tmpdir(), "toolhost-browser-bench-"));
  const scaffolded = join(tmp, "scaffold");
  scaffold({ kind: "harness", name: "web", template: "browser", repo: scaffolded });
  const confined = sandboxSupport().ok;
  let example = WORKSPACE;
  if (!confined) {
    // Where bubblewrap cannot run, the confined sessions would be refused.
    const toml = join(scaffolded, "toolhost.toml");
    writeFileSync(toml, readFileSync(toml, "utf8").replace(/^sandbox(_read)? = .*\n/gm, ""));
    example = exampleCopy(join(tmp, "example"), { unconfined: true });
  }
  const servers = [
    (i: number) => toolhostServer(join(tmp, `state-${i}`), example),
    (i: number) => scaffoldServer(scaffolded, join(tmp, `scaffold-state-${i}`)),
    ...(pw.cli === undefined
      ? []
      : [(i: number) => playwrightServer(pw.cli!, page.url, join(tmp, `pw-${i}`))]),
  ];
  const samples: Sample[][] = servers.map(() => []);
  try {
    for (let i = 0; i < ROUNDS; i++) {
      for (const [n, server] of servers.entries()) samples[n].push(await round(server(i)));
    }
  } finally {
    page.close();
    // Retried (bounded) on ENOTEMPTY/EBUSY: a helper process may still be finishing a write.
    rmSync(tmp, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
  const labels = [
    `toolhost, examples/browser (Deno${confined ? ", confined" : ""})`,
    `toolhost, init --template browser (Node${confined ? ", confined" : ""})`,
    `Playwright MCP ${PLAYWRIGHT_MCP.split("@").pop()}`,
  ];
  return [...out, ...report(samples, labels, pw.cli !== undefined)];
}

/** The table of medians, and each toolhost row's ratios to Playwright MCP (the last row). */
function report(samples: Sample[][], labels: string[], withPlaywright: boolean): string[] {
  const metrics: [string, (s: Sample) => number][] = [
    ["start-to-ready", (s) => s.start],
    ["navigate", (s) => s.nav],
    ["screenshot", (s) => s.shot],
  ];
  const cell = (x: string) => x.padStart(18);
  const out = [
    `browser: MCP stdio, SDK client, medians of ${ROUNDS} interleaved rounds; start-to-ready =`,
    "  first navigation (starts the browser) − a steady one; screenshot = 800×600 PNG",
    `  ${"".padEnd(52)}${metrics.map(([m]) => cell(m)).join("")}${cell("left after close")}`,
  ];
  for (const [n, xs] of samples.entries()) {
    const row = metrics.map(([, f]) => cell(`${median(xs.map(f)).toFixed(0)} ms`)).join("");
    out.push(`  ${labels[n].padEnd(52)}${row}${cell(String(xs.reduce((a, s) => a + s.left, 0)))}`);
  }
  if (!withPlaywright) return out;
  const theirs = samples[samples.length - 1];
  for (const n of [0, 1]) {
    const ratios = metrics.map(([m, f]) =>
      `${m} ${(median(samples[n].map(f)) / median(theirs.map(f))).toFixed(2)}x`
    );
    out.push(`  ratio ${labels[n]} / Playwright MCP: ${ratios.join(", ")}`);
  }
  return out;
}

if (import.meta.main) {
  for (const line of await benchBrowser()) console.log(line);
}
