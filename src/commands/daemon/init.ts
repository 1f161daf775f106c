import { Flags } from '@oclif/core';
import { copyFileSync, existsSync } from 'node:fs';
import { BaseCommand } from '../../cli/base-command.js';
import { toQuantity } from '../../client/eth-client.js';
import { readGenesisFile } from '../../shared/genesis-file.js';
import { updateConfigFile } from '../../shared/config/config-file.js';
import { dataDirLayout } from '../../shared/datadir-layout.js';
import { makeDirectories } from '../../shared/make-directories.js';

export interface InitResult {
  dataDir: string;
  genesisFile: string;
  chainId: string;
  accounts: number;
}

export default class DaemonInit extends BaseCommand {
  static override summary = 'Initialise a data directory with a custom genesis.';
  static override description =
    'Validates a geth-style genesis file ({config: {chainId}, gasLimit, alloc, minGasPrice?, timestamp?, extraData?, coinbase?}) ' +
    'and stores it in the data directory, which then runs that chain instead of the embedded dev chain. ' +
    'Dev mode is switched off (dev=false in config.json): no account is unlocked at start. ' +
    'Refused when the data directory already holds a chain.';
  static override examples = [
    '<%= config.bin %> daemon init --genesis genesis.json --datadir ./node1',
  ];

  static override flags = {
    genesis: Flags.string({ description: 'Path of the genesis JSON file.', required: true }),
  };

  async run(): Promise<InitResult> {
    const { flags } = await this.parse(DaemonInit);
    const layout = dataDirLayout(this.dataDir(flags));
    if (existsSync(layout.chainDir) || existsSync(layout.genesisFile)) {
      this.error(`data directory ${layout.root} already holds a chain; use a new --datadir`, {
        exit: 1,
      });
    }
    let genesis;
    try {
      genesis = readGenesisFile(flags.genesis);
    } catch (error) {
      this.usageError((error as Error).message);
    }
    makeDirectories(layout.root);
    copyFileSync(flags.genesis, layout.genesisFile);
    updateConfigFile(layout.configFile, { dev: false });
    this.log(
      `initialised ${layout.root}: chain id ${genesis.chainId}, ${genesis.alloc.size} funded accounts`,
    );
    return {
      dataDir: layout.root,
      genesisFile: layout.genesisFile,
      chainId: toQuantity(genesis.chainId),
      accounts: genesis.alloc.size,
    };
  }
}
