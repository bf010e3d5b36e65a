/**
 * `toolhost artifact validate --root DIR... [FILE|-]`: validate an odek.tool-result/v1
 * envelope against artifact roots and print its model-facing render.
 *
 * @module
 */

import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { Command } from "commander";
import { InvocationError } from "../../errors/errors.ts";
import { errnoOf } from "../../paths/errno.ts";
import { showPath } from "../../paths/show_path.ts";
import { ArtifactRefError, InvalidEnvelopeError } from "../../odek/errors.ts";
import { parseEnvelope } from "../../odek/envelope.ts";
import { renderEnvelope } from "../../odek/render.ts";
import { validateEnvelope } from "../../odek/validate.ts";
import { LIMITS } from "../../results/types.ts";
import { type CliIo, EXIT } from "../exit.ts";

async function readInput(file: string | undefined, io: CliIo): Promise<string> {
  if (file !== undefined && file !== "-") {
    const buf = await readFile(file).catch((e: unknown) => {
      throw new InvocationError(
        `cannot read the envelope file ${showPath(file)} (${errnoOf(e) ?? "error"})`,
      );
    });
    if (buf.byteLength > LIMITS.maxStreamBytes) {
      throw new InvocationError("the envelope is over 16 MiB");
    }
    return new TextDecoder().decode(buf);
  }
  if (process.stdin.isTTY) {
    // A person at a terminal would otherwise see nothing happen: say what it waits for.
    io.err(
      "toolhost: reading the envelope from standard input; end it with Ctrl-D " +
        "(or pass the envelope's file: toolhost artifact validate FILE)\n",
    );
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of process.stdin) {
    total += (chunk as Uint8Array).byteLength;
    if (total > LIMITS.maxStreamBytes) throw new InvocationError("the envelope is over 16 MiB");
    chunks.push(chunk as Uint8Array);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/**
 * Build the `artifact validate` command (under `artifact`).
 *
 * @example
 * ```ts
 * import { processIo } from "../exit.ts";
 * import { artifactCommand } from "./artifact_validate.ts";
 * artifactCommand(processIo, () => {});
 * ```
 */
export function artifactCommand(io: CliIo, done: (code: number) => void): Command {
  const artifact = new Command("artifact")
    .description("Work with odek artifact references.")
    .addHelpText("after", "\nExample:\n  toolhost artifact validate --root ./out envelope.json\n");
  const validate = new Command("validate")
    .description(
      "Validate an odek.tool-result/v1 envelope (FILE, or - / nothing for stdin) against " +
        "artifact roots and print the model-facing text: never a path or file content. " +
        "Plain text that is not an envelope is printed unchanged.",
    )
    .argument("[file]", "envelope file, or - for stdin (default)")
    .option(
      "--root <dir>",
      "an artifact root (repeatable)",
      (v, prev: string[]) => [...prev, v],
      [],
    )
    .addHelpText(
      "after",
      "\nExample:\n  toolhost artifact validate --root ./out envelope.json\n\n" +
        "Exit codes: 0 valid (or plain text), 1 rejected, 2 invalid invocation.",
    )
    .action(async (file: string | undefined, o: { root: string[] }) => {
      const text = await readInput(file, io);
      try {
        const env = parseEnvelope(text);
        if (env === null) {
          io.out(text.endsWith("\n") ? text : `${text}\n`);
          return done(EXIT.ok);
        }
        // Relative roots (the help's own `--root ./out`) are relative to the working folder.
        const roots = o.root.map((r) => resolve(r));
        const validated = await validateEnvelope(env, roots);
        io.out(`${renderEnvelope(env, { sizes: validated.map((v) => v.size) })}\n`);
        done(EXIT.ok);
      } catch (e) {
        if (e instanceof ArtifactRefError || e instanceof InvalidEnvelopeError) {
          io.err(`toolhost: ${e.message} [${e.code}]\n`);
          return done(EXIT.failure);
        }
        throw e;
      }
    });
  artifact.addCommand(validate);
  return artifact;
}
