/**
 * The `deno compile` binary end to end. The test compiles cli.ts first (with deno.json's
 * permission flags, honouring DENORT_BIN); when that succeeds, the binary — copied alone
 * into a temporary folder — runs the whole suite of _suite.ts with a PATH that holds
 * neither deno nor node. When it cannot be built (typically: the denort runtime cannot be
 * downloaded and DENORT_BIN is unset), the suite is registered as ignored and one line
 * names the reason: it never passes without running. Any other failure fails the file.
 *
 * @module
 */

import { join } from "node:path";
import { compileBinary } from "../../scripts/compile.ts";
import { registerDistSuite, type Runner } from "./_suite.ts";
import { placeBinary } from "./_workspace.ts";

const dir = await Deno.makeTempDir({ prefix: "toolhost_compile_" });
const built = await compileBinary({ output: join(dir, "toolhost"), timeoutMs: 600_000 }); // a hang cap
if (!built.ok) await Deno.remove(dir, { recursive: true });
// Only a machine that cannot fetch denort skips; a compile that fails is a failure.
if (!built.ok && !built.unavailable) throw new Error(built.reason);

registerDistSuite(
  "deno compile binary",
  built.ok ? { program: built.binary, prefix: [] } : { skip: built.reason },
  async (ws): Promise<Runner> => {
    const copy = join(ws.bin, "toolhost");
    await placeBinary((built as { binary: string }).binary, copy);
    await Deno.remove(dir, { recursive: true });
    return { program: copy, prefix: [] };
  },
);
