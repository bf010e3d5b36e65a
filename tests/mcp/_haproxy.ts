/**
 * Running HAProxy with `docs/haproxy.cfg` (its loopback ports rewritten) in front of
 * `serve --http` replicas, for the affinity test and the scale-out bench.
 *
 * @module
 */
import { REPO } from "./_helpers.ts";

/** Why HAProxy cannot run here, or undefined when it can. */
export function haproxyMissing(): string | undefined {
  try {
    const out = new Deno.Command("haproxy", { args: ["-v"], stdout: "null", stderr: "null" })
      .outputSync();
    return out.success ? undefined : "haproxy -v failed";
  } catch {
    return "the Debian package haproxy is not installed (apt-get install -y haproxy)";
  }
}

/** A free loopback TCP port (closed again, so a tiny race remains). */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** A running HAProxy. */
export interface Balancer {
  /** The MCP endpoint through HAProxy. */
  url: string;
  /** HAProxy's process id. */
  pid: number;
  stop(): Promise<void>;
}

/** Start HAProxy on a free port in front of `backends` (`127.0.0.1:PORT` each, 1..3). */
export async function startHaproxy(dir: string, backends: number[]): Promise<Balancer> {
  const front = freePort();
  let cfg = Deno.readTextFileSync(`${REPO}/docs/haproxy.cfg`)
    .replace("bind 127.0.0.1:8700", `bind 127.0.0.1:${front}`);
  for (let i = 0; i < 3; i++) {
    const line = `    server r${i + 1} 127.0.0.1:870${i + 1}\n`;
    cfg = cfg.replace(
      line,
      i < backends.length ? line.replace(`870${i + 1}`, `${backends[i]}`) : "",
    );
  }
  const path = `${dir}/haproxy.cfg`;
  Deno.writeTextFileSync(path, cfg);
  const child = new Deno.Command("haproxy", {
    args: ["-db", "-f", path],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const url = `http://127.0.0.1:${front}/mcp`;
  // Ready once a health check through it got a replica's answer.
  let up = false;
  const end = Date.now() + 120_000; // a cap, not a timing assertion
  while (!up && Date.now() < end) {
    up = await probe(url.replace(/\/mcp$/, "/healthz"));
    if (!up) await new Promise((r) => setTimeout(r, 50));
  }
  if (!up) {
    try {
      child.kill("SIGKILL");
    } catch { /* exited already */ }
    throw new Error(
      `haproxy did not come up: ${new TextDecoder().decode((await child.output()).stderr)}`,
    );
  }
  return {
    url,
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      await child.stderr.cancel().catch(() => {});
    },
  };
}

async function probe(url: string): Promise<boolean> {
  try {
    const r = await fetch(url);
    await r.body?.cancel();
    return r.status === 200;
  } catch {
    return false;
  }
}
