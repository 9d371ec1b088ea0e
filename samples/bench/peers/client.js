// client.js - the official JavaScript SDK's side of the peer benchmark
// (@azure/storage-blob, pinned in samples/testers/emulator/azurite/package-lock.json),
// doing what the xio command and xio-peers do on the other side, against the
// emulator that AZURE_STORAGE_CONNECTION_STRING names (NODE_EXTRA_CA_CERTS trusts its
// test CA):
//
//   node client.js upload LOCAL CONTAINER BLOB    a new page blob of LOCAL's size:
//       Create, then Put Page (PageBlobClient.uploadPages) of every 4 MiB piece of
//       LOCAL, zeros included, 8 in flight. The SDK has no high-level upload for
//       page blobs (uploadFile/uploadData/uploadStream make block blobs), so this
//       is the loop its samples show, with the concurrency its uploaders use.
//   node client.js download CONTAINER BLOB LOCAL PIECE  the blob into LOCAL: ranges
//       of PIECE bytes, 8 in flight (BlobClient.download(offset, count)), each
//       written at its offset: the scheme of the SDK's downloadToBuffer (blockSize,
//       4 MiB by default; concurrency 8), into a file so that memory stays bounded.
//   node client.js download-file CONTAINER BLOB LOCAL  the SDK's downloadToFile:
//       one streamed Get Blob.
//   node client.js randwrite CONTAINER BLOB SIZE IO DEPTH OPS   a new page blob of
//       SIZE bytes, then OPS uploadPages of IO bytes at random IO-aligned offsets,
//       DEPTH at once; prints {"ops","seconds","iops","p50_us","p99_us","cpu_s"}
//       measured over the writes alone (process.cpuUsage).
//
// NODE_PATH names samples/testers/emulator/azurite/node_modules. Exits 0, or prints why
// and exits 1.
"use strict";

const fs = require("fs");
const { BlobServiceClient } = require("@azure/storage-blob");

const PIECE = 4 * 1024 * 1024; // an upload's Put Page: the service's limit
const IN_FLIGHT = 8;

function service() {
  const cs = process.env.AZURE_STORAGE_CONNECTION_STRING;
  if (!cs) throw new Error("AZURE_STORAGE_CONNECTION_STRING is not set");
  const ep = /BlobEndpoint=([^;]+)/.exec(cs);
  if (!ep || new URL(ep[1]).hostname !== "127.0.0.1")
    throw new Error("the connection string's BlobEndpoint is not on 127.0.0.1");
  return BlobServiceClient.fromConnectionString(cs);
}

// Runs worker(i) for i = 0..n-1 with `width` of them at once.
async function parallel(n, width, worker) {
  let next = 0;
  const lane = async () => {
    while (next < n) await worker(next++);
  };
  await Promise.all(Array.from({ length: Math.min(width, n) }, lane));
}

async function upload(local, containerName, blobName) {
  const container = service().getContainerClient(containerName);
  await container.createIfNotExists();
  const blob = container.getPageBlobClient(blobName);
  const fh = await fs.promises.open(local, "r");
  try {
    const size = (await fh.stat()).size;
    await blob.create(size);
    await parallel(Math.ceil(size / PIECE), IN_FLIGHT, async (i) => {
      const off = i * PIECE, n = Math.min(PIECE, size - off);
      const buf = Buffer.allocUnsafe(n);
      const { bytesRead } = await fh.read(buf, 0, n, off);
      if (bytesRead !== n) throw new Error(`short read of ${local} at ${off}`);
      await blob.uploadPages(buf, off, n);
    });
  } finally {
    await fh.close();
  }
}

async function readBody(stream, n) {
  const buf = Buffer.allocUnsafe(n);
  let at = 0;
  for await (const chunk of stream) {
    if (at + chunk.length > n) throw new Error("the response body is longer than asked for");
    chunk.copy(buf, at);
    at += chunk.length;
  }
  if (at !== n) throw new Error(`the response body has ${at} bytes, not ${n}`);
  return buf;
}

async function download(containerName, blobName, local, pieceText) {
  const piece = Number(pieceText);
  if (!Number.isSafeInteger(piece) || piece < 512 || piece % 512)
    throw new Error(`the piece size ${pieceText} is not a positive multiple of 512`);
  const blob = service().getContainerClient(containerName).getBlobClient(blobName);
  const size = (await blob.getProperties()).contentLength;
  const fh = await fs.promises.open(local, "wx");
  try {
    await fh.truncate(size);
    await parallel(Math.ceil(size / piece), IN_FLIGHT, async (i) => {
      const off = i * piece, n = Math.min(piece, size - off);
      const res = await blob.download(off, n);
      const buf = await readBody(res.readableStreamBody, n);
      const { bytesWritten } = await fh.write(buf, 0, n, off);
      if (bytesWritten !== n) throw new Error(`short write of ${local} at ${off}`);
    });
  } finally {
    await fh.close();
  }
}

async function downloadFile(containerName, blobName, local) {
  const blob = service().getContainerClient(containerName).getBlobClient(blobName);
  await blob.downloadToFile(local);
}

// mulberry32: the same offsets on every run.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function quantile(sorted, q) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.round(q * (sorted.length - 1)))] : 0;
}

async function randwrite(containerName, blobName, sizeArg, ioArg, depthArg, opsArg) {
  const [size, io, depth, ops] = [sizeArg, ioArg, depthArg, opsArg].map(Number);
  if (![size, io, depth, ops].every((v) => Number.isInteger(v) && v > 0) || io % 512 || size < io)
    throw new Error("randwrite takes SIZE IO DEPTH OPS in bytes and counts (IO a multiple of 512)");
  const container = service().getContainerClient(containerName);
  await container.createIfNotExists();
  const blob = container.getPageBlobClient(blobName);
  await blob.create(size);
  const buf = Buffer.alloc(io);
  const r = rng(1);
  for (let i = 0; i < io; i++) buf[i] = (Math.floor(r() * 256) | 1) & 0xff;
  const nblocks = Math.floor(size / io), lat = [];
  const cpu0 = process.cpuUsage(), t0 = process.hrtime.bigint();
  let last = t0;
  await parallel(ops, depth, async () => {
    const off = Math.floor(r() * nblocks) * io;
    const s = process.hrtime.bigint();
    await blob.uploadPages(buf, off, io);
    last = process.hrtime.bigint();
    lat.push(Number(last - s) / 1000);
  });
  const cpu = process.cpuUsage(cpu0), seconds = Number(last - t0) / 1e9;
  lat.sort((a, b) => a - b);
  const out = { ops: lat.length, seconds, iops: lat.length / seconds, p50_us: quantile(lat, 0.5),
                p99_us: quantile(lat, 0.99), cpu_s: (cpu.user + cpu.system) / 1e6 };
  console.log(JSON.stringify(out));
}

const commands = { upload: [upload, 3], download: [download, 4], "download-file": [downloadFile, 3],
                   randwrite: [randwrite, 6] };
const [cmd, ...args] = process.argv.slice(2);
if (!commands[cmd] || args.length !== commands[cmd][1]) {
  console.error("usage: node client.js upload LOCAL CONTAINER BLOB | download CONTAINER BLOB LOCAL PIECE |\n" +
                "       download-file CONTAINER BLOB LOCAL | randwrite CONTAINER BLOB SIZE IO DEPTH OPS");
  process.exit(2);
}
commands[cmd][0](...args).catch((e) => {
  console.error(`client.js ${cmd}: ${e && e.message ? e.message : e}`);
  process.exit(1);
});
