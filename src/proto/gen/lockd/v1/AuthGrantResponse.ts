// Original file: proto/lockd.proto


export interface AuthGrantResponse {
  'created'?: (boolean);
}

export interface AuthGrantResponse__Output {
  'created': (boolean);
}
