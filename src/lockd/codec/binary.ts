// The byte-level primitives of lockd's hand-made binary codecs (the peer frame, transport/frame-codec.ts,
// and the command codec, state-machine/command-codec.ts). Pure: no I/O, no clock.
//
// uint: unsigned LEB128, 7 bits per byte, low group first, at most 8 bytes (2^56 > 2^53), and minimal
//   (no trailing 0x80-continued zero group): one value has one encoding. Values above 2^53 - 1
//   (Number.MAX_SAFE_INTEGER) are refused both ways.
// str: uint byte length, then that many bytes of UTF-8 (well-formed: no lone surrogates either way).
// bytes: uint length, then the bytes.
// Every read is bounded by the bytes that remain, so no input makes a reader allocate more than it
// was given; a reader refuses with the error its owner chose (a ProtocolError, a CommandDecodeError).

// ignoreBOM: without it TextDecoder silently drops a leading U+FEFF, so the names "\uFEFFdb" and "db"
// would decode to the same lock on every replica.
const fatalUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const SHORT_ASCII = 64;

/** Writes into one preallocated buffer sized by an upper bound; result() is the written prefix. */
export class Writer {
  private readonly buf: Buffer;
  private pos = 0;

  constructor(maxBytes: number) {
    this.buf = Buffer.allocUnsafe(maxBytes);
  }

  u8(n: number): void {
    this.buf[this.pos++] = n;
  }

  uint(n: number): void {
    if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`not an unsigned safe integer: ${n}`);
    while (n >= 0x80) {
      this.buf[this.pos++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.pos++] = n;
  }

  f64(n: number): void {
    this.buf.writeDoubleLE(n, this.pos);
    this.pos += 8;
  }

  /** At most MAX_UINT_BYTES + 3 · s.length bytes. Throws TypeError on a string that is not well-formed Unicode. */
  str(s: string): void {
    if (!(s as unknown as { isWellFormed(): boolean }).isWellFormed()) throw new TypeError('string is not well-formed Unicode (lone surrogate)');
    if (s.length * 3 < 0x80) {
      // The UTF-8 length fits one length byte: write the string after it, then fill it in.
      const at = this.pos++;
      const n = this.buf.write(s, this.pos, 'utf8');
      this.buf[at] = n;
      this.pos += n;
      return;
    }
    const n = Buffer.byteLength(s, 'utf8');
    this.uint(n);
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  bytes(b: Uint8Array): void {
    this.uint(b.length);
    copyInto(b, this.buf, this.pos);
    this.pos += b.length;
  }

  result(): Buffer {
    // A Buffer drops writes past its end; pos still counts them, so a wrong upper bound shows here.
    if (this.pos > this.buf.length) throw new Error(`Writer: ${this.pos} bytes written into ${this.buf.length} (the size bound is wrong)`);
    return this.buf.subarray(0, this.pos);
  }
}

/** Bytes a uint takes at most (2^53 - 1 needs 8 groups of 7 bits). */
export const MAX_UINT_BYTES = 8;

/** Upper bound on the bytes Writer.str(s) writes. */
export const maxStrBytes = (s: string): number => MAX_UINT_BYTES + 3 * s.length;

export class Reader {
  private pos = 0;

  constructor(
    private readonly buf: Uint8Array,
    private readonly fail: (detail: string) => Error,
  ) {}

  get remaining(): number {
    return this.buf.length - this.pos;
  }

  u8(what: string): number {
    if (this.pos >= this.buf.length) throw this.fail(`truncated: ${what} missing`);
    return this.buf[this.pos++];
  }

  uint(what: string): number {
    let n = 0;
    let scale = 1;
    for (let i = 0; i < MAX_UINT_BYTES; i++) {
      if (this.pos >= this.buf.length) throw this.fail(`truncated: ${what} missing`);
      const b = this.buf[this.pos++];
      n += (b & 0x7f) * scale;
      if (b < 0x80) {
        if (b === 0 && i > 0) throw this.fail(`${what}: non-minimal integer encoding`);
        if (n > Number.MAX_SAFE_INTEGER) throw this.fail(`${what}: ${n} exceeds 2^53 - 1`);
        return n;
      }
      scale *= 0x80;
    }
    throw this.fail(`${what}: integer longer than ${MAX_UINT_BYTES} bytes`);
  }

  f64(what: string): number {
    if (this.remaining < 8) throw this.fail(`truncated: ${what} missing`);
    const v = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 8).getFloat64(0, true);
    this.pos += 8;
    return v;
  }

  /** A length-prefixed run of bytes, at most maxBytes long: a view into the input (no copy). */
  bytes(what: string, maxBytes: number): Uint8Array {
    const n = this.uint(what); // (no per-call string building on the hot path)
    if (n > this.remaining) throw this.fail(`truncated: ${what} says ${n} bytes, ${this.remaining} remain`);
    if (n > maxBytes) throw this.fail(`${what} is ${n} bytes; the limit is ${maxBytes}`);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** A length-prefixed UTF-8 string of at most maxBytes bytes; malformed UTF-8 is refused. */
  str(what: string, maxBytes: number): string {
    const b = this.bytes(what, maxBytes);
    // Short ASCII (node ids, lock names) is the common case: no decoder call for it.
    if (b.length <= SHORT_ASCII) {
      let ascii = true;
      for (let i = 0; i < b.length; i++) if (b[i] >= 0x80) ascii = false;
      if (ascii) return String.fromCharCode.apply(null, b as unknown as number[]);
    }
    try {
      return fatalUtf8.decode(b);
    } catch {
      throw this.fail(`${what} is not valid UTF-8`);
    }
  }

  /** Nothing may follow the last field. */
  end(what: string): void {
    if (this.pos !== this.buf.length) throw this.fail(`${this.buf.length - this.pos} trailing bytes after the ${what}`);
  }
}

/**
 * dst.set(src, at), fast also when both lie in one ArrayBuffer (Node's pooled small Buffers do):
 * TypedArray.set takes a slow copying path for a shared buffer; Buffer.copy is a memmove.
 */
export function copyInto(src: Uint8Array, dst: Buffer, at: number): void {
  if (src.buffer !== dst.buffer) dst.set(src, at);
  else if (src instanceof Buffer) src.copy(dst, at);
  else Buffer.from(src.buffer, src.byteOffset, src.byteLength).copy(dst, at);
}
