// Original file: proto/lockd.proto


export interface SnapshotRequest {
}

export interface SnapshotRequest__Output {
}
