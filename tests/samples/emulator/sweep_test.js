// sweep_test.js - the emulator's sweep (gc_interval.js beside azurite.sh in
// samples/testers/emulator/azurite, loaded with node --require) over Azurite's own
// in-memory stores, driven by Azurite's own collector, outside a server: 20,000
// extents of which two blobs (one a snapshot) hold half, and 100 more written after
// the sweep's protection time began. The sweep must free exactly the extents no blob
// holds that are older than that time, and keep the others with their bytes. It must
// also cost time in proportion to the extents: Azurite's own sweep took 295 s over
// these 20,000 (it rebuilt an index of every extent for each one it freed), holding
// the emulator all that time; ctest's limit of 60 s catches a sweep that slow again.
// Prints what the sweep took; exit 0 when everything holds, else a line saying what
// failed and exit 1.
// Environment (suite.cmake): NODE_PATH (Azurite's modules), XIO_AZURITE_GC_PROTECT_MS.
"use strict";

const src = "azurite/dist/src/";
const ExtentMetadata = require(src + "common/persistence/LokiExtentMetadataStore").default;
const Memory = require(src + "common/persistence/MemoryExtentStore");
const BlobMetadata = require(src + "blob/persistence/LokiBlobMetadataStore").default;
const Collector = require(src + "blob/gc/BlobGCManager").default;
const Logger = require(src + "common/Logger").default;

const EXTENTS = 20000;
const HELD = EXTENTS / 2; // by the blob (every other one) and its snapshot (the rest)
const YOUNG = 100;
const protectMs = Number(process.env.XIO_AZURITE_GC_PROTECT_MS);

function fail(what) {
  console.error(`sweep_test: ${what}`);
  process.exit(1);
}

// The 8 bytes of extent `i`.
function bytesOf(i) {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(i) * 0x9e3779b97f4a7c15n & 0xffffffffffffffffn);
  return b;
}

async function readAll(stream) {
  const parts = [];
  for await (const part of stream) parts.push(part);
  return Buffer.concat(parts);
}

// A committed page blob record that holds `ids`, as the blob store keeps it.
function blobHolding(name, snapshot, ids) {
  return {
    accountName: "devstoreaccount1",
    containerName: "sweep",
    name,
    snapshot,
    isCommitted: true,
    properties: {},
    pageRangesInOrder: ids.map((id, i) => ({
      start: i * 512,
      end: i * 512 + 511,
      persistency: { id, offset: 0, count: 8 }
    }))
  };
}

// Runs the collector's first sweep (it sweeps as it starts) and stops it: the
// milliseconds the sweep took.
async function sweepOnce(blobs, meta, store) {
  const sweep = Collector.prototype.markSweep;
  let ended;
  const done = new Promise(resolve => (ended = resolve));
  Collector.prototype.markSweep = async function () {
    const start = Date.now();
    await sweep.call(this);
    ended(Date.now() - start);
  };
  const gc = new Collector(blobs, meta, store, err => fail(`the collector: ${err}`), Logger);
  await gc.start();
  const ms = await done;
  await gc.close();
  Collector.prototype.markSweep = sweep;
  return ms;
}

async function main() {
  if (!(protectMs > 0)) fail("XIO_AZURITE_GC_PROTECT_MS must be set");
  const meta = new ExtentMetadata("sweep-test-extents", true);
  const blobs = new BlobMetadata("sweep-test-blobs", true);
  await meta.init();
  await blobs.init();
  const store = new Memory.default(
    "blob",
    new Memory.MemoryExtentChunkStore(1 << 30),
    meta,
    Logger,
    (status, code, message) => new Error(`${status} ${code}: ${message}`)
  );
  const ids = [];
  for (let i = 0; i < EXTENTS; i++) ids.push((await store.appendExtent(bytesOf(i))).id);
  const held = ids.slice(0, HELD);
  const coll = blobs.db.getCollection(blobs.BLOBS_COLLECTION);
  coll.insert(blobHolding("held.mdf", "", held.filter((_, i) => i % 2 === 0)));
  coll.insert(blobHolding("held.mdf", "2026-12-07T00:00:00.0000000Z", held.filter((_, i) => i % 2)));
  await new Promise(resolve => setTimeout(resolve, protectMs + 100));
  const young = [];
  for (let i = 0; i < YOUNG; i++) young.push((await store.appendExtent(bytesOf(EXTENTS + i))).id);

  const ms = await sweepOnce(blobs, meta, store);
  console.log(`sweep of ${EXTENTS + YOUNG} extents, ${EXTENTS - HELD} of them free: ${ms} ms`);

  const records = meta.db.getCollection(meta.EXTENTS_COLLECTION);
  const kept = [...held.map((id, i) => [id, i]), ...young.map((id, i) => [id, EXTENTS + i])];
  if (records.count() !== kept.length)
    fail(`${records.count()} extent records left, wanted ${kept.length} (held and young)`);
  if (store.chunks.totalSize() !== 8 * kept.length)
    fail(`${store.chunks.totalSize()} bytes left in the store, wanted ${8 * kept.length}`);
  for (const [id, i] of kept) {
    if (!records.findOne({ id })) fail(`extent ${i} lost its record`);
    const got = await readAll(await store.readExtent({ id, offset: 0, count: 8 }));
    if (!got.equals(bytesOf(i))) fail(`extent ${i} reads back wrong`);
  }
  for (const id of ids.slice(HELD)) {
    if (store.chunks.get("blob", id)) fail(`extent ${id}, held by no blob, kept its bytes`);
    if (records.findOne({ id })) fail(`extent ${id}, held by no blob, kept its record`);
  }
  console.log("sweep_test: ok");
}

main().catch(err => fail(err.stack || String(err)));
