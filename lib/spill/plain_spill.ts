/**
 * Spill for plain-protocol tools with `overflow = "artifact"`: stdout is cleaned as it
 * arrives and streamed into a file of the registry's artifact directory (memory stays
 * flat: the stream is paused while the file catches up), bounded by the 16 MiB stream
 * cap. When the cleaned text fits the 64 KiB text block the file is removed and the
 * ordinary result stands; otherwise the result becomes a preview plus the artifact.
 *
 * @module
 */

import { createHash, type Hash } from "node:crypto";
import { createWriteStream, type WriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import type { Readable } from "node:stream";
import type { RunOutcome } from "../process/run.ts";
import type { StdoutSpill } from "../protocols/invoke.ts";
import { runFailure } from "../protocols/run_errors.ts";
import { LIMITS, type ToolResult } from "../results/types.ts";
import { StreamingCleaner } from "../text/clean_stream.ts";
import { StreamingRedactor } from "../redact/stream.ts";
import type { Protector } from "../redact/types.ts";
import { spilledResult, spillName, type SpillTarget } from "./spill_result.ts";

class PlainSpill implements StdoutSpill {
  readonly #target: SpillTarget;
  readonly #name: { id: string; path: string };
  readonly #cleaner = new StreamingCleaner();
  readonly #redactor: StreamingRedactor;
  readonly #hash: Hash = createHash("sha256");
  #file?: WriteStream;
  #bytes = 0;
  #failed = false;
  #done?: Promise<void>;

  constructor(target: SpillTarget, protect?: Protector) {
    this.#target = target;
    this.#redactor = new StreamingRedactor(protect);
    this.#name = spillName(target.dir, target.tool);
  }

  #write(text: string): boolean {
    if (text === "" || this.#failed) return true;
    const bytes = new TextEncoder().encode(text);
    this.#bytes += bytes.byteLength;
    this.#hash.update(bytes);
    return this.#file!.write(bytes);
  }

  attach(stdout: Readable): void {
    const file = createWriteStream(this.#name.path, { flags: "wx", mode: 0o600 });
    this.#file = file;
    file.on("error", () => {
      this.#failed = true;
      stdout.resume();
    });
    this.#done = new Promise((resolve) => {
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        this.#write(this.#redactor.push(this.#cleaner.end()) + this.#redactor.end());
        file.end(() => resolve());
        file.once("error", () => resolve());
      };
      stdout.once("end", end);
      stdout.once("close", end);
    });
    stdout.on("data", (chunk: Uint8Array) => {
      if (!this.#write(this.#redactor.push(this.#cleaner.push(chunk))) && !this.#failed) {
        stdout.pause();
        file.once("drain", () => stdout.resume());
      }
    });
  }

  async finish(run: RunOutcome, result: ToolResult): Promise<ToolResult> {
    await this.#done;
    const keep = !this.#failed && runFailure(run) === null && this.#bytes > LIMITS.maxTextBytes;
    if (!keep) {
      await rm(this.#name.path, { force: true }).catch(() => {});
      return result;
    }
    const preview = result.content[0]?.type === "text" ? result.content[0].text : "";
    const file = { path: this.#name.path, bytes: this.#bytes, sha256: this.#hash.digest("hex") };
    try {
      return await spilledResult(this.#target, this.#name.id, file, preview, result.isError);
    } catch {
      await rm(this.#name.path, { force: true }).catch(() => {});
      return result;
    }
  }
}

/**
 * A stdout spill for one plain call into `target`; `protect`'s values are redacted from
 * the text before it is written (the file never holds them).
 *
 * @example
 * ```ts
 * import { plainSpill } from "./plain_spill.ts";
 * // const spill = plainSpill({ dir: reg.artifactDir, store: reg.artifacts, tool: "search_app" });
 * // invokePlainCommand({ ..., stdoutSpill: spill });
 * ```
 */
export function plainSpill(target: SpillTarget, protect?: Protector): StdoutSpill {
  return new PlainSpill(target, protect);
}
