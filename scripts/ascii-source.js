// The loader of the bundles (src/shared/bundle-script.ts) reads them as Latin-1: ASCII decodes
// unchanged into V8's compact one-byte strings, where UTF-8 would double the memory of a source
// with a single wider character. Any byte past ASCII would be read as another character (the two
// bytes UTF-8 writes for `µ` as `Âµ`), so the build writes the bundles as pure ASCII. esbuild
// escapes strings and identifiers but leaves comments and regular expression literals as they
// are written.
import { readFileSync } from 'node:fs';

/**
 * `source` with each UTF-16 unit past ASCII written as its `\uXXXX` escape, which means the same
 * in a regular expression, a string or an identifier, and is as readable in a comment. An
 * identity escape of such a character (`\µ`) loses its backslash, as the escape stands for the
 * character itself. The source map is off by five columns per escape on the lines that have one.
 * @param {string} source
 * @returns {string}
 */
export function asciiSource(source) {
  return source.replace(
    /(\\*)([\u0080-\uffff])/g,
    (_, slashes, unit) =>
      `${slashes.slice(slashes.length % 2)}\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * Throws unless `file` is pure ASCII, naming the first byte that is not.
 * @param {string} file
 */
export function assertAsciiFile(file) {
  const bytes = readFileSync(file);
  const at = bytes.findIndex((byte) => byte > 0x7f);
  if (at >= 0) {
    throw new Error(
      `${file} has a byte past ASCII at offset ${at}, which its loader would misread (scripts/ascii-source.js)`,
    );
  }
}
