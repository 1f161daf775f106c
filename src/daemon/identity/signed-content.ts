/**
 * Signed content: a JSON value signed by the node's identity key so anyone can check who
 * signed it. The signature is an EIP-191 personal signature (what `personal_sign` and ethers'
 * `signMessage` make) over the RFC 8785 canonical JSON of the value, so two objects that differ
 * only in key order or number spelling carry the same signature, and ethers'
 * `verifyMessage(canonicalize(data), signature)` recovers the signer.
 */
import canonicalize from 'canonicalize';
import type { SignedContent } from '../../shared/rest-api.js';
import { InvalidInputError } from '../../shared/errors.js';
import { recoverPersonalMessageSigner, signPersonalMessage } from '../accounts/personal-message.js';

/** The `algorithm` of every signed record this node makes and accepts. */
export const SIGNATURE_ALGORITHM = 'eip191-secp256k1-rfc8785';

/** The RFC 8785 canonical JSON of `data`, as UTF-8 bytes. */
export function canonicalBytes(data: unknown, field = 'data'): Uint8Array {
  let text: string | undefined;
  try {
    text = canonicalize(data);
  } catch (error) {
    // RFC 8785 has no form for numbers JSON cannot hold (1e400 parses as Infinity).
    throw new InvalidInputError(`${field} has no canonical JSON form: ${(error as Error).message}`);
  }
  if (text === undefined) throw new InvalidInputError(`${field} is not a JSON value`);
  return Buffer.from(text, 'utf8');
}

export function signContent(
  data: unknown,
  key: { privateKey: Uint8Array; address: string },
): SignedContent {
  const signature = signPersonalMessage(canonicalBytes(data), key.privateKey);
  return {
    data,
    signer: key.address,
    signature: `0x${Buffer.from(signature).toString('hex')}`,
    algorithm: SIGNATURE_ALGORITHM,
  };
}

/**
 * The address whose key signed `signed.data` (0x, lower case).
 *
 * @throws InvalidInputError when the algorithm is not ours or the signature is malformed.
 */
export function recoverContentSigner(signed: {
  data: unknown;
  signature: string;
  algorithm: string;
}): string {
  if (signed.algorithm !== SIGNATURE_ALGORITHM) {
    throw new InvalidInputError(
      `data.signed.algorithm must be ${SIGNATURE_ALGORITHM}, got ${signed.algorithm}`,
    );
  }
  const signature = Buffer.from(signed.signature.slice(2), 'hex');
  return recoverPersonalMessageSigner(canonicalBytes(signed.data, 'data.signed.data'), signature);
}
