/**
 * Parameter bounds and clean errors (security issue #20, items 6 and 7): every QUANTITY is
 * checked against its protocol range on each method that takes a transaction or call object
 * (2^64-1 passes and 2^64 is refused for gas and nonces, 2^256-1 and 2^256 for values and
 * fees); the minimum gas price is bounded wherever it is set; a malformed access list gets our
 * words, not a runtime error's; eth_call and eth_estimateGas check the sender's balance for
 * `value` with geth's wording.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RLP } from '@ethereumjs/rlp';
import { getAddress } from 'ethers';
import { RpcResponseError } from '../../src/client/errors.js';
import { runCli } from '../helpers/cli.js';
import { DEV_BALANCE, MIN_GAS_PRICE } from '../helpers/dev-chain.js';
import {
  LOOPBACK_FLAGS,
  makeDataDir,
  startTestDaemon,
  type TestDaemon,
} from '../helpers/test-daemon.js';

const DEV = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const RECIPIENT = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
/** An address that holds nothing. */
const EMPTY = '0x00000000000000000000000000000000000f0e1d';

const hex = (value: bigint) => `0x${value.toString(16)}`;
const U64_MAX = hex(2n ** 64n - 1n);
const U64_OVER = hex(2n ** 64n);
const U256_MAX = hex(2n ** 256n - 1n);
const U256_OVER = hex(2n ** 256n);

type Send = (tx: Record<string, string>) => Promise<unknown>;

/** The error a call answered with, or undefined when it returned a result. */
async function errorOf(call: Promise<unknown>): Promise<RpcResponseError | undefined> {
  try {
    await call;
    return undefined;
  } catch (error) {
    if (error instanceof RpcResponseError) return error;
    throw error;
  }
}

describe('parameter bounds and clean errors (security #20)', () => {
  let daemon: TestDaemon;

  beforeAll(async () => {
    daemon = await startTestDaemon();
  });

  afterAll(async () => {
    await daemon?.stop();
  });

  const senders: Record<string, () => Send> = {
    eth_sendTransaction: () => (tx) => daemon.authedRpc.call('eth_sendTransaction', [tx]),
    eth_signTransaction: () => (tx) => daemon.authedRpc.call('eth_signTransaction', [tx]),
    personal_sendTransaction: () => (tx) =>
      daemon.authedRpc.call('personal_sendTransaction', [tx, '']),
    eth_call: () => (tx) => daemon.rpc.call('eth_call', [tx, 'latest']),
    eth_estimateGas: () => (tx) => daemon.rpc.call('eth_estimateGas', [tx, 'latest']),
    eth_createAccessList: () => (tx) => daemon.rpc.call('eth_createAccessList', [tx, 'latest']),
  };

  const fields: Array<[field: string, max: string, over: string, bits: number]> = [
    ['gas', U64_MAX, U64_OVER, 64],
    ['nonce', U64_MAX, U64_OVER, 64],
    ['value', U256_MAX, U256_OVER, 256],
    ['gasPrice', U256_MAX, U256_OVER, 256],
    ['maxFeePerGas', U256_MAX, U256_OVER, 256],
    ['maxPriorityFeePerGas', U256_MAX, U256_OVER, 256],
  ];

  /** Sends `max`, then `over`, in `field` of a transaction object from a funded account. */
  async function checkBoundary(
    send: Send,
    [field, max, over, bits]: [string, string, string, number],
  ): Promise<void> {
    const base = { from: DEV, to: RECIPIENT };
    const atMax = await errorOf(send({ ...base, [field]: max }));
    // In range: whatever the node then says (a result, or "insufficient funds", "nonce has
    // max value", "exceeds block gas limit"), it is not a parameter or internal error.
    if (atMax !== undefined) {
      expect(atMax.code).toBe(-32000);
      expect(atMax.message).not.toMatch(/MAX_|cannot exceed|EthereumJS|Error/);
    }
    const beyond = await errorOf(send({ ...base, [field]: over }));
    expect(beyond).toMatchObject({ code: -32602 });
    expect(beyond?.message).toBe(
      `invalid params: argument 0 (transaction): field ${field} must be a hex QUANTITY of at most ${bits} bits (uint${bits}: 0x-prefixed, no leading zeros, at most 2^${bits}-1)`,
    );
  }

  describe.each(Object.keys(senders))('%s', (method) => {
    it.each(fields)(
      '%s: the largest value is taken as a number, one more is refused with -32602',
      (...boundary) => checkBoundary(senders[method](), boundary),
    );
  });

  it.each(['eth_sendTransaction', 'eth_signTransaction', 'personal_sendTransaction'])(
    "%s: gasLimit, the spec's spelling of gas, has the same bounds",
    (method) => checkBoundary(senders[method](), ['gasLimit', U64_MAX, U64_OVER, 64]),
  );

  it('still sends and signs ordinary transactions', async () => {
    const tx = { from: DEV, to: RECIPIENT, value: '0x1' };
    expect(await daemon.authedRpc.call('eth_sendTransaction', [tx])).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await daemon.authedRpc.call('eth_signTransaction', [tx])).toHaveProperty('raw');
  });

  it('refuses a nonce of 2^64-1 in a transaction with geth\'s "nonce has max value"', async () => {
    await expect(
      daemon.authedRpc.call('eth_sendTransaction', [{ from: DEV, to: RECIPIENT, nonce: U64_MAX }]),
    ).rejects.toMatchObject({ code: -32000, message: 'nonce has max value' });
  });

  it("refuses a fee whose gas × price exceeds a uint256 as unaffordable, in geth's words", async () => {
    await expect(
      daemon.authedRpc.call('eth_signTransaction', [
        { from: DEV, to: RECIPIENT, maxFeePerGas: U256_MAX },
      ]),
    ).rejects.toMatchObject({
      code: -32000,
      message: 'insufficient funds for gas * price + value',
    });
  });

  describe('miner_setGasPrice', () => {
    const configFile = () => join(daemon.dataDir, 'config.json');
    const configText = () => (existsSync(configFile()) ? readFileSync(configFile(), 'utf8') : '');

    it('refuses prices above 2^256 and above 2^192-1, and leaves config.json as it was', async () => {
      const before = configText();
      await expect(daemon.authedRpc.call('miner_setGasPrice', [U256_OVER])).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('uint256'),
      });
      await expect(daemon.authedRpc.call('miner_setGasPrice', [U256_MAX])).rejects.toMatchObject({
        code: -32602,
        message: `invalid params: argument 0 (gasPrice): must be at most 2^192-1 wei (${2n ** 192n - 1n}), so that gas (uint64) × price fits in uint256`,
      });
      await expect(
        daemon.authedRpc.call('miner_setGasPrice', [hex(2n ** 192n)]),
      ).rejects.toMatchObject({ code: -32602 });
      expect(configText()).toBe(before);
    });

    it('writes the largest price it takes, and a node started with it builds blocks and takes a transaction', async () => {
      const dataDir = makeDataDir();
      const largest = 2n ** 192n - 1n;
      const other = await startTestDaemon(['--block-time', '200ms'], dataDir);
      try {
        expect(await other.authedRpc.call('miner_setGasPrice', [hex(largest)])).toBe(true);
        expect(JSON.parse(readFileSync(join(dataDir, 'config.json'), 'utf8'))).toMatchObject({
          'minimum-gas-prices': largest.toString(),
        });
      } finally {
        await runCli(['daemon', 'stop', '--datadir', dataDir]);
      }
      const restarted = await startTestDaemon(['--block-time', '200ms'], dataDir);
      try {
        const start = BigInt(await restarted.rpc.call<string>('eth_blockNumber'));
        const block = await restarted.rpc.call<{ baseFeePerGas: string }>('eth_getBlockByNumber', [
          'latest',
          false,
        ]);
        expect(BigInt(block.baseFeePerGas)).toBeLessThanOrEqual(largest);
        // Nobody can pay that price: the send is refused in geth's words, not by an exception.
        await expect(
          restarted.authedRpc.call('eth_sendTransaction', [{ from: DEV, to: RECIPIENT }]),
        ).rejects.toMatchObject({
          code: -32000,
          message: expect.stringContaining('insufficient funds for gas * price + value'),
        });
        const deadline = Date.now() + 20_000;
        while (BigInt(await restarted.rpc.call<string>('eth_blockNumber')) <= start) {
          if (Date.now() > deadline) throw new Error('no block was built at the largest price');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      } finally {
        await restarted.stop();
      }
    });
  });

  describe('minimum-gas-prices at start-up', () => {
    const tooHigh = (2n ** 192n).toString();

    it('refuses a flag above the bound with an error naming the flag', async () => {
      const dataDir = makeDataDir();
      try {
        const result = await runCli([
          'daemon',
          'start',
          '--datadir',
          dataDir,
          ...LOOPBACK_FLAGS,
          '--minimum-gas-prices',
          tooHigh,
        ]);
        expect(result.code).toBe(2); // a usage error, like any invalid option value
        expect(result.message).toContain('--minimum-gas-prices');
        expect(result.message).toContain('must be at most 2^192-1 wei');
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });

    it('refuses a config-file value above the bound with an error naming the key', async () => {
      const dataDir = makeDataDir();
      try {
        writeFileSync(
          join(dataDir, 'config.json'),
          JSON.stringify({ 'minimum-gas-prices': tooHigh }),
        );
        const result = await runCli(['daemon', 'start', '--datadir', dataDir, ...LOOPBACK_FLAGS]);
        expect(result.code).toBe(2); // a usage error, like any invalid option value
        expect(result.message).toContain('minimum-gas-prices');
        expect(result.message).toContain('must be at most 2^192-1 wei');
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });

  it('answers a raw transaction whose access list is bytes with a clean -32602', async () => {
    const one = Uint8Array.of(1);
    const none = new Uint8Array();
    const fields = [
      Uint8Array.of(0x23, 0x28), // chain id 9000
      none,
      none,
      none,
      Uint8Array.of(0x52, 0x08),
      new Uint8Array(20).fill(0x11),
      none,
      none,
      new Uint8Array(3), // the access list, as bytes
      one,
      new Uint8Array(32).fill(0x11),
      new Uint8Array(32).fill(0x11),
    ];
    const raw = Buffer.concat([Uint8Array.of(2), RLP.encode(fields)]).toString('hex');
    await expect(daemon.rpc.call('eth_sendRawTransaction', [`0x${raw}`])).rejects.toMatchObject({
      code: -32602,
      message:
        'invalid raw transaction: the access list must be a list of [address, storage keys] pairs',
    });
  });

  it.each(['eth_call', 'eth_estimateGas'])(
    "%s refuses a tip above the fee cap in our words, not the library's",
    async (method) => {
      await expect(
        daemon.rpc.call(method, [
          { from: DEV, to: RECIPIENT, maxFeePerGas: '0x1', maxPriorityFeePerGas: '0x5208' },
        ]),
      ).rejects.toMatchObject({
        code: -32602,
        message:
          'max priority fee per gas higher than max fee per gas: maxPriorityFeePerGas 21000, maxFeePerGas 1',
      });
    },
  );

  it.each(['eth_sendTransaction', 'eth_signTransaction'])(
    "%s refuses init code over the EIP-3860 limit in geth's words",
    async (method) => {
      const initcode = `0x${'60'.repeat(49_153)}`;
      await expect(
        daemon.rpc.call(method, [{ from: DEV, data: initcode, gas: '0x1000000' }]),
      ).rejects.toMatchObject({
        code: -32000,
        message: 'max initcode size exceeded: code size 49153, limit 49152',
      });
    },
  );

  describe('the sender must afford the value of a call', () => {
    it('eth_call: refused with geth\'s "insufficient funds for transfer"', async () => {
      await expect(
        daemon.rpc.call('eth_call', [{ from: EMPTY, to: RECIPIENT, value: '0x1' }, 'latest']),
      ).rejects.toMatchObject({
        code: -32000,
        message: `insufficient funds for transfer: address ${getAddress(EMPTY)}`,
      });
      await expect(
        daemon.rpc.call('eth_call', [{ from: DEV, to: RECIPIENT, value: hex(DEV_BALANCE + 1n) }]),
      ).rejects.toMatchObject({
        message: `insufficient funds for transfer: address ${getAddress(DEV)}`,
      });
    });

    it('eth_estimateGas: the same, and with fees geth\'s "have X want Y"', async () => {
      await expect(
        daemon.rpc.call('eth_estimateGas', [{ from: EMPTY, to: RECIPIENT, value: '0x1' }]),
      ).rejects.toMatchObject({
        code: -32000,
        message: `insufficient funds for transfer: address ${getAddress(EMPTY)}`,
      });
      // One block for both, so a block committed in between cannot change the balance.
      const block = await daemon.rpc.call<string>('eth_blockNumber');
      const balance = BigInt(await daemon.rpc.call<string>('eth_getBalance', [DEV, block]));
      const gas = 21_000n;
      await expect(
        daemon.rpc.call('eth_estimateGas', [
          {
            from: DEV,
            to: RECIPIENT,
            gas: hex(gas),
            gasPrice: hex(MIN_GAS_PRICE),
            value: hex(balance),
          },
          block,
        ]),
      ).rejects.toMatchObject({
        code: -32000,
        message: `insufficient funds for gas * price + value: address ${getAddress(DEV)} have ${balance} want ${balance + gas * MIN_GAS_PRICE}`,
      });
    });

    it('still answers calls without from, and affordable values', async () => {
      expect(await daemon.rpc.call('eth_call', [{ to: RECIPIENT }, 'latest'])).toBe('0x');
      expect(await daemon.rpc.call('eth_call', [{ to: RECIPIENT, value: '0x0' }, 'latest'])).toBe(
        '0x',
      );
      expect(await daemon.rpc.call('eth_estimateGas', [{ to: RECIPIENT }])).toBe('0x5208');
      expect(
        await daemon.rpc.call('eth_call', [{ from: DEV, to: RECIPIENT, value: '0x1' }, 'latest']),
      ).toBe('0x');
      expect(
        await daemon.rpc.call('eth_estimateGas', [{ from: DEV, to: RECIPIENT, value: '0x1' }]),
      ).toBe('0x5208');
    });
  });
});
