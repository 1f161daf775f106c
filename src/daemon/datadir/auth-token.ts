import { randomBytes, timingSafeEqual } from 'node:crypto';
import { writeFileAtomic } from '../../shared/atomic-write.js';

/**
 * The bearer token that guards private methods (the cookie-file pattern): 32 random bytes,
 * renewed at every start, readable only by the daemon's user.
 */
export class AuthToken {
  private readonly expected: Buffer;

  private constructor(readonly value: string) {
    this.expected = Buffer.from(value);
  }

  static createIn(tokenFile: string): AuthToken {
    const token = new AuthToken(randomBytes(32).toString('hex'));
    writeFileAtomic(tokenFile, `${token.value}\n`, 0o600);
    return token;
  }

  /** Constant-time comparison, so response timing does not reveal a prefix of the token. */
  matches(candidate: string | undefined): boolean {
    if (candidate === undefined) return false;
    const given = Buffer.from(candidate);
    return given.length === this.expected.length && timingSafeEqual(given, this.expected);
  }
}
