// Types of the part of `negotiator` (jshttp, CommonJS, no bundled types) the gateway uses: Accept-Encoding
// negotiation with a server-side order for ties (the `preferred` option, since negotiator 1.0), and Accept's.
declare module 'negotiator' {
  export default class Negotiator {
    constructor(request: { headers: Record<string, string | undefined> });
    /** The codings of `available` the client accepts, best first; ties go by `preferred`. */
    encodings(available: readonly string[], options?: { preferred?: readonly string[] }): string[];
    /** The media type of `available` the client prefers (ties: the order of `available`), or undefined. */
    mediaType(available: readonly string[]): string | undefined;
  }
}
