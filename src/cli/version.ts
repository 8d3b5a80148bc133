/** deflow's version (package.json's, checked by a test). */
export const VERSION = '0.1.0';
