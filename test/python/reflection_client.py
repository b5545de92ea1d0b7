"""An outside client of batchwise: Python's grpcio and protobuf, the server's address, nothing else.

    python3 reflection_client.py HOST:PORT SCENARIO_JSON

Lists the services over server reflection (grpc.reflection.v1, its own descriptor written below),
fetches the file descriptors of BatchingPolicy and of google.rpc.BadRequest with their imports,
builds a descriptor pool from them alone (no .proto file of the project), describes Solve and
SolveBatch, calls them with messages built from the pool, sends a bad scenario and reads the
google.rpc.BadRequest in grpc-status-details-bin. Prints one JSON object of what it found;
test/service/python.test.ts checks it. Debian bookworm: python3-grpcio 1.51, python3-protobuf 3.21.
"""
import json
import sys

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory, text_format

SERVICE = "batchwise.v1.BatchingPolicy"

# The part of grpc/reflection/v1/reflection.proto this client uses (same names and numbers).
REFLECTION_PROTO = """
name: "grpc/reflection/v1/reflection.proto" package: "grpc.reflection.v1" syntax: "proto3"
message_type {
  name: "ServerReflectionRequest"
  field { name: "host" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING }
  field { name: "file_by_filename" number: 3 label: LABEL_OPTIONAL type: TYPE_STRING oneof_index: 0 }
  field { name: "file_containing_symbol" number: 4 label: LABEL_OPTIONAL type: TYPE_STRING oneof_index: 0 }
  field { name: "list_services" number: 7 label: LABEL_OPTIONAL type: TYPE_STRING oneof_index: 0 }
  oneof_decl { name: "message_request" }
}
message_type {
  name: "ServerReflectionResponse"
  field { name: "valid_host" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING }
  field { name: "file_descriptor_response" number: 4 label: LABEL_OPTIONAL type: TYPE_MESSAGE
          type_name: ".grpc.reflection.v1.FileDescriptorResponse" oneof_index: 0 }
  field { name: "list_services_response" number: 6 label: LABEL_OPTIONAL type: TYPE_MESSAGE
          type_name: ".grpc.reflection.v1.ListServiceResponse" oneof_index: 0 }
  field { name: "error_response" number: 7 label: LABEL_OPTIONAL type: TYPE_MESSAGE
          type_name: ".grpc.reflection.v1.ErrorResponse" oneof_index: 0 }
  oneof_decl { name: "message_response" }
}
message_type {
  name: "FileDescriptorResponse"
  field { name: "file_descriptor_proto" number: 1 label: LABEL_REPEATED type: TYPE_BYTES }
}
message_type {
  name: "ListServiceResponse"
  field { name: "service" number: 1 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".grpc.reflection.v1.ServiceResponse" }
}
message_type { name: "ServiceResponse" field { name: "name" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING } }
message_type {
  name: "ErrorResponse"
  field { name: "error_code" number: 1 label: LABEL_OPTIONAL type: TYPE_INT32 }
  field { name: "error_message" number: 2 label: LABEL_OPTIONAL type: TYPE_STRING }
}
"""


def message_class(pool, name):
    desc = pool.FindMessageTypeByName(name)
    get = getattr(message_factory, "GetMessageClass", None)  # protobuf >= 4.22
    return get(desc) if get else message_factory.MessageFactory(pool).GetPrototype(desc)


def reflection_stub(channel):
    pool = descriptor_pool.DescriptorPool()
    pool.Add(text_format.Parse(REFLECTION_PROTO, descriptor_pb2.FileDescriptorProto()))
    req = message_class(pool, "grpc.reflection.v1.ServerReflectionRequest")
    res = message_class(pool, "grpc.reflection.v1.ServerReflectionResponse")
    call = channel.stream_stream(
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        request_serializer=req.SerializeToString,
        response_deserializer=res.FromString,
    )

    def ask(**kw):
        (answer,) = list(call(iter([req(**kw)]), timeout=30))
        if answer.WhichOneof("message_response") == "error_response":
            raise RuntimeError(f"reflection refused {kw}: {answer.error_response.error_message}")
        return answer

    return ask


def fetch_files(ask, symbols):
    """The FileDescriptorProtos of the files defining `symbols`, and of everything they import."""
    files = {}

    def keep(answer):
        for raw in answer.file_descriptor_response.file_descriptor_proto:
            f = descriptor_pb2.FileDescriptorProto.FromString(raw)
            files.setdefault(f.name, f)

    for s in symbols:
        keep(ask(file_containing_symbol=s))
    missing = [d for f in list(files.values()) for d in f.dependency if d not in files]
    while missing:
        keep(ask(file_by_filename=missing.pop()))
        missing = [d for f in list(files.values()) for d in f.dependency if d not in files]
    return files


def build_pool(files):
    """A fresh pool holding `files`, each added after its imports (a pool refuses it otherwise)."""
    pool, added = descriptor_pool.DescriptorPool(), set()

    def add(name):
        if name in added:
            return
        for d in files[name].dependency:
            add(d)
        pool.Add(files[name])
        added.add(name)

    for name in sorted(files):
        add(name)
    return pool


def describe_method(pool, name):
    m = pool.FindMethodByName(f"{SERVICE}.{name}")
    proto = descriptor_pb2.MethodDescriptorProto()
    m.CopyToProto(proto)
    return {"input": m.input_type.full_name, "output": m.output_type.full_name, "serverStreaming": proto.server_streaming}


def descriptor_facts(files, pool):
    """What protoc puts in a descriptor and proto-loader's lacked: map entries, json_name, synthetic oneofs, comments."""
    batchwise = files["batchwise/v1/batchwise.proto"]
    group = pool.FindMessageTypeByName("batchwise.v1.AcceleratorGroup")
    entry = group.fields_by_name["service_time"].message_type
    solver = next(m for m in batchwise.message_type if m.name == "SolverOptions")
    simulate = next(m for m in batchwise.message_type if m.name == "SimulateRequest")
    seed = next(f for f in simulate.field if f.name == "seed")
    locations = batchwise.source_code_info.location
    comments = [l.leading_comments.strip() for l in locations if l.leading_comments]
    trailing = [l.trailing_comments.strip() for l in locations if l.trailing_comments]
    return {
        "mapEntry": entry.full_name,
        "mapEntryOption": entry.GetOptions().map_entry,
        "solverFields": [[f.name, f.json_name] for f in solver.field],
        "seedOneof": simulate.oneof_decl[seed.oneof_index].name,
        "seedProto3Optional": seed.proto3_optional,
        "comments": len(comments),
        "trailingComments": len(trailing),
        "solveComment": next((c for c in comments if c.startswith("Progress at a bounded rate")), None),
    }


def main(address, scenario_file):
    scenario = json.load(open(scenario_file))
    channel = grpc.insecure_channel(address)
    ask = reflection_stub(channel)
    services = sorted(s.name for s in ask(list_services="*").list_services_response.service)
    files = fetch_files(ask, [SERVICE, "google.rpc.BadRequest", "google.rpc.Status"])
    pool = build_pool(files)
    out = {"services": services, "files": sorted(files), "solve": describe_method(pool, "Solve"),
           "solveBatch": describe_method(pool, "SolveBatch"), "descriptor": descriptor_facts(files, pool)}

    def stream(method, request):
        desc = pool.FindMethodByName(f"{SERVICE}.{method}")
        reply = message_class(pool, desc.output_type.full_name)
        call = channel.unary_stream(f"/{SERVICE}/{method}", request_serializer=type(request).SerializeToString,
                                    response_deserializer=reply.FromString)
        return list(call(request, timeout=120))

    solve_request = message_class(pool, "batchwise.v1.SolveRequest")
    updates = stream("Solve", json_format.ParseDict({"scenario": scenario, "progressIntervalMs": 10}, solve_request()))
    final = updates[-1]
    out["solveResult"] = {"updates": len(updates), "done": final.done, "averageCost": final.result.average_cost,
                          "controlLimit": final.result.policy.control_limit,
                          "json": json_format.MessageToDict(final.result)}

    batch_request = message_class(pool, "batchwise.v1.SolveBatchRequest")
    grid = {"grid": {"base": scenario, "arrival_rate": [1000, 2000]}}  # proto field names, as ParseDict allows
    results = stream("SolveBatch", json_format.ParseDict(grid, batch_request()))
    out["batch"] = sorted([[r.index, r.parameters.arrival_rate, r.WhichOneof("outcome"), r.result.policy.control_limit] for r in results])

    def failure(call):
        """The status of a call that should fail, read as a client in any language would."""
        try:
            call()
            return None
        except grpc.RpcError as e:
            trailers = dict(e.trailing_metadata() or ())
            if "grpc-status-details-bin" not in trailers:
                return {"code": e.code().name, "details": e.details(), "trailers": sorted(trailers)}
            status = message_class(pool, "google.rpc.Status").FromString(trailers["grpc-status-details-bin"])
            detail = status.details[0]
            bad_request = message_class(pool, detail.type_url.split("/")[-1]).FromString(detail.value)
            return {"code": e.code().name, "details": e.details(), "field": trailers.get("batchwise-field"),
                    "trailerBytes": sum(len(k) + len(v) for k, v in trailers.items()),
                    "status": {"code": status.code, "message": status.message, "typeUrl": detail.type_url},
                    "violations": [[v.field, v.description] for v in bad_request.field_violations]}

    bad = dict(scenario, serviceTime=dict(scenario["serviceTime"], distribution="GAMMA", cv=-1))
    out["invalid"] = failure(lambda: stream("Solve", json_format.ParseDict({"scenario": bad}, solve_request())))

    # A unary call whose refusal echoes 100,000 characters of input: the trailers stay bounded.
    simulate = pool.FindMethodByName(f"{SERVICE}.Simulate")
    request = message_class(pool, simulate.input_type.full_name)
    huge = json_format.ParseDict({"scenario": scenario, "policy": "triton:" + "\u00e9" * 100000}, request())
    call = channel.unary_unary(f"/{SERVICE}/Simulate", request_serializer=type(huge).SerializeToString,
                               response_deserializer=message_class(pool, simulate.output_type.full_name).FromString)
    out["huge"] = failure(lambda: call(huge, timeout=30))
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
