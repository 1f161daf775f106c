// Polls a JSON-RPC endpoint with eth_blockNumber until it answers, for start-up timing. Each try
// is a fresh connection so a refused connect fails fast and the next try follows at once.
import { request } from 'node:http';
import { performance } from 'node:perf_hooks';

const BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] });
const RETRY_MS = 2;

/** @param {string} url @returns {Promise<boolean>} whether eth_blockNumber returned a result */
function tryBlockNumber(url) {
  return new Promise((resolve) => {
    const req = request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json' }, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => {
          try {
            resolve(typeof JSON.parse(text).result === 'string');
          } catch {
            resolve(false);
          }
        });
      },
    );
    req.on('error', () => resolve(false));
    req.end(BODY);
  });
}

/**
 * Resolves with performance.now() of the first successful answer; rejects after `timeoutMs` or
 * as soon as `exited()` reports that the process being waited for is gone.
 * @param {string} url @param {number} timeoutMs @param {() => boolean} exited
 */
export async function waitForBlockNumber(url, timeoutMs, exited = () => false) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await tryBlockNumber(url)) return performance.now();
    if (exited()) throw new Error(`the process serving ${url} exited before answering`);
    if (performance.now() > deadline)
      throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}
