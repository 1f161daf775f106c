/**
 * Key-using eth methods are served to loopback clients and authenticated callers only, so an
 * unlocked account is never spendable from the network. The transports mark each call with
 * `loopback` (from the socket's address) and `authenticated` (from the token); this checks
 * both halves without needing a second network interface.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyMessage, verifyTypedData } from 'ethers';
import { AccountManager } from '../../src/daemon/accounts/account-manager.js';
import { KeyDerivationSlots } from '../../src/daemon/accounts/key-derivation-slots.js';
import { TransactionSigner } from '../../src/daemon/accounts/transaction-signer.js';
import { ethAccountsNamespace } from '../../src/daemon/api/eth-accounts.js';
import { createChainCommon } from '../../src/daemon/chain/common.js';
import { DEV_ADDRESSES } from '../../src/daemon/chain/genesis.js';
import { initCrypto } from '../../src/daemon/crypto/wasm-crypto.js';
import { RpcDispatcher } from '../../src/daemon/rpc/dispatcher.js';
import { MethodRegistry, type CallContext } from '../../src/daemon/rpc/registry.js';
import { isLoopback } from '../../src/daemon/transport/listen.js';
import type { TxPoolApi } from '../../src/daemon/txpool/types.js';

const DEV = DEV_ADDRESSES[0].toLowerCase();
const TYPED_NOTE = {
  types: { Note: [{ name: 'text', type: 'string' }] },
  primaryType: 'Note',
  domain: { name: 'access test', chainId: 9000 },
  message: { text: 'hello' },
};
const remote: CallContext = {
  transport: 'http',
  authenticated: false,
  loopback: false,
  remoteAddress: '198.51.100.7',
};

describe('key-using methods', () => {
  let dir: string;
  let accounts: AccountManager;
  let dispatcher: RpcDispatcher;

  beforeAll(async () => {
    await initCrypto();
    dir = mkdtempSync(join(tmpdir(), 'node-cli-access-'));
    accounts = new AccountManager({
      keystoreDir: join(dir, 'keystore'),
      walletsDir: join(dir, 'wallets'),
      derivations: new KeyDerivationSlots({ concurrency: 4, queue: 64 }),
      dev: true,
    });
    const pool = {} as TxPoolApi;
    const signer = new TransactionSigner(
      { common: createChainCommon(9000n), pool, nextBaseFee: () => 1n, suggestedTip: () => 1n },
      accounts,
    );
    const registry = new MethodRegistry(new Set(['eth'])).register(
      ethAccountsNamespace(accounts, signer),
    );
    dispatcher = new RpcDispatcher(
      registry,
      { batchRequestLimit: 10, batchResponseMaxSize: 1_000_000, maxNesting: 128 },
      { error: () => undefined, debug: () => undefined },
    );
  });
  afterAll(async () => {
    await accounts.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const ask = async (method: string, params: unknown[], context: CallContext) =>
    JSON.parse(
      (await dispatcher.handleText(
        JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        context,
      )) as string,
    );

  it.each([
    ['eth_sendTransaction', [{ from: DEV, to: DEV, value: '0x1' }]],
    ['eth_signTransaction', [{ from: DEV, to: DEV }]],
    ['eth_sign', [DEV, '0x68656c6c6f']],
    ...['eth_signTypedData', 'eth_signTypedData_v3', 'eth_signTypedData_v4'].map(
      (method): [string, unknown[]] => [method, [DEV, TYPED_NOTE]],
    ),
  ])('refuses %s to an unauthenticated remote caller', async (method, params) => {
    expect((await ask(method, params, remote)).error).toEqual({
      code: -32001,
      message: `unauthorized: ${method} requires authentication`,
    });
  });

  it('serves eth_sign to loopback callers and to authenticated remote callers', async () => {
    for (const context of [
      { ...remote, loopback: true },
      { ...remote, authenticated: true },
    ]) {
      const { result } = await ask('eth_sign', [DEV, '0x68656c6c6f'], context);
      expect(verifyMessage('hello', result).toLowerCase()).toBe(DEV);
    }
  });

  it('serves eth_signTypedData_v4 to loopback callers and to authenticated remote callers', async () => {
    for (const context of [
      { ...remote, loopback: true },
      { ...remote, authenticated: true },
    ]) {
      const { result } = await ask('eth_signTypedData_v4', [DEV, TYPED_NOTE], context);
      const { domain, types, message } = TYPED_NOTE;
      expect(verifyTypedData(domain, types, message, result).toLowerCase()).toBe(DEV);
    }
  });

  it('keeps eth_accounts public', async () => {
    expect((await ask('eth_accounts', [], remote)).result).toHaveLength(10);
  });

  it('classifies socket addresses the way the transports use them', () => {
    for (const address of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1'])
      expect(isLoopback(address)).toBe(true);
    for (const address of ['192.0.2.2', '::ffff:10.1.2.3', 'fe80::1', '', undefined])
      expect(isLoopback(address)).toBe(false);
  });
});
