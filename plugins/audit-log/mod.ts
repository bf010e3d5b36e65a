/**
 * `audit-log`: one JSON line per call (allowed, failed or denied) appended to
 * `<stateDir>/audit.log` (or `file` below the state directory). Each line is written with a
 * single `write` on an `O_APPEND` descriptor, so concurrent calls — also from several
 * registries or processes sharing the state directory — never interleave within a line.
 *
 * ```toml
 * [plugins]
 * enable = ["audit-log"]
 *
 * [plugins.audit-log]
 * file = "audit.log"       # a plain file name below the state directory (default)
 * ```
 *
 * CLI: `toolhost audit tail [-n N]` prints the last lines.
 *
 * @module
 */

import fs from "node:fs";
import path from "node:path";
import {
  definePlugin,
  openStateAppend,
  type Plugin,
  reportStateFileRefused,
} from "../../lib/plugins/mod.ts";
import { auditRecord } from "./record.ts";
import { auditCliCommand } from "./cli.ts";
import { AUDIT_FILE_NAME, auditFile } from "./file.ts";

export { auditFile, DEFAULT_AUDIT_FILE } from "./file.ts";

/**
 * The `audit-log` plugin.
 *
 * @example
 * ```ts
 * import { auditLogPlugin } from "./mod.ts";
 * auditLogPlugin.name; // "audit-log"
 * ```
 */
export const auditLogPlugin: Plugin = definePlugin({
  name: "audit-log",
  description: "Append one JSON line per call (argument hash, outcome, duration) to the state dir.",
  validateConfig(config, report) {
    for (const k of Object.keys(config)) {
      if (k !== "file") report(k, "unknown key; allowed keys: file");
    }
    if (
      config.file !== undefined &&
      (typeof config.file !== "string" || !AUDIT_FILE_NAME.test(config.file))
    ) {
      report("file", 'must be a plain file name ([A-Za-z0-9._-], no `/`), e.g. "audit.log"');
    }
  },
  setup(api) {
    const name = path.basename(auditFile(api.stateDir, api.config));
    let fd: number | undefined;
    let refused = false;
    api.callEnded((info) => {
      if (refused) return;
      const line = `${JSON.stringify(auditRecord(info))}\n`;
      if (fd === undefined) {
        try { // no link is followed: not the state directory's, not the file's
          fd = openStateAppend(api.stateDir, name, api.workspaceRoot);
        } catch (e) {
          refused = true;
          reportStateFileRefused(name, e);
          return;
        }
      }
      fs.writeSync(fd, line);
    });
    api.onClose(() => {
      if (fd !== undefined) fs.closeSync(fd);
      fd = undefined;
    });
  },
  cliCommands: (ctx) => [auditCliCommand(ctx)],
});
