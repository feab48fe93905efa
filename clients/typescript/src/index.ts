/**
 * The AFM TypeScript client: the SDK generated from `openapi/afm.yaml` (`./generated/`, never
 * edited by hand) and the hand-written streaming helper (`./streaming.ts`).
 */

export { client } from './generated/client.gen.js';
export { createClient, createConfig } from './generated/client/index.js';
export type { Client, Config } from './generated/client/index.js';
export * from './generated/index.js';
export * from './streaming.js';
