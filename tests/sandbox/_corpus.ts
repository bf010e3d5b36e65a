/**
 * Shared setup of the confinement attack corpus (tests/fixtures/sandbox/attack.sh):
 * a workspace with the declaring Artifact `app`, an Artifact `other` outside the eval's
 * scope, a fake home with `.ssh`, a host folder outside everything, a victim process, a
 * TCP + UDP listener on the host's loopback, and a `/proc` scan for a marker.
 */

import assert from "node:assert/strict";
import { createSocket } from "node:dgram";
import { readdirSync, readFileSync } from "node:fs";
import { sandboxSupport } from "../../lib/sandbox/detect.ts";
import { REPO_ROOT } from "../helpers/cli.ts";

/** The attack script and the containment script, as text (copied into workspaces). */
export const ATTACK_SH = readFileSync(`${REPO_ROOT}/tests/fixtures/sandbox/attack.sh`, "utf8");
export const CONTAIN_SH = readFileSync(`${REPO_ROOT}/tests/fixtures/sandbox/contain.sh`, "utf8");

/**
 * Undefined when confinement works here, else the reason to print with SKIP.
 *
 * @example
 * ```ts
 * const skip = skipReason();
 * ```
 */
export function skipReason(): string | undefined {
  const s = sandboxSupport();
  return s.ok ? undefined : s.reason;
}

/** Print the SKIP line of a test that cannot run here. */
export function printSkip(name: string, reason: string): void {
  console.log(`SKIP ${name}: ${reason}`);
}

/** Everything an attack run needs; dispose to remove it. */
export interface Range extends AsyncDisposable {
  /** Environment to give the tool (ATTACK_*). */
  env: Record<string, string>;
  /** The marker. */
  mark: string;
  /** TCP connections and UDP datagrams the host listener saw. */
  seen: { tcp: number; udp: number };
  /** The victim process (must survive). */
  victim: Deno.ChildProcess;
  /** The fake home and host folder (must stay unchanged). */
  home: string;
  /** Host folder outside everything. */
  hostTmp: string;
}

/**
 * Set up the range around workspace `root` (with Artifacts `app` and `other`).
 *
 * @example
 * ```ts
 * await using r = await openRange(root, `${root}/.toolhost/state`);
 * ```
 */
export async function openRange(root: string, stateDir: string): Promise<Range> {
  const mark = `THMARK${crypto.randomUUID().replaceAll("-", "")}`;
  const home = Deno.realPathSync(await Deno.makeTempDir({ prefix: "toolhost_home_" }));
  const hostTmp = Deno.realPathSync(await Deno.makeTempDir({ prefix: "toolhost_hosttmp_" }));
  Deno.mkdirSync(`${home}/.ssh`);
  Deno.writeTextFileSync(`${home}/.ssh/id_rsa`, `-----BEGIN KEY ${mark}\n`);
  Deno.writeTextFileSync(`${home}/.bash_history`, `export TOKEN=${mark}\n`);
  Deno.writeTextFileSync(`${hostTmp}/secret.txt`, `${mark}\n`);
  Deno.writeTextFileSync(`${root}/other/secret.txt`, `${mark}\n`);
  Deno.mkdirSync(stateDir, { recursive: true });
  Deno.writeTextFileSync(`${stateDir}/secret.txt`, `${mark}\n`);
  const seen = { tcp: 0, udp: 0 };
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  (async () => {
    for await (const conn of listener) {
      seen.tcp++;
      await conn.write(new TextEncoder().encode("banner\n")).catch(() => {});
      conn.close();
    }
  })().catch(() => {});
  const udp = createSocket("udp4");
  udp.on("message", () => seen.udp++);
  await new Promise<void>((resolve) => udp.bind(port, "127.0.0.1", resolve));
  const victim = new Deno.Command("sleep", { args: ["1000"], stdout: "null", stderr: "null" })
    .spawn();
  const env = {
    ATTACK_HOME: home,
    ATTACK_OTHER: `${root}/other`,
    ATTACK_OWN: `${root}/app`,
    ATTACK_STATE: stateDir,
    ATTACK_HOSTTMP: hostTmp,
    ATTACK_PID: String(Deno.pid),
    ATTACK_VICTIM: String(victim.pid),
    ATTACK_PORT: String(port),
    ATTACK_MARK: mark,
    // Toolhost's own environment holds the marker (as a protected value would).
    HOME: home,
  };
  // Under a name of this range's own: test files running meanwhile on other threads share
  // this process's environment, and another range would overwrite or delete a shared name.
  const secretName = `TOOLHOST_TEST_SECRET_${mark}`;
  Deno.env.set(secretName, mark);
  return {
    env,
    mark,
    seen,
    victim,
    home,
    hostTmp,
    async [Symbol.asyncDispose]() {
      listener.close();
      udp.close();
      try {
        victim.kill("SIGKILL");
      } catch { /* gone */ }
      await victim.status;
      Deno.env.delete(secretName);
      await Deno.remove(home, { recursive: true });
      await Deno.remove(hostTmp, { recursive: true });
    },
  };
}

/**
 * Check an attack run's output: every case ran and every one says CONTAINED, the victim
 * lives, nothing was written outside, and the host listener saw nothing.
 *
 * @example
 * ```ts
 * assertContained(r, text, cases);
 * ```
 */
export function assertContained(r: Range, text: string, cases: readonly string[]): void {
  const lines = text.split("\n").filter((l) => /^(CONTAINED|ESCAPED) /.test(l));
  const escaped = lines.filter((l) => l.startsWith("ESCAPED"));
  assert.deepEqual(escaped, [], `escapes:\n${escaped.join("\n")}`);
  const ran = new Set(lines.map((l) => l.split(" ")[1]));
  const missing = cases.filter((c) => !ran.has(c));
  assert.deepEqual(missing, [], `cases that did not report: ${missing.join(", ")}\n${text}`);
  assert.deepEqual(r.seen, { tcp: 0, udp: 0 }, "the host's loopback listener was reached");
  for (const dir of [r.home, r.hostTmp, r.env.ATTACK_OTHER, r.env.ATTACK_OWN, r.env.ATTACK_STATE]) {
    assert.equal(readdirSync(dir).includes("pwned"), false, `a file was written in ${dir}`);
  }
  assert.equal(processExists(r.victim.pid), true, "the victim process was killed");
}

/**
 * Whether a process with this pid runs (not a zombie).
 *
 * @example
 * ```ts
 * processExists(Deno.pid); // true
 * ```
 */
export function processExists(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return !/\) [ZX] /.test(stat);
  } catch {
    return false;
  }
}

/**
 * Live (non-zombie) processes whose command line contains `mark`, by a `/proc` scan.
 *
 * @example
 * ```ts
 * markerProcesses("THMARK..."); // []
 * ```
 */
export function markerProcesses(mark: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, "latin1");
      if (cmd.includes(mark) && processExists(Number(name))) out.push(Number(name));
    } catch { /* gone */ }
  }
  return out;
}

/**
 * Wait (polling, no deadline tighter than `maxMs`) until no process carries `mark`.
 * Returns the survivors (empty when all went).
 *
 * @example
 * ```ts
 * assert.deepEqual(await markerGone(mark), []);
 * ```
 */
export async function markerGone(mark: string, maxMs = 60_000): Promise<number[]> {
  const until = Date.now() + maxMs;
  let left = markerProcesses(mark);
  while (left.length > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    left = markerProcesses(mark);
  }
  return left;
}

/**
 * Read the case list from the attack script.
 *
 * @example
 * ```ts
 * attackCases().length; // ≥ 40
 * ```
 */
export function attackCases(): string[] {
  const m = /CASES="([^"]*)"/.exec(ATTACK_SH);
  return m![1].split(/\s+/).filter((c) => c !== "");
}
