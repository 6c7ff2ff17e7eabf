// Original file: proto/lockd.proto


export interface LeaseListRequest {
}

export interface LeaseListRequest__Output {
}
