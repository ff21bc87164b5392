#!/usr/bin/env python3
"""Writes the PTX held by a gpu.binary (gpu-module-to-binary format=isa)."""
import re, sys

text = open(sys.argv[1]).read()
match = re.search(r'assembly = "((?:[^"\\]|\\.)*)"', text, re.S)
if not match:
    sys.exit("no gpu.binary assembly found")
escaped, out, i = match.group(1), bytearray(), 0
simple = {"\\": b"\\", '"': b'"', "n": b"\n", "t": b"\t"}
while i < len(escaped):
    if escaped[i] != "\\":
        out += escaped[i].encode()
        i += 1
    elif escaped[i + 1] in simple:
        out += simple[escaped[i + 1]]
        i += 2
    else:  # \XX: a hex-escaped byte
        out.append(int(escaped[i + 1:i + 3], 16))
        i += 3
open(sys.argv[2], "wb").write(bytes(out).rstrip(b"\0"))
