// Types for the untyped `consistent-hash` package (1.2.x): only what placement uses.
declare module "consistent-hash" {
  interface Options {
    range?: number;
    weight?: number;
    distribution?: "random" | "uniform";
  }
  export default class ConsistentHash {
    constructor(options?: Options);
    add(node: string, weight?: number, points?: number[]): this;
    remove(node: string): this;
    get(resource: string): string | null;
    getNodes(): string[];
  }
}
