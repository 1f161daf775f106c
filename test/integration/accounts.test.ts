import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Transaction, Wallet, verifyMessage } from 'ethers';
import { RpcResponseError } from '../../src/client/errors.js';
import { DEV_ADDRESSES } from '../../src/daemon/chain/genesis.js';
import { runCli } from '../helpers/cli.js';
import { waitForReceipt } from '../helpers/dev-chain.js';
import { waitFor } from '../helpers/processes.js';
import { makeDataDir, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { rpcError } from '../helpers/rpc-errors.js';

/** Key files written by these daemons use geth's light scrypt, so each test runs in ms. */
const LIGHT_KDF = ['--keystore.light-kdf'];
const PASSPHRASE = 'correct horse battery staple';
const DEV = DEV_ADDRESSES[0].toLowerCase();
const RECIPIENT = DEV_ADDRESSES[9].toLowerCase();
const ONE_ETHER = '0xde0b6b3a7640000';
/** geth's wording, answered -32000 as geth does (a well-formed passphrase that does not fit). */
const WRONG_PASSPHRASE = 'could not decrypt key with given password';
const hexOf = (text: string) => `0x${Buffer.from(text, 'utf8').toString('hex')}`;

/** Funds `address` with one ether from dev account 0 and waits until it is mined. */
async function fund(daemon: TestDaemon, address: string): Promise<void> {
  const hash = await daemon.rpc.call<string>('eth_sendTransaction', [
    { from: DEV, to: address, value: ONE_ETHER },
  ]);
  expect((await waitForReceipt(daemon.rpc, hash)).status).toBe('0x1');
}

/** Whether the node signs for `address` without a passphrase now. */
async function canSign(daemon: TestDaemon, address: string): Promise<boolean> {
  try {
    await daemon.rpc.call('eth_sign', [address, '0x00']);
    return true;
  } catch (error) {
    if (error instanceof RpcResponseError && /authentication needed/.test(error.message)) {
      return false;
    }
    throw error;
  }
}

describe('accounts against a running daemon', () => {
  let daemon: TestDaemon;

  beforeAll(async () => {
    daemon = await startTestDaemon(LIGHT_KDF);
  });
  afterAll(() => daemon?.stop());

  it('serves the ten dev accounts, unlocked, through eth_accounts', async () => {
    const accounts = await daemon.rpc.call<string[]>('eth_accounts');
    expect(accounts).toEqual(DEV_ADDRESSES.map((address) => address.toLowerCase()));
    const hash = await daemon.rpc.call<string>('eth_sendTransaction', [
      { from: DEV, to: RECIPIENT, value: '0x1' },
    ]);
    const tx = await daemon.rpc.call<Record<string, string>>('eth_getTransactionByHash', [hash]);
    expect(tx.gas).toBe('0x15f90');
    expect((await waitForReceipt(daemon.rpc, hash)).status).toBe('0x1');
  });

  it('refuses eth_sendTransaction for another chain id as geth does (-32000)', async () => {
    const error = await rpcError(
      daemon.rpc.call('eth_sendTransaction', [
        { from: DEV, to: RECIPIENT, value: '0x1', chainId: '0x1' },
      ]),
    );
    expect(error.code).toBe(-32000);
    expect(error.message).toMatch(/^invalid chain id: have 1 want /);
  });

  it('refuses every personal method without the token', async () => {
    for (const [method, params] of [
      ['personal_listAccounts', []],
      ['personal_newAccount', ['x']],
      ['personal_unlockAccount', [DEV, '']],
      ['personal_sign', ['0x00', DEV]],
    ] as const) {
      const error = await rpcError(daemon.rpc.call(method, [...params]));
      expect(error.code).toBe(-32001);
      expect(error.message).toContain(method);
    }
  });

  it('goes through every transition of the spec’s account table', async () => {
    const address = await daemon.authedRpc.call<string>('personal_newAccount', [PASSPHRASE]);
    expect(await daemon.authedRpc.call('personal_listAccounts')).toContain(address);
    await fund(daemon, address);
    const send = () =>
      daemon.rpc.call<string>('eth_sendTransaction', [
        { from: address, to: RECIPIENT, value: '0x1' },
      ]);

    // locked: cannot send
    expect((await rpcError(send())).message).toBe('authentication needed: password or unlock');

    // unlock with a wrong passphrase: still locked
    const wrong = await rpcError(
      daemon.authedRpc.call('personal_unlockAccount', [address, 'wrong', 60]),
    );
    expect(wrong).toMatchObject({ code: -32000, message: WRONG_PASSPHRASE });
    expect(await canSign(daemon, address)).toBe(false);

    // unlock with the right passphrase: usable by eth_sign and eth_sendTransaction
    expect(await daemon.authedRpc.call('personal_unlockAccount', [address, PASSPHRASE, 60])).toBe(
      true,
    );
    expect((await waitForReceipt(daemon.rpc, await send())).status).toBe('0x1');

    // lock: the key is gone at once
    expect(await daemon.authedRpc.call('personal_lockAccount', [address])).toBe(true);
    expect((await rpcError(send())).message).toBe('authentication needed: password or unlock');

    // duration elapses: locked again without a call
    expect(await daemon.authedRpc.call('personal_unlockAccount', [address, PASSPHRASE, 1])).toBe(
      true,
    );
    expect(await canSign(daemon, address)).toBe(true);
    await waitFor(async () => !(await canSign(daemon, address)), 10_000, 'the unlock to expire');
  });

  it('personal_sendTransaction signs with the passphrase and leaves the account locked', async () => {
    const address = await daemon.authedRpc.call<string>('personal_newAccount', [PASSPHRASE]);
    await fund(daemon, address);
    const wrong = await rpcError(
      daemon.authedRpc.call('personal_sendTransaction', [{ from: address, to: RECIPIENT }, 'no']),
    );
    expect(wrong).toMatchObject({ code: -32000, message: WRONG_PASSPHRASE });
    const hash = await daemon.authedRpc.call<string>('personal_sendTransaction', [
      { from: address, to: RECIPIENT, value: '0x2', gasLimit: '0x5208' },
      PASSPHRASE,
    ]);
    const receipt = await waitForReceipt(daemon.rpc, hash);
    expect(receipt.status).toBe('0x1');
    expect(receipt.from).toBe(address);
    expect(receipt.gasUsed).toBe('0x5208');
    expect(await canSign(daemon, address)).toBe(false);
  });

  it('signs messages ethers verifies and recovers their signer', async () => {
    const message = hexOf('hello from the node');
    const signature = await daemon.rpc.call<string>('eth_sign', [DEV, message]);
    expect(verifyMessage('hello from the node', signature)).toBe(DEV_ADDRESSES[0]);

    const address = await daemon.authedRpc.call<string>('personal_newAccount', [PASSPHRASE]);
    const withPassword = await daemon.authedRpc.call<string>('personal_sign', [
      message,
      address,
      PASSPHRASE,
    ]);
    expect(verifyMessage('hello from the node', withPassword).toLowerCase()).toBe(address);
    expect(await canSign(daemon, address)).toBe(false);
    const locked = await rpcError(daemon.authedRpc.call('personal_sign', [message, address]));
    expect(locked.message).toBe('authentication needed: password or unlock');
    const wrong = await rpcError(
      daemon.authedRpc.call('personal_sign', [message, address, 'not the passphrase']),
    );
    expect(wrong).toMatchObject({ code: -32000, message: WRONG_PASSPHRASE });
    const unlocked = await daemon.authedRpc.call<string>('personal_sign', [message, DEV]);
    expect(unlocked).toBe(signature);

    expect(await daemon.authedRpc.call('personal_ecRecover', [message, withPassword])).toBe(
      address,
    );
  });

  it('eth_signTransaction returns the raw transaction and its fields without sending it', async () => {
    const { raw, tx } = await daemon.rpc.call<{ raw: string; tx: Record<string, string> }>(
      'eth_signTransaction',
      [{ from: DEV, to: RECIPIENT, value: '0x3', nonce: '0x3e8' }],
    );
    const parsed = Transaction.from(raw);
    expect(parsed.from?.toLowerCase()).toBe(DEV);
    expect(parsed.nonce).toBe(1000);
    expect(tx.hash).toBe(parsed.hash);
    expect(tx.from).toBe(DEV);
    expect(await daemon.rpc.call('eth_getTransactionByHash', [tx.hash])).toBeNull();
  });

  it('imports ethers key files and writes files ethers decrypts', async () => {
    const wallet = Wallet.createRandom();
    const imported = await daemon.authedRpc.call<string>('personal_importRawKey', [
      wallet.privateKey.slice(2),
      PASSPHRASE,
    ]);
    expect(imported).toBe(wallet.address.toLowerCase());
    const again = await rpcError(
      daemon.authedRpc.call('personal_importRawKey', [wallet.privateKey, PASSPHRASE]),
    );
    expect(again.message).toBe('account already exists');

    const files = await readdir(join(daemon.dataDir, 'keystore'));
    const file = files.find((name) => name.endsWith(imported.slice(2)));
    const json = await readFile(join(daemon.dataDir, 'keystore', file!), 'utf8');
    const decrypted = await Wallet.fromEncryptedJson(json, PASSPHRASE);
    expect(decrypted.privateKey).toBe(wallet.privateKey);

    await daemon.authedRpc.call('personal_unlockAccount', [imported, PASSPHRASE, 30]);
    const signature = await daemon.rpc.call<string>('eth_sign', [imported, hexOf('x')]);
    expect(signature).toBe(await wallet.signMessage('x'));
  });

  it('initialises a local wallet and unpairs it with its key', async () => {
    const key = await daemon.authedRpc.call<string>('personal_initializeWallet', ['local://ops']);
    const address = new Wallet(key).address.toLowerCase();
    expect(await daemon.rpc.call('eth_accounts')).toContain(address);
    expect(await daemon.authedRpc.call('personal_unlockAccount', [address, key, 0])).toBe(true);
    expect(await canSign(daemon, address)).toBe(true);
    const wrong = await rpcError(daemon.authedRpc.call('personal_unpair', ['local://ops', 'x']));
    expect(wrong).toMatchObject({ code: -32000, message: WRONG_PASSPHRASE });
    expect(await daemon.authedRpc.call('personal_unpair', ['local://ops', key])).toBeNull();
    expect(await daemon.rpc.call('eth_accounts')).not.toContain(address);
    const gone = await rpcError(daemon.rpc.call('eth_sign', [address, '0x00']));
    expect(gone.message).toBe('unknown account');
  });

  it('miner_setEtherbase sends the rewards of the next blocks elsewhere', async () => {
    const etherbase = Wallet.createRandom().address.toLowerCase();
    expect(await daemon.authedRpc.call('miner_setEtherbase', [etherbase])).toBe(true);
    const hash = await daemon.rpc.call<string>('eth_sendTransaction', [
      { from: DEV, to: RECIPIENT, value: '0x1' },
    ]);
    const receipt = await waitForReceipt(daemon.rpc, hash);
    const block = await daemon.rpc.call<Record<string, string>>('eth_getBlockByNumber', [
      receipt.blockNumber,
      false,
    ]);
    expect(block.miner).toBe(etherbase);
    expect(
      BigInt(await daemon.rpc.call<string>('eth_getBalance', [etherbase, 'latest'])),
    ).toBeGreaterThan(0n);
  });
});

describe('accounts across restarts', () => {
  it('keeps an unlock of duration 0 until the daemon stops, and miner_setGasPrice for the next start', async () => {
    const dataDir = makeDataDir();
    await writeFile(join(dataDir, 'config.json'), JSON.stringify({ 'block-time': '200ms' }));
    let daemon = await startTestDaemon(LIGHT_KDF, dataDir);
    try {
      const forever = await daemon.authedRpc.call<string>('personal_newAccount', [PASSPHRASE]);
      const brief = await daemon.authedRpc.call<string>('personal_newAccount', [PASSPHRASE]);
      await daemon.authedRpc.call('personal_unlockAccount', [forever, PASSPHRASE, 0]);
      await daemon.authedRpc.call('personal_unlockAccount', [brief, PASSPHRASE, 1]);
      await waitFor(async () => !(await canSign(daemon, brief)), 10_000, 'the 1 s unlock to end');
      expect(await canSign(daemon, forever)).toBe(true);

      expect(await daemon.authedRpc.call('miner_setGasPrice', ['0x174876e800'])).toBe(true);
      expect(JSON.parse(await readFile(join(dataDir, 'config.json'), 'utf8'))).toEqual({
        'block-time': '200ms',
        'minimum-gas-prices': '100000000000',
      });

      await Promise.all([daemon.rpc.close(), daemon.authedRpc.close()]);
      expect((await runCli(['daemon', 'stop', '--datadir', dataDir])).code).toBe(0);
      daemon = await startTestDaemon(LIGHT_KDF, dataDir);

      expect(await canSign(daemon, forever)).toBe(false);
      const underpriced = await rpcError(
        daemon.rpc.call('eth_sendTransaction', [
          { from: DEV, to: RECIPIENT, gasPrice: '0x3b9aca00' },
        ]),
      );
      expect(underpriced.message).toMatch(/transaction underpriced/);
    } finally {
      await daemon.stop();
    }
  });
});
