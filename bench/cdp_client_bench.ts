/**
 * Why the browser harnesses drive Chromium over a raw DevTools pipe: each candidate
 * client of the issue (`puppeteer-core`, `playwright-core`, `chrome-remote-interface`)
 * against the harnesses' own ~150 lines, under Node.js (the scaffold's runtime), with the
 * same Chromium and flags — its dependency weight (installed size, packages), its import
 * time, and launch-to-first-answer (start Chromium, connect, `Browser.getVersion` or the
 * client's equivalent). Medians of ROUNDS interleaved rounds, each a fresh `node` process.
 *
 * The clients are installed once with npm (pinned below) into a cache folder, never
 * loaded by toolhost. SKIPs (with the reason) without Chromium or npm. Run alone:
 * `deno run -A bench/cdp_client_bench.ts` (BENCH_QUICK=1: 2 rounds).
 *
 * @module
 */

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { chromiumMissing, markedProcesses } from "../tests/browser/_helpers.ts";

/** The clients compared (pinned: figures name a version). */
export const CLIENTS: readonly string[] = [
  "puppeteer-core@25.16.0",
  "playwright-core@1.65.1",
  "chrome-remote-interface@0.34.0",
];
const ROUNDS = Deno.env.get("BENCH_QUICK") ? 2 : 5;
/** Removing a profile Chromium may still be finishing: retried on ENOTEMPTY/EBUSY, bounded. */
const RM_RETRY = { recursive: true, force: true, maxRetries: 10, retryDelay: 100 } as const;
const FLAGS = [
  "--headless=new",
  "--no-first-run",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-extensions",
  "--disable-background-networking",
  "--mute-audio",
  ...(Deno.uid() === 0 ? ["--no-sandbox"] : []),
];

/** A Node.js program printing `{"load": ms, "ready": ms}`; `import` is timed separately. */
function program(client: string, exe: string, profile: string): string {
  const common = `const t0 = performance.now();
const exe = ${JSON.stringify(exe)};
const flags = ${JSON.stringify(FLAGS)};
const profile = ${JSON.stringify(profile)};
const done = (load, version) => {
  if (!String(version).includes("Chrome")) throw new Error("no version: " + version);
  console.log(JSON.stringify({ load: load - t0, ready: performance.now() - load }));
};
// End Chromium and everything it started (its own process group), and wait (bounded) until
// it has exited: a browser still running would keep writing into the profile being removed.
const stop = async (child) => {
  const exited = child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((r) => child.once("exit", r));
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
  let timer;
  await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 30000)))]);
  clearTimeout(timer);
};
`;
  if (client === "raw") {
    return common + `import { spawn } from "node:child_process";
const load = performance.now();
const child = spawn(exe, [...flags, "--remote-debugging-pipe", "--user-data-dir=" + profile, "about:blank"], { stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"], detached: true });
try {
  const version = await new Promise((resolve, reject) => {
    let buf = "";
    child.stdio[4].on("data", (c) => {
      buf += c.toString("utf8");
      const end = buf.indexOf("\\0");
      if (end !== -1) resolve(JSON.parse(buf.slice(0, end)).result.product);
    });
    child.once("exit", () => reject(new Error("Chromium exited before it answered")));
    setTimeout(() => reject(new Error("Chromium did not answer within 60 s")), 60000).unref();
    child.stdio[3].write(JSON.stringify({ id: 1, method: "Browser.getVersion", params: {} }) + "\\0");
  });
  done(load, version);
} finally {
  await stop(child);
}
`;
  }
  if (client.startsWith("puppeteer-core")) {
    return common + `const { default: puppeteer } = await import("puppeteer-core");
const load = performance.now();
const browser = await puppeteer.launch({ executablePath: exe, pipe: true, headless: true, userDataDir: profile, args: flags });
try {
  done(load, await browser.version());
} finally {
  await stop(browser.process());
}
`;
  }
  if (client.startsWith("playwright-core")) {
    return common + `const { chromium } = await import("playwright-core");
const load = performance.now();
const browser = await chromium.launch({ executablePath: exe, headless: true, args: flags });
try {
  done(load, "Chrome/" + browser.version());
} finally {
  await browser.close();
}
`;
  }
  return common + `const { default: CDP } = await import("chrome-remote-interface");
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
const load = performance.now();
const child = spawn(exe, [...flags, "--remote-debugging-port=0", "--user-data-dir=" + profile, "about:blank"], { stdio: "ignore", detached: true });
let exited = false;
child.once("exit", () => (exited = true));
try {
  // The port Chromium chose (never a fixed one another browser may hold), once it listens:
  // DevToolsActivePort holds "PORT\\n/devtools/browser/ID" and is empty or partial while
  // being written, so only a complete first line counts. Bounded: Chromium may never listen.
  let port;
  const deadline = Date.now() + 60000;
  while (port === undefined) {
    let text = "";
    try { text = readFileSync(profile + "/DevToolsActivePort", "utf8"); } catch { /* not yet */ }
    const m = /^([0-9]{1,5})\\n\\/devtools\\/browser\\//.exec(text);
    if (m !== null && Number(m[1]) > 0 && Number(m[1]) < 65536) port = Number(m[1]);
    else if (exited) throw new Error("Chromium exited before it listened");
    else if (Date.now() > deadline) throw new Error("Chromium did not listen within 60 s");
    else await new Promise((r) => setTimeout(r, 20));
  }
  const client = await CDP({ host: "127.0.0.1", port, target: (ts) => ts.find((t) => t.type === "browser") ?? ts[0] });
  try {
    done(load, (await client.Browser.getVersion()).product);
  } finally {
    await client.close();
  }
} finally {
  await stop(child);
}
`;
}

/** The environment variable marking one program's processes (and its Chromium's). */
const MARK = "CDP_BENCH_MARK";

/** SIGKILL what still carries `marker` and wait (bounded) until it is gone. */
async function endMarked(marker: string): Promise<void> {
  const end = Date.now() + 10_000;
  for (let left = markedProcesses(marker); left.length > 0; left = markedProcesses(marker)) {
    for (const pid of left) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch { /* gone */ }
    }
    if (Date.now() > end) throw new Error(`cdp clients: ${left.length} processes would not end`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function folderKiB(dir: string): number {
  return Number(execFileSync("du", ["-sk", dir], { encoding: "utf8" }).split("\t")[0]);
}

/** Install `spec` once into the cache; its folder, or why it cannot. */
function install(spec: string): { dir?: string; why?: string } {
  const cache = Deno.env.get("XDG_CACHE_HOME") ?? join(homedir(), ".cache");
  const dir = join(cache, "toolhost-bench", "cdp-clients", spec.replace(/[@/]/g, "_"));
  if (existsSync(join(dir, "node_modules"))) return { dir };
  try {
    mkdirSync(dir, { recursive: true });
    execFileSync(
      "npm",
      ["install", "--no-save", "--no-audit", "--no-fund", "--prefix", dir, spec],
      {
        stdio: "ignore",
        timeout: 300_000,
        env: { ...Deno.env.toObject(), PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1" },
      },
    );
    return { dir };
  } catch {
    return { why: `npm install ${spec} failed (no npm or no registry)` };
  }
}

/**
 * The report lines.
 *
 * @example
 * ```ts ignore
 * import { benchCdpClients } from "./cdp_client_bench.ts";
 * for (const line of await benchCdpClients()) console.log(line);
 * ```
 */
export async function benchCdpClients(): Promise<string[]> {
  const missing = chromiumMissing();
  if (missing !== undefined) return [`cdp clients: SKIP (${missing})`];
  const exe = Deno.env.get("CHROMIUM") ?? "/usr/bin/chromium";
  const out: string[] = [];
  const rows: { label: string; dir: string; weight: string }[] = [];
  const tmp = mkdtempSync(join(tmpdir(), "toolhost-cdp-bench-"));
  mkdirSync(join(tmp, "node_modules"));
  rows.push({ label: "raw pipe (the harnesses)", dir: tmp, weight: "0 KiB, 0 packages" });
  for (const spec of CLIENTS) {
    const r = install(spec);
    if (r.dir === undefined) {
      out.push(`cdp clients: ${spec} SKIP (${r.why})`);
      continue;
    }
    const nm = join(r.dir, "node_modules");
    const pkgs = readdirSync(nm).filter((n) => !n.startsWith("."))
      .flatMap((n) => n.startsWith("@") ? readdirSync(join(nm, n)) : [n]).length;
    rows.push({ label: spec, dir: r.dir, weight: `${folderKiB(nm)} KiB, ${pkgs} packages` });
  }
  const samples = rows.map(() => ({ load: [] as number[], ready: [] as number[] }));
  try {
    for (let i = 0; i < ROUNDS; i++) {
      for (const [n, row] of rows.entries()) {
        const profile = join(tmp, `profile-${n}-${i}`);
        const file = join(row.dir, `bench-${n}.mjs`);
        writeFileSync(file, program(n === 0 ? "raw" : row.label, exe, profile));
        // Marked (inherited by Chromium): whatever of this run outlives it is ended below,
        // even when the program failed or hit its timeout.
        const marker = crypto.randomUUID();
        let text: string;
        try {
          text = execFileSync("node", [file], {
            encoding: "utf8",
            timeout: 120_000,
            env: { ...Deno.env.toObject(), [MARK]: marker },
          });
        } finally {
          await endMarked(`${MARK}=${marker}`);
          rmSync(file, { force: true });
          rmSync(profile, RM_RETRY);
        }
        const { load, ready } = JSON.parse(text.trim().split("\n").pop()!);
        samples[n].load.push(load);
        samples[n].ready.push(ready);
      }
    }
  } finally {
    rmSync(tmp, RM_RETRY);
  }
  const node = execFileSync("node", ["--version"], { encoding: "utf8" }).trim();
  out.push(
    `cdp clients: Node ${node}, medians of ${ROUNDS} interleaved rounds (a fresh node each);`,
    "  import = the client's module load; launch = start Chromium, connect, get its version",
    `  ${"".padEnd(34)}${"installed".padStart(26)}${"import".padStart(10)}${"launch".padStart(10)}`,
  );
  for (const [n, row] of rows.entries()) {
    const load = `${median(samples[n].load).toFixed(0)} ms`;
    const ready = `${median(samples[n].ready).toFixed(0)} ms`;
    out.push(
      `  ${row.label.padEnd(34)}${row.weight.padStart(26)}${load.padStart(10)}${
        ready.padStart(10)
      }`,
    );
  }
  return out;
}

if (import.meta.main) {
  for (const line of await benchCdpClients()) console.log(line);
}
