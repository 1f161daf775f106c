/**
 * geth's `prestateTracer`: the accounts and storage slots a transaction touched, as they were
 * before it; with `diffMode`, what changed (`pre`) and what it changed to (`post`).
 *
 * Touched means what geth counts: sender, recipient, coinbase, every address an opcode
 * reads or calls (BALANCE, EXTCODE*, the CALL family, SELFDESTRUCT's beneficiary), every contract
 * created, and every slot SLOAD or SSTORE names. Rather than correcting balances and nonces
 * read mid-transaction, the replay hands the tracer the state after the transaction and then,
 * reverted, the state before it.
 */
import type { StateManagerInterface } from '@ethereumjs/common';
import type { EVM, InterpreterStep } from '@ethereumjs/evm';
import {
  Address,
  KECCAK256_NULL,
  bigIntToBytes,
  bytesToBigInt,
  bytesToHex,
  equalsBytes,
  setLengthLeft,
} from '@ethereumjs/util';
import { listenToEvm, stackItem } from './evm-events.js';
import { address as addressJson, data, quantity, word } from './json-hex.js';
import type { PrestateTracerOptions } from './trace-options.js';
import type { TracedTx, TxTracer } from './tracer.js';

interface AccountState {
  exists: boolean;
  balance: bigint;
  nonce: bigint;
  code: Uint8Array;
  codeHash: Uint8Array;
  /** By slot (0x-prefixed 64 digits). */
  storage: Map<string, bigint>;
}

const SLOAD = 0x54;
const SSTORE = 0x55;
const ADDRESS_READS = new Set([0x31, 0x3b, 0x3c, 0x3f, 0xff]);
const CALLS = new Set([0xf1, 0xf2, 0xf4, 0xfa]);

function wordAddress(value: bigint): Address {
  return new Address(setLengthLeft(bigIntToBytes(value), 32).subarray(12));
}

async function readAccount(
  state: StateManagerInterface,
  address: Address,
  slots: Iterable<string>,
): Promise<AccountState> {
  const account = await state.getAccount(address);
  const storage = new Map<string, bigint>();
  for (const slot of slots) {
    const value =
      account === undefined
        ? new Uint8Array()
        : await state.getStorage(address, setLengthLeft(bigIntToBytes(BigInt(slot)), 32));
    storage.set(slot, bytesToBigInt(value));
  }
  const code = account === undefined ? new Uint8Array() : await state.getCode(address);
  return {
    exists: account !== undefined && !account.isEmpty(),
    balance: account?.balance ?? 0n,
    nonce: account?.nonce ?? 0n,
    code,
    codeHash: account?.codeHash ?? KECCAK256_NULL,
    storage,
  };
}

/** geth's account JSON: empty fields left out. */
function accountJson(
  account: Partial<AccountState>,
  storage: Map<string, bigint> | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (account.balance !== undefined) out.balance = quantity(account.balance);
  if (account.code !== undefined && account.code.length > 0) {
    out.code = data(account.code);
    if (account.codeHash !== undefined) out.codeHash = bytesToHex(account.codeHash);
  }
  if (account.nonce !== undefined && account.nonce > 0n) out.nonce = Number(account.nonce);
  if (storage !== undefined && storage.size > 0) {
    out.storage = Object.fromEntries([...storage].map(([slot, value]) => [slot, word(value)]));
  }
  return out;
}

export class PrestateTracer implements TxTracer {
  /** Touched slots by touched address (lower-case hex). */
  private readonly touched = new Map<string, Set<string>>();
  private readonly created = new Set<string>();
  private post = new Map<string, AccountState>();
  private pre = new Map<string, AccountState>();

  readonly states = {
    afterTx: async (state: StateManagerInterface) => {
      this.post = await this.readAll(state);
    },
    beforeTx: async (state: StateManagerInterface) => {
      this.pre = await this.readAll(state);
    },
  };

  constructor(
    tx: TracedTx,
    private readonly options: PrestateTracerOptions,
  ) {
    this.touch(tx.from);
    if (tx.to !== undefined) this.touch(tx.to);
    this.touch(tx.coinbase);
  }

  attach(evm: EVM): () => void {
    return listenToEvm(evm, {
      step: (step) => this.step(step),
      newContract: ({ address }) => {
        this.touch(address);
        this.created.add(address.toString());
      },
    });
  }

  result(): unknown {
    const { diffMode } = this.options;
    // Contracts this transaction created were not there before it.
    const existedBefore = (key: string) => !this.created.has(key) || this.pre.get(key)!.exists;
    if (!diffMode) {
      const pre: Record<string, unknown> = {};
      for (const [key, account] of this.pre) {
        if (existedBefore(key)) pre[key] = accountJson(account, account.storage);
      }
      return pre;
    }
    const pre: Record<string, unknown> = {};
    const post: Record<string, unknown> = {};
    for (const [key, before] of this.pre) {
      const after = this.post.get(key)!;
      const changedSlots = [...before.storage].filter(
        ([slot, value]) => after.storage.get(slot) !== value,
      );
      const changed: Partial<AccountState> = {};
      if (after.balance !== before.balance) changed.balance = after.balance;
      if (after.nonce !== before.nonce) changed.nonce = after.nonce;
      if (!equalsBytes(after.code, before.code)) {
        changed.code = after.code;
        changed.codeHash = after.codeHash;
      }
      const modified = Object.keys(changed).length > 0 || changedSlots.length > 0;
      if (!modified) continue;
      if (existedBefore(key)) {
        pre[key] = accountJson(before, new Map(changedSlots.filter(([, value]) => value !== 0n)));
      }
      // An account the transaction removed (SELFDESTRUCT) has no post state.
      if (after.exists || !before.exists) {
        const written = changedSlots
          .map(([slot]): [string, bigint] => [slot, after.storage.get(slot)!])
          .filter(([, value]) => value !== 0n);
        post[key] = accountJson(changed, new Map(written));
      }
    }
    return { post, pre };
  }

  private touch(address: Address, slot?: bigint): void {
    const key = addressJson(address);
    let slots = this.touched.get(key);
    if (slots === undefined) this.touched.set(key, (slots = new Set()));
    if (slot !== undefined) slots.add(word(slot));
  }

  private step(step: InterpreterStep): undefined {
    const op = step.opcode.code;
    if (op === SLOAD || op === SSTORE) this.touch(step.address, stackItem(step, 0));
    else if (ADDRESS_READS.has(op)) this.touch(wordAddress(stackItem(step, 0)));
    else if (CALLS.has(op)) this.touch(wordAddress(stackItem(step, 1)));
    return undefined;
  }

  private async readAll(state: StateManagerInterface): Promise<Map<string, AccountState>> {
    const accounts = new Map<string, AccountState>();
    for (const [key, slots] of this.touched) {
      accounts.set(
        key,
        await readAccount(
          state,
          new Address(Uint8Array.from(Buffer.from(key.slice(2), 'hex'))),
          slots,
        ),
      );
    }
    return accounts;
  }
}
