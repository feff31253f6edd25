/**
 * gRPC server reflection (grpc.reflection.v1 and grpc.reflection.v1alpha, @grpc/reflection)
 * over the services a server serves, so that generic clients (grpcurl, grpcui, Postman) can
 * list and describe them and call them without the .proto files.
 *
 * @grpc/reflection answers from a package definition's `fileDescriptorProtos` (serialized
 * FileDescriptorProtos). Ours come from the protobuf-es descriptors the server itself encodes
 * and decodes with (each service's file and the files it imports, as embedded in proto/gen by
 * protoc-gen-es), not from the .proto files at run time: what reflection describes is exactly
 * what the server speaks, and nothing has to be found on disk. The embedded descriptors carry
 * no comments (proto/leaderboard/v1/*.proto has them).
 *
 * grpc-adapter.ts's `listen` adds it to every server, over the services added with
 * `addService`. Reflection answers without a token: it tells what the API is, nothing of the
 * data.
 */
import type * as grpc from "@grpc/grpc-js";
import { toBinary, type DescFile, type DescService } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { ReflectionService } from "@grpc/reflection";

type PackageDefinition = ConstructorParameters<typeof ReflectionService>[0];

/** The serialized FileDescriptorProtos of `services`' files and every file they import. */
export function fileDescriptorProtos(services: readonly DescService[]): Buffer[] {
  const files = new Map<string, DescFile>();
  const visit = (file: DescFile) => {
    if (files.has(file.proto.name)) return;
    files.set(file.proto.name, file);
    file.dependencies.forEach(visit);
  };
  services.forEach((s) => visit(s.file));
  return [...files.values()].map((f) => Buffer.from(toBinary(FileDescriptorProtoSchema, f.proto)));
}

/** Adds grpc.reflection.v1 and v1alpha ServerReflection to `server`, describing `services`. */
export function addReflection(server: grpc.Server, services: readonly DescService[]): void {
  const protos = fileDescriptorProtos(services);
  const definition = Object.fromEntries(
    services.map((s) => [s.typeName, { format: "Protocol Buffer 3 FileDescriptorProto", type: {}, fileDescriptorProtos: protos }]),
  );
  new ReflectionService(definition as unknown as PackageDefinition, { services: services.map((s) => s.typeName) }).addToServer(server);
}
