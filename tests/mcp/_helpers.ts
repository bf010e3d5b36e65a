/**
 * Helpers for the MCP tests: repository paths, pinned third-party MCP packages, the
 * fixture server command, process checks and polling.
 *
 * @module
 */

import { fileURLToPath } from "node:url";

/** Absolute path of the repository root. */
export const REPO: string = fileURLToPath(new URL("../../", import.meta.url)).replace(/\/$/, "");
/** The CLI entry. */
export const CLI: string = `${REPO}/cli.ts`;
/** The official MCP filesystem server, pinned. */
export const FS_SERVER = "@modelcontextprotocol/server-filesystem@2026.8.31";
/** The MCP Inspector (its `--cli` mode), pinned. */
export const INSPECTOR = "@modelcontextprotocol/inspector@2.12.0";

/** argv (after `deno`) that runs the fixture MCP server. */
export function fixtureServerArgs(): string[] {
  return [
    "run",
    "-A",
    "--config",
    `${REPO}/deno.json`,
    `${REPO}/tests/fixtures/mcp/fixture_server.ts`,
  ];
}

/** argv (after `deno`) that runs `toolhost serve` with `args`. */
export function serveArgs(...args: string[]): string[] {
  return ["run", "-A", "--config", `${REPO}/deno.json`, CLI, "serve", ...args];
}

/** True while `pid` exists and is not a zombie. */
export function alive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** Pids of running processes whose process group is `pgid`. */
export function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${e.name}/stat`);
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(f[2]) === pgid && f[0] !== "Z" && f[0] !== "X") out.push(Number(e.name));
    } catch { /* exited meanwhile */ }
  }
  return out;
}

/** Poll `pred` every 25 ms until true or `ms` elapsed; returns the last value. */
// A cap, not a timing assertion: the wait ends as soon as the condition holds, so a long
// cap costs nothing when things work and keeps a busy 2-core machine from failing them.
export async function waitFor(pred: () => boolean, ms = 60_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (pred()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return pred();
}

/** The TOML for an extension table. */
export function extensionToml(name: string, fields: Record<string, unknown>): string {
  const lines = Object.entries(fields).map(([k, v]) => `${k} = ${toml(v)}`);
  return `\n[extensions.${name}]\n${lines.join("\n")}\n`;
}

function toml(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return `[${v.map(toml).join(", ")}]`;
  if (typeof v === "object" && v !== null) {
    return `{ ${
      Object.entries(v).map(([k, x]) => `${JSON.stringify(k)} = ${toml(x)}`).join(", ")
    } }`;
  }
  throw new Error("no TOML form");
}

/** The eval the end-to-end tests serve. */
export const E2E_EVAL = "app/review";

/** The declared input schema of `info_app`, which must pass through unchanged. */
export const INFO_SCHEMA = {
  type: "object",
  properties: { name: { type: "string", maxLength: 20 } },
  required: ["name"],
  additionalProperties: false,
};

const INFO_SH = `#!/bin/sh
cat >/dev/null
printf '{"content":[{"type":"json","data":{"greeting":"hello","n":2}}]}\\n'
`;

const ENVELOPE_SH = `#!/bin/sh
cat >/dev/null
f="$(pwd)/out/r1.json"
printf '{"content":[{"type":"text","text":"{\\\\"schema\\\\":\\\\"odek.tool-result/v1\\\\",\\\\"text\\\\":\\\\"built\\\\",\\\\"artifacts\\\\":[{\\\\"schema\\\\":\\\\"odek.artifact-ref/v1\\\\",\\\\"id\\\\":\\\\"r1\\\\",\\\\"uri\\\\":\\\\"file://%s\\\\",\\\\"media_type\\\\":\\\\"application/json\\\\"}]}"}]}\\n' "$f"
`;

const SLOW_SH = `#!/bin/sh
echo $$ > "$TEST_PIDDIR/slow.pid"
sleep 60 &
sleep 60
wait
`;

const HARNESS_SH = `#!/bin/sh
cat >/dev/null
case "$1" in
  start)
    echo 0 > "$ARTIFACTIZE_SESSION_DIR/count"
    echo $$ >> "$TEST_PIDDIR/harness.pids"
    echo ready
    exec sleep 300 ;;
  act)
    n=$(cat "$ARTIFACTIZE_SESSION_DIR/count"); n=$((n + 1)); echo $n > "$ARTIFACTIZE_SESSION_DIR/count"
    printf '{"content":[{"type":"json","data":{"count":%s}}]}\\n' "$n" ;;
  stop) exit 0 ;;
esac
`;

/**
 * The workspace the end-to-end tests serve: built-in `read`, a json tool `info`, a tool
 * returning an odek envelope, a slow tool (for cancellation), a 2.5 s tool (progress), a
 * session-bound `count` tool, and the fixture extension `fx`.
 */
export function e2eToml(root: string): string {
  const exe = (p: string) => `"${p}"`;
  return `[artifacts.app]
path = "app"
artifact_roots = ["app/out"]

[artifacts.app.evals.review]
audience = "agent"
extensions = ["fx"]

[artifacts.app.views.agent_tools.read]
builtin = "read"

[artifacts.app.views.agent_tools.info]
description = "Info about {artifactName}."
protocol = "json"
command = ${exe("tools/info.sh")}
args = []
execution_paths = ["app/tools/info.sh"]
input_schema = ${toml(INFO_SCHEMA)}

[artifacts.app.views.agent_tools.envelope]
description = "Build and return an artifact."
protocol = "json"
command = "tools/envelope.sh"
args = []

[artifacts.app.views.agent_tools.slow]
description = "Take a minute."
protocol = "plain"
command = "tools/slow.sh"
args = []

[artifacts.app.views.agent_tools.wait]
description = "Take 2.5 seconds."
protocol = "plain"
command = "sh"
args = ["-c", "sleep 2.5; echo done"]

[artifacts.app.views.agent_sessions.harness]
start = { command = "tools/harness.sh", args = ["start"] }
stop = { command = "tools/harness.sh", args = ["stop"] }

[artifacts.app.views.agent_tools.count]
session = "harness"
description = "Count calls in this session."
protocol = "json"
command = "tools/harness.sh"
args = ["act"]
${
    extensionToml("fx", {
      command: "deno",
      args: fixtureServerArgs(),
      artifact_roots: ["out"],
      timeout_ms: 30000,
      env: {
        FIXTURE_ARTIFACT: `${root}/out/r1.json`,
        FIXTURE_OUTSIDE: `${root}/app/README.md`,
        FIXTURE_PIDFILE: `${root}/fx_grandchild.pid`,
      },
    })
  }`;
}

/** Files of the end-to-end workspace. */
export const E2E_FILES = {
  "app/README.md": "# app\nhello\n",
  "app/out/r1.json": '{"r":1}\n',
  "out/r1.json": '{"a":1}',
  "app/tools/info.sh": { text: INFO_SH, mode: 0o755 },
  "app/tools/envelope.sh": { text: ENVELOPE_SH, mode: 0o755 },
  "app/tools/slow.sh": { text: SLOW_SH, mode: 0o755 },
  "app/tools/harness.sh": { text: HARNESS_SH, mode: 0o755 },
};

/** Read a pid file written by a test tool, once it exists. */
export async function readPid(path: string, ms = 60_000): Promise<number> {
  await waitFor(() => {
    try {
      return Deno.readTextFileSync(path).trim() !== "";
    } catch {
      return false;
    }
  }, ms);
  return Number(Deno.readTextFileSync(path).trim().split("\n")[0]);
}
