/**
 * Typed wrappers over the account methods of the daemon: the personal namespace (which needs
 * the auth token, so use the client of `connectDaemon`), eth_accounts and eth_sendTransaction,
 * and waiting for a transaction's receipt.
 */
import { ServerError } from '../shared/errors.js';
import { toQuantity, type EthClient, type Hex, type Receipt } from './eth-client.js';
import type { HttpRpcClient } from './http-rpc-client.js';

/** A transaction for a node account to sign (eth_sendTransaction); absent fields are filled. */
export interface NodeTransactionRequest {
  from: Hex;
  /** Absent to create a contract. */
  to?: Hex;
  value?: bigint;
  data?: Hex;
  gas?: bigint;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  nonce?: number;
}

/** Options of {@link waitForReceipt}. */
export interface WaitForReceiptOptions {
  /** Give up after this long (default 60 s). */
  timeoutMs?: number;
  /** Between two polls (default 250 ms; blocks come every second by default). */
  intervalMs?: number;
}

/**
 * The account methods of one node.
 *
 * @example
 * const accounts = new AccountsClient(connectDaemon(dataDir).rpc);
 * const address = await accounts.newAccount('passphrase');
 * await accounts.unlockAccount(address, 'passphrase', 60);
 */
export class AccountsClient {
  constructor(private readonly rpc: HttpRpcClient) {}

  /** Accounts the node manages (personal_listAccounts). */
  listAccounts(): Promise<Hex[]> {
    return this.rpc.call<Hex[]>('personal_listAccounts');
  }

  /** Creates an account whose key file is encrypted with `passphrase`; returns its address. */
  newAccount(passphrase: string): Promise<Hex> {
    return this.rpc.call<Hex>('personal_newAccount', [passphrase]);
  }

  /** Stores `privateKey` (0x and 64 hex digits) encrypted with `passphrase`; returns the address. */
  importRawKey(privateKey: Hex, passphrase: string): Promise<Hex> {
    return this.rpc.call<Hex>('personal_importRawKey', [privateKey, passphrase]);
  }

  /** Unlocks `address` for `seconds` (default 300 on the node; 0 until the daemon exits). */
  async unlockAccount(address: Hex, passphrase: string, seconds?: number): Promise<void> {
    const params: unknown[] = [address, passphrase];
    if (seconds !== undefined) params.push(seconds);
    await this.rpc.call<boolean>('personal_unlockAccount', params);
  }

  /** Locks `address` at once: the node forgets its key. */
  async lockAccount(address: Hex): Promise<void> {
    await this.rpc.call<boolean>('personal_lockAccount', [address]);
  }

  /** Sends a transaction from an unlocked node account; returns its hash. */
  sendTransaction(request: NodeTransactionRequest): Promise<Hex> {
    const wire: Record<string, string> = { from: request.from };
    if (request.to !== undefined) wire.to = request.to;
    if (request.data !== undefined) wire.data = request.data;
    const quantities = {
      value: request.value,
      gas: request.gas,
      gasPrice: request.gasPrice,
      maxFeePerGas: request.maxFeePerGas,
      maxPriorityFeePerGas: request.maxPriorityFeePerGas,
      nonce: request.nonce,
    };
    for (const [key, value] of Object.entries(quantities)) {
      if (value !== undefined) wire[key] = toQuantity(value);
    }
    return this.rpc.call<Hex>('eth_sendTransaction', [wire]);
  }
}

/**
 * Polls for the receipt of `hash` until it exists.
 *
 * @throws ServerError naming the hash when `timeoutMs` passes first.
 */
export async function waitForReceipt(
  eth: EthClient,
  hash: Hex,
  options: WaitForReceiptOptions = {},
): Promise<Receipt> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    const receipt = await eth.getTransactionReceipt(hash);
    if (receipt) return receipt;
    if (Date.now() > deadline) {
      throw new ServerError(
        `no receipt for ${hash} after ${options.timeoutMs ?? 60_000} ms; it may still be mined: see "node-cli tx receipt ${hash}"`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 250));
  }
}
