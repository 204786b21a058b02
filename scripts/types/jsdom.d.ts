// jsdom's own types are not installed (the bench and the quality test use one constructor of it).
declare module "jsdom" {
  /** Without `forwardTo`/`sendTo`, messages of the page (console, CSS errors) go nowhere. */
  export class VirtualConsole {}
  export class JSDOM {
    constructor(html: string, options?: { url?: string; contentType?: string; virtualConsole?: VirtualConsole });
    readonly window: { document: unknown; close(): void };
  }
}
