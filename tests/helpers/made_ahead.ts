/**
 * Telling a state directory's call directories apart: those a process group was admitted
 * to (a journal), and the sets a warm pool made ahead for the next call
 * (lib/process/ready_dirs.ts), in which nothing ever ran.
 *
 * @module
 */

import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { CALL_RECORD_FILES, callsRoot } from "../../lib/process/call_dirs.ts";

/** The call directories under `stateDir`: journaled ones, and pristine sets made ahead. */
export function callDirKinds(stateDir: string): { journaled: string[]; madeAhead: string[] } {
  const root = callsRoot(stateDir);
  const out = { journaled: [] as string[], madeAhead: [] as string[] };
  if (!existsSync(root)) return out;
  for (const name of readdirSync(root)) {
    const dir = join(root, name);
    if (existsSync(join(dir, CALL_RECORD_FILES.journal))) {
      out.journaled.push(name);
      continue;
    }
    // Made ahead: the owner record and two empty private directories, nothing else.
    const entries = readdirSync(dir).sort();
    const pristine = entries.join(",") === `output,${CALL_RECORD_FILES.owner},tmp` &&
      readdirSync(join(dir, "output")).length === 0 && readdirSync(join(dir, "tmp")).length === 0;
    if (!pristine) throw new Error(`call directory ${name} is neither journaled nor pristine`);
    out.madeAhead.push(name);
  }
  return out;
}
