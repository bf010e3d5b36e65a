/**
 * Reading and checking the json-protocol request (`{"version":1,"context":{...},"args":{...}}`).
 *
 * @module
 */

import process from "node:process";
import type { ToolContext } from "./types.ts";

/** The json-protocol request version toolhost sends. */
export const PROTOCOL_VERSION = 1;

/** A parsed request. */
export interface ToolRequest {
  /** The call's context (with `executionPaths` defaulted to `{}` and `sessionDir` from the environment). */
  context: ToolContext;
  /** The call's arguments (a JSON object). */
  args: Record<string, unknown>;
}

/** The request was not a json-protocol request (the tool was not run by toolhost). */
export class RequestError extends Error {}

/** Most bytes read from stdin (args are at most 64 KiB; the context is bounded too). */
export const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * The session directory from the environment (`ARTIFACTIZE_SESSION_DIR`, else
 * `TOOLHOST_SESSION_DIR`), or undefined.
 *
 * @example
 * ```ts
 * import { sessionDirFromEnv } from "./request.ts";
 * sessionDirFromEnv({ TOOLHOST_SESSION_DIR: "/s" }); // "/s"
 * ```
 */
export function sessionDirFromEnv(
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  const dir = env.ARTIFACTIZE_SESSION_DIR || env.TOOLHOST_SESSION_DIR;
  return dir ? dir : undefined;
}

/**
 * Parse request text. Throws {@linkcode RequestError} when it is not a version-1 request.
 *
 * @example
 * ```ts
 * import { parseRequest } from "./request.ts";
 * const req = parseRequest('{"version":1,"context":{"artifactId":"a","artifactPath":"/a","outputDir":"/o","tmpDir":"/t","scope":{}},"args":{}}', {});
 * console.log(req.context.executionPaths); // {}
 * ```
 */
export function parseRequest(
  text: string,
  env: Record<string, string | undefined> = process.env,
): ToolRequest {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new RequestError("stdin is not a JSON request; run this tool through toolhost");
  }
  if (!isObject(v) || v.version !== PROTOCOL_VERSION || !isObject(v.context) || !isObject(v.args)) {
    throw new RequestError("stdin is not a version-1 toolhost request");
  }
  const c = v.context;
  for (const key of ["artifactId", "artifactPath", "outputDir", "tmpDir"]) {
    if (typeof c[key] !== "string") throw new RequestError(`the request's context has no ${key}`);
  }
  const context: ToolContext = {
    artifactId: c.artifactId as string,
    artifactPath: c.artifactPath as string,
    outputDir: c.outputDir as string,
    tmpDir: c.tmpDir as string,
    scope: (isObject(c.scope) ? c.scope : {}) as ToolContext["scope"],
    executionPaths: (isObject(c.executionPaths) ? c.executionPaths : {}) as Record<string, string>,
  };
  const sessionDir = sessionDirFromEnv(env);
  if (sessionDir !== undefined) context.sessionDir = sessionDir;
  return { context, args: v.args };
}

/**
 * Read all of stdin as UTF-8 (at most {@linkcode MAX_REQUEST_BYTES}).
 *
 * @example
 * ```ts
 * import { readStdin } from "./request.ts";
 * // const text = await readStdin();
 * ```
 */
export async function readStdin(stream: NodeJS.ReadableStream = process.stdin): Promise<string> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk as Uint8Array;
    total += bytes.byteLength;
    if (total > MAX_REQUEST_BYTES) throw new RequestError("the request on stdin is too large");
    chunks.push(bytes);
  }
  const all = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  return new TextDecoder().decode(all);
}
