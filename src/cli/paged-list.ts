/** Reads a paginated REST list: every page in turn, or just one when the caller set a limit. */
export interface ListPage<T> {
  items: T[];
  nextCursor?: string;
}

export async function readPages<T>(
  fetchPage: (cursor: string | undefined) => Promise<ListPage<T>>,
  start: { cursor?: string; onePage: boolean },
): Promise<ListPage<T>> {
  const items: T[] = [];
  let cursor = start.cursor;
  for (;;) {
    const page = await fetchPage(cursor);
    items.push(...page.items);
    cursor = page.nextCursor;
    if (cursor === undefined || start.onePage) break;
  }
  return { items, ...(cursor === undefined ? {} : { nextCursor: cursor }) };
}
