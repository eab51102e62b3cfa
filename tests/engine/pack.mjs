// A Godot 4 main pack (`.pck`, pack format 3, Godot 4.4 and later) from files in memory.
//
// Layout (core/io/file_access_pack.cpp, PackedSourcePCK::try_open_pack, and the pack the
// official 4.6 template ships): magic `GDPC`; u32 pack format 3; u32 engine major, minor,
// patch (4, 6, 0: a pack newer than the engine is refused); u32 flags (2 = file offsets
// are relative to the file base); u64 file base; u64 directory offset; 16 reserved u32;
// the files' bytes; then the directory: u32 file count, and per file u32 path length
// (the path without `res://`, padded with NUL to a multiple of 4), the path, u64 offset
// (from the file base), u64 size, 16-byte MD5 of the bytes, u32 flags (0). All little
// endian. Files are aligned to 16 bytes, as the engine's own packer does (not required).
import { createHash } from "node:crypto";

const MAGIC = 0x43504447; // "GDPC"
const FORMAT = 3;
const REL_FILEBASE = 2;
const HEADER = 4 + 4 * 4 + 4 + 8 + 8 + 16 * 4; // 104 bytes
const ALIGN = 16;

const pad = (n, a) => (n + a - 1) - ((n + a - 1) % a);

/** `files`: [{ path: "res://a/b.tscn" or "a/b.tscn", data: Buffer|string }]. */
export function buildPack(files, version = [4, 6, 0]) {
  const seen = new Set();
  const entries = files.map(({ path, data }) => {
    const rel = path.replace(/^res:\/\//, "");
    if (seen.has(rel)) throw new Error(`pack: ${rel} given twice`);
    seen.add(rel);
    const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data, "utf8");
    return { rel, bytes };
  });
  const fileBase = pad(HEADER, ALIGN);
  let offset = 0;
  for (const e of entries) {
    e.offset = offset;
    offset = pad(offset + e.bytes.length, ALIGN);
  }
  const dirOffset = fileBase + offset;
  const dirParts = [];
  const u32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32LE(v); return b; };
  const u64 = (v) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); return b; };
  dirParts.push(u32(entries.length));
  for (const e of entries) {
    const name = Buffer.from(e.rel, "utf8");
    const padded = Buffer.alloc(pad(name.length, 4));
    name.copy(padded);
    dirParts.push(u32(padded.length), padded, u64(e.offset), u64(e.bytes.length),
      createHash("md5").update(e.bytes).digest(), u32(0));
  }
  const dir = Buffer.concat(dirParts);
  const out = Buffer.alloc(dirOffset + dir.length);
  out.writeUInt32LE(MAGIC, 0);
  out.writeUInt32LE(FORMAT, 4);
  out.writeUInt32LE(version[0], 8);
  out.writeUInt32LE(version[1], 12);
  out.writeUInt32LE(version[2], 16);
  out.writeUInt32LE(REL_FILEBASE, 20);
  out.writeBigUInt64LE(BigInt(fileBase), 24);
  out.writeBigUInt64LE(BigInt(dirOffset), 32);
  for (const e of entries) e.bytes.copy(out, fileBase + e.offset);
  dir.copy(out, dirOffset);
  return out;
}

/** The directory of a pack written in format 3: [{ path, offset, size, md5 }]. */
export function readPack(buf) {
  if (buf.readUInt32LE(0) !== MAGIC) throw new Error("not a Godot pack");
  if (buf.readUInt32LE(4) !== FORMAT) throw new Error(`pack format ${buf.readUInt32LE(4)}, not 3`);
  const flags = buf.readUInt32LE(20);
  const fileBase = Number(buf.readBigUInt64LE(24)) ;
  let at = Number(buf.readBigUInt64LE(32));
  const count = buf.readUInt32LE(at); at += 4;
  const files = [];
  for (let i = 0; i < count; i++) {
    const len = buf.readUInt32LE(at); at += 4;
    const path = buf.subarray(at, at + len).toString("utf8").replace(/\0+$/, ""); at += len;
    const offset = Number(buf.readBigUInt64LE(at)) + ((flags & REL_FILEBASE) ? fileBase : 0); at += 8;
    const size = Number(buf.readBigUInt64LE(at)); at += 8;
    const md5 = buf.subarray(at, at + 16).toString("hex"); at += 16;
    at += 4;
    files.push({ path, offset, size, md5 });
  }
  return files;
}
