/**
 * The operator log of plugins and hooks: `<stateDir>/plugins.log`, one JSON line per
 * event, appended with one `write` per line on an `O_APPEND` descriptor opened without
 * following links (`state_file.ts`). Hook failures go here — never to the model. Lines
 * pass through the redactor first. A log that cannot be opened safely is reported once on
 * stderr and not written.
 *
 * @module
 */

import fs from "node:fs";
import path from "node:path";
import type { Redactor } from "./redact.ts";
import { openStateAppend, reportStateFileRefused } from "./state_file.ts";

/** The log's file name below the state directory. */
export const PLUGIN_LOG_NAME = "plugins.log";

/** Longest message kept per line (UTF-16 code units). */
const MAX_MESSAGE = 4000;

/**
 * An append-only JSON-lines log, opened on first write.
 *
 * @example
 * ```ts
 * import { PluginLog } from "./plugin_log.ts";
 * import { Redactor } from "./redact.ts";
 * const log = new PluginLog("/tmp/state", new Redactor());
 * log.write("policy", "before_call", "rule 3 failed to compile");
 * log.close();
 * ```
 */
export class PluginLog {
  #stateDir: string;
  #root: string | undefined;
  #redactor: Redactor;
  #fd: number | undefined;
  #refused = false;

  /**
   * A log below `stateDir`; nothing is created until the first write. `root` (the
   * workspace root) makes every state-directory component below it checked too.
   */
  constructor(stateDir: string, redactor: Redactor, root?: string) {
    this.#stateDir = stateDir;
    this.#root = root;
    this.#redactor = redactor;
  }

  /** The log file's path. */
  get file(): string {
    return path.join(this.#stateDir, PLUGIN_LOG_NAME);
  }

  /** Append one line; failures to log are swallowed (logging never breaks a call). */
  write(source: string, event: string, message: string): void {
    const line = JSON.stringify({
      time: new Date().toISOString(),
      source: this.#redactor.text(source),
      event,
      message: this.#redactor.text(String(message)).slice(0, MAX_MESSAGE),
    });
    if (this.#refused) return;
    if (this.#fd === undefined) {
      try {
        this.#fd = openStateAppend(this.#stateDir, PLUGIN_LOG_NAME, this.#root);
      } catch (e) {
        this.#refused = true;
        reportStateFileRefused(PLUGIN_LOG_NAME, e);
        return;
      }
    }
    try {
      fs.writeSync(this.#fd, `${line}\n`);
    } catch { /* the log is best effort */ }
  }

  /** Close the descriptor. */
  close(): void {
    if (this.#fd === undefined) return;
    try {
      fs.closeSync(this.#fd);
    } catch { /* already closed */ }
    this.#fd = undefined;
  }
}

/**
 * A short, value-free description of a thrown value for the operator log.
 *
 * @example
 * ```ts
 * import { describeError } from "./plugin_log.ts";
 * describeError(new TypeError("boom")); // "TypeError: boom"
 * ```
 */
export function describeError(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return `thrown ${typeof e}`;
}
