export { startEmulator } from './start-emulator.js';
export { loadEmulatorConfig } from './config/config.js';
