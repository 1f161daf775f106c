/**
 * Identity handles of the node's identity registry: 3 to 32 characters of a-z 0-9 - _, not
 * starting with 0x, so text naming an owner is an address or a handle, never both.
 */
export const HANDLE_PATTERN = '^(?!0x)[a-z0-9_-]{3,32}$';

export function isHandle(text: string): boolean {
  return new RegExp(HANDLE_PATTERN).test(text);
}
