/**
 * Sample calls shown by the demo: a built-in, a json-protocol tool and a plain-protocol
 * tool of the example workspace, through a real registry that is closed afterwards.
 *
 * @module
 */

import { sessionsRoot } from "../../sessions/session_dir.ts";
import { readdirSync } from "node:fs";
import { Registry } from "../../registry/registry.ts";
import type { Block } from "../../results/types.ts";
import type { Workspace } from "../../workspace/types.ts";
import type { CliIo } from "../exit.ts";

/** One demo call. */
interface DemoCall {
  /** Eval. */
  eval: string;
  /** Published tool name. */
  tool: string;
  /** Arguments. */
  args: Record<string, unknown>;
  /** Whether an error result is the expected outcome. */
  expectError?: boolean;
}

const CALLS: DemoCall[] = [
  { eval: "app/review", tool: "read_app", args: { path: "src/greet.js", limit: 3 } },
  { eval: "app/review", tool: "stats_app", args: { file: "src/greet.js" } },
  { eval: "app/review", tool: "search_app", args: { query: "greet" } },
  { eval: "app/review", tool: "section_spec", args: {} },
  {
    eval: "app/review",
    tool: "read_app",
    args: { path: "../docs/unrelated.txt" },
    expectError: true,
  },
  // Session-bound: the first call starts the `web` harness lazily; the next ones reuse it.
  { eval: "app/review", tool: "counter_add_app", args: { by: 2 } },
  { eval: "app/review", tool: "counter_add_app", args: { by: 3 } },
  { eval: "app/review", tool: "counter_get_app", args: {} },
];

function preview(block: Block): string {
  const text = block.type === "text"
    ? block.text
    : block.type === "json"
    ? JSON.stringify(block.data)
    : block.type === "image" || block.type === "audio"
    ? `<${block.mimeType} ${block.type}, ${block.data.length} base64 chars>`
    : block.type === "resource"
    ? `<resource ${block.resource.uri}>`
    : `<resource link ${block.uri}>`;
  const oneLine = text.replace(/\s*\n\s*/g, " ⏎ ").trim();
  return oneLine.length > 150 ? `${oneLine.slice(0, 150)}…` : oneLine;
}

/**
 * Run the demo's sample calls; returns whether each behaved as expected.
 *
 * @example
 * ```ts
 * import { demoCalls } from "./demo_calls.ts";
 * // await demoCalls(ws, stateDir, processIo);
 * ```
 */
export async function demoCalls(ws: Workspace, stateDir: string, io: CliIo): Promise<boolean> {
  const calls = CALLS.filter((c) => ws.evals.has(c.eval));
  if (calls.length === 0) return true;
  io.out("\nSample calls (app/review):\n");
  const reg = await Registry.open(ws, "app/review", { stateDir });
  let ok = true;
  try {
    for (const c of calls.filter((c) => reg.list().some((t) => t.name === c.tool))) {
      if (c.tool.startsWith("counter_") && sessionDirs(stateDir).length === 0) {
        io.out("  (no tool session is running yet: the next call starts `web` lazily)\n");
      }
      const result = await reg.call(c.tool, c.args);
      const good = result.isError === (c.expectError ?? false);
      ok &&= good;
      const status = result.isError ? "error" : "ok";
      io.out(`  ${good ? "✓" : "✗"} ${c.tool} ${JSON.stringify(c.args)} → ${status}\n`);
      for (const b of result.content) io.out(`      ${b.type}: ${preview(b)}\n`);
    }
  } finally {
    const started = [...sessionDirs(stateDir)].length;
    await reg.close();
    if (started > 0) {
      io.out(
        `  session directories while open: ${started}; after close: ${
          [...sessionDirs(stateDir)].length
        } (stopped and cleaned)\n`,
      );
    }
  }
  const pins = reg.provenance().executionPaths;
  for (const [tool, paths] of Object.entries(pins)) {
    for (const [path, sha] of Object.entries(paths)) {
      io.out(`  pinned ${tool}: ${path} sha256=${sha.slice(0, 16)}…\n`);
    }
  }
  return ok;
}

function sessionDirs(stateDir: string): string[] {
  try {
    return readdirSync(sessionsRoot(stateDir)).filter((n) => !n.startsWith("."));
  } catch {
    return [];
  }
}
