/**
 * Helpers for plugin tests: a temporary workspace with marker-leaving tools, a registry
 * on it (library plugins optional), and accessors for results and the state dir's logs.
 *
 * @module
 */

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import type { Plugin } from "../../lib/plugins/api.ts";
import { Registry } from "../../lib/registry/registry.ts";
import type { ToolResult } from "../../lib/results/types.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { type FileTree, tempWorkspace } from "../helpers/workspace.ts";

/** The author environment registries get. */
export const ENV: Record<string, string> = {
  PATH: Deno.env.get("PATH") ?? "/usr/local/bin:/usr/bin:/bin",
  HOME: Deno.env.get("HOME") ?? "/",
};

/**
 * The base manifest: Artifact `app` (eval `app/review`) with
 * - `mark` (json): saves its request to `request.json`, touches `ran.marker`, answers "ran";
 * - `token` (json): answers with `$TOKEN` (declares `protectedBindings`);
 * - `shell` (shell_exec) and `read` (files_read).
 */
export const BASE = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.mark]
description = "Leaves a marker."
protocol = "json"
command = "sh"
args = ["-c", "cat > request.json; touch ran.marker; printf '{\\"content\\":[{\\"type\\":\\"text\\",\\"text\\":\\"ran\\"}]}'"]
input_schema = { type = "object", properties = { value = { type = "string" } }, additionalProperties = false }

[artifacts.app.views.agent_tools.token]
description = "Echoes TOKEN."
protocol = "json"
command = "sh"
args = ["-c", "cat >/dev/null; printf '{\\"content\\":[{\\"type\\":\\"text\\",\\"text\\":\\"token=%s\\"}]}' \\"$TOKEN\\""]
input_schema = { type = "object", properties = { protectedBindings = { type = "object", additionalProperties = { type = "string" } } }, additionalProperties = false }

[artifacts.app.views.agent_tools.shell]
builtin = "shell_exec"

[artifacts.app.views.agent_tools.read]
builtin = "files_read"
`;

/** An open test workspace. */
export interface Opened {
  /** Workspace root. */
  root: string;
  /** The Artifact folder. */
  app: string;
  /** State directory. */
  stateDir: string;
  /** The registry. */
  reg: Registry;
  /** Whether the marker tool ran. */
  ran(): boolean;
  /** Close the registry and remove everything. */
  cleanup(): Promise<void>;
}

/** Options of {@link open}. */
export interface OpenOptions {
  /** Library plugins (given to loadWorkspace and Registry.open). */
  plugins?: Plugin[];
  /** Author environment. Default {@link ENV}. */
  env?: Record<string, string>;
  /** Extra files. */
  files?: FileTree;
}

/**
 * Create a workspace from `toml` (appended to nothing: pass BASE + extra) and open
 * `app/review`.
 *
 * @example
 * ```ts
 * const w = await open(BASE);
 * await w.cleanup();
 * ```
 */
export async function open(toml: string, o: OpenOptions = {}): Promise<Opened> {
  const tw = await tempWorkspace(toml, { "app/README.md": "# app\n", ...(o.files ?? {}) });
  const stateDir = path.join(tw.root, ".state");
  try {
    const ws = await loadWorkspace(tw.root, { plugins: o.plugins });
    const reg = await Registry.open(ws, "app/review", {
      stateDir,
      env: o.env ?? ENV,
      plugins: o.plugins,
    });
    const app = path.join(tw.root, "app");
    return {
      root: tw.root,
      app,
      stateDir,
      reg,
      ran: () => fs.existsSync(path.join(app, "ran.marker")),
      async cleanup() {
        await reg.close();
        await tw.cleanup();
      },
    };
  } catch (e) {
    await tw.cleanup();
    throw e;
  }
}

/**
 * The text of a single-text-block result.
 *
 * @example
 * ```ts
 * // text(result) === "ran"
 * ```
 */
export function text(r: ToolResult): string {
  assert.equal(r.content.length >= 1, true);
  const b = r.content[0];
  assert.equal(b.type, "text", JSON.stringify(r).slice(0, 300));
  return (b as { text: string }).text;
}

/**
 * The text of an error result.
 *
 * @example
 * ```ts
 * // errText(result)
 * ```
 */
export function errText(r: ToolResult): string {
  assert.equal(r.isError, true, JSON.stringify(r).slice(0, 300));
  return text(r);
}

/**
 * The lines of a state-dir file (empty when missing).
 *
 * @example
 * ```ts
 * // logLines(w.stateDir, "plugins.log")
 * ```
 */
export function logLines(stateDir: string, name: string): string[] {
  const f = path.join(stateDir, name);
  return fs.existsSync(f) ? fs.readFileSync(f, "utf8").split("\n").filter((l) => l !== "") : [];
}
