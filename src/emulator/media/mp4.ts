/**
 * A structurally valid MP4 (ISO BMFF): `ftyp`, a `moov` with one `avc1` video track and,
 * optionally, one `mp4a` audio track, then an `mdat` with placeholder samples. Players cannot
 * decode the pictures, but parsers read the tracks, sizes and durations.
 */

/** Options of {@link makeMp4}. */
export interface Mp4Options {
  readonly seconds: number;
  readonly width: number;
  readonly height: number;
  /** @default 24 */
  readonly fps?: number;
  /** Add an AAC audio track of the same length. @default false */
  readonly audio?: boolean;
}

const VIDEO_SAMPLE_BYTES = 16;
const AUDIO_SAMPLE_BYTES = 8;
const AUDIO_RATE = 48_000;
const AUDIO_FRAME = 1024;
const MATRIX = [0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000];

function box(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length, 0);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, body]);
}

function u32(...values: number[]): Buffer {
  const out = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => {
    out.writeUInt32BE(v >>> 0, i * 4);
  });
  return out;
}

function u16(...values: number[]): Buffer {
  const out = Buffer.alloc(values.length * 2);
  values.forEach((v, i) => {
    out.writeUInt16BE(v & 0xffff, i * 2);
  });
  return out;
}

const fullBox = (type: string, flags: number, ...parts: Buffer[]): Buffer => box(type, u32(flags), ...parts);

interface TrackPlan {
  readonly id: number;
  readonly kind: 'vide' | 'soun';
  readonly timescale: number;
  readonly duration: number;
  readonly samples: number;
  readonly sampleDelta: number;
  readonly sampleBytes: number;
  readonly width: number;
  readonly height: number;
}

function sampleEntry(plan: TrackPlan): Buffer {
  if (plan.kind === 'vide') {
    const avcC = box('avcC', Buffer.from([1, 0x42, 0, 0x1e, 0xff, 0xe0, 0]));
    const name = Buffer.alloc(32);
    return box(
      'avc1',
      Buffer.alloc(6),
      u16(1, 0, 0),
      Buffer.alloc(12),
      u16(plan.width, plan.height),
      u32(0x00480000, 0x00480000, 0),
      u16(1),
      name,
      u16(0x0018, 0xffff),
      avcC,
    );
  }
  // ES descriptor: AAC-LC, 48 kHz, mono (decoder-specific info 0x1188).
  const esds = fullBox('esds', 0, Buffer.from([
    0x03, 0x19, 0x00, 0x02, 0x00,
    0x04, 0x11, 0x40, 0x15, 0x00, 0x00, 0x00, 0x00, 0x00, 0x7d, 0x00, 0x00, 0x00, 0x7d, 0x00,
    0x05, 0x02, 0x11, 0x88,
    0x06, 0x01, 0x02,
  ]));
  return box('mp4a', Buffer.alloc(6), u16(1), Buffer.alloc(8), u16(1, 16, 0, 0), u32(AUDIO_RATE * 65536), esds);
}

function trak(plan: TrackPlan, movieDurationMs: number, chunkOffset: number): Buffer {
  const isVideo = plan.kind === 'vide';
  const tkhd = fullBox(
    'tkhd',
    3,
    u32(0, 0, plan.id, 0, movieDurationMs, 0, 0),
    u16(0, 0, isVideo ? 0 : 0x0100, 0),
    u32(...MATRIX, plan.width * 65536, plan.height * 65536),
  );
  const mdhd = fullBox('mdhd', 0, u32(0, 0, plan.timescale, plan.duration), u16(0x55c4, 0));
  const hdlr = fullBox('hdlr', 0, u32(0), Buffer.from(plan.kind, 'latin1'), Buffer.alloc(12), Buffer.from(isVideo ? 'VideoHandler\0' : 'SoundHandler\0', 'latin1'));
  const header = isVideo ? fullBox('vmhd', 1, u16(0, 0, 0, 0)) : fullBox('smhd', 0, u16(0, 0));
  const dinf = box('dinf', fullBox('dref', 0, u32(1), fullBox('url ', 1)));
  const stbl = box(
    'stbl',
    fullBox('stsd', 0, u32(1), sampleEntry(plan)),
    fullBox('stts', 0, u32(1, plan.samples, plan.sampleDelta)),
    fullBox('stsc', 0, u32(1, 1, plan.samples, 1)),
    fullBox('stsz', 0, u32(plan.sampleBytes, plan.samples)),
    fullBox('stco', 0, u32(1, chunkOffset)),
  );
  return box('trak', tkhd, box('mdia', mdhd, hdlr, box('minf', header, dinf, stbl)));
}

function buildMoov(plans: readonly TrackPlan[], durationMs: number, mdatPayloadStart: number): Buffer {
  let offset = mdatPayloadStart;
  const traks = plans.map((plan) => {
    const t = trak(plan, durationMs, offset);
    offset += plan.samples * plan.sampleBytes;
    return t;
  });
  const mvhd = fullBox('mvhd', 0, u32(0, 0, 1000, durationMs, 0x00010000), u16(0x0100, 0), Buffer.alloc(8), u32(...MATRIX), Buffer.alloc(24), u32(plans.length + 1));
  return box('moov', mvhd, ...traks);
}

/** An MP4 with a video track (and an audio track when asked) lasting `seconds`. */
export function makeMp4(options: Mp4Options): Buffer {
  const fps = Math.max(1, Math.round(options.fps ?? 24));
  const seconds = Math.max(1 / fps, options.seconds);
  const frames = Math.max(1, Math.round(seconds * fps));
  const width = Math.max(2, Math.round(options.width));
  const height = Math.max(2, Math.round(options.height));
  const plans: TrackPlan[] = [
    { id: 1, kind: 'vide', timescale: fps * 1000, duration: frames * 1000, samples: frames, sampleDelta: 1000, sampleBytes: VIDEO_SAMPLE_BYTES, width, height },
  ];
  if (options.audio) {
    const audioFrames = Math.max(1, Math.round((seconds * AUDIO_RATE) / AUDIO_FRAME));
    plans.push({
      id: 2, kind: 'soun', timescale: AUDIO_RATE, duration: audioFrames * AUDIO_FRAME, samples: audioFrames,
      sampleDelta: AUDIO_FRAME, sampleBytes: AUDIO_SAMPLE_BYTES, width: 0, height: 0,
    });
  }
  const durationMs = Math.round((frames / fps) * 1000);
  const ftyp = box('ftyp', Buffer.from('isom', 'latin1'), u32(0x200), Buffer.from('isomiso2avc1mp41', 'latin1'));
  // The moov size does not depend on the offsets it holds, so build it twice.
  const moovSize = buildMoov(plans, durationMs, 0).length;
  const moov = buildMoov(plans, durationMs, ftyp.length + moovSize + 8);
  const payload = Buffer.alloc(plans.reduce((n, p) => n + p.samples * p.sampleBytes, 0), 0x5a);
  return Buffer.concat([ftyp, moov, box('mdat', payload)]);
}
