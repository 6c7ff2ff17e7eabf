// Original file: proto/lockd.proto


export interface MemberListRequest {
}

export interface MemberListRequest__Output {
}
