import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const generator = fileURLToPath(new URL('../../scripts/generate-man.js', import.meta.url));

describe('man pages', () => {
  it('are up to date with the commands (run `npm run man` after changing a command)', () => {
    const output = execFileSync(process.execPath, [generator, '--check'], { encoding: 'utf8' });
    expect(output).toMatch(/^\d+ man pages up to date/);
  });
});
