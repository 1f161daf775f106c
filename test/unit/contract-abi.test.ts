/**
 * The ABI rules of the contract routes: the spec shape (`constant`, the inner array), the
 * dispatch check of `exists` over raw bytecode (push data skipped, short pushes for selectors
 * with leading zero bytes), method resolution by name or signature, and result decoding.
 */
import { describe, expect, it } from '@jest/globals';
import { Interface, getAddress } from 'ethers';
import {
  decodeResults,
  dispatchesAll,
  encodeCall,
  parseAbi,
  resolveMethod,
  shapeAbi,
  type AbiEntry,
} from '../../src/daemon/contracts/contract-abi.js';

const abi = (signatures: string[]): AbiEntry[] =>
  JSON.parse(new Interface(signatures).formatJson()) as AbiEntry[];

/** Code that pushes each 4-byte word with PUSH4 (0x63) and stops. */
const pushing = (...words: string[]): Uint8Array =>
  Buffer.from(words.map((word) => `63${word}`).join('') + '00', 'hex');

describe('shapeAbi', () => {
  it('nests the entries in one inner array with the spec fields; constant for view and pure', () => {
    const [entries] = shapeAbi(
      parseAbi(
        [abi(['function get() view returns (uint256 v)', 'function put(uint256) payable'])],
        'abi',
      ),
    );
    expect(entries).toEqual([
      {
        inputs: [],
        name: 'get',
        outputs: [{ internalType: 'uint256', name: 'v', type: 'uint256' }],
        stateMutability: 'view',
        type: 'function',
        constant: true,
      },
      {
        inputs: [{ internalType: 'uint256', name: '', type: 'uint256' }],
        name: 'put',
        outputs: [],
        stateMutability: 'payable',
        type: 'function',
        constant: false,
      },
    ]);
  });

  it('refuses an entry ethers cannot read, naming its index', () => {
    expect(() =>
      parseAbi([{ type: 'function', name: 'f', inputs: [{ type: 'uint7' }] }], 'abi'),
    ).toThrow(/^abi is not a valid ABI: entry 0/);
  });
});

describe('dispatchesAll', () => {
  const entries = abi(['function a()', 'function b()']);
  const [a, b] = ['a()', 'b()'].map((s) =>
    new Interface(entries).getFunction(s)!.selector.slice(2),
  );

  it('true when every selector is pushed, false when one is missing or there is no code', () => {
    expect(dispatchesAll(pushing(a, b), entries)).toBe(true);
    expect(dispatchesAll(pushing(a), entries)).toBe(false);
    expect(dispatchesAll(new Uint8Array(), [])).toBe(false);
    expect(dispatchesAll(Uint8Array.of(0x00), [])).toBe(true);
  });

  it('does not read push data as instructions', () => {
    // PUSH5 whose data holds `63 <a>`: no PUSH4 of a is executed.
    const hidden = Buffer.from(`6463${a}` + `63${b}00`, 'hex');
    expect(dispatchesAll(hidden, entries)).toBe(false);
  });

  it('accepts a shorter push for a selector with leading zero bytes', () => {
    // keccak256("z46()") starts 0x00636ca6: compilers push it as PUSH3 0x636ca6.
    const zeroLed = abi(['function z46()']);
    expect(dispatchesAll(Buffer.from('62636ca600', 'hex'), zeroLed)).toBe(true);
    expect(dispatchesAll(Buffer.from('61636c00', 'hex'), zeroLed)).toBe(false);
  });
});

describe('resolveMethod, encodeCall, decodeResults', () => {
  const entries = abi([
    'function pick(uint256) view returns (address, uint256[])',
    'function pick(address) view returns (bool)',
    'function flag(bool) view returns (bool)',
  ]);

  it('a bare overloaded name names the candidates; the signature resolves it', () => {
    expect(() => resolveMethod(entries, 'pick', 'C')).toThrow(
      /^method: pick is overloaded in C; name one of pick\((uint256|address)\), pick\((address|uint256)\)$/,
    );
    expect(resolveMethod(entries, 'pick(address)', 'C').format('sighash')).toBe('pick(address)');
    expect(() => resolveMethod(entries, 'pick(bytes)', 'C')).toThrow(
      'C has no function pick(bytes)',
    );
  });

  it('takes strings and numbers; "true"/"false" for bool', () => {
    const pick = resolveMethod(entries, 'pick(uint256)', 'C');
    expect(Buffer.from(encodeCall(pick, [7])).equals(Buffer.from(encodeCall(pick, ['7'])))).toBe(
      true,
    );
    expect(encodeCall(resolveMethod(entries, 'flag', 'C'), ['true']).at(-1)).toBe(1);
    expect(() => encodeCall(pick, ['x'])).toThrow(/^params do not fit pick\(uint256\)/);
    // Without ethers' bookkeeping (code=…, version=…), keeping what it says of the value.
    expect(() => encodeCall(pick, ['x'])).toThrow(/value="x"\)$/);
  });

  it('decodes integers to decimal strings and addresses checksummed', () => {
    const pick = resolveMethod(entries, 'pick(uint256)', 'C');
    const iface = new Interface([pick]);
    const address = getAddress('0x27db3c931d58b18146ebf2ebd36170b2d792ee8b');
    const data = iface.encodeFunctionResult(pick, [address.toLowerCase(), [2n ** 200n, 1n]]);
    expect(decodeResults(pick, Buffer.from(data.slice(2), 'hex'))).toEqual([
      address,
      [(2n ** 200n).toString(), '1'],
    ]);
  });
});
