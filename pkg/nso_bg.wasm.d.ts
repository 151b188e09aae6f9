/* tslint:disable */
/* eslint-disable */
export const memory: WebAssembly.Memory;
export const __wbg_nso_free: (a: number, b: number) => void;
export const checkConfig: (a: number, b: number, c: number, d: number) => [number, number, number, number];
export const classify: (a: number, b: number, c: number, d: number) => [number, number, number, number];
export const nso_aliveLine: (a: number, b: number, c: number, d: number, e: number) => [number, number];
export const nso_config: (a: number) => [number, number, number];
export const nso_decide: (a: number, b: number, c: number) => [number, number, number, number];
export const nso_evaluate: (a: number, b: number, c: number) => [number, number, number, number];
export const nso_explain: (a: number, b: number, c: number) => [number, number, number, number];
export const nso_forgetSession: (a: number, b: number, c: number) => void;
export const nso_lookups: (a: number, b: number, c: number) => [number, number, number, number];
export const nso_markerText: (a: number, b: number, c: number, d: number, e: number, f: any) => [number, number, number, number];
export const nso_new: (a: number, b: number, c: number, d: number) => [number, number, number];
export const nso_sessionSummary: (a: number, b: any) => [number, number, number];
export const nso_setStatusChecker: (a: number, b: any) => void;
export const policySchema: () => [number, number];
export const start: () => void;
export const trapForTest: () => void;
export const version: () => [number, number];
export const __wbindgen_malloc: (a: number, b: number) => number;
export const __wbindgen_realloc: (a: number, b: number, c: number, d: number) => number;
export const __wbindgen_free: (a: number, b: number, c: number) => void;
export const __wbindgen_exn_store: (a: number) => void;
export const __externref_table_alloc: () => number;
export const __wbindgen_externrefs: WebAssembly.Table;
export const __externref_table_dealloc: (a: number) => void;
export const __wbindgen_start: () => void;
