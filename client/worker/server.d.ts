// What the server writes in front of worker/sw.js (client.views.service_worker), for the type check.

/** The app shell's URLs: the page and every hashed static file it needs offline. */
declare const SHELL: string[];
/** A hash of SHELL: a new deploy's worker has a new cache. */
declare const VERSION: string;
/** The notifications' icon (a hashed static URL). */
declare const ICON: string;
