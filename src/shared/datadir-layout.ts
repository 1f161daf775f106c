/**
 * Where things live in a data directory. Shared by the daemon (which writes them) and the
 * client (which finds a running daemon through them).
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export interface DataDirLayout {
  root: string;
  /** Held by the running daemon; a second daemon on the same directory is refused. */
  lockFile: string;
  /** Pid, version and endpoints of the running daemon, for the CLI to find it. */
  daemonInfoFile: string;
  /** Bearer token for private methods, mode 0600, renewed at each start. */
  authTokenFile: string;
  /** Optional JSON object of option values (keys as the `daemon start` flag names). */
  configFile: string;
  /** The background daemon's log (JSON lines), rotated to `daemon.log.1`, `.2`, ... by size. */
  logFile: string;
  /**
   * The background daemon's stdout and stderr: what is not a log line (a crash's stack trace,
   * Node's own warnings, a failed start's reason).
   */
  stderrFile: string;
  /** A custom genesis written by `daemon init --genesis`; absent for the embedded dev chain. */
  genesisFile: string;
  chainDir: string;
  /**
   * Written once the chain's genesis is committed: from then on the data directory holds a chain,
   * and a missing or empty chain store is damage to report, never a reason to start a new chain.
   */
  chainMarkerFile: string;
  /** Derived from the chain (rebuilt when damaged): which blocks hold which logs. */
  logIndexDir: string;
  /** LMDB environment of the pool journal: the accepted transactions not yet mined. */
  txpoolJournalDir: string;
  keystoreDir: string;
  /** The node's own secp256k1 key (validator key), mode 0600. */
  nodeKeyFile: string;
  /** Local wallets created by personal_initializeWallet. */
  walletsDir: string;
  /** Profiles, heap snapshots and traces of the debug methods: the only place they write. */
  profilesDir: string;
  /** The storage volume used when no `--storage.volume` is given. */
  defaultStorageVolume: string;
  /** LMDB environment of the storage layer's metadata (files, chunks, uploads in progress). */
  storageIndexDir: string;
}

/** `$XDG_DATA_HOME/node-cli`, or `~/.local/share/node-cli`. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_DATA_HOME || join(homedir(), '.local', 'share');
  return join(base, 'node-cli');
}

export function dataDirLayout(dataDir: string): DataDirLayout {
  const root = resolve(dataDir);
  return {
    root,
    lockFile: join(root, 'daemon.lock'),
    daemonInfoFile: join(root, 'daemon.json'),
    authTokenFile: join(root, 'auth.token'),
    configFile: join(root, 'config.json'),
    logFile: join(root, 'logs', 'daemon.log'),
    stderrFile: join(root, 'logs', 'daemon.stderr'),
    genesisFile: join(root, 'genesis.json'),
    chainDir: join(root, 'chain'),
    chainMarkerFile: join(root, 'chain-identity.json'),
    logIndexDir: join(root, 'log-index'),
    txpoolJournalDir: join(root, 'txpool'),
    keystoreDir: join(root, 'keystore'),
    walletsDir: join(root, 'wallets'),
    nodeKeyFile: join(root, 'node_key.json'),
    profilesDir: join(root, 'profiles'),
    defaultStorageVolume: join(root, 'storage'),
    storageIndexDir: join(root, 'storage-index'),
  };
}
