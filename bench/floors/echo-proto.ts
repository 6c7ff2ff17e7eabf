// The echo service of echo.proto, loaded with @grpc/proto-loader (server and client).
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

const def = protoLoader.loadSync(join(import.meta.dirname, 'echo.proto'), { keepCase: true, defaults: true });
export const Echo = (grpc.loadPackageDefinition(def) as unknown as { benchecho: { Echo: grpc.ServiceClientConstructor } }).benchecho.Echo;
