/**
 * A MessagePack encoder for the apply script's packed arguments (pack-event.ts), decoded in Redis
 * by its built-in cmsgpack. Only what those arguments hold: strings (UTF-8, str8/16/32), numbers
 * (integers within ±2^31 as fixint/int8..int32, others as float64, which cmsgpack decodes to the
 * same Lua number: exact for every safe integer), booleans, null, arrays and plain objects (maps
 * with string keys; an undefined property is left out). One growing buffer per encoder.
 */
export type Packable = string | number | boolean | null | readonly Packable[] | { readonly [key: string]: Packable | undefined };

export class PackWriter {
  private buf = Buffer.allocUnsafe(4096);
  private at = 0;

  /** The bytes of `value`, copied out (the writer's buffer is reused). */
  pack(value: Packable): Buffer {
    this.start();
    this.write(value);
    return this.done();
  }

  /** Starts a value written piece by piece (map, key, string, number, boolean, write); done() returns its bytes. */
  start(): void {
    this.at = 0;
  }

  done(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.at));
  }

  /** A map's header: `n` key-value pairs follow. */
  map(n: number): void {
    this.header(n, 0x80, 0xde);
  }

  /** An array's header: `n` elements follow. */
  array(n: number): void {
    this.header(n, 0x90, 0xdc);
  }

  /** Bytes encoded beforehand: a key (key()), or a whole value. */
  raw(bytes: Buffer): void {
    this.room(bytes.length);
    this.at += bytes.copy(this.buf, this.at);
  }

  /** A string's encoding, to write it often with raw(). */
  static key(name: string): Buffer {
    return new PackWriter().pack(name);
  }

  boolean(b: boolean): void {
    this.byte(b ? 0xc3 : 0xc2);
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(2 * this.buf.length, this.at + n));
    this.buf.copy(bigger, 0, 0, this.at);
    this.buf = bigger;
  }

  write(v: Packable): void {
    if (typeof v === "string") this.string(v);
    else if (typeof v === "number") this.number(v);
    else if (typeof v === "boolean") this.byte(v ? 0xc3 : 0xc2);
    else if (v === null) this.byte(0xc0);
    else if (Array.isArray(v)) {
      this.header(v.length, 0x90, 0xdc);
      for (const x of v as readonly Packable[]) this.write(x);
    } else {
      const o = v as { readonly [key: string]: Packable | undefined };
      const keys = Object.keys(o).filter((k) => o[k] !== undefined);
      this.header(keys.length, 0x80, 0xde);
      for (const k of keys) {
        this.string(k);
        this.write(o[k]!);
      }
    }
  }

  private byte(b: number): void {
    this.room(1);
    this.buf[this.at++] = b;
  }

  /** An array's or a map's header: fix (< 16 elements), 16-bit or 32-bit count. */
  private header(n: number, fix: number, wide: number): void {
    this.room(5);
    if (n < 16) this.buf[this.at++] = fix | n;
    else if (n < 0x10000) {
      this.buf[this.at++] = wide;
      this.at = this.buf.writeUInt16BE(n, this.at);
    } else {
      this.buf[this.at++] = wide + 1;
      this.at = this.buf.writeUInt32BE(n, this.at);
    }
  }

  number(x: number): void {
    this.room(9);
    if (Number.isInteger(x) && x >= -(2 ** 31) && x < 2 ** 31) {
      if (x >= 0 && x < 128) this.buf[this.at++] = x;
      else if (x < 0 && x >= -32) this.buf[this.at++] = x & 0xff;
      else {
        this.buf[this.at++] = 0xd2;
        this.at = this.buf.writeInt32BE(x, this.at);
      }
      return;
    }
    this.buf[this.at++] = 0xcb;
    this.at = this.buf.writeDoubleBE(x, this.at);
  }

  string(s: string): void {
    const n = Buffer.byteLength(s, "utf8");
    this.room(n + 5);
    if (n < 32) this.buf[this.at++] = 0xa0 | n;
    else if (n < 0x100) {
      this.buf[this.at++] = 0xd9;
      this.buf[this.at++] = n;
    } else if (n < 0x10000) {
      this.buf[this.at++] = 0xda;
      this.at = this.buf.writeUInt16BE(n, this.at);
    } else {
      this.buf[this.at++] = 0xdb;
      this.at = this.buf.writeUInt32BE(n, this.at);
    }
    this.at += this.buf.write(s, this.at, "utf8");
  }
}
