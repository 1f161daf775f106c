/**
 * eth_simulateV1 (execution-apis): blocks of calls simulated on top of a block, as geth runs
 * them (`chain/simulate.ts`). `traceTransfers` and `returnFullTransactions` are refused rather
 * than half done.
 */
import { UnsupportedError } from '../../shared/errors.js';
import type { SimulatedBlock, SimulatedCall } from '../chain/simulate.js';
import type { StateOverrides } from '../chain/state-overrides.js';
import { checkStateOverrides } from '../chain/state-overrides.js';
import { callerOf, defineMethod, type MethodDefinition } from '../rpc/registry.js';
import { requireBlockNumber, type BlockSelector } from './block-selector.js';
import {
  blockOverridesSchema,
  callObjectSchema,
  stateOverridesSchema,
  toBlockOverrides,
  toCallRequest,
  type BlockOverridesJson,
  type CallObject,
} from './call-request.js';
import { formatBlockOutline, formatLog, hex, quantity, type FormatOptions } from './formatters.js';
import { blockSelectorSchema, booleanSchema } from './hex-schemas.js';
import type { ChainView } from './services.js';

interface SimulatePayload {
  blockStateCalls: Array<{
    blockOverrides?: BlockOverridesJson;
    stateOverrides?: StateOverrides;
    calls?: CallObject[];
  }>;
  validation?: boolean;
  traceTransfers?: boolean;
  returnFullTransactions?: boolean;
}

const simulatePayloadSchema = {
  type: 'object',
  properties: {
    blockStateCalls: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          blockOverrides: blockOverridesSchema,
          stateOverrides: stateOverridesSchema,
          calls: { type: 'array', items: callObjectSchema, description: 'an array of calls' },
        },
        additionalProperties: false,
        description: 'a block of calls {blockOverrides, stateOverrides, calls}',
      },
      description: 'an array of blocks of calls',
    },
    validation: booleanSchema,
    traceTransfers: booleanSchema,
    returnFullTransactions: booleanSchema,
  },
  required: ['blockStateCalls'],
  additionalProperties: false,
  description: 'a simulation {blockStateCalls, validation, traceTransfers, returnFullTransactions}',
};

function callJson(call: SimulatedCall): Record<string, unknown> {
  return {
    returnData: hex(call.returnData),
    logs: call.logs.map(formatLog),
    gasUsed: quantity(call.gasUsed),
    status: quantity(call.status),
    ...(call.error === undefined ? {} : { error: call.error }),
  };
}

function blockJson(block: SimulatedBlock, format: FormatOptions): Record<string, unknown> {
  return { ...formatBlockOutline(block.outline, format), calls: block.calls.map(callJson) };
}

export function ethSimulateMethods({ chain, format }: ChainView): MethodDefinition[] {
  return [
    defineMethod<[SimulatePayload, BlockSelector?]>({
      name: 'eth_simulateV1',
      params: [
        { name: 'payload', schema: simulatePayloadSchema },
        { name: 'block', schema: blockSelectorSchema, optional: true },
      ],
      handler: async ([payload, selector], context) => {
        const blocks = payload.blockStateCalls.map((entry) => {
          if (entry.stateOverrides !== undefined) checkStateOverrides(entry.stateOverrides);
          return {
            blockOverrides:
              entry.blockOverrides === undefined
                ? undefined
                : toBlockOverrides(entry.blockOverrides),
            stateOverrides: entry.stateOverrides,
            calls: (entry.calls ?? []).map(toCallRequest),
          };
        });
        const simulated = await chain.simulate(
          { blocks, validation: payload.validation === true },
          requireBlockNumber(chain, selector),
          callerOf(context),
        );
        // Refused once the simulation has run: a simulation geth refuses (funds, nonces, order)
        // gets geth's code for it, whether or not it asked for these.
        for (const option of ['traceTransfers', 'returnFullTransactions'] as const) {
          if (payload[option] === true) {
            throw new UnsupportedError(`eth_simulateV1: ${option} is not supported by this node`);
          }
        }
        return simulated.map((block) => blockJson(block, format));
      },
    }),
  ];
}
