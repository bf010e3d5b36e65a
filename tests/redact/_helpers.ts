/**
 * Helpers for the protected-value tests: a workspace whose registry protects one value
 * (the protected-values plugin, env provider), with every tool that cuts, windows,
 * searches or spills declared on Artifact `app`, and a check that no part of the value
 * (4 characters or more) is in any form of a result.
 *
 * @module
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import fs from "node:fs";
import path from "node:path";
import { Registry } from "../../lib/registry/registry.ts";
import type { ToolResult } from "../../lib/results/types.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { type FileTree, tempWorkspace } from "../helpers/workspace.ts";

/** The protected value: capitals and `-` only, so no filler text (lowercase) holds a part. */
export const VALUE = "QZXK-PWNBRTVY-HJMLDSGCF-XQWE";

const plain = (name: string, script: string, overflow: string) =>
  `\n[artifacts.app.views.agent_tools.${name}]\ndescription = "${name}"\nprotocol = "plain"\n` +
  `command = "sh"\nargs = ["-c", ${JSON.stringify(script)}, "{file}"]\n${overflow}\n` +
  `input_schema = { type = "object", properties = { file = { type = "string" } }, required = ["file"] }\n`;

const builtin = (name: string, b: string) =>
  `\n[artifacts.app.views.agent_tools.${name}]\nbuiltin = "${b}"\n`;

/**
 * The manifest: `read` (files_read), `search`, `find`, `shell`, `grep`, `glob`, `lines`
 * (the `read` built-in), `ls` (list), `files` (files_list), `edit`, `patch`, `status`, `diff`, `sec` (section `Keys` of `data/doc.md`), `spill` and `cut`
 * (plain `cat data/<file>`, overflow artifact / truncate), `emit` (json protocol: prints
 * `data/out.json`).
 */
export const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"
` + builtin("read", "files_read") + builtin("search", "files_search") +
  builtin("find", "files_find") + builtin("shell", "shell_exec") + builtin("grep", "grep") +
  builtin("glob", "glob") + builtin("lines", "read") + builtin("ls", "list") +
  builtin("files", "files_list") + builtin("edit", "files_edit") + builtin("patch", "files_patch") +
  builtin("status", "git_status") + builtin("diff", "git_diff") +
  `\n[artifacts.app.views.agent_tools.sec]\nbuiltin = "section"\nargs = ["data/doc.md", "Keys"]\n` +
  plain("spill", 'cat "data/$0"', 'overflow = "artifact"') +
  plain("cut", 'cat "data/$0"', 'overflow = "truncate"') + `
[artifacts.app.views.agent_tools.emit]
description = "Prints data/out.json as its json-protocol result."
protocol = "json"
command = "sh"
args = ["-c", "cat >/dev/null; cat data/out.json"]
input_schema = { type = "object", properties = {}, additionalProperties = false }

[plugins]
enable = ["protected-values"]

[plugins.protected-values]
provider = "env"
env = { deploy = "DEPLOY_TOKEN" }
`;

/** An open registry on a temporary workspace. */
export interface Opened {
  /** The registry. */
  reg: Registry;
  /** The Artifact folder. */
  app: string;
  /** Close and remove everything. */
  cleanup(): Promise<void>;
}

/**
 * Open `app/review` over `files` (paths under `app/data/`), protecting {@link VALUE}.
 *
 * @example
 * ```ts
 * const w = await open({ "a.txt": "x" });
 * await w.cleanup();
 * ```
 */
export async function open(files: FileTree = {}, value: string = VALUE): Promise<Opened> {
  const tree: FileTree = { "app/README.md": "# app\n" };
  for (const [k, v] of Object.entries(files)) tree[`app/data/${k}`] = v;
  const tw = await tempWorkspace(TOML, tree);
  try {
    const reg = await Registry.open(await loadWorkspace(tw.root), "app/review", {
      stateDir: path.join(tw.root, ".state"),
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        HOME: Deno.env.get("HOME") ?? "/",
        DEPLOY_TOKEN: value,
      },
    });
    return {
      reg,
      app: path.join(tw.root, "app"),
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

/** Every substring of `value` of `min` characters (longer ones contain one). */
export function grams(value: string, min = 4): string[] {
  const out = new Set<string>();
  for (let i = 0; i + min <= value.length; i++) out.add(value.slice(i, i + min));
  return [...out];
}

/**
 * Every form a result is handed out or read in: its JSON, every string (keys too), the
 * text blocks joined, URI-decoded strings, decoded images — and, for a result that says
 * `encoding: "base64"` (files_read), its text blocks decoded instead of as they are.
 */
export function renderings(r: ToolResult): string[] {
  const base64 = r.content.some((b) =>
    b.type === "json" && (b.data as { encoding?: string })?.encoding === "base64"
  );
  const texts = r.content.flatMap((b) => b.type === "text" ? [b.text] : []);
  const out: string[] = [];
  const strings: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === "string") strings.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") Object.entries(v).forEach(([k, x]) => (walk(k), walk(x)));
  };
  if (base64) {
    out.push(Buffer.from(texts.join(""), "base64").toString("latin1"));
    r.content.forEach((b) => b.type !== "text" && walk(b));
  } else {
    out.push(JSON.stringify(r), texts.join(""));
    walk(r.content);
  }
  for (const s of strings) {
    out.push(s);
    try {
      out.push(decodeURIComponent(s));
    } catch { /* not URI text */ }
  }
  for (const b of r.content) {
    if (b.type === "image") out.push(Buffer.from(b.data, "base64").toString("latin1"));
  }
  return out;
}

/**
 * Assert that no substring of `value` of 4 or more characters is in any rendering of `r`.
 *
 * @example
 * ```ts
 * assertNoPart(result, VALUE, "files_read window");
 * ```
 */
export function assertNoPart(r: ToolResult, value: string, what: string): void {
  assertTextHasNoPart(renderings(r), value, what);
}

/**
 * Assert that none of `texts` holds a substring of `value` of 4 or more characters.
 *
 * @example
 * ```ts
 * assertTextHasNoPart(["abc"], VALUE, "spill file");
 * ```
 */
export function assertTextHasNoPart(texts: string[], value: string, what: string): void {
  const parts = grams(value);
  for (const s of texts) {
    for (const p of parts) {
      const at = s.indexOf(p);
      if (at < 0) continue;
      assert.fail(
        `${what}: "${p}" is in ${JSON.stringify(s.slice(Math.max(0, at - 40), at + 40))}`,
      );
    }
  }
}

/** Lowercase filler text of `n` characters with line breaks (never holds a part of VALUE). */
export function filler(n: number, seed = 1): string {
  let s = seed >>> 0 || 1;
  let out = "";
  while (out.length < n) {
    s = (s * 1103515245 + 12345) >>> 0;
    const r = s >>> 16;
    out += r % 17 === 0 ? "\n" : String.fromCharCode(97 + (r % 26));
  }
  return out;
}

/** The spill files of a registry's artifact directory (its per-tool folders), read whole;
 * not its owner record (`owner.json`, what a sweep reads). */
export function spillContents(reg: Registry): string[] {
  try {
    const names = fs.readdirSync(reg.artifactDir).filter((n) => n !== "owner.json");
    return names.flatMap((tool) => {
      const dir = path.join(reg.artifactDir, tool);
      if (!fs.statSync(dir).isDirectory()) return [fs.readFileSync(dir, "latin1")];
      return fs.readdirSync(dir).map((n) => fs.readFileSync(path.join(dir, n), "latin1"));
    });
  } catch {
    return [];
  }
}
