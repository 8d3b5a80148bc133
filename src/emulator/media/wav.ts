/** Silent WAV: 8-bit unsigned PCM, mono (value 128 is silence), at the given sample rate. */
export function makeWav(seconds: number, sampleRate = 16_000): Buffer {
  const rate = Math.max(1000, Math.round(sampleRate));
  const samples = Math.max(1, Math.round(seconds * rate));
  const pad = samples % 2;
  const out = Buffer.alloc(44 + samples + pad, 128);
  out.write('RIFF', 0, 'latin1');
  out.writeUInt32LE(36 + samples + pad, 4);
  out.write('WAVE', 8, 'latin1');
  out.write('fmt ', 12, 'latin1');
  out.writeUInt32LE(16, 16); // fmt chunk size
  out.writeUInt16LE(1, 20); // PCM
  out.writeUInt16LE(1, 22); // mono
  out.writeUInt32LE(rate, 24);
  out.writeUInt32LE(rate, 28); // byte rate
  out.writeUInt16LE(1, 32); // block align
  out.writeUInt16LE(8, 34); // bits per sample
  out.write('data', 36, 'latin1');
  out.writeUInt32LE(samples, 40);
  return out;
}
