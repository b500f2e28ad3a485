// `pg` comes with plugin-sql, without its typings: the part of node-postgres the tests use.
declare module 'pg' {
  export interface ClientConfig {
    connectionString?: string;
  }
  export class Client {
    constructor(config?: ClientConfig);
    connect(): Promise<void>;
    end(): Promise<void>;
    query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
    on(event: 'error', listener: (error: Error) => void): this;
  }
  const pg: { Client: typeof Client };
  export default pg;
}
