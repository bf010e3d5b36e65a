/**
 * Run the deno binary running this script with the given arguments, its folder first on
 * `PATH`: manifests in tests/ name their interpreter `deno` (as a user's would), and a
 * tool or extension server is found on `PATH`. Under `npx -y deno@2.9.6 task test` npx
 * puts one there; a deno binary run by its path (`/opt/deno/deno task test`) does not, so
 * `deno task test` runs the suite through this script. Exits with the child's status.
 *
 * ```sh
 * deno run -A scripts/deno_on_path.ts test -A --parallel tests/
 * ```
 *
 * @module
 */

import { delimiter, dirname } from "node:path";

const deno = Deno.execPath();
const path = Deno.env.get("PATH");
const env = { PATH: path ? `${dirname(deno)}${delimiter}${path}` : dirname(deno) };
const child = new Deno.Command(deno, {
  args: Deno.args,
  env,
  stdin: "inherit",
  stdout: "inherit",
  stderr: "inherit",
}).spawn();
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, () => child.kill(signal));
}
const status = await child.status;
Deno.exit(status.code); // 128 + the signal's number when a signal ended it
