/** The txpool namespace: geth's views of the mempool. */
import {
  txpoolContent,
  txpoolContentFrom,
  txpoolInspect,
  txpoolStatus,
} from '../txpool/inspect.js';
import { defineMethod, type NamespaceModule } from '../rpc/registry.js';
import { addressSchema } from './hex-schemas.js';
import type { NodeServices } from './services.js';

export function txpoolNamespace({ pool }: NodeServices): NamespaceModule {
  return {
    namespace: 'txpool',
    access: 'public',
    methods: [
      defineMethod<[]>({ name: 'txpool_content', params: [], handler: () => txpoolContent(pool) }),
      defineMethod<[string]>({
        name: 'txpool_contentFrom',
        params: [{ name: 'address', schema: addressSchema }],
        handler: ([sender]) => txpoolContentFrom(pool, sender.toLowerCase()),
      }),
      defineMethod<[]>({ name: 'txpool_inspect', params: [], handler: () => txpoolInspect(pool) }),
      defineMethod<[]>({ name: 'txpool_status', params: [], handler: () => txpoolStatus(pool) }),
    ],
  };
}
