/** The library's version: tuned rows and tune-cache entries record it. */
export const WGPRIM_VERSION = '0.1.0';
