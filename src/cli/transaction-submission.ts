/**
 * Sending a transaction and waiting for its outcome, shared by `tx send`, `tx cancel` and
 * `tx speed-up`: a node account signs with eth_sendTransaction, a key file signs here (ethers,
 * loaded only then) and the raw transaction is sent; then the receipt, the confirmations, and
 * the result every one of them prints with `--json`.
 */
import { Errors } from '@oclif/core';
import type { Wallet } from 'ethers';
import { AccountsClient, waitForReceipt } from '../client/accounts-client.js';
import type { DaemonConnection } from '../client/daemon-connection.js';
import { EthClient, toQuantity, type Hex, type Receipt } from '../client/eth-client.js';
import { readPassphrase } from './passphrase-input.js';
import { KEY_FILE_MAX_BYTES, readBoundedTextSync } from '../shared/bounded-read.js';
import { withChecksummedAddresses } from './json-conventions.js';

/** The fields of a transaction; fees absent are filled as the node would. */
export interface TransactionFields {
  to?: Hex;
  value: bigint;
  data?: Hex;
  gas: bigint;
  nonce?: number;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
}

/** Who signs: a node account (`wallet` absent) or a key file opened here. */
export interface Signer {
  address: Hex;
  wallet?: Wallet;
}

/** What `--json` prints for a sent transaction (quantities 0x-hex, addresses checksummed). */
export interface SentTransactionResult {
  hash: Hex;
  from?: Hex;
  /** Null for a contract creation. */
  to?: Hex | null;
  /** Set for a contract creation. */
  contractAddress?: Hex | null;
  blockNumber?: string;
  blockHash?: Hex;
  /** 0x1 success, 0x0 failure (reverted or out of gas). */
  status?: string;
  gasUsed?: string;
  /** Blocks on top of and including the transaction's when the command returned. */
  confirmations?: number;
}

const SPINNER_FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const POLL_MS = 250;

/** The signer of `--from` or `--keystore` (with its passphrase from the file or a prompt). */
export async function openSigner(flags: {
  from?: Hex;
  keystore?: string;
  'password-file'?: string;
}): Promise<Signer> {
  if (flags.keystore === undefined) return { address: flags.from as Hex };
  const path = flags.keystore;
  let json: string;
  try {
    json = readBoundedTextSync(path, KEY_FILE_MAX_BYTES);
  } catch (error) {
    throw new Errors.CLIError(`cannot read the key file ${path}: ${(error as Error).message}`, {
      exit: 1,
    });
  }
  const passphrase = await readPassphrase({
    passwordFile: flags['password-file'],
    message: `Passphrase of ${path}`,
  });
  // ethers only for key files: its module graph would slow every other send.
  const { Wallet } = await import('ethers');
  try {
    const wallet = new Wallet((await Wallet.fromEncryptedJson(json, passphrase)).privateKey);
    return { address: wallet.address as Hex, wallet };
  } catch (error) {
    throw new Errors.CLIError(`cannot open the key file ${path}: ${(error as Error).message}`, {
      exit: 1,
    });
  }
}

/** Signs and sends; resolves to the hash the node accepted. */
export async function submitTransaction(
  connection: DaemonConnection,
  signer: Signer,
  fields: TransactionFields,
): Promise<Hex> {
  const eth = new EthClient(connection.rpc);
  if (signer.wallet === undefined) {
    return new AccountsClient(connection.rpc).sendTransaction({ from: signer.address, ...fields });
  }
  return eth.sendRawTransaction(await signLocally(connection, eth, signer.wallet, fields));
}

/** Fills nonce and fees as the node would for eth_sendTransaction, and signs with ethers. */
async function signLocally(
  connection: DaemonConnection,
  eth: EthClient,
  wallet: Wallet,
  fields: TransactionFields,
): Promise<Hex> {
  const chainId = await eth.chainId();
  const nonce = fields.nonce ?? (await eth.getTransactionCount(wallet.address as Hex, 'pending'));
  const base = {
    to: fields.to,
    value: fields.value,
    data: fields.data,
    gasLimit: fields.gas,
    nonce,
    chainId,
  };
  if (fields.gasPrice !== undefined) {
    return (await wallet.signTransaction({ ...base, type: 0, gasPrice: fields.gasPrice })) as Hex;
  }
  const tip =
    fields.maxPriorityFeePerGas ??
    BigInt(await connection.rpc.call<string>('eth_maxPriorityFeePerGas'));
  const maxFee =
    fields.maxFeePerGas ?? 2n * ((await eth.getBlock('latest'))?.baseFeePerGas ?? 0n) + tip;
  return (await wallet.signTransaction({
    ...base,
    type: 2,
    maxPriorityFeePerGas: tip,
    maxFeePerGas: maxFee,
  })) as Hex;
}

/**
 * Waits for the receipt and then until `confirmations` blocks (the transaction's included)
 * exist, with a spinner on a terminal's stderr.
 */
export async function awaitReceipt(
  connection: DaemonConnection,
  hash: Hex,
  options: { confirmations: number; timeoutSeconds: number; quiet: boolean },
): Promise<{ receipt: Receipt; confirmations: number }> {
  const eth = new EthClient(connection.rpc);
  const deadline = Date.now() + options.timeoutSeconds * 1000;
  const stopSpinner = options.quiet ? () => undefined : startSpinner(`waiting for ${hash}`);
  try {
    const receipt = await waitForReceipt(eth, hash, { timeoutMs: options.timeoutSeconds * 1000 });
    let confirmations = Number((await eth.blockNumber()) - receipt.blockNumber + 1n);
    while (confirmations < options.confirmations) {
      if (Date.now() > deadline) {
        throw new Errors.CLIError(
          `${hash} is in block ${receipt.blockNumber} with ${confirmations} of ${options.confirmations} confirmations after ${options.timeoutSeconds} s; raise --timeout`,
          { exit: 1 },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      confirmations = Number((await eth.blockNumber()) - receipt.blockNumber + 1n);
    }
    return { receipt, confirmations };
  } finally {
    stopSpinner();
  }
}

/** The `--json` result of a mined transaction. */
export function minedResult(
  hash: Hex,
  receipt: Receipt,
  confirmations: number,
): SentTransactionResult {
  return {
    hash,
    ...withChecksummedAddresses({
      from: receipt.from,
      to: receipt.to,
      contractAddress: receipt.contractAddress,
    }),
    blockNumber: toQuantity(receipt.blockNumber),
    blockHash: receipt.blockHash,
    status: toQuantity(receipt.status),
    gasUsed: toQuantity(receipt.gasUsed),
    confirmations,
  };
}

/** A spinner on stderr while waiting, only on a terminal; returns the function that clears it. */
function startSpinner(text: string): () => void {
  if (!process.stderr.isTTY) return () => undefined;
  let frame = 0;
  const timer = setInterval(() => {
    process.stderr.write(`\r${SPINNER_FRAMES[frame++ % SPINNER_FRAMES.length]} ${text}`);
  }, 80);
  return () => {
    clearInterval(timer);
    process.stderr.write('\r\x1b[2K');
  };
}
