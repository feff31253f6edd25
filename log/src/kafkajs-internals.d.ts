// The few kafkajs internals topic-ids.ts uses (kafkajs ships types for its public API only): its broker
// connection with API-version negotiation and SASL, a socket factory, a silent logger, an encoder for
// a request's body, and its protocol error table. kafkajs is pinned (2.2.4) and patched, so these do
// not move under it.
declare module "kafkajs/src/network/connectionPool.js" {
  export default class ConnectionPool {
    constructor(options: Record<string, unknown>);
    send<T>(protocol: {
      request: { apiKey: number; apiVersion: number; apiName: string; encode: () => Promise<unknown> };
      response: { decode: (payload: Buffer) => Promise<T>; parse: (decoded: T) => Promise<T> };
    }): Promise<T>;
  }
}
declare module "kafkajs/src/broker/index.js" {
  import type ConnectionPool from "kafkajs/src/network/connectionPool.js";
  export default class Broker {
    constructor(options: { connectionPool: ConnectionPool; logger: unknown; allowAutoTopicCreation?: boolean });
    readonly connectionPool: ConnectionPool;
    /** By API key, after connect(). */
    readonly versions: Record<number, { minVersion: number; maxVersion: number }> | null;
    connect(): Promise<void>;
    disconnect(): Promise<void>;
  }
}
declare module "kafkajs/src/network/socketFactory.js" {
  export default function socketFactory(): unknown;
}
declare module "kafkajs/src/loggers/index.js" {
  const loggers: {
    LEVELS: { NOTHING: number };
    createLogger(options: { level: number; logCreator: () => () => void }): unknown;
  };
  export default loggers;
}
declare module "kafkajs/src/protocol/encoder.js" {
  export default class Encoder {
    writeBufferInternal(buffer: Buffer): void;
  }
}
declare module "kafkajs/src/protocol/error.js" {
  const errors: { createErrorFromCode(code: number): Error & { type: string; retriable: boolean } };
  export default errors;
}
