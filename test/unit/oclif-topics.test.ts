import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = new URL('../../', import.meta.url);

describe('oclif topics', () => {
  it('every topic (a folder of src/commands) has a description for node-cli --help', () => {
    const commands = fileURLToPath(new URL('src/commands/', root));
    // A folder with an index.ts is one command (`rpc`), not a topic.
    const topics = readdirSync(commands, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .filter((name) => !readdirSync(`${commands}/${name}`).includes('index.ts'));
    const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
      oclif: { topics: Record<string, { description?: string }> };
    };
    const undescribed = topics.filter((topic) => !pkg.oclif.topics[topic]?.description);
    expect(undescribed).toEqual([]);
  });
});
