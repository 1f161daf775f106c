/**
 * `/contracts`: named contracts by ABI. List and register them, read one's address and ABI,
 * check that code at an address implements an ABI, call a function (`eth_call`, results
 * decoded) and send a transaction to one, signed by the node's identity key and answered once
 * mined. Shapes and rules: docs/rest.md.
 */
import { getAddress } from 'ethers';
import { Address, hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import { dispatchesAll, parseAbi, shapeAbi } from '../contracts/contract-abi.js';
import { parseWei, type ContractCalls } from '../contracts/contract-calls.js';
import { CONTRACT_NAME_PATTERN } from '../../shared/rest-api.js';
import type { ContractRegistry } from '../contracts/contract-registry.js';
import { restRoute, type RestResource } from './resource.js';
import { ADDRESS_SCHEMA, dataEnvelope } from './schemas.js';

/** An ABI as bodies take it: entries, flat or nested in one inner array. */
const ABI_BODY_SCHEMA = {
  type: 'array',
  description: 'ABI entries (objects), flat or nested in one inner array as GET answers them.',
  items: {
    anyOf: [
      { type: 'object', additionalProperties: true },
      { type: 'array', items: { type: 'object', additionalProperties: true } },
    ],
  },
} as const;

/** An ABI as answers show it: the entries in one inner array (the spec's sample). */
const ABI_ANSWER_SCHEMA = {
  type: 'array',
  description: 'One inner array holding the ABI entries in the spec shape.',
  items: { type: 'array', items: { type: 'object', additionalProperties: true } },
} as const;

const CONTRACT_REF_SCHEMA = {
  type: 'string',
  minLength: 1,
  maxLength: 128,
  description: 'A contract name or address.',
} as const;

const NAME_SCHEMA = {
  type: 'string',
  pattern: CONTRACT_NAME_PATTERN,
  description: 'A letter, then up to 63 letters, digits, _ . -',
} as const;

const METHOD_SCHEMA = {
  type: 'string',
  minLength: 1,
  maxLength: 1024,
  description: 'A function name, or its full signature (transfer(address,uint256)) if overloaded.',
} as const;

const PARAMS_SCHEMA = {
  type: 'array',
  maxItems: 256,
  description: 'Arguments in order: strings or numbers; arrays for arrays and tuples.',
  // Any JSON per item: ethers checks each against the function's inputs (400 naming params),
  // and the framework's type coercion must not turn a one-item array into its item.
  items: {},
} as const;

const CALL_BODY_SCHEMA = {
  type: 'object',
  required: ['contract', 'method', 'params'],
  properties: { contract: CONTRACT_REF_SCHEMA, method: METHOD_SCHEMA, params: PARAMS_SCHEMA },
} as const;

const SENT_SCHEMA = {
  type: 'object',
  required: ['transactionHash', 'blockNumber', 'blockHash', 'status', 'from', 'to', 'gasUsed'],
  properties: {
    transactionHash: { type: 'string' },
    blockNumber: { type: 'integer' },
    blockHash: { type: 'string' },
    status: { type: 'integer', description: '1: executed.' },
    from: ADDRESS_SCHEMA,
    to: ADDRESS_SCHEMA,
    gasUsed: { type: 'string', description: 'Decimal.' },
    value: { type: 'string', description: 'Decimal wei sent along.' },
  },
} as const;

const CONTRACT_PARAM_SCHEMA = {
  type: 'object',
  required: ['contract'],
  properties: { contract: CONTRACT_REF_SCHEMA },
} as const;

export interface ContractDeps {
  registry: ContractRegistry;
  calls: ContractCalls;
  codeAtHead(address: Address): Promise<Uint8Array>;
}

interface CallBody {
  contract: string;
  method: string;
  params: unknown[];
}

export function contractResource({ registry, calls, codeAtHead }: ContractDeps): RestResource {
  return {
    name: 'contracts',
    description:
      'Named contracts by ABI: the identity registry, registered contracts and ABI files.',
    routes: [
      restRoute({
        method: 'GET',
        path: '/contracts',
        operationId: 'listContracts',
        summary: 'The named contracts: name, address (null for an ABI file without) and source.',
        response: dataEnvelope({
          type: 'array',
          items: {
            type: 'object',
            required: ['name', 'address', 'source'],
            properties: {
              name: { type: 'string' },
              address: { type: 'string', nullable: true },
              source: { type: 'string', enum: ['built-in', 'registered', 'file'] },
            },
          },
        }),
        handle: async () => ({
          data: (await registry.list()).map(({ name, address, source }) => ({
            name,
            address,
            source,
          })),
        }),
      }),
      restRoute<{ name: string; address: string; abi: unknown[] }>({
        method: 'POST',
        path: '/contracts',
        operationId: 'addContract',
        summary: 'Register (or re-register) a contract under a name, kept in the data directory.',
        body: {
          type: 'object',
          required: ['name', 'address', 'abi'],
          properties: { name: NAME_SCHEMA, address: ADDRESS_SCHEMA, abi: ABI_BODY_SCHEMA },
        },
        response: dataEnvelope({
          type: 'object',
          required: ['name', 'address', 'abi'],
          properties: { name: { type: 'string' }, address: ADDRESS_SCHEMA, abi: ABI_ANSWER_SCHEMA },
        }),
        errors: [409],
        handle: ({ body }) => {
          const added = registry.add(body.name, body.address, parseAbi(body.abi, 'abi'));
          return { data: { name: added.name, address: added.address, abi: shapeAbi(added.abi) } };
        },
      }),
      restRoute<unknown, { contract: string }>({
        method: 'GET',
        path: '/contracts/:contract',
        operationId: 'getContract',
        summary: 'The address and ABI of a contract, by name or address.',
        params: CONTRACT_PARAM_SCHEMA,
        response: dataEnvelope({
          type: 'object',
          required: ['address', 'abi'],
          properties: {
            address: {
              type: 'string',
              nullable: true,
              description: 'Checksummed; null for an ABI file that names no address.',
            },
            abi: ABI_ANSWER_SCHEMA,
          },
        }),
        errors: [404, 409],
        handle: async ({ params }) => {
          const contract = await registry.get(params.contract);
          return { data: { address: contract.address, abi: shapeAbi(contract.abi) } };
        },
      }),
      restRoute<{ address: string; abi: unknown[] }>({
        method: 'POST',
        path: '/contracts/exists',
        operationId: 'contractExists',
        summary: 'Whether code at address dispatches every function selector of abi.',
        body: {
          type: 'object',
          required: ['address', 'abi'],
          properties: { address: ADDRESS_SCHEMA, abi: ABI_BODY_SCHEMA },
        },
        response: dataEnvelope({
          type: 'object',
          required: ['exists'],
          properties: { exists: { type: 'boolean' } },
        }),
        handle: async ({ body }) => {
          const abi = parseAbi(body.abi, 'abi');
          const code = await codeAtHead(
            new Address(hexToBytes(getAddress(body.address) as PrefixedHexString)),
          );
          return { data: { exists: dispatchesAll(code, abi) } };
        },
      }),
      restRoute<CallBody>({
        method: 'POST',
        path: '/contracts/call',
        operationId: 'callContract',
        summary: 'Call a function (eth_call on the head state); answers the decoded results.',
        body: CALL_BODY_SCHEMA,
        response: dataEnvelope({
          type: 'array',
          description: 'One item per output: integers as decimal strings, addresses checksummed.',
          items: {},
        }),
        errors: [404, 409],
        handle: async ({ body }) => ({
          data: await calls.call(body.contract, body.method, body.params),
        }),
      }),
      restRoute<CallBody & { amountInWei: string | number }>({
        method: 'POST',
        path: '/contracts/send',
        operationId: 'sendContract',
        summary: 'Send a transaction to a function, signed by the node identity key; once mined.',
        body: {
          type: 'object',
          required: ['contract', 'method', 'params', 'amountInWei'],
          properties: {
            ...CALL_BODY_SCHEMA.properties,
            amountInWei: {
              description: 'Wei to send: a decimal or 0x string, or a number.',
              anyOf: [
                { type: 'string', pattern: '^(0x[0-9a-fA-F]+|[0-9]+)$' },
                { type: 'integer', minimum: 0 },
              ],
            },
          },
        },
        response: dataEnvelope({ type: 'array', items: SENT_SCHEMA }),
        errors: [404, 409],
        handle: async ({ body }) => ({
          data: [
            await calls.send(body.contract, body.method, body.params, parseWei(body.amountInWei)),
          ],
        }),
      }),
    ],
  };
}
