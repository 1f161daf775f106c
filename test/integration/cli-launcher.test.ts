/**
 * bin/run.js run as an executable starts in sh, which moves NODE_EXTRA_CA_CERTS aside so Node
 * does not parse the file at start-up (src/client/tls-trust.ts). These tests hold it to the
 * variable's meaning: a node whose certificate only that file vouches for is reached over
 * https:// with it and refused without it, a plain http:// call never reads the file, and the
 * daemon that `daemon start` spawns sees the variable as the user set it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFERRED_CA_CERTS_VARIABLE } from '../../src/client/tls-trust.js';
import { CLI_ENTRY, runCli, runCliExecutable } from '../helpers/cli.js';
import { LOOPBACK_FLAGS, makeDataDir } from '../helpers/test-daemon.js';

/** A key and a self-signed certificate for 127.0.0.1, made by openssl in `dir`. */
function selfSignedCertificate(dir: string): { key: string; cert: string } {
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-days',
      '1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { key, cert };
}

/**
 * A TLS front of the daemon: requests pass through to its JSON-RPC endpoint `target`, WebSocket
 * upgrades to its consensus socket `socketTarget`.
 */
function httpsFront(
  tls: { key: string; cert: string },
  target: string,
  socketTarget: string,
): Promise<Server> {
  const server = createServer(
    { key: readFileSync(tls.key), cert: readFileSync(tls.cert) },
    (incoming, answer) => {
      const outgoing = httpRequest(
        new URL(incoming.url ?? '/', target),
        { method: incoming.method, headers: incoming.headers },
        (response) => {
          answer.writeHead(response.statusCode ?? 502, response.headers);
          response.pipe(answer);
        },
      );
      outgoing.on('error', () => answer.destroy());
      incoming.pipe(outgoing);
    },
  );
  server.on('upgrade', (incoming, socket, head) => {
    const { hostname, port } = new URL(socketTarget);
    const upstream = connect(Number(port), hostname, () => {
      const headers = [];
      for (let i = 0; i < incoming.rawHeaders.length; i += 2)
        headers.push(`${incoming.rawHeaders[i]}: ${incoming.rawHeaders[i + 1]}`);
      upstream.write(
        `${incoming.method} ${incoming.url} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`,
      );
      upstream.write(head);
      upstream.pipe(socket).pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function environOf(pid: number): Map<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return new Map(
    entries.map((entry) => [
      entry.slice(0, entry.indexOf('=')),
      entry.slice(entry.indexOf('=') + 1),
    ]),
  );
}

describe('the executable launcher and NODE_EXTRA_CA_CERTS', () => {
  let dir: string;
  let dataDir: string;
  let tls: { key: string; cert: string };
  let daemon: { pid: number; endpoints: { http: string; consensusWs: string } };
  let front: Server;
  let httpsUrl: string;
  const MISSING_FILE = '/nonexistent/extra-ca.pem';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'node-cli-launcher-'));
    tls = selfSignedCertificate(dir);
    dataDir = makeDataDir();
    const started = await runCliExecutable(
      ['daemon', 'start', '--datadir', dataDir, ...LOOPBACK_FLAGS, '--json'],
      { NODE_EXTRA_CA_CERTS: tls.cert },
    );
    expect(started.stderr).toBe('');
    daemon = JSON.parse(started.stdout) as typeof daemon;
    front = await httpsFront(tls, daemon.endpoints.http, daemon.endpoints.consensusWs);
    const address = front.address();
    httpsUrl = `https://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });

  afterAll(async () => {
    front?.close();
    await runCli(['daemon', 'stop', '--datadir', dataDir]);
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it('reaches an https:// node that only NODE_EXTRA_CA_CERTS vouches for', async () => {
    const viaFront = await runCliExecutable(['rpc', 'eth_blockNumber', '--rpc-url', httpsUrl], {
      NODE_EXTRA_CA_CERTS: tls.cert,
    });
    expect(viaFront).toMatchObject({ code: 0, stderr: '' });
    expect(viaFront.stdout.trim()).toMatch(/^0x[0-9a-f]+$/);

    const block = await runCliExecutable(['block', 'get', '--json', '--rpc-url', httpsUrl], {
      NODE_EXTRA_CA_CERTS: tls.cert,
    });
    expect(block.code).toBe(0);
    expect(JSON.parse(block.stdout)).toHaveProperty('hash');
  });

  it('reaches its consensus socket over wss:// the same way', async () => {
    const consensusUrl = `${httpsUrl.replace('https:', 'wss:')}/websocket`;
    const args = ['events', 'tail', '--count', '1', '--json', '--consensus-url', consensusUrl];
    const trusted = await runCliExecutable(args, { NODE_EXTRA_CA_CERTS: tls.cert });
    expect(trusted.code).toBe(0);
    expect(JSON.parse(trusted.stdout)).toMatchObject({ type: 'tendermint/event/NewBlock' });

    const refused = await runCliExecutable(args, { NODE_EXTRA_CA_CERTS: undefined });
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({
      error: {
        message: expect.stringContaining(`the TLS certificate of ${consensusUrl} is not trusted`),
      },
    });
  });

  it('refuses that node without the variable, saying the certificate is not trusted', async () => {
    const refused = await runCliExecutable(['rpc', 'eth_blockNumber', '--rpc-url', httpsUrl], {
      NODE_EXTRA_CA_CERTS: undefined,
    });
    expect(refused.code).toBe(1);
    expect(refused.message).toContain(`the TLS certificate of ${httpsUrl} is not trusted`);
    expect(refused.message).toContain('NODE_EXTRA_CA_CERTS');
  });

  it('works the same through a symbolic link, as npm installs the command', async () => {
    const link = join(dir, 'node-cli');
    symlinkSync(CLI_ENTRY, link);
    const viaLink = await runCliExecutable(
      ['rpc', 'eth_blockNumber', '--rpc-url', httpsUrl],
      { NODE_EXTRA_CA_CERTS: tls.cert },
      link,
    );
    expect(viaLink).toMatchObject({ code: 0, stderr: '' });
  });

  it('does not read the file for a plain http:// call', async () => {
    const args = ['rpc', 'eth_blockNumber', '--rpc-url', daemon.endpoints.http];
    const env = { NODE_EXTRA_CA_CERTS: MISSING_FILE };
    // `node bin/run.js` leaves the variable to Node, which tries the file at start-up.
    const direct = await runCli(args, env);
    expect(direct.code).toBe(0);
    expect(direct.stderr).toContain(MISSING_FILE);

    const launched = await runCliExecutable(args, env);
    expect(launched).toMatchObject({ code: 0, stderr: '' });
  });

  it('warns about an unreadable file at the first TLS connection', async () => {
    const launched = await runCliExecutable(['rpc', 'eth_blockNumber', '--rpc-url', httpsUrl], {
      NODE_EXTRA_CA_CERTS: MISSING_FILE,
    });
    expect(launched.code).toBe(1);
    expect(launched.message).toContain(`NODE_EXTRA_CA_CERTS=${MISSING_FILE}`);
    expect(launched.message).toContain('is not trusted');
  });

  // The launcher's sh hands stdin on untouched; nor does the parser read it for an argument.
  it('leaves piped stdin to whoever reads it after the command', async () => {
    const call = await runCli(
      ['rpc', 'eth_blockNumber', '--rpc-url', daemon.endpoints.http],
      {},
      'latest\n',
    );
    expect(call).toMatchObject({ code: 0, stderr: '' });
    expect(call.stdout.trim()).toMatch(/^0x[0-9a-f]+$/);
  });

  it('gives the daemon NODE_EXTRA_CA_CERTS as the user set it', () => {
    const environment = environOf(daemon.pid);
    expect(environment.get('NODE_EXTRA_CA_CERTS')).toBe(tls.cert);
    expect(environment.has(DEFERRED_CA_CERTS_VARIABLE)).toBe(false);
  });
});
