/**
 * The json protocol's request: exactly one JSON document written to the tool's stdin.
 *
 * ```json
 * {"version":1,"context":{"artifactId":"example","artifactPath":"/workspace/example",
 *  "outputDir":"/external/private/output","tmpDir":"/external/private/tmp",
 *  "scope":{"example":{"path":"/workspace/example","kind":"folder","children":{}}},
 *  "executionPaths":{"shared/rules.json":"/workspace/shared/rules.json"}},
 *  "args":{"section":"summary"}}
 * ```
 *
 * @module
 */

/** One Artifact of the eval's admitted scope, as a tool sees it. */
export interface ScopeEntry {
  /** Canonical physical path (a file Artifact's file itself). */
  path: string;
  /** Artifact kind. */
  kind: "file" | "folder" | "graph";
  /** Logical child path → child Artifact id. */
  children: Record<string, string>;
}

/** The request's `context` object (keys stay camelCase). */
export interface JsonContext {
  /** Canonical id of the Artifact that declared the tool. */
  artifactId: string;
  /** Its canonical physical path (for a file Artifact: the file, not the cwd). */
  artifactPath: string;
  /** The call's private output directory. */
  outputDir: string;
  /** The call's private temporary directory. */
  tmpDir: string;
  /** Admitted Artifacts by id. */
  scope: Record<string, ScopeEntry>;
  /** Declared execution path (workspace-relative) → physical path; omitted when empty. */
  executionPaths?: Record<string, string>;
}

function copyRecord<T, U>(rec: Record<string, T>, f: (v: T) => U): Record<string, U> {
  const out: Record<string, U> = {};
  for (const key of Object.keys(rec)) {
    Object.defineProperty(out, key, { value: f(rec[key]), enumerable: true, writable: true });
  }
  return out;
}

/**
 * Serialize the exact stdin document for a json-protocol call. Only the documented keys
 * are emitted, in a fixed order; `executionPaths` is omitted when empty or absent.
 *
 * @example
 * ```ts
 * import { buildJsonRequest } from "./json_request.ts";
 * const text = buildJsonRequest({
 *   artifactId: "example",
 *   artifactPath: "/w/example",
 *   outputDir: "/s/calls/x/output",
 *   tmpDir: "/s/calls/x/tmp",
 *   scope: { example: { path: "/w/example", kind: "folder", children: {} } },
 * }, { section: "summary" });
 * console.log(JSON.parse(text).version); // 1
 * ```
 */
export function buildJsonRequest(context: JsonContext, args: Record<string, unknown>): string {
  const ctx: Record<string, unknown> = {
    artifactId: context.artifactId,
    artifactPath: context.artifactPath,
    outputDir: context.outputDir,
    tmpDir: context.tmpDir,
    scope: copyRecord(context.scope, (e) => ({
      path: e.path,
      kind: e.kind,
      children: copyRecord(e.children, (c) => c),
    })),
  };
  const exec = context.executionPaths;
  if (exec !== undefined && Object.keys(exec).length > 0) {
    ctx.executionPaths = copyRecord(exec, (p) => p);
  }
  return JSON.stringify({ version: 1, context: ctx, args });
}
