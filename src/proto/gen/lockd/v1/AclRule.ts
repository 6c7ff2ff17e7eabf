// Original file: proto/lockd.proto


export interface AclRule {
  /**
   * A principal (a client certificate's CN): 1-256 bytes of UTF-8, no control characters.
   */
  'principal'?: (string);
  /**
   * A name prefix ("" = every name), as lock names and fence keys are bounded (512 bytes).
   */
  'prefix'?: (string);
  /**
   * "lock", "fence", "read" or "admin".
   */
  'verb'?: (string);
}

export interface AclRule__Output {
  /**
   * A principal (a client certificate's CN): 1-256 bytes of UTF-8, no control characters.
   */
  'principal': (string);
  /**
   * A name prefix ("" = every name), as lock names and fence keys are bounded (512 bytes).
   */
  'prefix': (string);
  /**
   * "lock", "fence", "read" or "admin".
   */
  'verb': (string);
}
