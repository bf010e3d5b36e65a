/**
 * Helpers for the browser-session tests: whether Chromium can run here, a registry on
 * examples/browser with a private state dir, a /proc scan for the browser tree by its
 * marker (the state dir in a process's command line or environment), and PNG IHDR
 * parsing.
 *
 * @module
 */

import { execFileSync } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";

/** The browser example workspace. */
export const WORKSPACE: string = new URL("../../examples/browser", import.meta.url).pathname;

/** Why the browser tests cannot run here, or undefined when Chromium starts. */
export function chromiumMissing(): string | undefined {
  const exe = Deno.env.get("TOOLHOST_CHROMIUM") ?? "chromium";
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
  const exe = Deno.env.get("TOOLHOST_CHROMIUM");
  if (exe !== undefined) env.TOOLHOST_CHROMIUM = exe;
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
 * A copy of examples/browser in `dir` whose session is confined: `sandbox = "read"` (no
 * network but the session's own loopback) with read access to what the harness needs
 * outside the workspace on this machine (harness-kit, lib/, deno and its cache, Chromium's
 * /etc files) — paths the checked-in example cannot name portably.
 */
export function confinedCopy(dir: string): string {
  const repo = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
  cpSync(WORKSPACE, dir, { recursive: true });
  const harness = join(dir, "site/harness/browser_harness.ts");
  const src = readFileSync(harness, "utf8");
  writeFileSync(
    harness,
    src.replace("../../../../harness-kit/mod.ts", `${repo}/harness-kit/mod.ts`),
  );
  const home = Deno.env.get("HOME") ?? "/root";
  const read = [
    `${repo}/harness-kit`,
    `${repo}/lib`,
    dirname(Deno.execPath()),
    Deno.env.get("DENO_DIR") ?? join(home, ".cache/deno"),
    "/etc/chromium.d",
    "/etc/chromium",
    "/etc/fonts",
  ].filter((p) => existsSync(p));
  const toml = join(dir, "toolhost.toml");
  const keys = `sandbox = "read"\nsandbox_read = ${JSON.stringify(read)}\n`;
  const text = readFileSync(toml, "utf8").replace(
    /(\[artifacts\.site\.views\.agent_sessions\.browser\]\n(?:.*\n){2})/,
    `$1${keys}`,
  );
  if (!text.includes(keys)) throw new Error("the session table was not found");
  writeFileSync(toml, text);
  return dir;
}

/** Open `site/review` of the workspace at `root` with `stateDir`. */
export async function openRegistryAt(root: string, stateDir: string): Promise<Registry> {
  return await Registry.open(await loadWorkspace(root), "site/review", {
    stateDir,
    env: toolEnv(),
  });
}
