// The transactions of the commit workloads, with every nonce worked out in advance. Both nodes
// start from the same dev genesis (same accounts, same chain id), so one signed plan is valid on
// each fresh node: account 0 deploys the token (nonce 0) and gives every other dev account a
// share, then each of the ten accounts sends its value transfers and then its token transfers.
import { getCreateAddress } from 'ethers';
import { CHAIN_ID, FEES, RECIPIENT } from '../settings.js';
import { deploymentData, transferData } from './token-fixture.js';

export const SUPPLY = 10n ** 27n;
export const SHARE = 10n ** 24n;
export const DEPLOY_GAS = 2_000_000n;
export const TOKEN_TRANSFER_GAS = 100_000n;
export const VALUE_TRANSFER_GAS = 21_000n;

/**
 * @typedef {object} Lane
 * @property {number} sender index into the dev accounts
 * @property {object[]} requests unsigned transaction fields in nonce order
 */

/**
 * A type-2 transaction for the dev chain: no value, no data and the benchmark's fees, unless
 * `fields` says otherwise. @param {number} nonce @param {object} fields
 */
export function request(nonce, fields) {
  return { type: 2, chainId: CHAIN_ID, nonce, value: 0n, data: '0x', ...FEES, ...fields };
}

/**
 * @param {string[]} addresses the ten dev accounts, in order
 * @param {{valueTransfersPerSender: number, tokenTransfersPerSender: number}} counts
 * @returns {{token: string, setup: Lane[], valueTransfers: Lane[], tokenTransfers: Lane[]}}
 */
export function planTransactions(addresses, counts) {
  const token = getCreateAddress({ from: addresses[0], nonce: 0 });
  const nextNonce = addresses.map(() => 0);
  const take = (sender) => nextNonce[sender]++;

  const setup = [
    {
      sender: 0,
      requests: [
        request(take(0), { to: null, data: deploymentData(SUPPLY), gasLimit: DEPLOY_GAS }),
        ...addresses.slice(1).map((holder) =>
          request(take(0), {
            to: token,
            data: transferData(holder, SHARE),
            gasLimit: TOKEN_TRANSFER_GAS,
          }),
        ),
      ],
    },
  ];
  const lanes = (count, fields) =>
    addresses.map((_, sender) => ({
      sender,
      requests: Array.from({ length: count }, () => request(take(sender), fields)),
    }));
  const valueTransfers = lanes(counts.valueTransfersPerSender, {
    to: RECIPIENT,
    value: 1n,
    gasLimit: VALUE_TRANSFER_GAS,
  });
  const tokenTransfers = lanes(counts.tokenTransfersPerSender, {
    to: token,
    data: transferData(RECIPIENT, 1n),
    gasLimit: TOKEN_TRANSFER_GAS,
  });
  return { token, setup, valueTransfers, tokenTransfers };
}
