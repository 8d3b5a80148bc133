export { startEmulator } from './start-emulator.js';
