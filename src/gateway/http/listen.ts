// Listening, as a promise: resolved once the server listens, rejected with the server's error (a
// port in use, a host that does not resolve) so that the start can say which setting is wrong.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on `host:port` and resolves to the port taken (port 0: a free one). */
export async function listen(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}
