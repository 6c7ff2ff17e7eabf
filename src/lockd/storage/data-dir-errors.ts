// Why a node refuses to start on a data dir. The CLI prints the message and exits non-zero.

export type DataDirProblem =
  | 'foreign' // written by another cluster or another node
  | 'voters' // made for another set of voters than --peers names
  | 'corrupt' // a record fails its checksum, or the log has a gap or is inconsistent
  | 'format' // written by a lockd whose storage format this build does not read
  | 'locked' // another process has it open
  | 'unusable'; // LevelDB cannot open it (permissions, not a directory, damaged database files)

export class DataDirError extends Error {
  constructor(
    readonly problem: DataDirProblem,
    readonly dir: string,
    detail: string,
  ) {
    super(`refusing data dir ${dir} (${problem}): ${detail}`);
    this.name = 'DataDirError';
  }
}

/** A stored value that does not decode; the loader turns it into a DataDirError naming the key. */
export class RecordError extends Error {}

/** The identity record names a storage format this build does not read: DataDirError 'format', not 'corrupt'. */
export class FormatError extends RecordError {}
