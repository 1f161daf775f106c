import { afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { Transaction, Wallet, verifyMessage } from 'ethers';
import { AccountManager } from '../../src/daemon/accounts/account-manager.js';
import { KeyDerivationSlots } from '../../src/daemon/accounts/key-derivation-slots.js';
import {
  personalMessageDigest,
  recoverPersonalMessageSigner,
  signPersonalMessage,
} from '../../src/daemon/accounts/personal-message.js';
import {
  DEFAULT_TRANSACTION_GAS,
  TransactionSigner,
} from '../../src/daemon/accounts/transaction-signer.js';
import { Chain } from '../../src/daemon/chain/chain.js';
import { DEV_ADDRESSES, DEV_PRIVATE_KEYS, devGenesis } from '../../src/daemon/chain/genesis.js';
import { initCrypto } from '../../src/daemon/crypto/wasm-crypto.js';
import { InvalidInputError } from '../../src/shared/errors.js';
import { DEFAULT_POOL_LIMITS, TxPool } from '../../src/daemon/txpool/txpool.js';
import { tempDataDir } from './chain-fixtures.js';

const GWEI = 1_000_000_000n;
const FROM = DEV_ADDRESSES[0].toLowerCase();
const TO = DEV_ADDRESSES[9].toLowerCase();

beforeAll(() => initCrypto());

describe('personal messages', () => {
  const key = new Uint8Array(Buffer.from(DEV_PRIVATE_KEYS[0].slice(2), 'hex'));

  it('signs what ethers verifies, with v 27 or 28', () => {
    for (const text of ['hello', '', 'a longer message with unicode ✓']) {
      const message = Buffer.from(text, 'utf8');
      const signature = signPersonalMessage(message, key);
      expect(signature).toHaveLength(65);
      expect([27, 28]).toContain(signature[64]);
      const hexSignature = `0x${Buffer.from(signature).toString('hex')}`;
      expect(verifyMessage(message, hexSignature)).toBe(DEV_ADDRESSES[0]);
      expect(recoverPersonalMessageSigner(message, signature)).toBe(FROM);
    }
  });

  it('recovers signers of signatures ethers made', async () => {
    const wallet = Wallet.createRandom();
    const message = Buffer.from('signed elsewhere');
    const signature = Buffer.from((await wallet.signMessage(message)).slice(2), 'hex');
    expect(recoverPersonalMessageSigner(message, signature)).toBe(wallet.address.toLowerCase());
  });

  it('hashes prefix, decimal length and message', () => {
    const digest = Buffer.from(personalMessageDigest(Buffer.from('hello'))).toString('hex');
    // keccak256("\x19Ethereum Signed Message:\n5hello"), the well-known hashMessage('hello').
    expect(`0x${digest}`).toBe(
      '0x50b2c43fd39106bafbba0da34fc430e1f91e3c96ea2acee2bc34119f92b37750',
    );
  });

  it('refuses malformed signatures with geth’s wording', () => {
    const signature = signPersonalMessage(Buffer.from('x'), key);
    expect(() => recoverPersonalMessageSigner(Buffer.from('x'), signature.subarray(0, 64))).toThrow(
      'signature must be 65 bytes long',
    );
    const badV = new Uint8Array(signature);
    badV[64] = 1;
    expect(() => recoverPersonalMessageSigner(Buffer.from('x'), badV)).toThrow(
      'invalid Ethereum signature (V is not 27 or 28)',
    );
  });
});

describe('TransactionSigner', () => {
  let chain: Chain;
  let pool: TxPool;
  let accounts: AccountManager;
  let signer: TransactionSigner;
  let cleanup: () => void;

  beforeEach(async () => {
    const tmp = tempDataDir();
    cleanup = tmp.cleanup;
    chain = await Chain.open({ dataDir: tmp.dir, genesis: devGenesis() });
    pool = new TxPool({
      state: chain,
      chainId: chain.chainId,
      minGasPrice: chain.minGasPrice,
      limits: DEFAULT_POOL_LIMITS,
    });
    accounts = new AccountManager({
      keystoreDir: join(tmp.dir, 'keystore'),
      walletsDir: join(tmp.dir, 'wallets'),
      derivations: new KeyDerivationSlots({ concurrency: 4, queue: 64 }),
      dev: true,
      lightKdf: true,
    });
    signer = new TransactionSigner(
      {
        common: chain.common,
        pool,
        nextBaseFee: () => chain.nextBaseFee(),
        suggestedTip: () => chain.minGasPrice,
      },
      accounts,
    );
  });

  afterEach(async () => {
    accounts.close();
    await chain.close();
    cleanup();
  });

  it('fills nonce, gas 90000 and EIP-1559 fees of 2 × base fee + tip', async () => {
    const signed = await signer.signWithUnlockedKey({ from: FROM, to: TO, value: 5n });
    const parsed = Transaction.from(`0x${Buffer.from(signed.serialize()).toString('hex')}`);
    expect(parsed.type).toBe(2);
    expect(parsed.from?.toLowerCase()).toBe(FROM);
    expect(parsed.to?.toLowerCase()).toBe(TO);
    expect(parsed.chainId).toBe(9000n);
    expect(parsed.nonce).toBe(0);
    expect(parsed.gasLimit).toBe(DEFAULT_TRANSACTION_GAS);
    expect(parsed.maxPriorityFeePerGas).toBe(chain.minGasPrice);
    expect(parsed.maxFeePerGas).toBe(2n * chain.nextBaseFee() + chain.minGasPrice);
  });

  it('gives concurrent sends consecutive nonces', async () => {
    const hashes = await Promise.all(
      Array.from({ length: 5 }, () =>
        signer.sendWithUnlockedKey({ from: FROM, to: TO, value: 1n }),
      ),
    );
    expect(new Set(hashes).size).toBe(5);
    const nonces = pool
      .pendingBySender()
      .get(FROM)
      ?.map((entry) => entry.nonce);
    expect(nonces).toEqual([0n, 1n, 2n, 3n, 4n]);
  });

  it('makes a legacy EIP-155 transaction when gasPrice is given', async () => {
    const signed = await signer.signWithUnlockedKey({
      from: FROM,
      to: TO,
      gasPrice: 3n * GWEI,
      gasLimit: 21_000n,
    });
    expect(signed.type).toBe(0);
    expect(signed.supports(155)).toBe(true);
    await expect(
      signer.signWithUnlockedKey({ from: FROM, gasPrice: GWEI, maxFeePerGas: GWEI }),
    ).rejects.toThrow(InvalidInputError);
  });

  it('keeps given fees, caps the tip at the fee cap and refuses a cap below the tip', async () => {
    const signed = await signer.signWithUnlockedKey({
      from: FROM,
      to: TO,
      maxFeePerGas: GWEI / 2n,
    });
    expect(signed.type).toBe(2);
    expect((signed as unknown as { maxPriorityFeePerGas: bigint }).maxPriorityFeePerGas).toBe(
      GWEI / 2n,
    );
    await expect(
      signer.signWithUnlockedKey({
        from: FROM,
        maxFeePerGas: GWEI,
        maxPriorityFeePerGas: 2n * GWEI,
      }),
    ).rejects.toThrow(`maxFeePerGas (${GWEI}) < maxPriorityFeePerGas (${2n * GWEI})`);
    await expect(signer.signWithUnlockedKey({ from: FROM, chainId: 1n })).rejects.toThrow(
      'invalid chain id: have 1 want 9000',
    );
  });

  it('replaces its own pending transaction when the nonce is given and fees bumped', async () => {
    const first = await signer.sendWithUnlockedKey({ from: FROM, to: TO, value: 1n });
    await expect(
      signer.sendWithUnlockedKey({ from: FROM, to: TO, value: 2n, nonce: 0n }),
    ).rejects.toThrow(/replacement transaction underpriced/);
    const second = await signer.sendWithUnlockedKey({
      from: FROM,
      to: TO,
      value: 2n,
      nonce: 0n,
      maxPriorityFeePerGas: 10n * GWEI,
      maxFeePerGas: 100n * GWEI,
    });
    expect(pool.getByHash(first)).toBeUndefined();
    expect(pool.getByHash(second)?.nonce).toBe(0n);
  });

  it('sends with a passphrase and leaves the account locked', async () => {
    const address = await accounts.importRawKey(
      new Uint8Array(Buffer.from('11'.repeat(32), 'hex')),
      'pass',
    );
    await expect(signer.sendWithUnlockedKey({ from: address, to: TO })).rejects.toThrow(
      'authentication needed: password or unlock',
    );
    await expect(signer.sendWithPassphrase({ from: address, to: TO }, 'wrong')).rejects.toThrow(
      'could not decrypt key with given password',
    );
    // Unfunded, so the pool refuses it; what matters is that it was signed by that key.
    await expect(signer.sendWithPassphrase({ from: address, to: TO }, 'pass')).rejects.toThrow(
      /insufficient funds/,
    );
    expect(accounts.isUnlocked(address)).toBe(false);
  });
});
