// The security settings a node starts with, as this layer needs them. Declared here, not in
// node/config.ts, so that security sits below the node (src/README.md): the node's NodeConfig
// extends them and parseConfig fills them from the flags.

/** PEM files of a node's TLS: its certificate and key, and the CA that signs every member's. */
export interface TlsFiles {
  readonly cert: string;
  readonly key: string;
  readonly ca: string;
}

export interface SecuritySettings {
  /** The member id this node's certificate must name. */
  readonly id: string;
  /** PEM files; when set, both listeners and every outbound channel use TLS and peers authenticate each other. */
  readonly tls?: TlsFiles;
  /** Require and verify client certificates on the public port (needs tls). */
  readonly clientCertAuth: boolean;
  /** Enforce the replicated access rules (needs tls and clientCertAuth: principals must be proven). */
  readonly acl: boolean;
  /** Bootstrap admins (--admin, repeatable): principals that may do everything, rules or not. */
  readonly admins: readonly string[];
}
