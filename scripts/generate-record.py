#!/usr/bin/env python3
"""Writes a Burn 0.21 NamedMpkFileRecorder record of about SIZE_MB megabytes, the way
rmp_serde::encode::write_named writes `BurnRecord { metadata, item, _b }` for a module
`{ layers: Vec<Linear { weight: Param<Tensor<2>>, bias: Option<Param<Tensor<1>>> }> }`
(1024x1024 f32 weights), to measure `burn-migrate records convert` on large files.

usage: scripts/generate-record.py SIZE_MB OUT [--gzip] [--json]

--json writes the same record as PrettyJsonFileRecorder does (serde_json, bytes as arrays of
numbers, one per line), about five times the size of its tensor data.
"""
import json
import gzip
import struct
import sys

DIM = 1024


def write_str(out, text):
    data = text.encode()
    if len(data) < 32:
        out.write(bytes([0xA0 | len(data)]))
    else:
        out.write(bytes([0xD9, len(data)]))
    out.write(data)


def write_map(out, n):
    out.write(bytes([0x80 | n]))


def write_array(out, n):
    if n < 16:
        out.write(bytes([0x90 | n]))
    else:
        out.write(b"\xdc" + struct.pack(">H", n))


def write_uint(out, n):
    if n < 128:
        out.write(bytes([n]))
    else:
        out.write(b"\xcd" + struct.pack(">H", n))


def param_id(n):
    alphabet = "0123456789abcdefghijklmnopqrstuv"
    value = int.from_bytes(struct.pack("<Q", n), "big") << 1
    return "".join(alphabet[(value >> (5 * (12 - i))) & 31] for i in range(13))


def write_param(out, ident, shape, block):
    write_map(out, 2)
    write_str(out, "id")
    write_str(out, param_id(ident))
    write_str(out, "param")
    write_map(out, 3)
    write_str(out, "bytes")
    size = 4
    for dim in shape:
        size *= dim
    out.write(b"\xc6" + struct.pack(">I", size))
    for start in range(0, size, len(block)):
        out.write(block[: min(len(block), size - start)])
    write_str(out, "shape")
    write_array(out, len(shape))
    for dim in shape:
        write_uint(out, dim)
    write_str(out, "dtype")
    write_str(out, "F32")


def write_json(out, layers, block):
    def param(ident, shape):
        size = 4
        for dim in shape:
            size *= dim
        data = (block * (size // len(block) + 1))[:size]
        numbers = ",\n          ".join(str(b) for b in data)
        return (
            '{\n      "id": "%s",\n      "param": {\n        "bytes": [\n          %s\n        ],'
            '\n        "shape": %s,\n        "dtype": "F32"\n      }\n    }'
            % (param_id(ident), numbers, json.dumps(shape))
        )

    out.write(b'{\n  "metadata": {"float": "f32", "int": "i32", "format": "PrettyJsonFileRecorder",'
              b' "version": "0.21.0", "settings": "FullPrecisionSettings"},\n  "item": {"layers": [')
    for layer in range(layers):
        if layer:
            out.write(b",")
        weight = param(2 * layer + 1, [DIM, DIM])
        bias = param(2 * layer + 2, [DIM])
        out.write(('{"weight": %s, "bias": %s}' % (weight, bias)).encode())
    out.write(b']},\n  "_b": null\n}')


def main():
    size_mb, path = int(sys.argv[1]), sys.argv[2]
    layers = max(1, size_mb * 1024 * 1024 // (4 * DIM * DIM))
    opener = gzip.open if "--gzip" in sys.argv else open
    block = bytes(range(256)) * 4096
    if "--json" in sys.argv:
        with opener(path, "wb") as out:
            write_json(out, layers, block)
        return
    with opener(path, "wb") as out:
        write_map(out, 3)
        write_str(out, "metadata")
        write_map(out, 5)
        for key, value in [
            ("float", "f32"),
            ("int", "i32"),
            ("format", "burn_core::record::file::NamedMpkFileRecorder<FullPrecisionSettings>"),
            ("version", "0.21.0"),
            ("settings", "FullPrecisionSettings"),
        ]:
            write_str(out, key)
            write_str(out, value)
        write_str(out, "item")
        write_map(out, 1)
        write_str(out, "layers")
        write_array(out, layers)
        for layer in range(layers):
            write_map(out, 2)
            write_str(out, "weight")
            write_param(out, 2 * layer + 1, [DIM, DIM], block)
            write_str(out, "bias")
            write_param(out, 2 * layer + 2, [DIM], block)
        write_str(out, "_b")
        write_array(out, 0)


if __name__ == "__main__":
    main()
