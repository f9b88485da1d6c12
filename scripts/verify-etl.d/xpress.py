"""Decodes the LZXpress Huffman and plain LZXpress streams latlab's test encoders wrote
(internal/etl/testdata/xpress, each with its size and SHA-256 in
expect.json) with dissect.util's decoder, an implementation independent of
latlab's. Used by scripts/verify-etl.

dissect.util decodes until its input ends; where it reads the stream's
end-of-file symbol as a match it appends up to 3 bytes after the data,
so the comparison is of the first `size` bytes."""
import hashlib
import json
import sys

from dissect.util.compression import lzxpress, lzxpress_huffman

root = sys.argv[1]
fail = 0
for name, want in sorted(json.load(open(root + "/expect.json")).items()):
    for ext, dec in ((".lzhuff", lzxpress_huffman), (".lz77", lzxpress)):
        got = dec.decompress(open("%s/%s%s" % (root, name, ext), "rb").read())
        if len(got) < want["size"] or hashlib.sha256(got[: want["size"]]).hexdigest() != want["sha256"]:
            print("  dissect.util: %s%s decodes to other bytes (%d bytes, want %d)" % (name, ext, len(got), want["size"]))
            fail = 1
        else:
            print("  dissect.util decodes %s%s as written (%d bytes)" % (name, ext, want["size"]))
sys.exit(fail)
