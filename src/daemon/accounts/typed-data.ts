/**
 * EIP-712 typed structured data: checking what a caller sent, and the digest that
 * `eth_signTypedData`, `_v3` and `_v4` sign, `keccak256(0x1901 ‖ domainSeparator ‖
 * hashStruct(message))`. The struct encoding is ethers' `TypedDataEncoder`, so signatures
 * verify with ethers' `verifyTypedData`.
 *
 * The domain separator is the struct hash of the domain under the `EIP712Domain` type the
 * caller listed, in the caller's field order, as EIP-712 defines it; without that type it is
 * derived from the domain's fields the way ethers derives it. Only the types reachable from `primaryType` are encoded, so unrelated extra types
 * (which wallets accept) do not make the primary type ambiguous to ethers.
 */
import { TypedDataEncoder, getBytes, type TypedDataField } from 'ethers';
import { InvalidInputError } from '../../shared/errors.js';
import { keccak256 } from '../crypto/wasm-crypto.js';

/** Typed data as a JSON-RPC caller sends it, after {@link parseTypedData}. */
export interface TypedData {
  types: Record<string, TypedDataField[]>;
  primaryType: string;
  domain: Record<string, unknown>;
  message: Record<string, unknown>;
}

/** The EIP-712 revisions: v3 has no arrays, v4 has them. */
export type TypedDataVersion = 'v3' | 'v4';

const DOMAIN_TYPE = 'EIP712Domain';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function invalid(message: string, cause?: unknown): InvalidInputError {
  return new InvalidInputError(`invalid typed data: ${message}`, { cause });
}

function checkFields(name: string, fields: unknown): TypedDataField[] {
  if (!Array.isArray(fields)) throw invalid(`types.${name} must be an array of {name, type}`);
  fields.forEach((field: unknown, index) => {
    if (!isObject(field) || typeof field.name !== 'string' || typeof field.type !== 'string') {
      throw invalid(`types.${name}[${index}] must be an object {name: string, type: string}`);
    }
  });
  return fields as TypedDataField[];
}

/**
 * Checks the shape of typed data sent as an object or as its JSON text (what MetaMask and
 * ethers' `JsonRpcSigner` send).
 *
 * @throws InvalidInputError naming the field that is missing or of the wrong kind.
 */
export function parseTypedData(input: unknown): TypedData {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch (cause) {
      throw invalid(`not valid JSON (${(cause as Error).message})`, cause);
    }
  }
  if (!isObject(value)) throw invalid('expected an object {types, primaryType, domain, message}');
  if (!isObject(value.types)) throw invalid('"types" must be an object of struct definitions');
  const types = Object.fromEntries(
    Object.entries(value.types).map(([name, fields]) => [name, checkFields(name, fields)]),
  );
  const { primaryType, domain, message } = value;
  if (typeof primaryType !== 'string') throw invalid('"primaryType" must be a string');
  if (!Object.hasOwn(types, primaryType)) {
    throw invalid(`primaryType "${primaryType}" is not in "types"`);
  }
  if (!isObject(domain)) throw invalid('"domain" must be an object');
  if (!isObject(message)) throw invalid('"message" must be an object');
  return { types, primaryType, domain, message };
}

/** The struct types `primaryType` uses, directly or through other structs (itself included). */
function reachableTypes(data: TypedData): Record<string, TypedDataField[]> {
  const reached = new Map<string, TypedDataField[]>();
  const visit = (name: string) => {
    if (!Object.hasOwn(data.types, name) || reached.has(name)) return;
    const fields = data.types[name];
    reached.set(name, fields);
    for (const field of fields) visit(field.type.replace(/(\[\d*\])+$/, ''));
  };
  visit(data.primaryType);
  return Object.fromEntries(reached);
}

function refuseArrays(types: Record<string, TypedDataField[]>): void {
  for (const [name, fields] of Object.entries(types)) {
    const array = fields.find((field) => field.type.endsWith(']'));
    if (array !== undefined) {
      throw invalid(
        `eth_signTypedData_v3 has no arrays (field "${array.name}" of ${name} is ${array.type}); use eth_signTypedData_v4`,
      );
    }
  }
}

const ARRAY_SUFFIX = /\[(\d*)\]$/;

/**
 * Checks that `value` has the shape `type` asks for (an object for a struct, an array of the
 * right length for an array, something for every field), naming the path of what does not: the
 * encoder would otherwise fail on it with a bare TypeError. Values of atomic types are left to
 * the encoder, whose errors say what is wrong with them.
 */
function checkShape(
  types: Record<string, TypedDataField[]>,
  type: string,
  value: unknown,
  path: string,
): void {
  if (value === undefined || value === null) throw invalid(`${path} (${type}) is missing`);
  const array = ARRAY_SUFFIX.exec(type);
  if (array !== null) {
    const length = array[1] === '' ? undefined : Number(array[1]);
    if (!Array.isArray(value) || (length !== undefined && value.length !== length)) {
      throw invalid(
        `${path} must be an array${length === undefined ? '' : ` of ${length}`} (${type})`,
      );
    }
    const element = type.slice(0, array.index);
    value.forEach((item, index) => checkShape(types, element, item, `${path}[${index}]`));
    return;
  }
  if (!Object.hasOwn(types, type)) return;
  if (!isObject(value)) throw invalid(`${path} must be an object (${type})`);
  for (const field of types[type]) {
    checkShape(types, field.type, value[field.name], `${path}.${field.name}`);
  }
}

function domainSeparator(data: TypedData): string {
  if (!Object.hasOwn(data.types, DOMAIN_TYPE)) return TypedDataEncoder.hashDomain(data.domain);
  const domainType = { [DOMAIN_TYPE]: data.types[DOMAIN_TYPE] };
  checkShape(domainType, DOMAIN_TYPE, data.domain, 'domain');
  return TypedDataEncoder.hashStruct(DOMAIN_TYPE, domainType, data.domain);
}

/**
 * The digest an EIP-712 signature signs. A `primaryType` of `EIP712Domain` signs the domain
 * alone, as eth-sig-util does.
 *
 * @throws InvalidInputError when a type is unknown or circular, or a value does not fit its type.
 */
export function typedDataDigest(data: TypedData, version: TypedDataVersion): Uint8Array {
  const types = reachableTypes(data);
  if (version === 'v3') refuseArrays(types);
  try {
    const parts = ['0x1901', domainSeparator(data)];
    if (data.primaryType !== DOMAIN_TYPE) {
      delete types[DOMAIN_TYPE];
      checkShape(types, data.primaryType, data.message, 'message');
      parts.push(new TypedDataEncoder(types).hashStruct(data.primaryType, data.message));
    }
    return keccak256(getBytes(`0x${parts.map((part) => part.slice(2)).join('')}`));
  } catch (cause) {
    if (cause instanceof InvalidInputError) throw cause;
    const reason = (cause as { shortMessage?: string }).shortMessage ?? (cause as Error).message;
    throw invalid(reason, cause);
  }
}
