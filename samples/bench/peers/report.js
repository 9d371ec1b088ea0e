// report.js - the peer benchmark's results: medians per case, protocol and client,
// the xio / JS ratio of each figure, as markdown tables (printed, written to
// results.md, and put into a document between its bench-peers markers) and as CSV.
"use strict";

const fs = require("fs");

const BEGIN = "<!-- bench-peers:begin -->";
const END = "<!-- bench-peers:end -->";
const CLIENTS = ["xio", "js"];

function median(values) {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!v.length) return NaN;
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
}

// records: one per measured run; returns [{case, protocol, client, runs, failed, ...medians}].
function summarize(records) {
  const groups = new Map();
  for (const r of records) {
    const key = `${r.case}|${r.protocol}|${r.client}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(r);
  }
  const out = [];
  for (const rs of groups.values()) {
    const ok = rs.filter((r) => r.ok);
    const m = (f) => median(ok.map(f));
    out.push({
      case: rs[0].case, label: rs[0].label, kind: rs[0].kind, protocol: rs[0].protocol,
      client: rs[0].client, runs: ok.length, failed: rs.length - ok.length,
      wall_s: m((r) => r.wall_s), cpu_s: m((r) => r.cpu_s), user_s: m((r) => r.user_s),
      sys_s: m((r) => r.sys_s), maxrss_mib: m((r) => r.maxrss_kib / 1024),
      iops: m((r) => r.iops), p50_us: m((r) => r.p50_us), p99_us: m((r) => r.p99_us),
      cpu_us_per_request: m((r) => (r.ops ? (r.phase_cpu_s / r.ops) * 1e6 : NaN)),
    });
  }
  return out;
}

const fmt = {
  s: (v) => (v >= 100 ? `${v.toFixed(0)} s` : v >= 10 ? `${v.toFixed(1)} s` : `${v.toFixed(2)} s`),
  mib: (v) => `${v.toFixed(0)} MiB`,
  n: (v) => v.toFixed(0),
  us: (v) => (v >= 1000 ? `${(v / 1000).toFixed(2)} ms` : `${v.toFixed(0)} us`),
};

function cell(row, field, f) {
  if (!row) return "-";
  if (row.failed && !row.runs) return "failed";
  return Number.isFinite(row[field]) ? f(row[field]) : "-";
}

function ratio(a, b, field) {
  if (!a || !b || !Number.isFinite(a[field]) || !Number.isFinite(b[field]) || !b[field]) return "-";
  return (a[field] / b[field]).toFixed(2);
}

// Columns: [heading, field, format] -> xio, JS, xio/JS for each.
function table(rows, kind, columns) {
  const keys = [...new Set(rows.filter((r) => r.kind === kind).map((r) => `${r.case}|${r.protocol}`))];
  const head = ["case", "protocol"];
  for (const [h] of columns) head.push(`${h} xio`, `${h} JS`, "xio/JS");
  const lines = [`| ${head.join(" | ")} |`, `|---|---|${columns.map(() => "---:|---:|---:|").join("")}`];
  for (const k of keys) {
    const [c, p] = k.split("|");
    const [x, j] = CLIENTS.map((cl) => rows.find((r) => r.case === c && r.protocol === p && r.client === cl));
    const cells = [(x || j).label, p];
    for (const [, field, f] of columns) cells.push(cell(x, field, f), cell(j, field, f), ratio(x, j, field));
    lines.push(`| ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

// The report as markdown; `runs` says in words how many runs the medians are of
// ("3 runs"); `shared`: the clients of a protocol shared one emulator.
function markdown(label, rows, runs, settings, shared) {
  const v = label;
  return [
    `Machine: ${v.cores} cores (${v.cpu}), ${v.memory} RAM, Linux ${v.kernel}, load average ` +
      `${v["load at start"]} at the start; run ${v.date}.`,
    `Versions: ${v.xio}, Azurite ${v.Azurite}, @azure/storage-blob ${v["@azure/storage-blob"]} on ` +
      `Node.js ${v["Node.js"]}, libcurl ${v.libcurl}, ${v.OpenSSL.replace(/ \(Library.*\)/, "")}.`,
    `Medians of ${runs}; ` + (shared ? "the client processes of each protocol on one shared " :
      "every client process on its own freshly started ") +
      `Azurite (in memory, 127.0.0.1). Settings: ${settings}. xio/JS below 1: xio is faster or leaner.`,
    "",
    "Transfers, whole client process (wall time, user+system CPU, peak RSS):",
    "",
    table(rows, "transfer", [["wall", "wall_s", fmt.s], ["CPU", "cpu_s", fmt.s],
                             ["peak RSS", "maxrss_mib", fmt.mib]]),
    "",
    "8 KiB random writes (IOPS, median latency and CPU per request over the writes; peak RSS " +
      "of the whole process):",
    "",
    table(rows, "random", [["IOPS", "iops", fmt.n], ["p50 latency", "p50_us", fmt.us],
                           ["CPU/request", "cpu_us_per_request", fmt.us],
                           ["peak RSS", "maxrss_mib", fmt.mib]]),
    "",
  ].join("\n");
}

function csv(label, rows) {
  const machine = `${label.cores} cores ${label.cpu}; ${label.memory}; Linux ${label.kernel}; ` +
    `${label.xio}; Azurite ${label.Azurite}; storage-blob ${label["@azure/storage-blob"]}; ` +
    `libcurl ${label.libcurl}; ${label.OpenSSL.replace(/ \(Library.*\)/, "")}; ${label.date}`;
  const cols = ["case", "protocol", "client", "runs", "failed", "wall_s", "cpu_s", "user_s", "sys_s",
                "maxrss_mib", "iops", "p50_us", "p99_us", "cpu_us_per_request"];
  const num = (v) => (typeof v === "number" ? (Number.isFinite(v) ? String(+v.toFixed(6)) : "") : v);
  const lines = [[...cols, "machine"].join(",")];
  for (const r of rows) lines.push([...cols.map((c) => num(r[c])), `"${machine}"`].join(","));
  return lines.join("\n") + "\n";
}

// Replaces the text between the markers in `file` with `text`.
function updateDoc(file, text) {
  const doc = fs.readFileSync(file, "utf8");
  const a = doc.indexOf(BEGIN), b = doc.indexOf(END);
  if (a < 0 || b < a) throw new Error(`${file} has no ${BEGIN} ... ${END} section`);
  fs.writeFileSync(file, doc.slice(0, a + BEGIN.length) + "\n" + text + doc.slice(b));
}

module.exports = { summarize, markdown, csv, updateDoc, median };
