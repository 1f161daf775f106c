/**
 * Security issue #20, item 1: no number of signatures that recover no key breaks the node.
 *
 * Before the fix, about 1 900 of them, sent by anyone through eth_sendRawTransaction, the
 * ecrecover precompile or personal_ecRecover, left the WebAssembly crypto failing every later
 * call: no more blocks, and -32603 from eth_call, eth_sendTransaction and even web3_sha3. The
 * tests send 100 000 through eth_sendRawTransaction, 100 000 through the precompile (half in
 * eth_call, half in mined transactions) and 5 000 to personal_ecRecover, and then check that the
 * node still does all of that. The signatures are the cheap kind (an r that is no curve point's x) plus a few
 * thousand of the crafted kind whose key would be the point at infinity.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RLP } from '@ethereumjs/rlp';
import { bigIntToUnpaddedBytes, bytesToHex, hexToBytes } from '@ethereumjs/util';
import { Signature, getBytes, hashMessage, keccak256, toUtf8Bytes } from 'ethers';
import { DEV_ADDRESSES } from '../../src/daemon/chain/genesis.js';
import { devWallet, DEV_CHAIN_ID, MIN_GAS_PRICE, waitForReceipt } from '../helpers/dev-chain.js';
import {
  infinitySigner,
  offCurveX,
  word,
  type CraftedSignature,
} from '../helpers/bad-signatures.js';
import { waitFor } from '../helpers/processes.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const COUNT = 100_000;
/** Crafted point-at-infinity signatures among them: more than the ~1 900 that used to suffice. */
const INFINITY_COUNT = 2_500;
/** Calls per JSON-RPC batch, the default --json-rpc.batch-request-limit. */
const BATCH = 1_000;
/**
 * Batches in flight at once: a batch's calls run one after the other, so a few side by side
 * keep the daemon's threads busy.
 */
const CONCURRENT_BATCHES = 4;
/**
 * The node answers these at a few thousand a second on an idle machine; the limit leaves room
 * for a machine shared with other work.
 */
const TIMEOUT_MS = 180_000;
const infinity = infinitySigner();
const DEV = DEV_ADDRESSES[0];
const RECIPIENT = DEV_ADDRESSES[1];
/** An r that is no curve point's x, with a low s: passes every range check, recovers nothing. */
const OFF_CURVE: CraftedSignature = { r: offCurveX(5n), s: 1n, yParity: 0 };

/**
 * A contract that calls the ecrecover precompile (0x01) `n` times with one input and returns
 * 32 times the number of calls that recovered an address. Calldata: `n ‖ hash ‖ v ‖ r ‖ s`.
 *
 *   CALLDATACOPY(0, 32, 128); n = CALLDATALOAD(0); acc = 0
 *   loop: if n == 0 goto end
 *         STATICCALL(gas, 0x01, 0, 128, 128, 32); acc += RETURNDATASIZE; n -= 1; goto loop
 *   end:  MSTORE(0, acc); RETURN(0, 32)
 */
const RUNTIME =
  '6080602060003760003560005b8115602a57602060806080600060015afa503d01906001900390600c565b' +
  '60005260206000f3';
/** Creation code: copies the runtime (0x33 bytes, after these 0x0b) and returns it. */
const CREATION = `0x603380600b6000396000f3${RUNTIME}`;
/**
 * Failing precompile calls made through eth_call (the call threads' module instances), and as
 * many again in mined transactions (the block producer's): each 50 times the ~1 900 that used
 * to break an instance.
 */
const PRECOMPILE_COUNT = COUNT;
/** One loop iteration costs about 3 150 gas: 6 250 of them fill two thirds of a 30M block. */
const ITERATIONS_PER_TX = 6_250;
const TX_GAS = 21_000_000;
/** Within the default --json-rpc.gas-cap of 25M. */
const ITERATIONS_PER_CALL = 5_000;

interface BatchAnswer {
  result?: unknown;
  error?: { code: number; message: string };
}

/** Sends `calls` (method and params) as JSON-RPC batches; resolves to every answer, in order. */
async function batched(
  daemon: TestDaemon,
  calls: [string, unknown[]][],
  authed = false,
): Promise<BatchAnswer[]> {
  const client = authed ? daemon.authedRpc : daemon.rpc;
  const answers: BatchAnswer[][] = [];
  let next = 0;
  const sender = async (): Promise<void> => {
    for (let at = next; at < calls.length; at = next) {
      next += BATCH;
      const body = calls
        .slice(at, at + BATCH)
        .map(([method, params], index) => ({ jsonrpc: '2.0', id: at + index, method, params }));
      const response = await client.post(JSON.stringify(body));
      expect(response.status).toBe(200);
      answers[at / BATCH] = response.body as BatchAnswer[];
    }
  };
  await Promise.all(Array.from({ length: CONCURRENT_BATCHES }, sender));
  return answers.flat();
}

/** Counts answers by error code and message ("result" for successes). */
function tally(answers: BatchAnswer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { error } of answers) {
    const key = error === undefined ? 'result' : `${error.code} ${error.message}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** The unsigned fields of a type-2 transfer from nobody in particular. */
function transferFields(nonce: number): Uint8Array[] {
  return [
    bigIntToUnpaddedBytes(DEV_CHAIN_ID),
    bigIntToUnpaddedBytes(BigInt(nonce)),
    bigIntToUnpaddedBytes(MIN_GAS_PRICE),
    bigIntToUnpaddedBytes(20n * MIN_GAS_PRICE),
    bigIntToUnpaddedBytes(21_000n),
    hexToBytes(RECIPIENT as `0x${string}`),
    bigIntToUnpaddedBytes(1n),
    new Uint8Array(),
  ];
}

function rawTransfer(fields: Uint8Array[], { r, s, yParity }: CraftedSignature): string {
  const signature = [BigInt(yParity), r, s].map(bigIntToUnpaddedBytes);
  return bytesToHex(Uint8Array.of(2, ...RLP.encode([...fields, [], ...signature])));
}

/** Transfers signed with an r that is no point's x, then some whose key would be infinity. */
function unrecoverableTransactions(): string[] {
  const raws: string[] = [];
  for (let nonce = 0; nonce < COUNT - INFINITY_COUNT; nonce++) {
    raws.push(rawTransfer(transferFields(nonce), OFF_CURVE));
  }
  for (let nonce = 0; nonce < INFINITY_COUNT; nonce++) {
    const fields = transferFields(nonce);
    const digest = getBytes(keccak256(Uint8Array.of(2, ...RLP.encode([...fields, []]))));
    raws.push(rawTransfer(fields, infinity(digest)));
  }
  return raws;
}

/** Calldata for the loop contract: `n` calls of ecrecover on `hash` and `signature`. */
function loopCalldata(n: number, hash: Uint8Array, { r, s, yParity }: CraftedSignature): string {
  const words = [word(BigInt(n)), hash, word(27n + BigInt(yParity)), word(r), word(s)];
  return bytesToHex(Uint8Array.from(words.flatMap((bytes) => [...bytes])));
}

/** Checks the node still produces blocks and answers eth_call, eth_sendTransaction, web3_sha3. */
async function expectWorkingNode(daemon: TestDaemon): Promise<void> {
  const start = Number(await daemon.rpc.call<string>('eth_blockNumber'));
  await waitFor(
    async () => Number(await daemon.rpc.call<string>('eth_blockNumber')) >= start + 2,
    20_000,
    'two new blocks',
  );
  expect(await daemon.rpc.call('eth_call', [{ from: DEV, to: RECIPIENT }, 'latest'])).toBe('0x');
  const hash = await daemon.rpc.call<string>('eth_sendTransaction', [
    { from: DEV, to: RECIPIENT, value: '0x1' },
  ]);
  expect((await waitForReceipt(daemon.rpc, hash, 20_000)).status).toBe('0x1');
  expect(await daemon.rpc.call('web3_sha3', ['0x68656c6c6f'])).toBe(keccak256('0x68656c6c6f'));
}

describe('signatures that recover no key, by the hundred thousand', () => {
  let daemon: TestDaemon;

  beforeAll(async () => {
    daemon = await startTestDaemon(['--block-time', '300ms']);
  });
  afterAll(() => daemon?.stop());

  it(
    'refuses each through eth_sendRawTransaction with -32000, admits none, and keeps working',
    async () => {
      const raws = unrecoverableTransactions();
      const answers = await batched(
        daemon,
        raws.map((raw) => ['eth_sendRawTransaction', [raw]]),
      );
      expect(tally(answers)).toEqual({ '-32000 invalid sender': COUNT });
      expect(await daemon.rpc.call('txpool_status')).toEqual({ pending: '0x0', queued: '0x0' });
      await expectWorkingNode(daemon);
    },
    TIMEOUT_MS,
  );

  it(
    'fails each ecrecover precompile call in eth_call and in mined transactions, and keeps working',
    async () => {
      const deploy = await daemon.rpc.call<string>('eth_sendTransaction', [
        { from: DEV, data: CREATION, gas: '0x30000' },
      ]);
      const contract = (await waitForReceipt(daemon.rpc, deploy, 20_000)).contractAddress as string;
      const call = (data: string) =>
        daemon.rpc.call<string>('eth_call', [{ from: DEV, to: contract, data }, 'latest']);

      const hash = getBytes(keccak256('0x01'));
      const good = Signature.from(devWallet(2).signingKey.sign(hash));
      const goodInput = (n: number) =>
        loopCalldata(n, hash, { r: BigInt(good.r), s: BigInt(good.s), yParity: good.yParity });
      // The loop really reaches the precompile: three good recoveries answer 3 × 32.
      expect(BigInt(await call(goodInput(3)))).toBe(96n);

      const offCurve = loopCalldata(ITERATIONS_PER_CALL, hash, OFF_CURVE);
      for (let done = INFINITY_COUNT; done < PRECOMPILE_COUNT; done += ITERATIONS_PER_CALL) {
        expect(BigInt(await call(offCurve))).toBe(0n);
      }
      expect(BigInt(await call(loopCalldata(INFINITY_COUNT, hash, infinity(hash))))).toBe(0n);
      expect(BigInt(await call(goodInput(3)))).toBe(96n);

      const mined: string[] = [];
      for (let done = 0; done < PRECOMPILE_COUNT; done += ITERATIONS_PER_TX) {
        const signature = done === 0 ? infinity(hash) : OFF_CURVE;
        const data = loopCalldata(ITERATIONS_PER_TX, hash, signature);
        mined.push(
          await daemon.rpc.call<string>('eth_sendTransaction', [
            { from: DEV, to: contract, data, gas: `0x${TX_GAS.toString(16)}` },
          ]),
        );
      }
      for (const tx of mined) {
        const receipt = await waitForReceipt(daemon.rpc, tx, 30_000);
        expect(receipt.status).toBe('0x1');
        // Every iteration ran: each costs the precompile's 3 000 gas and a little more.
        expect(BigInt(receipt.gasUsed as string)).toBeGreaterThan(ITERATIONS_PER_TX * 3_000);
      }
      expect(BigInt(await call(goodInput(3)))).toBe(96n);
      await expectWorkingNode(daemon);
    },
    TIMEOUT_MS,
  );

  it(
    'refuses each bad signature to personal_ecRecover and still recovers good ones',
    async () => {
      const calls: [string, unknown[]][] = [];
      for (let index = 0; index < 5_000; index++) {
        const message = toUtf8Bytes(`message ${index}`);
        const { r, s, yParity } =
          index % 2 === 0 ? OFF_CURVE : infinity(getBytes(hashMessage(message)));
        const signature = Uint8Array.from([...word(r), ...word(s), 27 + yParity]);
        calls.push(['personal_ecRecover', [bytesToHex(message), bytesToHex(signature)]]);
      }
      expect(tally(await batched(daemon, calls, true))).toEqual({
        '-32602 invalid signature: no public key recovers from it': 5_000,
      });
      const message = '0x68656c6c6f';
      const wallet = devWallet(3);
      const signature = await wallet.signMessage(getBytes(message));
      expect(await daemon.authedRpc.call('personal_ecRecover', [message, signature])).toBe(
        wallet.address.toLowerCase(),
      );
      await expectWorkingNode(daemon);
    },
    TIMEOUT_MS,
  );
});
