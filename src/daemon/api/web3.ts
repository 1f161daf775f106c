/** The web3 namespace: client version and Keccak-256. */
import { keccak256 } from '../crypto/wasm-crypto.js';
import { defineMethod, type NamespaceModule } from '../rpc/registry.js';
import { dataSchema } from './hex-schemas.js';

export function clientVersion(packageVersion: string): string {
  return `node-cli/v${packageVersion}/${process.platform}-${process.arch}/node${process.versions.node}`;
}

export function web3Namespace(packageVersion: string): NamespaceModule {
  const version = clientVersion(packageVersion);
  return {
    namespace: 'web3',
    access: 'public',
    methods: [
      defineMethod<[]>({ name: 'web3_clientVersion', params: [], handler: () => version }),
      defineMethod<[string]>({
        name: 'web3_sha3',
        params: [{ name: 'data', schema: dataSchema }],
        handler: ([data]) =>
          `0x${Buffer.from(keccak256(Buffer.from(data.slice(2), 'hex'))).toString('hex')}`,
      }),
    ],
  };
}
