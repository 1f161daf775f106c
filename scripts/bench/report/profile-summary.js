// Summarises a V8 .cpuprofile (what `node --cpu-prof` writes): self time per function (grouped
// by name and source location), and inclusive time of the project's own functions (dist/), which
// says which of our code paths the library and runtime time is spent under.
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const OWN_CODE = new URL('../../../dist/', import.meta.url).href;

/** A readable location: project-relative path (or node: module) and 1-based line. */
function location(frame) {
  if (!frame.url) return '(native)';
  const path = frame.url.startsWith('file://')
    ? relative(ROOT, fileURLToPath(frame.url))
    : frame.url;
  return `${path}:${frame.lineNumber + 1}`;
}

/** @param {object} frame */
const frameKey = (frame) => `${frame.functionName || '(anonymous)'}  ${location(frame)}`;

/** The `top` largest entries of `micros` as lines: share of `total`, milliseconds, key. */
function rows(micros, total, top) {
  return [...micros.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(
      ([key, value]) =>
        `${((value / total) * 100).toFixed(1).padStart(5)}%  ${(value / 1000).toFixed(0).padStart(7)} ms  ${key}`,
    );
}

/**
 * @param {{nodes: {id: number, callFrame: object, children?: number[]}[], samples: number[], timeDeltas: number[]}} profile
 * @param {number} top how many rows per section
 * @returns {string} the two sections as text, one function per line
 */
export function summariseProfile(profile, top) {
  const nodeOf = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parentOf.set(child, node.id);
  const selfMicros = new Map();
  const ownInclusiveMicros = new Map();
  let total = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    total += delta;
    const key = frameKey(nodeOf.get(id).callFrame);
    selfMicros.set(key, (selfMicros.get(key) ?? 0) + delta);
    // Count each of our functions once per sample, however deep it recurses.
    const seen = new Set();
    for (let at = id; at !== undefined; at = parentOf.get(at)) {
      const frame = nodeOf.get(at).callFrame;
      if (!frame.url.startsWith(OWN_CODE)) continue;
      seen.add(frameKey(frame));
    }
    for (const own of seen) ownInclusiveMicros.set(own, (ownInclusiveMicros.get(own) ?? 0) + delta);
  });
  return [
    'self time (all code):',
    ...rows(selfMicros, total, top),
    '',
    'inclusive time (project functions in dist/):',
    ...rows(ownInclusiveMicros, total, top),
  ].join('\n');
}
