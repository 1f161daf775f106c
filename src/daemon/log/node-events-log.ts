/**
 * What the node tells operators as it runs, beyond what its parts log themselves: one info line
 * per committed block (height, hash prefix, transactions, gas used, time from proposal to
 * commit) and, at debug, each submitted transaction's admission or refusal.
 */
import type { ConsensusStepEvent } from '../chain/consensus.js';
import type { BlockCommittedEvent, Unsubscribe } from '../events/event-bus.js';
import type { Logger } from '../logger.js';
import type { AdmissionOutcome } from '../txpool/txpool.js';

/** `0x` and the first 12 hex digits: enough to tell blocks apart in a log. */
const HASH_PREFIX_LENGTH = 14;

export interface BlockSources {
  onStep(listener: (event: ConsensusStepEvent) => void): Unsubscribe;
  onBlock(listener: (event: BlockCommittedEvent) => void): Unsubscribe;
}

/** Logs every committed block; returns the function that stops it. */
export function logCommittedBlocks(
  sources: BlockSources,
  logger: Logger,
  now: () => number = () => performance.now(),
): Unsubscribe {
  let proposed: { height: bigint; at: number } | undefined;
  const offStep = sources.onStep((event) => {
    if (event.step === 'propose') proposed = { height: event.height, at: now() };
  });
  const offBlock = sources.onBlock(({ block, results }) => {
    const tookMs =
      proposed?.height === block.number ? Math.round((now() - proposed.at) * 10) / 10 : undefined;
    logger.info('block committed', {
      height: Number(block.number),
      hash: block.hashHex.slice(0, HASH_PREFIX_LENGTH),
      txs: results.length,
      failed: results.filter((result) => result.code !== 0).length,
      gasUsed: block.block.header.gasUsed,
      tookMs,
    });
  });
  return () => {
    offStep();
    offBlock();
  };
}

/** The pool's `onAdmission` for the log: one debug line per submitted transaction. */
export function logAdmission(logger: Logger): (outcome: AdmissionOutcome) => void {
  return (outcome) => {
    if (outcome.accepted) {
      const { pooled } = outcome;
      logger.debug('transaction accepted', {
        hash: pooled.hashHex,
        from: pooled.senderHex,
        nonce: pooled.nonce,
      });
    } else {
      logger.debug('transaction refused', { hash: outcome.hashHex, reason: outcome.reason });
    }
  };
}
