/**
 * The bodies of the REST interface (`/v1/api`), shared by the daemon that answers them and the
 * client that reads them. docs/rest.md describes each route.
 */

/** Names of registered contracts: a letter, then letters, digits, `_`, `-`, `.`; never an address. */
export const CONTRACT_NAME_PATTERN = '^[A-Za-z][A-Za-z0-9_.-]{0,63}$';

/** `GET /status/meta` → `{data: NodeMeta}`. */
export interface NodeMeta {
  nodeJsVersion: string;
  fileCount: number;
  peersCount: number;
  /** `service/v<version>/<platform>-<arch>/node-<Node.js version>`. */
  serviceNetworkNodeVersion: string;
  /** One array per resource, each route as `'<METHOD> => <path> (<handler>)'`. */
  apiRoutes: string[][];
  wsRoutes: string[][];
}

/** `POST /crypto/sign` → `{data: {signed: SignedContent}}`. */
export interface SignedContent {
  /** The signed JSON value, as given. */
  data: unknown;
  /** Address of the signing key, 0x and lower case. */
  signer: string;
  /** 65-byte `r ‖ s ‖ v` signature, 0x-hex, v 27 or 28. */
  signature: string;
  algorithm: string;
}

/** `POST /crypto/encrypt` → `{data: {signed: SealedContent}}`; `decrypt` takes it as `data`. */
export interface SealedContent {
  /** The eciesjs-format ciphertext, 0x-hex. */
  ciphertext: string;
  /** The node key it is encrypted to (33-byte compressed, 0x-hex). */
  publicKey: string;
  algorithm: string;
}

/** A message of `GET /ws/node`. */
export interface NodeBlockEvent {
  type: 'block';
  data: { number: number; hash: string; txCount: number; timestamp: number };
}

/** Every REST error body. */
export interface RestErrorBody {
  error: { code: number; message: string };
}

/** An ABI entry as the REST interface shows it (docs/rest.md, "Contracts"). */
export type RestAbiEntry = Record<string, unknown>;

/** `GET /contracts/:contract` → `{data: ContractInstance}`. */
export interface ContractInstance {
  /** Checksummed; null for an ABI file that names no address. */
  address: string | null;
  /** The entries in one inner array, as the spec's sample nests them. */
  abi: RestAbiEntry[][];
}

/** An item of `GET /contracts`. */
export interface ContractSummary {
  name: string;
  address: string | null;
  source: 'built-in' | 'registered' | 'file';
}

/** The item of `POST /contracts/send` → `{data: [SentTransaction]}`. */
export interface SentTransaction {
  transactionHash: string;
  blockNumber: number;
  blockHash: string;
  /** 1: executed (a reverted transaction is answered with an error instead). */
  status: number;
  /** The node identity address, lower case. */
  from: string;
  /** The contract, checksummed. */
  to: string;
  /** Decimal. */
  gasUsed: string;
  /** Decimal wei sent along. */
  value: string;
}
