/**
 * How CometBFT writes bytes and times in its JSON: hashes and addresses as upper-case hex
 * without a prefix, transaction bytes and app hashes in results as base64, times as RFC 3339.
 */

/** Upper-case hex without `0x`, CometBFT's form for hashes and addresses. */
export function upperHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString('hex')
    .toUpperCase();
}

/** Standard base64 with padding, CometBFT's form for bytes in JSON. */
export function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** RFC 3339 in UTC for a block timestamp in seconds; whole seconds carry no fraction, as Go prints them. */
export function rfc3339(unixSeconds: bigint): string {
  return new Date(Number(unixSeconds) * 1000).toISOString().replace('.000Z', 'Z');
}
