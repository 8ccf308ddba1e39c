// The JS linter of `npm run lint`: ESLint's recommended rules over every JS file we write (the
// generated loader native.cjs and build output are not ours to lint).
import js from '@eslint/js'
import globals from 'globals'

export default [
  { ignores: ['native.cjs', 'target/**', 'node_modules/**', 'npm/**', 'e2e/artifacts/**'] },
  js.configs.recommended,
  { files: ['**/*.{mjs,js,cjs}'], languageOptions: { ecmaVersion: 2024, sourceType: 'module', globals: { ...globals.node } } },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' } },
  { files: ['client/**/*.js'], languageOptions: { sourceType: 'script', globals: { ...globals.browser } } },
  // Playwright runs these callbacks in the page.
  { files: ['e2e/panel.test.mjs'], languageOptions: { globals: { ...globals.browser } } },
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
