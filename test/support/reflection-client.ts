// A gRPC server-reflection client (grpc.reflection.v1, the proto @grpc/reflection ships), as
// grpcurl uses it: one bidi stream, one answer per request, in order.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

const REFLECTION_PROTO = join(
  dirname(createRequire(import.meta.url).resolve('@grpc/reflection')),
  '..',
  'proto',
  'grpc',
  'reflection',
  'v1',
  'reflection.proto',
);

export interface ReflectionAnswer {
  readonly listServicesResponse?: { service: Array<{ name: string }> };
  readonly fileDescriptorResponse?: { fileDescriptorProto: Buffer[] };
  readonly errorResponse?: { errorCode: number; errorMessage: string };
}

type Stream = grpc.ClientDuplexStream<Record<string, unknown>, ReflectionAnswer>;
type ReflectionCtor = new (address: string, creds: grpc.ChannelCredentials) => grpc.Client & { ServerReflectionInfo(): Stream };

function reflectionClientClass(): ReflectionCtor {
  const def = protoLoader.loadSync(REFLECTION_PROTO, { keepCase: false, longs: Number, enums: String, defaults: true, oneofs: true });
  const pkg = grpc.loadPackageDefinition(def) as unknown as { grpc: { reflection: { v1: { ServerReflection: ReflectionCtor } } } };
  return pkg.grpc.reflection.v1.ServerReflection;
}

export class ReflectionClient {
  private readonly client: InstanceType<ReflectionCtor>;

  constructor(address: string) {
    this.client = new (reflectionClientClass())(address, grpc.credentials.createInsecure());
  }

  /** Send one request on a fresh stream and return its answer (or the stream's failure). */
  ask(request: Record<string, unknown>, timeoutMs = 5000): Promise<ReflectionAnswer> {
    return new Promise((resolve, reject) => {
      const call = this.client.ServerReflectionInfo();
      const timer = setTimeout(() => (call.cancel(), reject(new Error(`no reflection answer in ${timeoutMs} ms`))), timeoutMs);
      call.on('data', (a: ReflectionAnswer) => {
        clearTimeout(timer);
        call.end();
        resolve(a);
      });
      call.on('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      call.write(request);
    });
  }

  async services(): Promise<string[]> {
    const a = await this.ask({ listServices: '' });
    if (!a.listServicesResponse) throw new Error(`listServices answered ${JSON.stringify(a)}`);
    return a.listServicesResponse.service.map((s) => s.name).sort();
  }

  /** The file descriptors (serialized FileDescriptorProto) holding `symbol`, with their dependencies. */
  async fileContainingSymbol(symbol: string): Promise<Buffer[]> {
    const a = await this.ask({ fileContainingSymbol: symbol });
    if (!a.fileDescriptorResponse) throw new Error(`fileContainingSymbol(${symbol}) answered ${JSON.stringify(a.errorResponse ?? a)}`);
    return a.fileDescriptorResponse.fileDescriptorProto;
  }

  /** A raw stream, for tests that misbehave on it. */
  stream(): Stream {
    return this.client.ServerReflectionInfo();
  }

  close(): void {
    this.client.close();
  }
}

/** A serialized FileDescriptorSet of these FileDescriptorProtos (field 1, repeated, length-delimited). */
export function fileDescriptorSet(files: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [];
  for (const f of files) {
    const len: number[] = [];
    for (let n = f.length; ; n >>>= 7) {
      if (n < 0x80) {
        len.push(n);
        break;
      }
      len.push((n & 0x7f) | 0x80);
    }
    parts.push(Buffer.from([0x0a, ...len]), f);
  }
  return Buffer.concat(parts);
}
