// Original file: proto/lockd.proto


export interface LeaderRequest {
  'name'?: (string);
}

export interface LeaderRequest__Output {
  'name': (string);
}
