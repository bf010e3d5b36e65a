/**
 * Editing `toolhost.toml` without rewriting it: a new manifest is created exclusively;
 * declarations are appended as text to an existing one (its comments and formatting stay
 * byte for byte), in its line-ending style. Each edit can be undone.
 *
 * @module
 */

import { appendFileSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";

/** An applied manifest edit. */
export interface ManifestEdit {
  /** Restore the manifest exactly as it was (remove it when the edit created it). */
  undo(): void;
}

/**
 * Create a manifest at `path`; fails (EEXIST) rather than replace an existing file.
 *
 * @example
 * ```ts
 * import { createManifest } from "./manifest_edit.ts";
 * const edit = createManifest("/tmp/ws/toolhost.toml", "[artifacts.tools]\npath = \"tools\"\n");
 * edit.undo(); // removes it again
 * ```
 */
export function createManifest(path: string, text: string): ManifestEdit {
  writeFileSync(path, text, { flag: "wx", mode: 0o644 });
  return { undo: () => rmSync(path, { force: true }) };
}

/**
 * Append `text` (LF line endings) to the manifest at `path`: after a newline when the
 * file does not end with one, and with CRLF line endings when the file uses them.
 * `undo()` truncates the file back to its original length.
 *
 * @example
 * ```ts
 * import { appendToManifest } from "./manifest_edit.ts";
 * const edit = appendToManifest("/ws/toolhost.toml", "\n[artifacts.tools.evals.agent]\naudience = \"agent\"\n");
 * edit.undo();
 * ```
 */
export function appendToManifest(path: string, text: string): ManifestEdit {
  const before = readFileSync(path);
  const crlf = before.includes("\r\n");
  const endsWithNewline = before.length === 0 || before[before.length - 1] === 0x0a;
  let added = endsWithNewline ? text : `\n${text}`;
  if (crlf) added = added.replace(/\r?\n/g, "\r\n");
  appendFileSync(path, added);
  return { undo: () => truncateSync(path, before.length) };
}
