/**
 * peer_uid.ts finds the owner of a loopback connection's client socket in
 * /proc/net/tcp{,6}, and nobody for a port pair that is not connected.
 */

import assert from "node:assert/strict";
import { connect, createServer, type Socket } from "node:net";
import process from "node:process";
import { canIdentifyPeers, peerUid, sameUserPeer } from "../../lib/mcp/peer_uid.ts";

async function loopbackPair(host: string): Promise<{ server: Socket; close: () => void }> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, host, r));
  const accepted = new Promise<Socket>((r) => srv.once("connection", r));
  const port = (srv.address() as { port: number }).port;
  const client = connect(port, host);
  await new Promise<void>((r) => client.once("connect", () => r()));
  const server = await accepted;
  return {
    server,
    close: () => {
      client.destroy();
      server.destroy();
      srv.close();
    },
  };
}

for (const host of ["127.0.0.1", "::1"]) {
  Deno.test({
    name: `peerUid names this user for a ${host} connection, nobody for another pair`,
    ignore: !canIdentifyPeers() || process.getuid === undefined,
    fn: async () => {
      let pair;
      try {
        pair = await loopbackPair(host);
      } catch {
        return; // no IPv6 loopback on this host
      }
      try {
        const { remotePort, localPort } = pair.server;
        assert.equal(await peerUid(remotePort!, localPort!), process.getuid!());
        assert.equal(await peerUid(remotePort!, localPort! === 1 ? 2 : 1), undefined);
        // Lookups made at once share table reads, and each still gets its own answer.
        const asked = await Promise.all([
          sameUserPeer(pair.server),
          peerUid(remotePort!, localPort!),
          peerUid(localPort! === 1 ? 2 : 1, localPort!),
        ]);
        assert.deepEqual(asked, [true, process.getuid!(), undefined]);
      } finally {
        pair.close();
      }
    },
  });
}
