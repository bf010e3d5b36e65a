/**
 * A registry opened in a process of its own, with or without `TOOLHOST_WARM_SANDBOXES=0`
 * in its environment (tests/fixtures/sandbox/warm_switch.ts). The environment is
 * process-wide: set in the test process, the variable would turn warm spares off for test
 * files running meanwhile on other threads (and one file's restore could undo another's).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT } from "../helpers/cli.ts";

/** The child's registry while it is open, and how to close it. */
export interface SwitchedRegistry {
  /** Whether the registry has a warm pool. */
  warm: boolean;
  /** Its state folder. */
  stateDir: string;
  /** Close the registry and end the process; whether it still had a pool once closed. */
  close(): Promise<{ closedWarm: boolean }>;
}

/**
 * Open `root`'s `app/review` in a child whose environment is this one's with
 * `TOOLHOST_WARM_SANDBOXES` set to `value` (or absent when undefined); with `call`, the
 * child calls `probe_app` once before answering.
 *
 * @example
 * ```ts
 * const reg = await switchedRegistry("/tmp/ws", "0", false);
 * console.log(reg.warm); // false
 * await reg.close();
 * ```
 */
export async function switchedRegistry(
  root: string,
  value: string | undefined,
  call: boolean,
): Promise<SwitchedRegistry> {
  const env = Deno.env.toObject();
  delete env.TOOLHOST_WARM_SANDBOXES;
  if (value !== undefined) env.TOOLHOST_WARM_SANDBOXES = value;
  const path = join(REPO_ROOT, "tests", "fixtures", "sandbox", "warm_switch.ts");
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", path, root, ...(call ? ["--call"] : [])],
    cwd: "/",
    env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  const line = async (): Promise<string> => {
    while (!out.includes("\n")) {
      const { value, done } = await lines.read();
      if (done) break;
      out += value;
    }
    const at = out.indexOf("\n");
    const got = at < 0 ? out : out.slice(0, at);
    out = at < 0 ? "" : out.slice(at + 1);
    return got;
  };
  const err = new Response(child.stderr).text();
  const first = await line();
  if (first === "") {
    await child.status;
    assert.fail(`the registry's process said nothing: ${await err}`);
  }
  const opened = JSON.parse(first) as { warm: boolean; stateDir: string };
  return {
    ...opened,
    async close() {
      await child.stdin.close();
      const last = await line();
      const status = await child.status;
      assert.ok(status.success, `the registry's process failed: ${await err}`);
      return JSON.parse(last) as { closedWarm: boolean };
    },
  };
}
