// Asks the kernel for a free loopback port. Anvil cannot report the port it bound when given
// port 0, so the benchmark picks one itself and hands it to both nodes.
import { createServer } from 'node:net';

/** @returns {Promise<number>} a loopback TCP port that was free a moment ago */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
