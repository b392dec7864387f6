#!/usr/bin/env python3
"""Writes the seed corpus, corpus/<target>/: inputs each target should take through a different path
(accepted, and refused for each reason the parser has), so fuzzing starts from every branch rather
than finding them by chance. Run from anywhere; it replaces the files it names and no others."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def npy(descr, shape, data, fortran=False, version=1, header=None):
    """An .npy file: magic, version, header length, the dict literal padded to 64 bytes, data."""
    text = header if header is not None else (
        "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape))
    prefix_length = 10 if version == 1 else 12
    padding = (-(prefix_length + len(text) + 1)) % 64
    body = (text + " " * padding + "\n").encode("latin-1")
    length = struct.pack("<H", len(body)) if version == 1 else struct.pack("<I", len(body))
    return b"\x93NUMPY" + bytes([version, 0]) + length + body + data


def f32(*values):
    return struct.pack("<%df" % len(values), *values)


FLOAT_FILES = {
    "npy_f4_vector": npy("<f4", "(3,)", f32(1, 2, 3)),
    "npy_f4_matrix": npy("<f4", "(2, 3)", f32(*range(6))),
    "npy_f4_scalar": npy("<f4", "()", f32(7)),
    "npy_f4_three_dims": npy("<f4", "(2, 1, 2)", f32(1, -1, 0.5, 1e-40)),
    "npy_f4_fortran": npy("<f4", "(2, 2)", f32(1, 2, 3, 4), fortran=True),
    "npy_f4_version2": npy("<f4", "(2,)", f32(1, 2), version=2),
    "npy_f4_version3": npy("<f4", "(1,)", f32(1), version=3),
    # Long headers: a parser that recurses per character of the shape or dtype overflows the stack.
    "npy_f4_long_shape": npy("<f4", "(" + " " * 20000 + "2,)", f32(1, 2)),
    "npy_long_descr": npy("f" * 20000, "(1,)", f32(1), version=2),
    "npy_f4_nan_inf": npy("<f4", "(3,)", f32(float("nan"), float("inf"), -float("inf"))),
    "npy_f8_vector": npy("<f8", "(2,)", struct.pack("<2d", 1.5, -2.25)),
    "npy_f8_matrix": npy("<f8", "(2, 2)", struct.pack("<4d", 1, 2, 3, 4)),
    "npy_f4_big_endian": npy(">f4", "(2,)", struct.pack(">2f", 1, 2)),
    "npy_f8_big_endian": npy(">f8", "(1,)", struct.pack(">d", 1)),
    "npy_i4": npy("<i4", "(2,)", struct.pack("<2i", 1, 2)),
    "npy_f2": npy("<f2", "(2,)", b"\x00\x3c\x00\x3c"),
    "npy_shape_too_large": npy("<f4", "(4,)", f32(1, 2)),
    "npy_shape_too_small": npy("<f4", "(1,)", f32(1, 2)),
    "npy_shape_overflows": npy("<f4", "(4294967296, 4294967296, 16)", f32(1)),
    "npy_shape_negative": npy("<f4", "(-1,)", f32(1)),
    "npy_shape_not_numbers": npy("<f4", "(a, b)", f32(1)),
    "npy_shape_zero": npy("<f4", "(0,)", b""),
    "npy_no_descr": npy("", "", f32(1), header="{'shape': (1,), 'fortran_order': False}"),
    "npy_no_shape": npy("", "", f32(1), header="{'descr': '<f4', 'fortran_order': False}"),
    "npy_header_past_end": b"\x93NUMPY\x01\x00\xff\xff{'descr': '<f4'",
    "npy_version9": b"\x93NUMPY\x09\x00" + b"\x00" * 8,
    "npy_magic_only": b"\x93NUMPY",
    "npy_odd_data": npy("<f4", "(1,)", f32(1) + b"\x00"),
    "npy_double_quoted": npy("", "", f32(1, 2), header='{"descr": "<f4", "fortran_order": False, "shape": (2,)}'),
    "npy_descr_twice": npy("", "", f32(1, 2), header="{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'descr': '<f4'}"),
    "raw_f32": f32(1, 2, 3, 4),
    "raw_f32_one": f32(0.1),
    "raw_odd_length": b"\x00\x00\x80\x3f\x00",
    "empty": b"",
}

# The dict of an .npy header alone (npy_header.cpp): what NumPy writes and reads, and each way
# bench/npy_header.cpp refuses one.
NPY_HEADERS = {
    "numpy_writes": "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }" + " " * 60 + "\n",
    "double_quotes": '{"descr": "<f8", "fortran_order": True, "shape": (2, 3)}',
    "no_spaces": "{'descr':'<f2','fortran_order':False,'shape':()}",
    "keys_reordered": "{'shape': (1, 2, 3,),\n 'descr': '<f4', 'fortran_order': False}",
    "underscores": "{'descr': '<f4', 'fortran_order': False, 'shape': (1_000, 2)}",
    "python2_long": "{'descr': '<f4', 'fortran_order': False, 'shape': (3L, 2L), }",
    "quote_in_descr": "{'descr': \"a'b\", 'fortran_order': False, 'shape': (1,)}",
    "descr_twice": "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), 'descr': '<f4'}",
    "shape_twice": "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'shape': (6,)}",
    "missing_order": "{'descr': '<f4', 'shape': (3,)}",
    "extra_key": "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'x': 1}",
    "not_a_tuple": "{'descr': '<f4', 'fortran_order': False, 'shape': (3)}",
    "negative": "{'descr': '<f4', 'fortran_order': False, 'shape': (-3,)}",
    "leading_zero": "{'descr': '<f4', 'fortran_order': False, 'shape': (03,)}",
    "overflow": "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16)}",
    "huge_number": "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,)}",
    "escape": "{'descr': '<\\x66', 'fortran_order': False, 'shape': (1,)}",
    "unterminated": "{'descr': '<f4, 'fortran_order': False, 'shape': (1,)}",
    "nested": "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': ((1,),)}",
    "trailing_text": "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} # comment",
    "integer_order": "{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}",
    "empty_dict": "{}",
    "empty": "",
}

SIZES = {
    "power": "2^24",
    "range": "2^10..2^26",
    "count": "16777216",
    "bytes": "32MiB..4GiB",
    "list": "2^10,1000003,64KiB,2^12..2^14",
    "largest": "2^40",
    "too_large": "2^41",
    "backwards": "2^20..2^10",
    "not_power_range": "1000..2^20",
    "decimal_unit": "32MB",
    "zero": "0",
    "tiny_bytes": "1KiB,3B",
    "overflow": "18446744073709551616",
    "huge_bytes": "17179869184TiB",
    "empty_part": "2^10,,2^12",
    "dots": "....",
}

COMMAND_LINES = {
    "sweep": ["--backend=cpu/*", "--sizes=2^10..2^20", "--threads=1,2,4", "--csv=out.csv"],
    "file_input": ["--input=file:data.npy", "--json=out.json"],
    "file_and_sizes": ["--input=file:data.f32", "--sizes=2^10"],
    "hard_inputs": ["--input=ill:1e16", "--seed=7", "--input=wide", "--input=cancel"],
    "bad_condition": ["--input=ill:1e99"],
    "per_thread": ["--sizes=per-thread:2^10..2^12", "--threads=2"],
    "gpus": ["--gpus=1,2,8", "--include-transfer", "--backend=cuda"],
    "counts_out_of_range": ["--threads=0", "--gpus=1025"],
    "repeated_counts": ["--threads=4,4,2,4"],
    "benchmark_flags": ["--benchmark_repetitions=3", "--benchmark_min_time=0.01s", "--benchmark_filter=cpu"],
    "benchmark_refused": ["--benchmark_out=x.json", "--benchmark_min_time=100x", "--benchmark_repetitions=0"],
    "dtypes": ["--dtype=f32,f64", "--backend=cpu/serial/*"],
    "flags_with_values": ["--help=1", "--list", "--machine"],
    "missing_values": ["--sizes=", "--csv", "--seed=-1"],
    "unknown": ["--frobnicate", "-x", ""],
}


def write(target, name, data):
    directory = os.path.join(HERE, "corpus", target)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


for name, data in FLOAT_FILES.items():
    write("float_file", name, data)
for name, dict_text in NPY_HEADERS.items():
    write("npy_header", name, dict_text)
for name, spec in SIZES.items():
    write("sizes", name, spec)
for name, args in COMMAND_LINES.items():
    write("command_line", name, "\n".join(args))  # command_line.cpp reads one argument per line
