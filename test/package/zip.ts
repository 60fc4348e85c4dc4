/**
 * Reads a zip archive (a .vsix) through its central directory: entry names, and their contents
 * inflated with zlib. Enough for the archives vsce writes (stored or deflated, no zip64).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as zlib from "node:zlib";

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;

export interface ZipEntry {
  name: string;
  /** Size of the contents once inflated. */
  size: number;
  read(): Buffer;
}

export function readZip(file: string): ZipEntry[] {
  const archive = fs.readFileSync(file);
  // The end record is the last 22 bytes unless the archive has a comment (up to 65,535 bytes).
  let end = -1;
  for (let at = archive.length - 22; at >= Math.max(0, archive.length - 22 - 0xffff); at--) {
    if (archive.readUInt32LE(at) === END_OF_CENTRAL_DIRECTORY) {
      end = at;
      break;
    }
  }
  if (end < 0) throw new Error(`${file} is not a zip archive`);
  const count = archive.readUInt16LE(end + 10);
  let at = archive.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let index = 0; index < count; index++) {
    if (archive.readUInt32LE(at) !== CENTRAL_DIRECTORY_ENTRY) throw new Error(`${file}: broken central directory at entry ${index}`);
    const method = archive.readUInt16LE(at + 10);
    const compressedSize = archive.readUInt32LE(at + 20);
    const size = archive.readUInt32LE(at + 24);
    const nameLength = archive.readUInt16LE(at + 28);
    const extraLength = archive.readUInt16LE(at + 30);
    const commentLength = archive.readUInt16LE(at + 32);
    const localHeader = archive.readUInt32LE(at + 42);
    const name = archive.toString("utf8", at + 46, at + 46 + nameLength);
    entries.push({
      name,
      size,
      read() {
        if (archive.readUInt32LE(localHeader) !== LOCAL_FILE_HEADER) throw new Error(`${file}: no local header for ${name}`);
        const dataStart = localHeader + 30 + archive.readUInt16LE(localHeader + 26) + archive.readUInt16LE(localHeader + 28);
        const data = archive.subarray(dataStart, dataStart + compressedSize);
        if (method === STORED) return Buffer.from(data);
        if (method === DEFLATED) return zlib.inflateRawSync(data);
        throw new Error(`${file}: ${name} uses compression method ${method}`);
      },
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** Writes every entry under `folder`, refusing names that would land outside it. */
export function extractZip(file: string, folder: string): void {
  const root = path.resolve(folder);
  for (const entry of readZip(file)) {
    if (entry.name.endsWith("/")) continue;
    const target = path.resolve(root, entry.name);
    if (!target.startsWith(root + path.sep)) throw new Error(`${file}: entry ${entry.name} points outside the folder`);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, entry.read());
  }
}
