import {
  closeSync,
  existsSync,
  ftruncateSync,
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
import { journalLine, parseJournalLine, UnknownJournalFormatError } from './settlement-journal-line.js';

/**
 * Past this size (bytes) the open file is sealed under another name when a batch starts instead of being
 * emptied after it (only when lines were appended while a batch was being committed).
 */
const ROTATE_BYTES = 8 * 1024 * 1024;

/** What was in the journal when a batch started: emptied once that batch is committed (see `seal`). */
export interface JournalMark {
  readonly generation: number;
  readonly bytes: number;
}

/**
 * Settled records appended to a local file, one line each (settlement-journal-line.ts), before
 * their answers end: the answer then waits for one write(2) (shared by the records settled in the
 * same turn of the event loop) instead of a store commit, and the store is written in
 * larger batches behind it (UsageWriter). No fsync: like SQLite's WAL under `synchronous =
 * NORMAL`, what is written survives the process being killed (the kernel holds it), not a power
 * cut. The file stays open: when a batch starts, `seal` marks how much of it that batch covers
 * (every record appended so far), and once the batch is committed or spilled `discardSealed`
 * empties the file (ftruncate) if nothing was appended since; a file that grew past ROTATE_BYTES
 * that way is instead renamed when a batch starts and removed once it is committed, as every
 * batch did before (issue 31: the open, close, rename and unlink per batch). A process that dies
 * leaves its file (and any sealed ones) behind, and the next start writes them to the store
 * before serving; the store write is idempotent (a record written twice charges nothing the
 * second time), so a record committed just before a kill, still in the file, costs nothing.
 */
export class SettlementJournal {
  private fd: number | null = null;
  /** Bytes appended to the open file since it was last emptied. */
  private bytes = 0;
  /** Counts the times the open file was emptied or replaced: a mark from before no longer applies. */
  private generation = 0;
  private sealedCount = 0;
  private readonly sealed: string[] = [];
  private readonly folder: string;
  private readonly prefix: string;

  constructor(
    readonly path: string,
    private readonly rotateBytes = ROTATE_BYTES,
  ) {
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
      this.bytes = 0;
      this.generation++;
    }
    let lines = '';
    for (const record of records) lines += journalLine(record);
    this.bytes += writeSync(this.fd, lines);
  }

  /**
   * A batch starts: every record appended so far is in it (or already committed). Returns the
   * mark `discardSealed` empties the file to once the batch is in the store; a file grown large
   * is closed under a sealed name now instead.
   */
  seal(): JournalMark {
    if (this.fd !== null && this.bytes >= this.rotateBytes) {
      closeSync(this.fd);
      this.fd = null;
      const sealed = join(this.folder, `${this.prefix}${process.pid}-${Date.now()}-${this.sealedCount++}`);
      renameSync(this.path, sealed);
      this.sealed.push(sealed);
    }
    return { generation: this.generation, bytes: this.fd === null ? 0 : this.bytes };
  }

  /**
   * Every record up to `mark` is in the store (or the spill file): the sealed files go, and the
   * open file is emptied if it holds nothing appended after the mark (otherwise it waits for a
   * later batch's mark).
   */
  discardSealed(mark: JournalMark): void {
    for (const file of this.sealed.splice(0)) rmSync(file, { force: true });
    if (this.fd === null || mark.generation !== this.generation || mark.bytes !== this.bytes || this.bytes === 0)
      return;
    ftruncateSync(this.fd, 0);
    this.bytes = 0;
    this.generation++;
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

  /**
   * The records of some files; a line cut by a crash mid-append is skipped (its answer never
   * ended). Reads both the current line format and the JSON objects of earlier versions.
   */
  static read(files: string[]): SettlementRecord[] {
    return files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .flatMap((line) => {
          try {
            return [parseJournalLine(line)];
          } catch (error) {
            if (error instanceof UnknownJournalFormatError) throw error;
            return [];
          }
        }),
    );
  }

  static remove(files: string[]): void {
    for (const file of files) rmSync(file, { force: true });
  }

  /** Closes the file; an empty one (everything committed) is removed. */
  close(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
    if (this.bytes === 0) rmSync(this.path, { force: true });
    this.generation++;
  }
}
