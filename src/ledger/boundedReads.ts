// Reads of the store side by side, a bounded number at a time: a PostgreSQL store answers them on
// several connections at once; SQLite's, on one thread, one after another as before.

/**
 * `read` of each item, the answers in the items' order, at most `atOnce` reads running. After
 * a read fails no other starts, and the first failure is thrown.
 */
export async function readBounded<T, R>(items: readonly T[], atOnce: number, read: (item: T) => Promise<R>): Promise<R[]> {
  const answers = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const reader = async (): Promise<void> => {
    while (next < items.length && !failed) {
      const index = next++;
      try {
        answers[index] = await read(items[index]!);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, reader));
  return answers;
}
