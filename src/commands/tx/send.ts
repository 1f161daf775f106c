import { readFile } from 'node:fs/promises';
import { Errors, Flags } from '@oclif/core';
import type { Wallet } from 'ethers';
import { NodeCommand } from '../../cli/node-command.js';
import { parseAddress } from '../../cli/chain-args.js';
import { receiptLines } from '../../cli/chain-display.js';
import { passwordFileFlag, readPassphrase } from '../../cli/passphrase-input.js';
import { AccountsClient, waitForReceipt } from '../../client/accounts-client.js';
import type { DaemonConnection } from '../../client/daemon-connection.js';
import { EthClient, toQuantity, type Hex } from '../../client/eth-client.js';
import { failureReason } from '../../client/transaction-failure.js';
import { UNIT_DECIMALS, parseUnits } from '../../shared/units.js';

export interface TxSendResult {
  hash: Hex;
  from: Hex;
  /** Null for a contract creation. */
  to: Hex | null;
  /** Set for a contract creation. */
  contractAddress: Hex | null;
  blockNumber: string;
  blockHash: Hex;
  /** 1 success, 0 failure (reverted or out of gas). */
  status: number;
  gasUsed: string;
}

interface Fields {
  to?: Hex;
  value: bigint;
  data?: Hex;
  gas: bigint;
  nonce?: number;
  gasPrice?: bigint;
}

const AMOUNT = /^(\d+(?:\.\d+)?)\s*(wei|gwei|ether|eth)?$/i;
const SPINNER_FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** "1.5ether", "2 gwei" or a plain number of wei. */
function parseAmount(text: string): bigint {
  const match = AMOUNT.exec(text.trim());
  const amount = match && parseUnits(match[1], UNIT_DECIMALS[(match[2] ?? 'wei').toLowerCase()]);
  if (amount !== undefined && amount !== null) return amount;
  throw new Errors.CLIError(
    `invalid amount "${text}": expected wei, or a number with a unit (wei, gwei, ether), e.g. 1.5ether`,
    { exit: 2 },
  );
}

const amountFlag = Flags.custom<bigint>({ parse: async (input) => parseAmount(input) });
const addressFlag = Flags.custom<Hex>({ parse: async (input) => parseAddress(input) });

export default class TxSend extends NodeCommand {
  static override summary = 'Send a transaction and wait for its receipt.';
  static override description =
    'Sends value and/or data from an unlocked node account (--from, signed by the node with ' +
    'eth_sendTransaction) or from a key file (--keystore, signed here and sent raw). Gas is ' +
    'estimated unless --gas is given; fees follow EIP-1559 unless --gas-price asks for a ' +
    'legacy transaction. Waits until the transaction is in a block and prints hash, block and ' +
    'status. A transaction that fails on chain (status 0) exits 1 with its revert reason, found by ' +
    'replaying the call on the state before its block.';
  static override examples = [
    '<%= config.bin %> tx send --from 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 --to 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 --value 1.5ether',
    '<%= config.bin %> tx send --keystore ./key.json --password-file ./pass.txt --to 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 --value 20gwei --json',
    '<%= config.bin %> tx send --from 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 --data 0x6080604052348015600f57600080fd5b50',
  ];
  static override flags = {
    from: addressFlag({
      description: 'Unlocked node account to send from.',
      exactlyOne: ['from', 'keystore'],
    }),
    keystore: Flags.string({
      description: 'Key file (v3 JSON) to sign with instead of a node account.',
      exactlyOne: ['from', 'keystore'],
    }),
    'password-file': passwordFileFlag,
    to: addressFlag({ description: 'Recipient; omit to create a contract from --data.' }),
    value: amountFlag({
      description: 'Value to send: wei, or with a unit (e.g. 1.5ether, 20gwei).',
    }),
    data: Flags.string({ description: 'Call data or contract init code (0x-hex).' }),
    gas: Flags.integer({ description: 'Gas limit (default: estimated by the node).', min: 21000 }),
    nonce: Flags.integer({ description: 'Nonce; reuse a pending one to replace it.', min: 0 }),
    'gas-price': amountFlag({
      description: 'Legacy gas price (e.g. 2gwei) instead of EIP-1559 fees.',
    }),
    timeout: Flags.integer({
      description: 'Seconds to wait for the receipt.',
      default: 60,
      min: 1,
    }),
  };

  async run(): Promise<TxSendResult> {
    const { flags } = await this.parse(TxSend);
    if (flags.data !== undefined && !/^0x([0-9a-fA-F]{2})*$/.test(flags.data)) {
      this.usageError(
        `invalid --data "${flags.data}": expected 0x followed by an even number of hex digits`,
      );
    }
    if (flags.to === undefined && flags.data === undefined) {
      this.usageError('nothing to send: give --to (and --value) or --data to create a contract');
    }
    const connection = this.connectDaemon(flags);
    try {
      const eth = new EthClient(connection.rpc);
      const wallet =
        flags.keystore === undefined
          ? undefined
          : await this.openKeyFile(flags.keystore, flags['password-file']);
      const from = (wallet?.address ?? flags.from) as Hex;
      const request = {
        to: flags.to,
        value: flags.value ?? 0n,
        data: flags.data as Hex | undefined,
      };
      const fields: Fields = {
        ...request,
        gas:
          flags.gas === undefined
            ? await estimateGas(connection, from, request)
            : BigInt(flags.gas),
        nonce: flags.nonce,
        gasPrice: flags['gas-price'],
      };
      const hash = wallet
        ? await eth.sendRawTransaction(await signLocally(connection, eth, wallet, fields))
        : await new AccountsClient(connection.rpc).sendTransaction({ from, ...fields });
      const stopSpinner = this.jsonEnabled()
        ? () => undefined
        : startSpinner(`waiting for ${hash} to be mined`);
      const receipt = await waitForReceipt(eth, hash, { timeoutMs: flags.timeout * 1000 }).finally(
        stopSpinner,
      );
      for (const line of receiptLines(receipt)) this.log(line);
      if (receipt.status === 0) {
        const reason = await failureReason(connection.rpc, { from, ...fields }, receipt);
        this.error(`transaction ${hash} failed in block ${receipt.blockNumber}: ${reason}`, {
          exit: 1,
        });
      }
      return {
        hash,
        from: receipt.from,
        to: receipt.to,
        contractAddress: receipt.contractAddress,
        blockNumber: receipt.blockNumber.toString(),
        blockHash: receipt.blockHash,
        status: receipt.status,
        gasUsed: receipt.gasUsed.toString(),
      };
    } finally {
      await connection.close();
    }
  }

  private async openKeyFile(path: string, passwordFile: string | undefined): Promise<Wallet> {
    const json = await readFile(path, 'utf8').catch((error: Error) => {
      throw new Errors.CLIError(`cannot read the key file ${path}: ${error.message}`, { exit: 1 });
    });
    const passphrase = await readPassphrase({ passwordFile, message: `Passphrase of ${path}` });
    // ethers only for key files: its module graph would slow every other send.
    const { Wallet } = await import('ethers');
    try {
      const wallet = await Wallet.fromEncryptedJson(json, passphrase);
      return new Wallet(wallet.privateKey);
    } catch (error) {
      throw new Errors.CLIError(`cannot open the key file ${path}: ${(error as Error).message}`, {
        exit: 1,
      });
    }
  }
}

async function estimateGas(
  connection: DaemonConnection,
  from: Hex,
  request: { to?: Hex; value: bigint; data?: Hex },
): Promise<bigint> {
  const call: Record<string, string> = { from, value: toQuantity(request.value) };
  if (request.to !== undefined) call.to = request.to;
  if (request.data !== undefined) call.data = request.data;
  return BigInt(await connection.rpc.call<string>('eth_estimateGas', [call]));
}

/** Fills nonce and fees as the node would for eth_sendTransaction, and signs with ethers. */
async function signLocally(
  connection: DaemonConnection,
  eth: EthClient,
  wallet: Wallet,
  fields: Fields,
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
  const tip = BigInt(await connection.rpc.call<string>('eth_maxPriorityFeePerGas'));
  const baseFee = (await eth.getBlock('latest'))?.baseFeePerGas ?? 0n;
  return (await wallet.signTransaction({
    ...base,
    type: 2,
    maxPriorityFeePerGas: tip,
    maxFeePerGas: 2n * baseFee + tip,
  })) as Hex;
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
