// Exact-integer JSON lives in lib/wire/json.ts. This re-export is for components/api/client.ts
// (issue #12, web part): remove it once the browser code imports lib/wire/json directly.
export { parseJsonExact, stringifyExact } from "../wire/json";
