/**
 * odek.tool-result/v1 envelopes in extension results: detected in every text block,
 * validated fail-closed against the extension's artifact roots, and rendered for the
 * model (compact text plus one metadata line per artifact; never a path or content).
 *
 * @module
 */

import { ArtifactRefError, InvalidEnvelopeError } from "../odek/errors.ts";
import { parseEnvelope } from "../odek/envelope.ts";
import { renderEnvelope, type RenderOptions } from "../odek/render.ts";
import { validateEnvelope } from "../odek/validate.ts";
import { Buffer } from "node:buffer";
import { capText } from "../text/text_clean.ts";
import { errorResult, LIMITS, type ToolResult } from "../results/types.ts";
import type { ArtifactStore } from "../artifacts/store.ts";

/**
 * Build the text mapper for one extension: plain text passes unchanged; an envelope is
 * validated against `roots` (absolute folders; none ⇒ every ref is refused) and
 * rendered; anything invalid turns the whole call into an error result. With `store`
 * (the registry's conversation store), validated artifacts join it, so
 * `get_artifact_field` can read them.
 *
 * @example
 * ```ts
 * import { envelopeMapper } from "./envelope.ts";
 * const map = envelopeMapper("fs", []);
 * await map("hello"); // "hello"
 * await map('{"schema":"odek.tool-result/v1","text":"done"}'); // "done"
 * ```
 */
export function envelopeMapper(
  extension: string,
  roots: readonly string[] | (() => readonly string[]),
  store?: ArtifactStore,
): (text: string) => Promise<string | ToolResult> {
  // Roots cost a realpath each: resolved only once a text really is an envelope.
  const rootsNow = typeof roots === "function" ? roots : () => roots;
  return async (text) => {
    try {
      const env = parseEnvelope(text);
      if (env === null) return text;
      const found = await validateEnvelope(env, rootsNow());
      if (store) env.artifacts.forEach((ref, i) => store.add(ref, found[i]));
      // Rendered redacted: the render and its cap cut text, never inside a protected value.
      const p = store?.protector;
      const shown = p?.active ? p.json(env) as typeof env : env;
      const redact = p?.active ? (s: string) => p.text(s) : undefined;
      const sizes = found.map((f) => f.size);
      const rendered = renderWithin(shown, { sizes, redact }, LIMITS.maxTextBytes);
      if (rendered !== undefined) return rendered;
      return errorResult(
        `The extension \`${extension}\` returned a refused result: its artifact lines ` +
          "alone exceed 64 KiB.",
      );
    } catch (e) {
      if (e instanceof InvalidEnvelopeError || e instanceof ArtifactRefError) {
        return errorResult(
          `The extension \`${extension}\` returned a refused result: ${e.message}`,
        );
      }
      return errorResult(
        `The extension \`${extension}\` returned an artifact that could not be checked.`,
      );
    }
  };
}

/**
 * The rendered envelope within `max` UTF-8 bytes: as the seed has it, the envelope's text
 * is cut (with the truncation marker) and every metadata line is kept after it. Undefined
 * when the metadata lines alone do not fit.
 */
function renderWithin(
  env: Parameters<typeof renderEnvelope>[0],
  opts: RenderOptions,
  max: number,
): string | undefined {
  const full = renderEnvelope(env, opts);
  if (Buffer.byteLength(full, "utf8") <= max) return full;
  const meta = renderEnvelope({ ...env, text: "" }, opts);
  if (meta === "") return capText(full, max);
  const room = max - Buffer.byteLength(meta, "utf8") - 1;
  if (room < 64) return undefined;
  const text = full.slice(0, full.length - meta.length - 1); // the flattened text line
  return `${capText(text, room, true)}\n${meta}`;
}
