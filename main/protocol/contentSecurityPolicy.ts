/**
 * The app's Content-Security-Policy: everything from the core that served it (no CDN, no remote
 * fonts, no inline scripts or styles), so the app works offline and a rendered answer cannot load
 * anything. One value for both places that state it: the header `clawloop serve` sends with the
 * app's page, and the `<meta>` tag Vite writes into the built page (the desktop app loads that
 * file). React and uPlot set styles through the DOM, which a policy does not restrict.
 */
export const APP_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');
