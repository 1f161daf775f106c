import { statSync } from 'node:fs';
import { chainDataFile } from '../chain/store-integrity.js';

/**
 * Bytes the chain store takes on disk: the blocks LMDB has allocated in its file (the map size
 * is a reservation of address space, not of disk).
 */
export function chainStoreBytes(dataDir: string): number {
  try {
    return statSync(chainDataFile(dataDir)).blocks * 512;
  } catch {
    return 0;
  }
}
