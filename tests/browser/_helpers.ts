/**
 * Helpers for the browser-session tests: whether Chromium can run here, a registry on
 * examples/browser with a private state dir, a /proc scan for the browser tree by its
 * marker (the state dir in a process's command line or environment), and PNG IHDR
 * parsing.
 *
 * @module
 */

import { execFileSync } from "node:child_process";
import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Buffer } from "node:buffer";
import { inflateSync } from "node:zlib";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";

/** The browser example workspace. */
export const WORKSPACE: string = new URL("../../examples/browser", import.meta.url).pathname;

/**
 * Why the browser tests cannot run here, or undefined when Chromium starts. `CHROMIUM`
 * names another binary (the harnesses read the same variable; a `TOOLHOST_*` one would
 * never reach them: toolhost strips those from a tool's environment).
 */
export function chromiumMissing(): string | undefined {
  const exe = Deno.env.get("CHROMIUM") ?? "chromium";
  try {
    execFileSync(exe, ["--version"], { stdio: "ignore", timeout: 60_000 });
    return undefined;
  } catch {
    return `${exe} is not installed or does not run (apt-get install chromium)`;
  }
}

/** The environment the registry gives tools: `deno` (this one) first on PATH. */
export function toolEnv(): Record<string, string> {
  const env: Record<string, string> = {
    PATH: `${dirname(Deno.execPath())}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
    HOME: Deno.env.get("HOME") ?? "/",
    LC_ALL: "C",
  };
  const exe = Deno.env.get("CHROMIUM");
  if (exe !== undefined) env.CHROMIUM = exe;
  return env;
}

/** Open the eval `site/review` of examples/browser with `stateDir`. */
export async function openBrowserRegistry(stateDir: string): Promise<Registry> {
  const ws = await loadWorkspace(WORKSPACE);
  return await Registry.open(ws, "site/review", { stateDir, env: toolEnv() });
}

/** A /proc file of `pid` as text (empty when gone). */
export function procText(pid: number, file: string): string {
  return readProc(String(pid), file);
}

function readProc(pid: string, file: string): string {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "latin1");
  } catch {
    return "";
  }
}

/** Live (non-zombie) processes whose command line or environment contains `marker`. */
export function markedProcesses(marker: string, exclude: number[] = []): number[] {
  const out: number[] = [];
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid) || exclude.includes(Number(pid)) || Number(pid) === Deno.pid) continue;
    const stat = readProc(pid, "stat");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    if (state === "" || state === "Z" || state === "X") continue;
    if (readProc(pid, "cmdline").includes(marker) || readProc(pid, "environ").includes(marker)) {
      out.push(Number(pid));
    }
  }
  return out;
}

/** The pid of Chromium's main (browser) process for `marker`, if any. */
export function chromiumMain(marker: string): number | undefined {
  return markedProcesses(marker).find((pid) => {
    const argv = readProc(String(pid), "cmdline").split("\0");
    return argv.some((a) => a.startsWith("--user-data-dir=") && a.includes(marker)) &&
      !argv.some((a) => a.startsWith("--type="));
  });
}

/** Process group id of `pid` (undefined once gone). */
export function pgidOf(pid: number): number | undefined {
  const stat = readProc(String(pid), "stat");
  if (stat === "") return undefined;
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
}

/** Poll `pred` every 50 ms until it holds or `ms` passed; returns the last value. */
export async function waitFor(pred: () => boolean, ms = 60_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (pred()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return pred();
}

/** Width and height from a PNG's IHDR; throws when the bytes are not a PNG. */
export function pngSize(bytes: Uint8Array): { width: number; height: number } {
  const sig = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length < 33 || sig.some((b, i) => bytes[i] !== b)) throw new Error("not a PNG");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (new TextDecoder().decode(bytes.subarray(12, 16)) !== "IHDR") throw new Error("no IHDR");
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

/**
 * Decode a PNG as far as its pixels: the chunks parse, the IDAT stream inflates to exactly
 * `height` scanlines of the IHDR's width, each with a valid filter byte. Returns the size;
 * throws when the bytes are not such a PNG.
 */
export function decodePng(bytes: Uint8Array): { width: number; height: number } {
  const { width, height } = pngSize(bytes);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const [depth, color] = [bytes[24], bytes[25]];
  const channels = ({ 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 } as Record<number, number>)[color];
  if (channels === undefined || bytes[28] !== 0) throw new Error("unsupported PNG");
  const idat: Uint8Array[] = [];
  let at = 8;
  let ended = false;
  while (at + 12 <= bytes.length && !ended) {
    const len = view.getUint32(at);
    const type = new TextDecoder().decode(bytes.subarray(at + 4, at + 8));
    if (at + 12 + len > bytes.length) throw new Error(`truncated ${type} chunk`);
    if (type === "IDAT") idat.push(bytes.subarray(at + 8, at + 8 + len));
    ended = type === "IEND";
    at += 12 + len;
  }
  if (!ended) throw new Error("no IEND");
  const raw = inflateSync(Buffer.concat(idat));
  const stride = 1 + Math.ceil((width * channels * depth) / 8);
  if (raw.length !== stride * height) throw new Error("the pixel data does not match the size");
  for (let y = 0; y < height; y++) {
    if (raw[y * stride] > 4) throw new Error(`bad filter on row ${y}`);
  }
  return { width, height };
}

/**
 * A copy of examples/browser in `dir` whose harness imports this checkout's harness-kit by
 * its absolute path (the relative `../../../../harness-kit/` leads nowhere from `dir`);
 * toolhost shows those files read-only in the sandbox, as for the checked-in example.
 * `unconfined` drops the session's `sandbox` keys, so only the harness's own checks stand.
 */
export function exampleCopy(dir: string, o: { unconfined?: boolean } = {}): string {
  const repo = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
  cpSync(WORKSPACE, dir, { recursive: true });
  const harness = join(dir, "site/harness/browser_harness.ts");
  const src = readFileSync(harness, "utf8");
  const rewritten = src.replace('"../../../../harness-kit/mod.ts"', `"${repo}/harness-kit/mod.ts"`);
  if (rewritten === src) throw new Error("the harness's harness-kit import was not found");
  writeFileSync(harness, rewritten);
  if (o.unconfined) {
    const toml = join(dir, "toolhost.toml");
    const text = readFileSync(toml, "utf8");
    const open = text.replace(/^(sandbox|sandbox_read) = .*\n/gm, "");
    if (open === text) throw new Error("the session's sandbox keys were not found");
    writeFileSync(toml, open);
  }
  return dir;
}

/** Open `site/review` of the workspace at `root` with `stateDir`. */
export async function openRegistryAt(root: string, stateDir: string): Promise<Registry> {
  return await Registry.open(await loadWorkspace(root), "site/review", {
    stateDir,
    env: toolEnv(),
  });
}
