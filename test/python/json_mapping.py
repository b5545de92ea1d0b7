"""Example files through protobuf's own proto3 JSON mapping (Python's json_format).

    python3 json_mapping.py DESCRIPTOR_SET FILE=batchwise.v1.Type ...

Parses each file into its message type (from the descriptor set the server serves; unknown
fields refused) and prints it back four ways: JSON names or proto field names, with or without
the fields at their defaults. test/validate/jsonMapping.test.ts validates each and compares.
"""
import json
import sys

from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory


def message_class(pool, name):
    desc = pool.FindMessageTypeByName(name)
    get = getattr(message_factory, "GetMessageClass", None)  # protobuf >= 4.22
    return get(desc) if get else message_factory.MessageFactory(pool).GetPrototype(desc)


def main(set_file, pairs):
    files = descriptor_pb2.FileDescriptorSet.FromString(open(set_file, "rb").read())
    pool = descriptor_pool.DescriptorPool()
    for f in files.file:  # protoc writes each file after its imports
        pool.Add(f)
    out = {}
    for pair in pairs:
        path, type_name = pair.split("=")
        message = json_format.ParseDict(json.load(open(path)), message_class(pool, type_name)())
        out[path] = {
            f"{names}{'+defaults' if defaults else ''}": json_format.MessageToDict(
                message, preserving_proto_field_name=(names == "proto"), including_default_value_fields=defaults)
            for names in ("json", "proto") for defaults in (False, True)
        }
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
