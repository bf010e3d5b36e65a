/**
 * Static facts about the native tools (`files_*`, `shell_exec`, `git_*`): their input
 * schemas and default descriptions, in the built-in spec form so that a manifest declares
 * them exactly like built-ins (`builtin = "files_edit"`). They all take the model's input.
 *
 * @module
 */

import type { BuiltinSpec } from "../builtins/builtin_spec.ts";
import type { NativeName } from "../workspace/types.ts";
import { NATIVE_LIMITS as L } from "./limits.ts";

/** Names of the native tools (defined beside the other built-in names). */
export type { NativeName };

const PATH = { type: "string", minLength: 1, maxLength: 4096 } as const;
const DIR = { ...PATH, description: "Logical folder path (default: the Artifact root)." };
const FILE = { ...PATH, description: "Logical file path, relative to the Artifact." };

function spec(
  properties: Record<string, unknown>,
  required: string[],
  description: string,
): BuiltinSpec {
  return {
    target: "model",
    fixedArgs: [0, 0],
    modelSchema: {
      type: "object",
      properties,
      ...(required.length ? { required } : {}),
      additionalProperties: false,
    },
    description,
  };
}

const int = (min: number, max: number, description: string) => ({
  type: "integer",
  minimum: min,
  maximum: max,
  description,
});
const ENV_MAP = {
  type: "object",
  maxProperties: L.shellMaxArgs,
  propertyNames: { pattern: "^[A-Za-z_][A-Za-z0-9_]*$", maxLength: 128 },
  additionalProperties: { type: "string", maxLength: 32768 },
};

/**
 * Every native tool, by name.
 *
 * @example
 * ```ts
 * import { NATIVE_SPECS } from "./specs.ts";
 * NATIVE_SPECS.files_read.target; // "model"
 * ```
 */
export const NATIVE_SPECS: Record<NativeName, BuiltinSpec> = {
  files_read: spec(
    {
      path: FILE,
      offsetBytes: int(0, Number.MAX_SAFE_INTEGER, "First byte to read (default 0)."),
      maxBytes: int(1, L.readMaxBytes, `Bytes to read at most (default ${L.readDefaultBytes}).`),
    },
    ["path"],
    "Read a byte range of a file in {artifactName}; reports size, truncation and the next offset.",
  ),
  files_list: spec(
    {
      path: DIR,
      depth: int(1, L.maxDepth, `Folder levels to descend (default ${L.listDefaultDepth}).`),
      maxEntries: int(
        1,
        L.maxEntries,
        `Entries to return at most (default ${L.listDefaultEntries}).`,
      ),
    },
    [],
    "List files and folders in {artifactName} (bounded depth and entries; symlinks are not followed).",
  ),
  files_find: spec(
    {
      pattern: {
        ...PATH,
        description: "Glob over relative paths: `*` within a component, `**` across folders.",
      },
      path: DIR,
      depth: int(1, L.maxDepth, `Folder levels to descend (default ${L.findDefaultDepth}).`),
      maxResults: int(
        1,
        L.maxEntries,
        `Matches to return at most (default ${L.findDefaultResults}).`,
      ),
    },
    ["pattern"],
    "Find files and folders in {artifactName} whose relative paths match a glob (bounded scan).",
  ),
  files_inspect: spec(
    { path: { ...PATH, description: "Logical path (`.` for the root)." } },
    ["path"],
    "Inspect a path in {artifactName}: kind, size, mode, mtime, and for text its line count and encoding.",
  ),
  files_search: spec(
    {
      query: {
        type: "string",
        minLength: 1,
        maxLength: L.searchMaxQueryUnits,
        description: "Literal, case-sensitive text.",
      },
      path: { ...PATH, description: "File or folder to search (default: the Artifact root)." },
      glob: { ...PATH, description: "Only search files whose relative path matches this glob." },
      maxMatches: int(
        1,
        L.searchMaxMatches,
        `Matches to return at most (default ${L.searchDefaultMatches}).`,
      ),
    },
    ["query"],
    "Search file contents in {artifactName} for literal, case-sensitive text (bounded).",
  ),
  files_write: spec(
    {
      path: FILE,
      content: { type: "string", description: "The complete new content (UTF-8)." },
      createParents: {
        type: "boolean",
        description: "Create missing parent folders (default true).",
      },
    },
    ["path", "content"],
    "Write the complete content of a file in {artifactName}, creating it if needed.",
  ),
  files_edit: spec(
    {
      path: FILE,
      oldText: {
        type: "string",
        minLength: 1,
        description: "Exact text that must occur exactly once.",
      },
      newText: { type: "string", description: "Replacement text." },
    },
    ["path", "oldText", "newText"],
    "Replace one exact occurrence of text in a file in {artifactName}.",
  ),
  files_patch: spec(
    {
      patch: {
        type: "string",
        minLength: 1,
        description:
          "A unified diff (`--- a/x`, `+++ b/x`, `@@` hunks); `/dev/null` creates or deletes.",
      },
    },
    ["patch"],
    "Apply a unified diff to files in {artifactName}: all files change, or none do.",
  ),
  shell_exec: spec(
    {
      command: {
        type: "string",
        minLength: 1,
        maxLength: 65536,
        description: "Shell command run with `sh -c` (not with `executable`).",
      },
      executable: {
        type: "string",
        minLength: 1,
        maxLength: 4096,
        description: "Program to run directly (not with `command`); a name on PATH.",
      },
      args: {
        type: "array",
        maxItems: L.shellMaxArgs,
        items: { type: "string", maxLength: 65536 },
        description: "Arguments for `executable`.",
      },
      cwd: { ...DIR, description: "Logical working folder (default: the Artifact's folder)." },
      timeoutMs: int(
        1,
        L.shellMaxTimeoutMs,
        `Deadline in ms (default ${L.shellDefaultTimeoutMs}).`,
      ),
      maxOutputBytes: int(
        1,
        L.shellMaxOutputBytes,
        `Bytes kept per stream (default ${L.shellDefaultOutputBytes}).`,
      ),
      env: { ...ENV_MAP, description: "Environment overrides (on top of PATH and HOME)." },
      protectedBindings: {
        type: "object",
        maxProperties: 32,
        propertyNames: { pattern: "^[A-Za-z_][A-Za-z0-9_]*$", maxLength: 128 },
        additionalProperties: { type: "string", pattern: "^protected://", maxLength: 256 },
        description:
          "ENV_NAME → protected:// reference; the value is injected into this process only.",
      },
      reason: {
        type: "string",
        maxLength: 1000,
        description: "Why you run this (recorded, not executed).",
      },
    },
    [],
    "Run a command in {artifactName}: a shell string or an executable with arguments (bounded).",
  ),
  git_status: spec(
    {
      untracked: { type: "boolean", description: "Include untracked files (default true)." },
    },
    [],
    "Show the git status of {artifactName} (paths relative to it).",
  ),
  git_diff: spec(
    {
      staged: {
        type: "boolean",
        description: "Diff the index instead of the working tree (default false).",
      },
      paths: {
        type: "array",
        maxItems: L.gitMaxPaths,
        items: PATH,
        description: "Limit to these logical paths.",
      },
      contextLines: int(0, 100, "Context lines (default 3)."),
    },
    [],
    "Show the git diff of {artifactName} (bounded; paths relative to it).",
  ),
};

/** Every native tool name. */
export const NATIVE_NAMES: readonly NativeName[] = Object.freeze(
  Object.keys(NATIVE_SPECS) as NativeName[],
);

/**
 * Is `name` a native tool?
 *
 * @example
 * ```ts
 * import { isNativeName } from "./specs.ts";
 * isNativeName("files_edit"); // true
 * isNativeName("read"); // false
 * ```
 */
export function isNativeName(name: string): name is NativeName {
  return Object.hasOwn(NATIVE_SPECS, name);
}
