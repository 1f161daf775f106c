/**
 * The conventions of every `--json` output (docs/cli.md, "Output"): quantities of the chain are
 * 0x-hex strings as in JSON-RPC (`toQuantity` of the client), and addresses carry their EIP-55
 * checksum, also inside the JSON-RPC objects the chain commands pass through (nodes send them in
 * lower case).
 */
import { checksumAddress, isAddress } from '../shared/address.js';

/** Fields that hold an address in JSON-RPC blocks, transactions, receipts and logs. */
const ADDRESS_FIELDS = new Set(['from', 'to', 'miner', 'contractAddress', 'address', 'creates']);

/** `value` with every address field, at any depth, checksummed. */
export function withChecksummedAddresses<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withChecksummedAddresses) as T;
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => [
      key,
      ADDRESS_FIELDS.has(key) && typeof field === 'string' && isAddress(field)
        ? checksumAddress(field)
        : withChecksummedAddresses(field),
    ]),
  ) as T;
}
