
/** Options of `startRelay`: the client's options to reach the brokers, and the relay's own. */
export interface RelayOptions extends Omit<KafkaClientOptions, 'relay' | 'transport' | 'webSocket'> {
  bootstrap: string | string[];
  /** 'host:port' (default '127.0.0.1:0': loopback, a free port). */
  listen?: string;
  /** Web page origins allowed besides the relay's own (http://127.0.0.1:PORT, http://localhost:PORT). */
  allowOrigins?: string[];
  /** Connections open at once (default 64). */
  maxConnections?: number;
  /** The largest request frame forwarded (default 64 KiB). */
  maxRequestBytes?: number;
  /** A connection without traffic is closed after this long (default 120000). */
  idleTimeoutMs?: number;
  /** The WebSocket path (default '/kafka'). */
  path?: string;
  /** One line per refusal and failure (default: stderr). */
  log?: (line: string) => void;
  /**
   * Other HTTP requests on the same port (the `ui` command serves the page with it): node:http's
   * IncomingMessage and ServerResponse (typed loosely, so that no @types/node is needed).
   */
  handleHttp?: (request: any, response: any) => void;
  /**
   * A Schema Registry pages may read schemas from at /registry: GET of schema paths only, its
   * credentials held by the relay, answers bounded (maxResponseBytes, default 16 MiB).
   */
  schemaRegistry?: Omit<RegistryOptions, 'fetch'> & { maxConcurrent?: number };
}

/** A running relay. */
export interface Relay {
  /** http://host:port/ */
  readonly url: string;
  /** ws://host:port/kafka: the client's `relay` option. */
  readonly relayUrl: string;
  /** http://host:port/registry with option schemaRegistry, else null: a RegistryClient's url for pages. */
  readonly registryUrl: string | null;
  /** The origins allowed to connect. */
  readonly origins: string[];
  /** The node:http Server it listens with. */
  readonly server: any;
  close(): Promise<void>;
}

/**
 * Node: starts a read-only WebSocket relay through which browsers reach the brokers. It connects only
 * to the bootstrap brokers and those their metadata lists, checks every Origin, forwards only
 * ApiVersions, Metadata (without topic creation), ListOffsets and Fetch, and does TLS and SASL itself.
 */
export declare function startRelay(options: RelayOptions): Promise<Relay>;
