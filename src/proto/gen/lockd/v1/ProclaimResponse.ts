// Original file: proto/lockd.proto


export interface ProclaimResponse {
}

export interface ProclaimResponse__Output {
}
