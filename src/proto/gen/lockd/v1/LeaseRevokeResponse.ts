// Original file: proto/lockd.proto


export interface LeaseRevokeResponse {
}

export interface LeaseRevokeResponse__Output {
}
