/**
 * The miner namespace (private). A BFT chain has no mining: the spec marks most methods as
 * no-ops and decisions §5 fixes their answers. `miner_setGasPrice` and `miner_setEtherbase`
 * act on the node's configuration and validator reward address.
 */
import { UnsupportedError } from '../../shared/errors.js';
import { defineMethod, type MethodDefinition, type NamespaceModule } from '../rpc/registry.js';
import { dataSchema, uint64Schema } from './hex-schemas.js';

/** Extra data is capped at 32 bytes (spec, Limits). */
const MAX_EXTRA_BYTES = 32;

export const minerNoOpMethods: readonly MethodDefinition[] = [
  defineMethod<[]>({ name: 'miner_getHashrate', params: [], handler: () => 0 }),
  defineMethod<[]>({ name: 'miner_stop', params: [], handler: () => null }),
  defineMethod<[string]>({
    name: 'miner_setGasLimit',
    params: [{ name: 'gasLimit', schema: uint64Schema }],
    handler: () => false,
  }),
  defineMethod<[string]>({
    name: 'miner_start',
    params: [{ name: 'threads', schema: uint64Schema, optional: true }],
    handler: () => {
      throw new UnsupportedError(
        'miner_start is not supported: blocks are produced by the BFT consensus engine',
      );
    },
  }),
  defineMethod<[string]>({
    name: 'miner_setExtra',
    params: [{ name: 'extra', schema: dataSchema }],
    handler: ([extra]) => {
      const size = (extra.length - 2) / 2;
      const detail =
        size > MAX_EXTRA_BYTES ? ` (and ${size} bytes exceed the ${MAX_EXTRA_BYTES}-byte cap)` : '';
      throw new UnsupportedError(
        `miner_setExtra is not supported: block extra data is set by the consensus engine${detail}`,
      );
    },
  }),
];

export function minerNamespace(extraMethods: readonly MethodDefinition[] = []): NamespaceModule {
  return { namespace: 'miner', access: 'private', methods: [...minerNoOpMethods, ...extraMethods] };
}
