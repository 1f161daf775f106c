// Starts and stops the reference node: anvil from the installed @foundry-rs package, on a
// loopback port, with the dev chain's id. Its default mnemonic funds the same ten accounts as
// this node's dev chain.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.js';
import { waitForBlockNumber } from './wait-for-rpc.js';

export const ANVIL_BINARY = fileURLToPath(
  new URL('../../../node_modules/.bin/anvil', import.meta.url),
);

/** Command-line arguments for anvil on `port` with blocks every `blockTimeSeconds`. */
export function anvilArguments(port, blockTimeSeconds) {
  return [
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--chain-id',
    '9000',
    '--block-time',
    String(blockTimeSeconds),
    '--silent',
  ];
}

/**
 * @typedef {object} RunningNode
 * @property {string} name
 * @property {string} url JSON-RPC HTTP endpoint
 * @property {number} pid process whose memory and CPU are reported
 * @property {() => Promise<void>} stop
 * @property {() => Promise<object>} [heapMiB] the node's own account of its heap, if it gives one
 */

/**
 * Starts anvil and resolves once it answers eth_blockNumber. It runs in a session of its own, as
 * `node-cli daemon start` runs this node: Linux shares CPU between sessions first (autogroup
 * scheduling), so a server in the load generator's session would compete with it under other
 * rules than a server in its own. @returns {Promise<RunningNode>}
 */
export async function startAnvil(blockTimeSeconds) {
  const port = await freePort();
  const child = spawn(ANVIL_BINARY, anvilArguments(port, blockTimeSeconds), {
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let gone = false;
  exited.then(() => (gone = true));
  const url = `http://127.0.0.1:${port}`;
  await waitForBlockNumber(url, 20_000, () => gone);
  return {
    name: 'anvil',
    url,
    pid: child.pid,
    stop: async () => {
      if (!gone) child.kill('SIGTERM');
      await exited;
    },
  };
}
