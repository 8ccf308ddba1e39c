// The JS linter of `npm run lint`: ESLint's recommended rules over every JS file we write (the
// generated loader native.cjs and build output are not ours to lint).
import js from '@eslint/js'
import globals from 'globals'

export default [
  { ignores: ['native.cjs', 'target/**', 'node_modules/**', 'npm/**', 'e2e/artifacts/**'] },
  js.configs.recommended,
  { files: ['**/*.{mjs,js,cjs}'], languageOptions: { ecmaVersion: 2024, sourceType: 'module', globals: { ...globals.node } } },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' } },
  // The panel: ES modules in the browser, and client.js, the classic script dsh serves, which imports them.
  { files: ['client/**/*.js'], languageOptions: { sourceType: 'module', globals: { ...globals.browser } } },
  { files: ['client/client.js'], languageOptions: { sourceType: 'script' } },
  // Playwright runs these callbacks in the page.
  {
    files: ['e2e/panel.test.mjs', 'e2e/desktop.test.mjs', 'e2e/page.mjs', 'test/panel-boot.test.mjs'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    rules: {
      'no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // A failure we deliberately ignore is an empty catch, never an empty block elsewhere.
      'no-empty': ['error', { allowEmptyCatch: true }],
      // Matching control characters is the point of the patterns that escape or refuse them.
      'no-control-regex': 'off',
    },
  },
]
