#!/usr/bin/env python3
"""Generates test/pt/malformed/: archives the .pt reader must refuse with a clear message,
crafted with the Python standard library only (no torch) from test/pt/mlp_scripted.pt.

Writes NAME.pt for each case and EXPECTED.tsv: NAME <TAB> a substring the error must contain,
or `ok` for archives that are unusual but valid (the reader must load them), or
`loader:<what>` for archives this layer reads but the module loader must refuse later.

    python3 tools/gen/gen_pt_malformed.py
"""
import os
import struct
import zipfile
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
BASE = os.path.join(ROOT, "test", "pt", "mlp_scripted.pt")
OUT = os.path.join(ROOT, "test", "pt", "malformed")

expected = []


def emit(name, data, expect):
    with open(os.path.join(OUT, name + ".pt"), "wb") as f:
        f.write(data)
    expected.append((name, expect))


def records():
    with zipfile.ZipFile(BASE) as z:
        return [(i.filename, z.read(i.filename), i.compress_type) for i in z.infolist()]


def rezip(recs):
    """A zip of (name, data, compress_type) entries written by Python's zipfile."""
    import io
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data, ctype in recs:
            zi = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            zi.compress_type = ctype
            z.writestr(zi, data)
    return buf.getvalue()


def replace(recs, suffix, data):
    return [(n, data if n.endswith(suffix) else d, c) for n, d, c in recs]


def drop(recs, suffix):
    return [(n, d, c) for n, d, c in recs if not n.endswith(suffix)]


def raw_zip(entries):
    """A zip written field by field, so sizes, names and offsets can lie. Each entry is a dict:
    name (bytes), data (bytes, already compressed), method, crc, csize, usize, and optionally
    reuse (the name of an earlier entry whose local header and data this one points at too:
    overlapping entries)."""
    out = bytearray()
    central = bytearray()
    offsets = {}
    for e in entries:
        if "reuse" in e:
            off = offsets[e["reuse"]]
        else:
            off = len(out)
            out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, e["method"], 0, 0x21,
                               e["crc"], e["csize"], e["usize"], len(e["name"]), 0)
            out += e["name"] + e["data"]
        offsets[e["name"]] = off
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, e["method"], 0, 0x21,
                               e["crc"], e["csize"], e["usize"], len(e["name"]), 0, 0, 0, 0, 0, off)
        central += e["name"]
    cd_off = len(out)
    out += central
    out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(central), cd_off, 0)
    return bytes(out)


def stored(name, data, **kw):
    e = dict(name=name, data=data, method=0, crc=zlib.crc32(data), csize=len(data), usize=len(data))
    e.update(kw)
    return e


def deflated(name, data, **kw):
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    comp = c.compress(data) + c.flush()
    e = dict(name=name, data=comp, method=8, crc=zlib.crc32(data), csize=len(comp), usize=len(data))
    e.update(kw)
    return e


# Pickle assembly: protocol 2 opcodes by hand.
PROTO = b"\x80\x02"


def uni(s):
    b = s.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def glob(module, name):
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def storage_pid(key, numel, stype="FloatStorage"):
    return b"(" + uni("storage") + glob("torch", stype) + uni(key) + uni("cpu") + b"J" + struct.pack("<i", numel) + b"tQ"


def int_tuple(vals):
    body = b"".join(b"\x8a\x08" + struct.pack("<q", v) for v in vals)
    return b"(" + body + b"t"


def tensor(key, numel, offset, sizes, strides):
    return (glob("torch._utils", "_rebuild_tensor_v2") + b"(" + storage_pid(key, numel)
            + b"\x8a\x08" + struct.pack("<q", offset) + int_tuple(sizes) + int_tuple(strides)
            + b"\x89" + glob("collections", "OrderedDict") + b")R" + b"tR")


def module_with(attrs):
    """data.pkl of a `__torch__.M` object whose state dict holds attrs (name -> pickle bytes)."""
    body = b"".join(uni(k) + v for k, v in attrs.items())
    return PROTO + glob("__torch__", "M") + b")\x81}(" + body + b"ub."


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.remove(os.path.join(OUT, f))
    base = open(BASE, "rb").read()
    recs = records()
    folder = recs[0][0].split("/")[0]

    # The container.
    emit("empty", b"", "the file is empty")
    emit("not_a_zip", b"this is not a zip archive at all\n" * 4, "not a zip archive")
    emit("truncated_half", base[: len(base) // 2], "not a zip archive")
    emit("truncated_tail", base[:-7], "not a zip archive")
    # A flipped bit in data.pkl's stored bytes: the CRC no longer matches.
    pkl_at = base.index(b"\x80\x02c__torch__")
    flipped = bytearray(base)
    flipped[pkl_at + 40] ^= 0x10
    emit("bitflip_data_pkl", bytes(flipped), "data.pkl")
    # A flipped bit in the central directory's copy of a name: it no longer matches the local one.
    cd = base.rindex(b"PK\x01\x02" + base[base.rindex(b"PK\x01\x02") + 4:][:0])
    flipped = bytearray(base)
    name_at = base.rindex((folder + "/data.pkl").encode())
    flipped[name_at + len(folder) + 2] ^= 0x01
    emit("bitflip_central_name", bytes(flipped), "bad zip archive")

    # Entry names.
    emit("path_traversal", rezip(recs + [(folder + "/../../evil.sh", b"echo pwned", 0)]), "'..' path component")
    emit("absolute_path", rezip(recs + [("/etc/cron.d/evil", b"* * * * * root true", 0)]), "absolute path")
    emit("backslash_name", rezip(recs + [(folder + "\\data.pkl", b"x", 0)]), "backslash")
    nul = rezip(recs + [(folder + "/evil@name", b"x", 0)]).replace(b"evil@name", b"evil\x00name")
    emit("nul_in_name", nul, "NUL byte")
    import warnings
    warnings.simplefilter("ignore")
    emit("duplicate_names", rezip(recs + [(folder + "/data.pkl", recs[3][1], 0)]), "duplicate entry names")
    emit("two_top_level_folders", rezip(recs + [("other/data.pkl", b"x", 0)]), "more than one top-level folder")

    # Zip bombs and lying sizes.
    zeros = b"\0" * (50 << 20)
    emit("zip_bomb_ratio", raw_zip([deflated(f"{n}".encode(), d) if c == 8 else stored(n.encode(), d)
                                    for n, d, c in recs] + [deflated(f"{folder}/extra/bomb".encode(), zeros)]),
         "zip bomb")
    first = stored(f"{folder}/extra/a".encode(), b"A" * 1000)
    emit("overlapping_entries", raw_zip([stored(n.encode(), d) for n, d, c in recs] + [
        first, dict(first, name=f"{folder}/extra/b".encode(), reuse=first["name"])]), "overlapping entries")
    text = b"def forward(self):\n    return 1\n" * 20
    emit("declared_size_smaller", raw_zip([stored(n.encode(), d) for n, d, c in recs]
                                           + [deflated(f"{folder}/extra/t".encode(), text, usize=100)]),
         "larger than its declared")
    emit("declared_size_larger", raw_zip([stored(n.encode(), d) for n, d, c in recs]
                                          + [deflated(f"{folder}/extra/t".encode(), text, usize=5000)]),
         "smaller than its declared")
    emit("unsupported_compression", raw_zip([stored(n.encode(), d) for n, d, c in recs]
                                             + [stored(f"{folder}/extra/b".encode(), b"BZh9", method=12)]),
         "unsupported compression")

    # Records.
    emit("missing_data_pkl", rezip(drop(recs, "/data.pkl")), "data.pkl: record is missing")
    emit("missing_constants_pkl", rezip(drop(recs, "/constants.pkl")), "constants.pkl: record is missing")
    emit("missing_version", rezip(drop(recs, "/version")), "version: record is missing")
    emit("missing_storage", rezip(drop(recs, "/data/0")), "data/0: storage record is missing")
    short = [(n, d[: len(d) // 2] if n.endswith("/data/1") else d, c) for n, d, c in recs]
    emit("short_storage", rezip(short), "but the pickle declares")
    emit("version_too_new", rezip(replace(recs, "/version", b"11\n")), "version 11 is not supported")
    emit("version_not_a_number", rezip(replace(recs, "/version", b"three\n")), "is not a number")
    emit("byteorder_unknown", rezip(replace(recs, "/byteorder", b"middle")), "unknown byte order")
    emit("legacy_model_json", rezip([(folder + "/model.json", b"{}", 0), (folder + "/version", b"1\n", 0)]),
         "legacy JSON archive format")
    emit("code_not_utf8", rezip(replace(recs, "code/__torch__.py", b"def f():\n  return '\xff'\n")), "not UTF-8")
    # Stored records start at odd offsets (a one-byte extra field shifts them): valid; the reader
    # copies them into aligned storage.
    # A pad entry before each data/N record makes its data start one byte past a multiple of 8.
    entries, pos = [], 0
    for i, (n, d, c) in enumerate(recs):
        if "/data/" in n:
            pad_name = f"{folder}/extra/pad{i}".encode()
            header = 30 + len(pad_name)
            pad = (1 - (pos + header + 30 + len(n)) ) % 8
            entries.append(stored(pad_name, b"p" * pad))
            pos += header + pad
        entries.append(stored(n.encode(), d))
        pos += 30 + len(n) + len(d)
    misaligned = raw_zip(entries)
    assert all((misaligned.index(n.encode() + d[:4]) + len(n)) % 8 == 1 for n, d, c in recs if "/data/" in n)
    emit("misaligned_storages", misaligned, "ok")
    save_code = [(n, d.replace(b"return ", b"ops.aten.save(x, \"/tmp/pwned\")\n    return ", 1)
                  if n.endswith("code/__torch__.py") else d, c) for n, d, c in recs]
    emit("code_calls_save", rezip(save_code), "loader:aten::save")

    # Hostile pickles as data.pkl.
    def pkl(name, data, expect, record="/data.pkl"):
        emit(name, rezip(replace(recs, record, data)), expect)

    pkl("pickle_os_system", PROTO + glob("os", "system") + uni("touch /tmp/pwned") + b"\x85R.", "global 'os.system' is not allowed")
    pkl("pickle_builtins_eval", PROTO + glob("builtins", "eval") + uni("1+1") + b"\x85R.", "global 'builtins.eval' is not allowed")
    pkl("pickle_posix_system", PROTO + glob("posix", "system") + uni("id") + b"\x85R.", "global 'posix.system' is not allowed")
    pkl("pickle_subprocess", PROTO + glob("subprocess", "Popen") + uni("id") + b"\x85R.", "global 'subprocess.Popen' is not allowed")
    pkl("pickle_unknown_global", PROTO + glob("mymodule", "Thing") + b")R.", "global 'mymodule.Thing' is not allowed")
    pkl("pickle_torch_load", PROTO + glob("torch", "load") + uni("x.pt") + b"\x85R.", "torch.load")
    pkl("pickle_reduce_on_none", PROTO + b"N)R.", "REDUCE on a None value")
    chain = glob("torch.jit._pickle", "build_intlist") + b"(]K\x01at" + b"R" + b")R"
    pkl("pickle_reduce_chain", PROTO + chain + b".", "REDUCE on a list value")
    pkl("pickle_setitem_on_list", PROTO + b"]K\x01K\x02s.", "SETITEM on a list, not a dict")
    pkl("pickle_appends_on_dict", PROTO + b"}(K\x01e.", "APPENDS on a dict, not a list")
    pkl("pickle_build_on_list", PROTO + b"]}b.", "BUILD on a non-object value of type list")
    pkl("pickle_deep_nesting", PROTO + b"]" * 5000 + b"a" * 4999 + b".", "nest deeper than the limit")
    pkl("pickle_cycle", PROTO + b"]q\x00h\x00a.", "reference cycle")
    pkl("pickle_memo_out_of_range", PROTO + b"h\x05.", "memo index 5 is out of range")
    pkl("pickle_stack_underflow", PROTO + b"K\x01\x86.", "stack underflow")
    pkl("pickle_bad_protocol", b"\x80\x04N.", "unsupported pickle protocol 4")
    pkl("pickle_no_proto", b"N.", "expected the PROTO opcode")
    pid = b"(" + uni("module") + uni("x") + b"t" + b"Q"
    pkl("pickle_persid_not_storage", PROTO + pid + b".", 'persistent id of kind "module"')
    pkl("pickle_stack_global", PROTO + uni("os") + uni("system") + b"\x93.", "opcode STACK_GLOBAL is not allowed")
    pkl("pickle_inst", PROTO + b"(ios\nsystem\n.", "opcode INST is not allowed")
    pkl("pickle_truncated", recs[3][1][: len(recs[3][1]) // 2] if recs[3][0].endswith("data.pkl")
        else [d for n, d, c in recs if n.endswith("/data.pkl")][0][:200], "unexpected end of pickle")
    pkl("pickle_rebuild_parameter", PROTO + glob("torch._utils", "_rebuild_parameter") + b").", "_rebuild_parameter")
    pkl("pickle_qtensor", PROTO + glob("torch._utils", "_rebuild_qtensor") + b").", "quantized tensors")
    pkl("pickle_long1_too_big", PROTO + b"\x8a\x09" + b"\x01" * 9 + b".", "does not fit a 64-bit int")
    pkl("pickle_two_values", PROTO + b"NN.", "2 values on the stack")
    pkl("pickle_newobj_not_torch", PROTO + glob("collections", "OrderedDict") + b")\x81.",
        "NEWOBJ on a global value")
    pkl("pickle_unhashable_key", PROTO + b"}]K\x01s.", "dict key of type List is not hashable")

    # Tensors whose extents do not fit their storage (data/0 holds mlp's first parameter).
    d0 = [d for n, d, c in recs if n.endswith("/data/0")][0]
    numel = len(d0) // 4
    pkl("tensor_sizes_overflow", module_with({"w": tensor("0", numel, 0, [2**62, 4], [4, 1])}), "overflow")
    pkl("tensor_strides_overflow", module_with({"w": tensor("0", numel, 0, [8, 2], [2**62, 1])}), "overflow")
    pkl("tensor_offset_out_of_range", module_with({"w": tensor("0", numel, numel, [2], [1])}),
        "but its storage holds")
    pkl("tensor_too_large_for_storage", module_with({"w": tensor("0", numel, 0, [numel + 1], [1])}),
        "but its storage holds")
    pkl("tensor_negative_stride", module_with({"w": tensor("0", numel, 4, [2], [-1])}), "negative stride")
    pkl("storage_numel_larger_than_record", module_with({"w": tensor("0", numel * 2, 0, [1], [1])}),
        "but the pickle declares")
    pkl("storage_missing_key", module_with({"w": tensor("99", 4, 0, [4], [1])}), "data/99: storage record is missing")
    pkl("storage_dtype_conflict", module_with({"w": tensor("0", numel, 0, [1], [1]),
                                               "v": tensor("0", numel, 0, [1], [1]).replace(b"FloatStorage", b"IntStorage")}),
        "as both")
    pkl("debug_pkl_hostile", PROTO + glob("os", "system") + uni("id") + b"\x85R.",
        "code/__torch__.py.debug_pkl: pickle byte 2: global 'os.system'", record="code/__torch__.py.debug_pkl")

    with open(os.path.join(OUT, "EXPECTED.tsv"), "w") as f:
        f.write("# archive\texpected error substring | ok | loader:<refused later by the module loader>\n")
        for name, expect in expected:
            f.write(f"{name}\t{expect}\n")


if __name__ == "__main__":
    main()
