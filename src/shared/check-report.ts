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
  /** Height the log index covers, -1 when it is empty or absent. */
  logIndexHeight: number;
  problems: CheckProblem[];
}
