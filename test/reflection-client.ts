// A client of the gRPC server reflection protocol (grpc.reflection.v1 and v1alpha), as grpcurl uses it:
// one ServerReflectionInfo stream, one response per request. The protocol's .proto files come from
// @grpc/reflection's package; the FileDescriptorProtos it answers are decoded with protobuf-es.
import * as grpc from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema, type FileDescriptorProto } from "@bufbuild/protobuf/wkt";

export type ReflectionVersion = "v1" | "v1alpha";

export type ReflectionRequest = { listServices: string } | { fileContainingSymbol: string } | { fileByFilename: string };

export interface ReflectionResponse {
  listServicesResponse?: { service: Array<{ name: string }> };
  fileDescriptorResponse?: { fileDescriptorProto: Buffer[] };
  errorResponse?: { errorCode: number; errorMessage: string };
}

const PROTO_DIR = join(dirname(createRequire(import.meta.url).resolve("@grpc/reflection/package.json")), "build", "proto");

function clientConstructor(version: ReflectionVersion): grpc.ServiceClientConstructor {
  const definition = loadSync(`grpc/reflection/${version}/reflection.proto`, {
    includeDirs: [PROTO_DIR],
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const pkg = grpc.loadPackageDefinition(definition) as unknown as {
    grpc: { reflection: Record<ReflectionVersion, { ServerReflection: grpc.ServiceClientConstructor }> };
  };
  return pkg.grpc.reflection[version].ServerReflection;
}

/** Sends `requests` on one reflection stream to `address` and resolves with the responses, in order. */
export function reflect(
  address: string,
  version: ReflectionVersion,
  requests: readonly ReflectionRequest[],
  timeoutMs = 10_000,
): Promise<ReflectionResponse[]> {
  const Client = clientConstructor(version);
  const client = new Client(address, grpc.credentials.createInsecure());
  return new Promise<ReflectionResponse[]>((resolve, reject) => {
    const responses: ReflectionResponse[] = [];
    const call = (
      client as unknown as Record<string, (o: grpc.CallOptions) => grpc.ClientDuplexStream<unknown, ReflectionResponse>>
    ).ServerReflectionInfo!.call(client, { deadline: Date.now() + timeoutMs });
    call.on("data", (res: ReflectionResponse) => {
      responses.push(res);
      if (responses.length === requests.length) call.end();
    });
    call.on("error", reject);
    call.on("end", () => resolve(responses));
    for (const r of requests) call.write(r);
  }).finally(() => client.close());
}

/** The FileDescriptorProtos of a fileDescriptorResponse. */
export function filesOf(res: ReflectionResponse): FileDescriptorProto[] {
  if (!res.fileDescriptorResponse) throw new Error(`not a file descriptor response: ${JSON.stringify(res.errorResponse ?? res)}`);
  return res.fileDescriptorResponse.fileDescriptorProto.map((b) => fromBinary(FileDescriptorProtoSchema, b));
}
