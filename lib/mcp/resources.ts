/**
 * A connection's artifacts as MCP resources. Every artifact the registry's store holds
 * (validated odek refs from tool results, spilled outputs) is listed by
 * `resources/list` (paged: `nextCursor`) and readable by `resources/read` as
 * `toolhost://artifact/<id>`; `resources/templates/list` offers that template and
 * `notifications/resources/list_changed` is sent when the set changes.
 *
 * A URI names an artifact only by its reference id, looked up in the store: it holds no
 * path, and no URI reads anything the store does not hold. Reading re-checks the file
 * exactly as `get_artifact_field` does (same device, inode and size, sha256 when the ref
 * has one, at most 64 MiB) and refuses content holding a protected value when the store
 * is protected. Text (UTF-8 without NUL) is returned as `text`, anything else as `blob`;
 * so is text whose JSON escapes would make it longer than base64 (control characters
 * escape to up to 6 bytes): past 1 MiB no reply is more than ~4/3 of the artifact. Reads go through
 * `resource_gate.ts`, which bounds the replies a client has not taken.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import type { Server } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type ReadResourceResult,
  type Resource,
} from "@modelcontextprotocol/sdk/types.js";
import { ContentUnavailable, readArtifactBytes } from "../artifacts/content.ts";
import type { ArtifactStore } from "../artifacts/store.ts";
import type { StoredArtifact } from "../artifacts/types.ts";
import { ARTIFACT_LINE_PREFIX } from "../odek/render.ts";
import { type Backlog, gatedRead } from "./resource_gate.ts";
import type { ResourceLinkBlock, ToolResult } from "../results/types.ts";

/**
 * The URI prefix of artifact resources.
 *
 * @example
 * ```ts
 * import { ARTIFACT_URI_PREFIX } from "./resources.ts";
 * ARTIFACT_URI_PREFIX; // "toolhost://artifact/"
 * ```
 */
export const ARTIFACT_URI_PREFIX = "toolhost://artifact/";
/**
 * The URI template `resources/templates/list` offers.
 *
 * @example
 * ```ts
 * import { ARTIFACT_URI_TEMPLATE } from "./resources.ts";
 * ARTIFACT_URI_TEMPLATE; // "toolhost://artifact/{id}"
 * ```
 */
export const ARTIFACT_URI_TEMPLATE = `${ARTIFACT_URI_PREFIX}{id}`;
/**
 * Resources per `resources/list` page.
 *
 * @example
 * ```ts
 * import { RESOURCE_PAGE_SIZE } from "./resources.ts";
 * RESOURCE_PAGE_SIZE; // 100
 * ```
 */
export const RESOURCE_PAGE_SIZE = 100;
/**
 * MCP's error code for an unknown resource.
 *
 * @example
 * ```ts
 * import { RESOURCE_NOT_FOUND } from "./resources.ts";
 * RESOURCE_NOT_FOUND; // -32002
 * ```
 */
export const RESOURCE_NOT_FOUND = -32002;

/**
 * The resource URI of artifact `id`.
 *
 * @example
 * ```ts
 * import { artifactUri } from "./resources.ts";
 * artifactUri("r 1"); // "toolhost://artifact/r%201"
 * ```
 */
export function artifactUri(id: string): string {
  return `${ARTIFACT_URI_PREFIX}${encodeURIComponent(id)}`;
}

/**
 * The artifact id a resource URI names, or undefined when it is not exactly an artifact
 * URI as {@link artifactUri} writes it.
 *
 * @example
 * ```ts
 * import { artifactIdOf } from "./resources.ts";
 * artifactIdOf("toolhost://artifact/r1"); // "r1"
 * artifactIdOf("file:///etc/passwd"); // undefined
 * ```
 */
export function artifactIdOf(uri: string): string | undefined {
  if (typeof uri !== "string" || !uri.startsWith(ARTIFACT_URI_PREFIX)) return undefined;
  let id: string;
  try {
    id = decodeURIComponent(uri.slice(ARTIFACT_URI_PREFIX.length));
  } catch {
    return undefined;
  }
  return id !== "" && artifactUri(id) === uri ? id : undefined;
}

function resourceOf(a: StoredArtifact): Resource {
  const r: Resource = {
    uri: artifactUri(a.ref.id),
    name: a.ref.id,
    mimeType: a.ref.media_type,
  };
  if (a.ref.size_bytes !== undefined) r.size = a.ref.size_bytes;
  if (a.ref.summary !== undefined) r.description = a.ref.summary;
  return r;
}

/**
 * Read a held artifact as a `resources/read` result; throws `McpError` -32002 for a URI
 * that names no held artifact, and a value-free `McpError` when it cannot be read.
 *
 * @example
 * ```ts
 * import { ArtifactStore } from "../artifacts/store.ts";
 * import { readArtifactResource } from "./resources.ts";
 * // await readArtifactResource(new ArtifactStore(), "toolhost://artifact/r1");
 * ```
 */
export async function readArtifactResource(
  store: ArtifactStore,
  uri: string,
): Promise<ReadResourceResult> {
  const id = artifactIdOf(uri);
  const held = id === undefined ? undefined : store.get(id);
  if (held === undefined) {
    throw new McpError(RESOURCE_NOT_FOUND, "Resource not found: no artifact with that URI is held");
  }
  let bytes: Uint8Array;
  try {
    bytes = await readArtifactBytes(held);
  } catch (e) {
    const why = e instanceof ContentUnavailable
      ? "its file changed since it was validated"
      : "it cannot be read";
    throw new McpError(RESOURCE_NOT_FOUND, `The artifact cannot be read: ${why}.`);
  }
  const text = textOf(bytes);
  if (store.guard?.leaks(text ?? new TextDecoder().decode(bytes))) {
    throw new McpError(
      RESOURCE_NOT_FOUND,
      "The artifact holds a protected value; it is not served.",
    );
  }
  const base = { uri, mimeType: held.ref.media_type };
  return {
    contents: [
      text !== undefined
        ? { ...base, text }
        : { ...base, blob: Buffer.from(bytes).toString("base64") },
    ],
  };
}

function textOf(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0) || escapesTooMuch(bytes)) return undefined;
  try {
    const t = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return t.startsWith("\ufeff") ? t.slice(1) : t;
  } catch {
    return undefined;
  }
}

/** Text JSON-escaped past 1 MiB is kept no longer than base64 (4/3) of it. */
const ESCAPE_FREE_BYTES = 1024 * 1024;

function escapesTooMuch(bytes: Uint8Array): boolean {
  if (bytes.length * 6 <= ESCAPE_FREE_BYTES) return false;
  const escaped = bytes.length + escapeBytes(bytes);
  return escaped > ESCAPE_FREE_BYTES && escaped * 3 > bytes.length * 4;
}

/** Bytes JSON escaping adds to `bytes` (UTF-8 without NUL) as a string. */
function escapeBytes(bytes: Uint8Array): number {
  let extra = 0;
  for (const b of bytes) {
    if (b === 0x22 || b === 0x5c || (b >= 0x08 && b <= 0x0d && b !== 0x0b)) extra += 1;
    else if (b < 0x20) extra += 5;
  }
  return extra;
}

/**
 * Resource links for the held artifacts a result's text names on its `[artifact]` lines
 * (ids looked up in the store; anything else is ignored).
 *
 * @example
 * ```ts
 * import { ArtifactStore } from "../artifacts/store.ts";
 * import { artifactLinks } from "./resources.ts";
 * artifactLinks({ content: [{ type: "text", text: "ok" }], isError: false }, new ArtifactStore());
 * // []
 * ```
 */
export function artifactLinks(result: ToolResult, store: ArtifactStore): ResourceLinkBlock[] {
  if (result.isError || store.size === 0) return [];
  const out: ResourceLinkBlock[] = [];
  const seen = new Set<string>();
  for (const b of result.content) {
    if (b.type !== "text" || !b.text.includes(ARTIFACT_LINE_PREFIX)) continue;
    for (const line of b.text.split("\n")) {
      const id = lineId(line);
      const held = id === undefined || seen.has(id) ? undefined : store.get(id);
      if (held === undefined) continue;
      seen.add(held.ref.id);
      const r = resourceOf(held);
      out.push({
        type: "resource_link",
        uri: r.uri,
        name: r.name,
        ...(r.mimeType ? { mimeType: r.mimeType } : {}),
        ...(r.description ? { description: r.description } : {}),
      });
    }
  }
  return out;
}

function lineId(line: string): string | undefined {
  if (!line.startsWith(ARTIFACT_LINE_PREFIX)) return undefined;
  const m = /^"(?:[^"\\]|\\.)*"/.exec(line.slice(ARTIFACT_LINE_PREFIX.length));
  if (!m) return undefined;
  try {
    const id = JSON.parse(m[0]);
    return typeof id === "string" ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Register the resource handlers of `store` on `server` (which must declare the
 * `resources` capability) and send `notifications/resources/list_changed` when the set
 * of artifacts changes. `backlog` is the connection's unsent reply bytes (see
 * `resource_gate.ts`).
 *
 * @example
 * ```ts
 * import { registerArtifactResources } from "./resources.ts";
 * // registerArtifactResources(server, registry.artifacts);
 * ```
 */
export function registerArtifactResources(
  server: Server,
  store: ArtifactStore,
  backlog?: Backlog,
): void {
  server.setRequestHandler(ListResourcesRequestSchema, (req) => {
    const all = store.all();
    const start = pageStart(req.params?.cursor, all.length);
    const page = all.slice(start, start + RESOURCE_PAGE_SIZE).map(resourceOf);
    const next = start + RESOURCE_PAGE_SIZE;
    return { resources: page, ...(next < all.length ? { nextCursor: String(next) } : {}) };
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [{
      uriTemplate: ARTIFACT_URI_TEMPLATE,
      name: "artifact",
      description:
        "An artifact a tool of this connection returned, by its reference id (the id on its [artifact] line).",
    }],
  }));
  server.setRequestHandler(
    ReadResourceRequestSchema,
    (req, extra) =>
      gatedRead(backlog, extra.signal, () => readArtifactResource(store, req.params.uri)),
  );
  store.onChange(() => {
    server.sendResourceListChanged().catch(() => {}); // not connected (yet or any more)
  });
}

function pageStart(cursor: unknown, total: number): number {
  if (cursor === undefined) return 0;
  const n = typeof cursor === "string" && /^\d{1,9}$/.test(cursor) ? Number(cursor) : NaN;
  if (!Number.isInteger(n) || n > total) {
    throw new McpError(-32602, "Invalid cursor.");
  }
  return n;
}
