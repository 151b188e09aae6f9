/* tslint:disable */
/* eslint-disable */
export const memory: WebAssembly.Memory;
export const __wbg_workflow_free: (a: number, b: number) => void;
export const checkDelegation: (a: number, b: number, c: number, d: number, e: number) => [number, number, number, number];
export const checkDelegationChain: (a: number, b: number, c: number, d: number, e: number) => [number, number, number, number];
export const commandRouting: (a: number, b: number, c: number, d: number) => [number, number, number, number];
export const detectLanguage: (a: number, b: number, c: number, d: number, e: number, f: number) => [number, number, number, number];
export const hasJsonReturn: (a: number, b: number) => number;
export const jsonReturnPaths: (a: number, b: number) => [number, number];
export const parseTaskFile: (a: number, b: number, c: number, d: number) => [number, number, number, number];
export const resultPaths: (a: number, b: number) => [number, number, number, number];
export const routeLanguage: (a: number, b: number, c: number, d: number, e: number, f: number) => [number, number, number, number];
export const start: () => void;
export const statusCheck: (a: number, b: number, c: number, d: number, e: number, f: number) => [number, number, number, number];
export const validateJsonReturn: (a: number, b: number, c: number, d: number, e: number, f: number) => [number, number, number, number];
export const workflow_new: (a: number, b: number, c: number, d: number) => [number, number, number];
export const workflow_route: (a: number, b: number, c: number, d: number, e: number, f: number, g: number, h: number, i: number) => [number, number, number, number];
export const __wbindgen_free: (a: number, b: number, c: number) => void;
export const __wbindgen_exn_store: (a: number) => void;
export const __externref_table_alloc: () => number;
export const __wbindgen_externrefs: WebAssembly.Table;
export const __wbindgen_malloc: (a: number, b: number) => number;
export const __wbindgen_realloc: (a: number, b: number, c: number, d: number) => number;
export const __externref_table_dealloc: (a: number) => void;
export const __externref_drop_slice: (a: number, b: number) => void;
export const __wbindgen_start: () => void;
