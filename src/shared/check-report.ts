/** What `daemon check` found: the daemon's store walk fills it in, the CLI prints it. */

/** One disagreement found; `block` when it belongs to a block. */
export interface CheckProblem {
  block?: number;
  problem: string;
}

export interface CheckReport {
  dataDir: string;
  /** Head block number, undefined when the store could not be read at all. */
  head?: number;
  blocksChecked: number;
  /** Blocks whose state trie was walked. */
  stateRootsChecked: number[];
  trieNodesChecked: number;
  /**
   * The head's flat state tables, compared entry by entry with its trie: what they hold. Absent
   * when the store has none yet (the daemon builds them at its next start).
   */
  flatState?: { accounts: number; slots: number };
  /** Height the log index covers, -1 when it is empty or absent. */
  logIndexHeight: number;
  problems: CheckProblem[];
}
