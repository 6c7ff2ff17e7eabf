// Call metadata that tags a peer stream with its cluster and sender, checked before any envelope.
export const CLUSTER_ID_HEADER = 'lockd-cluster-id';
export const NODE_ID_HEADER = 'lockd-node-id';
