/**
 * A throwaway workspace for the end-to-end tests of the standalone binaries: its tools are
 * `sh` scripts (never `#!/usr/bin/env node`), so the binaries run them with a PATH that
 * holds neither deno nor node. Also builds that PATH: a folder of symlinks to everything
 * in /usr/bin and /bin except the JavaScript runtimes and their package managers.
 *
 * @module
 */

import {
  chmodSync,
  copyFileSync,
  linkSync,
  mkdirSync,
  readdirSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";

/**
 * Put the binary `src` at `dst`, ready to run. A hard link opens no file for writing. A
 * copy (`dst` on another file system) does, and a process a test running alongside forks
 * in that moment holds the descriptor until it execs: running the copy then fails with
 * `ETXTBSY` ("Text file busy", exit 126 from a shell). So after a copy, run it
 * (`--version`) until the kernel lets it run.
 */
export async function placeBinary(src: string, dst: string): Promise<void> {
  try {
    linkSync(src, dst);
    return;
  } catch {
    copyFileSync(src, dst); // another file system (EXDEV) or links not allowed
  }
  for (let attempt = 1;; attempt++) {
    try {
      const probe = new Deno.Command(dst, { args: ["--version"], stdout: "null", stderr: "null" });
      await probe.output();
      return;
    } catch (e) {
      if (!/text file busy/i.test(String(e)) || attempt >= 1000) throw e;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

/** Names kept off the test PATH. */
export const HIDDEN_PROGRAMS: readonly string[] = [
  "node",
  "nodejs",
  "deno",
  "npm",
  "npx",
  "corepack",
  "bun",
];

const TOML = `
[plugins]
enable = ["audit-log"]

[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.read]
builtin = "read"

[artifacts.app.views.agent_tools.hello]
description = "Greet someone from {artifactName}."
protocol = "json"
command = "tools/hello.sh"
args = []
execution_paths = ["app/tools/hello.sh"]
input_schema = { type = "object", properties = { name = { type = "string", pattern = "^[A-Za-z]{1,20}$" } }, required = ["name"], additionalProperties = false }

[artifacts.app.views.agent_tools.say]
description = "Echo words."
protocol = "plain"
command = "echo"
args = ["said:", "{words}"]
input_schema = { type = "object", properties = { words = { type = "string", maxLength = 100 } }, required = ["words"], additionalProperties = false }

[artifacts.app.views.agent_tools.nap]
description = "Take two seconds, then answer (shows the progress line in a terminal)."
protocol = "plain"
command = "sleep"
args = ["2"]

[artifacts.app.views.agent_sessions.counter]
start = { command = "harness/counter.sh", args = ["start"], execution_paths = ["app/harness"] }
stop = { command = "harness/counter.sh", args = ["stop"], execution_paths = ["app/harness"] }

[artifacts.app.views.agent_tools.bump]
session = "counter"
description = "Add one to the session's counter and return it."
protocol = "json"
command = "harness/counter.sh"
args = ["bump"]
execution_paths = ["app/harness"]
`;

const HELLO = `#!/bin/sh
# json protocol: one request on stdin, one result object on stdout.
req=$(cat)
name=$(printf '%s' "$req" | sed -n 's/.*"args":{"name":"\\([A-Za-z]*\\)"}.*/\\1/p')
printf '{"content":[{"type":"text","text":"Hello, %s"},{"type":"json","data":{"name":"%s"}}]}\\n' "$name" "$name"
`;

const COUNTER = `#!/bin/sh
# A tool-session harness in sh: start keeps running, bump shares state through the
# session directory, stop ends start. E2E_PIDFILE (if set) records start's pid.
dir="\${TOOLHOST_SESSION_DIR:?no session directory}"
case "$1" in
  start)
    cat >/dev/null
    echo 0 > "$dir/count"
    echo $$ > "$dir/pid"
    [ -n "$E2E_PIDFILE" ] && echo $$ > "$E2E_PIDFILE"
    echo ready
    exec sleep 600
    ;;
  bump)
    cat >/dev/null
    n=$(( $(cat "$dir/count") + 1 ))
    echo "$n" > "$dir/count"
    printf '{"content":[{"type":"json","data":{"count":%d}}]}\\n' "$n"
    ;;
  stop)
    cat >/dev/null
    kill "$(cat "$dir/pid")"
    ;;
esac
`;

/** A workspace plus the PATH to run a binary with. */
export interface DistWorkspace {
  /** The temporary folder (real path) holding everything below. */
  dir: string;
  /** The workspace root (holds toolhost.toml). */
  root: string;
  /** A folder for binaries under test (first on PATH). */
  bin: string;
  /** PATH: `bin`, then the system programs without deno or node. */
  path: string;
  /** Remove everything. */
  [Symbol.asyncDispose](): Promise<void>;
}

function writeExec(path: string, text: string): void {
  writeFileSync(path, text);
  chmodSync(path, 0o755);
}

function systemBin(into: string): void {
  mkdirSync(into);
  for (const from of ["/usr/bin", "/bin"]) {
    let names: string[] = [];
    try {
      names = readdirSync(from);
    } catch {
      continue;
    }
    for (const name of names) {
      if (HIDDEN_PROGRAMS.includes(name)) continue;
      try {
        symlinkSync(join(from, name), join(into, name));
      } catch {
        // the same name in /bin and /usr/bin (or /bin -> /usr/bin): keep the first
      }
    }
  }
}

/**
 * Create the workspace and the restricted PATH.
 *
 * @example
 * ```ts
 * import { distWorkspace } from "./_workspace.ts";
 * await using ws = await distWorkspace();
 * console.log(ws.root, ws.path);
 * ```
 */
export async function distWorkspace(): Promise<DistWorkspace> {
  const dir = realpathSync(await Deno.makeTempDir({ prefix: "toolhost_dist_" }));
  const root = join(dir, "ws");
  for (const d of ["ws/app/tools", "ws/app/harness", "bin", "envelopes/out", "home"]) {
    mkdirSync(join(dir, d), { recursive: true });
  }
  writeFileSync(join(root, "toolhost.toml"), TOML);
  writeFileSync(join(root, "app", "README.md"), "# App\n\nThe end-to-end test app.\n");
  writeExec(join(root, "app", "tools", "hello.sh"), HELLO);
  writeExec(join(root, "app", "harness", "counter.sh"), COUNTER);
  systemBin(join(dir, "sys"));
  return {
    dir,
    root,
    bin: join(dir, "bin"),
    path: `${join(dir, "bin")}:${join(dir, "sys")}`,
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}
