// Types of proxyHeap.mjs (the bench imports it from TypeScript).
export declare const PROXY_HEAP_FLAGS: string[];
