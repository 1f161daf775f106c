/**
 * The tracing methods of the debug namespace (geth's `debug_trace*`, with its tracers and
 * shapes) and the raw getters of execution-apis. Traces run on trace threads
 * (`trace/trace-threads.ts`); the raw getters read the committed chain here.
 */
import { createBlockFromRLP } from '@ethereumjs/block';
import { hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import type { TransactionType } from '@ethereumjs/tx';
import { encodeReceipt } from '@ethereumjs/vm';
import { requestData } from '../call-threads/protocol.js';
import type { ChainReader } from '../chain/chain-reader.js';
import type { StoredBlock } from '../chain/types.js';
import { InvalidInputError, NotFoundError } from '../../shared/errors.js';
import type { JsonSchema } from '../rpc/params.js';
import { defineMethod, type MethodDefinition } from '../rpc/registry.js';
import { TRACE_THREAD_ENTRY } from '../thread-entries.js';
import { refuseGenesis } from '../trace/replay.js';
import type { StateOverrides } from '../chain/state-overrides.js';
import { traceOptions, type TraceConfig } from '../trace/trace-options.js';
import type { TraceJob } from '../trace/trace-protocol.js';
import { TraceThreads } from '../trace/trace-threads.js';
import { resolveBlockNumber, type BlockSelector } from './block-selector.js';
import {
  blockOverridesSchema,
  callObjectSchema,
  stateOverridesSchema,
  toOverriddenCallRequest,
  type BlockOverridesJson,
  type CallObject,
} from './call-request.js';
import { hex } from './formatters.js';
import {
  blockNumberOrTagSchema,
  blockSelectorSchema,
  dataSchema,
  hash32Schema,
} from './hex-schemas.js';
import type { NodeServices } from './services.js';

const flag = { type: 'boolean' };

/** geth's TraceConfig; `debug_traceCall` adds `stateOverrides` (and `blockOverrides`). */
const traceConfigSchema: JsonSchema = {
  type: 'object',
  properties: {
    tracer: { type: 'string' },
    tracerConfig: { type: 'object' },
    timeout: { type: 'string' },
    disableStack: flag,
    disableStorage: flag,
    enableMemory: flag,
    enableReturnData: flag,
    debug: flag,
    limit: { type: 'integer', minimum: 0 },
    reexec: { type: 'integer', minimum: 0 },
    stateOverrides: stateOverridesSchema,
    blockOverrides: blockOverridesSchema,
  },
  additionalProperties: false,
  description:
    'a trace config object {tracer, tracerConfig, timeout, disableStack, disableStorage, enableMemory, enableReturnData, limit}',
};

type TraceCallConfig = TraceConfig & {
  stateOverrides?: StateOverrides;
  blockOverrides?: BlockOverridesJson;
};

const configParam = { name: 'config', schema: traceConfigSchema, optional: true };

const bytes = (value: string) => hexToBytes(value as PrefixedHexString);

function storedBlock(chain: ChainReader, selector: BlockSelector): StoredBlock {
  const number = resolveBlockNumber(chain, selector);
  const stored = number === undefined ? undefined : chain.getBlockByNumber(number);
  if (stored === undefined) {
    // geth's wording for a number past the head: "block #N not found".
    const isNumber = typeof selector === 'string' && /^0x[0-9a-fA-F]{1,16}$/.test(selector);
    const named = isNumber ? `#${BigInt(selector)}` : JSON.stringify(selector);
    throw new NotFoundError(`block ${named} not found`);
  }
  return stored;
}

/** Checks a block-tracing config: the call-only fields have no place in it. */
function blockTraceOptions(config: TraceCallConfig | undefined) {
  if (config?.stateOverrides !== undefined || config?.blockOverrides !== undefined) {
    throw new InvalidInputError(
      'invalid config: stateOverrides and blockOverrides apply to debug_traceCall only',
    );
  }
  return traceOptions(config);
}

export function debugTraceMethods(services: NodeServices): MethodDefinition[] {
  const chain = services.chain;
  const threads = new TraceThreads({
    entry: TRACE_THREAD_ENTRY,
    data: {
      dataDir: services.layout.root,
      sharedHead: chain.sharedHead.buffer,
      chain: chain.parameters,
      resultMaxBytes: services.config['json-rpc.trace-result-max-size'],
    },
    maxThreads: services.config['json-rpc.trace-threads'],
    maxQueued: services.config['json-rpc.trace-queue'],
    logger: services.logger,
  });
  const trace = (job: TraceJob, config: TraceCallConfig | undefined) =>
    threads.run(job, blockTraceOptions(config));
  const traceBlock = (stored: StoredBlock, config: TraceCallConfig | undefined) => {
    refuseGenesis(stored.number);
    return trace({ kind: 'block', number: stored.number }, config);
  };

  return [
    defineMethod<[string, TraceCallConfig?]>({
      name: 'debug_traceTransaction',
      params: [{ name: 'transaction hash', schema: hash32Schema }, configParam],
      handler: ([hash, config]) => {
        const found = chain.getTransaction(bytes(hash));
        if (found === undefined) throw new NotFoundError('transaction not found');
        return trace({ kind: 'block', number: found.blockNumber, only: found.index }, config);
      },
    }),
    defineMethod<[string, TraceCallConfig?]>({
      name: 'debug_traceBlockByNumber',
      params: [{ name: 'block number', schema: blockNumberOrTagSchema }, configParam],
      handler: ([selector, config]) => traceBlock(storedBlock(chain, selector), config),
    }),
    defineMethod<[string, TraceCallConfig?]>({
      name: 'debug_traceBlockByHash',
      params: [{ name: 'block hash', schema: hash32Schema }, configParam],
      handler: ([hash, config]) => traceBlock(storedBlock(chain, hash), config),
    }),
    defineMethod<[string, TraceCallConfig?]>({
      name: 'debug_traceBlock',
      params: [{ name: 'block RLP', schema: dataSchema }, configParam],
      handler: ([rlp, config]) => {
        let block;
        try {
          block = createBlockFromRLP(bytes(rlp), { common: chain.common });
        } catch (error) {
          throw new InvalidInputError(`could not decode block: ${(error as Error).message}`);
        }
        refuseGenesis(block.header.number);
        const parentHash = block.header.parentHash;
        if (chain.getBlockByHash(parentHash) === undefined) {
          throw new NotFoundError(`parent ${hex(parentHash)} not found`);
        }
        return trace({ kind: 'blockRlp', rlp: bytes(rlp) }, config);
      },
    }),
    defineMethod<[CallObject, BlockSelector?, TraceCallConfig?]>({
      name: 'debug_traceCall',
      params: [
        { name: 'transaction', schema: callObjectSchema },
        { name: 'block', schema: blockSelectorSchema, optional: true },
        configParam,
      ],
      handler: ([call, selector, config]) => {
        const { stateOverrides, blockOverrides, ...rest } = config ?? {};
        const request = toOverriddenCallRequest(call, stateOverrides, blockOverrides);
        const stored = storedBlock(chain, selector ?? 'latest');
        return threads.run(
          { kind: 'call', request: requestData(request), blockNumber: stored.number },
          traceOptions(rest),
        );
      },
    }),
    defineMethod<[BlockSelector]>({
      name: 'debug_getRawHeader',
      params: [{ name: 'block', schema: blockSelectorSchema }],
      handler: ([selector]) => hex(storedBlock(chain, selector).block.header.serialize()),
    }),
    defineMethod<[BlockSelector]>({
      name: 'debug_getRawBlock',
      params: [{ name: 'block', schema: blockSelectorSchema }],
      handler: ([selector]) => hex(storedBlock(chain, selector).block.serialize()),
    }),
    defineMethod<[BlockSelector]>({
      name: 'debug_getRawReceipts',
      params: [{ name: 'block', schema: blockSelectorSchema }],
      handler: ([selector]) => {
        const stored = storedBlock(chain, selector);
        return (chain.getBlockReceipts(stored.number) ?? []).map((receipt) =>
          hex(
            encodeReceipt(
              {
                status: receipt.status,
                cumulativeBlockGasUsed: receipt.cumulativeGasUsed,
                bitvector: receipt.logsBloom,
                logs: receipt.logs.map((log) => [log.address.bytes, log.topics, log.data]),
              },
              receipt.type as TransactionType,
            ),
          ),
        );
      },
    }),
    defineMethod<[string]>({
      name: 'debug_getRawTransaction',
      params: [{ name: 'transaction hash', schema: hash32Schema }],
      handler: ([hash]) => {
        const found = chain.getTransaction(bytes(hash));
        return found === undefined ? null : hex(found.tx.serialize());
      },
    }),
    defineMethod<[]>({ name: 'debug_getBadBlocks', params: [], handler: () => [] }),
  ];
}
