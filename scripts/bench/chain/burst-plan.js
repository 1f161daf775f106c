// The transactions of the burst workload: many senders, each with all its transactions in flight
// at once. The dev chain funds only ten accounts, so the burst senders are accounts of their own,
// their keys derived from a fixed phrase, funded by dev account 0 in a set-up lane: it deploys the
// token (nonce 0, the same address as in the main plan), then sends every burst sender ether and
// a share of the token. Each sender then has its value transfers and, after them, its token
// transfers. Lane `sender` indexes `burstKeys(senders)`, whose first key is dev account 0's.
import { computeAddress, getCreateAddress, id } from 'ethers';
import { RECIPIENT } from '../settings.js';
import { deploymentData, transferData } from './token-fixture.js';
import {
  DEPLOY_GAS,
  SHARE as TOKEN_SHARE,
  SUPPLY,
  TOKEN_TRANSFER_GAS,
  VALUE_TRANSFER_GAS,
  request,
} from './transaction-plan.js';

const ETHER_SHARE = 100n * 10n ** 18n;

/**
 * The signing keys of a burst plan: dev account 0 (the funder) first, then one per sender.
 * @param {string} funderKey @param {number} senders @returns {string[]}
 */
export function burstKeys(funderKey, senders) {
  return [
    funderKey,
    ...Array.from({ length: senders }, (_, index) => id(`node-cli bench burst sender ${index}`)),
  ];
}

/**
 * @param {string[]} keys from {@link burstKeys}
 * @param {number} perSender transactions of each sender in each burst (value, then ERC-20)
 * @returns {{token: string, setup: import('./transaction-plan.js').Lane[], valueTransfers: import('./transaction-plan.js').Lane[], tokenTransfers: import('./transaction-plan.js').Lane[]}}
 */
export function planBurst(keys, perSender) {
  const funder = computeAddress(keys[0]);
  const token = getCreateAddress({ from: funder, nonce: 0 });
  const senders = keys
    .slice(1)
    .map((key, index) => ({ lane: index + 1, address: computeAddress(key) }));
  let funderNonce = 0;
  const setup = [
    {
      sender: 0,
      requests: [
        request(funderNonce++, { to: null, data: deploymentData(SUPPLY), gasLimit: DEPLOY_GAS }),
        ...senders.flatMap(({ address }) => [
          request(funderNonce++, { to: address, value: ETHER_SHARE, gasLimit: VALUE_TRANSFER_GAS }),
          request(funderNonce++, {
            to: token,
            data: transferData(address, TOKEN_SHARE),
            gasLimit: TOKEN_TRANSFER_GAS,
          }),
        ]),
      ],
    },
  ];
  const lanes = (firstNonce, fields) =>
    senders.map(({ lane }) => ({
      sender: lane,
      requests: Array.from({ length: perSender }, (_, index) =>
        request(firstNonce + index, fields),
      ),
    }));
  return {
    token,
    setup,
    valueTransfers: lanes(0, { to: RECIPIENT, value: 1n, gasLimit: VALUE_TRANSFER_GAS }),
    tokenTransfers: lanes(perSender, {
      to: token,
      data: transferData(RECIPIENT, 1n),
      gasLimit: TOKEN_TRANSFER_GAS,
    }),
  };
}
