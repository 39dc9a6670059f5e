// The part of cli-progress 3 (CommonJS, no bundled types) that `wgprim tune` uses.
declare module 'cli-progress' {
  export interface Options {
    format?: string;
    barsize?: number;
    hideCursor?: boolean;
    clearOnComplete?: boolean;
    stopOnComplete?: boolean;
    etaBuffer?: number;
    noTTYOutput?: boolean;
    notTTYSchedule?: number;
    stream?: NodeJS.WritableStream;
    fps?: number;
  }
  export type Payload = Record<string, unknown>;
  export class SingleBar {
    constructor(options: Options, preset?: unknown);
    start(total: number, startValue: number, payload?: Payload): void;
    update(value: number, payload?: Payload): void;
    setTotal(total: number): void;
    stop(): void;
  }
  export class MultiBar {
    constructor(options: Options, preset?: unknown);
    create(total: number, startValue: number, payload?: Payload): SingleBar;
    stop(): void;
  }
  export const Presets: { readonly legacy: unknown; readonly rect: unknown; readonly shades_classic: unknown; readonly shades_grey: unknown };
  const cliProgress: { SingleBar: typeof SingleBar; MultiBar: typeof MultiBar; Presets: typeof Presets };
  export default cliProgress;
}
