/**
 * Damage inside an LMDB file that its header does not show, as a bad disk or a stray write
 * could leave it.
 */
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';

/** Root page number of a tree that points past the end of any file the tests make. */
const PAST_THE_FILE = 0x7fff_ffffn;

/**
 * Points the named tree `tree` of the LMDB file `file` at a page past the end of the file, as a
 * damaged page pointer would: the header and the other trees stay whole, so a check of the file
 * passes, and every read or write of that tree fails (LMDB: page not found). A named tree is a
 * record of LMDB's main tree: a node header (data size as two 16-bit halves, flags 2 for a named
 * tree, key size), the name with its NUL, then the tree's description, whose last 8 bytes (at
 * offset 40) are its root page number. Copies of the record in pages of earlier transactions
 * change too. Returns how many records changed (at least one, or it throws).
 */
export function pointTreePastTheFile(file: string, tree: string): number {
  const bytes = readFileSync(file);
  const name = Buffer.from(`${tree}\0`);
  const root = Buffer.alloc(8);
  root.writeBigUInt64LE(PAST_THE_FILE);
  // Written in place, never truncated: an environment may have the file mapped.
  const fd = openSync(file, 'r+');
  let changed = 0;
  try {
    for (let at = bytes.indexOf(name); at >= 0; at = bytes.indexOf(name, at + 1)) {
      if (bytes.readUInt16LE(at - 4) !== 2 || bytes.readUInt16LE(at - 2) !== name.length) continue;
      writeSync(fd, root, 0, root.length, at + name.length + 40);
      changed += 1;
    }
  } finally {
    closeSync(fd);
  }
  if (changed === 0) throw new Error(`no record of the tree ${tree} in ${file}`);
  return changed;
}
