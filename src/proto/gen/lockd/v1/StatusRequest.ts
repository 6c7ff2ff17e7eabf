// Original file: proto/lockd.proto


export interface StatusRequest {
}

export interface StatusRequest__Output {
}
