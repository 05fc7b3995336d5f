#!/usr/bin/env python3
"""Generates the sample corpora for the sample targets (tests/targets/sample_*.c).

Writes sample_corpora/json.tar.zst, png.tar.zst and http.tar.zst: realistic, redundant input
piles of a few hundred files each, spread over a few subdirectories, most exercising the same
common paths, some large, a few reaching deep paths, and a few planted crashing inputs plus at
most one hanging input per corpus (listed in tests/targets/README.md). Deterministic: fixed
seeds, tar entries with fixed metadata in sorted order, compressed with `zstd -19`; running it
twice gives byte-identical archives. Python standard library plus the zstd command only.

With --scale K (K > 1) it writes <name>-xK.tar.zst instead: K copies of each pile, each from its
own random seed under its own top directory, for measuring runs on corpora of a few thousand files.

usage: gen_corpora.py [-o OUTDIR] [--list] [--scale K] [--only NAME]
"""
import argparse
import io
import os
import random
import struct
import subprocess
import sys
import tarfile
import zlib

MTIME = 1700000000


# ---------------------------------------------------------------------------------------------
# JSON corpus (target sample_json)

FIRST = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy",
         "mallory", "niaj", "olivia", "peggy", "rupert", "sybil", "trent", "victor", "walter"]
DOMAINS = ["example.com", "example.org", "mail.example.net", "corp.example"]
TAGS = ["new", "vip", "beta", "trial", "admin", "staff", "eu", "us", "apac", "legacy"]
WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
         "juliet", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo"]


def jstr(rng, s, escape_rate=0.0):
    """Serialises a str as a JSON string, sometimes escaping characters the long way."""
    out = ['"']
    for ch in s:
        cp = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\b":
            out.append("\\b")
        elif ch == "\f":
            out.append("\\f")
        elif cp < 0x20:
            out.append("\\u%04x" % cp)
        elif cp > 0xFFFF and rng.random() < 0.5:
            v = cp - 0x10000
            out.append("\\u%04X\\u%04x" % (0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF)))
        elif rng.random() < escape_rate:
            if ch == "/":
                out.append("\\/")
            else:
                out.append("\\u%04x" % cp if cp <= 0xFFFF else ch)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def jnum(rng, v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    style = rng.random()
    if style < 0.2:
        return "%.3e" % v
    if style < 0.3:
        return "%.2E" % v
    return "%.2f" % v


def jdump(rng, v, indent=None, level=0, escape_rate=0.0):
    """A small serialiser with its own formatting choices (indentation, spacing)."""
    nl = "" if indent is None else "\n" + " " * (indent * (level + 1))
    end = "" if indent is None else "\n" + " " * (indent * level)
    sep = ", " if indent is None and rng.random() < 0.3 else ","
    colon = ": " if indent is not None or rng.random() < 0.5 else ":"
    if v is None:
        return "null"
    if isinstance(v, (bool, int, float)):
        return jnum(rng, v)
    if isinstance(v, str):
        return jstr(rng, v, escape_rate)
    if isinstance(v, list):
        if not v:
            return "[]"
        items = [nl + jdump(rng, x, indent, level + 1, escape_rate) for x in v]
        return "[" + sep.join(items) + end + "]"
    if not v:
        return "{}"
    items = [nl + jstr(rng, k, escape_rate) + colon + jdump(rng, x, indent, level + 1, escape_rate)
             for k, x in v.items()]
    return "{" + sep.join(items) + end + "}"


def rand_name(rng):
    n = rng.choice(FIRST).capitalize()
    r = rng.random()
    if r < 0.1:
        n += " Ren\u00e9e"
    elif r < 0.15:
        n += " \u5c71\u7530"
    elif r < 0.18:
        n += " \U0001F600"
    elif r < 0.22:
        n += ' "the boss"'
    return n


def rand_date(rng, valid=True):
    if valid:
        y = rng.randint(1990, 2030)
        m = rng.randint(1, 12)
        d = rng.randint(1, 28)
        if rng.random() < 0.1:
            y, m, d = rng.choice([2000, 2024, 2020]), 2, 29
        return "%04d-%02d-%02d" % (y, m, d)
    return rng.choice(["2023-02-29", "1900-02-29", "2021-13-01", "2021-04-31", "21-04-01",
                       "2021/04/01", "2021-00-10", "1969-12-31", "2101-01-01", "2021-04-0x"])


def user(rng, i):
    first = rng.choice(FIRST)
    u = {"type": "user", "id": i, "name": rand_name(rng),
         "email": "%s.%d@%s" % (first, i, rng.choice(DOMAINS))}
    if rng.random() < 0.6:
        u["tags"] = rng.sample(TAGS, rng.randint(0, 4))
    if rng.random() < 0.4:
        u["enabled"] = rng.random() < 0.7
    if rng.random() < 0.2:
        u["address"] = {"street": "%d %s St" % (rng.randint(1, 999), rng.choice(WORDS)),
                        "zip": "%05d" % rng.randint(0, 99999), "geo": [rng.uniform(-90, 90),
                                                                      rng.uniform(-180, 180)]}
    if rng.random() < 0.1:
        u["note"] = "line one\nline two\twith tab and a backslash \\ and a slash /"
    return u


def order(rng, i):
    items = [{"sku": "SKU-%04d" % rng.randint(0, 9999), "qty": rng.randint(1, 20),
              "price": round(rng.uniform(0.5, 500), 2)} for _ in range(rng.randint(1, 5))]
    o = {"type": "order", "id": "%08x" % rng.getrandbits(32), "price":
         round(sum(x["price"] * x["qty"] for x in items), 2), "items": items}
    if rng.random() < 0.5:
        o["date"] = rand_date(rng)
    if rng.random() < 0.3:
        o["qty"] = sum(x["qty"] for x in items)
    return o


def event(rng, i):
    e = {"type": "event", "name": rng.choice(WORDS) + " " + rng.choice(["launch", "meetup",
                                                                       "review", "outage"]),
         "date": rand_date(rng)}
    if rng.random() < 0.5:
        e["url"] = "%s://events.%s%s/e/%d" % (rng.choice(["http", "https"]), rng.choice(DOMAINS),
                                             rng.choice(["", ":8080", ":443"]), i)
    return e


def config(rng, i):
    c = {"type": "config", "version": "%d.%d.%d" % (rng.randint(0, 3), rng.randint(0, 20),
                                                     rng.randint(0, 99)),
         "enabled": rng.random() < 0.5}
    if rng.random() < 0.3:
        c["version"] += "-rc%d" % rng.randint(1, 3)
    if rng.random() < 0.5:
        c["url"] = "https://cfg.%s/v1" % rng.choice(DOMAINS)
    if rng.random() < 0.5:
        c["limits"] = {"max": rng.randint(1, 10000), "ratio": rng.uniform(0, 1),
                       "scale": rng.choice([1e-5, 2.5e10, 6.02e23, -1.5e-3])}
    return c


RECORDS = [user, user, user, order, order, event, config]


def break_record(rng, rec):
    """Makes one schema rule fail: a missing or badly typed member."""
    rec = dict(rec)
    t = rec["type"]
    choice = rng.randint(0, 5)
    if choice == 0:
        req = {"user": "email", "order": "items", "event": "date", "config": "version"}[t]
        rec.pop(req, None)
    elif choice == 1:
        rec["type"] = rng.choice(["admin", "User", "", 7])
    elif choice == 2:
        rec["id"] = rng.choice([-1, 1.5, "", "XYZ", None, [1]])
    elif choice == 3:
        rec["email"] = rng.choice(["no-at-sign", "@example.com", "a@b", "a@@b.c", "a b@c.d",
                                   "x@.com", 42])
    elif choice == 4:
        rec["date"] = rand_date(rng, valid=False)
    else:
        key, val = rng.choice([("price", 1.999), ("price", -3), ("qty", 0), ("qty", 1001),
                               ("qty", 2.5), ("version", "1.2"), ("version", "1..2"),
                               ("version", "v1.2.3"), ("enabled", "yes"), ("url", "ftp://x"),
                               ("url", "https://"), ("url", "http://h:99999/"),
                               ("url", "http://h:0"), ("tags", list(range(20))),
                               ("items", []), ("name", ""), ("name", "x" * 70)])
        rec[key] = val
    return rec


JSON_SYNTAX_ERRORS = [
    b'{"a":1,}', b'[1,2,]', b'{"a" 1}', b'{a:1}', b'{"a":01}', b'[-]', b'[1.]', b'[1e]',
    b'[1e+]', b'[.5]', b'["\\x"]', b'["\\u12G4"]', b'["\\u12"]', b'["\\ud800"]',
    b'["\\ud800\\u0041"]', b'["\\u0000"]', b'["a\x01b"]', b'["\xff"]', b'["\xc3"]',
    b'["\xc0\xaf"]', b'["\xed\xa0\x80"]', b'["\xf4\x90\x80\x80"]', b'["\xe2\x28\xa1"]',
    b'[tru]', b'[nul]', b'[falsy]', b'{"a":1}{"b":2}', b'[1] x', b'', b'   ', b'"unterminated',
    b'{"a":1', b'[[[[', b'{"a":{"b":[1,2,{"c":"', b'[1e999]', b'[1e-999]', b'@', b'{"a"',
    b'{"a":}', b'{,}', b'{"a":1 "b":2}', b'[1 2]', b'["a":1]', b'{"dup":1,"dup":2}',
]


def json_corpus(salt=0):
    rng = random.Random(0x15011 + salt)
    files = {}

    # valid/: single records, the bulk of the pile, mostly the same paths.
    for i in range(170):
        rec = rng.choice(RECORDS)(rng, i)
        indent = rng.choice([None, None, 2, 4])
        files["valid/record_%04d.json" % i] = jdump(rng, rec, indent).encode()

    # valid/: lists and envelopes of records, some with escapes and a byte order mark.
    for i in range(50):
        recs = [rng.choice(RECORDS)(rng, i * 10 + k) for k in range(rng.randint(2, 12))]
        doc = {"count": len(recs), "page": rng.randint(1, 9), "results": recs,
               "next": None if rng.random() < 0.5 else "https://api.example.com/p?page=2"}
        text = jdump(rng, doc, rng.choice([None, 2]), escape_rate=rng.choice([0, 0, 0.05]))
        data = text.encode()
        if rng.random() < 0.1:
            data = b"\xef\xbb\xbf" + data
        files["valid/page_%04d.json" % i] = data

    # invalid/: schema errors and syntax errors.
    for i in range(40):
        rec = break_record(rng, rng.choice(RECORDS)(rng, 1000 + i))
        files["invalid/schema_%04d.json" % i] = jdump(rng, rec).encode()
    for i, doc in enumerate(JSON_SYNTAX_ERRORS):
        files["invalid/syntax_%04d.json" % i] = doc
    for i in range(25):
        whole = jdump(rng, rng.choice(RECORDS)(rng, 2000 + i), 2).encode()
        files["invalid/truncated_%04d.json" % i] = whole[:rng.randint(1, len(whole) - 1)]

    # crawl/: scalars, nesting near and past the depth limit, big numbers, large dumps.
    for i, doc in enumerate([b"true", b"false", b"null", b"0", b"-0", b"3.14159", b"-2.5e-3",
                             b"1E+10", b"12345678901234567890", b'"just a string"', b"[]",
                             b"{}", b"[[],[[]],{}]", b"[1e308]", b"[-1e-308]"]):
        files["crawl/scalar_%04d.json" % i] = doc
    for i, depth in enumerate([8, 20, 63, 64, 65, 100]):
        inner = '{"leaf":%d}' % depth
        doc = inner
        for d in range(depth - 1):
            doc = "[" + doc + "]" if d % 2 else '{"n":' + doc + "}"
        files["crawl/nested_%04d.json" % i] = doc.encode()
    for i in range(8):
        recs = [rng.choice(RECORDS)(rng, 5000 + i * 1000 + k) for k in range(rng.randint(150, 400))]
        files["crawl/dump_%04d.json" % i] = jdump(rng, recs, rng.choice([None, 2])).encode()

    # bugs/: attachments from bug reports; three of them crash the target.
    files["bugs/issue_0412.json"] = jdump(rng, {
        "type": "config", "version": "2.4.1", "enabled": True,
        "settings": {"display": {"theme": "dark", "crash": False, "font": 12},
                     "audio": {"volume": 0.8}}}, 2).encode()
    files["bugs/issue_0577.json"] = jdump(rng, [
        {"type": "event", "name": "outage", "date": "2024-03-01",
         "meta": {"severity": 2, "crash": True}}]).encode()
    rec = user(rng, 9001)
    text = jdump(rng, rec, 2)
    files["bugs/issue_0603.json"] = (text[:-2] + ',\n  "\\udc01nick": "zed"\n}').encode()
    for i in range(6):
        files["bugs/issue_%04d.json" % (700 + i)] = jdump(rng, user(rng, 700 + i), 2).encode()
    return files


# ---------------------------------------------------------------------------------------------
# PNG-like corpus (target sample_png)

PNG_SIG = b"\x89PNG\r\n\x1a\n"
COMBOS = [(0, 1), (0, 2), (0, 4), (0, 8), (0, 16), (2, 8), (2, 16), (3, 1), (3, 2), (3, 4),
          (3, 8), (4, 8), (4, 16), (6, 8), (6, 16)]
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def chunk(ctype, data, crc=None):
    if crc is None:
        crc = zlib.crc32(ctype + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + ctype + data + struct.pack(">I", crc)


def deflate(data):
    """One zlib stream, as PNG encoders write IDAT data."""
    return zlib.compress(data, 9)


def ihdr(w, h, depth, colour, interlace=0, comp=0, filt=0):
    return chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, colour, comp, filt, interlace))


def filter_rows(rng, rows, bpp, filters=None, pattern=None):
    """Filters raw rows with the given (or random) filter types, as an encoder would."""
    out = bytearray()
    prev = bytes(len(rows[0])) if rows else b""
    for y, row in enumerate(rows):
        f = filters[y % len(filters)] if filters else rng.randint(0, 4)
        enc = bytearray()
        for x, v in enumerate(row):
            a = row[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 0:
                p = 0
            elif f == 1:
                p = a
            elif f == 2:
                p = b
            elif f == 3:
                p = (a + b) >> 1
            else:
                pp = a + b - c
                pa, pb, pc = abs(pp - a), abs(pp - b), abs(pp - c)
                p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            enc.append((v - p) & 0xFF)
        out.append(f)
        out += enc
        prev = row
    return bytes(out)


def pass_sizes(w, h, interlace):
    if not interlace:
        return [(w, h)]
    xs, ys, dx, dy = [0, 4, 0, 2, 0, 1, 0], [0, 0, 4, 0, 2, 0, 1], [8, 8, 4, 4, 2, 2, 1], \
        [8, 8, 8, 4, 4, 2, 2]
    out = []
    for p in range(7):
        if w <= xs[p] or h <= ys[p]:
            continue
        out.append(((w - xs[p] + dx[p] - 1) // dx[p], (h - ys[p] + dy[p] - 1) // dy[p]))
    return out


def image_data(rng, w, h, colour, depth, interlace, plte_len, smooth, filters=None):
    bits = CHANNELS[colour] * depth
    bpp = (bits + 7) // 8
    data = b""
    for pw, ph in pass_sizes(w, h, interlace):
        rb = (pw * bits + 7) // 8
        rows = []
        for y in range(ph):
            if colour == 3:
                per = 8 // depth
                row = bytearray()
                for x in range(rb):
                    v = 0
                    for s in range(per):
                        v |= (((x * per + s + y) // 3) % plte_len if smooth
                              else rng.randrange(plte_len)) << (s * depth)
                    row.append(v)
            elif smooth:
                row = bytearray(((x * 3 + y * 5) // 4) & 0xFF for x in range(rb))
            else:
                row = bytearray(rng.getrandbits(8) for _ in range(rb))
            rows.append(bytes(row))
        data += filter_rows(rng, rows, bpp, filters)
    return data


def png_image(rng, w=None, h=None, combo=None, extras=True, smooth=None, interlace=None,
              filters=None, text_chunks=True):
    colour, depth = combo or rng.choice(COMBOS)
    w = w or rng.randint(1, 24)
    h = h or rng.randint(1, 16)
    interlace = interlace if interlace is not None else int(rng.random() < 0.15)
    smooth = smooth if smooth is not None else rng.random() < 0.7
    out = [PNG_SIG, ihdr(w, h, depth, colour, interlace)]
    plte_len = 0
    if extras and rng.random() < 0.3:
        out.append(chunk(b"gAMA", struct.pack(">I", rng.choice([45455, 100000, 22727]))))
    if extras and rng.random() < 0.15:
        sb = bytes([min(depth, 8)] * min(CHANNELS[colour], 4))
        out.append(chunk(b"sBIT", sb))
    if colour == 3 or (colour in (2, 6) and rng.random() < 0.2):
        maxp = (1 << depth) if colour == 3 else 256
        plte_len = rng.randint(1, min(maxp, 16 if rng.random() < 0.8 else 256))
        out.append(chunk(b"PLTE", bytes(rng.getrandbits(8) for _ in range(3 * plte_len))))
    if extras and rng.random() < 0.2:
        if colour == 0:
            out.append(chunk(b"tRNS", b"\x00\x01"))
        elif colour == 2:
            out.append(chunk(b"tRNS", b"\x00\x01\x00\x02\x00\x03"))
        elif colour == 3:
            out.append(chunk(b"tRNS", bytes(rng.getrandbits(8) for _ in range(plte_len))))
    if extras and rng.random() < 0.2:
        if colour == 3:
            out.append(chunk(b"bKGD", bytes([rng.randrange(plte_len)])))
        elif colour in (0, 4):
            out.append(chunk(b"bKGD", b"\x00\x80"))
        else:
            out.append(chunk(b"bKGD", b"\x00\xff\x00\x80\x00\x00"))
    if extras and rng.random() < 0.25:
        dens = rng.choice([2835, 3780, 11811])
        out.append(chunk(b"pHYs", struct.pack(">IIB", dens, dens if rng.random() < 0.8 else
                                              dens * 2, rng.randint(0, 1))))
    # One zlib stream of the filtered rows, split over the IDAT chunks, as encoders write it.
    data = deflate(image_data(rng, w, h, colour, depth, interlace, plte_len, smooth,
                                    filters))
    parts = rng.choice([1, 1, 1, 2, 3]) if len(data) > 8 else 1
    cuts = sorted(rng.sample(range(1, len(data)), parts - 1)) if parts > 1 else []
    prev = 0
    for c in cuts + [len(data)]:
        out.append(chunk(b"IDAT", data[prev:c]))
        prev = c
    if extras and rng.random() < 0.2:
        out.append(chunk(b"tIME", struct.pack(">HBBBBB", rng.randint(1995, 2030),
                                              rng.randint(1, 12), rng.randint(1, 28),
                                              rng.randint(0, 23), rng.randint(0, 59),
                                              rng.randint(0, 59))))
    if text_chunks and extras and rng.random() < 0.4:
        key = rng.choice(["Title", "Author", "Description", "Software", "Comment", "Source",
                          "Creation Time", "Label", "Scanner Model"])
        val = rng.choice(["", "sample image", "made with a\nsmall tool", "\u00a9 2024".encode(
            "latin-1").decode("latin-1"), "x" * rng.randint(1, 60)])
        out.append(chunk(b"tEXt", key.encode("latin-1") + b"\0" + val.encode("latin-1")))
    if extras and rng.random() < 0.1:
        out.append(chunk(b"prVt", b"private data"))
    if extras and rng.random() < 0.05:
        out.append(chunk(b"acTL", struct.pack(">II", rng.choice([2, 4, 8]), 0)))
    if extras and rng.random() < 0.05:
        out.append(chunk(b"acTL", struct.pack(">II", rng.randint(1, 9), rng.randint(1, 3))))
    out.append(chunk(b"IEND", b""))
    return b"".join(out)


def png_errors(rng):
    """Images that take each error path once or a few times."""
    sig, iend = PNG_SIG, chunk(b"IEND", b"")
    # 1x1 RGB 8-bit: filter byte + 3 bytes, deflated as in every IDAT stream
    idat = chunk(b"IDAT", deflate(b"\x00\x00\x00\x00"))
    good = ihdr(1, 1, 8, 2)
    out = {
        "empty_sig": b"",
        "bad_sig": b"GIF89a\x01\x00\x01\x00\x00\x00",
        "text_mode_sig": b"\x89PNG\r\r\n\x1a\n" + good + idat + iend,
        "no_chunks": sig,
        "truncated_header": sig + good[:10],
        "huge_length": sig + b"\xff\xff\xff\xf0IHDR" + bytes(17),
        "past_end": sig + struct.pack(">I", 500) + b"IHDR" + bytes(20),
        "bad_crc_ihdr": sig + chunk(b"IHDR", good[8:21], crc=0x12345678) + idat + iend,
        "bad_crc_ancillary": sig + good + chunk(b"teXt", b"a\0b", crc=1) + idat + iend,
        "bad_type_chars": sig + good + chunk(b"ID4T", b"") + idat + iend,
        "reserved_bit": sig + good + chunk(b"IDat", b"") + idat + iend,
        "ihdr_len": sig + chunk(b"IHDR", bytes(12)) + idat + iend,
        "ihdr_twice": sig + good + good + idat + iend,
        "zero_width": sig + ihdr(0, 1, 8, 2) + idat + iend,
        "huge_height": sig + ihdr(1, 0x80000000, 8, 2) + idat + iend,
        "too_large": sig + ihdr(4000, 4000, 16, 6) + idat + iend,
        "bad_colour": sig + ihdr(1, 1, 8, 5) + idat + iend,
        "bad_comp": sig + ihdr(1, 1, 8, 2, comp=1) + idat + iend,
        "bad_filter_method": sig + ihdr(1, 1, 8, 2, filt=1) + idat + iend,
        "bad_interlace": sig + ihdr(1, 1, 8, 2, interlace=2) + idat + iend,
        "critical_first": sig + chunk(b"PLTE", b"\0\0\0") + good + idat + iend,
        "unknown_critical": sig + good + chunk(b"ZZZZ", b"") + idat + iend,
        "idat_gap": sig + good + chunk(b"IDAT", deflate(b"\x00\x00")) + chunk(b"gAMA", b"\0\0\0\1")
        + chunk(b"IDAT", deflate(b"\x00\x00")) + iend,
        "no_idat": sig + good + iend,
        "iend_data": sig + good + idat + chunk(b"IEND", b"x"),
        "iend_first": sig + iend,
        "missing_iend": sig + good + idat,
        "short_data": sig + good + chunk(b"IDAT", deflate(b"\x00")) + iend,
        "bad_row_filter": sig + good + chunk(b"IDAT", deflate(b"\x07\x00\x00\x00")) + iend,
        "after_iend": sig + good + idat + iend + b"garbage",
        "extra_rows": sig + good + chunk(b"IDAT", deflate(b"\x00\x00\x00\x00\x00\x00")) + iend,
        "plte_grey": sig + ihdr(1, 1, 8, 0) + chunk(b"PLTE", b"\0\0\0") + idat + iend,
        "plte_len": sig + ihdr(1, 1, 8, 3) + chunk(b"PLTE", b"\0\0") + idat + iend,
        "plte_big": sig + ihdr(1, 1, 1, 3) + chunk(b"PLTE", bytes(9)) + idat + iend,
        "plte_twice": sig + ihdr(1, 1, 8, 3) + chunk(b"PLTE", bytes(3)) + chunk(b"PLTE", bytes(3))
        + idat + iend,
        "plte_after_idat": sig + ihdr(1, 1, 8, 2) + idat + chunk(b"PLTE", bytes(3)) + iend,
        "no_plte": sig + ihdr(1, 1, 8, 3) + chunk(b"IDAT", deflate(b"\x00\x00")) + iend,
        "index_range": sig + ihdr(2, 1, 8, 3) + chunk(b"PLTE", bytes(6))
        + chunk(b"IDAT", deflate(b"\x00\x01\x05")) + iend,
        "trns_grey_len": sig + ihdr(1, 1, 8, 0) + chunk(b"tRNS", b"\0") + idat + iend,
        "trns_rgb_len": sig + good + chunk(b"tRNS", b"\0\0") + idat + iend,
        "trns_no_plte": sig + ihdr(1, 1, 8, 3) + chunk(b"tRNS", b"\0") + idat + iend,
        "trns_long": sig + ihdr(1, 1, 8, 3) + chunk(b"PLTE", bytes(3)) + chunk(b"tRNS", b"\0\0")
        + idat + iend,
        "trns_alpha": sig + ihdr(1, 1, 8, 6) + chunk(b"tRNS", b"\0\0") + idat + iend,
        "trns_early": sig + chunk(b"tRNS", b"\0\0") + good + idat + iend,
        "bkgd_idx_len": sig + ihdr(1, 1, 8, 3) + chunk(b"PLTE", bytes(3)) + chunk(b"bKGD", b"")
        + idat + iend,
        "bkgd_idx_range": sig + ihdr(1, 1, 8, 3) + chunk(b"PLTE", bytes(3))
        + chunk(b"bKGD", b"\x05") + idat + iend,
        "bkgd_grey_len": sig + ihdr(1, 1, 8, 0) + chunk(b"bKGD", b"\0") + idat + iend,
        "bkgd_rgb_len": sig + good + chunk(b"bKGD", b"\0") + idat + iend,
        "bkgd_early": sig + chunk(b"bKGD", b"\0") + good + idat + iend,
        "time_len": sig + good + chunk(b"tIME", b"\0") + idat + iend,
        "time_month": sig + good + chunk(b"tIME", b"\x07\xe8\x0d\x01\0\0\0") + idat + iend,
        "time_day": sig + good + chunk(b"tIME", b"\x07\xe8\x02\x1e\0\0\0") + idat + iend,
        "time_clock": sig + good + chunk(b"tIME", b"\x07\xe8\x02\x01\x18\0\0") + idat + iend,
        "time_year": sig + good + chunk(b"tIME", b"\x00\x10\x02\x01\x00\0\0") + idat + iend,
        "phys_len": sig + good + chunk(b"pHYs", b"\0") + idat + iend,
        "phys_unit": sig + good + chunk(b"pHYs", bytes(8) + b"\x02") + idat + iend,
        "phys_zero": sig + good + chunk(b"pHYs", bytes(9)) + idat + iend,
        "phys_dense": sig + good + chunk(b"pHYs", struct.pack(">IIB", 200000, 200000, 1)) + idat
        + iend,
        "gama_len": sig + good + chunk(b"gAMA", b"\0") + idat + iend,
        "gama_zero": sig + good + chunk(b"gAMA", bytes(4)) + idat + iend,
        "gama_late": sig + ihdr(1, 1, 8, 3) + chunk(b"PLTE", bytes(3))
        + chunk(b"gAMA", b"\0\0\0\1") + chunk(b"IDAT", deflate(b"\x00\x00")) + iend,
        "sbit_len": sig + good + chunk(b"sBIT", b"") + idat + iend,
        "sbit_value": sig + good + chunk(b"sBIT", b"\x09\x08\x08") + idat + iend,
        "text_empty_key": sig + good + chunk(b"tEXt", b"\0value") + idat + iend,
        "text_bad_char": sig + good + chunk(b"tEXt", b"Ti\x01tle\0v") + idat + iend,
        "text_lead_space": sig + good + chunk(b"tEXt", b" Title\0v") + idat + iend,
        "text_double_space": sig + good + chunk(b"tEXt", b"A  B\0v") + idat + iend,
        "text_long_key": sig + good + chunk(b"tEXt", b"K" * 85 + b"\0v") + idat + iend,
        "text_nul": sig + good + chunk(b"tEXt", b"Comment\0a\0b") + idat + iend,
        "text_zero_flag": sig + good + chunk(b"tEXt", b"Comment\0\0") + idat + iend,
        "text_ctrl": sig + good + chunk(b"tEXt", b"Comment\0a\x01b") + idat + iend,
        "actl_len": sig + good + chunk(b"acTL", b"\0") + idat + iend,
        "actl_zero": sig + good + chunk(b"acTL", bytes(8)) + idat + iend,
        "actl_many": sig + good + chunk(b"acTL", struct.pack(">II", 5000, 1)) + idat + iend,
        "idat_not_zlib": sig + good + chunk(b"IDAT", b"\x00\x00\x00\x00") + iend,
        "idat_cut": sig + good + chunk(b"IDAT", deflate(bytes(4))[:6]) + iend,
        "idat_trailing": sig + good + chunk(b"IDAT", deflate(bytes(4)) + b"xx") + iend,
    }
    return out


def png_corpus(salt=0):
    rng = random.Random(0x9E6 + salt)
    files = {}
    # photos/: the bulk, small images of every colour type with the common chunks.
    for i in range(190):
        files["photos/img_%04d.png" % i] = png_image(rng)
    # icons/: tiny images, mostly identical in structure.
    for i in range(40):
        files["icons/icon_%04d.png" % i] = png_image(rng, w=rng.choice([8, 16]),
                                                     h=rng.choice([8, 16]),
                                                     combo=rng.choice([(6, 8), (3, 4), (3, 8)]),
                                                     extras=False, smooth=True)
    # large/: a few big images with smooth content, every filter type.
    for i, (w, h, combo) in enumerate([(128, 96, (6, 8)), (160, 120, (2, 8)), (96, 96, (2, 16)),
                                       (200, 100, (0, 8)), (120, 80, (4, 16))]):
        files["large/big_%04d.png" % i] = png_image(rng, w, h, combo, smooth=True,
                                                    interlace=i % 2, filters=[0, 1, 2, 3, 4])
    # broken/: damaged files from the wild.
    for name, data in png_errors(rng).items():
        files["broken/%s.png" % name] = data
    for i in range(20):
        good = png_image(rng)
        files["broken/truncated_%04d.png" % i] = good[:rng.randint(8, len(good) - 1)]
    for i in range(10):
        good = bytearray(png_image(rng))
        pos = rng.randint(8, len(good) - 1)
        good[pos] ^= 1 << rng.randint(0, 7)
        files["broken/bitflip_%04d.png" % i] = bytes(good)
    # bugs/: attachments from bug reports; the planted faults.
    base = png_image(rng, 6, 4, (2, 8), extras=False, smooth=True)
    files["bugs/issue_0091.png"] = (PNG_SIG + chunk(b"sBIT", b"\x08\x08\x08") + base[8:])
    iend_at = base.rindex(b"IEND") - 4
    files["bugs/issue_0137.png"] = (base[:iend_at] + chunk(b"tEXt", b"Comment")
                                    + base[iend_at:])
    files["bugs/issue_0158.png"] = (base[:33] + chunk(b"acTL", struct.pack(">II", 3, 0))
                                    + base[33:])
    for i in range(5):
        files["bugs/issue_%04d.png" % (200 + i)] = png_image(rng)
    return files


# ---------------------------------------------------------------------------------------------
# HTTP corpus (target sample_http)

AGENTS = ["Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0",
          "curl/8.4.0", "Wget/1.21.4", "python-requests/2.31.0", "Go-http-client/1.1"]
PATHS = ["/", "/index.html", "/static/app.js", "/static/css/site.css", "/api/v1/users",
         "/api/v1/users/42", "/api/v1/orders?page=2&sort=desc", "/search?q=fuzzing+tools",
         "/search?q=caf%C3%A9&page=1", "/img/logo%20large.png", "/docs/./guide/../intro.html",
         "/admin/settings", "/upload", "/favicon.ico", "/api/v1/items?sort=asc;page=10"]


def http_request(rng, method=None, path=None, version=None, body=None, extra=None):
    method = method or rng.choice(["GET"] * 6 + ["HEAD", "POST", "POST", "PUT", "OPTIONS",
                                                 "PATCH"])
    path = path or rng.choice(PATHS)
    version = version or rng.choice(["HTTP/1.1"] * 5 + ["HTTP/1.0"])
    lines = ["%s %s %s" % (method, path, version)]
    if version == "HTTP/1.1" or rng.random() < 0.3:
        lines.append("Host: %s" % rng.choice(["example.com", "www.example.org:8080",
                                              "10.0.0.1"]))
    if rng.random() < 0.8:
        lines.append("User-Agent: %s" % rng.choice(AGENTS))
    if rng.random() < 0.6:
        lines.append("Accept: %s" % rng.choice([
            "*/*", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
            "application/json", "image/avif,image/webp,*/*;q=0.5", "text/plain;q=1.0"]))
    if rng.random() < 0.3:
        lines.append("Accept-Language: en-US,en;q=0.5")
    if rng.random() < 0.35:
        lines.append("Cookie: %s" % "; ".join("%s=%s" % (rng.choice(["sid", "theme", "lang",
                                                                       "_ga", "csrftoken"]),
                                                          rng.choice(["abc123", '"quoted"',
                                                                      "dark", "en-US", ""]))
                                               for _ in range(rng.randint(1, 4))))
    if rng.random() < 0.3:
        lines.append("Connection: %s" % rng.choice(["keep-alive", "close", "Upgrade"]))
    if rng.random() < 0.1:
        lines.append("Range: %s" % rng.choice(["bytes=0-499", "bytes=500-", "bytes=-500",
                                               "bytes=0-0, 100-199"]))
    if rng.random() < 0.1:
        lines.append("Authorization: %s" % rng.choice(["Basic dXNlcjpwYXNz", "Bearer abc.def.ghi",
                                                       "Basic YWxhZGRpbjpvcGVuc2VzYW1lIQ=="]))
    if rng.random() < 0.05:
        lines.append("X-Hang: %d" % rng.choice([2, 4, 10]))
    lines += extra or []
    if body is None and method in ("POST", "PUT", "PATCH"):
        body = rng.choice([b"a=1&b=2", b'{"name":"x","id":7}', b"", b"field=" + b"v" * 40])
    if body is not None:
        if rng.random() < 0.25 and version == "HTTP/1.1":
            lines.append("Transfer-Encoding: chunked")
            body = chunked(rng, body)
        else:
            lines.append("Content-Type: %s" % rng.choice([
                "application/x-www-form-urlencoded", "application/json; charset=utf-8",
                "text/plain"]))
            lines.append("Content-Length: %d" % len(body))
    eol = "\r\n" if rng.random() < 0.95 else "\n"
    head = eol.join(lines) + eol + eol
    return head.encode() + (body or b"")


def chunked(rng, body):
    out = b""
    pos = 0
    while pos < len(body):
        n = min(len(body) - pos, rng.randint(1, 4096))
        ext = rng.choice([b"", b"", b";name=value"])
        out += b"%x%s\r\n" % (n, ext) + body[pos:pos + n] + b"\r\n"
        pos += n
    trailer = rng.choice([b"", b"", b"Expires: never\r\n"])
    return out + b"0\r\n" + trailer + b"\r\n"


HTTP_ERRORS = [
    b"", b"\r\n", b"GET\r\n\r\n", b"GET /\r\n\r\n", b"GET / HTTP/2.0\r\n\r\n",
    b"GET / HTTP/1.1\r\n\r\n", b"GET / HTTP/1.1\r\nHost: a\r\n", b"G@T / HTTP/1.0\r\n\r\n",
    b"get / HTTP/1.0\r\n\r\n", b"BREW /pot HTTP/1.0\r\n\r\n", b"GET x HTTP/1.0\r\n\r\n",
    b"GET * HTTP/1.0\r\n\r\n", b"OPTIONS * HTTP/1.0\r\n\r\n", b"CONNECT example.com HTTP/1.0\r\n\r\n",
    b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
    b"CONNECT :443 HTTP/1.0\r\n\r\n", b"CONNECT a:44x HTTP/1.0\r\n\r\n",
    b"GET http://example.com HTTP/1.0\r\n\r\n", b"GET http:///x HTTP/1.0\r\n\r\n",
    b"GET https://example.com/a/b?q=1 HTTP/1.1\r\n\r\n", b"GET /%zz HTTP/1.0\r\n\r\n",
    b"GET /%4 HTTP/1.0\r\n\r\n", b"GET /%00 HTTP/1.0\r\n\r\n", b"GET /../etc/passwd HTTP/1.0\r\n\r\n",
    b"GET /a/b/../../.. HTTP/1.0\r\n\r\n", b"GET /a#frag HTTP/1.0\r\n\r\n",
    b"GET /?=x HTTP/1.0\r\n\r\n", b"GET /?page=0 HTTP/1.0\r\n\r\n", b"GET /?page=abc HTTP/1.0\r\n\r\n",
    b"GET /?page=123456 HTTP/1.0\r\n\r\n", b"GET /?sort=up HTTP/1.0\r\n\r\n",
    b"GET /?q=" + b"x" * 120 + b" HTTP/1.0\r\n\r\n", b"GET /?q=%ZZ HTTP/1.0\r\n\r\n",
    b"GET /?" + b"&".join(b"p%d=%d" % (i, i) for i in range(40)) + b" HTTP/1.0\r\n\r\n",
    b"GET / HTTP/1.0\r\n folded: header\r\n\r\n", b"GET / HTTP/1.0\r\nNoColon\r\n\r\n",
    b"GET / HTTP/1.0\r\n: empty\r\n\r\n", b"GET / HTTP/1.0\r\nBad Name: x\r\n\r\n",
    b"GET / HTTP/1.0\r\nX-Ctl: a\x01b\r\n\r\n", b"GET / HTTP/1.1\r\nHost:\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
    b"POST / HTTP/1.0\r\nContent-Length: abc\r\n\r\n",
    b"POST / HTTP/1.0\r\nContent-Length: 99999999999999999999\r\n\r\n",
    b"POST / HTTP/1.0\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello",
    b"POST / HTTP/1.0\r\nContent-Length: 50\r\n\r\nshort",
    b"POST / HTTP/1.0\r\nTransfer-Encoding: gzip\r\n\r\n",
    b"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n",
    b"POST /upload HTTP/1.0\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
    b"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    b"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n5x\r\nhello\r\n0\r\n\r\n",
    b"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n50\r\nhello\r\n0\r\n\r\n",
    b"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n",
    b"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nbad trailer\r\n\r\n",
    b"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n",
    b"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n",
    b"GET / HTTP/1.0\r\nConnection: sometimes\r\n\r\n",
    b"GET / HTTP/1.0\r\nCookie: =x\r\n\r\n", b"GET / HTTP/1.0\r\nCookie: a\r\n\r\n",
    b"GET / HTTP/1.0\r\nCookie: a b=1\r\n\r\n", b"GET / HTTP/1.0\r\nCookie: a=\"x\r\n\r\n",
    b"GET / HTTP/1.0\r\nCookie: a=x,y\r\n\r\n",
    b"GET / HTTP/1.0\r\nCookie: " + b"; ".join(b"c%d=1" % i for i in range(40)) + b"\r\n\r\n",
    b"GET / HTTP/1.0\r\nAccept: text\r\n\r\n", b"GET / HTTP/1.0\r\nAccept: text/html;x=1\r\n\r\n",
    b"GET / HTTP/1.0\r\nAccept: text/html;q=2\r\n\r\n",
    b"GET / HTTP/1.0\r\nAccept: text/html;q=1.5\r\n\r\n",
    b"GET / HTTP/1.0\r\nAccept: text/html;q=0.12345\r\n\r\n",
    b"GET / HTTP/1.0\r\nAccept: text/html;q=0x\r\n\r\n",
    b"GET / HTTP/1.0\r\nAccept: text/html;q=0.a\r\n\r\n",
    b"GET / HTTP/1.0\r\nAccept: /html\r\n\r\n", b"GET / HTTP/1.0\r\nRange: items=0-1\r\n\r\n",
    b"GET / HTTP/1.0\r\nRange: bytes=-\r\n\r\n", b"GET / HTTP/1.0\r\nRange: bytes=9-1\r\n\r\n",
    b"GET / HTTP/1.0\r\nRange: bytes=1-2;3-4\r\n\r\n", b"GET / HTTP/1.0\r\nRange: bytes=abc\r\n\r\n",
    b"POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok",
    b"POST / HTTP/1.0\r\nExpect: 200-ok\r\n\r\n", b"POST / HTTP/1.0\r\nContent-Type: text\r\n\r\n",
    b"POST / HTTP/1.0\r\nContent-Type: text/plain; utf8\r\n\r\n",
    b"GET / HTTP/1.0\r\nAuthorization: Digest x\r\n\r\n",
    b"GET / HTTP/1.0\r\nAuthorization: Basic abc\r\n\r\n",
    b"GET / HTTP/1.0\r\nAuthorization: Basic ab=c\r\n\r\n",
    b"GET / HTTP/1.0\r\nAuthorization: Basic ab!c\r\n\r\n",
    b"GET / HTTP/1.0\r\nAuthorization: Basic a===\r\n\r\n",
    b"GET / HTTP/1.0\r\nX-Hang: many\r\n\r\n", b"GET / HTTP/1.0\r\nX-Hang: 5000\r\n\r\n",
    b"GET / HTTP/1.0\r\n" + b"".join(b"X-H%d: v\r\n" % i for i in range(70)) + b"\r\n",
    b"\r\n\r\nGET / HTTP/1.0\r\n\r\n",
    b"GET /admin HTTP/1.0\r\n\r\n", b"GET /admin HTTP/1.0\r\nAuthorization: Bearer t\r\n\r\n",
    b"TRACE / HTTP/1.0\r\n\r\n", b"TRACE /upload HTTP/1.0\r\n\r\n", b"PURGE /cache HTTP/1.0\r\n\r\n",
    b"POST /upload HTTP/1.0\r\n\r\n", b"GET /upload HTTP/1.0\r\n\r\n",
    b"GET /api/v1/x?page=500 HTTP/1.0\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: a\r\n\r\nGET /next HTTP/1.1\r\nHost: a\r\n\r\n",
]


def http_corpus(salt=0):
    rng = random.Random(0x4777 + salt)
    files = {}
    # logs/: captured requests, the bulk, mostly ordinary GETs.
    for i in range(200):
        files["logs/req_%04d.http" % i] = http_request(rng)
    # api/: API clients with bodies, deletes and pipelining.
    for i in range(50):
        if rng.random() < 0.2:
            data = http_request(rng, method="DELETE", path="/api/v1/users/%d" % i)
        else:
            data = http_request(rng, method=rng.choice(["POST", "PUT", "PATCH"]),
                                path=rng.choice(["/api/v1/users", "/upload", "/api/v1/orders"]),
                                version="HTTP/1.1",
                                body=('{"id":%d,"name":"%s"}' % (i, rng.choice(FIRST))).encode())
        if rng.random() < 0.1:
            data += http_request(rng, version="HTTP/1.1")
        files["api/call_%04d.http" % i] = data
    # large/: uploads of tens of KiB, plain and chunked.
    for i in range(6):
        rows = "\n".join("%d,%s,%s,%d" % (k, rng.choice(FIRST), rng.choice(WORDS),
                                          rng.randint(0, 999)) for k in range(rng.randint(1500, 3000)))
        files["large/upload_%04d.http" % i] = http_request(rng, method="POST", path="/upload",
                                                           version="HTTP/1.1",
                                                           body=rows.encode())
    # fuzz/: leftovers of an earlier campaign, error paths.
    for i, data in enumerate(HTTP_ERRORS):
        files["fuzz/case_%04d.http" % i] = data
    for i in range(20):
        whole = http_request(rng)
        files["fuzz/cut_%04d.http" % i] = whole[:rng.randint(1, len(whole) - 1)]
    # bugs/: attachments from bug reports; the planted faults.
    files["bugs/issue_1201.http"] = http_request(rng, method="DELETE", path="/admin/users/7",
                                                 version="HTTP/1.1",
                                                 extra=["Authorization: Bearer 0xdeadbeef"])
    files["bugs/issue_1213.http"] = (
        b"POST /upload HTTP/1.1\r\nHost: example.com\r\nUser-Agent: curl/8.4.0\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
        b"0000000000000000a\r\n0123456789\r\n0\r\n\r\n")
    files["bugs/issue_1240.http"] = (
        b"GET /api/v1/users?page=3 HTTP/1.1\r\nHost: example.com\r\nUser-Agent: "
        b"python-requests/2.31.0\r\nAccept: application/json\r\nX-Hang: 7\r\n\r\n")
    for i in range(5):
        files["bugs/issue_%04d.http" % (1300 + i)] = http_request(rng)
    return files


# ---------------------------------------------------------------------------------------------

CORPORA = {"json": json_corpus, "png": png_corpus, "http": http_corpus}


def tar_bytes(files):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for name in sorted(files):
            data = files[name]
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = MTIME
            info.mode = 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.type = tarfile.REGTYPE
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description="generate the sample corpora")
    ap.add_argument("-o", "--outdir", default=os.path.join(here, "..", "sample_corpora"),
                    help="output directory (default: sample_corpora/ in the source tree)")
    ap.add_argument("--list", action="store_true", help="print file counts and sizes")
    ap.add_argument("--scale", type=int, default=1, metavar="K",
                    help="write <name>-xK.tar.zst: K differently seeded copies of each pile")
    ap.add_argument("--only", choices=sorted(CORPORA), help="write only this corpus")
    args = ap.parse_args()
    if args.scale < 1:
        ap.error("--scale must be at least 1")
    os.makedirs(args.outdir, exist_ok=True)
    for name, gen in CORPORA.items():
        if args.only and name != args.only:
            continue
        if args.scale == 1:
            files = gen()
        else:
            # Salt 0 is the sample pile itself; the other copies differ in every random choice.
            files = {"part%02d/%s" % (k, path): data
                     for k in range(args.scale) for path, data in gen(k * 7919).items()}
        raw = tar_bytes(files)
        base = name if args.scale == 1 else "%s-x%d" % (name, args.scale)
        out = os.path.join(args.outdir, base + ".tar.zst")
        with open(out + ".tmp", "wb") as f:
            subprocess.run(["zstd", "-19", "-q", "-c"], input=raw, stdout=f, check=True)
        os.replace(out + ".tmp", out)
        if args.list:
            print("%s: %d files, %d bytes uncompressed, %d bytes compressed" %
                  (base, len(files), sum(len(d) for d in files.values()), os.path.getsize(out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
