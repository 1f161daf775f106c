/**
 * The node key in devp2p's terms, for `admin_nodeInfo`: the node id (keccak256 of the 64-byte
 * public key), the enode URL, and a signed node record (EIP-778, identity scheme "v4"). This
 * node has no peer-to-peer listener (a single-validator chain talks to no peers), so the URL
 * names port 0 and the record carries no IP or ports: it only proves the key.
 */
import { RLP } from '@ethereumjs/rlp';
import { unprefixedHex } from '../chain/byte-strings.js';
import { keccak256, secp256k1Expand, secp256k1SignDigest } from '../crypto/wasm-crypto.js';

/** The host an enode URL of a node without a listener names. */
const NO_LISTENER_HOST = '127.0.0.1';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

/** The 64-byte public key `x ‖ y` of a 33-byte compressed one. */
function publicKey64(compressed: Uint8Array): Uint8Array {
  return secp256k1Expand(compressed).subarray(1);
}

/** devp2p's node id: keccak256 of the 64-byte public key, 32 bytes. */
export function nodeId(compressedPublicKey: Uint8Array): Uint8Array {
  return keccak256(publicKey64(compressedPublicKey));
}

/** `enode://<public key>@127.0.0.1:0?discport=0`: the key, and no listener. */
export function enodeUrl(compressedPublicKey: Uint8Array): string {
  return `enode://${unprefixedHex(publicKey64(compressedPublicKey))}@${NO_LISTENER_HOST}:0?discport=0`;
}

/**
 * The EIP-778 record of the key, sequence number 1, as its text form `enr:<base64url>`: the
 * pairs `id`=`v4` and `secp256k1`=the compressed key, signed (64-byte `r ‖ s`) over
 * keccak256(rlp([seq, k, v, ...])).
 */
export function nodeRecord(privateKey: Uint8Array, compressedPublicKey: Uint8Array): string {
  const content = [
    Uint8Array.of(1),
    utf8('id'),
    utf8('v4'),
    utf8('secp256k1'),
    compressedPublicKey,
  ];
  const signature = secp256k1SignDigest(keccak256(RLP.encode(content)), privateKey).subarray(0, 64);
  return `enr:${Buffer.from(RLP.encode([signature, ...content])).toString('base64url')}`;
}
