// diff.js - the official JavaScript SDK (@azure/storage-blob) changes a page blob
// between snapshots and reads its diffs (listPageRangesDiff) through the fidelity
// front, as it would from Azure, for `xio snapshot diff` to be compared with.
//
//   node diff.js CONTAINER BLOB
//   (NODE_PATH names samples/testers/emulator/azurite/node_modules)
//
// Creates page blob BLOB (1 MiB) in CONTAINER (made when missing), writes it, takes snapshot
// s1, then writes, clears, shrinks and grows it in a fixed pseudo-random order, takes
// s2 half way. Prints one JSON line from AZURE_STORAGE_CONNECTION_STRING:
//   {"ok":true,"s1":ID,"s2":ID,"size":N,
//    "blob":{"written":[[start,end],...],"cleared":[...],"pages":N},  (s1 -> blob)
//    "snap":{...}}                                                       (s1 -> s2)
// where "pages" counts the pages of the listing read with maxPageSize 7;
// {"ok":false,"message":...} and exit 1 on failure.
"use strict";

const { BlobServiceClient } = require("@azure/storage-blob");

const PAGE = 512;

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
}

async function diff(client, prev) {
  const written = [], cleared = [];
  let pages = 0;
  for await (const resp of client.listPageRangesDiff(0, undefined, prev).byPage({ maxPageSize: 7 })) {
    pages++;
    for (const r of resp.pageRange || []) written.push([r.start, r.end]);
    for (const r of resp.clearRange || []) cleared.push([r.start, r.end]);
  }
  return { written, cleared, pages };
}

async function change(b, next, size) {
  const r = next() % 10, at = next() % (size / PAGE), n = Math.min(1 + (next() % 6), size / PAGE - at);
  if (r < 5) {
    await b.uploadPages(Buffer.alloc(n * PAGE, 1 + (r % 7)), at * PAGE, n * PAGE);
  } else if (r < 8) {
    await b.clearPages(at * PAGE, n * PAGE);
  } else if (r < 9 && size > 1024 * PAGE) {
    size -= (1 + (next() % 32)) * PAGE;
    await b.resize(size);
  } else {
    size += (1 + (next() % 32)) * PAGE;
    await b.resize(size);
  }
  return size;
}

async function main() {
  const svc = BlobServiceClient.fromConnectionString(process.env.AZURE_STORAGE_CONNECTION_STRING);
  const c = svc.getContainerClient(process.argv[2]);
  await c.createIfNotExists();
  const b = c.getPageBlobClient(process.argv[3]);
  let size = 2048 * PAGE;
  await b.create(size);
  await b.uploadPages(Buffer.alloc(256 * PAGE, 9), 0, 256 * PAGE);
  const s1 = (await b.createSnapshot()).snapshot;
  const next = rng(20261203);
  let s2;
  for (let i = 0; i < 60; i++) {
    if (i === 30) s2 = (await b.createSnapshot()).snapshot;
    size = await change(b, next, size);
  }
  const blob = await diff(b, s1);
  const snap = await diff(b.withSnapshot(s2), s1);
  console.log(JSON.stringify({ ok: true, s1, s2, size, blob, snap }));
}

main().catch((e) => {
  console.log(JSON.stringify({ ok: false, message: String(e.message || e) }));
  process.exit(1);
});
