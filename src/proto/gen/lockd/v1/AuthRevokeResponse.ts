// Original file: proto/lockd.proto


export interface AuthRevokeResponse {
  'removed'?: (boolean);
}

export interface AuthRevokeResponse__Output {
  'removed': (boolean);
}
