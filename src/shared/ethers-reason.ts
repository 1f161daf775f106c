/**
 * What an ethers error says, without the library's bookkeeping: ethers ends its messages with
 * `code=…, version=…` (and puts the request and its details after them), which tells a caller of
 * the node nothing. The argument and value it names stay.
 */
export function ethersReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/,? ?code=[A-Z_]+, version=[0-9.]+\)$/, ')').replace(/ \(\)$/, '');
}
