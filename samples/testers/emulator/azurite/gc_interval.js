// gc_interval.js - loaded into Azurite (node --require, through NODE_OPTIONS) before
// the emulator starts, by azurite.sh for the tests and by `xio emulator start` for
// everyone else: decides when its blob garbage collector sweeps the in-memory store.
//
// Azurite keeps blob data in memory up to a limit (--extentMemoryLimit; azurite.sh
// gives 6 GiB) and never reuses it in place: every write adds an extent, and the
// extents of deleted blobs and overwritten pages are only returned by a sweep. On its
// own it sweeps every 10 minutes, and a sweep stops the emulator answering while it
// runs (below: Azurite's own took minutes over what a test run leaves behind, and
// even made linear it is a pause): whichever test runs then waits. Without sweeps,
// though, the store fills with what was deleted, and from then on every write is
// refused (409 MemoryExtentStoreAtSizeLimit). So the sweep comes when it is needed,
// not by the clock:
//   - when a write finds the store full: the write waits for a sweep, then tries once
//     more; still full, it is refused with a message saying what to do;
//   - when the store nears its limit (3/4 of it, and 1/8 of it written since the
//     last sweep, so that a store full of live blobs is not swept on every write);
//   - after XIO_AZURITE_GC_IDLE_MS without a request, when a request since the last
//     sweep may have left something to free (default 0: never; `xio emulator start`
//     sets a minute);
//   - every XIO_AZURITE_GC_INTERVAL_MS (default 6 hours; 600000 is Azurite's own).
// Each sweep leaves two lines on stderr (azurite.log): why it came, and what it took,
// with the store's size before and after.
// A sweep frees only extents written XIO_AZURITE_GC_PROTECT_MS ago or more (default
// 10 s; Azurite's own is 10 minutes, but it never applied to the in-memory store,
// whose extents were recorded without the time it checks), so that one whose blob
// does not name it yet (a write between storing its bytes and recording them) is
// never taken; and two sweeps are at least that far apart, so that such a write,
// held up by the first sweep, has its time before the next. A write that finds the
// store full therefore waits for up to two sweeps: the second frees what was deleted
// or overwritten until the first ended.
//
// The sweep lists every blob to learn which extents are still used, in pages of
// XIO_AZURITE_GC_PAGE_BLOBS (default 5000, as Azurite's). Azurite pages that list by
// name, each page starting after the last name seen, so a page that ends among blobs
// of one name (in several containers, or a blob and its snapshots) skips the rest of
// them, and the sweep then freed data those blobs still held; here it pages by the
// blobs' own record ids.
//
// A sweep holds the emulator: it never yields to a request, so that no copy or
// delete can move a reference between the blobs it has listed and those it has not.
// It must therefore cost time in proportion to the extents (every write is one), not
// their square: Azurite's own listing of the extents scanned every record for each
// page of 1000, and freed each extent with a removal that rebuilt the index of every
// extent, so the extents a test run leaves held the emulator for over ten minutes
// (20,000, half of them freed, took 295 s). Here the extents old enough to free are
// listed in one pass, and freed in one batch removal.
//
// Azurite's modules are found from the program node runs (the azurite-blob that
// was started, wherever it is installed), else through NODE_PATH.
"use strict";
const fs = require("fs");
const http = require("http");
const https = require("https");
const path = require("path");

function azuriteModule(name) {
  const full = "azurite/dist/src/" + name;
  const program = process.argv[1];
  if (program) {
    try {
      return require(require.resolve(full, { paths: [path.dirname(fs.realpathSync(program))] }));
    } catch (e) {
      // not below the program: NODE_PATH
    }
  }
  return require(full);
}

// The number in variable `name` (milliseconds, or blobs), or `fallback`; a bad value
// ends Azurite's start.
function envNumber(name, fallback, zeroAllowed) {
  const text = process.env[name];
  if (text === undefined || text === "") return fallback;
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0 || (n === 0 && !zeroAllowed)) {
    console.error(`${name} must be a ${zeroAllowed ? "" : "positive "}number`);
    process.exit(2);
  }
  return n;
}

const pageBlobs = envNumber("XIO_AZURITE_GC_PAGE_BLOBS", 5000, false);
const intervalMs = envNumber("XIO_AZURITE_GC_INTERVAL_MS", 6 * 3600 * 1000, false);
const idleMs = envNumber("XIO_AZURITE_GC_IDLE_MS", 0, true);
const protectMs = envNumber("XIO_AZURITE_GC_PROTECT_MS", 10000, true);

azuriteModule("blob/utils/constants").DEFAULT_GC_INTERVAL_MS = intervalMs;
azuriteModule("common/utils/constants").DEFAULT_EXTENT_GC_PROTECT_TIME_IN_MS = protectMs;
const Collector = azuriteModule("blob/gc/BlobGCManager").default;
const MemoryExtentStore = azuriteModule("common/persistence/MemoryExtentStore").default;
const ExtentMetadata = azuriteModule("common/persistence/LokiExtentMetadataStore").default;
const BlobMetadata = azuriteModule("blob/persistence/LokiBlobMetadataStore").default;

// A new extent is recorded with the time the sweep's protection checks
// (LastModifyInMS), which the in-memory store does not set (it sets lastModifiedInMS).
const updateExtent = ExtentMetadata.prototype.updateExtent;
ExtentMetadata.prototype.updateExtent = function (extent) {
  if (extent.LastModifyInMS === undefined)
    extent = { ...extent, LastModifyInMS: extent.lastModifiedInMS || Date.now() };
  return updateExtent.call(this, extent);
};

// Every blob for the sweep, a page at a time in the order of the records' ids
// ($loki), each page after the last id seen: [blobs, marker of the next page or
// undefined].
BlobMetadata.prototype.listAllBlobs = async function (
  maxResults,
  marker,
  includeSnapshots,
  includeUncommittedBlobs
) {
  const limit = Math.max(1, Math.floor(maxResults || pageBlobs));
  const after = marker ? Number(marker) : 0;
  const docs = this.db
    .getCollection(this.BLOBS_COLLECTION)
    .chain()
    .where(
      obj =>
        obj.$loki > after &&
        (includeSnapshots || obj.snapshot.length === 0) &&
        (includeUncommittedBlobs || obj.isCommitted)
    )
    .simplesort("$loki")
    .limit(limit + 1)
    .data();
  if (docs.length <= limit) return [docs, undefined];
  docs.pop();
  return [docs, String(docs[docs.length - 1].$loki)];
};

// Every extent old enough to free (written protectMs ago or more), in one pass over
// the records.
ExtentMetadata.prototype.iteratorExtents = function () {
  const coll = this.db.getCollection(this.EXTENTS_COLLECTION);
  const before = Date.now() - protectMs;
  let listed = false;
  return {
    next: async () => {
      if (listed) return { done: true, value: [] };
      listed = true;
      const ids = [];
      for (const doc of coll.data) if (doc.LastModifyInMS < before) ids.push(doc.id);
      return { done: false, value: ids };
    }
  };
};

// Frees the extents `ids` (a Set or an array): their bytes, then their records in one
// batch. The number freed.
MemoryExtentStore.prototype.deleteExtents = async function (ids) {
  const gone = ids instanceof Set ? ids : new Set(ids);
  for (const id of gone) this.chunks.delete(this.categoryName, id);
  const coll = this.metadataStore.db.getCollection(this.metadataStore.EXTENTS_COLLECTION);
  const docs = coll.data.filter(doc => gone.has(doc.id));
  if (docs.length > 0) coll.remove(docs);
  return docs.length;
};

const gc = {
  running: false, // the collector's loop runs
  due: false, // a sweep is wanted as soon as the gap allows
  wake: null, // ends the collector's sleep early (while it sleeps)
  waiters: [], // writes waiting for the next sweep to end
  lastEnd: 0, // Date.now() when the last sweep ended
  sizeAfter: 0, // the store's bytes then
  store: null, // the chunk store the blob service writes to
  lastRequest: Date.now(),
  changed: false, // a request that may leave something to free came since the last sweep
  reason: "interval", // why the next sweep comes, for the log
  sweeps: 0 // sweeps begun
};

// One line on the emulator's log (stderr), whatever Azurite's own logging.
function log(text) {
  process.stderr.write(`${new Date().toISOString()} xio-gc: ${text}\n`);
}

// Asks for a sweep as soon as the gap allows, saying why.
function wantSweep(reason) {
  if (!gc.due) gc.reason = reason;
  gc.due = true;
  if (gc.wake) gc.wake();
}

// Resolves once a sweep that starts after this call has ended (at once when the
// collector does not run).
function sweepNow() {
  if (!gc.running) return Promise.resolve();
  return new Promise(resolve => {
    gc.waiters.push(resolve);
    wantSweep("a write found the store full");
  });
}

function releaseWaiters(waiters) {
  for (const resolve of waiters) resolve();
}

const loop = Collector.prototype.markSweepLoop;
Collector.prototype.markSweepLoop = async function () {
  gc.running = true;
  try {
    await loop.call(this);
  } finally {
    gc.running = false;
    releaseWaiters(gc.waiters.splice(0));
  }
};

const markSweep = Collector.prototype.markSweep;
Collector.prototype.markSweep = async function () {
  const waiters = gc.waiters.splice(0);
  const no = ++gc.sweeps, start = Date.now(), before = gc.store ? gc.store.totalSize() : 0;
  const why = no === 1 ? "start" : gc.due ? gc.reason : "interval";
  log(`sweep ${no} (${why}): store ${mib(before)} MiB`);
  gc.due = false;
  gc.reason = "interval";
  gc.changed = false;
  try {
    await markSweep.call(this);
  } finally {
    gc.lastEnd = Date.now();
    gc.sizeAfter = gc.store ? gc.store.totalSize() : 0;
    log(`sweep ${no} ended after ${(gc.lastEnd - start) / 1000} s: store ${mib(gc.sizeAfter)} MiB`);
    releaseWaiters(waiters);
  }
};

// The collector's sleep between sweeps: `ms`, or less when a sweep is wanted, but
// never ending sooner than protectMs after the last sweep.
Collector.prototype.sleep = function (ms) {
  return new Promise(resolve => {
    let timer;
    const end = () => {
      clearTimeout(timer);
      this.emitter.removeListener("abort", end);
      gc.wake = null;
      resolve();
    };
    const until = at => {
      clearTimeout(timer);
      timer = setTimeout(end, Math.max(0, at - Date.now()));
      timer.unref();
    };
    gc.wake = () => until(Math.max(Date.now(), gc.lastEnd + protectMs));
    until(Date.now() + ms);
    this.emitter.on("abort", end);
    if (gc.due) gc.wake();
  });
};

// The store's limit in MiB, for messages.
function mib(bytes) {
  return Math.round(bytes / (1024 * 1024));
}

// Still full after a sweep: what is in the store is live (or too recent to free).
function fullError(store, contextId) {
  const limit = store.chunks.sizeLimit();
  return store.makeError(
    409,
    "MemoryExtentStoreAtSizeLimit",
    `The emulator's memory for blob data is full: its ${mib(limit)} MiB hold blobs that ` +
      `exist (or were written in the last ${protectMs / 1000} s), even after a ` +
      "sweep freed what deleted and overwritten blobs held. Delete blobs no longer needed, " +
      "or start the emulator again with more memory (xio emulator start --memory SIZE; " +
      "XIO_AZURITE_MEMORY_MB for azurite.sh), which loses the blobs it holds.",
    contextId === undefined ? "" : contextId
  );
}

function isFull(err) {
  return err && err.storageErrorCode === "MemoryExtentStoreAtSizeLimit";
}

// A write went in: sweep soon if the store nears its limit.
function noteWrite(chunks) {
  gc.store = chunks;
  const limit = chunks.sizeLimit();
  const total = chunks.totalSize();
  if (limit && total >= limit * 0.75 && total - gc.sizeAfter >= limit / 8 && !gc.due)
    wantSweep("the store nears its limit");
}

// The request body as buffers, so that it can be offered to the store twice.
async function collect(data) {
  const parts = [];
  for await (const chunk of data) parts.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return parts;
}

// A write that finds the store full waits for a sweep and tries again, twice; then
// it is refused, saying what to do.
const append = MemoryExtentStore.prototype.appendExtent;
MemoryExtentStore.prototype.appendExtent = async function (data, contextId) {
  const body = Buffer.isBuffer(data) ? data : await collect(data);
  gc.store = this.chunks;
  for (let sweeps = 0; ; sweeps++) {
    try {
      const extent = await append.call(this, body, contextId);
      noteWrite(this.chunks);
      return extent;
    } catch (err) {
      if (!isFull(err)) throw err;
      if (sweeps === 2 || !gc.running) throw fullError(this, contextId);
    }
    await sweepNow();
  }
};

// Requests, for the idle sweep: when the last came, and whether one that changes
// something came since the last sweep.
for (const server of [http.Server, https.Server]) {
  const emit = server.prototype.emit;
  server.prototype.emit = function (event, request, ...rest) {
    if (event === "request") {
      gc.lastRequest = Date.now();
      if (!["GET", "HEAD", "OPTIONS"].includes(request.method)) gc.changed = true;
    }
    return emit.call(this, event, request, ...rest);
  };
}

if (idleMs > 0) {
  const check = setInterval(() => {
    if (gc.changed && !gc.due && Date.now() - gc.lastRequest >= idleMs)
      wantSweep("idle");
  }, Math.max(100, Math.min(idleMs / 4, 5000)));
  check.unref();
}
