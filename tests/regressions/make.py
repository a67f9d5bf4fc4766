"""Writes the hostile inputs in this folder (run: python3 make.py). Each file is a Fetch v12 frame named
<what>.v12.<EXPECTED ERROR CODE>.bin; tests/robustness.rs decodes each (CRC skipped, 4 MiB limit) and
checks that it ends in exactly that typed error."""
import struct, zlib


def uvarint(n):
    out = b""
    while n >= 0x80:
        out += bytes([n & 0x7F | 0x80])
        n >>= 7
    return out + bytes([n])


def frame_with_records(records):
    """A v12 response: header, one topic 't', one partition 0 holding `records`."""
    body = struct.pack(">i", 7) + b"\x00"  # correlation id, header tagged fields
    body += struct.pack(">ihi", 0, 0, 0)  # throttle, error code, session id
    body += uvarint(2) + uvarint(2) + b"t"  # one topic named "t"
    body += uvarint(2) + struct.pack(">ihqqq", 0, 0, 10, 10, 0)  # one partition, hw, lso, log start
    body += uvarint(1) + struct.pack(">i", -1)  # aborted: empty, preferred read replica
    body += uvarint(len(records) + 1) + records + b"\x00"  # records, partition tagged fields
    body += b"\x00" + b"\x00"  # topic and response tagged fields
    return body


def batch(codec, records_section, record_count=1):
    """A magic 2 batch (CRC left 0: the test skips CRCs)."""
    head = struct.pack(">ibIhiqqqhii", 0, 2, 0, codec, 0, 0, 0, -1, -1, -1, record_count)
    return struct.pack(">qi", 0, len(head) + len(records_section)) + head + records_section


def xxh32(data, seed=0):
    """XXH32, for the lz4 frame header checksum."""
    p1, p2, p3, p4, p5 = 2654435761, 2246822519, 3266489917, 668265263, 374761393
    rotl = lambda x, r: ((x << r) | (x >> (32 - r))) & 0xFFFFFFFF
    assert len(data) < 16  # enough for a frame descriptor
    h = (seed + p5 + len(data)) & 0xFFFFFFFF
    i = 0
    while i + 4 <= len(data):
        h = (rotl((h + struct.unpack("<I", data[i:i + 4])[0] * p3) & 0xFFFFFFFF, 17) * p4) & 0xFFFFFFFF
        i += 4
    for b in data[i:]:
        h = (rotl((h + b * p5) & 0xFFFFFFFF, 11) * p1) & 0xFFFFFFFF
    h ^= h >> 15
    h = (h * p2) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * p3) & 0xFFFFFFFF
    return h ^ (h >> 16)


def write(name, data):
    with open(name, "wb") as f:
        f.write(data)


# 2^32-1 topics in a 20-byte frame: rejected before anything is sized by the count
write("topic-count-past-the-input.v12.TRUNCATED.bin", struct.pack(">i", 7) + b"\x00" + struct.pack(">ihi", 0, 0, 0) + uvarint(0xFFFFFFFF))
# a snappy block declaring 4 GiB of output in 7 bytes
write("snappy-declares-4gib.v12.DECOMPRESSION_LIMIT.bin", frame_with_records(batch(2, uvarint(0xFFFFFFFF) + b"\x00\x00")))
# 64 MiB of zeros in ~64 KiB of deflate: a bomb past the 4 MiB limit
bomb = zlib.compressobj(9, zlib.DEFLATED, 31)
gz = bomb.compress(b"\x00" * (64 << 20)) + bomb.flush()
write("gzip-bomb.v12.DECOMPRESSION_LIMIT.bin", frame_with_records(batch(1, gz)))
# an lz4 frame whose block claims more bytes than the 64 KiB block size of its header
descriptor = b"\x60\x40"  # version 1, independent blocks; 64 KiB blocks
lz4 = b"\x04\x22\x4d\x18" + descriptor + bytes([(xxh32(descriptor) >> 8) & 0xFF]) + struct.pack("<I", 0x20000) + b"\x00" * 16
write("lz4-block-larger-than-frame-block-size.v12.CORRUPT.bin", frame_with_records(batch(3, lz4)))
# a record batch declaring 2^31-1 records in a 70-byte body
write("record-count-past-the-batch.v12.CORRUPT.bin", frame_with_records(batch(0, b"\x00" * 9, record_count=0x7FFFFFFF)))
