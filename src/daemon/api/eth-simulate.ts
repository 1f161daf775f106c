/**
 * eth_simulateV1 (execution-apis): blocks of calls simulated on top of a block, as geth runs
 * them (`chain/simulate.ts`), with geth's `traceTransfers` (`chain/transfer-logs.ts`) and
 * `returnFullTransactions`: each call as its block's unsigned transaction, `from` its sender.
 */
import type { Common } from '@ethereumjs/common';
import { createTxFromRLP } from '@ethereumjs/tx';
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
import {
  formatBlockOutline,
  formatLog,
  formatTransaction,
  hex,
  locationInBlock,
  quantity,
  type FormatOptions,
} from './formatters.js';
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

/** A simulated block as geth answers it; `common` decodes its transactions when they are full. */
function blockJson(
  block: SimulatedBlock,
  format: FormatOptions,
  fullTransactionsWith: Common | undefined,
): Record<string, unknown> {
  const json = formatBlockOutline(block.outline, format);
  if (fullTransactionsWith !== undefined) {
    json.transactions = block.transactions.map(({ encoded, sender }, index) =>
      formatTransaction(
        createTxFromRLP(encoded, { common: fullTransactionsWith }),
        sender,
        locationInBlock(block.outline, index),
      ),
    );
  }
  return { ...json, calls: block.calls.map(callJson) };
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
          {
            blocks,
            validation: payload.validation === true,
            traceTransfers: payload.traceTransfers === true,
          },
          requireBlockNumber(chain, selector),
          callerOf(context),
        );
        const full = payload.returnFullTransactions === true ? chain.common : undefined;
        return simulated.map((block) => blockJson(block, format, full));
      },
    }),
  ];
}
