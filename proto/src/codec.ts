/**
 * The grpc-js codec of the services in gen/: protoc-gen-es v2 emits `GenService` descriptors,
 * grpc-js wants a ServiceDefinition of paths and binary (de)serializers. One copy, shared by the
 * client library's stubs (@ladder/client/grpc-stub) and the servers' adapter
 * (@ladder/platform/grpc-adapter).
 */
import type * as grpc from "@grpc/grpc-js";
import { fromBinary, toBinary, type DescMethod, type DescService, type Message } from "@bufbuild/protobuf";

/** grpc-js's definition of one method: its path and the binary protobuf (de)serializers of its messages. */
export function methodDefinition(m: DescMethod): grpc.MethodDefinition<Message, Message> {
  return {
    path: `/${m.parent.typeName}/${m.name}`,
    requestStream: m.methodKind === "client_streaming" || m.methodKind === "bidi_streaming",
    responseStream: m.methodKind === "server_streaming" || m.methodKind === "bidi_streaming",
    requestSerialize: (msg: Message) => asBuffer(toBinary(m.input, msg as never)),
    requestDeserialize: (buf: Buffer) => fromBinary(m.input, buf),
    responseSerialize: (msg: Message) => asBuffer(toBinary(m.output, msg as never)),
    responseDeserialize: (buf: Buffer) => fromBinary(m.output, buf),
  };
}

/** The bytes toBinary made, as a Buffer over the same memory (no copy: nothing writes them after). */
const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** The grpc-js ServiceDefinition of a protobuf-es service descriptor, keyed by the methods' local names. */
export function serviceDefinition(service: DescService): grpc.ServiceDefinition {
  return Object.fromEntries(service.methods.map((m) => [m.localName, methodDefinition(m)])) as grpc.ServiceDefinition;
}
