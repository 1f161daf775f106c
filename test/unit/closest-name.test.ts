import { describe, expect, it } from '@jest/globals';
import { closestName, editDistance } from '../../src/cli/closest-name.js';

const COMMANDS = ['block get', 'tx send', 'tx get', 'tx receipt', 'events tail', 'logs watch'];

describe('closestName', () => {
  it('counts edits', () => {
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('same', 'same')).toBe(0);
  });

  it('suggests the nearest command or flag for a typo or a truncated name', () => {
    expect(closestName('blok get', COMMANDS)).toBe('block get');
    expect(closestName('tx sedn', COMMANDS)).toBe('tx send');
    expect(closestName('events', COMMANDS)).toBe('events tail');
    expect(closestName('--rpc-ur', ['--rpc-url', '--ws-url', '--json'])).toBe('--rpc-url');
  });

  it('suggests nothing for a different word', () => {
    expect(closestName('deploy', COMMANDS)).toBeUndefined();
    expect(closestName('--bogus', ['--full', '--json'])).toBeUndefined();
  });
});
