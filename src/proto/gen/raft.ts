import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { Entry as _raft_v1_Entry, Entry__Output as _raft_v1_Entry__Output } from './raft/v1/Entry.js';
import type { Envelope as _raft_v1_Envelope, Envelope__Output as _raft_v1_Envelope__Output } from './raft/v1/Envelope.js';
import type { Message as _raft_v1_Message, Message__Output as _raft_v1_Message__Output } from './raft/v1/Message.js';
import type { RaftClient as _raft_v1_RaftClient, RaftDefinition as _raft_v1_RaftDefinition } from './raft/v1/Raft.js';
import type { Snapshot as _raft_v1_Snapshot, Snapshot__Output as _raft_v1_Snapshot__Output } from './raft/v1/Snapshot.js';
import type { SnapshotChunk as _raft_v1_SnapshotChunk, SnapshotChunk__Output as _raft_v1_SnapshotChunk__Output } from './raft/v1/SnapshotChunk.js';
import type { SnapshotMetadata as _raft_v1_SnapshotMetadata, SnapshotMetadata__Output as _raft_v1_SnapshotMetadata__Output } from './raft/v1/SnapshotMetadata.js';
import type { StreamSummary as _raft_v1_StreamSummary, StreamSummary__Output as _raft_v1_StreamSummary__Output } from './raft/v1/StreamSummary.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  raft: {
    v1: {
      Entry: MessageTypeDefinition<_raft_v1_Entry, _raft_v1_Entry__Output>
      EntryType: EnumTypeDefinition
      Envelope: MessageTypeDefinition<_raft_v1_Envelope, _raft_v1_Envelope__Output>
      Message: MessageTypeDefinition<_raft_v1_Message, _raft_v1_Message__Output>
      MessageType: EnumTypeDefinition
      /**
       * Node-to-node Raft traffic.
       */
      Raft: SubtypeConstructor<typeof grpc.Client, _raft_v1_RaftClient> & { service: _raft_v1_RaftDefinition }
      Snapshot: MessageTypeDefinition<_raft_v1_Snapshot, _raft_v1_Snapshot__Output>
      SnapshotChunk: MessageTypeDefinition<_raft_v1_SnapshotChunk, _raft_v1_SnapshotChunk__Output>
      SnapshotMetadata: MessageTypeDefinition<_raft_v1_SnapshotMetadata, _raft_v1_SnapshotMetadata__Output>
      StreamSummary: MessageTypeDefinition<_raft_v1_StreamSummary, _raft_v1_StreamSummary__Output>
    }
  }
}

