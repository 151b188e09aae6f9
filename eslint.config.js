// ESLint for the JS side (house style: lint both sides). `npx eslint .`
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["pkg/**", "node_modules/**", "target/**", "crate/**"] },
  js.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: "module",
      globals: { ...globals.node, Bun: "readonly" },
    },
    rules: {
      "no-unused-vars": ["error", { argsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
  // Mission Control's page runs in the browser, not in Node.
  { files: ["bin/mc/public/**/*.js"], languageOptions: { globals: globals.browser } },
];
