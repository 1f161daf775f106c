/** Worker thread entry of {@link SenderRecovery}: serves recoveries to the thread that started it. */
import { parentPort } from 'node:worker_threads';
import { serveRecoveries } from './recovery-service.js';
import { initCrypto } from './wasm-crypto.js';

const port = parentPort;
if (port === null) throw new Error('recovery-worker runs only as a worker thread');
await initCrypto();
serveRecoveries(port);
