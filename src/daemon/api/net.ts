/**
 * The net namespace. A single-validator node has no peers: it listens for clients, and
 * `net_peerCount` truthfully answers 0.
 */
import { defineMethod, type NamespaceModule } from '../rpc/registry.js';

export interface NetInfo {
  /** Network id, the chain id in decimal (net_version is a decimal string by convention). */
  networkId(): string;
  peerCount(): number;
}

export function netNamespace(info: NetInfo): NamespaceModule {
  return {
    namespace: 'net',
    access: 'public',
    methods: [
      defineMethod<[]>({ name: 'net_version', params: [], handler: () => info.networkId() }),
      defineMethod<[]>({ name: 'net_listening', params: [], handler: () => true }),
      defineMethod<[]>({ name: 'net_peerCount', params: [], handler: () => info.peerCount() }),
    ],
  };
}
