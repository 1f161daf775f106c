/**
 * The admin namespace's methods this node can answer truthfully: `admin_datadir`,
 * `admin_nodeInfo` and `admin_peers` (none: a single-validator chain has no peers).
 * `admin_addPeer` and the listener switches (`admin_startRPC`, ...) are "not supported"
 * (`unsupported.ts`): there is no peer-to-peer layer to add to, and listeners are set at start. The namespace is private (the auth token) and, as
 * in geth, served only when `--evm.rpc.api` names it.
 */
import { unprefixedHex } from '../chain/byte-strings.js';
import type { NodeKey } from '../datadir/node-key.js';
import { enodeUrl, nodeId, nodeRecord } from '../identity/node-record.js';
import { defineMethod, type NamespaceModule } from '../rpc/registry.js';
import { hex } from './formatters.js';
import type { ChainView } from './services.js';

/**
 * The chain's configuration in geth's genesis form: every fork this node runs is active from
 * the genesis (`chain/fork-config.ts`).
 */
function chainConfig(chainId: bigint): Record<string, unknown> {
  const fromGenesis = Object.fromEntries(
    [
      'homesteadBlock',
      'eip150Block',
      'eip155Block',
      'eip158Block',
      'byzantiumBlock',
      'constantinopleBlock',
      'petersburgBlock',
      'istanbulBlock',
      'berlinBlock',
      'londonBlock',
      'mergeNetsplitBlock',
      'shanghaiTime',
      'cancunTime',
      'pragueTime',
    ].map((fork) => [fork, 0]),
  );
  return { chainId: Number(chainId), ...fromGenesis, terminalTotalDifficulty: 0 };
}

export interface AdminFacts {
  view: ChainView;
  /** The data directory, absolute. */
  dataDir: string;
  /** What web3_clientVersion answers. */
  clientVersion: string;
  nodeKey: NodeKey;
}

export function adminNamespace({
  view,
  dataDir,
  clientVersion,
  nodeKey,
}: AdminFacts): NamespaceModule {
  const { chain } = view;
  return {
    namespace: 'admin',
    access: 'private',
    methods: [
      defineMethod<[]>({ name: 'admin_datadir', params: [], handler: () => dataDir }),
      defineMethod<[]>({ name: 'admin_peers', params: [], handler: () => [] }),
      defineMethod<[]>({
        name: 'admin_nodeInfo',
        params: [],
        handler: () => {
          const publicKey = nodeKey.publicKey;
          return {
            id: unprefixedHex(nodeId(publicKey)),
            name: clientVersion,
            enode: enodeUrl(publicKey),
            enr: nodeRecord(nodeKey.privateKey, publicKey),
            ip: '127.0.0.1',
            ports: { discovery: 0, listener: 0 },
            listenAddr: '',
            protocols: {
              eth: {
                network: Number(chain.chainId),
                genesis: hex(chain.genesisHash),
                config: chainConfig(chain.chainId),
                head: chain.head().hashHex,
              },
            },
          };
        },
      }),
    ],
  };
}
