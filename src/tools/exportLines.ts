// The lines of an export file, read as bytes with a cap on each line's length: a line is held
// only up to `lineBytesMax` bytes, so a file of one endless line is refused after that many bytes
// and never costs more memory (readline buffers a whole line as a string, and a line of a few
// hundred MB ends in an uncaught RangeError).
import { Buffer } from "node:buffer";

/** One line of the file, numbered from 1, without its `\n` (or `\r\n`). */
export interface NumberedLine {
  readonly number: number;
  readonly text: string;
}

const newline = 0x0a;

/**
 * The lines of `input` (chunks of bytes, e.g. a file's read stream), each decoded as UTF-8.
 * Throws naming the line when one is longer than `lineBytesMax` bytes or is not UTF-8.
 */
export async function* readLines(input: AsyncIterable<Buffer>, lineBytesMax: number): AsyncGenerator<NumberedLine> {
  let pieces: Buffer[] = [];
  let held = 0;
  let number = 1;
  for await (const chunk of input) {
    let start = 0;
    for (let end = chunk.indexOf(newline); end >= 0; end = chunk.indexOf(newline, start)) {
      const last = chunk.subarray(start, end);
      if (held + last.length > lineBytesMax) throw tooLong(number, lineBytesMax);
      yield { number, text: decodeLine([...pieces, last], number) };
      pieces = [];
      held = 0;
      number++;
      start = end + 1;
    }
    const rest = chunk.subarray(start);
    if (held + rest.length > lineBytesMax) throw tooLong(number, lineBytesMax);
    if (rest.length > 0) pieces.push(rest);
    held += rest.length;
  }
  if (held > 0) yield { number, text: decodeLine(pieces, number) };
}

function decodeLine(pieces: readonly Buffer[], number: number): string {
  const bytes = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
  let text: string;
  try {
    // fatal: a byte that is not UTF-8 would otherwise become U+FFFD and change a transaction.
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new Error(`line ${number} is not UTF-8 text`);
  }
  return text.endsWith("\r") ? text.slice(0, -1) : text;
}

function tooLong(number: number, lineBytesMax: number): Error {
  return new Error(`line ${number} is longer than ${lineBytesMax} bytes, the most an export's line may be`);
}
