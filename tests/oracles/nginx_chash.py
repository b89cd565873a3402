#!/usr/bin/env python3
"""NGINX's `hash $key consistent` ring, following NGINX 1.22's C source.

Standard library only. Regenerate the committed output with

    python3 tests/oracles/nginx_chash.py > tests/oracles/nginx_chash.out

`crates/lbsim-core/tests/behaviour/nginx_ring_matches_the_oracle.rs` reads that file.

Source followed, line by line (nginx tag `release-1.22.1`):

- `src/core/ngx_crc32.h`: `ngx_crc32_init(crc)` is `crc = 0xffffffff`;
  `ngx_crc32_update` runs `c = ngx_crc32_table256[(c ^ *p++) & 0xff] ^
  (c >> 8)` over the bytes *without* finishing; `ngx_crc32_final(crc)` is
  `crc ^= 0xffffffff`; `ngx_crc32_long` is init, update, final in one.
- `src/core/ngx_crc32.c`: `ngx_crc32_table256[]`, the reflected table of
  polynomial 0xedb88320 ("based on the algorithm described at
  http://www.w3.org/TR/PNG/"); `crc32_table256` below rebuilds it and
  checks the entries the C file starts and ends with.
- `src/http/modules/ngx_http_upstream_hash_module.c`,
  `ngx_http_upstream_init_chash` (in later versions the loop moved to
  `ngx_http_upstream_update_chash`): `server` is `peer->server`, the
  `server` directive's address as written (`us->name = u.url` in
  `ngx_http_upstream_server`, `peer[n].server = server[i].name` in
  `ngx_http_upstream_init_round_robin`); its trailing digits after the last
  `:` are the port, the rest the host ("unix:" paths have no port); then

      ngx_crc32_init(base_hash);
      ngx_crc32_update(&base_hash, host, host_len);
      ngx_crc32_update(&base_hash, (u_char *) "", 1);
      ngx_crc32_update(&base_hash, port, port_len);

      prev_hash.value = 0;
      npoints = peer->weight * 160;

      for (j = 0; j < npoints; j++) {
          hash = base_hash;

          ngx_crc32_update(&hash, prev_hash.byte, 4);
          ngx_crc32_final(hash);
          ...
          prev_hash.value = hash;     /* NGX_HAVE_LITTLE_ENDIAN */

  ("crc32(HOST \\0 PORT PREV_HASH)", Cache::Memcached::Fast's expression),
  then `ngx_qsort` by hash and equal hashes kept once (the first after
  sorting).
- A key: `ngx_http_upstream_init_chash_peer` takes
  `ngx_crc32_long(key)` and `ngx_http_upstream_find_chash_point` (the
  first point with `hash >= key hash`, possibly one past the last);
  `ngx_http_upstream_get_chash_peer` reads
  `point[hp->hash % points->number].server`, so past the last point it
  wraps to the first. On an idle pool with distinct server names that
  point's server is the peer.

The first three points for the pool below, (10773370, 1), (18170467, 0),
(26718565, 2), are pinned here (`FIRST_POINTS`) and in `builder.rs`'s
test: they are this reading's own output, kept so that a change to the
script or to lbsim's ring shows. A running NGINX does not expose its ring,
so no point was read out of one. What holds the reading to the real
program is `cargo xtask conformance` (docs/testing.md, "Held to the real
balancers"): the real NGINX 1.22 (Debian's nginx-light) with `hash
$arg_user consistent` over 4, 5 and 7 loopback servers (weights
2,1,1,3,1,1,1) must send each of user-1..2000 to the server `lbsim trace`
predicts from lbsim's ring, which `nginx_ring_matches_the_oracle.rs` holds
to this script point for point.
"""

import sys
import zlib

# The pool of `crates/lbsim-core/src/balancer/builder.rs`'s tests, with
# its weights 1, 2, 1.
POOL = [("10.0.0.1:8080", 1), ("10.0.0.2:8080", 2), ("10.0.0.3:80", 1)]
FIRST_POINTS = [(10773370, 1), (18170467, 0), (26718565, 2)]
KEYS = 1000


def crc32_table256():
    """ngx_crc32_table256[] of src/core/ngx_crc32.c."""
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (0xEDB88320 ^ (c >> 1)) if c & 1 else (c >> 1)
        table.append(c)
    # The C table's first four and last entries.
    assert table[:4] == [0x00000000, 0x77073096, 0xEE0E612C, 0x990951BA]
    assert table[255] == 0x2D02EF8D
    return table


TABLE256 = crc32_table256()


def ngx_crc32_init():
    return 0xFFFFFFFF


def ngx_crc32_update(crc, data):
    c = crc
    for byte in data:
        c = TABLE256[(c ^ byte) & 0xFF] ^ (c >> 8)
    return c


def ngx_crc32_final(crc):
    return crc ^ 0xFFFFFFFF


def ngx_crc32_long(data):
    return ngx_crc32_final(ngx_crc32_update(ngx_crc32_init(), data))


def split_host_port(server):
    """The host and port of `peer->server`, as the loop over `j` splits it."""
    if len(server) >= 5 and server[:5].lower() == b"unix:":
        return server[5:], b""
    for j in range(len(server)):
        c = server[len(server) - j - 1]
        if c == ord(":"):
            return server[: len(server) - j - 1], server[len(server) - j :]
        if c < ord("0") or c > ord("9"):
            break
    return server, b""


def init_chash(pool):
    """The sorted, deduplicated points (hash, server index)."""
    points = []
    for index, (name, weight) in enumerate(pool):
        host, port = split_host_port(name.encode())
        base_hash = ngx_crc32_init()
        base_hash = ngx_crc32_update(base_hash, host)
        base_hash = ngx_crc32_update(base_hash, b"\0")
        base_hash = ngx_crc32_update(base_hash, port)
        prev_hash = 0
        for _ in range(weight * 160):
            hash_ = base_hash
            hash_ = ngx_crc32_update(hash_, prev_hash.to_bytes(4, "little"))
            hash_ = ngx_crc32_final(hash_)
            points.append((hash_, index))
            prev_hash = hash_
    points.sort(key=lambda p: p[0])
    kept = [points[0]]
    for point in points[1:]:
        if point[0] != kept[-1][0]:
            kept.append(point)
    return points, kept


def find_chash_point(points, hash_):
    """First index with points[i] >= hash_ (binary search as the C)."""
    i, j = 0, len(points)
    while i < j:
        k = (i + j) // 2
        if hash_ > points[k][0]:
            i = k + 1
        elif hash_ < points[k][0]:
            j = k
        else:
            return k
    return i


def owner(points, key):
    return points[find_chash_point(points, ngx_crc32_long(key)) % len(points)][1]


def main():
    # The table-driven CRC is zlib's CRC-32 (the same polynomial and
    # conventions): a second check that the table is read correctly.
    assert ngx_crc32_long(b"foo") == zlib.crc32(b"foo") == 2356372769
    raw, points = init_chash(POOL)
    assert points[:3] == FIRST_POINTS, points[:3]
    out = sys.stdout
    out.write("# NGINX 1.22 hash $key consistent, from tests/oracles/nginx_chash.py\n")
    out.write("# pool: " + " ".join(f"{n}*{w}" for n, w in POOL) + "\n")
    out.write(f"generated {len(raw)}\n")
    out.write(f"points {len(points)}\n")
    for hash_, server in points:
        out.write(f"point {hash_} {server}\n")
    for i in range(1, KEYS + 1):
        key = f"user-{i}"
        out.write(f"owner {key} {owner(points, key.encode())}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
