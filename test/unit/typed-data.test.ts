/** EIP-712 digests of `accounts/typed-data.ts` against ethers' own, and its refusals. */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { TypedDataEncoder, concat, hexlify, keccak256 } from 'ethers';
import { parseTypedData, typedDataDigest } from '../../src/daemon/accounts/typed-data.js';
import { initCrypto } from '../../src/daemon/crypto/wasm-crypto.js';
import { InvalidInputError } from '../../src/shared/errors.js';

const domain = { name: 'Unit', version: '2', chainId: 9000n };
const types = {
  Item: [
    { name: 'id', type: 'uint32' },
    { name: 'tags', type: 'bytes32[]' },
  ],
  Order: [
    { name: 'buyer', type: 'address' },
    { name: 'items', type: 'Item[2]' },
  ],
};
const order = {
  buyer: '0x000000000000000000000000000000000000b0b0',
  items: [
    { id: 1, tags: [`0x${'11'.repeat(32)}`] },
    { id: 2, tags: [] },
  ],
};

function refusal(input: unknown, version: 'v3' | 'v4' = 'v4'): string {
  try {
    typedDataDigest(parseTypedData(input), version);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return (error as Error).message;
  }
  throw new Error('the typed data was accepted');
}

describe('EIP-712 typed data', () => {
  beforeAll(() => initCrypto());

  it("gives ethers' digest for nested structs and arrays, as an object or JSON text", () => {
    const payload = TypedDataEncoder.getPayload(domain, types, order);
    const expected = TypedDataEncoder.hash(domain, types, order);
    expect(hexlify(typedDataDigest(parseTypedData(payload), 'v4'))).toBe(expected);
    expect(hexlify(typedDataDigest(parseTypedData(JSON.stringify(payload)), 'v4'))).toBe(expected);
  });

  it('ignores types the primary type does not use, and signs the domain alone for EIP712Domain', () => {
    const payload = TypedDataEncoder.getPayload(domain, types, order);
    const extra = {
      ...payload,
      types: { ...payload.types, Unused: [{ name: 'x', type: 'bool' }] },
    };
    expect(hexlify(typedDataDigest(parseTypedData(extra), 'v4'))).toBe(
      TypedDataEncoder.hash(domain, types, order),
    );
    const domainOnly = { ...payload, primaryType: 'EIP712Domain', message: {} };
    expect(hexlify(typedDataDigest(parseTypedData(domainOnly), 'v4'))).toBe(
      keccak256(concat(['0x1901', TypedDataEncoder.hashDomain(domain)])),
    );
  });

  it('refuses names inherited from Object.prototype, arrays under v3, and bad values', () => {
    const base = { types: { Note: [{ name: 'n', type: 'uint8' }] }, domain: {}, message: { n: 1 } };
    expect(refusal({ ...base, primaryType: 'toString' })).toBe(
      'invalid typed data: primaryType "toString" is not in "types"',
    );
    expect(
      refusal({
        ...base,
        types: { Note: [{ name: 'n', type: 'constructor' }] },
        primaryType: 'Note',
      }),
    ).toMatch(/^invalid typed data: .*unknown type/);
    expect(refusal(TypedDataEncoder.getPayload(domain, types, order), 'v3')).toBe(
      'invalid typed data: eth_signTypedData_v3 has no arrays (field "items" of Order is Item[2]); use eth_signTypedData_v4',
    );
    expect(refusal({ ...base, primaryType: 'Note', message: { n: 256 } })).toMatch(
      /^invalid typed data: value out-of-bounds/,
    );
    const payload = TypedDataEncoder.getPayload(domain, types, order);
    expect(refusal({ ...payload, message: { ...order, items: [order.items[0]] } })).toBe(
      'invalid typed data: message.items must be an array of 2 (Item[2])',
    );
    expect(refusal({ ...payload, message: { ...order, items: [null, order.items[1]] } })).toBe(
      'invalid typed data: message.items[0] (Item) is missing',
    );
    expect(
      refusal({ ...payload, message: { ...order, items: [{ id: 1, tags: 'x' }, order.items[1]] } }),
    ).toBe('invalid typed data: message.items[0].tags must be an array (bytes32[])');
    expect(refusal({ ...payload, domain: { name: 'Unit', version: '2' } })).toBe(
      'invalid typed data: domain.chainId (uint256) is missing',
    );
    expect(refusal([{ type: 'string', name: 'v1', value: 'legacy' }])).toBe(
      'invalid typed data: expected an object {types, primaryType, domain, message}',
    );
  });
});
