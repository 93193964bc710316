/** Stylesheets imported by the web app for their side effect: esbuild bundles them into one CSS file. */
declare module '*.css';
