/**
 * What the unconfined warm-spare tests share: a workspace of probes, registries cold and
 * warm on it, and the checks that nothing of it still runs.
 *
 * @module
 */

import assert from "node:assert/strict";
import { readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { Registry } from "../../lib/registry/registry.ts";
import type { ToolResult } from "../../lib/results/types.ts";
import type { WarmPool } from "../../lib/sandbox/warm_pool.ts";
import { invokePlainCommand } from "../../lib/protocols/invoke.ts";
import { waiterShell } from "../../lib/process/warm_script.ts";
import { sessionLauncher } from "../../lib/process/session_launcher.ts";
import { markerGone, processExists } from "./_corpus.ts";
import { JSON_PROBE, PROBE, TRICKY } from "./_warm.ts";

/** The shared probe, plus the signal dispositions and mask, read by the shell itself (a
 * child reading them could catch the shell's own mask around its fork). */
const SIG_PROBE =
  `${PROBE}while IFS= read -r l; do case "$l" in Sig[BIC]*) echo "$l" ;; esac; done < /proc/$$/status
`;

/** The probe workspace's manifest. */
export const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.probe]
description = "Report what the process sees."
protocol = "plain"
command = "tools/probe.sh"
args = ["{a}", "{b}", "--", "{a}"]
input_schema = { type = "object", properties = { a = { type = "string" }, b = { type = "string" } }, required = ["a", "b"] }

[artifacts.app.views.agent_tools.jprobe]
description = "Report stdin and environment."
protocol = "json"
command = "tools/jprobe.sh"
args = []

[artifacts.app.views.agent_tools.hang]
description = "Runs until it is ended."
protocol = "plain"
command = "tools/hang.sh"
args = []

[artifacts.app.views.agent_tools.broken]
description = "An interpreter that does not exist."
protocol = "plain"
command = "tools/broken.sh"
args = []
`;

/** The probe workspace's files. */
export const FILES = {
  "app/README.md": "# app\n",
  "app/tools/probe.sh": { text: SIG_PROBE, mode: 0o755 },
  "app/tools/jprobe.sh": { text: JSON_PROBE, mode: 0o755 },
  "app/tools/broken.sh": { text: "#!/nonexistent/interpreter\n", mode: 0o755 },
  "app/tools/hang.sh": {
    text: "#!/bin/sh\necho $$ > hang.pid.new\nmv hang.pid.new hang.pid\nexec sleep 1000\n",
    mode: 0o755,
  },
};

/** Why unconfined spares cannot be tested here, if they cannot. */
export const skip = waiterShell() === null
  ? "no trusted dash"
  : sessionLauncher() === null
  ? "no setsid launcher (unconfined spares are for Deno on Linux)"
  : undefined;

/** Environments that together hold every tricky value and every name dash treats
 * specially, each small enough for a spare (`MAX_HOST_CALL_BYTES`). */
export function trickyEnvs(): Record<string, string>[] {
  const values: Record<string, string> = { PATH: "/usr/bin:/bin", DENO_EXTRA_STDIO_FDS: "9" };
  TRICKY.forEach((v, i) => (values[`V${i}`] = v));
  const names: Record<string, string> = { PATH: "/usr/bin:/bin" };
  for (const n of ["PPID", "LINENO", "IFS", "PS1", "PS4", "ENV", "_", "OLDPWD", "HOME"]) {
    names[n] = `${n} ${TRICKY[0].slice(0, 12)}`;
  }
  return [values, names, { ...names, PWD: `PWD ${TRICKY[1]}` }];
}

/** Arguments that together hold every tricky value. */
export const TRICKY_ARGS = [0, 2, 4, 6].map((i) => ({ a: TRICKY[i], b: TRICKY[i + 1] }));

/** The text of a result. */
export function text(r: { content: { type: string; text?: string }[] }): string {
  return r.content.map((b) => b.text ?? "").join("");
}

/** A registry on `root`'s `app/review` with environment `env`, warm or not. */
export async function open(
  root: string,
  warm: boolean,
  env: Record<string, string>,
): Promise<Registry> {
  return await Registry.open(await loadWorkspace(root), "app/review", {
    env,
    warmSandboxes: warm,
  });
}

/** Two calls on a warm registry: the second runs in the spare the first left. */
export async function warmSecond(
  reg: Registry,
  tool: string,
  args: Record<string, unknown>,
): Promise<ToolResult> {
  await reg.call(tool, args);
  await reg.warm!.settled();
  const before = reg.warm!.stats.taken;
  const r = await reg.call(tool, args);
  assert.equal(reg.warm!.stats.taken, before + 1, "the second call ran in a warm spare");
  return r;
}

/** Processes whose working directory is inside `root`. */
export function processesIn(root: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || !processExists(Number(name))) continue;
    try {
      if (readlinkSync(`/proc/${name}/cwd`).startsWith(root)) out.push(Number(name));
    } catch { /* gone, or not ours to read */ }
  }
  return out;
}

/** Waits until nothing of the workspace runs; what still does. */
export async function gone(root: string): Promise<number[]> {
  const byCmdline = await markerGone(root);
  for (let i = 0; i < 600 && processesIn(root).length > 0; i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  return [...byCmdline, ...processesIn(root)];
}

/** A plain unconfined call of `/bin/sh -c script` in `cwd`, with `pool` when given. */
export function shCall(
  root: string,
  script: string,
  pool?: WarmPool,
  extra: Partial<Parameters<typeof invokePlainCommand>[0]> = {},
): Promise<ToolResult> {
  return invokePlainCommand({
    command: "/bin/sh",
    template: ["-c", script],
    properties: [],
    args: {},
    cwd: join(root, "app"),
    stateDir: join(root, ".toolhost", "state"),
    baseEnv: { PATH: "/usr/bin:/bin" },
    warm: pool,
    ...extra,
  });
}
