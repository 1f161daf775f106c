/**
 * miner_stop and miner_start: stop and resume block production, as geth's do for its miner.
 * The spec lists both as no-ops; they act here so an operator can take the node out of service
 * without stopping it (readiness then fails, see `metrics/readiness.ts`) and put it back.
 * Passed to `minerNamespace(extra)`; a restart always produces blocks again.
 */
import { defineMethod, type MethodDefinition } from '../rpc/registry.js';
import { uint64Schema } from './hex-schemas.js';

/** What the methods switch: the consensus engine and the record of why it stands still. */
export interface ProductionSwitch {
  /** Resolves once the block in flight (if any) is committed and no further one is started. */
  stop(by: string): Promise<void>;
  start(by: string): void;
}

export function minerProductionMethods(production: ProductionSwitch): MethodDefinition[] {
  return [
    defineMethod<[]>({
      name: 'miner_stop',
      params: [],
      handler: async () => {
        await production.stop('miner_stop');
        return null;
      },
    }),
    defineMethod<[string]>({
      // The thread count is accepted for geth's signature and has no meaning here.
      name: 'miner_start',
      params: [{ name: 'threads', schema: uint64Schema, optional: true }],
      handler: () => {
        production.start('miner_start');
        return null;
      },
    }),
  ];
}
