import type { AuthToken } from '../datadir/auth-token.js';

/** What authentication reads of a request: Node's `IncomingMessage` and our own heads both fit. */
export interface RequestCredentials {
  headers: { authorization?: string };
  url?: string;
}

/**
 * Reads the caller's token from `Authorization: Bearer <token>` or, for WebSocket upgrades,
 * which browsers cannot give headers, from the `token` query parameter.
 */
export function presentedToken(
  request: RequestCredentials,
  allowQuery: boolean,
): string | undefined {
  const header = request.headers.authorization;
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match ? match[1] : undefined;
  }
  if (!allowQuery || !request.url) return undefined;
  return new URL(request.url, 'http://localhost').searchParams.get('token') ?? undefined;
}

export function isAuthenticated(
  request: RequestCredentials,
  token: AuthToken,
  allowQuery: boolean,
): boolean {
  return token.matches(presentedToken(request, allowQuery));
}
