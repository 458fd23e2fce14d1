// Lets TypeScript accept the stylesheet import that Vite bundles.
/// <reference types="vite/client" />
