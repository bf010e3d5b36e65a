/**
 * `toolhost audit tail [-n N]`: print the last lines of the workspace's audit log.
 *
 * @module
 */

import fs from "node:fs";
import { Command } from "commander";
import type { PluginCliContext } from "../../lib/plugins/mod.ts";
import { auditFile } from "./file.ts";

/** Most lines `tail` prints. */
export const MAX_TAIL_LINES = 10_000;
/** Bytes read from the end of the file at most. */
const MAX_TAIL_BYTES = 16 * 1024 * 1024;

/**
 * The last `n` lines of a file (reading at most 16 MiB from its end).
 *
 * @example
 * ```ts
 * import { tailLines } from "./cli.ts";
 * // tailLines("/state/audit.log", 20)
 * ```
 */
export function tailLines(file: string, n: number): string[] {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch {
    return [];
  }
  try {
    const size = fs.fstatSync(fd).size;
    const len = Math.min(size, MAX_TAIL_BYTES);
    const buf = new Uint8Array(len);
    fs.readSync(fd, buf, 0, len, size - len);
    const lines = new TextDecoder().decode(buf).split("\n").filter((l) => l !== "");
    if (len < size) lines.shift(); // possibly partial first line
    return lines.slice(-n);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Build `toolhost audit`.
 *
 * @example
 * ```ts
 * import { auditCliCommand } from "./cli.ts";
 * // program.addCommand(auditCliCommand(ctx));
 * ```
 */
export function auditCliCommand(ctx: PluginCliContext): Command {
  const audit = new Command("audit")
    .description("Read the audit log of the audit-log plugin.")
    .addHelpText("after", "\nExample:\n  toolhost audit tail -n 50\n");
  audit.addCommand(
    new Command("tail")
      .description("Print the last lines of <state-dir>/audit.log (JSON lines).")
      .option("-n, --lines <n>", "how many lines (1–10000)", "20")
      .option("--repo <dir>", "workspace root (default: nearest folder with toolhost.toml)")
      .option("--state-dir <dir>", "state directory (default: <workspace>/.toolhost/state)")
      .addHelpText("after", "\nExample:\n  toolhost audit tail -n 50\n")
      .action(async (o: { lines: string; repo?: string; stateDir?: string }) => {
        const n = Number(o.lines);
        if (!Number.isInteger(n) || n < 1 || n > MAX_TAIL_LINES) {
          ctx.err(
            `toolhost: -n/--lines must be an integer from 1 to 10000, e.g. -n 50 (got ${o.lines})\n`,
          );
          return ctx.done(2);
        }
        const ws = await ctx.workspace(o);
        if (!ws.enabled) {
          ctx.err(
            "toolhost: the audit-log plugin is not enabled in this workspace, so nothing is logged: " +
              'add `enable = ["audit-log"]` under `[plugins]` in toolhost.toml\n',
          );
          return ctx.done(1);
        }
        for (const line of tailLines(auditFile(ws.stateDir, ws.config), n)) ctx.out(`${line}\n`);
        ctx.done(0);
      }),
  );
  return audit;
}
