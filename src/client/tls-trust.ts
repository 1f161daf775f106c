/**
 * The certificate authorities the CLI's TLS connections trust when `NODE_EXTRA_CA_CERTS` was
 * deferred. Node 20 reads and parses that file at start-up whenever the variable is set, which
 * costs a short call about 30 ms, and a call to a local daemon over http:// never needs it. So
 * `bin/run.js`, run as an executable, moves the variable to `NODE_CLI_DEFERRED_CA_CERTS` before
 * Node starts; this module reads the file at the first TLS connection instead and adds it to
 * Node's own roots, which is what Node would have trusted. Without the deferred variable (the
 * `node bin/run.js` form) Node has loaded the file itself and nothing here changes a connection.
 */
import { readFileSync } from 'node:fs';
import type { RequestInit as UndiciRequestInit } from 'undici';

/** Where `bin/run.js` puts the value of `NODE_EXTRA_CA_CERTS` for the CLI to read later. */
export const DEFERRED_CA_CERTS_VARIABLE = 'NODE_CLI_DEFERRED_CA_CERTS';

/** TLS options to spread into a connection's options: `ca` when certificates were deferred. */
export interface TlsTrust {
  ca?: string[];
}

let trust: TlsTrust | undefined;

/** The trust options of every TLS connection of this process (the file is read once). */
export function tlsTrust(): TlsTrust {
  trust ??= readDeferredTrust(process.env[DEFERRED_CA_CERTS_VARIABLE]);
  return trust;
}

function readDeferredTrust(file: string | undefined): TlsTrust {
  if (file === undefined || file === '') return {};
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (error) {
    // As Node itself does with an unreadable NODE_EXTRA_CA_CERTS: warn and trust the defaults.
    process.emitWarning(
      `ignoring the extra CA certificates of NODE_EXTRA_CA_CERTS=${file}: ${(error as Error).message}`,
    );
    return {};
  }
  // A `ca` option replaces Node's root store, so the roots go in with the file's certificates.
  const { rootCertificates } = process.getBuiltinModule('node:tls');
  return { ca: [...rootCertificates, pem] };
}

/**
 * The environment for a process the CLI starts: `NODE_EXTRA_CA_CERTS` as the user set it,
 * so a child Node process (the daemon) trusts the same authorities.
 */
export function childEnvironment(): NodeJS.ProcessEnv {
  const { [DEFERRED_CA_CERTS_VARIABLE]: deferred, ...rest } = process.env;
  return deferred === undefined ? rest : { ...rest, NODE_EXTRA_CA_CERTS: deferred };
}

/**
 * `fetch` that honours the deferred certificates: an https:// URL then goes through undici's
 * own fetch with an agent that trusts them (the built-in fetch takes no TLS options).
 */
export async function trustedFetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
  const { ca } = tlsTrust();
  if (ca === undefined || new URL(url).protocol !== 'https:') return fetch(url, init);
  const undici = await import('undici');
  const dispatcher = new undici.Agent({ connect: { ca } });
  return (await undici.fetch(url, {
    ...init,
    dispatcher,
  } as UndiciRequestInit)) as unknown as Response;
}
