/**
 * search_artifact_content: exact, case-insensitive text search across artifacts.
 *
 * @module
 */

import { stat } from "node:fs/promises";
import { jsonResult, LIMITS, type ToolResult } from "../results/types.ts";
import { optionalInteger, optionalString, readArgs, requiredString } from "./args.ts";
import { ContentUnavailable, readArtifactText } from "./content.ts";
import { guarded } from "./exceptions.ts";
import { type ArtifactField, metadataValue, SEARCHED_FIELDS } from "./fields.ts";
import { isHighSurrogateAt, jsonBytes } from "./json_size.ts";
import { DEFAULT_CONTEXT_CHARS, DEFAULT_MAX_RESULTS } from "./specs.ts";
import type { ArtifactSource, ContentGuard, StoredArtifact } from "./types.ts";

const ARGS = ["query", "artifact_ref", "artifact_type", "max_results", "context_chars"] as const;

/**
 * Most artifact content one search reads, in bytes (grep's "64 MiB searched"): an
 * artifact whose content would go past it is not read, and the search stops with
 * `has_more: true` (narrow it with `artifact_ref`, which reaches any one artifact whole).
 *
 * @example
 * ```ts
 * import { MAX_SEARCH_BYTES } from "./search.ts";
 * MAX_SEARCH_BYTES; // 67108864
 * ```
 */
export const MAX_SEARCH_BYTES = 64 * 1024 * 1024;

/** The size of an artifact's content as validated (or now), undefined when unknown. */
async function contentSize(a: StoredArtifact): Promise<number | undefined> {
  if (a.identity !== undefined) return a.identity.size;
  try {
    return (await stat(a.path)).size;
  } catch {
    return undefined; // reading it fails too, and says so
  }
}
/** Room kept for the result's envelope around the matches. */
const RESERVE_BYTES = 4096;

/** One search match. */
export interface SearchMatch {
  /** Reference of the artifact. */
  artifact_ref: string;
  /** Canonical field name. */
  field: ArtifactField;
  /** Start of the match in the field, in UTF-16 code units. */
  position: number;
  /** The match with up to `context_chars` units of text on each side. */
  snippet: string;
}

/**
 * Escape a string so it matches literally inside a `u`-flag regular expression.
 *
 * @example
 * ```ts
 * import { escapeLiteral } from "./search.ts";
 * new RegExp(escapeLiteral("a.b"), "iu").test("A.B"); // true
 * ```
 */
export function escapeLiteral(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}

function snippet(text: string, pos: number, len: number, ctx: number): string {
  let start = Math.max(0, pos - ctx);
  if (start > 0 && start < pos && isHighSurrogateAt(text, start - 1)) start++;
  let end = Math.min(text.length, pos + len + ctx);
  if (end < text.length && end > pos + len && isHighSurrogateAt(text, end - 1)) end--;
  return text.slice(start, end);
}

async function fieldText(
  a: StoredArtifact,
  field: ArtifactField,
  skipped: Set<string>,
  guard: ContentGuard | undefined,
): Promise<string | null> {
  let text: string | null;
  if (field !== "content") text = metadataValue(a.ref, field);
  else {
    try {
      text = await readArtifactText(a);
    } catch (e) {
      if (!(e instanceof ContentUnavailable && e.problem === "binary")) skipped.add(a.ref.id);
      return null;
    }
  }
  // A field holding a protected value is never searched: matches would reveal its parts.
  if (text !== null && guard?.leaks(text)) {
    skipped.add(a.ref.id);
    return null;
  }
  return text;
}

function candidates(source: ArtifactSource, ref?: string, type?: string): StoredArtifact[] {
  let list = ref === undefined ? source.all() : [source.get(ref)].filter((a) => a !== undefined);
  if (type !== undefined) {
    const word = type.toLowerCase();
    list = list.filter((a) => a.ref.media_type.toLowerCase().includes(word));
  }
  return list as StoredArtifact[];
}

/**
 * Run search_artifact_content against a conversation's artifacts. Finds `query`
 * exactly, ignoring case (Unicode simple case folding), in every text field of every
 * artifact (id, schema, media_type, sha256, summary, content; binary content is not
 * text and is skipped), in the order the artifacts were received. Optional filters:
 * `artifact_ref` (a reference the conversation lacks gives an empty result) and
 * `artifact_type` (the media type contains the word, ignoring case: `json` matches
 * `application/json`). `max_results` (default 10, at least 1) and `context_chars`
 * (default 200, at least 0, UTF-16 units per side) have no ceiling, but the json block
 * stays within 512 KiB: matches that do not fit are left out and `has_more` is set.
 * Returns `{matches: [{artifact_ref, field, position, snippet}], has_more}`, plus
 * `unavailable: [refs]` when an artifact's file changed and its content was not searched.
 *
 * @example
 * ```ts
 * import { searchArtifactContent } from "./search.ts";
 * import { ArtifactStore } from "./store.ts";
 * const res = await searchArtifactContent(new ArtifactStore(), { query: "total" });
 * // { matches: [], has_more: false }
 * ```
 */
export function searchArtifactContent(source: ArtifactSource, args: unknown): Promise<ToolResult> {
  return guarded(async () => {
    const o = readArgs(args, ARGS);
    const query = requiredString(o, "query");
    const ref = optionalString(o, "artifact_ref");
    const type = optionalString(o, "artifact_type");
    const maxResults = optionalInteger(o, "max_results", 1, DEFAULT_MAX_RESULTS);
    const ctx = Math.min(
      optionalInteger(o, "context_chars", 0, DEFAULT_CONTEXT_CHARS),
      LIMITS.maxJsonBytes,
    );
    const re = new RegExp(escapeLiteral(query), "giu");
    const matches: SearchMatch[] = [];
    const skipped = new Set<string>();
    let bytes = RESERVE_BYTES;
    let hasMore = false;
    let budget = MAX_SEARCH_BYTES;
    scan: for (const a of candidates(source, ref, type)) {
      for (const field of SEARCHED_FIELDS) {
        if (field === "content") {
          const size = await contentSize(a) ?? 0;
          if (size > budget) {
            hasMore = true;
            break scan;
          }
          budget -= size;
        }
        const text = await fieldText(a, field, skipped, source.guard);
        if (text === null) continue;
        for (const m of text.matchAll(re)) {
          if (matches.length >= maxResults) {
            hasMore = true;
            break scan;
          }
          const match = fitMatch(a.ref.id, field, text, m.index, m[0].length, ctx, matches.length);
          const size = match ? jsonBytes(match) + 1 : Infinity;
          if (!match || bytes + size > LIMITS.maxJsonBytes) {
            hasMore = true;
            break scan;
          }
          bytes += size;
          matches.push(match);
        }
      }
    }
    const out: Record<string, unknown> = { matches, has_more: hasMore };
    if (skipped.size > 0) out.unavailable = [...skipped];
    return jsonResult(out);
  });
}

function fitMatch(
  id: string,
  field: ArtifactField,
  text: string,
  pos: number,
  len: number,
  ctx: number,
  already: number,
): SearchMatch | undefined {
  const make = (c: number): SearchMatch => ({
    artifact_ref: id,
    field,
    position: pos,
    snippet: snippet(text, pos, len, c),
  });
  let match = make(ctx);
  if (already > 0) return match;
  let c = ctx;
  while (jsonBytes(match) + RESERVE_BYTES > LIMITS.maxJsonBytes) {
    if (c === 0) return undefined;
    c = Math.floor(c / 2);
    match = make(c);
  }
  return match;
}
