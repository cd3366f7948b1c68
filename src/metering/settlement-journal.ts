import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { SettlementRecord } from './settlement-record.js';

/**
 * Settled records appended to a local file, one JSON line each, before their answers end: the
 * answer then waits for one write(2) (shared by the records settled in the same turn of the
 * event loop) instead of a store commit, and the store is written in
 * larger batches behind it (UsageWriter). No fsync: like SQLite's WAL under `synchronous =
 * NORMAL`, what is written survives the process being killed (the kernel holds it), not a power
 * cut. The file is sealed (renamed) when a batch starts, and a sealed file is removed once every
 * record in it is committed or spilled; a process that dies leaves its files behind, and the next
 * start writes them to the store before serving (the store write is idempotent: a record written
 * twice charges nothing the second time).
 */
export class SettlementJournal {
  private fd: number | null = null;
  private sealedCount = 0;
  private readonly sealed: string[] = [];
  private readonly folder: string;
  private readonly prefix: string;

  constructor(readonly path: string) {
    this.folder = dirname(path);
    this.prefix = `${basename(path)}.sealed-`;
  }

  /**
   * Appends records in one write(2) (the usage writer gathers those settled in one turn of the
   * event loop); throws when the file cannot be written (the caller then waits for the commit).
   */
  append(records: SettlementRecord[]): void {
    if (records.length === 0) return;
    if (this.fd === null) {
      mkdirSync(this.folder, { recursive: true });
      this.fd = openSync(this.path, 'a');
    }
    let lines = '';
    for (const record of records) lines += `${JSON.stringify(record)}\n`;
    writeSync(this.fd, lines);
  }

  /** Closes the current file under a sealed name: every record appended so far is in a sealed file. */
  seal(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
    const sealed = join(this.folder, `${this.prefix}${process.pid}-${Date.now()}-${this.sealedCount++}`);
    renameSync(this.path, sealed);
    this.sealed.push(sealed);
  }

  /** Every sealed file's records are in the store (or the spill file): they go. */
  discardSealed(): void {
    for (const file of this.sealed.splice(0)) rmSync(file, { force: true });
  }

  /** Files left by an earlier process (or by this one before start), oldest first. */
  leftovers(): string[] {
    if (!existsSync(this.folder)) return [];
    const files = readdirSync(this.folder)
      .filter((name) => name.startsWith(this.prefix))
      .sort()
      .map((name) => join(this.folder, name));
    if (existsSync(this.path)) files.push(this.path);
    return files;
  }

  /** The records of some files; a line cut by a crash mid-append is skipped (its answer never ended). */
  static read(files: string[]): SettlementRecord[] {
    return files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .flatMap((line) => {
          try {
            return [JSON.parse(line) as SettlementRecord];
          } catch {
            return [];
          }
        }),
    );
  }

  static remove(files: string[]): void {
    for (const file of files) rmSync(file, { force: true });
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
