import { closeSync, constants as fsConstants, fstatSync, openSync, readSync } from 'node:fs';
import { TRANSCRIBE_AUDIO_FILE, TRANSCRIBE_SOURCE_FILE } from '../../service/index.js';
import type { FileRule } from '../../service/index.js';
import { formatBytes } from '../yaml/read-source-file.js';

/** Extensions `file-type` reports under another name than the service's messages use. */
const ALIASES: Readonly<Record<string, string>> = { mpg: 'mpeg', qt: 'mov', asf: 'wmv', oga: 'ogg', opus: 'ogg', jpeg: 'jpg' };

/** Bytes `file-type` needs to recognise every format the service takes. */
const SNIFF_BYTES = 4100;

/**
 * Reads the head and size of files to sniff. Synchronous reads into one buffer: a validation
 * of 100,000 items costs four system calls per file instead of a dozen promise round trips.
 */
export class FileSniffer {
  readonly #buffer = Buffer.alloc(SNIFF_BYTES);

  /**
   * Why a file does not fit a field's rule, or undefined when it does. The format comes from
   * the content (never the extension); the size is checked against the rule's cap (20 MB for
   * audio given to transcription's `source_file`, whose video cap is 50 MB).
   */
  async problem(path: string, rule: FileRule): Promise<string | undefined> {
    let size: number;
    let head: Buffer;
    try {
      // Non-blocking: a FIFO is refused below instead of waiting for a writer.
      const fd = openSync(path, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
      try {
        const info = fstatSync(fd);
        if (info.isDirectory()) return 'expected a file, got a folder';
        if (!info.isFile()) return 'expected a regular file, got a FIFO, socket or device';
        size = info.size;
        head = Buffer.from(this.#buffer.subarray(0, readSync(fd, this.#buffer, 0, SNIFF_BYTES, 0)));
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return code === 'ENOENT' ? 'file not found' : code === 'EISDIR' ? 'expected a file, got a folder' : `cannot read the file (${code ?? String(error)})`;
    }
    const expected = `expected ${rule.formats.join(', ')}`;
    if (size === 0) return `${expected}, got an empty file`;
    // Loaded for the first file sniffed: workflows without local files never need it. Its core
    // (the same fileTypeFromBuffer): the package's Node entry adds streams and files, whose
    // web streams would cost a start a dozen built-ins.
    const { fileTypeFromBuffer } = await import('file-type/core');
    const detected = await fileTypeFromBuffer(head);
    if (!detected) return `${expected}, got content of an unrecognised format`;
    const format = ALIASES[detected.ext] ?? detected.ext;
    if (!rule.formats.includes(format)) return `${expected}, got ${format} (${detected.mime})`;
    const family = detected.mime.split('/')[0] ?? '';
    const cap = rule === TRANSCRIBE_SOURCE_FILE && family === 'audio' ? TRANSCRIBE_AUDIO_FILE.maxBytes : rule.maxBytes;
    if (size > cap) {
      const [limit, got] = formatBytes(size) === formatBytes(cap) ? [`${cap} bytes`, `${size} bytes`] : [formatBytes(cap), formatBytes(size)];
      return `expected at most ${limit}, got ${got}`;
    }
    return undefined;
  }
}
