/**
 * odek.tool-result/v1 envelopes in extension results: detected in every text block,
 * validated fail-closed against the extension's artifact roots, and rendered for the
 * model (compact text plus one metadata line per artifact; never a path or content).
 *
 * @module
 */

import { ArtifactRefError, InvalidEnvelopeError } from "../../odek/errors.ts";
import { parseEnvelope } from "../../odek/envelope.ts";
import { renderEnvelope } from "../../odek/render.ts";
import { validateEnvelope } from "../../odek/validate.ts";
import { errorResult, type ToolResult } from "../../results/types.ts";
import type { ArtifactStore } from "../../artifacts/store.ts";

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
  roots: readonly string[],
  store?: ArtifactStore,
): (text: string) => Promise<string | ToolResult> {
  return async (text) => {
    try {
      const env = parseEnvelope(text);
      if (env === null) return text;
      const found = await validateEnvelope(env, roots);
      if (store) env.artifacts.forEach((ref, i) => store.add(ref, found[i]));
      return renderEnvelope(env, { sizes: found.map((f) => f.size) });
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
