import { NodeCommand } from '../../cli/node-command.js';
import { colours, keyValueLines } from '../../cli/key-value-lines.js';
import type { NodeMeta } from '../../shared/rest-api.js';

export default class NodeStatus extends NodeCommand {
  static override summary = "Show the node's metadata (REST GET /status/meta).";
  static override description =
    'Prints the versions, the file and peer counts and the REST and WebSocket routes the running daemon serves. ' +
    'With --json, the metadata exactly as the REST interface answers it.';
  static override examples = [
    '<%= config.bin %> node status',
    '<%= config.bin %> node status --json',
    '<%= config.bin %> node status --datadir /srv/node --json',
  ];

  async run(): Promise<NodeMeta> {
    const { flags } = await this.parse(NodeStatus);
    const rest = this.connectRest(flags);
    try {
      const meta = await rest.meta();
      const routes = meta.apiRoutes.flat();
      const sockets = meta.wsRoutes.flat();
      for (const line of keyValueLines([
        ['version', meta.serviceNetworkNodeVersion],
        ['node.js', meta.nodeJsVersion],
        ['files', String(meta.fileCount)],
        ['peers', String(meta.peersCount)],
        ['routes', `${routes.length} REST, ${sockets.length} WebSocket`],
      ]))
        this.log(line);
      for (const route of [...routes, ...sockets]) this.log(`  ${colours.dim(route)}`);
      return meta;
    } finally {
      await rest.close();
    }
  }
}
