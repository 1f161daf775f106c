// Signs a transaction plan before any measurement, spread over one worker thread per core
// (ethers signs about 700 transactions a second on one core here).
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

const WORKER = new URL('./sign-worker.js', import.meta.url);

/**
 * @typedef {object} SignedLane
 * @property {number} sender
 * @property {{raw: string, hash: string}[]} transactions in nonce order
 */

/**
 * @param {import('./transaction-plan.js').Lane[]} lanes
 * @param {readonly string[]} privateKeys the dev accounts' keys, by index
 * @returns {Promise<SignedLane[]>}
 */
export async function signLanes(lanes, privateKeys) {
  const threads = Math.max(1, Math.min(availableParallelism(), lanes.length));
  const shares = Array.from({ length: threads }, () => []);
  lanes.forEach((lane, index) => shares[index % threads].push(index));
  const signed = new Array(lanes.length);
  await Promise.all(
    shares.map(
      (indexes) =>
        new Promise((resolve, reject) => {
          const worker = new Worker(WORKER, {
            workerData: indexes.map((index) => ({
              privateKey: privateKeys[lanes[index].sender],
              requests: lanes[index].requests,
            })),
          });
          worker.once('message', (result) => {
            indexes.forEach((index, position) => {
              signed[index] = { sender: lanes[index].sender, transactions: result[position] };
            });
            resolve();
          });
          worker.once('error', reject);
        }),
    ),
  );
  return signed;
}
