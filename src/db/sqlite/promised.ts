/** A repository whose every method returns a Promise of what the synchronous one returns. */
export type Promised<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : T[K];
};

/**
 * The asynchronous repository interface over SQLite statements that run synchronously: each call
 * runs at once (so calls keep their order) and its result, or what it threw, is a settled Promise.
 * @example export const appsRepository = (db: Db) => promised(appStatements(db));
 */
export function promised<T extends object>(statements: T): Promised<T> {
  const methods: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(statements)) {
    if (typeof value !== 'function') continue;
    methods[name] = (...args: unknown[]) => {
      try {
        return Promise.resolve(value(...args));
      } catch (error) {
        return Promise.reject(error);
      }
    };
  }
  return methods as Promised<T>;
}
