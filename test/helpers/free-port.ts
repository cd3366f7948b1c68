import { createServer } from 'node:net';

/**
 * A loopback port nothing listens on: taken from the system, then released. A child process or a
 * private server can bind it next; a test that wants a refused connection can dial it as it is.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
