/** Facts about the dev chain a fresh test daemon runs, and small helpers to drive it over RPC. */
import { Wallet, type BaseWallet, type TransactionRequest } from 'ethers';
import type { HttpRpcClient } from '../../src/client/http-rpc-client.js';
import { DEV_PRIVATE_KEYS } from '../../src/daemon/chain/genesis.js';
import { waitFor } from './processes.js';

/** Chain id of the dev chain. */
export const DEV_CHAIN_ID = 9000n;
/** Minimum gas price of the dev chain (1 gwei). */
export const MIN_GAS_PRICE = 1_000_000_000n;
/** Balance of each funded dev account at genesis (10 000 ether). */
export const DEV_BALANCE = 10_000n * 10n ** 18n;
/** keccak256 of the empty uncle list: the `sha3Uncles` geth gives after the merge. */
export const EMPTY_UNCLES_HASH =
  '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347';

/** An offline signer for dev account `index` (0 to 9). */
export function devWallet(index: number): Wallet {
  return new Wallet(DEV_PRIVATE_KEYS[index]);
}

/** Raw receipt as the node returns it. */
export type RawReceipt = Record<string, unknown> & {
  status: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
};

/** Signs a type-2 transaction with fees well above the dev chain's minimum. */
export function signDynamicFeeTx(
  wallet: BaseWallet,
  request: Omit<TransactionRequest, 'chainId' | 'type'> & { nonce: number },
): Promise<string> {
  return wallet.signTransaction({
    type: 2,
    chainId: DEV_CHAIN_ID,
    gasLimit: 21_000n,
    maxFeePerGas: 20n * MIN_GAS_PRICE,
    maxPriorityFeePerGas: MIN_GAS_PRICE,
    ...request,
  });
}

/** Polls eth_getTransactionReceipt until the receipt exists. */
export async function waitForReceipt(
  rpc: HttpRpcClient,
  hash: string,
  timeoutMs = 10_000,
): Promise<RawReceipt> {
  let receipt: RawReceipt | null = null;
  await waitFor(
    async () => {
      receipt = await rpc.call<RawReceipt | null>('eth_getTransactionReceipt', [hash]);
      return receipt !== null;
    },
    timeoutMs,
    `the receipt of ${hash}`,
  );
  return receipt as unknown as RawReceipt;
}

/** Sends a signed transaction and waits for its receipt. */
export async function sendAndWait(rpc: HttpRpcClient, raw: string): Promise<RawReceipt> {
  const hash = await rpc.call<string>('eth_sendRawTransaction', [raw]);
  return waitForReceipt(rpc, hash);
}

/** A daemon's authenticated JSON-RPC client (`TestDaemon.authedRpc`). */
interface WithAuthedRpc {
  authedRpc: HttpRpcClient;
}

/** Switches block production off through the dev methods: no automine, no mining interval. */
export async function stopMining(daemon: WithAuthedRpc): Promise<void> {
  await daemon.authedRpc.call('evm_setAutomine', [false]);
  await daemon.authedRpc.call('evm_setIntervalMining', [0]);
}

/** Switches block production back on: a block every `intervalMs` (the test daemons' 1 s). */
export async function resumeMining(daemon: WithAuthedRpc, intervalMs = 1000): Promise<void> {
  await daemon.authedRpc.call('evm_setIntervalMining', [intervalMs]);
}
