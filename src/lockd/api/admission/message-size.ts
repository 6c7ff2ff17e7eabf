// What an outbound message costs while it waits for a slow reader, estimated from the object
// (before grpc-js serializes it): bytes and strings at their length, numbers at a varint's most,
// plus a fixed cost per message for the object itself. Exact sizes would mean serializing twice;
// the budget needs the big parts right (fenced values, election values, lists of names), and those
// are counted byte for byte.

/** What one queued message costs beyond its fields (the object, its queue slot, its write callback). */
export const MESSAGE_OVERHEAD_BYTES = 64;

/**
 * Nesting followed at most: a request's Session batches nest up to MAX_BATCH_DEPTH (8) deep, each
 * level two objects (the batch array, an element) above its fields, so 24 sees every byte of one the
 * scan lets through (at 8, a name inside 4 nested batches was charged nothing). The walk is bounded
 * by the message's size (at most 4 MiB), not by this depth.
 */
const MAX_DEPTH = 24;

/** Approximate encoded bytes of a message object (see the file comment). */
export function messageBytes(message: unknown): number {
  return MESSAGE_OVERHEAD_BYTES + fieldBytes(message, 0);
}

function fieldBytes(v: unknown, depth: number): number {
  switch (typeof v) {
    case 'string':
      return 2 + v.length;
    case 'number':
    case 'bigint':
      return 10;
    case 'boolean':
      return 2;
    case 'object': {
      if (v === null) return 0;
      if (ArrayBuffer.isView(v)) return 4 + v.byteLength;
      if (depth >= MAX_DEPTH) return 0;
      let n = 2;
      if (Array.isArray(v)) for (const x of v) n += fieldBytes(x, depth + 1);
      else for (const k in v) n += fieldBytes((v as Record<string, unknown>)[k], depth + 1);
      return n;
    }
    default:
      return 0;
  }
}
