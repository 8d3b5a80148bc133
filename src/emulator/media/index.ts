export { makeFlac } from './flac.js';
export { makeJpeg } from './jpeg.js';
export { makeMp3 } from './mp3.js';
export { type Mp4Options, makeMp4 } from './mp4.js';
export { makePng, type PngOptions } from './png.js';
export { makeWav } from './wav.js';
export { makeWebp } from './webp.js';
