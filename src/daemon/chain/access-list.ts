/**
 * `eth_createAccessList`: the EIP-2930 access list a transaction would need, found as geth
 * finds it. The request runs as a transaction carrying the list found so far while a tracer
 * records what its opcodes touch: the slot of every SLOAD and SSTORE (under the account whose
 * storage it is), the target of BALANCE, EXTCODESIZE, EXTCODECOPY, EXTCODEHASH and
 * SELFDESTRUCT, and the callee of CALL, CALLCODE, DELEGATECALL and STATICCALL. A list changes
 * gas costs, and gas can change the path a contract takes, so it runs again with the larger
 * list until a run touches nothing new. Every round only adds entries and each entry raises
 * the intrinsic gas, so the rounds end at the latest when the list no longer fits the gas.
 *
 * As geth does, the sender, the recipient (for a creation: the address the sender's nonce
 * gives) and the precompiles are warm anyway and never listed as bare addresses; the slots
 * read or written in their storage are.
 */
import type { AccessList } from '@ethereumjs/tx';
import type { InterpreterStep } from '@ethereumjs/evm';
import { Address, bigIntToBytes, createZeroAddress, generateAddress } from '@ethereumjs/util';
import type { RunTxResult } from '@ethereumjs/vm';
import type { CallEnvironment, CallRequest } from './call.js';
import { callGasLimit, refuseUnaffordable, runOnce } from './call.js';
import { gethError } from './evm-errors.js';

/** What `eth_createAccessList` answers; `error` is the EVM's failure of the last run, if any. */
export interface AccessListResult {
  accessList: AccessList;
  gasUsed: bigint;
  error?: string;
}

const SLOAD = 0x54;
const SSTORE = 0x55;
/** Opcodes whose operand on top of the stack is an address they touch. */
const ADDRESS_ON_TOP = new Set([0x31, 0x3b, 0x3c, 0x3f, 0xff]);
/** The calls: the callee is the second item of the stack. */
const CALLEE_SECOND = new Set([0xf1, 0xf2, 0xf4, 0xfa]);
const ADDRESS_MASK = (1n << 160n) - 1n;

const addressHex = (word: bigint) =>
  `0x${(word & ADDRESS_MASK).toString(16).padStart(40, '0')}` as const;
const slotHex = (word: bigint) => `0x${word.toString(16).padStart(64, '0')}` as const;

/** Addresses and, per address, slots, in the order first touched; lowercase hex. */
class TouchedState {
  private readonly entries = new Map<string, Set<string>>();

  constructor(
    private readonly excluded: ReadonlySet<string>,
    seed: AccessList,
  ) {
    for (const { address, storageKeys } of seed) {
      this.addAddress(address.toLowerCase());
      for (const key of storageKeys) this.addSlot(address.toLowerCase(), key.toLowerCase());
    }
  }

  /** Records what one opcode touches, as geth's access-list tracer does. */
  readonly record = (step: InterpreterStep): void => {
    const { stack } = step;
    const code = step.opcode.code;
    if ((code === SLOAD || code === SSTORE) && stack.length >= 1) {
      this.addSlot(step.address.toString(), slotHex(stack[stack.length - 1]));
    } else if (ADDRESS_ON_TOP.has(code) && stack.length >= 1) {
      this.addAddress(addressHex(stack[stack.length - 1]));
    } else if (CALLEE_SECOND.has(code) && stack.length >= 5) {
      this.addAddress(addressHex(stack[stack.length - 2]));
    }
  };

  equals(other: TouchedState): boolean {
    if (this.entries.size !== other.entries.size) return false;
    for (const [address, slots] of this.entries) {
      const theirs = other.entries.get(address);
      if (theirs === undefined || theirs.size !== slots.size) return false;
      for (const slot of slots) if (!theirs.has(slot)) return false;
    }
    return true;
  }

  list(): AccessList {
    return [...this.entries].map(([address, slots]) => ({
      address: address as `0x${string}`,
      storageKeys: [...slots] as `0x${string}`[],
    }));
  }

  private addAddress(address: string): void {
    if (!this.excluded.has(address) && !this.entries.has(address)) {
      this.entries.set(address, new Set());
    }
  }

  private addSlot(address: string, slot: string): void {
    let slots = this.entries.get(address);
    if (slots === undefined) {
      slots = new Set();
      this.entries.set(address, slots);
    }
    slots.add(slot);
  }
}

/** The sender, the recipient (or created address) and the precompiles, lowercase hex. */
async function warmAnyway(env: CallEnvironment, request: CallRequest): Promise<Set<string>> {
  const sender = request.from ?? createZeroAddress();
  return env.vms.run(env, async (vm) => {
    const nonce = request.nonce ?? (await vm.stateManager.getAccount(sender))?.nonce ?? 0n;
    const recipient =
      request.to ?? new Address(generateAddress(sender.bytes, bigIntToBytes(nonce)));
    const precompiles = [...vm.evm.precompiles.keys()].map((key) =>
      `0x${key.replace(/^0x/, '')}`.toLowerCase(),
    );
    return new Set([sender.toString(), recipient.toString(), ...precompiles]);
  });
}

/** geth's wording of a failed execution. */
function executionError(result: RunTxResult): string | undefined {
  const error = result.execResult.exceptionError?.error;
  return error === undefined ? undefined : gethError(error);
}

/**
 * The access list of `request` on the state after `env.block`, with the gas the transaction
 * uses when it carries that list. Transactions the node would refuse (intrinsic gas too low,
 * unaffordable fees) throw `TransactionRejectedError`; a run that reverts or fails in the EVM
 * is answered, with the failure in `error`.
 */
export async function createAccessList(
  env: CallEnvironment,
  request: CallRequest,
): Promise<AccessListResult> {
  const gasLimit = callGasLimit(env, request);
  await refuseUnaffordable(env, request, gasLimit);
  const excluded = await warmAnyway(env, request);
  let previous = new TouchedState(excluded, request.accessList ?? []);
  for (;;) {
    const accessList = previous.list();
    const traced = new TouchedState(excluded, accessList);
    const result = await runOnce(env, { ...request, accessList }, gasLimit, traced.record);
    if (traced.equals(previous)) {
      const error = executionError(result);
      return { accessList, gasUsed: result.totalGasSpent, ...(error ? { error } : {}) };
    }
    previous = traced;
  }
}
