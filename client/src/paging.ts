/** Every page of a paged read (`{result, result_count, next_cursor}`), following next_cursor until it is null. */
export async function* pages<T>(read: (cursor: string | undefined) => Promise<{ result: T[]; next_cursor: string | null }>): AsyncGenerator<T[]> {
  let cursor: string | undefined;
  for (;;) {
    const page = await read(cursor);
    yield page.result;
    if (!page.next_cursor) return;
    cursor = page.next_cursor;
  }
}

/** The rows of every page, one at a time. */
export async function* items<T>(read: (cursor: string | undefined) => Promise<{ result: T[]; next_cursor: string | null }>): AsyncGenerator<T> {
  for await (const page of pages(read)) yield* page;
}
