/**
 * The personal namespace (private: every method needs the auth token). Key management and
 * signing with a passphrase per call; the unlock state machine is the spec's (see
 * `accounts/account-manager.ts`). Local wallets back personal_initializeWallet and
 * personal_unpair (`accounts/local-wallets.ts`).
 */
import { hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import type { AccountManager } from '../accounts/account-manager.js';
import { recoverPersonalMessageSigner, signPersonalMessage } from '../accounts/personal-message.js';
import type { TransactionSigner } from '../accounts/transaction-signer.js';
import type { JsonSchema } from '../rpc/params.js';
import { defineMethod, type NamespaceModule } from '../rpc/registry.js';
import {
  toTransactionFields,
  transactionObjectSchema,
  type TransactionObject,
} from './eth-accounts.js';
import { hex } from './formatters.js';
import { addressSchema, dataSchema } from './hex-schemas.js';

const passphraseSchema: JsonSchema = { type: 'string', description: 'a passphrase (string)' };

const privateKeySchema: JsonSchema = {
  type: 'string',
  pattern: '^(0x)?[0-9a-fA-F]{64}$',
  description: 'a private key of 32 bytes in hex (64 digits, 0x optional)',
};

const durationSchema: JsonSchema = {
  anyOf: [
    { type: 'integer', minimum: 0 },
    { type: 'string', pattern: '^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$' },
  ],
  description: 'a duration in seconds (a non-negative integer or hex QUANTITY; 0 until exit)',
};

const urlSchema: JsonSchema = { type: 'string', description: 'a wallet URL (local://<name>)' };

const bytesOf = (data: string): Uint8Array => hexToBytes(data as PrefixedHexString);

/**
 * The personal namespace over the node's accounts.
 *
 * @example registry.register(personalNamespace(accounts, signer));
 */
export function personalNamespace(
  accounts: AccountManager,
  signer: TransactionSigner,
): NamespaceModule {
  return {
    namespace: 'personal',
    access: 'private',
    methods: [
      defineMethod<[]>({
        name: 'personal_listAccounts',
        params: [],
        handler: () => accounts.list(),
      }),
      defineMethod<[string]>({
        name: 'personal_newAccount',
        params: [{ name: 'passphrase', schema: passphraseSchema }],
        handler: ([passphrase]) => accounts.newAccount(passphrase),
      }),
      defineMethod<[string, string]>({
        name: 'personal_importRawKey',
        params: [
          { name: 'privkey', schema: privateKeySchema },
          { name: 'password', schema: passphraseSchema },
        ],
        handler: ([privateKey, password]) =>
          accounts.importRawKey(Buffer.from(privateKey.replace(/^0x/, ''), 'hex'), password),
      }),
      defineMethod<[string, string, number | string | undefined]>({
        name: 'personal_unlockAccount',
        params: [
          { name: 'address', schema: addressSchema },
          { name: 'passphrase', schema: passphraseSchema },
          { name: 'duration', schema: durationSchema, optional: true },
        ],
        handler: async ([address, passphrase, duration]) => {
          await accounts.unlock(
            address,
            passphrase,
            duration === undefined ? undefined : Number(duration),
          );
          return true;
        },
      }),
      defineMethod<[string]>({
        name: 'personal_lockAccount',
        params: [{ name: 'address', schema: addressSchema }],
        handler: async ([address]) => {
          await accounts.lock(address);
          return true;
        },
      }),
      defineMethod<[TransactionObject, string]>({
        name: 'personal_sendTransaction',
        params: [
          { name: 'transaction', schema: transactionObjectSchema },
          { name: 'passphrase', schema: passphraseSchema },
        ],
        handler: ([request, passphrase]) =>
          signer.sendWithPassphrase(toTransactionFields(request), passphrase),
      }),
      defineMethod<[string, string, string | undefined]>({
        name: 'personal_sign',
        params: [
          { name: 'message', schema: dataSchema },
          { name: 'address', schema: addressSchema },
          { name: 'password', schema: passphraseSchema, optional: true },
        ],
        handler: async ([message, address, password]) => {
          const sign = (key: Uint8Array) => hex(signPersonalMessage(bytesOf(message), key));
          return password === undefined
            ? sign(await accounts.unlockedKey(address))
            : accounts.withPassphrase(address, password, sign);
        },
      }),
      defineMethod<[string, string]>({
        name: 'personal_ecRecover',
        params: [
          { name: 'message', schema: dataSchema },
          { name: 'signature', schema: dataSchema },
        ],
        handler: ([message, signature]) =>
          recoverPersonalMessageSigner(bytesOf(message), bytesOf(signature)),
      }),
      defineMethod<[string]>({
        name: 'personal_initializeWallet',
        params: [{ name: 'url', schema: urlSchema }],
        handler: async ([url]) => (await accounts.initializeWallet(url)).privateKey,
      }),
      defineMethod<[string, string]>({
        name: 'personal_unpair',
        params: [
          { name: 'url', schema: urlSchema },
          { name: 'pin', schema: passphraseSchema },
        ],
        handler: async ([url, pin]) => {
          await accounts.unpairWallet(url, pin);
          return null;
        },
      }),
    ],
  };
}
