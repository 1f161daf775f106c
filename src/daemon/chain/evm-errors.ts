/**
 * EthereumJS's execution errors in geth's words, and revert data decoded as geth's
 * `abi.UnpackRevert` does: what tracer results, calls and the consensus events of failed
 * transactions carry, so tools that match on geth's strings (explorers, Foundry, Hardhat) read
 * ours the same way.
 */
import { bytesToHex } from '@ethereumjs/util';

const GETH_WORDING: Record<string, string> = {
  revert: 'execution reverted',
  'out of gas': 'out of gas',
  'code store out of gas': 'contract creation code storage out of gas',
  'code size to deposit exceeds maximum code size': 'max code size exceeded',
  'stack underflow': 'stack underflow',
  'stack overflow': 'stack limit reached 1024 (1023)',
  'invalid JUMP': 'invalid jump destination',
  'static state change': 'write protection',
  'create collision': 'contract address collision',
  'insufficient balance': 'insufficient balance for transfer',
  'invalid bytecode deployed': 'invalid code: must not begin with 0xef',
  'initcode exceeds max initcode size': 'max initcode size exceeded',
  'value out of range': 'return data out of bounds',
  'invalid input length': 'invalid input length',
};

/**
 * Where EthereumJS says an error happened, after some of its messages ("invalid JUMP at
 * <code hash>/<address>:<pc>"); geth's words stand for the message without it.
 */
const LOCATION = / at 0x[0-9a-f]{64}\/0x[0-9a-f]{40}:\d+$/;

/** The 0xfe opcode, which geth names INVALID. */
const INVALID = 0xfe;

/** geth's name of an opcode it does not define (0xfe is defined: INVALID). */
export function undefinedOpcodeName(opcode: number): string {
  return `opcode 0x${opcode.toString(16)} not defined`;
}

/**
 * geth's message for an EthereumJS error; `opcode` is the opcode that failed, for geth's
 * "invalid opcode" wording.
 */
export function gethError(message: string, opcode?: number): string {
  if (message === 'invalid opcode') {
    if (opcode === undefined || opcode === INVALID) return 'invalid opcode: INVALID';
    return `invalid opcode: ${undefinedOpcodeName(opcode)}`;
  }
  return GETH_WORDING[message.replace(LOCATION, '')] ?? message;
}

/** Solidity's panic codes, worded as geth words them. */
const PANIC_REASONS: Record<number, string> = {
  0x00: 'generic panic',
  0x01: 'assert(false)',
  0x11: 'arithmetic underflow or overflow',
  0x12: 'division or modulo by zero',
  0x21: 'enum overflow',
  0x22: 'invalid encoded storage byte array accessed',
  0x31: 'out-of-bounds array access; popping on an empty array',
  0x32: 'out-of-bounds access of an array or bytesN',
  0x41: 'out of memory',
  0x51: 'uninitialized function',
};

const ERROR_SELECTOR = '0x08c379a0';
const PANIC_SELECTOR = '0x4e487b71';

/** The reason in `Error(string)` or `Panic(uint256)` revert data; undefined for anything else. */
export function revertReason(data: Uint8Array): string | undefined {
  const selector = bytesToHex(data.subarray(0, 4));
  if (selector === ERROR_SELECTOR && data.length >= 68) {
    const offset = Number(BigInt(bytesToHex(data.subarray(4, 36))));
    if (offset !== 32) return undefined;
    const length = BigInt(bytesToHex(data.subarray(36, 68)));
    if (68n + length > BigInt(data.length)) return undefined;
    return new TextDecoder().decode(data.subarray(68, 68 + Number(length)));
  }
  if (selector === PANIC_SELECTOR && data.length === 36) {
    const code = BigInt(bytesToHex(data.subarray(4)));
    return PANIC_REASONS[Number(code)] ?? `unknown panic code: 0x${code.toString(16)}`;
  }
  return undefined;
}
