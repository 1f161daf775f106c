import { Flags } from '@oclif/core';
import { NodeCommand } from '../../cli/node-command.js';
import { receiptLines } from '../../cli/chain-display.js';
import {
  addressFlag,
  amountFlag,
  feeFlags,
  parseQuantity,
  signerFlags,
  waitFlags,
} from '../../cli/transaction-flags.js';
import {
  awaitReceipt,
  minedResult,
  openSigner,
  submitTransaction,
  type SentTransactionResult,
  type TransactionFields,
} from '../../cli/transaction-submission.js';
import type { DaemonConnection } from '../../client/daemon-connection.js';
import { toQuantity, type Hex } from '../../client/eth-client.js';
import { failureReason } from '../../client/transaction-failure.js';

const gasFlag = Flags.custom<bigint>({
  parse: async (input) => parseQuantity(input, 'gas-limit', 21000n),
});
const nonceFlag = Flags.custom<number>({
  parse: async (input) => Number(parseQuantity(input, 'nonce')),
});

export default class TxSend extends NodeCommand {
  static override summary = 'Send a transaction and wait for its receipt.';
  static override description =
    'Sends value and/or data from an unlocked node account (--from, signed by the node with ' +
    'eth_sendTransaction) or from a key file (--keystore, signed here and sent raw). Gas is ' +
    'estimated unless --gas-limit is given; fees follow EIP-1559 (--max-fee, --priority-fee) unless ' +
    '--gas-price asks for a legacy transaction. Waits until the transaction is in a block (and ' +
    '--confirmations blocks exist) and prints hash, block and status; --async prints the hash ' +
    'once the node accepted it. A pending transaction can be replaced with "tx speed-up" or ' +
    '"tx cancel". A transaction that fails on chain (status 0) exits 1 with its revert reason, found by ' +
    'replaying the call on the state before its block.';
  static override examples = [
    '<%= config.bin %> tx send --from 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 --to 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 --value 1.5ether',
    '<%= config.bin %> tx send --keystore ./key.json --password-file ./pass.txt --to 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 --value 20gwei --json',
    '<%= config.bin %> tx send --from 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 --data 0x6080604052348015600f57600080fd5b50',
  ];
  static override flags = {
    ...signerFlags,
    to: addressFlag({ description: 'Recipient; omit to create a contract from --data.' }),
    value: amountFlag({
      description:
        'Value to send: wei (decimal or 0x-hex), or with a unit (e.g. 1.5ether, 20gwei).',
    }),
    data: Flags.string({ description: 'Call data or contract init code (0x-hex).' }),
    'gas-limit': gasFlag({
      description: 'Gas limit, decimal or 0x-hex (default: estimated by the node).',
      aliases: ['gas'],
    }),
    nonce: nonceFlag({
      description: 'Nonce, decimal or 0x-hex; reuse a pending one to replace it.',
    }),
    ...feeFlags,
    ...waitFlags,
  };

  async run(): Promise<SentTransactionResult> {
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
      const signer = await openSigner(flags);
      const request = {
        to: flags.to,
        value: flags.value ?? 0n,
        data: flags.data as Hex | undefined,
      };
      const fields: TransactionFields = {
        ...request,
        gas: flags['gas-limit'] ?? (await estimateGas(connection, signer.address, request)),
        nonce: flags.nonce,
        gasPrice: flags['gas-price'],
        maxFeePerGas: flags['max-fee'],
        maxPriorityFeePerGas: flags['priority-fee'],
      };
      const hash = await submitTransaction(connection, signer, fields);
      if (flags.async) {
        this.log(hash);
        return { hash };
      }
      const { receipt, confirmations } = await awaitReceipt(connection, hash, {
        confirmations: flags.confirmations,
        timeoutSeconds: flags.timeout,
        quiet: this.jsonEnabled(),
      });
      for (const line of receiptLines(receipt)) this.log(line);
      if (receipt.status === 0) {
        const reason = await failureReason(
          connection.rpc,
          { from: signer.address, ...fields },
          receipt,
        );
        this.error(`transaction ${hash} failed in block ${receipt.blockNumber}: ${reason}`, {
          exit: 1,
        });
      }
      return minedResult(hash, receipt, confirmations);
    } finally {
      await connection.close();
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
