/**
 * Every JSON-RPC namespace the node has, built over its services: the one list the composition
 * root registers (`--evm.rpc.api` then picks which are served), and that tests read to reach
 * every method.
 */
import { PACKAGE_VERSION } from '../../shared/version.js';
import type { AccountManager } from '../accounts/account-manager.js';
import { TransactionSigner } from '../accounts/transaction-signer.js';
import type { NodeKey } from '../datadir/node-key.js';
import type { NamespaceModule } from '../rpc/registry.js';
import { adminNamespace } from './admin.js';
import { debugLoggingMethods } from './debug-logging.js';
import { debugRuntimeMethods } from './debug-runtime.js';
import { devNamespace } from './dev-methods.js';
import { debugTraceMethods } from './debug-trace.js';
import { ethAccountsNamespace } from './eth-accounts.js';
import { ethFillTransactionMethod } from './eth-fill-transaction.js';
import { ethFilterMethods } from './eth-filters.js';
import { ethLogMethods } from './eth-logs.js';
import { ethSubscribeMethods } from './eth-subscribe.js';
import { ethNamespace } from './eth.js';
import { FeeOracle } from './fee-oracle.js';
import { minerConfigMethods } from './miner-config.js';
import { minerNamespace } from './miner.js';
import { netNamespace } from './net.js';
import { personalNamespace } from './personal.js';
import type { NodeServices } from './services.js';
import { txpoolNamespace } from './txpool.js';
import { clientVersion, web3Namespace } from './web3.js';
import { releaseMemory } from '../heavy-work-release.js';

/** The fee oracle and the signer of the node's accounts, shared by JSON-RPC and REST. */
export interface AccountSigning {
  fees: FeeOracle;
  signer: TransactionSigner;
}

export function accountSigning(services: NodeServices, accounts: AccountManager): AccountSigning {
  const fees = new FeeOracle(services.chain, services.bus);
  const signer = new TransactionSigner(
    {
      common: services.chain.common,
      pool: services.pool,
      nextBaseFee: () => services.chain.nextBaseFee(),
      suggestedTip: () => fees.suggestedTip(),
      impersonating: (address) => services.dev.impersonation.covers(address),
      settled: (hashHex) => services.acknowledgement.settled(hashHex),
    },
    accounts,
  );
  return { fees, signer };
}

export function namespaceModules(
  services: NodeServices,
  accounts: AccountManager,
  nodeKey: NodeKey,
  { fees, signer }: AccountSigning = accountSigning(services, accounts),
): NamespaceModule[] {
  const chainId = services.chain.chainId;
  return [
    web3Namespace(PACKAGE_VERSION),
    adminNamespace({
      view: services,
      dataDir: services.layout.root,
      clientVersion: clientVersion(PACKAGE_VERSION),
      nodeKey,
    }),
    netNamespace({ networkId: () => chainId.toString(), peerCount: () => 0 }),
    ethNamespace(services, fees, [
      ...ethLogMethods(services.logs.query),
      ...ethFilterMethods(services.logs.filters, services.logs.query),
      ...ethSubscribeMethods(services, {
        maxPerConnection: services.config['json-rpc.ws-max-subscriptions'],
      }),
      ethFillTransactionMethod(services, signer),
    ]),
    txpoolNamespace(services),
    ethAccountsNamespace(accounts, signer),
    personalNamespace(accounts, signer),
    minerNamespace(minerConfigMethods(services)),
    {
      namespace: 'debug',
      access: 'private',
      methods: [
        ...debugRuntimeMethods(
          services.layout.profilesDir,
          releaseMemory({ os: services.osMemory }),
        ),
        ...debugLoggingMethods(services.logger),
        ...debugTraceMethods(services),
      ],
    },
    devNamespace(services.dev, services.config['dev.methods'] ?? services.config.dev),
  ];
}
