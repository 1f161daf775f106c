/** The txpool namespace: geth's views of the mempool. */
import { txpoolContent, txpoolInspect, txpoolStatus } from '../txpool/inspect.js';
import { defineMethod, type NamespaceModule } from '../rpc/registry.js';
import type { NodeServices } from './services.js';

export function txpoolNamespace({ pool }: NodeServices): NamespaceModule {
  return {
    namespace: 'txpool',
    access: 'public',
    methods: [
      defineMethod<[]>({ name: 'txpool_content', params: [], handler: () => txpoolContent(pool) }),
      defineMethod<[]>({ name: 'txpool_inspect', params: [], handler: () => txpoolInspect(pool) }),
      defineMethod<[]>({ name: 'txpool_status', params: [], handler: () => txpoolStatus(pool) }),
    ],
  };
}
