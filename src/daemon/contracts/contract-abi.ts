/**
 * ABIs as the REST interface takes and shows them. Any ABI ethers' `Interface` parses is
 * accepted, flat or nested one level (the spec's sample nests its entries in an inner array,
 * so an ABI read from `GET /contracts/:contract` can be given back as is). Entries are shown
 * in the spec's shape: every entry has `inputs`, `name`, `outputs`, `stateMutability`, `type`
 * and `constant` (true for view and pure functions), parameters as
 * `{internalType, name, type}` (plus `components` for tuples, `indexed` for event inputs).
 */
import {
  Fragment,
  Interface,
  Result,
  type FunctionFragment,
  type InterfaceAbi,
  type JsonFragment,
} from 'ethers';
import { InvalidInputError } from '../../shared/errors.js';
import { ethersReason } from '../../shared/ethers-reason.js';

/** One ABI entry as JSON. */
export type AbiEntry = Record<string, unknown>;

/** An ABI parameter as the spec shows it. */
interface AbiParam {
  internalType: string;
  name: string;
  type: string;
  components?: AbiParam[];
  indexed?: boolean;
}

/**
 * The entries of `abi` (flat or nested one level), checked by ethers.
 *
 * @throws InvalidInputError naming `field` when it is not an ABI.
 */
export function parseAbi(abi: unknown, field: string): AbiEntry[] {
  if (!Array.isArray(abi)) throw new InvalidInputError(`${field} must be an array of ABI entries`);
  const entries = (abi as unknown[]).flatMap((entry) => (Array.isArray(entry) ? entry : [entry]));
  if (!entries.every((entry) => typeof entry === 'object' && entry !== null)) {
    throw new InvalidInputError(`${field} must be an array of ABI entries (objects)`);
  }
  // Each entry on its own: ethers' Interface skips an entry it cannot read instead of failing.
  entries.forEach((entry, index) => {
    try {
      Fragment.from(entry as JsonFragment);
    } catch (error) {
      throw new InvalidInputError(
        `${field} is not a valid ABI: entry ${index}: ${ethersReason(error)}`,
      );
    }
  });
  return entries as AbiEntry[];
}

function shapeParam(param: Record<string, unknown>, event: boolean): AbiParam {
  const type = String(param.type);
  const shaped: AbiParam = {
    internalType: typeof param.internalType === 'string' ? param.internalType : type,
    name: typeof param.name === 'string' ? param.name : '',
    type,
  };
  if (Array.isArray(param.components)) {
    shaped.components = (param.components as Record<string, unknown>[]).map((c) =>
      shapeParam(c, false),
    );
  }
  if (event) shaped.indexed = param.indexed === true;
  return shaped;
}

function mutabilityOf(entry: AbiEntry): string {
  if (typeof entry.stateMutability === 'string') return entry.stateMutability;
  // Old (pre-0.5) ABIs say `constant`/`payable` instead.
  if (entry.constant === true) return 'view';
  if (entry.payable === true) return 'payable';
  return 'nonpayable';
}

/** `entries` in the spec's shape, nested in one inner array as the spec's sample is. */
export function shapeAbi(entries: readonly AbiEntry[]): AbiEntry[][] {
  return [
    entries.map((entry) => {
      const type = typeof entry.type === 'string' ? entry.type : 'function';
      const event = type === 'event';
      const params = (key: string): AbiParam[] =>
        Array.isArray(entry[key])
          ? (entry[key] as Record<string, unknown>[]).map((p) => shapeParam(p, event))
          : [];
      const stateMutability = mutabilityOf(entry);
      const shaped: AbiEntry = {
        inputs: params('inputs'),
        name: typeof entry.name === 'string' ? entry.name : '',
        outputs: params('outputs'),
        stateMutability,
        type,
        constant: type === 'function' && (stateMutability === 'view' || stateMutability === 'pure'),
      };
      if (event) shaped.anonymous = entry.anonymous === true;
      return shaped;
    }),
  ];
}

/** The 4-byte selectors of the functions of `entries`, as numbers. */
export function functionSelectors(entries: readonly AbiEntry[]): number[] {
  const selectors: number[] = [];
  new Interface(entries as InterfaceAbi).forEachFunction((fragment) =>
    selectors.push(Number.parseInt(fragment.selector.slice(2), 16)),
  );
  return selectors;
}

const PUSH0 = 0x5f;
const PUSH1 = 0x60;
const PUSH4 = 0x63;
const PUSH32 = 0x7f;

/**
 * Whether runtime `code` dispatches every function of `entries`. Solidity and Vyper
 * dispatchers compare the call's selector with constants the code pushes, so each selector must
 * be the operand of a push of at most 4 bytes (PUSH4, or a shorter push when the selector has
 * leading zero bytes; PUSH0 for selector 0), found by walking the instructions (push data is
 * skipped, never read as opcodes). Code without any instruction fails; an ABI without functions
 * only needs code. A proxy, whose code forwards every call, does not dispatch its target's
 * selectors and is answered false.
 */
export function dispatchesAll(code: Uint8Array, entries: readonly AbiEntry[]): boolean {
  if (code.length === 0) return false;
  const pushed = new Set<number>();
  for (let pc = 0; pc < code.length; pc++) {
    const op = code[pc];
    if (op === PUSH0) pushed.add(0);
    if (op < PUSH1 || op > PUSH32) continue;
    const size = op - PUSH1 + 1;
    if (op <= PUSH4 && pc + size < code.length) {
      let value = 0;
      for (let i = 1; i <= size; i++) value = value * 256 + code[pc + i];
      pushed.add(value);
    }
    pc += size;
  }
  return functionSelectors(entries).every((selector) => pushed.has(selector));
}

/**
 * The function `method` names: a full signature (`transfer(address,uint256)`) or a bare name
 * that only one function of the ABI has.
 *
 * @throws InvalidInputError when no function or more than one matches (naming the candidates).
 */
export function resolveMethod(
  entries: readonly AbiEntry[],
  method: string,
  contract: string,
): FunctionFragment {
  const iface = new Interface(entries as InterfaceAbi);
  if (method.includes('(')) {
    let fragment: FunctionFragment | null = null;
    try {
      fragment = iface.getFunction(method);
    } catch {
      fragment = null;
    }
    if (!fragment) {
      throw new InvalidInputError(`method: ${contract} has no function ${method}`);
    }
    return fragment;
  }
  const candidates: FunctionFragment[] = [];
  iface.forEachFunction((fragment) => {
    if (fragment.name === method) candidates.push(fragment);
  });
  if (candidates.length === 0) {
    throw new InvalidInputError(`method: ${contract} has no function named ${method}`);
  }
  if (candidates.length > 1) {
    const names = candidates.map((fragment) => fragment.format('sighash')).join(', ');
    throw new InvalidInputError(
      `method: ${method} is overloaded in ${contract}; name one of ${names}`,
    );
  }
  return candidates[0];
}

/**
 * ABI-encodes a call of `fragment`. Parameters may be strings or numbers (integers as decimal
 * or 0x strings), `"true"`/`"false"` for booleans, arrays for arrays and tuples.
 *
 * @throws InvalidInputError naming `params` when they do not fit the function's inputs.
 */
export function encodeCall(fragment: FunctionFragment, params: readonly unknown[]): Uint8Array {
  if (params.length !== fragment.inputs.length) {
    throw new InvalidInputError(
      `params: ${fragment.format('sighash')} takes ${fragment.inputs.length} parameter(s), got ${params.length}`,
    );
  }
  const values = params.map((value, index) =>
    fragment.inputs[index].type === 'bool' && (value === 'true' || value === 'false')
      ? value === 'true'
      : value,
  );
  try {
    const data = new Interface([fragment]).encodeFunctionData(fragment, values);
    return Buffer.from(data.slice(2), 'hex');
  } catch (error) {
    throw new InvalidInputError(
      `params do not fit ${fragment.format('sighash')}: ${ethersReason(error)}`,
    );
  }
}

/**
 * The decoded return values of `fragment` as JSON: integers as decimal strings, addresses
 * checksummed, bytes as 0x-hex, arrays and tuples as arrays.
 */
export function decodeResults(fragment: FunctionFragment, returnData: Uint8Array): unknown[] {
  const result = new Interface([fragment]).decodeFunctionResult(
    fragment,
    `0x${Buffer.from(returnData).toString('hex')}`,
  );
  return toJson(result) as unknown[];
}

/**
 * A revert's data read as one of the custom errors of `abi`, as `Name(arg, …)` with the
 * arguments as `decodeResults` gives them; undefined when none of them fits.
 */
export function describeCustomError(abi: readonly AbiEntry[], data: string): string | undefined {
  try {
    const parsed = new Interface(abi as AbiEntry[]).parseError(data);
    if (parsed === null) return undefined;
    const args = (toJson(parsed.args) as unknown[]).map((arg) => JSON.stringify(arg));
    return `${parsed.name}(${args.join(', ')})`;
  } catch {
    return undefined;
  }
}

function toJson(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Result || Array.isArray(value)) return [...value].map(toJson);
  return value;
}
