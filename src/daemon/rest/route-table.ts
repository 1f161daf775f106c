/**
 * The routes the REST server actually registered, in the spec's
 * `'<METHOD> => <path> (<handler>)'` form, grouped by resource: filled from fastify's `onRoute`
 * hook, so `apiRoutes`/`wsRoutes` of `GET /status/meta` list the live router and cannot drift
 * from it.
 */

/** One registered route, as the server saw it. */
export interface RegisteredRoute {
  method: string;
  /** Full path, prefix included (`/v1/api/status/ping`). */
  url: string;
  handler: string;
  resource: string;
  websocket: boolean;
}

export class RouteTable {
  private readonly routes: RegisteredRoute[] = [];

  add(route: RegisteredRoute): void {
    this.routes.push(route);
  }

  all(): readonly RegisteredRoute[] {
    return this.routes;
  }

  /** The methods of the routes whose pattern `path` fits (`:name` takes one segment). */
  methodsAt(path: string): string[] {
    const segments = path.split('/');
    const fits = (url: string) => {
      const pattern = url.split('/');
      return (
        pattern.length === segments.length &&
        pattern.every((part, i) =>
          part.startsWith(':') ? segments[i] !== '' : part === segments[i],
        )
      );
    };
    return [
      ...new Set(this.routes.filter((route) => fits(route.url)).map((route) => route.method)),
    ];
  }

  /** Plain HTTP routes, one array per resource. */
  apiRoutes(): string[][] {
    return this.grouped(this.routes.filter((route) => !route.websocket));
  }

  /** WebSocket routes, one array per resource. */
  wsRoutes(): string[][] {
    return this.grouped(this.routes.filter((route) => route.websocket));
  }

  private grouped(routes: readonly RegisteredRoute[]): string[][] {
    const groups = new Map<string, string[]>();
    for (const route of routes) {
      const lines = groups.get(route.resource) ?? [];
      lines.push(`${route.method} => ${route.url} (${route.handler})`);
      groups.set(route.resource, lines);
    }
    return [...groups.values()];
  }
}
