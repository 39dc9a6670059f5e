/** What went wrong, as a stable string a caller can switch on. */
export type WgprimErrorCode =
  | 'invalid-argument'
  | 'unsupported-type'
  | 'invalid-operator'
  | 'invalid-config'
  | 'buffer-usage'
  | 'buffer-size'
  | 'overlap'
  | 'limit-exceeded'
  | 'missing-feature'
  | 'no-adapter'
  | 'compile-failed'
  | 'device-lost'
  /** Reading or writing the tune cache failed (a file, localStorage's quota). */
  | 'cache-failed';

/** The one error class of wgprim: a code to switch on and a message that says what to do. */
export class WgprimError extends Error {
  readonly code: WgprimErrorCode;
  constructor(code: WgprimErrorCode, message: string, options?: { cause?: unknown }) {
    super(`[wgprim:${code}] ${message}`, options);
    this.name = 'WgprimError';
    this.code = code;
  }
}

export function fail(code: WgprimErrorCode, message: string): never {
  throw new WgprimError(code, message);
}
