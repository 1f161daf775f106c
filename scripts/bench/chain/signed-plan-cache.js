// Signs the whole transaction plan, or reuses the signatures of an earlier run: the file is named
// by a hash of every field of every transaction and of the keys, so any change to the plan, the
// token's bytecode or the fees signs afresh. Signing is deterministic (RFC 6979), so a cached
// plan is byte for byte what signing again would give.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { signLanes } from './sign-plan.js';

/** @param {string} _key @param {unknown} value */
const bigintsAsText = (_key, value) => (typeof value === 'bigint' ? value.toString() : value);

/**
 * @param {ReturnType<typeof import('./transaction-plan.js').planTransactions>} plan
 * @param {readonly string[]} privateKeys
 * @param {string} cacheDir
 * @returns {Promise<{setup: import('./sign-plan.js').SignedLane[], value: import('./sign-plan.js').SignedLane[], token: import('./sign-plan.js').SignedLane[]}>}
 */
export async function signedPlan(plan, privateKeys, cacheDir) {
  const digest = createHash('sha256')
    .update(JSON.stringify({ plan, privateKeys }, bigintsAsText))
    .digest('hex')
    .slice(0, 16);
  const file = join(cacheDir, `signed-plan-${digest}.json`);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  const signed = {
    setup: await signLanes(plan.setup, privateKeys),
    value: await signLanes(plan.valueTransfers, privateKeys),
    token: await signLanes(plan.tokenTransfers, privateKeys),
  };
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(file, JSON.stringify(signed));
  return signed;
}
