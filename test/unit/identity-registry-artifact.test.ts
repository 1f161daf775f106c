/**
 * The committed identity registry artifact (src/daemon/identity/identity-registry.json) is what
 * contracts/IdentityRegistry.sol compiles to with the pinned solc-js and fixed settings.
 */
import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const script = fileURLToPath(
  new URL('../../scripts/compile-identity-registry.js', import.meta.url),
);

describe('identity registry artifact', () => {
  it('equals the compiled source', async () => {
    const { stderr } = await promisify(execFile)(process.execPath, [script, '--check']);
    expect(stderr).toBe('');
  });
});
